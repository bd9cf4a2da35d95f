//! What a finding is about, found in the view by the finding's entity key.

use spindle_core::facts::{Backing, DbFile, Partition, VirtualDisk, Volume};
use spindle_core::view::{DatabaseView, HostView, Located};

pub(crate) enum Subject<'v> {
    Partition(&'v Located<Partition>),
    Volume(&'v Located<Volume>),
    VirtualDisk(&'v Located<VirtualDisk>),
    File(&'v DatabaseView, &'v Located<DbFile>),
    Database(&'v DatabaseView),
    Other,
}

pub(crate) fn of<'v>(view: &'v HostView, key: &str) -> Subject<'v> {
    if let Some(p) = view.partitions.iter().flatten().find(|p| p.key == key) {
        return Subject::Partition(p);
    }
    if let Some(v) = view.volumes.iter().flatten().find(|v| v.key == key) {
        return Subject::Volume(v);
    }
    if let Some(vd) = view.virtual_disks.iter().flatten().find(|v| v.key == key) {
        return Subject::VirtualDisk(vd);
    }
    for dv in &view.databases {
        if dv.db.key == key {
            return Subject::Database(dv);
        }
        if let Some(f) = dv.files.iter().flatten().find(|f| f.key == key) {
            return Subject::File(dv, f);
        }
    }
    Subject::Other
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

/// The databases with a file on `v`, each once, in view order.
pub(crate) fn databases_on<'v>(view: &'v HostView, v: &Volume) -> Vec<&'v DatabaseView> {
    view.databases
        .iter()
        .filter(|dv| dv.files.iter().flatten().any(|f| view.volume_of_file(f).is_ok_and(|fv| fv.id == v.id)))
        .collect()
}
