//! The pack's config table for the acme plugin.

use serde::Deserialize;
use spindle_plugin_sdk::config;
use spindle_plugin_sdk::facts::norm_path;
use spindle_plugin_sdk::glob::Glob;
use spindle_plugin_sdk::serde_json::Value;

/// `[plugins.acme] config = {…}` in a pack file; every key is optional.
///
/// ```toml
/// [plugins.acme]
/// path = "acme_rules.wasm"
/// sha256 = "…"
/// config = { data_mounts_windows = ['*\SQLData*'], data_mounts_linux = ["/var/opt/mssql/data*"],
///            log_label_word = "LOG", production_hosts = ["*-prd-*", "erp-sql*"] }
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AcmeConfig {
    /// ACM001: globs (`*`, `?`) a Windows mount point holding user data files must match,
    /// compared without case and without the trailing backslash. STD-SQL-004 §3.1.
    pub data_mounts_windows: Vec<String>,
    /// ACM001: globs a Linux mount point holding user data files must match, case-sensitive.
    /// STD-SQL-004 §3.2.
    pub data_mounts_linux: Vec<String>,
    /// ACM002: the word a log volume's label contains, compared without case. STD-SQL-004 §4.
    pub log_label_word: String,
    /// ACM003: globs of the host names that are production, compared without case; every host
    /// by default. STD-SQL-004 §5.
    pub production_hosts: Vec<String>,
}

impl Default for AcmeConfig {
    fn default() -> Self {
        AcmeConfig {
            data_mounts_windows: vec![r"*\SQLData*".into()],
            data_mounts_linux: vec!["/var/opt/mssql/data*".into()],
            log_label_word: "LOG".into(),
            production_hosts: vec!["*".into()],
        }
    }
}

impl AcmeConfig {
    /// Reads and checks a config table (`Null`: the defaults).
    pub fn from_value(v: &Value) -> Result<AcmeConfig, String> {
        let c: AcmeConfig = config::parse_value(v)?;
        if c.data_mounts_windows.is_empty() && c.data_mounts_linux.is_empty() {
            return Err("data_mounts_windows and data_mounts_linux are both empty: ACM001 would flag \
                        every data file"
                .into());
        }
        if c.log_label_word.trim().is_empty() {
            return Err("log_label_word is empty: every label contains it".into());
        }
        Ok(c)
    }

    /// The config of the running check (validated before any rule runs).
    pub fn current() -> AcmeConfig {
        AcmeConfig::from_value(&config::get()).expect("validated by Acme::validate_config")
    }

    /// The pattern a mount point matches, if any: Windows mount points (a drive letter, a
    /// backslash) against `data_mounts_windows` without case, others against `data_mounts_linux`.
    pub fn data_mount_match(&self, mount: &str) -> Option<&str> {
        let windows = is_windows_path(mount);
        let m = norm_path(mount);
        let patterns = if windows { &self.data_mounts_windows } else { &self.data_mounts_linux };
        patterns
            .iter()
            .find(|p| {
                // The pattern normalised like the mount point: `E:\` and `e:` alike.
                let p = if windows { norm_path(&p.replace('/', "\\")) } else { norm_path(p) };
                Glob::new(p).matches(&m)
            })
            .map(String::as_str)
    }

    /// The patterns that apply to a mount point, for messages: `*\SQLData*`.
    pub fn data_mount_patterns(&self, mount: &str) -> String {
        let patterns =
            if is_windows_path(mount) { &self.data_mounts_windows } else { &self.data_mounts_linux };
        if patterns.is_empty() {
            return "(none configured)".into();
        }
        patterns.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(" or ")
    }

    pub fn is_production(&self, host: &str) -> bool {
        let host = host.to_lowercase();
        self.production_hosts.iter().any(|p| Glob::new(p.to_lowercase()).matches(&host))
    }
}

/// A path as Windows writes it: a backslash or a drive letter (what `norm_path` goes by).
pub(crate) fn is_windows_path(p: &str) -> bool {
    p.contains('\\') || p.as_bytes().get(1) == Some(&b':')
}
