//! Builtin rule packs (embedded from `rule-packs/`) and packs read from files.

use std::path::Path;

use spindle_core::pack::{PackLoader, SourceText};

/// The packs shipped in the binary: name and TOML.
pub const BUILTIN: &[(&str, &str)] = &[
    ("recommended", include_str!("../rule-packs/recommended.toml")),
    ("oltp", include_str!("../rule-packs/oltp.toml")),
    ("data-warehouse", include_str!("../rule-packs/data-warehouse.toml")),
];

/// Loads builtin packs by name and others from disk, relative to the pack that names them.
pub struct Loader;

/// Largest pack file read: packs are hand-written, so anything bigger is a mistake.
const MAX_PACK_BYTES: u64 = 4 << 20;

impl PackLoader for Loader {
    fn load(&self, reference: &str, from: Option<&str>) -> Result<SourceText, String> {
        if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| *n == reference) {
            return Ok(SourceText { path: format!("builtin:{name}"), text: text.to_string() });
        }
        let base = from.filter(|f| !f.starts_with("builtin:")).and_then(|f| Path::new(f).parent());
        let path = match base {
            Some(dir) => dir.join(reference),
            None => Path::new(reference).to_path_buf(),
        };
        let shown = path.display().to_string();
        let meta = std::fs::metadata(&path).map_err(|e| {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
            format!("cannot read pack `{shown}`: {e} (builtin packs: {})", names.join(", "))
        })?;
        if meta.len() > MAX_PACK_BYTES {
            return Err(format!("pack `{shown}` is {} bytes; packs are limited to 4 MiB", meta.len()));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read pack `{shown}`: {e}"))?;
        Ok(SourceText { path: shown, text })
    }
}
