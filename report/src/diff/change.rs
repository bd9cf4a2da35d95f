//! A layout change as a diff reports it: its kind and the values on each side.

use serde::Serialize;
use serde_json::Value;

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    DiskAdded,
    DiskRemoved,
    /// A disk's media (HDD, SSD, NVMe, SCM): another disk under the same name.
    DiskMedia,
    DiskRpm,
    DiskSize,
    LogicalSector,
    PhysicalSector,
    PoolAdded,
    PoolRemoved,
    /// Physical disks added to a Storage Spaces pool.
    PoolDisksAdded,
    /// Physical disks removed from a Storage Spaces pool.
    PoolDisksRemoved,
    /// A partition starts at another offset (recreated, realigned).
    PartitionOffset,
    PartitionAdded,
    PartitionRemoved,
    /// A volume's allocation unit (cluster) size changed: it was reformatted.
    AllocationUnit,
    Filesystem,
    /// The stripe unit a Linux filesystem was given (XFS `sunit`/`su`, ext4 `stride`).
    FsStripeUnit,
    /// The stripe width a Linux filesystem was given (XFS `swidth`, ext4 `stripe_width`).
    FsStripeWidth,
    /// A Linux mount option with another value (`logbsize=32k` → `logbsize=256k`).
    MountOption,
    MountOptionAdded,
    /// A Linux mount option dropped (`noatime` gone is drift).
    MountOptionRemoved,
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
            ChangeKind::DiskAdded => "disk added",
            ChangeKind::DiskRemoved => "disk removed",
            ChangeKind::DiskMedia => "media",
            ChangeKind::DiskRpm => "rotation speed",
            ChangeKind::DiskSize => "disk size",
            ChangeKind::LogicalSector => "logical sector",
            ChangeKind::PhysicalSector => "physical sector",
            ChangeKind::PoolAdded => "pool added",
            ChangeKind::PoolRemoved => "pool removed",
            ChangeKind::PoolDisksAdded => "pool disks added",
            ChangeKind::PoolDisksRemoved => "pool disks removed",
            ChangeKind::PartitionOffset => "partition offset",
            ChangeKind::PartitionAdded => "partition added",
            ChangeKind::PartitionRemoved => "partition removed",
            ChangeKind::AllocationUnit => "allocation unit",
            ChangeKind::Filesystem => "filesystem",
            ChangeKind::FsStripeUnit => "fs stripe unit",
            ChangeKind::FsStripeWidth => "fs stripe width",
            ChangeKind::MountOption => "mount option",
            ChangeKind::MountOptionAdded => "mount option added",
            ChangeKind::MountOptionRemoved => "mount option removed",
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
    /// volume, disk ids); absent for what one side does not have, `null` for a filesystem stripe
    /// known to be unset.
    pub before: Option<Value>,
    pub after: Option<Value>,
    /// The change in words: `32,256 B (31.5 KiB) → 65,536 B (64 KiB)`.
    pub detail: String,
}
