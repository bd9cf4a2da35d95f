//! The fleet's inventory: a TOML file of servers, each with optional login, pack and tags.
//!
//! ```toml
//! [[server]]
//! name = 'sql01\SALES'          # host, host\instance or host,port
//! tags = ["prod", "emea"]
//! pack = ["oltp", "acme.toml"]  # relative to this file; default: the command line's --pack
//! user = "spindle"              # password from password_env, never from this file
//! password_env = "SQL01_PASSWORD"
//! ```

use std::path::{Path, PathBuf};

use miette::{NamedSource, SourceSpan};
use serde::Deserialize;
use toml::Spanned;

use crate::connect::{Encrypt, ServerOverrides};
use crate::errors::UserError;
use spindle_collectors::sql::target::Target;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    server: Vec<Spanned<Entry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Spanned<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    pack: Option<OneOrMany>,
    user: Option<String>,
    password_env: Option<String>,
    access_token_env: Option<String>,
    integrated: Option<bool>,
    encrypt: Option<Encrypt>,
    trust_server_certificate: Option<bool>,
    /// Present only to be refused with a clear message.
    password: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// One server of the inventory.
#[derive(Debug, Clone)]
pub struct Server {
    pub target: Target,
    /// The name as written in the inventory, for messages and reports.
    pub label: String,
    pub tags: Vec<String>,
    /// Packs for this server (paths resolved against the inventory's folder); `None`: the
    /// command line's.
    pub packs: Option<Vec<String>>,
    pub overrides: ServerOverrides,
}

pub fn load(path: &Path) -> Result<Vec<Server>, UserError> {
    let shown = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    let at = |span: std::ops::Range<usize>, message: String, help: Option<String>| {
        let (line, col) = spindle_core::load::line_col(&text, span.start);
        UserError {
            message: format!("{shown}:{line}:{col}: {message}"),
            src: Some(NamedSource::new(shown.clone(), text.clone())),
            span: Some(SourceSpan::from(span.start..span.end.max(span.start + 1).min(text.len().max(1)))),
            help,
        }
    };
    let file: File = toml::from_str(&text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        at(span, e.message().to_string(), None)
    })?;
    if file.server.is_empty() {
        return Err(UserError::plain(format!("{shown}: no [[server]] entries")));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(file.server.len());
    for entry in file.server {
        let entry = entry.into_inner();
        if let Some(p) = &entry.password {
            return Err(at(
                p.span(),
                "passwords are never read from files".into(),
                Some("name an environment variable instead: password_env = \"SQL01_PASSWORD\"".into()),
            ));
        }
        let name = entry.name.get_ref();
        let target = Target::parse(name).map_err(|e| at(entry.name.span(), e, None))?;
        if !seen.insert(target.to_string().to_ascii_lowercase()) {
            return Err(at(entry.name.span(), format!("server {target} is listed twice"), None));
        }
        let packs = entry.pack.map(|p| match p {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        });
        out.push(Server {
            label: name.clone(),
            target,
            tags: entry.tags,
            packs: packs.map(|v| v.into_iter().map(|p| resolve_pack(base, p)).collect()),
            overrides: ServerOverrides {
                user: entry.user,
                password_env: entry.password_env,
                access_token_env: entry.access_token_env,
                integrated: entry.integrated,
                encrypt: entry.encrypt,
                trust_server_certificate: entry.trust_server_certificate,
            },
        });
    }
    Ok(out)
}

/// A pack named by path is relative to the inventory; a builtin name stays a name.
fn resolve_pack(base: &Path, pack: String) -> String {
    if pack.ends_with(".toml") && Path::new(&pack).is_relative() {
        let p: PathBuf = base.join(&pack);
        p.display().to_string()
    } else {
        pack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str) -> Result<Vec<Server>, UserError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.toml");
        std::fs::write(&path, text).unwrap();
        load(&path)
    }

    #[test]
    fn servers_with_their_own_login_pack_and_tags() {
        let servers = load_str(
            "[[server]]\nname = 'sql01\\SALES'\ntags = [\"prod\"]\npack = \"acme.toml\"\nuser = \"spindle\"\n\
             password_env = \"SALES_PW\"\n\n[[server]]\nname = \"sql02,1500\"\nencrypt = \"strict\"\n",
        )
        .unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].target.instance.as_deref(), Some("SALES"));
        assert_eq!(servers[0].tags, ["prod"]);
        assert!(servers[0].packs.as_ref().unwrap()[0].ends_with("acme.toml"));
        assert_eq!(servers[0].overrides.password_env.as_deref(), Some("SALES_PW"));
        assert_eq!(servers[1].target.port, Some(1500));
        assert_eq!(servers[1].overrides.encrypt, Some(Encrypt::Strict));
    }

    #[test]
    fn mistakes_name_the_line_and_column() {
        let e = load_str("[[server]]\nname = \"sql01\"\npassword = \"hunter2\"\n").unwrap_err();
        assert!(
            e.message.contains("servers.toml:3:12: passwords are never read from files"),
            "{}",
            e.message
        );
        let e = load_str("[[server]]\nname = \"sql01\"\nuesr = \"x\"\n").unwrap_err();
        assert!(e.message.contains(":3:1: unknown field `uesr`"), "{}", e.message);
        let e = load_str("[[server]]\nname = \"sql01,99999\"\n").unwrap_err();
        assert!(e.message.contains(":2:8:") && e.message.contains("port"), "{}", e.message);
        let e = load_str("[[server]]\nname = \"a\"\n[[server]]\nname = \"A\"\n").unwrap_err();
        assert!(e.message.contains(":4:8: server A is listed twice"), "{}", e.message);
    }
}
