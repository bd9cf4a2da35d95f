//! Builtin rule packs (embedded from `rule-packs/`) and packs read from files.

use std::path::{Path, PathBuf};

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

/// What config discovery found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovered {
    /// No folder searched has a pack.
    None,
    /// The project's pack.
    Pack(PathBuf),
    /// The nearest pack, which another user could have written: not used (why, said in words).
    Untrusted(PathBuf, String),
}

/// The project's pack: `spindle.toml` (or `.spindle.toml`) in `start` or the nearest folder
/// above it that has one, as ruff finds `ruff.toml`. Only regular files count: a folder or a
/// pipe by that name is not a pack.
///
/// The search stops at the repository's top folder (one holding `.git`) and at the home folder
/// (`home`), so a pack above them — in a shared folder, left by someone else — is never
/// applied to a project by accident. A pack found is used only if no other user could have
/// written it, as git trusts a repository (`safe.directory`): owned by this user or root, in a
/// folder owned by this user or root, and neither writable by every user. Otherwise it is
/// [`Discovered::Untrusted`]: a pack whose waivers and plugins another user chose must not judge
/// this user's run (a `spindle.toml` planted in `/tmp` would waive every finding of a root
/// run under it, and run that user's plugin).
pub fn discover_config(start: &Path, home: Option<&Path>) -> Discovered {
    for dir in start.ancestors() {
        let found = CONFIG_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
        if let Some(pack) = found {
            return match distrust(&pack, dir) {
                Some(why) => Discovered::Untrusted(pack, why),
                None => Discovered::Pack(pack),
            };
        }
        if dir.join(".git").exists() || home.is_some_and(|h| h == dir) {
            break;
        }
    }
    Discovered::None
}

/// Why another user could have written `pack` (in `dir`), or `None` when only this user or
/// root could have.
#[cfg(unix)]
fn distrust(pack: &Path, dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let trusted = |uid: u32| uid == me || uid == 0;
    let file = std::fs::metadata(pack).ok()?;
    let folder = std::fs::metadata(dir).ok()?;
    if !trusted(file.uid()) {
        Some(format!("it belongs to another user (uid {})", file.uid()))
    } else if file.mode() & 0o002 != 0 {
        Some("every user can write it".into())
    } else if !trusted(folder.uid()) {
        Some(format!("its folder belongs to another user (uid {})", folder.uid()))
    } else if folder.mode() & 0o002 != 0 {
        Some("every user can write its folder".into())
    } else {
        None
    }
}

#[cfg(not(unix))]
fn distrust(_: &Path, _: &Path) -> Option<String> {
    None
}

/// The packs a run applies: those given, else the project's pack when discovery is on and
/// finds one it trusts (said on stderr, so a run never applies a pack no one named silently),
/// else none (`recommended`). A pack found but not trusted is named on stderr, and not used.
pub fn packs_to_apply(packs: &[String], discover: bool) -> Vec<String> {
    if !packs.is_empty() || !discover {
        return packs.to_vec();
    }
    let Ok(cwd) = std::env::current_dir() else { return vec![] };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| std::fs::canonicalize(&h).unwrap_or_else(|_| PathBuf::from(h)));
    let shown = |p: &Path| spindle_core::untrusted::name(&p.display().to_string()).into_owned();
    match discover_config(&cwd, home.as_deref()) {
        Discovered::None => vec![],
        Discovered::Untrusted(pack, why) => {
            eprintln!(
                "spindle: warning: not using the pack {}: {why}, so another user may have written it \
                 (--pack it to use it anyway); using the recommended pack",
                shown(&pack)
            );
            vec![]
        }
        Discovered::Pack(pack) => {
            eprintln!(
                "spindle: using the pack {} (found from the working directory; --pack or --no-config to skip it)",
                shown(&pack)
            );
            vec![pack.display().to_string()]
        }
    }
}
