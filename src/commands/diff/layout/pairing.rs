//! How the entities of two views pair: by the names people know them by, not by the ids
//! collectors record, and what one side did not collect is left out of the pairing.

use std::collections::{HashMap, HashSet};

use spindle_core::facts::{
    Backing, Disk, Partition, StoragePool, VirtualDisk, Volume, norm_path, norm_volume_id,
};
use spindle_core::view::{HostView, Located};

/// One entity of either side, paired by key.
pub(super) enum Paired<'b, 'a, B, A> {
    Both(&'b B, &'a A),
    /// Only AFTER has it.
    Added(&'a A),
    /// Only BEFORE has it.
    Removed(&'b B),
}

/// Pairs `b` and `a` by key: the pairs and AFTER's unpaired in AFTER's order, then BEFORE's
/// unpaired.
pub(super) fn pair<'b, 'a, B, A>(
    b: &'b [B],
    a: &'a [A],
    key_b: impl Fn(&B) -> String,
    key_a: impl Fn(&A) -> String,
) -> Vec<Paired<'b, 'a, B, A>> {
    let mut by_key: HashMap<String, usize> = HashMap::with_capacity(b.len());
    for (i, x) in b.iter().enumerate() {
        by_key.entry(key_b(x)).or_insert(i);
    }
    let mut paired = vec![false; b.len()];
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for x in a {
        match by_key.get(&key_a(x)) {
            Some(&i) if !paired[i] => {
                paired[i] = true;
                out.push(Paired::Both(&b[i], x));
            }
            _ => out.push(Paired::Added(x)),
        }
    }
    out.extend(b.iter().zip(paired).filter(|(_, p)| !p).map(|(x, _)| Paired::Removed(x)));
    out
}

/// A section both sides collected; `None` when either did not: what one side did not look at
/// was neither added nor removed.
pub(super) fn both<'b, 'a, T>(b: &'b Option<Vec<T>>, a: &'a Option<Vec<T>>) -> Option<(&'b [T], &'a [T])> {
    Some((b.as_deref()?, a.as_deref()?))
}

pub(super) fn volume_key(v: &Volume) -> String {
    match v.mount_points.first() {
        Some(m) => format!("mount:{}", norm_path(m)),
        None => format!("id:{}", norm_volume_id(&v.id)),
    }
}

pub(super) fn virtual_disk_key(x: &Located<VirtualDisk>) -> String {
    match &x.name {
        Some(n) => format!("name:{}", n.to_lowercase()),
        None => format!("id:{}", x.id),
    }
}

pub(super) fn pool_key(p: &Located<StoragePool>) -> String {
    match &p.name {
        Some(n) => format!("name:{}", n.to_lowercase()),
        None => format!("id:{}", p.id),
    }
}

pub(super) fn partition_key(keys: &HashMap<String, String>, p: &Located<Partition>) -> String {
    keys.get(&p.id).cloned().unwrap_or_else(|| {
        format!("disk:{}/{}", p.disk_id, p.number.map_or_else(|| p.id.clone(), |n| n.to_string()))
    })
}

/// Each partition's pairing key on both sides: the mounted volume built on it, else its disk and
/// number (for every partition, when either side did not collect volumes).
pub(super) fn partition_keys_of(
    before: &HostView,
    after: &HostView,
) -> (HashMap<String, String>, HashMap<String, String>) {
    if before.volumes.is_none() || after.volumes.is_none() {
        return Default::default();
    }
    (partition_keys(before), partition_keys(after))
}

/// Each partition's pairing key: the mounted volume built on it, else its disk and number.
fn partition_keys(view: &HostView) -> HashMap<String, String> {
    let mut keys = HashMap::new();
    for v in view.volumes.iter().flatten() {
        if v.mount_points.is_empty() {
            continue;
        }
        for (i, p) in view.partitions_of_volume(v).into_iter().enumerate() {
            keys.entry(p.id.clone()).or_insert_with(|| format!("on:{}#{i}", volume_key(v)));
        }
    }
    keys
}

/// A disk's first pairing key: the virtual disk or RAID set that exposes it (recreating a
/// virtual disk gives its disk a new unique id), else its id (a unique id, serial, WWN or Linux
/// device name: the disk itself).
fn disk_key(view: &HostView, d: &Disk) -> String {
    match &d.backed_by {
        Some(Backing::VirtualDisk(id)) => {
            let vd = view.virtual_disk_index(id).and_then(|i| view.virtual_disks.as_ref()?.get(i));
            vd.map_or_else(|| format!("exposes:id:{id}"), |x| format!("exposes:{}", virtual_disk_key(x)))
        }
        Some(Backing::RaidSet(id)) => format!("exposes:raid:{id}"),
        _ => format!("id:{}", d.id.to_lowercase()),
    }
}

/// Each disk's second pairing key, for those the first left unpaired: the first mounted volume
/// on its partitions (by disk id). A LUN recreated under `D:\` is, to the DBA, still `D:\`'s
/// disk.
fn disk_volume_keys<'v>(view: &'v HostView, keys: &'v HashMap<String, String>) -> HashMap<&'v str, &'v str> {
    let mut out: HashMap<&str, &str> = HashMap::new();
    for p in view.partitions.iter().flatten() {
        if let Some(k) = keys.get(&p.id) {
            let first = out.entry(p.disk_id.as_str()).or_insert(k.as_str());
            *first = (*first).min(k.as_str());
        }
    }
    out
}

/// The disks of both sides paired (`None` when either did not collect them): by what exposes
/// them or their id, then the unpaired ones by the mounted volume on their partitions.
pub(super) fn pair_disks<'b, 'a>(
    before: &'b HostView,
    after: &'a HostView,
) -> Option<Vec<Paired<'b, 'a, Located<Disk>, Located<Disk>>>> {
    let (b, a) = both(&before.disks, &after.disks)?;
    let first = pair(b, a, |d| disk_key(before, d), |d| disk_key(after, d));
    let removed: Vec<&Located<Disk>> =
        first.iter().filter_map(|p| if let Paired::Removed(d) = p { Some(*d) } else { None }).collect();
    if removed.is_empty() || !first.iter().any(|p| matches!(p, Paired::Added(_))) {
        return Some(first);
    }
    let (kb, ka) = partition_keys_of(before, after);
    let (vb, va) = (disk_volume_keys(before, &kb), disk_volume_keys(after, &ka));
    let mut by_volume: HashMap<&str, &'b Located<Disk>> = HashMap::new();
    for d in &removed {
        if let Some(k) = vb.get(d.id.as_str()) {
            by_volume.entry(k).or_insert(d);
        }
    }
    let mut out = Vec::with_capacity(first.len());
    let mut taken: HashSet<&str> = HashSet::new();
    for p in first {
        match p {
            Paired::Added(da) => match va.get(da.id.as_str()).and_then(|k| by_volume.remove(k)) {
                Some(db) => {
                    taken.insert(&db.id);
                    out.push(Paired::Both(db, da));
                }
                None => out.push(Paired::Added(da)),
            },
            Paired::Removed(db) if taken.contains(db.id.as_str()) => {}
            p => out.push(p),
        }
    }
    Some(out)
}
