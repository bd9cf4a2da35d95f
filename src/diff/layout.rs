//! What changed in a host's storage layout between two views: partitions that start elsewhere,
//! volumes reformatted, Storage Spaces virtual disks recreated with other columns or
//! interleave, RAID stripe units, database files moved between volumes or given other growth
//! settings, databases and files added or removed.
//!
//! Entities pair by the name people know them by, not by the ids collectors record: recreating
//! a partition and formatting it gives the volume a new GUID, and recreating a virtual disk
//! gives it (and the disk it exposes) a new unique id, yet `D:\` and `SQLVDisk` are the same
//! thing to the DBA who did it. So a volume pairs by its first mount point (else its id), a
//! partition by the mounted volume built on it (else its disk and number), a virtual disk by its
//! friendly name (else its id), a database by instance and name, a file by logical name. A
//! value one side did not collect is no change: only values read on both sides are compared.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use spindle_core::facts::{
    DbFile, Growth, MaxSize, Partition, RaidSet, VirtualDisk, Volume, norm_path, norm_volume_id,
};
use spindle_core::units;
use spindle_core::view::{DatabaseView, HostView, Located};

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A partition starts at another offset (recreated, realigned).
    PartitionOffset,
    PartitionAdded,
    PartitionRemoved,
    /// A volume's allocation unit (cluster) size changed: it was reformatted.
    AllocationUnit,
    Filesystem,
    VolumeAdded,
    VolumeRemoved,
    /// A Storage Spaces virtual disk's number of columns.
    Columns,
    /// A Storage Spaces virtual disk's interleave (stripe unit).
    Interleave,
    VirtualDiskAdded,
    VirtualDiskRemoved,
    /// A RAID set's stripe unit.
    StripeUnit,
    RaidSetAdded,
    RaidSetRemoved,
    /// A database file is on another volume.
    FileMoved,
    Growth,
    MaxSize,
    FileAdded,
    FileRemoved,
    DatabaseAdded,
    DatabaseRemoved,
}

impl ChangeKind {
    /// How the text report names it.
    pub fn describe(self) -> &'static str {
        match self {
            ChangeKind::PartitionOffset => "partition offset",
            ChangeKind::PartitionAdded => "partition added",
            ChangeKind::PartitionRemoved => "partition removed",
            ChangeKind::AllocationUnit => "allocation unit",
            ChangeKind::Filesystem => "filesystem",
            ChangeKind::VolumeAdded => "volume added",
            ChangeKind::VolumeRemoved => "volume removed",
            ChangeKind::Columns => "columns",
            ChangeKind::Interleave => "interleave",
            ChangeKind::VirtualDiskAdded => "virtual disk added",
            ChangeKind::VirtualDiskRemoved => "virtual disk removed",
            ChangeKind::StripeUnit => "stripe unit",
            ChangeKind::RaidSetAdded => "RAID set added",
            ChangeKind::RaidSetRemoved => "RAID set removed",
            ChangeKind::FileMoved => "moved",
            ChangeKind::Growth => "growth",
            ChangeKind::MaxSize => "max size",
            ChangeKind::FileAdded => "file added",
            ChangeKind::FileRemoved => "file removed",
            ChangeKind::DatabaseAdded => "database added",
            ChangeKind::DatabaseRemoved => "database removed",
        }
    }
}

/// One change of the layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The entity as people name it, without the host (`disk 1 › partition 1 (D:\)`,
    /// `MSSQLSERVER › ERP_PROD › ERP_PROD_Data`).
    pub entity: String,
    /// The entity's key in AFTER (in BEFORE for what was removed), as findings name it.
    pub entity_key: String,
    /// The value before and after, as the snapshot has it (bytes, a count, a growth setting, a
    /// volume); absent for what one side does not have.
    pub before: Option<Value>,
    pub after: Option<Value>,
    /// The change in words: `32,256 B (31.5 KiB) → 65,536 B (64 KiB)`.
    pub detail: String,
}

/// The layout changes from `before` to `after`, partitions first, then volumes, virtual disks,
/// RAID sets, databases and their files.
pub fn compare(before: &HostView, after: &HostView) -> Vec<Change> {
    let mut out = vec![];
    partitions(before, after, &mut out);
    volumes(before, after, &mut out);
    virtual_disks(before, after, &mut out);
    raid_sets(before, after, &mut out);
    databases(before, after, &mut out);
    out
}

/// The entity keys of BEFORE that name, in AFTER, an entity recreated under another id: a volume
/// formatted again (a new GUID), a partition on a disk exposed by a virtual disk made anew, that
/// disk, the virtual disk. Keys start with the host's name as each side spells it, so a host
/// whose name changed case maps too. Findings are compared by fingerprint through this map, so
/// a volume recreated with the same 4 KiB clusters keeps its finding, unchanged, rather than
/// showing it fixed on the old volume and new on the new one.
pub fn successors(before: &HostView, after: &HostView) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let mut add = |b: &str, a: &str| {
        if b != a {
            map.insert(b.to_string(), a.to_string());
        }
    };
    add(&before.host.key, &after.host.key);
    let (kb, ka) = partition_keys_of(before, after);
    let (b, a) = both(&before.partitions, &after.partitions).unwrap_or_default();
    for p in pair(b, a, |p| partition_key(&kb, p), |p| partition_key(&ka, p)) {
        if let Paired::Both(pb, pa) = p {
            add(&pb.key, &pa.key);
            if let (Some(db), Some(da)) = (before.disk(&pb.disk_id), after.disk(&pa.disk_id)) {
                add(&db.key, &da.key);
            }
        }
    }
    let (b, a) = both(&before.volumes, &after.volumes).unwrap_or_default();
    for p in pair(b, a, |v| volume_key(v), |v| volume_key(v)) {
        if let Paired::Both(vb, va) = p {
            add(&vb.key, &va.key);
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

fn partition_key(keys: &HashMap<String, String>, p: &Located<Partition>) -> String {
    keys.get(&p.id).cloned().unwrap_or_else(|| {
        format!("disk:{}/{}", p.disk_id, p.number.map_or_else(|| p.id.clone(), |n| n.to_string()))
    })
}

fn virtual_disk_key(x: &Located<VirtualDisk>) -> String {
    match &x.name {
        Some(n) => format!("name:{}", n.to_lowercase()),
        None => format!("id:{}", x.id),
    }
}

/// A label without its host: the diff is already under the host's heading.
fn local<'a>(view: &HostView, label: &'a str) -> &'a str {
    label.strip_prefix(view.host_name()).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

/// One entity of either side, paired by key.
enum Paired<'b, 'a, B, A> {
    Both(&'b B, &'a A),
    /// Only AFTER has it.
    Added(&'a A),
    /// Only BEFORE has it.
    Removed(&'b B),
}

/// Pairs `b` and `a` by key: the pairs and AFTER's unpaired in AFTER's order, then BEFORE's
/// unpaired.
fn pair<'b, 'a, B, A>(
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

fn volume_key(v: &Volume) -> String {
    match v.mount_points.first() {
        Some(m) => format!("mount:{}", norm_path(m)),
        None => format!("id:{}", norm_volume_id(&v.id)),
    }
}

fn bytes(n: u64) -> (Value, String) {
    (Value::from(n), units::bytes(n))
}

fn change(
    kind: ChangeKind,
    (entity, key): (&str, &str),
    before: Option<(Value, String)>,
    after: Option<(Value, String)>,
) -> Change {
    let detail = match (&before, &after) {
        (Some((_, b)), Some((_, a))) => format!("{b} → {a}"),
        (None, Some((_, a))) => a.clone(),
        (Some((_, b)), None) => b.clone(),
        (None, None) => String::new(),
    };
    Change {
        kind,
        entity: entity.to_string(),
        entity_key: key.to_string(),
        before: before.map(|(v, _)| v),
        after: after.map(|(v, _)| v),
        detail,
    }
}

/// A value both sides read, when it differs.
fn differs<T: PartialEq + Copy>(b: Option<T>, a: Option<T>) -> Option<(T, T)> {
    match (b, a) {
        (Some(b), Some(a)) if b != a => Some((b, a)),
        _ => None,
    }
}

/// A section both sides collected; `None` when either did not: what one side did not look at
/// was neither added nor removed.
fn both<'b, 'a, T>(b: &'b Option<Vec<T>>, a: &'a Option<Vec<T>>) -> Option<(&'b [T], &'a [T])> {
    Some((b.as_deref()?, a.as_deref()?))
}

/// Each partition's pairing key on both sides: the mounted volume built on it, else its disk and
/// number (for every partition, when either side did not collect volumes).
fn partition_keys_of(
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

fn partitions(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let (kb, ka) = partition_keys_of(before, after);
    let Some((b, a)) = both(&before.partitions, &after.partitions) else { return };
    for p in pair(b, a, |p| partition_key(&kb, p), |p| partition_key(&ka, p)) {
        match p {
            Paired::Both(pb, pa) => {
                if let Some((ob, oa)) = differs(pb.offset_bytes, pa.offset_bytes) {
                    let entity = (local(after, &pa.label), pa.key.as_str());
                    out.push(change(ChangeKind::PartitionOffset, entity, Some(bytes(ob)), Some(bytes(oa))));
                }
            }
            Paired::Added(pa) => {
                let at = pa.offset_bytes.map(|o| (Value::from(o), format!("at {}", units::bytes(o))));
                out.push(change(ChangeKind::PartitionAdded, (local(after, &pa.label), &pa.key), None, at));
            }
            Paired::Removed(pb) => {
                let at = pb.offset_bytes.map(|o| (Value::from(o), format!("was at {}", units::bytes(o))));
                out.push(change(ChangeKind::PartitionRemoved, (local(before, &pb.label), &pb.key), at, None));
            }
        }
    }
}

fn volumes(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
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
                let entity = (local(after, &va.label), va.key.as_str());
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
            }
            Paired::Added(va) => out.push(change(
                ChangeKind::VolumeAdded,
                (local(after, &va.label), &va.key),
                None,
                Some(shown(va)),
            )),
            Paired::Removed(vb) => out.push(change(
                ChangeKind::VolumeRemoved,
                (local(before, &vb.label), &vb.key),
                Some(shown(vb)),
                None,
            )),
        }
    }
}

fn virtual_disks(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
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
                let entity = (local(after, &xa.label), xa.key.as_str());
                if let Some((cb, ca)) = differs(xb.columns, xa.columns) {
                    let n = |c: u32| (Value::from(c), format!("{c} columns"));
                    out.push(change(ChangeKind::Columns, entity, Some(n(cb)), Some(n(ca))));
                }
                if let Some((ib, ia)) = differs(xb.interleave_bytes, xa.interleave_bytes) {
                    out.push(change(ChangeKind::Interleave, entity, Some(bytes(ib)), Some(bytes(ia))));
                }
            }
            Paired::Added(xa) => out.push(change(
                ChangeKind::VirtualDiskAdded,
                (local(after, &xa.label), &xa.key),
                None,
                Some(shown(xa)),
            )),
            Paired::Removed(xb) => out.push(change(
                ChangeKind::VirtualDiskRemoved,
                (local(before, &xb.label), &xb.key),
                Some(shown(xb)),
                None,
            )),
        }
    }
}

fn raid_sets(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
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
                    let entity = (local(after, &ra.label), ra.key.as_str());
                    out.push(change(ChangeKind::StripeUnit, entity, Some(bytes(ub)), Some(bytes(ua))));
                }
            }
            Paired::Added(ra) => out.push(change(
                ChangeKind::RaidSetAdded,
                (local(after, &ra.label), &ra.key),
                None,
                Some(shown(ra)),
            )),
            Paired::Removed(rb) => out.push(change(
                ChangeKind::RaidSetRemoved,
                (local(before, &rb.label), &rb.key),
                Some(shown(rb)),
                None,
            )),
        }
    }
}

fn instance_name<'v>(view: &'v HostView, d: &DatabaseView) -> &'v str {
    view.instances.as_deref().and_then(|i| i.get(d.instance)).map_or("", |i| i.name.as_str())
}

fn databases(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let key = |view: &HostView, d: &DatabaseView| {
        format!("{}\u{0}{}", instance_name(view, d).to_lowercase(), d.db.name.to_lowercase())
    };
    let name = |view: &HostView, d: &DatabaseView| format!("{} › {}", instance_name(view, d), d.db.name);
    let count =
        |d: &DatabaseView| d.files.as_ref().map(|f| (Value::from(f.len()), units::plural(f.len(), "file")));
    // Databases are collected per instance: one an instance did not list was not looked at.
    let listed = |view: &HostView, d: &DatabaseView| {
        view.instances.as_deref().and_then(|i| i.get(d.instance)).is_some_and(|i| i.databases.is_some())
    };
    let collected_on = |view: &HostView| -> Vec<String> {
        view.instances
            .iter()
            .flatten()
            .filter(|i| i.databases.is_some())
            .map(|i| i.name.to_lowercase())
            .collect()
    };
    let (on_b, on_a) = (collected_on(before), collected_on(after));
    let b: Vec<&DatabaseView> = before
        .databases
        .iter()
        .filter(|d| listed(before, d) && on_a.contains(&instance_name(before, d).to_lowercase()))
        .collect();
    let a: Vec<&DatabaseView> = after
        .databases
        .iter()
        .filter(|d| listed(after, d) && on_b.contains(&instance_name(after, d).to_lowercase()))
        .collect();
    for p in pair(&b, &a, |d| key(before, d), |d| key(after, d)) {
        match p {
            Paired::Both(db, da) => files(before, after, (db, da), &name(after, da), out),
            Paired::Added(da) => {
                out.push(change(ChangeKind::DatabaseAdded, (&name(after, da), &da.db.key), None, count(da)))
            }
            Paired::Removed(db) => out.push(change(
                ChangeKind::DatabaseRemoved,
                (&name(before, db), &db.db.key),
                count(db),
                None,
            )),
        }
    }
}

/// Where a file is, for people: its volume (and that it is the OS volume) and its path.
fn placed(view: &HostView, f: &DbFile) -> (Value, String) {
    let path = f.physical_name.clone().unwrap_or_default();
    let shown = match view.volume_of_file(f) {
        Ok(v) if v.os_volume == Some(true) => format!("on {}, the OS volume ({path})", v.display_name()),
        Ok(v) => format!("on {} ({path})", v.display_name()),
        Err(_) => format!("on an unknown volume ({path})"),
    };
    (Value::from(path), shown)
}

fn growth_text(g: Growth) -> String {
    match g {
        Growth::Disabled => "no growth".into(),
        Growth::IncrementBytes(n) => units::binary(n),
        Growth::Percent(p) => format!("{p} %"),
    }
}

fn max_size_text(m: MaxSize) -> String {
    match m {
        MaxSize::Unlimited => "unlimited".into(),
        MaxSize::Bytes(n) => units::binary(n),
    }
}

/// The file changes of one database both sides have, named under `dname`.
fn files(
    before: &HostView,
    after: &HostView,
    (db, da): (&DatabaseView, &DatabaseView),
    dname: &str,
    out: &mut Vec<Change>,
) {
    let (Some(fb), Some(fa)) = (&db.files, &da.files) else { return };
    let key = |f: &Located<DbFile>| f.logical_name.to_lowercase();
    let name = |f: &DbFile| format!("{dname} › {}", f.logical_name);
    for p in pair(fb, fa, key, key) {
        match p {
            Paired::Both(b, a) => {
                if let (Ok(vb), Ok(va)) = (before.volume_of_file(b), after.volume_of_file(a))
                    && volume_key(vb) != volume_key(va)
                {
                    let (pb, pa) = (placed(before, b), placed(after, a));
                    out.push(change(ChangeKind::FileMoved, (&name(a), &a.key), Some(pb), Some(pa)));
                }
                if let Some((gb, ga)) = differs(b.growth, a.growth) {
                    let g = |g: Growth| (serde_json::to_value(g).unwrap_or(Value::Null), growth_text(g));
                    out.push(change(ChangeKind::Growth, (&name(a), &a.key), Some(g(gb)), Some(g(ga))));
                }
                if let Some((mb, ma)) = differs(b.max_size, a.max_size) {
                    let m = |m: MaxSize| (serde_json::to_value(m).unwrap_or(Value::Null), max_size_text(m));
                    out.push(change(ChangeKind::MaxSize, (&name(a), &a.key), Some(m(mb)), Some(m(ma))));
                }
            }
            Paired::Added(a) => {
                out.push(change(ChangeKind::FileAdded, (&name(a), &a.key), None, Some(placed(after, a))))
            }
            Paired::Removed(b) => {
                out.push(change(ChangeKind::FileRemoved, (&name(b), &b.key), Some(placed(before, b)), None))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use spindle_core::declare::Declarations;
    use spindle_core::load::parse_snapshot;

    use super::*;

    fn view(json: &str) -> HostView {
        HostView::build(vec![parse_snapshot("h.json", json.to_string()).unwrap()], Declarations::default())
    }

    const BEFORE: &str = r#"{"schema_version": 1, "host": {"name": "h"},
      "disks": [{"id": "d1", "number": 1}],
      "partitions": [{"id": "p1", "disk_id": "d1", "number": 1, "offset_bytes": 32256}],
      "volumes": [{"id": "\\\\?\\Volume{aaaa}\\", "mount_points": ["D:\\"], "filesystem": "NTFS",
                   "allocation_unit_bytes": 4096, "backed_by": {"partitions": ["p1"]}}]}"#;

    #[test]
    fn a_reformatted_volume_pairs_by_its_mount_point_though_its_id_changed() {
        let after = BEFORE
            .replace("32256", "65536")
            .replace("Volume{aaaa}", "Volume{bbbb}")
            .replace("4096", "65536")
            .replace(r#""disk_id": "d1""#, r#""disk_id": "d9""#)
            .replace(r#""id": "d1""#, r#""id": "d9""#);
        let changes = compare(&view(BEFORE), &view(&after));
        let kinds: Vec<_> = changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::PartitionOffset, ChangeKind::AllocationUnit], "{changes:#?}");
        assert_eq!(changes[0].detail, "32,256 B (31.5 KiB) → 65,536 B (64 KiB)");
        assert_eq!(changes[0].entity, "disk 1 › partition 1 (D:\\)");
        assert_eq!(changes[1].entity, "volume D:\\");
    }

    #[test]
    fn a_section_one_side_did_not_collect_is_neither_added_nor_removed() {
        let no_volumes =
            BEFORE.split(r#""volumes""#).next().unwrap().trim_end().trim_end_matches(',').to_string() + "}";
        let changes = compare(&view(BEFORE), &view(&no_volumes.replace("32256", "65536")));
        assert_eq!(
            changes.iter().map(|c| c.kind).collect::<Vec<_>>(),
            [ChangeKind::PartitionOffset],
            "{changes:#?}"
        );
        let no_sql = r#"{"schema_version": 1, "host": {"name": "h"}}"#;
        let with_sql = r#"{"schema_version": 1, "host": {"name": "h"}, "sql_instances": [{"name": "MSSQLSERVER",
            "databases": [{"name": "erp", "files": [{"type": "rows", "logical_name": "erp"}]}]}]}"#;
        assert_eq!(compare(&view(no_sql), &view(with_sql)), vec![]);
        let no_databases =
            r#"{"schema_version": 1, "host": {"name": "h"}, "sql_instances": [{"name": "MSSQLSERVER"}]}"#;
        assert_eq!(compare(&view(with_sql), &view(no_databases)), vec![]);
        let other_db = with_sql.replace(r#""name": "erp""#, r#""name": "crm""#);
        let kinds: Vec<_> = compare(&view(with_sql), &view(&other_db)).iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::DatabaseAdded, ChangeKind::DatabaseRemoved]);
    }

    #[test]
    fn a_value_one_side_did_not_collect_is_no_change() {
        let after = BEFORE
            .replace(r#""allocation_unit_bytes": 4096, "#, "")
            .replace(r#", "offset_bytes": 32256"#, "");
        assert_eq!(compare(&view(BEFORE), &view(&after)), vec![]);
    }
}
