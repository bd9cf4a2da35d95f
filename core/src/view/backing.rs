//! What a volume's backing names, for the joins from partitions to volumes.

use crate::facts::Backing;

/// The partitions (or, for LVM, devices) a backing names.
pub(super) fn backing_ids(b: &Option<Backing>) -> &[String] {
    match b {
        Some(Backing::Partitions(ids)) => ids,
        Some(Backing::Lvm { devices, .. }) => devices,
        _ => &[],
    }
}

pub(super) fn backs(b: &Option<Backing>, partition_id: &str) -> bool {
    match b {
        Some(Backing::Partitions(ids)) => ids.iter().any(|i| i == partition_id),
        Some(Backing::Lvm { devices, .. }) => devices.iter().any(|i| i == partition_id),
        _ => false,
    }
}
