//! Disks and Storage Spaces pools: disks added or removed, a disk's media, speed, size or sector
//! sizes changed (another disk under the same name), physical disks added to or removed from a
//! pool.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use spindle_core::facts::{Disk, Media, StoragePool};
use spindle_core::units;
use spindle_core::view::{HostView, Located};

use super::change::{Change, ChangeKind, Shown, added, bytes, change, differs, local, named, removed};
use super::pairing::{Paired, both, pair, pair_disks, pool_key};

/// A disk's media, when the platform could tell.
fn media(d: &Disk) -> Option<Media> {
    d.media.filter(|m| *m != Media::Unknown)
}

fn rpm(n: u32) -> Shown {
    (Value::from(n), format!("{} rpm", units::thousands(u64::from(n))))
}

/// A disk for people: `SAMSUNG MZ7L3960HCJR-00A07, SSD, 894.25 GiB, 512 B / 4 KiB sectors`.
fn shown(d: &Disk) -> Shown {
    let mut parts: Vec<String> = vec![];
    parts.extend(d.model.clone());
    parts.extend(media(d).map(|m| m.name().to_string()));
    parts.extend(d.rpm.map(|r| rpm(r).1));
    parts.extend(d.size_bytes.map(units::binary));
    match (d.logical_sector_bytes, d.physical_sector_bytes) {
        (Some(l), Some(p)) => {
            parts.push(format!("{} / {} sectors", units::binary(l.into()), units::binary(p.into())))
        }
        (Some(l), None) => parts.push(format!("{} logical sectors", units::binary(l.into()))),
        (None, Some(p)) => parts.push(format!("{} physical sectors", units::binary(p.into()))),
        (None, None) => {}
    }
    (Value::from(d.id.clone()), parts.join(", "))
}

pub(super) fn disks(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let Some(paired) = pair_disks(before, after) else { return };
    for p in paired {
        match p {
            Paired::Both(db, da) => {
                let entity = named(after, da);
                if let Some((mb, ma)) = differs(media(db), media(da)) {
                    let m = |m: Media| (serde_json::to_value(m).unwrap_or(Value::Null), m.name().to_string());
                    out.push(change(ChangeKind::DiskMedia, entity, Some(m(mb)), Some(m(ma))));
                }
                if let Some((rb, ra)) = differs(db.rpm, da.rpm) {
                    out.push(change(ChangeKind::DiskRpm, entity, Some(rpm(rb)), Some(rpm(ra))));
                }
                if let Some((sb, sa)) = differs(db.size_bytes, da.size_bytes) {
                    out.push(change(ChangeKind::DiskSize, entity, Some(bytes(sb)), Some(bytes(sa))));
                }
                for (kind, b, a) in [
                    (ChangeKind::LogicalSector, db.logical_sector_bytes, da.logical_sector_bytes),
                    (ChangeKind::PhysicalSector, db.physical_sector_bytes, da.physical_sector_bytes),
                ] {
                    if let Some((b, a)) = differs(b, a) {
                        out.push(change(kind, entity, Some(bytes(b.into())), Some(bytes(a.into()))));
                    }
                }
            }
            Paired::Added(da) => out.push(added(ChangeKind::DiskAdded, after, da, Some(shown(da)))),
            Paired::Removed(db) => out.push(removed(ChangeKind::DiskRemoved, before, db, Some(shown(db)))),
        }
    }
}

/// A pool's member disks as people name them: the disk's label, else its id.
fn member_names(view: &HostView, ids: &[&String]) -> String {
    let names: Vec<&str> =
        ids.iter().map(|id| view.disk(id).map_or(id.as_str(), |d| local(view, &d.label))).collect();
    names.join(", ")
}

pub(super) fn pools(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let Some((b, a)) = both(&before.storage_pools, &after.storage_pools) else { return };
    // BEFORE's disk ids as AFTER spells them: a disk paired by what exposes it or by the volume
    // on it keeps its place in the pool.
    let mut successor: HashMap<String, String> = HashMap::new();
    for p in pair_disks(before, after).into_iter().flatten() {
        if let Paired::Both(db, da) = p {
            successor.insert(db.id.to_lowercase(), da.id.to_lowercase());
        }
    }
    let shown = |p: &StoragePool| {
        let count =
            p.physical_disk_ids.as_ref().map_or_else(String::new, |ids| units::plural(ids.len(), "disk"));
        Some((Value::from(p.id.clone()), count))
    };
    for p in pair(b, a, pool_key, pool_key) {
        match p {
            Paired::Both(pb, pa) => members(before, after, (pb, pa), &successor, out),
            Paired::Added(pa) => out.push(added(ChangeKind::PoolAdded, after, pa, shown(pa))),
            Paired::Removed(pb) => out.push(removed(ChangeKind::PoolRemoved, before, pb, shown(pb))),
        }
    }
}

/// The disks a pool both sides have gained and lost, when both listed its disks.
fn members(
    before: &HostView,
    after: &HostView,
    (pb, pa): (&Located<StoragePool>, &Located<StoragePool>),
    successor: &HashMap<String, String>,
    out: &mut Vec<Change>,
) {
    let (Some(ib), Some(ia)) = (&pb.physical_disk_ids, &pa.physical_disk_ids) else { return };
    let as_after = |id: &String| {
        let id = id.to_lowercase();
        successor.get(&id).cloned().unwrap_or(id)
    };
    let was: HashSet<String> = ib.iter().map(as_after).collect();
    let is: HashSet<String> = ia.iter().map(|id| id.to_lowercase()).collect();
    let gained: Vec<&String> = ia.iter().filter(|id| !was.contains(&id.to_lowercase())).collect();
    let lost: Vec<&String> = ib.iter().filter(|id| !is.contains(&as_after(id))).collect();
    let entity = named(after, pa);
    let totals = format!("{} → {} in the pool", ib.len(), ia.len());
    for (kind, view, ids) in
        [(ChangeKind::PoolDisksAdded, after, gained), (ChangeKind::PoolDisksRemoved, before, lost)]
    {
        if ids.is_empty() {
            continue;
        }
        let value = Value::from(ids.iter().map(|id| Value::from(id.as_str())).collect::<Vec<_>>());
        let text = format!("{} ({totals}): {}", units::plural(ids.len(), "disk"), member_names(view, &ids));
        let shown = Some((value, text));
        out.push(match kind {
            ChangeKind::PoolDisksAdded => change(kind, entity, None, shown),
            _ => change(kind, entity, shown, None),
        });
    }
}
