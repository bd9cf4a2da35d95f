use super::index::WALK;
use super::placement::is_under;
use super::*;
use crate::declare::Declarations;
use crate::facts::*;

#[test]
fn to_snapshot_round_trips_merged_facts_and_keys() {
    let a = r#"{"schema_version": 1, "host": {"name": "h"},
        "volumes": [{"id": "\\\\?\\Volume{AB}\\", "mount_points": ["E:\\"]}],
        "sql_instances": [{"name": "I", "databases": [{"name": "d", "files": [
            {"type": "rows", "logical_name": "f", "volume_id": "\\\\?\\volume{ab}"}]}]}]}"#;
    let b = r#"{"schema_version": 1, "host": {"name": "h", "cpu_count": 4},
        "volumes": [{"id": "\\\\?\\VOLUME{AB}", "allocation_unit_bytes": 4096}]}"#;
    let docs = vec![
        crate::load::parse_snapshot("a.json", a.into()).unwrap(),
        crate::load::parse_snapshot("b.json", b.into()).unwrap(),
    ];
    let view = HostView::build(docs, Declarations::default());
    let snap = view.to_snapshot();
    assert_eq!(snap.host.cpu_count, Some(4));
    assert_eq!(snap.volumes.as_ref().unwrap()[0].allocation_unit_bytes, Some(4096));
    let again = HostView::build(
        vec![Document { path: "x".into(), text: String::new(), snapshot: snap }],
        Declarations::default(),
    );
    let keys = |v: &HostView| v.files().map(|(_, f)| f.key.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&view), keys(&again));
    assert_eq!(keys(&view), ["h/instance:I/database:d/file:f"]);
    assert!(view.entity("h/instance:I/database:d/file:f").is_some());
    assert!(view.entity(r"h/volume:\\?\volume{ab}").is_some());
    assert!(view.entity("h/volume:nope").is_none());
}

/// A host of `n` disks, each with one partition and a volume folder-mounted under `E:\`
/// (volume 0 is `E:\` itself), with one database file on each volume, and two instances.
fn long_host(n: usize) -> HostView {
    use serde_json::json;
    let disks: Vec<_> = (0..n).map(|i| json!({"id": format!("d{i}"), "number": i})).collect();
    let partitions: Vec<_> =
        (0..n).map(|i| json!({"id": format!("d{i}-p1"), "disk_id": format!("d{i}"), "number": 1})).collect();
    let mount = |i: usize| if i == 0 { "E:\\".to_string() } else { format!("E:\\Mounts\\L{i}\\") };
    let volumes: Vec<_> = (0..n)
        .map(|i| {
            json!({"id": format!("v{i}"), "mount_points": [mount(i)],
                   "backed_by": {"partitions": [format!("d{i}-p1")]}})
        })
        .collect();
    // By path only, so the mount points place them; the last one under no folder of its own.
    let files: Vec<_> = (0..n)
        .map(|i| {
            json!({"type": "rows", "logical_name": format!("f{i}"),
                        "physical_name": format!("{}data\\f{i}.mdf", mount(i))})
        })
        .collect();
    let snap = json!({"schema_version": 1, "host": {"name": "h"},
        "disks": disks, "partitions": partitions, "volumes": volumes,
        "sql_instances": [
            {"name": "A", "databases": [{"name": "a1", "files": files}, {"name": "a2"}]},
            {"name": "B", "databases": []},
            {"name": "C", "databases": [{"name": "c1"}]}]});
    let doc = crate::load::parse_snapshot("long.json", snap.to_string()).unwrap();
    HostView::build(vec![doc], Declarations::default())
}

#[test]
fn long_sections_are_joined_as_short_ones() {
    for n in [WALK / 2, WALK * 4] {
        let view = long_host(n);
        for i in 0..n {
            assert_eq!(view.disk(&format!("d{i}")).unwrap().number, Some(i as u32), "n = {n}");
            assert_eq!(view.partition(&format!("d{i}-p1")).unwrap().disk_id, format!("d{i}"));
            let v = view.volume(&format!("v{i}")).unwrap();
            assert_eq!(view.volume_index(v), Some(i));
            let p = &view.partitions.as_ref().unwrap()[i];
            assert!(p.label.ends_with(&format!("partition 1 ({})", v.mount_points[0])), "{}", p.label);
            assert!(p.label.starts_with(&format!("h › disk {i} ")), "{}", p.label);
        }
        assert!(view.disk("nope").is_none() && view.partition("nope").is_none());
        assert_eq!(view.data_partitions().count(), n);
        // The deepest mount point holding each path, E:\ for the last resort.
        let files: Vec<_> = view.files().map(|(_, f)| f).collect();
        for (i, f) in files.iter().enumerate() {
            let v = view.volume_of_file(f).unwrap();
            assert_eq!(v.item.id, format!("v{i}"), "{:?} (n = {n})", f.physical_name);
        }
        let copy =
            DbFile { physical_name: Some(r"e:/mounts/l1/deeper/x.mdf".into()), ..files[0].item.clone() };
        assert_eq!(view.volume_of_file(&copy).unwrap().item.id, "v1");
        let elsewhere = DbFile { physical_name: Some(r"F:\x.mdf".into()), ..files[0].item.clone() };
        assert!(view.volume_of_file(&elsewhere).is_err());
        for key in
            view.disks.iter().flatten().map(|d| d.key.clone()).chain(files.iter().map(|f| f.key.clone()))
        {
            assert_eq!(view.entity(&key).unwrap().key, key);
        }
        assert!(view.entity("h/disk:nope").is_none());
        let names = |i: usize| view.databases_of(i).iter().map(|d| d.db.name.as_str()).collect::<Vec<_>>();
        assert_eq!((names(0), names(1), names(2)), (vec!["a1", "a2"], vec![], vec!["c1"]));
        assert!(view.databases_of(3).is_empty());
    }
}

#[test]
fn merging_long_sections_keeps_one_entity_per_key() {
    let n = WALK * 3;
    let a = long_host(n);
    // From two collectors, so the files complement each other (two of one collector would be
    // an older and a newer reading: see `stale`).
    let doc = |v: &HostView, collector: &str| {
        let mut snapshot = v.to_snapshot();
        snapshot.collectors = vec![CollectorReport { name: collector.into(), ..Default::default() }];
        Document { path: "x".into(), text: String::new(), snapshot }
    };
    let twice = HostView::build(vec![doc(&a, "linux"), doc(&a, "sql")], Declarations::default());
    assert_eq!(twice.disks.as_ref().unwrap().len(), n);
    assert!(twice.disks.as_ref().unwrap().iter().all(|d| d.origins.len() == 2));
    assert_eq!(twice.volumes.as_ref().unwrap().len(), n);
}

fn view_of(json: &str) -> HostView {
    HostView::build(
        vec![crate::load::parse_snapshot("t.json", json.into()).unwrap()],
        Declarations::default(),
    )
}

/// [`HostView::volume_of_partition`] as it was worked out before its index (issue 27): the
/// first volume, in snapshot order, one of whose partitions has `p`'s id and disk.
fn volume_of_partition_by_walk<'v>(view: &'v HostView, p: &Partition) -> Option<&'v Located<Volume>> {
    view.volumes
        .iter()
        .flatten()
        .find(|v| view.partitions_of_volume(v).iter().any(|q| q.id == p.id && q.disk_id == p.disk_id))
}

#[test]
fn a_partitions_volume_is_the_first_built_on_it() {
    let view = view_of(
        r#"{"schema_version": 1, "host": {"name": "h"},
        "disks": [{"id": "d1"}, {"id": "d2"}, {"id": "d3"}],
        "partitions": [{"id": "p1", "disk_id": "d1"}, {"id": "p2", "disk_id": "d2"},
                       {"id": "p3", "disk_id": "d3"}, {"id": "p1", "disk_id": "d2"}],
        "raid_sets": [{"id": "r", "kind": "md", "level": "raid1", "member_ids": ["p3"]}],
        "volumes": [{"id": "/dev/md0", "backed_by": {"raid_set": "r"}},
                    {"id": "/dev/dm-0", "backed_by": {"lvm": {"name": "vg/lv", "devices": ["nope", "p2", "p1"]}}},
                    {"id": "a", "backed_by": {"partitions": ["p1"]}},
                    {"id": "b", "backed_by": {"partitions": ["p2", "p1"]}},
                    {"id": "c", "backed_by": {"partitions": ["p2"]}}]}"#,
    );
    let parts = view.partitions.as_ref().unwrap();
    let id = |p: &Partition| view.volume_of_partition(p).map(|v| v.item.id.as_str());
    // Several volumes on p1 and on p2: the first in snapshot order, an LVM volume's devices
    // counting as its partitions.
    assert_eq!(id(&parts[0]), Some("/dev/dm-0"));
    assert_eq!(id(&parts[1]), Some("/dev/dm-0"));
    // Only a RAID set on p3: no volume.
    assert_eq!(id(&parts[2]), None);
    // The second p1 is on another disk: the volumes name the first.
    assert_eq!(id(&parts[3]), None);
    // A copy is found as the original; a partition the view does not have, never.
    assert_eq!(id(&parts[0].item.clone()), Some("/dev/dm-0"));
    assert_eq!(id(&Partition { id: "p9".into(), ..parts[0].item.clone() }), None);
    assert_eq!(id(&Partition { disk_id: "d3".into(), ..parts[1].item.clone() }), None);
    for p in parts {
        let walked = volume_of_partition_by_walk(&view, p).map(|v| v.item.id.as_str());
        assert_eq!(id(p), walked, "{}", p.key);
    }
    let none = view_of(
        r#"{"schema_version": 1, "host": {"name": "h"}, "partitions": [{"id": "p1", "disk_id": "d1"}]}"#,
    );
    assert!(none.volume_of_partition(&none.partitions.as_ref().unwrap()[0]).is_none());
}

#[test]
fn a_long_hosts_partitions_find_their_volumes_as_a_short_ones() {
    for n in [WALK / 2, WALK * 4] {
        let view = long_host(n);
        for (i, p) in view.partitions.iter().flatten().enumerate() {
            let v = view.volume_of_partition(p).unwrap();
            assert_eq!(v.item.id, format!("v{i}"), "n = {n}");
            assert!(std::ptr::eq(v, volume_of_partition_by_walk(&view, p).unwrap()));
        }
    }
}

#[test]
fn a_dynamic_disk_set_stripes_in_64k_unless_its_unit_was_collected() {
    let view = view_of(
        r#"{"schema_version": 1, "host": {"name": "h", "os_version": "Windows Server 2008 R2"},
        "disks": [{"id": "d2"}, {"id": "d3"}, {"id": "x", "backed_by": {"raid_set": "dyn"}}],
        "partitions": [{"id": "d2-p1", "disk_id": "d2"}, {"id": "d3-p1", "disk_id": "d3"}],
        "raid_sets": [{"id": "dyn", "kind": "dynamic", "level": "raid0", "member_ids": ["d2-p1", "d3-p1"]},
                      {"id": "hw", "kind": "hardware", "level": "raid0"},
                      {"id": "mir", "kind": "dynamic", "level": "mirror"}],
        "volumes": [{"id": "v", "backed_by": {"raid_set": "dyn"}},
                    {"id": "w", "backed_by": {"raid_set": "hw"}},
                    {"id": "m", "backed_by": {"raid_set": "mir"}}]}"#,
    );
    let vols = view.volumes.as_ref().unwrap();
    let s = view.stripe_of_volume(&vols[0]).unwrap();
    assert_eq!((s.unit_bytes, s.width, s.source), (65_536, Some(2), StripeSource::DynamicDisk(0)));
    let disk = view.disk("x").unwrap();
    assert_eq!(view.stripe_of_disk(disk).unwrap().source, StripeSource::DynamicDisk(0));
    assert_eq!(view.stripe_of_volume(&vols[1]), None, "a hardware set's unit is never assumed");
    assert_eq!(view.stripe_of_volume(&vols[2]), None);
    assert!(view.volume_is_unstriped(&vols[2]), "a dynamic mirror has no stripe");
}

#[test]
fn a_linear_lvm_volume_has_the_stripe_of_its_devices() {
    let view = view_of(
        r#"{"schema_version": 1, "host": {"name": "h"},
        "disks": [{"id": "md0", "backed_by": {"raid_set": "md0"}}, {"id": "sdb", "bus": "SATA"},
                  {"id": "loop", "backed_by": {"lvm": {"name": "vg/self", "stripes": 1, "devices": ["loop"]}}}],
        "partitions": [{"id": "sdb1", "disk_id": "sdb"}],
        "raid_sets": [{"id": "md0", "kind": "md", "level": "raid10", "stripe_unit_bytes": 32768}],
        "volumes": [{"id": "/dev/dm-0", "backed_by": {"lvm": {"name": "vg/lin", "stripes": 1, "devices": ["md0"]}}},
                    {"id": "/dev/dm-1", "backed_by": {"lvm": {"name": "vg/plain", "stripes": 1, "devices": ["sdb1"]}}},
                    {"id": "/dev/dm-2", "backed_by": {"lvm": {"name": "vg/st", "stripes": 2,
                        "stripe_unit_bytes": 524288, "devices": ["md0", "sdb1"]}}},
                    {"id": "/dev/dm-3", "backed_by": {"lvm": {"name": "vg/self", "stripes": 1, "devices": ["loop"]}}}]}"#,
    );
    let vols = view.volumes.as_ref().unwrap();
    let lin = view.stripe_of_volume(&vols[0]).unwrap();
    assert_eq!((lin.unit_bytes, lin.source), (32_768, StripeSource::RaidSet(0)));
    assert_eq!(view.stripe_of_volume(&vols[1]), None);
    assert!(view.volume_is_unstriped(&vols[1]), "linear over a SATA drive");
    assert!(!view.volume_is_unstriped(&vols[0]));
    let st = view.stripe_of_volume(&vols[2]).unwrap();
    assert_eq!((st.unit_bytes, st.width, st.source), (524_288, Some(2), StripeSource::Lvm("vg/st".into())));
    // A volume built on itself ends the walk instead of the stack.
    assert_eq!(view.stripe_of_volume(&vols[3]), None);
}

#[test]
fn under_a_mount_point() {
    assert!(is_under(&norm_path("E:\\Archive_log.ldf"), &norm_path("E:\\")));
    assert!(is_under(&norm_path("E:/SQLLOGS/x.ldf"), &norm_path("e:\\SQLLogs\\")));
    assert!(is_under(&norm_path("E:\\SQLData"), &norm_path("E:\\SQLData\\")));
    assert!(!is_under(&norm_path("E:\\SQLDataOld\\x.mdf"), &norm_path("E:\\SQLData\\")));
    assert!(!is_under(&norm_path("F:\\x.mdf"), &norm_path("E:\\")));
    assert!(is_under("/var/opt/mssql/data/x.mdf", "/"));
    assert!(is_under("/var/opt/mssql/data/x.mdf", "/var/opt/mssql/data"));
    assert!(!is_under("/var/opt/mssql/data2/x.mdf", "/var/opt/mssql/data"));
    assert!(!is_under("/var/opt/mssql/Data/x.mdf", "/var/opt/mssql/data"), "Linux paths are case-sensitive");
    assert!(!is_under(&norm_path("C:\\x.mdf"), "/"));
}
