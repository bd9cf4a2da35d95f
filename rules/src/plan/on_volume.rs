//! The database files on each volume, gathered in one walk of the host's files.
//!
//! Grouping rebuilds into outages asks which databases each rebuilt volume holds, and choosing
//! where a file moves asks what each candidate volume holds: a walk of every file for each
//! volume made a host with many volumes and files quadratic (issue 27).

use spindle_core::facts::{DbFile, Volume};
use spindle_core::fast_hash::FastMap;
use spindle_core::view::{DatabaseView, HostView, Located};

/// A file with its database.
pub(crate) type FileOf<'v> = (&'v DatabaseView, &'v Located<DbFile>);

pub(crate) struct FilesOnVolumes<'v> {
    /// By volume id, in the order of [`HostView::files`].
    by_id: FastMap<&'v str, Vec<FileOf<'v>>>,
}

impl<'v> FilesOnVolumes<'v> {
    pub fn of_view(view: &'v HostView) -> Self {
        let mut by_id: FastMap<&str, Vec<FileOf<'v>>> = FastMap::default();
        for (dv, f) in view.files() {
            if let Ok(v) = view.volume_of_file(f) {
                by_id.entry(v.id.as_str()).or_default().push((dv, f));
            }
        }
        FilesOnVolumes { by_id }
    }

    /// The files on `v` (on a volume with its id), in the order of [`HostView::files`].
    pub fn files_on(&self, v: &Volume) -> &[FileOf<'v>] {
        self.by_id.get(v.id.as_str()).map_or(&[], Vec::as_slice)
    }

    /// The databases with a file on `v`, each once, in view order.
    pub fn databases_on(&self, v: &Volume) -> Vec<&'v DatabaseView> {
        let mut out: Vec<&DatabaseView> = vec![];
        // The files come database by database, so a database's files are next to each other.
        for &(dv, _) in self.files_on(v) {
            if !out.last().is_some_and(|last| std::ptr::eq(*last, dv)) {
                out.push(dv);
            }
        }
        out
    }
}
