use spindle_core::declare::Declarations;
use spindle_core::load::parse_snapshot;
use spindle_report::diff::ChangeKind;

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
    let after =
        BEFORE.replace(r#""allocation_unit_bytes": 4096, "#, "").replace(r#", "offset_bytes": 32256"#, "");
    assert_eq!(compare(&view(BEFORE), &view(&after)), vec![]);
}

fn kinds(changes: &[Change]) -> Vec<ChangeKind> {
    changes.iter().map(|c| c.kind).collect()
}

const DISKS: &str = r#"{"schema_version": 1, "host": {"name": "h"},
  "disks": [
    {"id": "WWN-A", "number": 1, "media": "hdd", "rpm": 10000, "size_bytes": 146815733760,
     "logical_sector_bytes": 512, "physical_sector_bytes": 512},
    {"id": "WWN-B", "number": 2, "media": "hdd", "rpm": 10000, "size_bytes": 146815733760},
    {"id": "WWN-C", "number": 3, "media": "ssd"}]}"#;

#[test]
fn a_disk_pairs_by_its_id_and_shows_what_changed_of_it() {
    let after = DISKS
        // Disk 1 is now a 4Kn SSD of another size; disk 2 went; disk 4 came.
        .replace(
            r#""media": "hdd", "rpm": 10000, "size_bytes": 146815733760,"#,
            r#""media": "ssd", "rpm": 7200, "size_bytes": 960197124096,"#,
        )
        .replace(
            r#""logical_sector_bytes": 512, "physical_sector_bytes": 512"#,
            r#""logical_sector_bytes": 4096, "physical_sector_bytes": 4096"#,
        )
        .replace(r#""id": "WWN-B", "number": 2"#, r#""id": "WWN-D", "number": 4"#);
    let changes = compare(&view(DISKS), &view(&after));
    assert_eq!(
        kinds(&changes),
        [
            ChangeKind::DiskMedia,
            ChangeKind::DiskRpm,
            ChangeKind::DiskSize,
            ChangeKind::LogicalSector,
            ChangeKind::PhysicalSector,
            ChangeKind::DiskAdded,
            ChangeKind::DiskRemoved
        ],
        "{changes:#?}"
    );
    assert!(changes[..5].iter().all(|c| c.entity == "disk 1" && c.entity_key == "h/disk:WWN-A"));
    assert_eq!(changes[0].detail, "HDD → SSD");
    assert_eq!(
        (changes[0].before.clone(), changes[0].after.clone()),
        (Some("hdd".into()), Some("ssd".into()))
    );
    assert_eq!(changes[1].detail, "10,000 rpm → 7,200 rpm");
    assert_eq!(changes[3].detail, "512 B → 4,096 B (4 KiB)");
    assert_eq!(
        (changes[5].entity.as_str(), changes[5].detail.as_str()),
        ("disk 4", "HDD, 10,000 rpm, 136.73 GiB")
    );
    assert_eq!(changes[6].entity, "disk 2");
    assert_eq!(changes[6].before, Some("WWN-B".into()));
}

#[test]
fn a_disk_value_one_side_did_not_collect_or_could_not_tell_is_no_change() {
    let after = DISKS
        .replace(r#""media": "ssd""#, r#""media": "unknown""#)
        .replace(r#", "logical_sector_bytes": 512, "physical_sector_bytes": 512"#, "")
        .replace(r#""rpm": 10000, "size_bytes": 146815733760}"#, "\"size_bytes\": 146815733760}");
    assert_eq!(compare(&view(DISKS), &view(&after)), vec![]);
    let no_disks = r#"{"schema_version": 1, "host": {"name": "h"}}"#;
    assert_eq!(compare(&view(DISKS), &view(no_disks)), vec![]);
    assert_eq!(compare(&view(no_disks), &view(DISKS)), vec![]);
}

const POOL: &str = r#"{"schema_version": 1, "host": {"name": "h"},
  "disks": [{"id": "P1"}, {"id": "P2"}, {"id": "P3", "number": 3},
            {"id": "VD-OLD", "number": 9, "backed_by": {"virtual_disk": "VD-OLD"}}],
  "storage_pools": [{"id": "{pool-1}", "name": "SQLPool", "physical_disk_ids": ["P1", "P2", "P3"]}],
  "virtual_disks": [{"id": "VD-OLD", "name": "SQLVDisk", "pool_id": "{pool-1}", "columns": 3}]}"#;

#[test]
fn a_pool_pairs_by_name_and_lists_the_disks_it_gained_and_lost() {
    // The pool made again (a new id) over P2, P3 and two new disks; the virtual disk too, whose
    // disk gets a new unique id but is still the disk SQLVDisk exposes.
    let after = POOL
        .replace("{pool-1}", "{pool-2}")
        .replace("VD-OLD", "VD-NEW")
        .replace(r#"{"id": "P1"}, "#, r#"{"id": "P4", "number": 4}, {"id": "P5"}, "#)
        .replace(r#"["P1", "P2", "P3"]"#, r#"["p2", "P3", "P4", "P5"]"#);
    let changes = compare(&view(POOL), &view(&after));
    assert_eq!(
        kinds(&changes),
        [
            ChangeKind::DiskAdded,
            ChangeKind::DiskAdded,
            ChangeKind::DiskRemoved,
            ChangeKind::PoolDisksAdded,
            ChangeKind::PoolDisksRemoved
        ],
        "{changes:#?}"
    );
    let (gained, lost) = (&changes[3], &changes[4]);
    assert_eq!((gained.entity.as_str(), gained.entity_key.as_str()), ("pool SQLPool", "h/pool:{pool-2}"));
    assert_eq!(gained.detail, "2 disks (3 → 4 in the pool): disk 4, disk P5");
    assert_eq!(gained.after, Some(serde_json::json!(["P4", "P5"])));
    assert_eq!((gained.before.clone(), lost.after.clone()), (None, None));
    assert_eq!(lost.detail, "1 disk (3 → 4 in the pool): disk P1");

    let map = successors(&view(POOL), &view(&after));
    assert_eq!(map.get("h/pool:{pool-1}").map(String::as_str), Some("h/pool:{pool-2}"));
    assert_eq!(map.get("h/disk:VD-OLD").map(String::as_str), Some("h/disk:VD-NEW"));
}

#[test]
fn pools_one_side_did_not_list_are_neither_added_nor_emptied() {
    let unlisted = POOL.replace(r#", "physical_disk_ids": ["P1", "P2", "P3"]"#, "");
    assert_eq!(compare(&view(POOL), &view(&unlisted)), vec![]);
    let no_pools = POOL.replace(
        r#"  "storage_pools": [{"id": "{pool-1}", "name": "SQLPool", "physical_disk_ids": ["P1", "P2", "P3"]}],
"#,
        "",
    );
    assert_ne!(no_pools, POOL);
    assert_eq!(compare(&view(POOL), &view(&no_pools)), vec![]);
    let other = POOL.replace("SQLPool", "LogPool").replace("{pool-1}", "{pool-2}");
    let changes = compare(&view(POOL), &view(&other));
    assert_eq!(kinds(&changes), [ChangeKind::PoolAdded, ChangeKind::PoolRemoved], "{changes:#?}");
    assert_eq!((changes[0].entity.as_str(), changes[0].detail.as_str()), ("pool LogPool", "3 disks"));
}

const XFS: &str = r#"{"schema_version": 1, "host": {"name": "h"},
  "volumes": [{"id": "/dev/md1", "mount_points": ["/var/opt/mssql/log"], "filesystem": "xfs",
               "mount_options": ["rw", "noatime", "attr2", "logbsize=32k", "noquota"]},
              {"id": "/dev/sdb1", "mount_points": ["/backup"], "filesystem": "ext4",
               "mount_options": ["rw", "relatime"]}]}"#;

#[test]
fn an_xfs_volume_reformatted_with_su_and_sw_and_mounted_without_noatime() {
    let after = XFS.replace(
        r#""mount_options": ["rw", "noatime", "attr2", "logbsize=32k", "noquota"]"#,
        r#""fs_stripe_unit_bytes": 524288, "fs_stripe_width_bytes": 1048576,
           "mount_options": ["rw", "relatime", "attr2", "logbsize=256k", "sunit=1024", "swidth=2048", "noquota"]"#,
    );
    let changes = compare(&view(XFS), &view(&after));
    assert_eq!(
        kinds(&changes),
        [
            ChangeKind::FsStripeUnit,
            ChangeKind::FsStripeWidth,
            ChangeKind::MountOptionAdded,
            ChangeKind::MountOption,
            ChangeKind::MountOptionRemoved
        ],
        "the geometry options are the stripe changes, not options: {changes:#?}"
    );
    assert!(changes.iter().all(|c| c.entity == "volume /var/opt/mssql/log"));
    // Collected options without sunit: the XFS volume had no stripe unit, which is known.
    assert_eq!(changes[0].detail, "none → 524,288 B (512 KiB)");
    assert_eq!(
        (changes[0].before.clone(), changes[0].after.clone()),
        (Some(serde_json::Value::Null), Some(524288.into()))
    );
    // In AFTER's order of options, then those it dropped.
    assert_eq!(changes[3].detail, "logbsize=32k → logbsize=256k");
    assert_eq!((changes[2].detail.as_str(), changes[4].detail.as_str()), ("relatime", "noatime"));

    // The same geometry read from the options alone: no change.
    let options_only =
        after.replace(r#""fs_stripe_unit_bytes": 524288, "fs_stripe_width_bytes": 1048576,"#, "");
    assert_eq!(kinds(&compare(&view(&after), &view(&options_only))), []);
}

#[test]
fn a_stripe_or_options_one_side_did_not_collect_is_no_change() {
    // ext4 geometry lives in the superblock: absent from the snapshot, it is unknown.
    let ext4 = XFS.replace(
        r#""mount_options": ["rw", "relatime"]"#,
        r#""fs_stripe_unit_bytes": 65536, "mount_options": ["rw", "relatime"]"#,
    );
    assert_eq!(compare(&view(XFS), &view(&ext4)), vec![]);
    // Options not collected: the XFS geometry is unknown, and so are the options.
    let no_options = XFS.replace(
        r#""mount_options": ["rw", "noatime", "attr2", "logbsize=32k", "noquota"]"#,
        r#""label": "log""#,
    );
    let with_geometry = XFS.replace(
        r#""mount_options": ["rw", "noatime""#,
        r#""fs_stripe_unit_bytes": 65536, "mount_options": ["rw""#,
    );
    assert_eq!(compare(&view(&no_options), &view(&with_geometry)), vec![]);
    assert_eq!(
        kinds(&compare(&view(XFS), &view(&with_geometry))),
        [ChangeKind::FsStripeUnit, ChangeKind::MountOptionRemoved]
    );
    // A geometry option that is no count of 512-byte units says nothing.
    let garbled = XFS.replace(r#""noquota"]"#, r#""noquota", "sunit=lots"]"#);
    let changes = compare(&view(XFS), &view(&garbled));
    assert_eq!(kinds(&changes), [ChangeKind::MountOptionAdded], "{changes:#?}");
}
