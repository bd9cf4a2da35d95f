//! Database files and the volumes that hold them, joined the way spindle's builtin rules join
//! them: by volume id, else by the longest mount point prefixing the path, never by drive letter.

use spindle_plugin_sdk::Ctx;
use spindle_plugin_sdk::facts::{DatabaseRole, DbFile, Volume, norm_path};
use spindle_plugin_sdk::view::{DatabaseView, HostView, Located};

/// A volume and the database files on it, in snapshot order.
pub(crate) struct FilesOnVolume<'v> {
    pub volume: &'v Located<Volume>,
    pub files: Vec<(&'v DatabaseView, &'v Located<DbFile>)>,
}

impl FilesOnVolume<'_> {
    /// "2 database files: Sales_Data (Sales), Sales_Log (Sales)"; two names at most.
    pub fn describe(&self) -> String {
        let n = self.files.len();
        let names: Vec<String> =
            self.files.iter().take(2).map(|(db, f)| format!("{} ({})", f.logical_name, db.db.name)).collect();
        let noun = if n == 1 { "database file" } else { "database files" };
        match n {
            1 | 2 => format!("{n} {noun}: {}", names.join(", ")),
            _ => format!("{n} {noun}: {} and {} more", names.join(", "), n - 2),
        }
    }
}

/// Whether a database is a user database (not master, model, msdb or tempdb).
pub(crate) fn is_user(db: &DatabaseView) -> bool {
    db.db.effective_role() == DatabaseRole::User
}

/// The volumes holding the files `keep` selects, each once, in the order of the snapshot's
/// `volumes`.
pub(crate) fn volumes_holding<'v, P>(
    cx: &mut Ctx<'v, P>,
    keep: impl Fn(&DatabaseView, &DbFile) -> bool,
) -> Vec<FilesOnVolume<'v>> {
    let view: &'v HostView = cx.view;
    let mut out: Vec<FilesOnVolume<'v>> = Vec::new();
    for (db, f) in view.files() {
        if !keep(db, f) {
            continue;
        }
        let Some(v) = cx.volume_of_file(f) else { continue };
        match out.iter_mut().find(|d| d.volume.key == v.key) {
            Some(d) => d.files.push((db, f)),
            None => out.push(FilesOnVolume { volume: v, files: vec![(db, f)] }),
        }
    }
    let order = |v: &Located<Volume>| view.volumes.iter().flatten().position(|x| x.key == v.key);
    out.sort_by_key(|d| order(d.volume).unwrap_or(usize::MAX));
    out
}

/// The mount points of `v` through which `path` is reached (the path is at or under them); all
/// of them when none prefixes the path (a file joined to its volume by id, reached through a
/// path spindle was not told about).
pub(crate) fn mounts_reaching<'v>(v: &'v Volume, path: Option<&str>) -> Vec<&'v str> {
    let under = |path: &str, mount: &str| {
        let (p, m) = (norm_path(path), norm_path(mount));
        if m == "/" {
            return p.starts_with('/');
        }
        p.strip_prefix(&m).is_some_and(|rest| rest.is_empty() || rest.starts_with(['\\', '/']))
    };
    let reaching: Vec<&str> = match path {
        Some(path) => v.mount_points.iter().map(String::as_str).filter(|m| under(path, m)).collect(),
        None => vec![],
    };
    if reaching.is_empty() { v.mount_points.iter().map(String::as_str).collect() } else { reaching }
}
