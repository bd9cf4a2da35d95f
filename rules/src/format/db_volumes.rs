//! The volumes that hold database files, grouped by volume identity, and what the volume says
//! about its operating system. Shared by the FMT, CAP and MED rules.
//!
//! Candidate for `spindle_core::view` (HostView): `volumes_holding`.

use spindle_core::facts::{DbFile, FileType, FsKind, Volume};
use spindle_core::fast_hash::FastMap;
use spindle_core::rule::Ctx;
use spindle_core::view::{DatabaseView, HostView, Located};

/// A volume and the database files on it, in snapshot order.
pub(crate) struct DbVolume<'v> {
    pub volume: &'v Located<Volume>,
    pub files: Vec<(&'v DatabaseView, &'v Located<DbFile>)>,
}

impl DbVolume<'_> {
    /// "2 database files: Sales_Data (Sales), Sales_Log (Sales)"; at most two names, then
    /// "and N more".
    pub fn describe_files(&self) -> String {
        describe_files(&self.files)
    }
}

/// Data and log files (tempdb's included); not FILESTREAM or full-text containers.
pub(crate) fn data_or_log(f: &DbFile) -> bool {
    matches!(f.file_type, FileType::Rows | FileType::Log)
}

/// Any database file.
pub(crate) fn any_file(_: &DbFile) -> bool {
    true
}

/// The volumes holding the files `keep` selects, each once (joined by volume key, never by
/// drive letter), in the order of the snapshot's `volumes`. A selected file whose volume cannot
/// be found is recorded "not evaluated" on the file.
pub(crate) fn volumes_holding<'v, P>(cx: &mut Ctx<'v, P>, keep: fn(&DbFile) -> bool) -> Vec<DbVolume<'v>> {
    let view: &'v HostView = cx.view;
    let mut out: Vec<DbVolume<'v>> = Vec::new();
    // Each volume's place in `out`, by its place in the view's volumes: a walk over `out` for
    // every file made this quadratic in a host's files and volumes.
    let mut slot: FastMap<usize, usize> = FastMap::default();
    for (db, f) in view.files() {
        if !keep(f) {
            continue;
        }
        let Some(v) = cx.volume_of_file(f) else { continue };
        // The view's own volumes: their index is found by address.
        let index = view.volume_index(v).unwrap_or(usize::MAX);
        match slot.get(&index) {
            Some(&at) if index != usize::MAX => out[at].files.push((db, f)),
            _ => {
                slot.insert(index, out.len());
                out.push(DbVolume { volume: v, files: vec![(db, f)] });
            }
        }
    }
    out.sort_by_cached_key(|d| view.volume_index(d.volume).unwrap_or(usize::MAX));
    out
}

/// "1 database file: tempdev (tempdb)"; "5 database files: a (x), b (y) and 3 more".
pub(crate) fn describe_files(files: &[(&DatabaseView, &Located<DbFile>)]) -> String {
    let n = files.len();
    let names: Vec<String> =
        files.iter().take(2).map(|(db, f)| format!("{} ({})", f.logical_name, db.db.name)).collect();
    let noun = if n == 1 { "database file" } else { "database files" };
    match n {
        0 => "no database files".to_string(),
        1 | 2 => format!("{n} {noun}: {}", names.join(", ")),
        _ => format!("{n} {noun}: {} and {} more", names.join(", "), n - 2),
    }
}

/// The filesystem name as reported, for messages (`NTFS`, `xfs`), or "an unknown filesystem".
pub(crate) fn fs_name(v: &Volume) -> &str {
    v.filesystem.as_deref().unwrap_or("an unknown filesystem")
}

/// Whether the filesystem is one of the Linux filesystems SQL Server supports.
pub(crate) fn is_linux_fs(v: &Volume) -> bool {
    matches!(v.fs_kind(), Some(FsKind::Xfs | FsKind::Ext4))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_core::facts::Snapshot;
    use spindle_core::view::Document;

    use crate::commands::test_volume as vol;

    fn view_with(volumes: Vec<Volume>) -> HostView {
        let snapshot = Snapshot { schema_version: 1, volumes: Some(volumes), ..Snapshot::default() };
        let doc = Document { path: "test.json".into(), text: String::new(), snapshot };
        HostView::build(vec![doc], Default::default())
    }

    #[test]
    fn drive_root_and_folder_mounts() {
        let view = view_with(vec![
            vol("c", &["C:\\"]),
            vol("e", &["E:\\"]),
            vol("e1", &["E:\\SQLData\\"]),
            vol("root", &["/"]),
            vol("data", &["/var/opt/mssql/data"]),
        ]);
        let id = |p: &str| {
            let f = DbFile { physical_name: Some(p.to_string()), ..DbFile::default() };
            view.volume_of_file(&f).ok().map(|v| v.id.clone())
        };
        assert_eq!(id("D:\\x.mdf"), None);
        assert_eq!(id("c:\\Program Files\\x.mdf").as_deref(), Some("c"));
        assert_eq!(id("E:\\SQLLogs\\x.ldf").as_deref(), Some("e"));
        assert_eq!(id("E:\\SQLData\\x.mdf").as_deref(), Some("e1"));
        assert_eq!(id("E:\\SQLData2\\x.mdf").as_deref(), Some("e"));
        assert_eq!(id("/var/opt/mssql/data/x.mdf").as_deref(), Some("data"));
        assert_eq!(id("/var/opt/mssql/log/x.ldf").as_deref(), Some("root"));
    }
}
