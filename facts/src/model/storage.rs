use serde::{Deserialize, Serialize};

/// A disk as the operating system sees it: a physical drive, a SAN LUN, or a disk exposed by a
/// Storage Spaces virtual disk or a RAID controller.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Disk {
    /// Stable id: `MSFT_Disk.UniqueId`, a Linux device name (`sda`, `md0`) or a WWN.
    pub id: String,
    /// Disk number shown to people (Windows disk number); may change across restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<Media>,
    /// Rotation speed of a rotational disk, in revolutions per minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpm: Option<u32>,
    /// Bus as reported (`SAS`, `SATA`, `NVMe`, `iSCSI`, `Storage Spaces`, `virtio`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_sector_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_sector_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_style: Option<PartitionStyle>,
    /// The Storage Spaces virtual disk or RAID set that exposes this disk, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backed_by: Option<Backing>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Media {
    Hdd,
    Ssd,
    Nvme,
    /// Storage-class memory (persistent memory).
    Scm,
    /// The collector asked and the platform could not tell.
    Unknown,
}

impl Media {
    /// The media for people: `HDD`, `NVMe`, `storage-class memory`.
    pub fn name(self) -> &'static str {
        match self {
            Media::Hdd => "HDD",
            Media::Ssd => "SSD",
            Media::Nvme => "NVMe",
            Media::Scm => "storage-class memory",
            Media::Unknown => "unknown media",
        }
    }

    pub fn is_rotational(self) -> Option<bool> {
        match self {
            Media::Hdd => Some(true),
            Media::Ssd | Media::Nvme | Media::Scm => Some(false),
            Media::Unknown => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PartitionStyle {
    Mbr,
    Gpt,
    Raw,
    Unknown,
}

/// A partition of a disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Partition {
    /// Stable id, e.g. `disk2-p1`, the partition's ObjectId or a Linux device (`sdb1`).
    pub id: String,
    /// Id of the disk holding it.
    pub disk_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// Where the partition starts, in bytes from the start of the disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
}

/// What a volume or disk is built on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Backing {
    /// One or more partitions (several for a spanned or dynamic volume).
    Partitions(Vec<String>),
    /// A Storage Spaces virtual disk, by id.
    VirtualDisk(String),
    /// A RAID set (hardware, md or dynamic-disk), by id.
    RaidSet(String),
    /// An LVM logical volume, with its striping when known.
    Lvm {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stripes: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stripe_unit_bytes: Option<u64>,
        /// Ids of the disks or partitions under the logical volume.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        devices: Vec<String>,
    },
}

/// A mounted filesystem.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Volume {
    /// Stable id: the Windows volume GUID path (`\\?\Volume{…}\`, as in
    /// `sys.dm_os_volume_stats.volume_id`) or the Linux device (`/dev/sdb1`).
    pub id: String,
    /// Drive letters, mounted folders and Linux mount points (`E:\`, `E:\SQLData\`, `/var/opt/mssql`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mount_points: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Filesystem as reported: `NTFS`, `ReFS`, `CSVFS`, `xfs`, `ext4`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<String>,
    /// Cluster (allocation unit, filesystem block) size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation_unit_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    /// Filesystem compression is on for the volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<bool>,
    /// File-level encryption (EFS) is in use on the volume. BitLocker does not count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<bool>,
    /// The volume holds the operating system (Windows directory or Linux root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_volume: Option<bool>,
    /// The volume is a cloud VM's local temporary (ephemeral) disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_disk: Option<bool>,
    /// The stripe unit the filesystem was told about at format or mount time (XFS `sunit`, ext4
    /// `stride`), in bytes whatever unit the source used (512-byte units in XFS mount options,
    /// filesystem blocks in superblocks). Absent: not known, or the filesystem has none set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_stripe_unit_bytes: Option<u64>,
    /// The full stripe width the filesystem was told about (XFS `swidth`, ext4 `stripe_width`),
    /// in bytes: the stripe unit times the number of data disks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_stripe_width_bytes: Option<u64>,
    /// Linux mount options (`noatime`, `sunit=…`); absent on Windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_options: Option<Vec<String>>,
    /// What the volume is built on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backed_by: Option<Backing>,
}

/// A filesystem family, from the reported name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    Ntfs,
    Refs,
    Xfs,
    Ext4,
    Other,
}

impl Volume {
    pub fn fs_kind(&self) -> Option<FsKind> {
        let fs = self.filesystem.as_deref()?.to_ascii_lowercase();
        Some(match fs.as_str() {
            // A cluster shared volume reports CSVFS over an NTFS or ReFS filesystem.
            "ntfs" | "csvfs" | "csvfs_ntfs" => FsKind::Ntfs,
            "refs" | "csvfs_refs" => FsKind::Refs,
            "xfs" => FsKind::Xfs,
            "ext4" => FsKind::Ext4,
            _ => FsKind::Other,
        })
    }

    /// The name people know the volume by: its first mount point, else its id.
    pub fn display_name(&self) -> &str {
        self.mount_points.first().map_or(self.id.as_str(), String::as_str)
    }
}

/// A Storage Spaces pool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StoragePool {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ids of the disks in the pool (entries of `disks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_disk_ids: Option<Vec<String>>,
}

/// A Storage Spaces virtual disk: striped over `columns` disks in `interleave_bytes` strips.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VirtualDisk {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub pool_id: String,
    /// `NumberOfColumns`: how many disks each stripe spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<u32>,
    /// `Interleave`: bytes per strip on one disk (the stripe unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interleave_bytes: Option<u64>,
    /// `ResiliencySettingName`: Simple, Mirror or Parity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resiliency: Option<String>,
}

/// A RAID set: a hardware controller's logical drive, a Linux md array or a Windows dynamic-disk
/// striped volume.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RaidSet {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RaidKind>,
    /// RAID level as reported: `raid0`, `raid5`, `raid10`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Stripe unit (chunk) on one member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_unit_bytes: Option<u64>,
    /// Ids of the member disks or partitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_ids: Option<Vec<String>>,
}

/// The stripe unit of every Windows dynamic-disk striped (and RAID-5) volume: Disk Management
/// and `diskpart create volume stripe` offer no other. Microsoft's guidance for SQL Server on
/// Windows Server 2008 R2 and older, where dynamic disks were the way to stripe in the OS, says
/// they "always" use 64 KB; Windows Server 2012 and later stripe with Storage Spaces instead.
pub const DYNAMIC_DISK_STRIPE_UNIT_BYTES: u64 = 64 * 1024;

impl RaidSet {
    /// Whether the set stripes data over its members: not a mirror (RAID 1) nor a linear,
    /// spanned or JBOD set, which write each block to one member (or to every member alike).
    /// A set whose level is unknown counts as striped, so its stripe unit is still asked for.
    pub fn is_striped(&self) -> bool {
        let level = self.level.as_deref().unwrap_or("").to_ascii_lowercase().replace(['-', ' ', '_'], "");
        !matches!(
            level.as_str(),
            "raid1" | "1" | "mirror" | "mirrored" | "linear" | "jbod" | "span" | "spanned" | "concat"
        )
    }

    /// The stripe unit of a striped set: the one collected, else the fixed
    /// [`DYNAMIC_DISK_STRIPE_UNIT_BYTES`] of a Windows dynamic-disk set. The flag is `true` when
    /// the unit was not read but follows from the set being a dynamic-disk one.
    pub fn stripe_unit(&self) -> Option<(u64, bool)> {
        if let Some(u) = self.stripe_unit_bytes {
            return Some((u, false));
        }
        (self.kind == Some(RaidKind::Dynamic) && self.is_striped())
            .then_some((DYNAMIC_DISK_STRIPE_UNIT_BYTES, true))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RaidKind {
    Hardware,
    Md,
    Dynamic,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(kind: Option<RaidKind>, level: &str, unit: Option<u64>) -> RaidSet {
        RaidSet { id: "r".into(), kind, level: Some(level.into()), stripe_unit_bytes: unit, member_ids: None }
    }

    #[test]
    fn a_dynamic_disk_stripe_is_64k_unless_collected_otherwise() {
        assert_eq!(set(Some(RaidKind::Dynamic), "raid0", None).stripe_unit(), Some((65_536, true)));
        assert_eq!(set(Some(RaidKind::Dynamic), "raid5", None).stripe_unit(), Some((65_536, true)));
        assert_eq!(
            set(Some(RaidKind::Dynamic), "raid0", Some(131_072)).stripe_unit(),
            Some((131_072, false))
        );
        // A dynamic mirror or spanned volume has no stripe; other kinds have no fixed unit.
        assert_eq!(set(Some(RaidKind::Dynamic), "mirror", None).stripe_unit(), None);
        assert_eq!(set(Some(RaidKind::Dynamic), "spanned", None).stripe_unit(), None);
        assert_eq!(set(Some(RaidKind::Hardware), "raid0", None).stripe_unit(), None);
        assert_eq!(set(None, "raid0", None).stripe_unit(), None);
        assert_eq!(set(Some(RaidKind::Md), "raid10", Some(524_288)).stripe_unit(), Some((524_288, false)));
    }

    #[test]
    fn striped_levels() {
        for level in ["RAID 1", "raid1", "mirror", "linear", "JBOD", "spanned"] {
            assert!(!set(None, level, None).is_striped(), "{level}");
        }
        for level in ["raid0", "raid10", "RAID 5", "raid6", "raid50", ""] {
            assert!(set(None, level, None).is_striped(), "{level}");
        }
    }
}
