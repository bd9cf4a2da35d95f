//! The joins a host view answers once, on first use.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::fast_hash::{FastMap, FastSet};

/// Answers to joins, computed on first use from the view's facts: a rule that asks for the
/// volume of each of 50 files, or the physical disks of each file's volume, would otherwise
/// redo the same normalising and walking for every file, in every rule that asks. Computed
/// lazily so hosts (and rule selections) that never ask pay nothing. They assume the view is
/// not changed once rules look at it; a clone starts with none.
#[derive(Debug, Default)]
pub(super) struct Memo {
    /// The index in `volumes` of each database file's volume, by database and file index.
    pub(super) file_volumes: OnceLock<Vec<Vec<Option<usize>>>>,
    /// [`HostView::physical_disks_of_volume`] of each volume, by index in `volumes`.
    pub(super) volume_disks: OnceLock<Vec<Option<BTreeSet<String>>>>,
    /// The index in `volumes` of the first volume built on each partition, by index in
    /// `partitions`, for [`HostView::volume_of_partition`].
    pub(super) partition_volumes: OnceLock<Vec<Option<usize>>>,
    /// Each long section's first entity of each id, by id.
    pub(super) disk_ids: OnceLock<FastMap<String, usize>>,
    pub(super) partition_ids: OnceLock<FastMap<String, usize>>,
    pub(super) pool_ids: OnceLock<FastMap<String, usize>>,
    pub(super) virtual_disk_ids: OnceLock<FastMap<String, usize>>,
    pub(super) raid_set_ids: OnceLock<FastMap<String, usize>>,
    /// Ids of the partitions something is built on (a volume or a RAID set), when the volumes
    /// and RAID sets are too many to walk for each partition.
    pub(super) built_on: OnceLock<FastSet<String>>,
    /// Normalised mount points to their volume's index (the first volume mounted there), when
    /// there are too many to walk for each file.
    pub(super) mount_index: OnceLock<FastMap<String, usize>>,
    /// Every entity's key to where it is, for [`HostView::entity`].
    pub(super) entities: OnceLock<FastMap<String, Place>>,
    /// What another layer derived from the whole view, for [`HostView::derived`].
    pub(super) derived: OnceLock<Derived>,
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

/// A value of any type, for [`HostView::derived`].
pub(super) struct Derived(pub(super) Box<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Derived(..)")
    }
}

/// Where an entity is in the view.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place {
    Disk(usize),
    Partition(usize),
    Volume(usize),
    Pool(usize),
    VirtualDisk(usize),
    RaidSet(usize),
    Instance(usize),
    Database(usize),
    File(usize, usize),
}
