//! The Linux collector on hand-built sysfs/procfs trees (see fixtures/linux/README.md): md
//! RAID, LVM striping, Azure DMI, NVMe with 4 KiB logical blocks, and garbled files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use spindle_collectors::linux::{Stats, TableDm, TableFs, collect, collect_with};
use spindle_core::facts::{Backing, CloudProvider, Media, NotCollected, RaidKind, Snapshot};

fn root(scenario: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/linux").join(scenario)
}

/// statfs figures for the given mount points: 4 KiB blocks, 1 GiB, a quarter free.
fn fs(mounts: &[&str]) -> TableFs {
    let s = Stats {
        block_size: 4096,
        fragment_size: 4096,
        blocks: 262_144,
        blocks_free: 70_000,
        blocks_available: 65_536,
        device: None,
    };
    TableFs(mounts.iter().map(|m| (m.to_string(), s)).collect())
}

fn missing<'a>(s: &'a Snapshot, fact: &str) -> Option<&'a NotCollected> {
    s.collectors[0].not_collected.iter().find(|n| n.fact == fact)
}

#[test]
fn md_raid0_with_matching_xfs() {
    let s = collect(&root("md-raid0-xfs"), &fs(&["/", "/boot", "/var/opt/mssql/data"])).unwrap();
    assert_eq!(s.host.name, "sql-md");
    assert_eq!(s.host.os_version.as_deref(), Some("Red Hat Enterprise Linux 9.4 (Plow)"));
    assert_eq!(s.host.cpu_count, Some(16));
    assert_eq!(s.host.memory_bytes, Some(128 * 1024 * 1024 * 1024));
    assert_eq!((s.host.is_virtual, s.host.cloud_provider), (Some(false), Some(CloudProvider::None)));

    let raids = s.raid_sets.as_ref().unwrap();
    assert_eq!(raids.len(), 1);
    let r = &raids[0];
    assert_eq!((r.id.as_str(), r.kind, r.level.as_deref()), ("md0", Some(RaidKind::Md), Some("raid0")));
    assert_eq!(r.stripe_unit_bytes, Some(512 * 1024));
    assert_eq!(r.member_ids.as_deref(), Some(&["sdb".to_string(), "sdc".to_string()][..]));

    let disks = s.disks.as_ref().unwrap();
    let ids: Vec<_> = disks.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["md0", "sda", "sdb", "sdc"]);
    let md0 = &disks[0];
    assert_eq!(md0.backed_by, Some(Backing::RaidSet("md0".into())));
    let sda = &disks[1];
    assert_eq!((sda.media, sda.model.as_deref()), (Some(Media::Ssd), Some("MZ7L3480HCHQ-00A07")));
    assert_eq!(disks[2].media, Some(Media::Hdd));
    assert_eq!(disks[2].physical_sector_bytes, Some(4096));
    assert_eq!(disks[2].size_bytes, Some(1800 * 1024 * 1024 * 1024));

    let vols = s.volumes.as_ref().unwrap();
    let ids: Vec<_> = vols.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(ids, ["/dev/sda2", "/dev/sda1", "/dev/md0"], "proc and tmpfs are not volumes");
    let data = &vols[2];
    assert_eq!(data.mount_points, ["/var/opt/mssql/data"]);
    assert_eq!(data.backed_by, Some(Backing::RaidSet("md0".into())));
    assert_eq!(data.fs_stripe_unit_bytes, Some(512 * 1024), "sunit=1024 x 512 B");
    assert_eq!(data.fs_stripe_width_bytes, Some(1024 * 1024), "swidth=2048 x 512 B");
    assert!(data.mount_options.as_ref().unwrap().contains(&"noatime".to_string()));
    assert_eq!((data.allocation_unit_bytes, data.size_bytes), (Some(4096), Some(1 << 30)));
    assert_eq!(data.free_bytes, Some(65_536 * 4096), "f_bavail, not f_bfree");
    assert_eq!(data.os_volume, Some(false));
    assert_eq!(vols[0].os_volume, Some(true));
    assert_eq!(vols[0].backed_by, Some(Backing::Partitions(vec!["sda2".into()])));
    assert_eq!(vols[0].fs_stripe_unit_bytes, None);
    let parts = s.partitions.as_ref().unwrap();
    assert_eq!(parts[1].id, "sda2");
    assert_eq!(parts[1].offset_bytes, Some((2048 + 2 * 1024 * 1024) * 512));

    assert_eq!(s.collectors[0].not_collected, [], "everything readable was read");
    assert_eq!(s.collectors[0].version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
}

#[test]
fn lvm_striped_with_and_without_the_dm_table() {
    let root = root("lvm-striped");
    let statfs = fs(&["/", "/var/opt/mssql"]);
    let table = "0 2139095040 striped 4 128 8:16 2048 8:32 2048 8:48 2048 8:64 2048\n";
    let tables = TableDm(BTreeMap::from([("vgsql-lvdata".to_string(), table.to_string())]));
    let s = collect_with(&root, &statfs, &tables).unwrap();
    assert_eq!((s.host.is_virtual, s.host.cloud_provider), (Some(true), None));
    assert!(missing(&s, "host.cloud_provider").unwrap().reason.contains("VMware"));
    let lvm = Backing::Lvm {
        name: "vgsql/lvdata".into(),
        stripes: Some(4),
        stripe_unit_bytes: Some(64 * 1024),
        devices: vec!["sdb".into(), "sdc".into(), "sdd".into(), "sde".into()],
    };
    let vol = s.volumes.as_ref().unwrap().iter().find(|v| v.id == "/dev/dm-0").unwrap();
    assert_eq!(vol.mount_points, ["/var/opt/mssql"]);
    assert_eq!(vol.backed_by.as_ref(), Some(&lvm));
    assert_eq!((vol.fs_stripe_unit_bytes, vol.fs_stripe_width_bytes), (Some(65_536), Some(262_144)));
    let dm0 = s.disks.as_ref().unwrap().iter().find(|d| d.id == "dm-0").unwrap();
    assert_eq!(dm0.backed_by.as_ref(), Some(&lvm));
    assert_eq!(s.raid_sets.as_deref(), Some(&[][..]));

    // Without a table (a captured tree), the LV and its devices are known, its striping is not.
    let s = collect(&root, &statfs).unwrap();
    let vol = s.volumes.as_ref().unwrap().iter().find(|v| v.id == "/dev/dm-0").unwrap();
    let Some(Backing::Lvm { name, stripes: None, stripe_unit_bytes: None, devices }) = &vol.backed_by else {
        panic!("{:?}", vol.backed_by)
    };
    assert_eq!((name.as_str(), devices.len()), ("vgsql/lvdata", 4));
    let why = missing(&s, "disks[dm-0].backed_by.stripe_unit_bytes").expect("striping not collected");
    assert!(why.reason.contains("captured tree"), "{}", why.reason);
}

#[test]
fn azure_vm_from_dmi() {
    let s = collect(&root("azure-vm"), &fs(&["/", "/mnt", "/var/opt/mssql/data"])).unwrap();
    assert_eq!(s.host.is_virtual, Some(true));
    assert_eq!(s.host.cloud_provider, Some(CloudProvider::Azure));
    assert!(missing(&s, "volumes[].temp_disk").is_some(), "the resource disk is not identified from sysfs");
    let vols = s.volumes.as_ref().unwrap();
    let data = vols.iter().find(|v| v.id == "/dev/sdc1").unwrap();
    assert_eq!(data.mount_points, ["/var/opt/mssql/data", "/var/opt/mssql/log"], "bind mount: one volume");
    let resource = s.partitions.as_ref().unwrap().iter().find(|p| p.id == "sdb1").unwrap();
    assert_eq!(resource.offset_bytes, Some(65_536));
    // /var/opt/mssql/log has no statfs figures, but /var/opt/mssql/data answered for the volume.
    assert_eq!(data.allocation_unit_bytes, Some(4096));
    assert_eq!(vols.iter().find(|v| v.id == "/dev/sdb1").unwrap().filesystem.as_deref(), Some("ext4"));
}

#[test]
fn nvme_with_4k_logical_blocks() {
    let s = collect(&root("nvme-4k"), &TableFs::default()).unwrap();
    let d = &s.disks.as_ref().unwrap()[0];
    assert_eq!((d.id.as_str(), d.media, d.bus.as_deref()), ("nvme0n1", Some(Media::Nvme), Some("NVMe")));
    assert_eq!((d.logical_sector_bytes, d.physical_sector_bytes), (Some(4096), Some(4096)));
    assert_eq!(d.size_bytes, Some(7_501_476_528 * 512));
    assert_eq!(d.model.as_deref(), Some("SAMSUNG MZQL23T8HCLS-00A07"));
    let p = &s.partitions.as_ref().unwrap()[0];
    assert_eq!(p.offset_bytes, Some(1024 * 1024), "start is in 512-byte sectors even on a 4Kn disk");
    assert_eq!((s.host.is_virtual, s.host.cloud_provider), (Some(false), Some(CloudProvider::None)));
    // No statfs figures: absent, with the reason.
    let v = &s.volumes.as_ref().unwrap()[0];
    assert_eq!((v.allocation_unit_bytes, v.size_bytes, v.free_bytes), (None, None, None));
    let why = missing(&s, "volumes[/dev/nvme0n1p1].allocation_unit_bytes").unwrap();
    assert!(why.reason.contains("statfs /"), "{}", why.reason);
}

#[test]
fn garbled_files_become_absent_facts_with_reasons() {
    let s = collect(&root("garbled"), &fs(&["/"])).unwrap();
    assert_eq!(s.host.name, "odd-host");
    for fact in ["host.os_version", "host.memory_bytes", "host.cpu_count", "host.is_virtual"] {
        assert!(missing(&s, fact).is_some(), "{fact}");
    }
    assert_eq!((s.host.os_version.as_ref(), s.host.memory_bytes, s.host.cpu_count), (None, None, None));
    let sda = s.disks.as_ref().unwrap().iter().find(|d| d.id == "sda").unwrap();
    assert_eq!((sda.size_bytes, sda.media, sda.logical_sector_bytes), (None, None, None));
    assert_eq!(sda.physical_sector_bytes, Some(512));
    for fact in ["disks[sda].size_bytes", "disks[sda].media", "disks[sda].logical_sector_bytes"] {
        assert!(missing(&s, fact).is_some(), "{fact}");
    }
    let p = &s.partitions.as_ref().unwrap()[0];
    assert_eq!((p.offset_bytes, p.size_bytes), (None, Some(500 * 512)));
    assert!(missing(&s, "partitions[sda1].offset_bytes").is_some());
    let md = &s.raid_sets.as_ref().unwrap()[0];
    assert_eq!((md.level.as_ref(), md.stripe_unit_bytes), (None, None));
    assert!(missing(&s, "raid_sets[md0].stripe_unit_bytes").unwrap().reason.contains("reshape"));
    assert!(missing(&s, "raid_sets[md0].member_ids").is_some());
    let bad_line = missing(&s, "volumes").unwrap();
    assert!(bad_line.reason.contains("line 1"), "{}", bad_line.reason);
    let v = &s.volumes.as_ref().unwrap();
    assert_eq!(v.len(), 1, "8:99 is no block device here");
    assert_eq!((v[0].fs_stripe_unit_bytes, v[0].fs_stripe_width_bytes), (None, Some(262_144)));
    assert!(missing(&s, "volumes[/dev/sda1].fs_stripe_unit_bytes").is_some());
}

#[test]
fn not_a_linux_tree() {
    let empty = tempfile::tempdir().unwrap();
    assert!(collect(empty.path(), &TableFs::default()).is_err());
}
