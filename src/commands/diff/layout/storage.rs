//! Partitions, volumes, Storage Spaces virtual disks and RAID sets: what was recreated,
//! reformatted or restriped.

use serde_json::Value;
use spindle_core::facts::{RaidSet, VirtualDisk, Volume};
use spindle_core::units;
use spindle_core::view::HostView;

use super::change::{Change, ChangeKind, added, bytes, change, differs, named, removed};
use super::filesystem;
use super::pairing::{Paired, both, pair, partition_key, partition_keys_of, virtual_disk_key, volume_key};

pub(super) fn partitions(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let (kb, ka) = partition_keys_of(before, after);
    let Some((b, a)) = both(&before.partitions, &after.partitions) else { return };
    for p in pair(b, a, |p| partition_key(&kb, p), |p| partition_key(&ka, p)) {
        match p {
            Paired::Both(pb, pa) => {
                if let Some((ob, oa)) = differs(pb.offset_bytes, pa.offset_bytes) {
                    let entity = named(after, pa);
                    out.push(change(ChangeKind::PartitionOffset, entity, Some(bytes(ob)), Some(bytes(oa))));
                }
            }
            Paired::Added(pa) => {
                let at = pa.offset_bytes.map(|o| (Value::from(o), format!("at {}", units::bytes(o))));
                out.push(added(ChangeKind::PartitionAdded, after, pa, at));
            }
            Paired::Removed(pb) => {
                let at = pb.offset_bytes.map(|o| (Value::from(o), format!("was at {}", units::bytes(o))));
                out.push(removed(ChangeKind::PartitionRemoved, before, pb, at));
            }
        }
    }
}

pub(super) fn volumes(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let shown = |v: &Volume| {
        let mut s = v.display_name().to_string();
        if let Some(fs) = &v.filesystem {
            s.push_str(&format!(", {fs}"));
        }
        if let Some(au) = v.allocation_unit_bytes {
            s.push_str(&format!(", {} clusters", units::binary(au)));
        }
        (Value::from(v.id.clone()), s)
    };
    let Some((b, a)) = both(&before.volumes, &after.volumes) else { return };
    for p in pair(b, a, |v| volume_key(v), |v| volume_key(v)) {
        match p {
            Paired::Both(vb, va) => {
                let entity = named(after, va);
                let fs = |v: &Volume| v.filesystem.as_deref().map(|f| f.trim().to_ascii_lowercase());
                if let (Some(fb), Some(fa)) = (fs(vb), fs(va))
                    && fb != fa
                {
                    let text = |v: &Volume| {
                        let f = v.filesystem.clone().unwrap_or_default();
                        (Value::from(f.clone()), f)
                    };
                    out.push(change(ChangeKind::Filesystem, entity, Some(text(vb)), Some(text(va))));
                }
                if let Some((ub, ua)) = differs(vb.allocation_unit_bytes, va.allocation_unit_bytes) {
                    out.push(change(ChangeKind::AllocationUnit, entity, Some(bytes(ub)), Some(bytes(ua))));
                }
                filesystem::compare(vb, va, entity, out);
            }
            Paired::Added(va) => out.push(added(ChangeKind::VolumeAdded, after, va, Some(shown(va)))),
            Paired::Removed(vb) => out.push(removed(ChangeKind::VolumeRemoved, before, vb, Some(shown(vb)))),
        }
    }
}

pub(super) fn virtual_disks(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let shown = |x: &VirtualDisk| {
        let mut parts = vec![];
        if let Some(c) = x.columns {
            parts.push(format!("{c} columns"));
        }
        if let Some(i) = x.interleave_bytes {
            parts.push(format!("{} interleave", units::binary(i)));
        }
        if let Some(r) = &x.resiliency {
            parts.push(r.clone());
        }
        (Value::from(x.id.clone()), parts.join(", "))
    };
    let Some((b, a)) = both(&before.virtual_disks, &after.virtual_disks) else { return };
    for p in pair(b, a, virtual_disk_key, virtual_disk_key) {
        match p {
            Paired::Both(xb, xa) => {
                let entity = named(after, xa);
                if let Some((cb, ca)) = differs(xb.columns, xa.columns) {
                    let n = |c: u32| (Value::from(c), format!("{c} columns"));
                    out.push(change(ChangeKind::Columns, entity, Some(n(cb)), Some(n(ca))));
                }
                if let Some((ib, ia)) = differs(xb.interleave_bytes, xa.interleave_bytes) {
                    out.push(change(ChangeKind::Interleave, entity, Some(bytes(ib)), Some(bytes(ia))));
                }
            }
            Paired::Added(xa) => out.push(added(ChangeKind::VirtualDiskAdded, after, xa, Some(shown(xa)))),
            Paired::Removed(xb) => {
                out.push(removed(ChangeKind::VirtualDiskRemoved, before, xb, Some(shown(xb))))
            }
        }
    }
}

pub(super) fn raid_sets(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let shown = |r: &RaidSet| {
        let mut parts = vec![];
        if let Some(l) = &r.level {
            parts.push(l.clone());
        }
        if let Some(u) = r.stripe_unit_bytes {
            parts.push(format!("{} stripe unit", units::binary(u)));
        }
        (Value::from(r.id.clone()), parts.join(", "))
    };
    let Some((b, a)) = both(&before.raid_sets, &after.raid_sets) else { return };
    for p in pair(b, a, |r| r.id.clone(), |r| r.id.clone()) {
        match p {
            Paired::Both(rb, ra) => {
                if let Some((ub, ua)) = differs(rb.stripe_unit_bytes, ra.stripe_unit_bytes) {
                    let entity = named(after, ra);
                    out.push(change(ChangeKind::StripeUnit, entity, Some(bytes(ub)), Some(bytes(ua))));
                }
            }
            Paired::Added(ra) => out.push(added(ChangeKind::RaidSetAdded, after, ra, Some(shown(ra)))),
            Paired::Removed(rb) => out.push(removed(ChangeKind::RaidSetRemoved, before, rb, Some(shown(rb)))),
        }
    }
}
