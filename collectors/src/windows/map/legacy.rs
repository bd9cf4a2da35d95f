//! Pre-2012 hosts, whose storage namespace is missing: disks and partitions from
//! `Win32_DiskDrive`, `Win32_DiskPartition` and `Win32_LogicalDiskToPartition`.

use spindle_core::facts::{Disk, Partition};

use super::Storage;
use super::values::{nonempty, opt};
use crate::notes::Uncollected;
use crate::windows::rows::*;

/// Pre-2012 hosts: `Win32_DiskDrive`, `Win32_DiskPartition` and `Win32_LogicalDiskToPartition`.
pub(super) fn legacy_storage(rows: &WmiRows, notes: &mut Uncollected) -> Storage {
    let mut st = Storage::default();
    let why = rows.disks.error().map_or_else(
        || "the storage namespace ROOT\\Microsoft\\Windows\\Storage was not read".to_string(),
        |e| format!("ROOT\\Microsoft\\Windows\\Storage: {e}"),
    );
    notes.miss("storage_pools", format!("{why} (Storage Spaces exist from Windows Server 2012)"));
    notes.miss("virtual_disks", format!("{why} (Storage Spaces exist from Windows Server 2012)"));
    let drives = rows.win32_disk_drives.rows();
    match &rows.win32_disk_drives {
        // No disk is not an answer either (see `WmiRows::distrust_empty_storage`).
        Rows::Ok(d) if d.is_empty() => notes.miss("disks", format!("{why}; Win32_DiskDrive listed no disks")),
        Rows::Ok(_) => {
            let mut list: Vec<Disk> = drives
                .iter()
                .enumerate()
                .map(|(i, d)| Disk {
                    id: legacy_disk_id(d, i),
                    number: d.index,
                    model: nonempty(&d.model).or_else(|| nonempty(&d.caption)),
                    bus: nonempty(&d.interface_type),
                    size_bytes: d.size,
                    logical_sector_bytes: d.bytes_per_sector.filter(|n| *n > 0),
                    ..Default::default()
                })
                .collect();
            list.sort_by_key(|d| d.number.unwrap_or(u32::MAX));
            notes.miss("disks[].media", format!("{why}; Win32_DiskDrive does not report the media type"));
            notes.miss("disks[].rpm", format!("{why}; Win32_DiskDrive does not report the rotation speed"));
            notes.miss(
                "disks[].physical_sector_bytes",
                format!("{why}; Win32_DiskDrive reports only the logical sector size (BytesPerSector)"),
            );
            notes.miss("disks[].partition_style", format!("{why}; Win32_DiskDrive does not report it"));
            st.disks = Some(list);
        }
        Rows::Failed(e) => notes.miss("disks", format!("{why}; Win32_DiskDrive: {e}")),
        Rows::NotQueried => notes.miss("disks", why.clone()),
    }
    match &rows.win32_partitions {
        Rows::Ok(parts) => {
            let mut no_offset = vec![];
            let list = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let id = nonempty(&p.device_id).unwrap_or_else(|| {
                        format!(
                            "Disk #{}, Partition #{}",
                            opt(p.disk_index),
                            p.index.map_or(i.to_string(), |n| n.to_string())
                        )
                    });
                    if p.starting_offset.is_none() {
                        no_offset.push(id.clone());
                    }
                    let disk_id = p
                        .disk_index
                        .and_then(|n| drives.iter().enumerate().find(|(_, d)| d.index == Some(n)))
                        .map(|(j, d)| legacy_disk_id(d, j))
                        .or_else(|| p.disk_index.map(|n| format!("\\\\.\\PHYSICALDRIVE{n}")))
                        .unwrap_or_default();
                    Partition {
                        id,
                        disk_id,
                        // Index is 0-based; partition numbers count from 1.
                        number: p.index.map(|n| n + 1),
                        offset_bytes: p.starting_offset,
                        size_bytes: p.size,
                    }
                })
                .collect();
            notes.miss_for(
                "partitions[].offset_bytes",
                "Win32_DiskPartition.StartingOffset not reported for",
                &no_offset,
            );
            st.partitions = Some(list);
        }
        Rows::Failed(e) => notes.miss("partitions", format!("{why}; Win32_DiskPartition: {e}")),
        Rows::NotQueried => notes.miss("partitions", why.clone()),
    }
    st.unbacked_reason = Some(match rows.win32_logical_disk_to_partition.error() {
        Some(e) => format!("Win32_LogicalDiskToPartition: {e}"),
        None => {
            "Win32_LogicalDiskToPartition links only drive letters to partitions; not found for".to_string()
        }
    });
    st
}

fn legacy_disk_id(d: &Win32DiskDrive, i: usize) -> String {
    nonempty(&d.device_id)
        .unwrap_or_else(|| format!("\\\\.\\PHYSICALDRIVE{}", d.index.map_or(i as u32, |n| n)))
}
