//! The CIM rows the collector reads, one plain struct per class, with the classes' own property
//! names (PascalCase on the wire, so the `wmi` crate and test fixtures fill them alike).
//!
//! Every property is optional: a class on an older Windows lacks some (`UniqueId` before
//! Windows 10, `AllocationUnitSize` and `Offset` are not even on the class pages), and a
//! property the provider leaves NULL must not fail the whole row. Units are as documented:
//!
//! Storage classes (namespace `ROOT\Microsoft\Windows\Storage`, Windows 8 / Server 2012+),
//! MicrosoftDocs/windows-driver-docs `windows-driver-docs-pr/storage/msft-<class>.md`:
//! - `MSFT_Disk`: `Size` UInt64 bytes; `LogicalSectorSize` / `PhysicalSectorSize` UInt32 bytes;
//!   `BusType` UInt16 (1 SCSI ... 16 Storage Spaces, 17 NVMe); `PartitionStyle` UInt16 (0
//!   Unknown, which PowerShell shows as RAW, 1 MBR, 2 GPT); `UniqueId` is the SCSI VPD page 0x83
//!   id and equals `MSFT_VirtualDisk.UniqueId` for a disk a storage space exposes.
//! - `MSFT_Partition`: `Offset` UInt64 bytes from the start of the disk (not on the class page;
//!   `CreatePartition`'s `Offset` is bytes); `Size` UInt64 bytes; `AccessPaths` String[] holds
//!   the drive letter root, mounted folders and the volume GUID path; `IsBoot` marks the
//!   partition holding the running Windows.
//! - `MSFT_Volume`: `Path` String, the volume GUID path `\\?\Volume{…}\`; `Size` /
//!   `SizeRemaining` UInt64 bytes; `AllocationUnitSize` UInt32 bytes (not on the class page;
//!   `Format`'s parameter of that name is bytes); `FileSystem` String (`NTFS`, `ReFS`, `CSVFS`).
//! - `MSFT_VirtualDisk`: `NumberOfColumns` UInt16 disks per stripe; `Interleave` UInt64 bytes per
//!   strip on one disk; `ResiliencySettingName` String.
//! - `MSFT_StoragePool`: `IsPrimordial` Boolean, true for the "available disks" pseudo-pool.
//! - `MSFT_PhysicalDisk`: `MediaType` UInt16 (0 Unspecified, 3 HDD, 4 SSD, 5 SCM);
//!   `SpindleSpeed` UInt32 RPM (0 for solid state, 0xFFFFFFFF unknown); sector sizes UInt64 bytes.
//! - Associations (REF properties are object paths): `MSFT_PartitionToVolume`,
//!   `MSFT_VirtualDiskToDisk`, `MSFT_StoragePoolToVirtualDisk`, `MSFT_StoragePoolToPhysicalDisk`.
//!
//! Legacy classes (namespace `root\cimv2`), MicrosoftDocs/win32 `desktop-src/CIMWin32Prov/`:
//! - `Win32_DiskDrive`: `Index` UInt32 disk number; `Size` UInt64 bytes; `BytesPerSector`
//!   UInt32 bytes; `InterfaceType` String.
//! - `Win32_DiskPartition`: `StartingOffset` UInt64 bytes (the page's example 32256 = 63 × 512);
//!   `Size` UInt64 bytes; `DiskIndex` / `Index` UInt32 (the index is 0-based: `Disk #0,
//!   Partition #0` is the first partition).
//! - `Win32_Volume` (learn.microsoft.com previous-versions vdswmi/win32-volume): `DeviceID` the
//!   volume GUID path; `Name` the drive letter root, a mounted folder or the GUID path;
//!   `BlockSize` / `Capacity` / `FreeSpace` UInt64 bytes; `Compressed`, `BootVolume` Boolean.
//! - `Win32_LogicalDisk`: `DeviceID` the drive letter (`C:`); `Size` / `FreeSpace` UInt64 bytes;
//!   `DriveType` UInt32 (3 local disk); `VolumeName` the label.
//! - `Win32_MountPoint` (Directory, Volume) and `Win32_LogicalDiskToPartition` (Antecedent,
//!   Dependent): associations, REF properties as object paths.
//! - `Win32_ComputerSystem`: `TotalPhysicalMemory` UInt64 bytes; `NumberOfLogicalProcessors`
//!   UInt32. `Win32_OperatingSystem`: `Caption`, `CSDVersion`, `SystemDrive` (`C:`).
//!   `Win32_SystemEnclosure`: `SMBIOSAssetTag` (Azure's chassis tag).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// The rows of one class: not asked for, read, or a query that failed with the WMI error.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub enum Rows<T> {
    /// The collector did not query the class (a legacy class while the storage namespace works).
    #[default]
    NotQueried,
    Ok(Vec<T>),
    /// The query failed; the text is the WMI error and becomes the `not_collected` reason.
    Failed(String),
}

impl<T> Rows<T> {
    /// The rows read; none when the class was not queried or its query failed.
    pub fn rows(&self) -> &[T] {
        match self {
            Rows::Ok(v) => v,
            _ => &[],
        }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Rows::Ok(_))
    }

    pub fn error(&self) -> Option<&str> {
        match self {
            Rows::Failed(e) => Some(e),
            _ => None,
        }
    }
}

impl<T> From<Result<Vec<T>, String>> for Rows<T> {
    fn from(r: Result<Vec<T>, String>) -> Self {
        match r {
            Ok(v) => Rows::Ok(v),
            Err(e) => Rows::Failed(e),
        }
    }
}

/// Everything the Windows collector read, before any interpretation: the input of
/// [`map`](super::map).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WmiRows {
    /// `COMPUTERNAME` from the environment.
    pub computer_name: Option<String>,
    /// When the rows were read (RFC 3339).
    pub collected_at: Option<String>,
    pub computer_system: Rows<Win32ComputerSystem>,
    pub operating_system: Rows<Win32OperatingSystem>,
    pub system_enclosure: Rows<Win32SystemEnclosure>,

    // ROOT\Microsoft\Windows\Storage
    pub disks: Rows<MsftDisk>,
    pub partitions: Rows<MsftPartition>,
    pub volumes: Rows<MsftVolume>,
    pub virtual_disks: Rows<MsftVirtualDisk>,
    pub storage_pools: Rows<MsftStoragePool>,
    pub physical_disks: Rows<MsftPhysicalDisk>,
    pub partition_to_volume: Rows<MsftPartitionToVolume>,
    pub virtual_disk_to_disk: Rows<MsftVirtualDiskToDisk>,
    pub pool_to_virtual_disk: Rows<MsftStoragePoolToVirtualDisk>,
    pub pool_to_physical_disk: Rows<MsftStoragePoolToPhysicalDisk>,

    // root\cimv2: Win32_Volume and Win32_MountPoint always (cluster shared volumes and mounted
    // folders, cluster size where MSFT_Volume lacks it); the disk classes only when the storage
    // namespace is missing (before Windows Server 2012).
    pub win32_volumes: Rows<Win32Volume>,
    pub win32_mount_points: Rows<Win32MountPoint>,
    pub win32_disk_drives: Rows<Win32DiskDrive>,
    pub win32_partitions: Rows<Win32DiskPartition>,
    pub win32_logical_disk_to_partition: Rows<Win32LogicalDiskToPartition>,
    /// Only when `Win32_Volume` gave no volume: the drive letters, the last source there is
    /// (Wine serves this class and not `Win32_Volume`).
    pub win32_logical_disks: Rows<Win32LogicalDisk>,
}

impl WmiRows {
    /// Sets the storage namespace's answer aside when `MSFT_Disk` listed no disk: a running
    /// Windows host has at least its system disk, so an empty answer means the namespace is not
    /// really served (Wine answers every `MSFT_*` class with no rows; a broken Storage provider
    /// can too). Read as it stands it would say "no disks, no pools" where nothing was seen;
    /// failed, it sends the collector to the `root\cimv2` disk classes and leaves pools and
    /// virtual disks not collected, with this reason.
    pub fn distrust_empty_storage(&mut self) {
        if !matches!(&self.disks, Rows::Ok(d) if d.is_empty()) {
            return;
        }
        self.storage_failed(
            "MSFT_Disk listed no disks, and a running Windows host has at least its system disk: the \
             storage namespace is not really served here (Wine, a failed Storage provider)",
        );
    }

    /// Every class of the storage namespace failed, for `why`: the namespace could not be
    /// opened or is not to be trusted.
    pub fn storage_failed(&mut self, why: &str) {
        let why = why.to_string();
        self.disks = Rows::Failed(why.clone());
        self.partitions = Rows::Failed(why.clone());
        self.volumes = Rows::Failed(why.clone());
        self.virtual_disks = Rows::Failed(why.clone());
        self.storage_pools = Rows::Failed(why.clone());
        self.physical_disks = Rows::Failed(why.clone());
        self.partition_to_volume = Rows::Failed(why.clone());
        self.virtual_disk_to_disk = Rows::Failed(why.clone());
        self.pool_to_virtual_disk = Rows::Failed(why.clone());
        self.pool_to_physical_disk = Rows::Failed(why);
    }
}

/// `MSFT_Disk`: a disk the operating system sees (not a pooled physical disk).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftDisk {
    pub object_id: Option<String>,
    pub unique_id: Option<String>,
    pub number: Option<u32>,
    pub friendly_name: Option<String>,
    pub model: Option<String>,
    pub bus_type: Option<u16>,
    /// Bytes.
    pub size: Option<u64>,
    /// Bytes (UInt32 on this class, UInt64 on the others: read as 64 bits everywhere).
    pub logical_sector_size: Option<u64>,
    pub physical_sector_size: Option<u64>,
    pub partition_style: Option<u16>,
    pub is_boot: Option<bool>,
    pub is_system: Option<bool>,
}

/// `MSFT_Partition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftPartition {
    pub object_id: Option<String>,
    /// `MSFT_Disk.ObjectId` of the disk holding the partition.
    pub disk_id: Option<String>,
    pub disk_number: Option<u32>,
    pub partition_number: Option<u32>,
    /// Bytes from the start of the disk.
    pub offset: Option<u64>,
    /// Bytes.
    pub size: Option<u64>,
    pub access_paths: Option<Vec<String>>,
    #[serde(deserialize_with = "char16")]
    pub drive_letter: Option<char>,
    pub gpt_type: Option<String>,
    pub mbr_type: Option<u16>,
    pub is_boot: Option<bool>,
    pub is_system: Option<bool>,
}

/// `MSFT_Volume`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftVolume {
    pub object_id: Option<String>,
    pub unique_id: Option<String>,
    /// The volume GUID path, `\\?\Volume{…}\`.
    pub path: Option<String>,
    #[serde(deserialize_with = "char16")]
    pub drive_letter: Option<char>,
    pub file_system: Option<String>,
    pub file_system_type: Option<u16>,
    pub file_system_label: Option<String>,
    /// Bytes; 0 or absent when not reported.
    pub allocation_unit_size: Option<u64>,
    /// Bytes.
    pub size: Option<u64>,
    /// Bytes free.
    pub size_remaining: Option<u64>,
    pub drive_type: Option<u32>,
}

/// `MSFT_VirtualDisk`: a storage space.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftVirtualDisk {
    pub object_id: Option<String>,
    pub unique_id: Option<String>,
    pub friendly_name: Option<String>,
    pub number_of_columns: Option<u16>,
    /// Bytes per strip on one disk.
    pub interleave: Option<u64>,
    pub resiliency_setting_name: Option<String>,
    pub size: Option<u64>,
}

/// `MSFT_StoragePool`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftStoragePool {
    pub object_id: Option<String>,
    pub unique_id: Option<String>,
    pub friendly_name: Option<String>,
    pub is_primordial: Option<bool>,
}

/// `MSFT_PhysicalDisk`: a drive, pooled or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftPhysicalDisk {
    pub object_id: Option<String>,
    pub unique_id: Option<String>,
    /// The disk number while the drive is not pooled (a string).
    pub device_id: Option<String>,
    pub friendly_name: Option<String>,
    pub model: Option<String>,
    pub media_type: Option<u16>,
    /// RPM; 0 solid state, 0xFFFFFFFF unknown.
    pub spindle_speed: Option<u32>,
    pub bus_type: Option<u16>,
    pub size: Option<u64>,
    pub logical_sector_size: Option<u64>,
    pub physical_sector_size: Option<u64>,
}

/// `MSFT_PartitionToVolume`: REF object paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftPartitionToVolume {
    pub partition: String,
    pub volume: String,
}

/// `MSFT_VirtualDiskToDisk`: REF object paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftVirtualDiskToDisk {
    pub virtual_disk: String,
    pub disk: String,
}

/// `MSFT_StoragePoolToVirtualDisk`: REF object paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftStoragePoolToVirtualDisk {
    pub storage_pool: String,
    pub virtual_disk: String,
}

/// `MSFT_StoragePoolToPhysicalDisk`: REF object paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MsftStoragePoolToPhysicalDisk {
    pub storage_pool: String,
    pub physical_disk: String,
}

/// `Win32_Volume`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32Volume {
    /// The volume GUID path.
    #[serde(rename = "DeviceID")]
    pub device_id: Option<String>,
    /// `C:\`, a mounted folder (`C:\ClusterStorage\Volume1\`) or the GUID path.
    pub name: Option<String>,
    /// `C:` or NULL.
    pub drive_letter: Option<String>,
    pub file_system: Option<String>,
    pub label: Option<String>,
    /// Cluster size, bytes.
    pub block_size: Option<u64>,
    pub capacity: Option<u64>,
    pub free_space: Option<u64>,
    pub compressed: Option<bool>,
    /// The volume holds the running Windows (not on Windows Server 2003).
    pub boot_volume: Option<bool>,
    pub system_volume: Option<bool>,
    /// 2 removable, 3 fixed, 4 network, 5 CD-ROM, 6 RAM disk.
    pub drive_type: Option<u32>,
}

/// `Win32_MountPoint`: `Directory` is a `Win32_Directory.Name="C:\\…"` path, `Volume` a
/// `Win32_Volume.DeviceID="\\\\?\\Volume{…}\\"` path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32MountPoint {
    pub directory: String,
    pub volume: String,
}

/// `Win32_DiskDrive`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32DiskDrive {
    /// `\\.\PHYSICALDRIVE0`.
    #[serde(rename = "DeviceID")]
    pub device_id: Option<String>,
    pub index: Option<u32>,
    pub model: Option<String>,
    pub caption: Option<String>,
    pub interface_type: Option<String>,
    pub size: Option<u64>,
    pub bytes_per_sector: Option<u32>,
}

/// `Win32_DiskPartition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32DiskPartition {
    /// `Disk #0, Partition #0`.
    #[serde(rename = "DeviceID")]
    pub device_id: Option<String>,
    pub disk_index: Option<u32>,
    /// 0-based.
    pub index: Option<u32>,
    /// Bytes from the start of the disk.
    pub starting_offset: Option<u64>,
    pub size: Option<u64>,
    pub boot_partition: Option<bool>,
}

/// `Win32_LogicalDiskToPartition`: `Antecedent` a `Win32_DiskPartition.DeviceID="Disk #0,
/// Partition #0"` path, `Dependent` a `Win32_LogicalDisk.DeviceID="C:"` path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32LogicalDiskToPartition {
    pub antecedent: String,
    pub dependent: String,
}

/// `Win32_LogicalDisk`: a drive letter. No cluster size, no volume GUID path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32LogicalDisk {
    /// `C:`.
    #[serde(rename = "DeviceID")]
    pub device_id: Option<String>,
    /// 2 removable, 3 local disk, 4 network, 5 CD-ROM, 6 RAM disk.
    pub drive_type: Option<u32>,
    pub file_system: Option<String>,
    pub volume_name: Option<String>,
    /// Bytes.
    pub size: Option<u64>,
    /// Bytes free.
    pub free_space: Option<u64>,
    pub compressed: Option<bool>,
}

/// `Win32_ComputerSystem`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32ComputerSystem {
    pub name: Option<String>,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub number_of_logical_processors: Option<u32>,
    /// Bytes.
    pub total_physical_memory: Option<u64>,
}

/// `Win32_OperatingSystem`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32OperatingSystem {
    pub caption: Option<String>,
    #[serde(rename = "CSDVersion")]
    pub csd_version: Option<String>,
    /// `C:`.
    pub system_drive: Option<String>,
}

/// `Win32_SystemEnclosure`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Win32SystemEnclosure {
    #[serde(rename = "SMBIOSAssetTag")]
    pub smbios_asset_tag: Option<String>,
}

/// A `Char16` property: WMI hands it over as a one-character string, some providers as a
/// number; NUL, a space or nothing mean "none".
fn char16<'de, D: Deserializer<'de>>(d: D) -> Result<Option<char>, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = Option<char>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a Char16 (a one-character string or a UTF-16 code unit)")
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
            Ok(s.chars().next().filter(|c| *c != '\0' && !c.is_whitespace()))
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
            Ok(u32::try_from(n).ok().and_then(char::from_u32).filter(|c| *c != '\0' && !c.is_whitespace()))
        }
        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
            self.visit_u64(u64::try_from(n).unwrap_or(0))
        }
    }
    // Option<char> via `deserialize_any`: a NULL arrives as none, a value as a string or number.
    d.deserialize_any(V)
}

/// The value of key `key` in a WMI object path (`\\HOST\ROOT/…:MSFT_Partition.ObjectId="…"`),
/// unescaped (`\\` → `\`, `\"` → `"`). The key is searched for right after the class name or a
/// comma, so an escaped inner path (`ObjectId=\"…\"`) inside the value is not mistaken for it.
pub fn ref_key(path: &str, key: &str) -> Option<String> {
    // Key names are matched without regard to case, as WMI does (Wine writes `DeviceId`); ASCII
    // lowercasing keeps every byte offset.
    let lower = path.to_ascii_lowercase();
    let key = key.to_ascii_lowercase();
    let key = key.as_str();
    let bytes = path.as_bytes();
    let mut from = 0;
    let start = loop {
        let at = from + lower[from..].find(key)?;
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let rest = &path[at + key.len()..];
        if matches!(before, Some(b'.') | Some(b',')) && rest.starts_with("=\"") {
            break at + key.len() + 2;
        }
        from = at + key.len();
    };
    let mut out = String::new();
    let mut chars = path[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}
