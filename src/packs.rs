//! Builtin rule packs (embedded from `rule-packs/`) and packs read from files.

use std::path::Path;

use spindle_core::pack::{PackLoader, SourceText};
use spindle_files::ReadError;

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
        // Opened without waiting and refused unless a regular file: a named pipe would hang the
        // run. At most one byte over the cap is read, whatever the size says.
        let bytes = spindle_files::read_regular(&path, MAX_PACK_BYTES).map_err(|e| match e {
            ReadError::TooLarge { size_bytes: Some(n), .. } => {
                format!("pack `{shown}` is {n} bytes; packs are limited to 4 MiB")
            }
            ReadError::TooLarge { size_bytes: None, .. } => {
                format!("pack `{shown}` is over 4 MiB; packs are limited to 4 MiB")
            }
            e => {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                format!("cannot read pack `{shown}`: {e} (builtin packs: {})", names.join(", "))
            }
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            format!("cannot read pack `{shown}`: not UTF-8 text (byte {})", e.utf8_error().valid_up_to())
        })?;
        Ok(SourceText { path: shown, text })
    }
}

/// The names a project's own pack goes by, looked for in this order in each folder.
pub const CONFIG_NAMES: [&str; 2] = ["spindle.toml", ".spindle.toml"];

/// The project's pack: `spindle.toml` (or `.spindle.toml`) in `start` or the nearest folder
/// above it that has one, as ruff finds `ruff.toml`. `None` when no folder up to the root has
/// one. Only regular files count: a folder or a pipe by that name is not a pack.
pub fn discover_config(start: &Path) -> Option<std::path::PathBuf> {
    start.ancestors().find_map(|dir| {
        CONFIG_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
    })
}
