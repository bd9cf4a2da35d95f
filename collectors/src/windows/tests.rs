//! The rows → facts mapping, on rows shaped like the documented CIM classes (built from JSON
//! with the classes' PascalCase property names, as the `wmi` crate hands them over).

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use spindle_core::facts::{Backing, CloudProvider, Media, Partition, PartitionStyle, Snapshot, Volume};

use super::*;

fn ok<T: DeserializeOwned>(v: Value) -> Rows<T> {
    Rows::Ok(serde_json::from_value(v).expect("rows shaped like the class"))
}

/// An ObjectId as the storage provider writes it: quotes and backslashes inside.
fn oid(class: &str, key: &str) -> String {
    format!(
        r#"{{1}}\\AZSQL-OLTP01\root/Microsoft/Windows/Storage/Providers_v2\SPACES_{class}.ObjectId="{{7c0f3e52-4a1d-11e4-80b4-00155d2b6a01}}:{key}""#
    )
}

/// A REF property: the object path of an MSFT_* instance, its ObjectId escaped.
fn reference(class: &str, object_id: &str) -> String {
    format!(
        r#"\\AZSQL-OLTP01\ROOT/Microsoft/Windows/Storage:MSFT_{class}.ObjectId="{}""#,
        object_id.replace('\\', r"\\").replace('"', r#"\""#)
    )
}

fn note<'a>(s: &'a Snapshot, fact: &str) -> Option<&'a str> {
    s.collectors[0].not_collected.iter().find(|n| n.fact == fact).map(|n| n.reason.as_str())
}

fn volume<'a>(s: &'a Snapshot, mount: &str) -> &'a Volume {
    s.volumes.as_ref().unwrap().iter().find(|v| v.mount_points.iter().any(|m| m == mount)).unwrap()
}

const EXAMPLE_AZURE: &str = include_str!("../../../examples/azure-storage-spaces/azsql-oltp01.json");
const EXAMPLE_2003: &str = include_str!("../../../examples/win2003-sector63/erp-sql1.json");

const AZURE_POOL_DISKS: [&str; 16] = [
    "60022483A1C0E7D5B9F2468ACE013579",
    "60022483A1C0E7D7ACD61B5084A8CDFA",
    "60022483A1C0E7D99FB9F0163B50667B",
    "60022483A1C0E7DB929DC4DBF1F7FEFC",
    "60022483A1C0E7DD858199A1A89F977D",
    "60022483A1C0E7DF78656E675F472FFE",
    "60022483A1C0E7E16B49432D15EEC87F",
    "60022483A1C0E7E35E2D17F2CC966100",
    "60022483A1C0E7E55110ECB8833DF981",
    "60022483A1C0E7E743F4C17E39E59202",
    "60022483A1C0E7E936D89643F08D2A83",
    "60022483A1C0E7EB29BC6B09A734C304",
    "60022483A1C0E7ED1CA03FCF5DDC5B85",
    "60022483A1C0E7EF0F8414951483F406",
    "60022483A1C0E7F10267E95ACB2B8C87",
    "60022483A1C0E7F2F54BBE2081D32508",
];

const VOL_RESERVED: &str = r"\\?\Volume{4b2a6f0d-4a0d-11e4-80b3-806e6f6e6963}\";
const VOL_C: &str = r"\\?\Volume{4b2a6f0e-4a0d-11e4-80b3-806e6f6e6963}\";
const VOL_D: &str = r"\\?\Volume{9e5c1d27-4a1c-11e4-80b4-00155d2b6a01}\";
const VOL_E: &str = r"\\?\Volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a01}\";

/// The Azure example (`examples/azure-storage-spaces`) as WMI reports it: an A-series VM on
/// Windows Server 2012 R2, OS and temporary disks, and a 16-disk pool with one Simple space of
/// 8 columns and a 256 KiB interleave.
fn azure_rows() -> WmiRows {
    let mut pds = vec![
        // The OS disk's drive: same UniqueId as its MSFT_Disk; no SpindleSpeed at all.
        json!({ "ObjectId": oid("PhysicalDisk", "PD:os"), "UniqueId": "60022480B6E1A7D23C9F4E5A81D0C2F7",
                "DeviceId": "0", "FriendlyName": "PhysicalDisk0", "Model": "Virtual HD", "MediaType": 0,
                "SpindleSpeed": null, "BusType": 3, "Size": 136365211648u64,
                "LogicalSectorSize": 512, "PhysicalSectorSize": 512 }),
        // The temporary disk's drive: no UniqueId, found by DeviceId = disk number (and size).
        json!({ "ObjectId": oid("PhysicalDisk", "PD:temp"), "DeviceId": "1", "Model": "Virtual HD",
                "MediaType": 0, "SpindleSpeed": 4294967295u32, "BusType": 3, "Size": 649613803520u64,
                "LogicalSectorSize": 512, "PhysicalSectorSize": 512 }),
    ];
    for (i, uid) in AZURE_POOL_DISKS.iter().enumerate() {
        // Pooled drives keep a DeviceId; "2" is also the storage space's disk number.
        pds.push(json!({ "ObjectId": oid("PhysicalDisk", &format!("PD:{i}")), "UniqueId": uid,
            "DeviceId": (i + 2).to_string(), "FriendlyName": format!("PhysicalDisk{}", i + 2),
            "Model": "Virtual Disk", "MediaType": 0, "SpindleSpeed": 4294967295u32, "BusType": 10,
            "Size": 107374182400u64, "LogicalSectorSize": 512, "PhysicalSectorSize": 512 }));
    }
    let pool = oid("StoragePool", "SP:sql");
    let primordial = oid("StoragePool", "SP:primordial");
    let vd = oid("VirtualDisk", "VD:sql");
    let disk = |n: u32| oid("Disk", &format!("DI:{n}"));
    let part = |d: u32, p: u32| oid("Partition", &format!("PR:{d}:{p}"));
    let vol = |n: &str| oid("Volume", &format!("VO:{n}"));
    let mut pool_members: Vec<Value> = vec![];
    for (i, _) in AZURE_POOL_DISKS.iter().enumerate() {
        let pd = reference("PhysicalDisk", &oid("PhysicalDisk", &format!("PD:{i}")));
        pool_members
            .push(json!({ "StoragePool": reference("StoragePool", &primordial), "PhysicalDisk": pd }));
        pool_members.push(json!({ "StoragePool": reference("StoragePool", &pool), "PhysicalDisk": pd }));
    }
    WmiRows {
        computer_name: Some("azsql-oltp01".into()),
        collected_at: Some("2014-10-21T06:40:12+00:00".into()),
        computer_system: ok(json!([{ "Name": "AZSQL-OLTP01", "Manufacturer": "Microsoft Corporation",
            "Model": "Virtual Machine", "NumberOfLogicalProcessors": 8, "TotalPhysicalMemory": 15032385536u64 }])),
        operating_system: ok(json!([{ "Caption": "Microsoft Windows Server 2012 R2 Datacenter ",
            "CSDVersion": null, "SystemDrive": "C:" }])),
        system_enclosure: ok(json!([{ "SMBIOSAssetTag": "7783-7084-3265-9085-8269-3286-77" }])),
        disks: ok(json!([
            // Rows in any order: the disks come out by number.
            { "ObjectId": disk(2), "UniqueId": "A3F19C7E52D84B0E9C61F2A7D8E0B5C4", "Number": 2,
              "FriendlyName": "Microsoft Storage Space Device", "Model": "Storage Space", "BusType": 16,
              "Size": 1713691951104u64, "LogicalSectorSize": 512, "PhysicalSectorSize": 512, "PartitionStyle": 1 },
            { "ObjectId": disk(0), "UniqueId": "60022480B6E1A7D23C9F4E5A81D0C2F7", "Number": 0,
              "FriendlyName": "Virtual HD ATA Device", "Model": "Virtual HD", "BusType": 3, "Size": 136365211648u64,
              "LogicalSectorSize": 512, "PhysicalSectorSize": 512, "PartitionStyle": 1, "IsBoot": true, "IsSystem": true },
            { "ObjectId": disk(1), "UniqueId": "60022480D41F93C7A2B85E06F1C3A9E4", "Number": 1,
              "Model": "Virtual HD", "BusType": 3, "Size": 649613803520u64,
              "LogicalSectorSize": 512, "PhysicalSectorSize": 512, "PartitionStyle": 1 },
        ])),
        partitions: ok(json!([
            { "ObjectId": part(0, 1), "DiskId": disk(0), "DiskNumber": 0, "PartitionNumber": 1,
              "Offset": 1048576, "Size": 367001600, "AccessPaths": [VOL_RESERVED], "DriveLetter": null,
              "MbrType": 7, "IsSystem": true, "IsBoot": false },
            { "ObjectId": part(0, 2), "DiskId": disk(0), "DiskNumber": 0, "PartitionNumber": 2,
              "Offset": 368050176, "Size": 135996112896u64, "AccessPaths": ["C:\\", VOL_C], "DriveLetter": "C",
              "MbrType": 7, "IsSystem": false, "IsBoot": true },
            { "ObjectId": part(1, 1), "DiskId": disk(1), "DiskNumber": 1, "PartitionNumber": 1,
              "Offset": 65536, "Size": 649613737984u64, "AccessPaths": ["D:\\", VOL_D], "DriveLetter": "D",
              "MbrType": 7 },
            { "ObjectId": part(2, 1), "DiskId": disk(2), "DiskNumber": 2, "PartitionNumber": 1,
              "Offset": 1048576, "Size": 1713689853952u64, "AccessPaths": ["E:\\", VOL_E], "DriveLetter": "E",
              "MbrType": 7 },
        ])),
        volumes: ok(json!([
            { "ObjectId": vol("reserved"), "Path": VOL_RESERVED, "DriveLetter": null, "FileSystem": "NTFS",
              "FileSystemLabel": "System Reserved", "AllocationUnitSize": 4096, "Size": 366997504,
              "SizeRemaining": 332394496, "DriveType": 3 },
            { "ObjectId": vol("c"), "Path": VOL_C, "DriveLetter": "C", "FileSystem": "NTFS",
              "FileSystemLabel": "Windows", "AllocationUnitSize": 4096, "Size": 135996108800u64,
              "SizeRemaining": 92092231680u64, "DriveType": 3 },
            { "ObjectId": vol("d"), "Path": VOL_D, "DriveLetter": "D", "FileSystem": "NTFS",
              "FileSystemLabel": "Temporary Storage", "AllocationUnitSize": 4096, "Size": 649613733888u64,
              "SizeRemaining": 610770284544u64, "DriveType": 3 },
            { "ObjectId": vol("e"), "Path": VOL_E, "DriveLetter": "E", "FileSystem": "NTFS",
              "FileSystemLabel": "SQLData", "AllocationUnitSize": 4096, "Size": 1713689849856u64,
              "SizeRemaining": 595624718336u64, "DriveType": 3 },
            { "ObjectId": vol("dvd"), "Path": r"\\?\Volume{4b2a6f11-4a0d-11e4-80b3-806e6f6e6963}\",
              "DriveLetter": "F", "FileSystem": "", "Size": 0, "SizeRemaining": 0, "DriveType": 5 },
        ])),
        virtual_disks: ok(json!([{ "ObjectId": vd, "UniqueId": "A3F19C7E52D84B0E9C61F2A7D8E0B5C4",
            "FriendlyName": "SQLVDisk", "NumberOfColumns": 8, "Interleave": 262144,
            "ResiliencySettingName": "Simple", "Size": 1717986918400u64 }])),
        storage_pools: ok(json!([
            { "ObjectId": primordial, "UniqueId": "{primordial}", "FriendlyName": "Primordial", "IsPrimordial": true },
            { "ObjectId": pool, "UniqueId": "{7c0f3e52-4a1d-11e4-80b4-00155d2b6a01}", "FriendlyName": "SQLPool",
              "IsPrimordial": false },
        ])),
        physical_disks: ok(Value::Array(pds)),
        // The temporary disk's partition is left out: found through its AccessPaths instead.
        partition_to_volume: ok(json!([
            { "Partition": reference("Partition", &part(0, 1)), "Volume": reference("Volume", &vol("reserved")) },
            { "Partition": reference("Partition", &part(0, 2)), "Volume": reference("Volume", &vol("c")) },
            { "Partition": reference("Partition", &part(2, 1)), "Volume": reference("Volume", &vol("e")) },
        ])),
        virtual_disk_to_disk: ok(
            json!([{ "VirtualDisk": reference("VirtualDisk", &vd), "Disk": reference("Disk", &disk(2)) }]),
        ),
        pool_to_virtual_disk: ok(
            json!([{ "StoragePool": reference("StoragePool", &pool), "VirtualDisk": reference("VirtualDisk", &vd) }]),
        ),
        pool_to_physical_disk: ok(Value::Array(pool_members)),
        win32_volumes: ok(json!([
            { "DeviceID": VOL_RESERVED, "Name": VOL_RESERVED, "DriveLetter": null, "FileSystem": "NTFS",
              "Label": "System Reserved", "BlockSize": 4096, "Capacity": 366997504, "FreeSpace": 332394496,
              "Compressed": false, "BootVolume": false, "SystemVolume": true, "DriveType": 3 },
            { "DeviceID": VOL_C, "Name": "C:\\", "DriveLetter": "C:", "FileSystem": "NTFS", "Label": "Windows",
              "BlockSize": 4096, "Capacity": 135996108800u64, "FreeSpace": 92092231680u64, "Compressed": false,
              "BootVolume": true, "SystemVolume": false, "DriveType": 3 },
            { "DeviceID": VOL_D, "Name": "D:\\", "DriveLetter": "D:", "FileSystem": "NTFS",
              "Label": "Temporary Storage", "BlockSize": 4096, "Capacity": 649613733888u64,
              "FreeSpace": 610770284544u64, "Compressed": false, "BootVolume": false, "DriveType": 3 },
            { "DeviceID": VOL_E, "Name": "E:\\", "DriveLetter": "E:", "FileSystem": "NTFS", "Label": "SQLData",
              "BlockSize": 4096, "Capacity": 1713689849856u64, "FreeSpace": 595624718336u64, "Compressed": false,
              "BootVolume": false, "DriveType": 3 },
            { "DeviceID": r"\\?\Volume{4b2a6f11-4a0d-11e4-80b3-806e6f6e6963}\", "Name": "F:\\", "DriveLetter": "F:",
              "DriveType": 5 },
        ])),
        win32_mount_points: ok(json!([])),
        ..Default::default()
    }
}

fn example(text: &str) -> Snapshot {
    serde_json::from_str(text).unwrap()
}

#[test]
fn azure_storage_spaces_equals_the_example() {
    let got = map(&azure_rows());
    let want = example(EXAMPLE_AZURE);
    assert_eq!(got.host, want.host);
    assert_eq!(got.collected_at, want.collected_at);
    assert_eq!(got.disks, want.disks);
    assert_eq!(got.storage_pools, want.storage_pools);
    assert_eq!(got.virtual_disks, want.virtual_disks);
    assert_eq!(got.partitions, want.partitions);
    // WMI says nothing of EFS: the example's `encrypted: false` came from elsewhere.
    let want_volumes: Vec<Volume> =
        want.volumes.unwrap().into_iter().map(|v| Volume { encrypted: None, ..v }).collect();
    assert_eq!(got.volumes.as_ref(), Some(&want_volumes));
    assert!(got.raid_sets.is_none() && got.sql_instances.is_none());

    let report = &got.collectors[0];
    assert_eq!(report.name, "wmi");
    let rpm = note(&got, "disks[].rpm").unwrap();
    assert!(rpm.contains("0xFFFFFFFF") && rpm.contains("60022480B6E1A7D23C9F4E5A81D0C2F7"), "{rpm}");
    assert!(rpm.contains("60022483A1C0E7F2F54BBE2081D32508"), "{rpm}");
    assert!(note(&got, "disks[].media").unwrap().contains("MediaType is 0 (Unspecified)"));
    assert!(note(&got, "volumes[].encrypted").is_some());
    assert!(note(&got, "volumes[].allocation_unit_bytes").is_none());
    assert!(note(&got, "volumes[].backed_by").is_none());
    assert!(note(&got, "storage_pools[].physical_disk_ids").is_none());
}

#[test]
fn azure_output_loads_through_the_real_loader() {
    let snapshot = map(&azure_rows());
    let text = serde_json::to_string_pretty(&snapshot).unwrap();
    let doc = spindle_core::load::parse_snapshot("wmi.json", text).unwrap();
    assert_eq!(doc.snapshot, snapshot);
    assert_eq!(doc.snapshot.virtual_disks.unwrap()[0].interleave_bytes, Some(256 << 10));
}

#[test]
fn the_stripe_and_its_sixteen_disks() {
    let s = map(&azure_rows());
    let vd = &s.virtual_disks.as_ref().unwrap()[0];
    assert_eq!(
        (vd.columns, vd.interleave_bytes, vd.resiliency.as_deref()),
        (Some(8), Some(262144), Some("Simple"))
    );
    let pools = s.storage_pools.as_ref().unwrap();
    assert_eq!(pools.len(), 1, "the primordial pool is not a pool");
    assert_eq!(pools[0].physical_disk_ids.as_ref().unwrap().len(), 16);
    assert_eq!(vd.pool_id, pools[0].id);
    let disks = s.disks.as_ref().unwrap();
    let space = disks.iter().find(|d| d.number == Some(2)).unwrap();
    assert_eq!(space.backed_by, Some(Backing::VirtualDisk(vd.id.clone())));
    assert_eq!(space.media, None, "pooled drive 2's DeviceId must not lend its media to the space");
    assert_eq!(volume(&s, "E:\\").backed_by, Some(Backing::Partitions(vec!["disk2-p1".into()])));
}

#[test]
fn associations_missing_fall_back_to_unique_ids_and_access_paths() {
    let mut rows = azure_rows();
    rows.partition_to_volume =
        Rows::Failed("HRESULT Call failed with: 0x80041010 (WBEM_E_INVALID_CLASS)".into());
    rows.virtual_disk_to_disk = Rows::Ok(vec![]);
    let s = map(&rows);
    let want = example(EXAMPLE_AZURE);
    assert_eq!(s.disks, want.disks);
    for v in s.volumes.as_ref().unwrap() {
        assert!(v.backed_by.is_some(), "{} found by AccessPaths", v.id);
    }
    assert!(note(&s, "volumes[].backed_by").is_none());
}

#[test]
fn mount_point_only_volume() {
    let disk = oid("Disk", "DI:3");
    let rows = WmiRows {
        disks: ok(json!([{ "ObjectId": disk, "UniqueId": "6000c29aa", "Number": 3, "BusType": 10,
            "Size": 536870912000u64, "LogicalSectorSize": 512, "PhysicalSectorSize": 4096, "PartitionStyle": 2 }])),
        physical_disks: ok(
            json!([{ "UniqueId": "6000c29aa", "DeviceId": "3", "MediaType": 3, "SpindleSpeed": 15000,
            "BusType": 10 }]),
        ),
        partitions: ok(json!([
            { "DiskId": disk, "DiskNumber": 3, "PartitionNumber": 2, "Offset": 135266304u64,
              "Size": 536734629888u64, "GptType": "{ebd0a0a2-b9e5-4433-87c0-68b6b72699c7}",
              "AccessPaths": ["E:\\SQLData\\", "\\\\?\\Volume{5a1b2c3d-0000-4000-8000-00000000000a}\\"] },
            { "DiskId": disk, "DiskNumber": 3, "PartitionNumber": 3, "Offset": 536869863424u64, "Size": 1048576,
              "AccessPaths": ["E:\\SQLLog", "F:\\Mounts\\Log\\", "\\\\?\\Volume{5a1b2c3d-0000-4000-8000-00000000000b}\\"] },
        ])),
        volumes: ok(json!([
            { "Path": "\\\\?\\Volume{5A1B2C3D-0000-4000-8000-00000000000A}\\", "FileSystem": "NTFS",
              "FileSystemLabel": "SQLData", "AllocationUnitSize": 65536, "Size": 536734597120u64,
              "SizeRemaining": 1000 },
            { "Path": "\\\\?\\Volume{5a1b2c3d-0000-4000-8000-00000000000b}\\", "FileSystem": "ReFS",
              "AllocationUnitSize": 65536, "Size": 1000, "SizeRemaining": 10 },
        ])),
        win32_volumes: ok(json!([])),
        win32_mount_points: ok(json!([{
            "Directory": r#"\\SQL1\root\cimv2:Win32_Directory.Name="G:\\Another""#,
            "Volume": r#"\\SQL1\root\cimv2:Win32_Volume.DeviceID="\\\\?\\Volume{5a1b2c3d-0000-4000-8000-00000000000b}\\""#,
        }])),
        ..Default::default()
    };
    let s = map(&rows);
    let data = volume(&s, "E:\\SQLData\\");
    assert_eq!(
        data.id, r"\\?\Volume{5a1b2c3d-0000-4000-8000-00000000000a}\",
        "GUID lower-cased as SQL Server reports it"
    );
    assert_eq!(data.mount_points, vec!["E:\\SQLData\\"]);
    assert_eq!(data.allocation_unit_bytes, Some(65536));
    assert_eq!(data.backed_by, Some(Backing::Partitions(vec!["disk3-p2".into()])));
    let log = volume(&s, "F:\\Mounts\\Log\\");
    assert_eq!(log.mount_points, vec!["E:\\SQLLog\\", "F:\\Mounts\\Log\\", "G:\\Another\\"]);
    assert_eq!(log.filesystem.as_deref(), Some("ReFS"));
    let d = &s.disks.as_ref().unwrap()[0];
    assert_eq!((d.media, d.rpm, d.bus.as_deref()), (Some(Media::Hdd), Some(15000), Some("SAS")));
    assert_eq!((d.logical_sector_bytes, d.physical_sector_bytes), (Some(512), Some(4096)));
    assert_eq!(d.partition_style, Some(PartitionStyle::Gpt));
    let p = &s.partitions.as_ref().unwrap()[0];
    assert_eq!((p.disk_id.as_str(), p.offset_bytes), ("6000c29aa", Some(135266304)));
    // No system drive, boot partition or boot volume in these rows: not guessed.
    assert!(data.os_volume.is_none());
    assert!(note(&s, "volumes[].os_volume").is_some());
}

#[test]
fn cluster_shared_volumes() {
    let csv1 = r"\\?\Volume{0a0b0c0d-1111-2222-3333-444455556666}\";
    let csv2 = r"\\?\Volume{0a0b0c0d-1111-2222-3333-777788889999}\";
    let rows = WmiRows {
        operating_system: ok(
            json!([{ "Caption": "Microsoft Windows Server 2019 Datacenter", "SystemDrive": "C:" }]),
        ),
        disks: ok(json!([])),
        partitions: ok(json!([])),
        // CSV 1 is owned by this node and listed by MSFT_Volume, without a cluster size; CSV 2
        // shows only in Win32_Volume.
        volumes: ok(json!([{ "Path": csv1, "FileSystem": "CSVFS", "FileSystemType": 32768,
            "FileSystemLabel": "SQLData", "AllocationUnitSize": 0, "Size": 2199023255552u64,
            "SizeRemaining": 1099511627776u64 }])),
        win32_volumes: ok(json!([
            { "DeviceID": csv1, "Name": "C:\\ClusterStorage\\Volume1\\", "FileSystem": "CSVFS", "Label": "SQLData",
              "BlockSize": 65536, "Capacity": 2199023255552u64, "FreeSpace": 1099511627776u64, "Compressed": false },
            { "DeviceID": csv2, "Name": "C:\\ClusterStorage\\Volume2\\", "FileSystem": "CSVFS", "Label": "SQLLog",
              "BlockSize": 65536, "Capacity": 1099511627776u64, "FreeSpace": 549755813888u64, "Compressed": false },
        ])),
        ..Default::default()
    };
    let s = map(&rows);
    let v1 = volume(&s, "C:\\ClusterStorage\\Volume1\\");
    assert_eq!(v1.id, csv1);
    assert_eq!(v1.filesystem.as_deref(), Some("CSVFS"));
    assert_eq!(v1.allocation_unit_bytes, Some(65536), "Win32_Volume.BlockSize fills AllocationUnitSize 0");
    assert_eq!(v1.os_volume, None, "no volume is mounted at C:\\ here, so no OS volume is known");
    let v2 = volume(&s, "C:\\ClusterStorage\\Volume2\\");
    assert_eq!((v2.id.as_str(), v2.label.as_deref()), (csv2, Some("SQLLog")));
    let why = note(&s, "volumes[].backed_by").unwrap();
    assert!(why.contains("cluster shared volume") && why.contains("Volume2"), "{why}");
    assert_eq!(v1.fs_kind(), Some(spindle_core::facts::FsKind::Ntfs));
}

/// The 2003 example (`examples/win2003-sector63`): no storage namespace, partitions at sector 63.
fn win2003_rows() -> WmiRows {
    let vol = |g: &str| format!(r"\\?\Volume{{{g}}}\");
    let link = |part: &str, letter: &str| {
        json!({ "Antecedent": format!(r#"\\ERP-SQL1\root\cimv2:Win32_DiskPartition.DeviceID="{part}""#),
                "Dependent": format!(r#"\\ERP-SQL1\root\cimv2:Win32_LogicalDisk.DeviceID="{letter}""#) })
    };
    let missing = "HRESULT Call failed with: 0x8004100E (WBEM_E_INVALID_NAMESPACE)".to_string();
    WmiRows {
        computer_name: Some("erp-sql1".into()),
        computer_system: ok(json!([{ "Name": "ERP-SQL1", "Manufacturer": "HP", "Model": "ProLiant DL380 G5",
            "NumberOfLogicalProcessors": 8, "TotalPhysicalMemory": 15032385536u64 }])),
        operating_system: ok(
            json!([{ "Caption": "Microsoft(R) Windows(R) Server 2003, Enterprise x64 Edition",
            "CSDVersion": "Service Pack 2", "SystemDrive": "C:" }]),
        ),
        system_enclosure: ok(json!([{ "SMBIOSAssetTag": "" }])),
        disks: Rows::Failed(missing.clone()),
        partitions: Rows::Failed(missing.clone()),
        volumes: Rows::Failed(missing.clone()),
        storage_pools: Rows::Failed(missing.clone()),
        virtual_disks: Rows::Failed(missing.clone()),
        physical_disks: Rows::Failed(missing),
        win32_disk_drives: ok(json!([
            { "DeviceID": "\\\\.\\PHYSICALDRIVE0", "Index": 0, "Model": "HP LOGICAL VOLUME SCSI Disk Device",
              "InterfaceType": "SCSI", "Size": 42944186880u64, "BytesPerSector": 512 },
            { "DeviceID": "\\\\.\\PHYSICALDRIVE1", "Index": 1, "Model": "HP LOGICAL VOLUME SCSI Disk Device",
              "InterfaceType": "SCSI", "Size": 536864025600u64, "BytesPerSector": 512 },
            { "DeviceID": "\\\\.\\PHYSICALDRIVE2", "Index": 2, "Model": "HP LOGICAL VOLUME SCSI Disk Device",
              "InterfaceType": "SCSI", "Size": 150316992000u64, "BytesPerSector": 512 },
        ])),
        win32_partitions: ok(json!([
            { "DeviceID": "Disk #0, Partition #0", "DiskIndex": 0, "Index": 0, "StartingOffset": 32256,
              "Size": 42944154624u64, "BootPartition": true },
            { "DeviceID": "Disk #1, Partition #0", "DiskIndex": 1, "Index": 0, "StartingOffset": 32256,
              "Size": 536863993344u64 },
            { "DeviceID": "Disk #2, Partition #0", "DiskIndex": 2, "Index": 0, "StartingOffset": 32256,
              "Size": 150316959744u64 },
        ])),
        win32_logical_disk_to_partition: ok(json!([
            link("Disk #0, Partition #0", "C:"),
            link("Disk #1, Partition #0", "D:"),
            link("Disk #2, Partition #0", "E:"),
        ])),
        // Windows Server 2003: no BootVolume property.
        win32_volumes: ok(json!([
            { "DeviceID": vol("0c4f7d61-c9a2-11dc-9e21-806d6172696f"), "Name": "C:\\", "DriveLetter": "C:",
              "FileSystem": "NTFS", "Label": "System", "BlockSize": 4096, "Capacity": 42944151552u64,
              "FreeSpace": 13083369472u64, "Compressed": false },
            { "DeviceID": vol("5e1b8a37-caf0-11dc-9e24-806d6172696f"), "Name": "D:\\", "DriveLetter": "D:",
              "FileSystem": "NTFS", "Label": "SQLData", "BlockSize": 4096, "Capacity": 536863989760u64,
              "FreeSpace": 118952935424u64, "Compressed": false },
            { "DeviceID": vol("5e1b8a38-caf0-11dc-9e24-806d6172696f"), "Name": "E:\\", "DriveLetter": "E:",
              "FileSystem": "NTFS", "Label": "SQLLogs", "BlockSize": 4096, "Capacity": 150316957696u64,
              "FreeSpace": 126106386432u64, "Compressed": false },
        ])),
        win32_mount_points: ok(json!([])),
        ..Default::default()
    }
}

#[test]
fn legacy_2003_sector_63() {
    let s = map(&win2003_rows());
    let want = example(EXAMPLE_2003);
    assert_eq!(s.partitions, want.partitions);
    let parts: &Vec<Partition> = s.partitions.as_ref().unwrap();
    assert!(parts.iter().all(|p| p.offset_bytes == Some(63 * 512)));
    // The example's volumes, less what WMI does not tell (EFS, the temporary disk).
    let want_volumes: Vec<Volume> =
        want.volumes.unwrap().into_iter().map(|v| Volume { encrypted: None, temp_disk: None, ..v }).collect();
    assert_eq!(s.volumes.as_ref(), Some(&want_volumes));
    // The example's disks, less the RAID set behind them that only the controller's tool shows.
    let want_disks: Vec<_> = want.disks.unwrap().into_iter().filter(|d| d.number.is_some()).collect();
    let got_disks: Vec<_> = s.disks.clone().unwrap();
    assert_eq!(got_disks.len(), 3);
    for (g, w) in got_disks.iter().zip(&want_disks) {
        assert_eq!((&g.id, g.number, &g.model, &g.bus), (&w.id, w.number, &w.model, &w.bus));
        assert_eq!((g.size_bytes, g.logical_sector_bytes), (w.size_bytes, w.logical_sector_bytes));
        assert_eq!((g.media, g.physical_sector_bytes, g.backed_by.as_ref()), (None, None, None));
    }
    assert_eq!(s.host.is_virtual, Some(false));
    assert_eq!(s.host.cloud_provider, Some(CloudProvider::None));
    assert_eq!(s.host.os_version.as_deref(), Some("Windows Server 2003 Enterprise x64 Edition SP2"));
    assert!(s.storage_pools.is_none() && s.virtual_disks.is_none());
    let why = note(&s, "storage_pools").unwrap();
    assert!(why.contains("WBEM_E_INVALID_NAMESPACE") && why.contains("2012"), "{why}");
    assert!(note(&s, "disks[].physical_sector_bytes").unwrap().contains("BytesPerSector"));
    assert!(note(&s, "disks[].media").is_some());
    let doc = spindle_core::load::parse_snapshot("w.json", serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(doc.snapshot, s);
}

#[test]
fn unknown_values_stay_absent_with_a_reason() {
    let rows = WmiRows {
        disks: ok(json!([
            { "UniqueId": "ssd", "Number": 0, "BusType": 11, "PhysicalSectorSize": 0, "PartitionStyle": 0 },
            { "UniqueId": "nvme", "Number": 1, "BusType": 17, "PartitionStyle": 2 },
            { "UniqueId": "odd", "Number": 2, "BusType": 99, "PartitionStyle": 7 },
            { "UniqueId": "lonely", "Number": 3, "BusType": 1 },
        ])),
        physical_disks: ok(json!([
            { "UniqueId": "ssd", "MediaType": 4, "SpindleSpeed": 0 },
            { "UniqueId": "nvme", "MediaType": 4, "SpindleSpeed": 0, "BusType": 17 },
            // SpindleSpeed 0 while MediaType says nothing: not taken for solid state.
            { "UniqueId": "odd", "MediaType": 0, "SpindleSpeed": 0 },
        ])),
        volumes: ok(
            json!([{ "Path": r"\\?\Volume{11111111-2222-3333-4444-555555555555}\", "DriveLetter": 69,
            "FileSystem": "NTFS", "AllocationUnitSize": 0 }]),
        ),
        virtual_disks: ok(json!([{ "UniqueId": "vd", "NumberOfColumns": 0, "Interleave": 0 }])),
        storage_pools: ok(json!([])),
        ..Default::default()
    };
    let s = map(&rows);
    let d = s.disks.as_ref().unwrap();
    assert_eq!((d[0].media, d[0].rpm, d[0].physical_sector_bytes), (Some(Media::Ssd), Some(0), None));
    assert_eq!(d[0].partition_style, Some(PartitionStyle::Raw));
    assert_eq!(
        (d[0].bus.as_deref(), d[1].bus.as_deref(), d[2].bus.as_deref()),
        (Some("SATA"), Some("NVMe"), None)
    );
    assert_eq!((d[1].media, d[1].rpm), (Some(Media::Nvme), Some(0)));
    assert_eq!(
        (d[2].media, d[2].rpm, d[2].partition_style),
        (Some(Media::Unknown), None, Some(PartitionStyle::Unknown))
    );
    assert_eq!((d[3].media, d[3].rpm), (None, None));
    assert!(note(&s, "disks[].rpm").unwrap().contains("odd"));
    assert!(note(&s, "disks[].media").unwrap().contains("lonely"));
    assert!(note(&s, "disks[].bus").unwrap().contains("odd (BusType 99)"));
    assert!(note(&s, "disks[].physical_sector_bytes").unwrap().contains("ssd"));
    let v = &s.volumes.as_ref().unwrap()[0];
    assert_eq!((v.mount_points.clone(), v.allocation_unit_bytes), (vec!["E:\\".to_string()], None));
    assert!(note(&s, "volumes[].allocation_unit_bytes").unwrap().contains("E:\\"));
    let vd = &s.virtual_disks.as_ref().unwrap()[0];
    assert_eq!((vd.columns, vd.interleave_bytes, vd.pool_id.as_str()), (None, None, ""));
    assert!(note(&s, "virtual_disks[].columns").unwrap().contains("NumberOfColumns 0"));
    assert!(note(&s, "virtual_disks[].interleave_bytes").is_some());
    assert!(note(&s, "virtual_disks[].pool_id").unwrap().contains("vd"));
}

#[test]
fn a_failed_query_loses_only_its_facts() {
    let denied = "HRESULT Call failed with: 0x80041003 (WBEM_E_ACCESS_DENIED)";
    let mut rows = azure_rows();
    rows.physical_disks = Rows::Failed(denied.into());
    rows.storage_pools = Rows::Failed(denied.into());
    rows.volumes = Rows::Failed(denied.into());
    let s = map(&rows);
    let disks = s.disks.as_ref().unwrap();
    assert_eq!(disks.len(), 3, "pooled drives come only from MSFT_PhysicalDisk");
    assert!(disks.iter().all(|d| d.media.is_none() && d.rpm.is_none()));
    assert!(note(&s, "disks[].media").unwrap().contains("WBEM_E_ACCESS_DENIED"));
    assert!(s.storage_pools.is_none());
    assert!(note(&s, "storage_pools").unwrap().starts_with("MSFT_StoragePool: HRESULT"));
    // The virtual disk stays, its pool unknown.
    assert_eq!(s.virtual_disks.as_ref().unwrap()[0].pool_id, "");
    assert!(note(&s, "virtual_disks[].pool_id").unwrap().contains("WBEM_E_ACCESS_DENIED"));
    // MSFT_Volume failed: Win32_Volume still gives the volumes, without their partitions.
    assert!(note(&s, "volumes").is_none());
    assert!(note(&s, "volumes[].backed_by").unwrap().contains("MSFT_Volume: HRESULT"));
    let c = volume(&s, "C:\\");
    assert_eq!((c.id.as_str(), c.allocation_unit_bytes, c.os_volume), (VOL_C, Some(4096), Some(true)));
    assert_eq!(s.partitions.as_ref().unwrap().len(), 4);

    let nothing = WmiRows {
        computer_name: Some("h".into()),
        computer_system: Rows::Failed(denied.into()),
        disks: Rows::Failed(denied.into()),
        partitions: Rows::Failed(denied.into()),
        volumes: Rows::Failed(denied.into()),
        virtual_disks: Rows::Failed(denied.into()),
        storage_pools: Rows::Failed(denied.into()),
        win32_volumes: Rows::Failed(denied.into()),
        ..Default::default()
    };
    let s = map(&nothing);
    assert!(s.disks.is_none() && s.partitions.is_none() && s.volumes.is_none());
    assert!(s.storage_pools.is_none() && s.virtual_disks.is_none());
    for fact in ["disks", "partitions", "volumes", "storage_pools", "virtual_disks", "host.cpu_count"] {
        assert!(note(&s, fact).unwrap().contains("ACCESS_DENIED"), "{fact}");
    }
    assert_eq!((s.host.name.as_str(), s.host.is_virtual), ("h", None));
    spindle_core::load::parse_snapshot("n.json", serde_json::to_string(&s).unwrap()).unwrap();
}

#[test]
fn hosts_virtual_or_not_and_clouds() {
    let host = |man: &str, model: &str, tag: &str| {
        let rows = WmiRows {
            computer_system: ok(json!([{ "Name": "X", "Manufacturer": man, "Model": model }])),
            system_enclosure: ok(json!([{ "SMBIOSAssetTag": tag }])),
            ..Default::default()
        };
        let s = map(&rows);
        (
            s.host.name.clone(),
            s.host.is_virtual,
            s.host.cloud_provider,
            note(&s, "host.cloud_provider").is_some(),
        )
    };
    assert_eq!(
        host("Microsoft Corporation", "Virtual Machine", "7783-7084-3265-9085-8269-3286-77").2,
        Some(CloudProvider::Azure)
    );
    assert_eq!(
        host("Microsoft Corporation", "Virtual Machine", "None"),
        ("X".into(), Some(true), None, true)
    );
    assert_eq!(host("VMware, Inc.", "VMware7,1", "No Asset Tag").1, Some(true));
    assert_eq!(
        host("Amazon EC2", "m5.xlarge", "i-0abc").1..=host("Amazon EC2", "m5.xlarge", "").1,
        Some(true)..=Some(true)
    );
    assert_eq!(host("Amazon EC2", "c5.metal", "").1, Some(false));
    assert_eq!(host("Google", "Google Compute Engine", "").2, Some(CloudProvider::Gcp));
    assert_eq!(host("Dell Inc.", "PowerEdge R740", "").2, Some(CloudProvider::None));
}

#[test]
fn rows_read_from_pascal_case_properties() {
    let p: MsftPartition = serde_json::from_value(json!({
        "DiskNumber": 1, "PartitionNumber": 2, "Offset": 1048576, "Size": 2048, "DriveLetter": "E",
        "AccessPaths": ["E:\\", "\\\\?\\Volume{abc}\\"], "GptType": "{ebd0a0a2-b9e5-4433-87c0-68b6b72699c7}",
        "IsBoot": false, "SomethingNewer": 1
    }))
    .unwrap();
    assert_eq!(
        (p.disk_number, p.offset, p.drive_letter, p.is_boot),
        (Some(1), Some(1048576), Some('E'), Some(false))
    );
    // A Char16 as a number, or NUL, or nothing.
    let v: MsftVolume = serde_json::from_value(json!({ "DriveLetter": 70 })).unwrap();
    assert_eq!(v.drive_letter, Some('F'));
    let v: MsftVolume = serde_json::from_value(json!({ "DriveLetter": "\u{0}" })).unwrap();
    assert_eq!(v.drive_letter, None);
    let v: MsftVolume =
        serde_json::from_value(json!({ "DriveLetter": null, "AllocationUnitSize": 65536 })).unwrap();
    assert_eq!((v.drive_letter, v.allocation_unit_size), (None, Some(65536)));
    let w: Win32Volume = serde_json::from_value(json!({ "DeviceID": "x", "BlockSize": 4096 })).unwrap();
    assert_eq!((w.device_id.as_deref(), w.block_size), (Some("x"), Some(4096)));
}

#[test]
fn object_path_keys() {
    let id = oid("Partition", r"PR:{00000000-0000-0000-0000-100000000000}\\?\scsi#disk&ven_msft#1");
    assert_eq!(ref_key(&reference("Partition", &id), "ObjectId").as_deref(), Some(id.as_str()));
    assert_eq!(
        ref_key(r#"\\H\root\cimv2:Win32_DiskPartition.DeviceID="Disk #0, Partition #1""#, "DeviceID")
            .as_deref(),
        Some("Disk #0, Partition #1")
    );
    assert_eq!(
        ref_key(r#"\\H\root\cimv2:Win32_Volume.DeviceID="\\\\?\\Volume{1}\\""#, "DeviceID").as_deref(),
        Some(r"\\?\Volume{1}\")
    );
    assert_eq!(ref_key(r#"X.Other="1",Name="C:\\Mnt""#, "Name").as_deref(), Some(r"C:\Mnt"));
    assert_eq!(ref_key(r#"X.Name="unterminated"#, "Name"), None);
    assert_eq!(ref_key(r#"X.NotName="1""#, "Name"), None);
    // Key names match without regard to case, as in WMI: Wine writes `DeviceId`.
    assert_eq!(
        ref_key(r#"\\VM\ROOT\CIMV2:Win32_LogicalDisk.DeviceId="C:""#, "DeviceID").as_deref(),
        Some("C:")
    );
}

#[test]
fn volume_ids_as_sql_server_reports_them() {
    let want = r"\\?\Volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a01}\";
    for s in [
        want,
        r"\\?\Volume{D2B84F61-4A1E-11E4-80B4-00155D2B6A01}\",
        r"\\?\Volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a01}",
        r" \\.\volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a01}\ ",
    ] {
        assert_eq!(volume_guid_path(s).as_deref(), Some(want), "{s}");
    }
    for s in ["C:\\", r"\\?\Volume{abc}\", r"\\?\Volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a0g}\", r"Volume{x}"]
    {
        assert_eq!(volume_guid_path(s), None, "{s}");
    }
}

#[test]
fn bus_names() {
    assert_eq!(
        [3, 10, 16, 17].map(|b| bus_name(Some(b))),
        [Some("ATA"), Some("SAS"), Some("Storage Spaces"), Some("NVMe")]
    );
    assert_eq!((bus_name(Some(0)), bus_name(Some(18)), bus_name(None)), (None, None, None));
}

#[test]
fn live_collection_elsewhere_says_windows_only() {
    #[cfg(not(windows))]
    assert!(matches!(collect_live(), Err(WindowsError::NotWindows)));
    assert_eq!(WindowsError::NotWindows.to_string(), "the Windows storage collector runs only on Windows");
}

/// Wine (and a failed Storage provider) answers every `MSFT_*` class with no rows. Taken at its
/// word that would be "no disks, no pools": the collector falls back to the cimv2 disk classes
/// instead, and pools and virtual disks are not collected, with the reason.
#[test]
fn an_empty_storage_namespace_is_not_a_host_without_disks() {
    let mut rows = WmiRows {
        disks: ok(json!([])),
        partitions: ok(json!([])),
        volumes: ok(json!([])),
        virtual_disks: ok(json!([])),
        storage_pools: ok(json!([])),
        ..win2003_rows()
    };
    rows.distrust_empty_storage();
    assert!(rows.disks.error().is_some_and(|e| e.contains("MSFT_Disk listed no disks")));
    let s = map(&rows);
    assert_eq!(s.disks.as_ref().map(Vec::len), Some(3), "the cimv2 disks: {s:#?}");
    assert!(s.partitions.as_ref().is_some_and(|p| p.len() == 3));
    assert!(s.storage_pools.is_none() && s.virtual_disks.is_none());
    assert!(note(&s, "storage_pools").unwrap().contains("MSFT_Disk listed no disks"));

    // When the cimv2 classes list no disk either, the disks are not collected: never `[]`.
    let mut rows = WmiRows { win32_disk_drives: ok(json!([])), win32_partitions: ok(json!([])), ..rows };
    rows.distrust_empty_storage();
    let s = map(&rows);
    assert!(s.disks.is_none(), "{:?}", s.disks);
    assert!(note(&s, "disks").unwrap().contains("Win32_DiskDrive listed no disks"));

    // A host whose namespace lists its disks keeps its (empty) pools: no Storage Spaces there.
    let mut rows = WmiRows {
        disks: ok(json!([{ "UniqueId": "d0", "Number": 0, "BusType": 11, "PartitionStyle": 2 }])),
        storage_pools: ok(json!([])),
        ..Default::default()
    };
    rows.distrust_empty_storage();
    assert!(rows.disks.is_ok() && rows.storage_pools.is_ok());
}

#[test]
fn drive_letters_are_the_volumes_when_win32_volume_lists_none() {
    // Wine's WMI: the storage namespace answers nothing, Win32_Volume lists no volume, and
    // Win32_LogicalDisk lists the drive letters (a CD-ROM drive is not a volume to judge).
    let mut rows = WmiRows {
        disks: ok(json!([])),
        win32_volumes: ok(json!([])),
        win32_logical_disks: ok(json!([
            { "DeviceID": "C:", "DriveType": 3, "FileSystem": "NTFS", "VolumeName": "System",
              "Size": 42944151552u64, "FreeSpace": 13083369472u64 },
            { "DeviceID": "D:", "DriveType": 3, "FileSystem": "NTFS", "Size": 536863989760u64 },
            { "DeviceID": "F:", "DriveType": 5 },
        ])),
        ..win2003_rows()
    };
    rows.distrust_empty_storage();
    let s = map(&rows);
    let volumes = s.volumes.as_ref().expect("volumes from the drive letters");
    assert_eq!(volumes.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(), [r"C:\", r"D:\"]);
    let c = volume(&s, r"C:\");
    assert_eq!(
        (c.size_bytes, c.free_bytes, c.label.as_deref()),
        (Some(42944151552), Some(13083369472), Some("System"))
    );
    assert_eq!(c.os_volume, Some(true), "C: is the system drive");
    assert!(matches!(&c.backed_by, Some(Backing::Partitions(p)) if p == &["Disk #0, Partition #0"]));
    assert_eq!(c.allocation_unit_bytes, None);
    assert!(note(&s, "volumes[].allocation_unit_bytes").is_some());

    // Neither class lists a volume: the volumes are not collected, never `[]`.
    let rows = WmiRows { win32_logical_disks: ok(json!([])), ..rows };
    let s = map(&rows);
    assert!(s.volumes.is_none(), "{:?}", s.volumes);
    assert!(note(&s, "volumes").unwrap().contains("Win32_Volume and Win32_LogicalDisk listed no volumes"));
}
