//! What changed in a host's storage layout between two views: disks added, removed or replaced
//! by others (media, speed, size, sector sizes), Storage Spaces pools and the physical disks
//! they hold, partitions that start elsewhere, volumes reformatted (cluster size, a Linux
//! filesystem's stripe unit and width, its mount options), virtual disks recreated with other
//! columns or interleave, RAID stripe units, database files moved between volumes or given
//! other growth settings, databases and files added or removed.
//!
//! Entities pair by the name people know them by, not by the ids collectors record: recreating
//! a partition and formatting it gives the volume a new GUID, and recreating a virtual disk
//! gives it (and the disk it exposes) a new unique id, yet `D:\` and `SQLVDisk` are the same
//! thing to the DBA who did it. So a volume pairs by its first mount point (else its id), a
//! partition by the mounted volume built on it (else its disk and number), a disk by the virtual
//! disk or RAID set exposing it, else its id (else the mounted volume on it), a pool or a
//! virtual disk by its friendly name (else its id), a database by instance and name, a file by
//! logical name. A value one side did not collect is no change: only values read on both sides
//! are compared; a section one side did not collect is neither added nor removed.

mod change;
mod databases;
mod disks;
mod filesystem;
mod pairing;
mod storage;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use spindle_core::view::HostView;

use change::Change;
use pairing::{
    Paired, both, pair, pair_disks, partition_key, partition_keys_of, pool_key, virtual_disk_key, volume_key,
};

/// The layout changes from `before` to `after`, from the disks up: disks, pools, partitions,
/// volumes, virtual disks, RAID sets, then databases and their files.
pub fn compare(before: &HostView, after: &HostView) -> Vec<Change> {
    let mut out = vec![];
    disks::disks(before, after, &mut out);
    disks::pools(before, after, &mut out);
    storage::partitions(before, after, &mut out);
    storage::volumes(before, after, &mut out);
    storage::virtual_disks(before, after, &mut out);
    storage::raid_sets(before, after, &mut out);
    databases::databases(before, after, &mut out);
    out
}

/// The entity keys of BEFORE that name, in AFTER, an entity recreated under another id: a volume
/// formatted again (a new GUID), a partition on a disk exposed by a virtual disk made anew, that
/// disk, the virtual disk, a pool made anew. Keys start with the host's name as each side
/// spells it, so a host whose name changed case maps too. Findings are compared by fingerprint
/// through this map, so a volume recreated with the same 4 KiB clusters keeps its finding,
/// unchanged, rather than showing it fixed on the old volume and new on the new one.
pub fn successors(before: &HostView, after: &HostView) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let mut add = |b: &str, a: &str| {
        if b != a {
            map.insert(b.to_string(), a.to_string());
        }
    };
    add(&before.host.key, &after.host.key);
    for p in pair_disks(before, after).into_iter().flatten() {
        if let Paired::Both(db, da) = p {
            add(&db.key, &da.key);
        }
    }
    let (kb, ka) = partition_keys_of(before, after);
    let (b, a) = both(&before.partitions, &after.partitions).unwrap_or_default();
    for p in pair(b, a, |p| partition_key(&kb, p), |p| partition_key(&ka, p)) {
        if let Paired::Both(pb, pa) = p {
            add(&pb.key, &pa.key);
        }
    }
    let (b, a) = both(&before.volumes, &after.volumes).unwrap_or_default();
    for p in pair(b, a, |v| volume_key(v), |v| volume_key(v)) {
        if let Paired::Both(vb, va) = p {
            add(&vb.key, &va.key);
        }
    }
    let (b, a) = both(&before.storage_pools, &after.storage_pools).unwrap_or_default();
    for p in pair(b, a, pool_key, pool_key) {
        if let Paired::Both(xb, xa) = p {
            add(&xb.key, &xa.key);
        }
    }
    let (b, a) = both(&before.virtual_disks, &after.virtual_disks).unwrap_or_default();
    for p in pair(b, a, virtual_disk_key, virtual_disk_key) {
        if let Paired::Both(xb, xa) = p {
            add(&xb.key, &xa.key);
        }
    }
    map
}

/// A BEFORE entity key as AFTER spells it: through `successors`, else with AFTER's host name.
pub fn successor_key(
    successors: &HashMap<String, String>,
    before_host: &str,
    after_host: &str,
    key: &str,
) -> String {
    if let Some(k) = successors.get(key) {
        return k.clone();
    }
    match key.strip_prefix(before_host) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{after_host}{rest}"),
        _ => key.to_string(),
    }
}
