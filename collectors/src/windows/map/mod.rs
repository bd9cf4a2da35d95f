//! Rows → facts: a pure function, so every rule about what the CIM values mean is tested on any
//! platform. Nothing is guessed: a value the class documents as "unknown" (MediaType 0,
//! SpindleSpeed 0xFFFFFFFF, AllocationUnitSize 0) leaves the fact absent and says why in
//! `not_collected`.
//!
//! The storage namespace's rows are indexed once by the keys they join on ([`joins`]), and each
//! entity kind is mapped on its own from that index: [`disks`], [`spaces`] (pools and virtual
//! disks), [`partitions`], [`volumes`]. Hosts without the namespace take the [`legacy`] path.
//! Both end in [`win32_volumes`], which completes the volumes from `root\cimv2`.

mod disks;
mod host;
mod joins;
mod legacy;
mod partitions;
mod spaces;
mod values;
mod volumes;
mod win32_volumes;

use std::collections::HashSet;

use spindle_core::facts::{Disk, Partition, SCHEMA_VERSION, Snapshot, StoragePool, VirtualDisk, Volume};

pub use self::values::{bus_name, volume_guid_path};
use super::rows::*;
use crate::notes::Uncollected;

/// The collector's name in `collectors[]`.
pub const COLLECTOR: &str = "wmi";

/// The label Azure gives the VM's local temporary (resource) disk.
const AZURE_TEMP_LABEL: &str = "Temporary Storage";

/// `BusType` 16: a disk exposed by a storage space.
const BUS_STORAGE_SPACES: u16 = 16;

/// Turns what the Windows collector read into a facts snapshot.
pub fn map(rows: &WmiRows) -> Snapshot {
    let mut notes = Uncollected::default();
    let host = host::host(rows, &mut notes);
    // The legacy disk classes are read only when the storage namespace is missing.
    let legacy = !rows.disks.is_ok() && !matches!(rows.win32_disk_drives, Rows::NotQueried);
    let mut st =
        if legacy { legacy::legacy_storage(rows, &mut notes) } else { msft_storage(rows, &mut notes) };
    let volumes = win32_volumes::finish_volumes(rows, &mut st, host.cloud_provider, &mut notes);
    notes.miss(
        "raid_sets",
        "hardware RAID logical drives appear to Windows as plain disks and WMI does not show the \
         controller's stripe size; dynamic-disk striped volumes are not read by this collector",
    );
    Snapshot {
        schema_version: SCHEMA_VERSION,
        collected_at: rows.collected_at.clone(),
        host,
        collectors: vec![notes.merged_by_fact().report(COLLECTOR)],
        disks: st.disks,
        partitions: st.partitions,
        volumes,
        storage_pools: st.storage_pools,
        virtual_disks: st.virtual_disks,
        raid_sets: None,
        sql_instances: None,
    }
}

/// What both paths produce before the volumes are merged with Win32_Volume.
#[derive(Default)]
struct Storage {
    disks: Option<Vec<Disk>>,
    partitions: Option<Vec<Partition>>,
    /// Volumes from the storage namespace (None when MSFT_Volume was not read).
    volumes: Option<Vec<Volume>>,
    storage_pools: Option<Vec<StoragePool>>,
    virtual_disks: Option<Vec<VirtualDisk>>,
    /// Normalised ids of volumes a partition's `IsBoot` says hold the running Windows.
    boot_volumes: HashSet<String>,
    /// Volumes whose partitions could not be found, with why.
    unbacked_reason: Option<String>,
    /// Why MSFT_Volume could not be read.
    volumes_error: Option<String>,
}

/// Windows 8 / Server 2012 and later: the storage namespace's `MSFT_*` classes.
fn msft_storage(rows: &WmiRows, notes: &mut Uncollected) -> Storage {
    let joins = joins::Joins::new(rows);
    let mut st = Storage {
        disks: disks::disks(rows, &joins, notes),
        storage_pools: spaces::storage_pools(rows, &joins, notes),
        virtual_disks: spaces::virtual_disks(rows, &joins, notes),
        partitions: partitions::partitions(rows, &joins, notes),
        ..Storage::default()
    };
    volumes::volumes(rows, &joins, &mut st, notes);
    st
}

/// The rows of a class, or `None` after recording why `fact` is missing.
fn read<'r, T>(rows: &'r Rows<T>, class: &str, fact: &str, notes: &mut Uncollected) -> Option<&'r [T]> {
    match rows {
        Rows::Ok(r) => Some(r),
        Rows::Failed(e) => {
            notes.miss(fact, format!("{class}: {e}"));
            None
        }
        Rows::NotQueried => {
            notes.miss(fact, format!("{class} was not queried"));
            None
        }
    }
}
