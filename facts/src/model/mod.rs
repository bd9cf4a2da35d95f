//! The facts snapshot: the contract between collectors, rules and plugins.
//!
//! Every size is in bytes and every duration in milliseconds, with the unit in the field name. A
//! fact that was not collected is absent (`None`, or a section that is missing altogether), never
//! guessed: rules report "not evaluated" for it instead of passing.

mod host;
mod merge;
mod sql;
mod storage;

pub use host::{CloudProvider, CollectorReport, Host, NotCollected, OsFamily};
pub use merge::{Merge, norm_path, norm_volume_id, same_path};
pub use sql::{Database, DatabaseRole, DbFile, FileType, Growth, IoStats, IoWindow, MaxSize, SqlInstance};
pub use storage::{
    Backing, DYNAMIC_DISK_STRIPE_UNIT_BYTES, Disk, FsKind, Media, Partition, PartitionStyle, RaidKind,
    RaidSet, StoragePool, VirtualDisk, Volume,
};

use serde::{Deserialize, Serialize};

/// The snapshot format version this build reads and writes. A file with another version is
/// refused with a clear error rather than half-understood.
pub const SCHEMA_VERSION: u32 = 1;

/// One facts snapshot: what one or more collectors saw of one host at one time.
///
/// Several snapshots of the same host (say, host facts from one collector and SQL Server facts
/// from another) merge into one view; volumes join by volume id, never by drive letter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// Format version of this file; this build reads version 1.
    pub schema_version: u32,
    /// When the facts were collected (RFC 3339), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collected_at: Option<String>,
    /// The host the facts describe. Its `name` groups snapshot files of one host.
    pub host: Host,
    /// Which collectors produced this file and what each could not collect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectors: Vec<CollectorReport>,
    /// Disks the operating system sees (physical disks, LUNs, disks exposed by a virtual disk or
    /// a RAID controller). Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disks: Option<Vec<Disk>>,
    /// Partitions of those disks. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Vec<Partition>>,
    /// Mounted filesystems. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volumes: Option<Vec<Volume>>,
    /// Storage Spaces pools. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_pools: Option<Vec<StoragePool>>,
    /// Storage Spaces virtual disks. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_disks: Option<Vec<VirtualDisk>>,
    /// Hardware, md or dynamic-disk RAID sets. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raid_sets: Option<Vec<RaidSet>>,
    /// SQL Server instances on the host. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_instances: Option<Vec<SqlInstance>>,
}
