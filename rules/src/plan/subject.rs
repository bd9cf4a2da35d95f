//! What a finding is about, found in the view by the finding's entity key.

use spindle_core::facts::{Backing, DbFile, Partition, VirtualDisk, Volume};
use spindle_core::fast_hash::FastMap;
use spindle_core::view::{DatabaseView, HostView, Located};

#[derive(Clone, Copy)]
pub(crate) enum Subject<'v> {
    Partition(&'v Located<Partition>),
    Volume(&'v Located<Volume>),
    VirtualDisk(&'v Located<VirtualDisk>),
    File(&'v DatabaseView, &'v Located<DbFile>),
    Database(&'v DatabaseView),
    Other,
}

/// Every entity a finding can be about, by its key, built once per plan: the step builders look
/// up each finding's subject, and a walk of the view per finding made a wide host quadratic
/// (issue 27).
pub(crate) struct Subjects<'v> {
    by_key: FastMap<&'v str, Subject<'v>>,
}

impl<'v> Subjects<'v> {
    /// A key shared by two entities names the first in the order partitions, volumes, virtual
    /// disks, then each database before its files: the order a walk of the view would find them.
    pub fn of_view(view: &'v HostView) -> Self {
        let mut by_key = FastMap::default();
        let mut add = |key: &'v str, s: Subject<'v>| {
            by_key.entry(key).or_insert(s);
        };
        view.partitions.iter().flatten().for_each(|p| add(&p.key, Subject::Partition(p)));
        view.volumes.iter().flatten().for_each(|v| add(&v.key, Subject::Volume(v)));
        view.virtual_disks.iter().flatten().for_each(|vd| add(&vd.key, Subject::VirtualDisk(vd)));
        for dv in &view.databases {
            add(&dv.db.key, Subject::Database(dv));
            dv.files.iter().flatten().for_each(|f| add(&f.key, Subject::File(dv, f)));
        }
        Subjects { by_key }
    }

    /// What the finding with entity key `key` is about.
    pub fn of(&self, key: &str) -> Subject<'v> {
        self.by_key.get(key).copied().unwrap_or(Subject::Other)
    }
}

/// The volumes built on a Storage Spaces virtual disk: directly, or through the disk it
/// exposes and that disk's partitions.
pub(crate) fn volumes_on_virtual_disk<'v>(view: &'v HostView, vd: &VirtualDisk) -> Vec<&'v Located<Volume>> {
    let on_vd = |b: &Option<Backing>| matches!(b, Some(Backing::VirtualDisk(id)) if *id == vd.id);
    let disks: Vec<&str> =
        view.disks.iter().flatten().filter(|d| on_vd(&d.backed_by)).map(|d| d.id.as_str()).collect();
    view.volumes
        .iter()
        .flatten()
        .filter(|v| {
            on_vd(&v.backed_by)
                || view.partitions_of_volume(v).iter().any(|p| disks.contains(&p.disk_id.as_str()))
        })
        .collect()
}
