//! One host with many storage entities: `n` disks, each with one partition and one volume on it,
//! the shape of the hardening issue's item 10 (a 40,000-entity host, 13 MB, took 168 s to check
//! when every join was a linear search). The same for every run: no randomness.

use spindle_core::facts::*;

/// A host named `name` with `n` disks, `n` partitions (one per disk, at 1 MiB) and `n` NTFS
/// volumes (one per partition, mounted in a folder), as a Windows host collector would report a
/// server with that many LUNs. Every volume is backed by its partition and every partition names
/// its disk, so the view and the rules join all three.
pub fn snapshot(name: &str, n: usize) -> Snapshot {
    snapshot_at(name, n, ALIGNED)
}

/// Where [`snapshot`]'s partitions start: 1 MiB, aligned for every rule.
pub const ALIGNED: u64 = 1 << 20;

/// Where a partition made by Windows Server 2003 or earlier starts: sector 63 (32,256 bytes),
/// misaligned for every stripe unit and cluster, so the alignment rules find each partition and
/// write a fix for it (issue 27: that fix's join made such a host quadratic).
pub const SECTOR_63: u64 = 63 * 512;

/// [`snapshot`] with every partition starting at `offset_bytes`.
pub fn snapshot_at(name: &str, n: usize, offset_bytes: u64) -> Snapshot {
    let disk_id = |i: usize| format!("disk-{i:06}");
    let part_id = |i: usize| format!("disk-{i:06}-p1");
    let disks = (0..n)
        .map(|i| Disk {
            id: disk_id(i),
            number: Some(i as u32),
            bus: Some("SAS".into()),
            media: Some(Media::Ssd),
            size_bytes: Some(1 << 40),
            logical_sector_bytes: Some(512),
            physical_sector_bytes: Some(4096),
            partition_style: Some(PartitionStyle::Gpt),
            ..Disk::default()
        })
        .collect();
    let partitions = (0..n)
        .map(|i| Partition {
            id: part_id(i),
            disk_id: disk_id(i),
            number: Some(1),
            offset_bytes: Some(offset_bytes),
            size_bytes: Some((1 << 40) - (2 << 20)),
        })
        .collect();
    let volumes = (0..n)
        .map(|i| Volume {
            id: format!(r"\\?\Volume{{00000000-0000-0000-0000-{i:012}}}\"),
            mount_points: vec![format!(r"E:\Mounts\Lun{i:06}\")],
            filesystem: Some("NTFS".into()),
            allocation_unit_bytes: Some(65536),
            size_bytes: Some((1 << 40) - (2 << 20)),
            free_bytes: Some(1 << 39),
            backed_by: Some(Backing::Partitions(vec![part_id(i)])),
            ..Volume::default()
        })
        .collect();
    Snapshot {
        schema_version: SCHEMA_VERSION,
        host: Host { name: name.into(), os_family: Some(OsFamily::Windows), ..Host::default() },
        collectors: vec![CollectorReport {
            name: "wmi".into(),
            version: Some("test".into()),
            not_collected: vec![],
        }],
        disks: Some(disks),
        partitions: Some(partitions),
        volumes: Some(volumes),
        ..Snapshot::default()
    }
}

/// [`snapshot`] as compact JSON, the way a large snapshot is usually shipped (`jq -c`).
pub fn json(name: &str, n: usize) -> String {
    json_at(name, n, ALIGNED)
}

/// [`snapshot_at`] as compact JSON.
pub fn json_at(name: &str, n: usize, offset_bytes: u64) -> String {
    serde_json::to_string(&snapshot_at(name, n, offset_bytes)).expect("a snapshot serializes")
}
