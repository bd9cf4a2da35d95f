//! The volumes of both paths completed from the `root\cimv2` classes: `Win32_Volume` (which
//! also lists cluster shared volumes and gives the cluster size where `MSFT_Volume` lacks it),
//! `Win32_LogicalDisk` as the last source, mounted folders from `Win32_MountPoint`, and the OS
//! and temporary-disk marks.

use std::collections::{HashMap, HashSet};

use spindle_core::facts::{Backing, CloudProvider, Merge, Volume, norm_volume_id, same_path};

use super::values::{add_mount_point, nonempty, volume_guid_path};
use super::{AZURE_TEMP_LABEL, Storage};
use crate::notes::Uncollected;
use crate::windows::rows::*;

pub(super) fn finish_volumes(
    rows: &WmiRows,
    st: &mut Storage,
    cloud: Option<CloudProvider>,
    notes: &mut Uncollected,
) -> Option<Vec<Volume>> {
    let mut boot = std::mem::take(&mut st.boot_volumes);
    let mut volumes = st.volumes.take();
    let letters = partitions_of_letters(rows);
    if let Rows::Ok(w) = &rows.win32_volumes {
        merge_win32_volumes(w, volumes.get_or_insert_with(Vec::new), &mut boot, &letters);
    }
    if volumes.as_ref().is_none_or(|v| v.is_empty()) {
        let drives = logical_disk_volumes(rows, &letters);
        if !drives.is_empty() {
            volumes.get_or_insert_with(Vec::new).extend(drives);
        }
    }
    let Some(mut list) = volumes.filter(|v| !v.is_empty()) else {
        why_no_volumes(rows, st, notes);
        return None;
    };
    for m in rows.win32_mount_points.rows() {
        let (Some(dir), Some(vol)) = (ref_key(&m.directory, "Name"), ref_key(&m.volume, "DeviceID")) else {
            continue;
        };
        let key = norm_volume_id(&volume_guid_path(&vol).unwrap_or(vol));
        if let Some(v) = list.iter_mut().find(|v| norm_volume_id(&v.id) == key) {
            add_mount_point(&mut v.mount_points, &dir);
        }
    }
    mark_os_volume(rows, &mut list, boot, notes);
    // Azure's local temporary disk keeps the label Azure gives it.
    if cloud == Some(CloudProvider::Azure)
        && list.iter().any(|v| v.label.as_deref() == Some(AZURE_TEMP_LABEL))
    {
        for v in &mut list {
            v.temp_disk = Some(v.label.as_deref() == Some(AZURE_TEMP_LABEL));
        }
    }
    volume_notes(rows, st, &list, notes);
    Some(list)
}

/// The partition under each drive letter (`C:`), from `Win32_LogicalDiskToPartition`.
fn partitions_of_letters(rows: &WmiRows) -> HashMap<String, String> {
    rows.win32_logical_disk_to_partition
        .rows()
        .iter()
        .filter_map(|a| {
            let letter = ref_key(&a.dependent, "DeviceID")?;
            Some((letter.trim_end_matches('\\').to_ascii_uppercase(), ref_key(&a.antecedent, "DeviceID")?))
        })
        .collect()
}

/// Each `Win32_Volume` merged into the volume of the same id, or added.
fn merge_win32_volumes(
    w: &[Win32Volume],
    list: &mut Vec<Volume>,
    boot: &mut HashSet<String>,
    letters: &HashMap<String, String>,
) {
    for v in w {
        if v.drive_type == Some(5) {
            continue;
        }
        let Some(id) = nonempty(&v.device_id).map(|d| volume_guid_path(&d).unwrap_or(d)) else {
            continue;
        };
        let mut mount_points = vec![];
        let letter = nonempty(&v.drive_letter).map(|l| l.trim_end_matches('\\').to_ascii_uppercase());
        if let Some(l) = &letter {
            add_mount_point(&mut mount_points, &format!("{l}\\"));
        }
        if let Some(n) = nonempty(&v.name).filter(|n| volume_guid_path(n).is_none() && !n.starts_with(r"\\"))
        {
            add_mount_point(&mut mount_points, &n);
        }
        if v.boot_volume == Some(true) {
            boot.insert(norm_volume_id(&id));
        }
        let backed_by =
            letter.as_ref().and_then(|l| letters.get(l)).map(|p| Backing::Partitions(vec![p.clone()]));
        let vol = Volume {
            id,
            mount_points,
            label: nonempty(&v.label),
            filesystem: nonempty(&v.file_system),
            allocation_unit_bytes: v.block_size.filter(|n| *n > 0),
            size_bytes: v.capacity,
            free_bytes: v.free_space,
            compressed: v.compressed,
            backed_by,
            ..Default::default()
        };
        let key = norm_volume_id(&vol.id);
        match list.iter_mut().find(|x| norm_volume_id(&x.id) == key) {
            Some(x) => x.merge_from(vol),
            None => list.push(vol),
        }
    }
}

/// The local fixed drive letters, for a host whose `Win32_Volume` lists nothing.
fn logical_disk_volumes(rows: &WmiRows, letters: &HashMap<String, String>) -> Vec<Volume> {
    let mut list = vec![];
    for d in rows.win32_logical_disks.rows() {
        if d.drive_type != Some(3) {
            continue;
        }
        let Some(letter) = nonempty(&d.device_id).map(|l| l.trim_end_matches('\\').to_ascii_uppercase())
        else {
            continue;
        };
        let root = format!("{letter}\\");
        list.push(Volume {
            id: root.clone(),
            mount_points: vec![root],
            label: nonempty(&d.volume_name),
            filesystem: nonempty(&d.file_system),
            size_bytes: d.size,
            free_bytes: d.free_space,
            compressed: d.compressed,
            backed_by: letters.get(&letter).map(|p| Backing::Partitions(vec![p.clone()])),
            ..Default::default()
        });
    }
    list
}

fn why_no_volumes(rows: &WmiRows, st: &Storage, notes: &mut Uncollected) {
    if let Some(e) = &st.volumes_error {
        notes.miss("volumes", e.clone());
    }
    match &rows.win32_volumes {
        Rows::Failed(e) => notes.miss("volumes", format!("Win32_Volume: {e}")),
        // No volume is not an answer: a running Windows host has at least its system volume.
        Rows::Ok(_) => notes.miss(
            "volumes",
            format!(
                "Win32_Volume{} listed no volumes, and a running Windows host has at least its \
                 system volume",
                if rows.win32_logical_disks.is_ok() { " and Win32_LogicalDisk" } else { "" }
            ),
        ),
        Rows::NotQueried => {}
    }
    if let Some(e) = rows.win32_logical_disks.error() {
        notes.miss("volumes", format!("Win32_LogicalDisk: {e}"));
    }
}

/// The OS volume: a boot partition, `Win32_Volume.BootVolume`, or the system drive.
fn mark_os_volume(rows: &WmiRows, list: &mut [Volume], mut boot: HashSet<String>, notes: &mut Uncollected) {
    let system_drive = rows
        .operating_system
        .rows()
        .first()
        .and_then(|o| nonempty(&o.system_drive))
        .map(|d| format!("{}\\", d.trim_end_matches('\\')));
    if let Some(sd) = &system_drive {
        for v in list.iter() {
            if v.mount_points.iter().any(|m| same_path(m, sd)) {
                boot.insert(norm_volume_id(&v.id));
            }
        }
    }
    if boot.is_empty() {
        notes.miss(
            "volumes[].os_volume",
            "no partition has IsBoot, no Win32_Volume has BootVolume and no volume is mounted at the \
             system drive",
        );
    } else {
        for v in list {
            v.os_volume = Some(boot.contains(&norm_volume_id(&v.id)));
        }
    }
}

fn volume_notes(rows: &WmiRows, st: &Storage, list: &[Volume], notes: &mut Uncollected) {
    let no_au: Vec<String> = list
        .iter()
        .filter(|v| v.allocation_unit_bytes.is_none() && v.filesystem.is_some())
        .map(|v| v.display_name().to_string())
        .collect();
    let w_err = rows.win32_volumes.error().map_or(String::new(), |e| format!(" (Win32_Volume: {e})"));
    notes.miss_for(
        "volumes[].allocation_unit_bytes",
        &format!("MSFT_Volume.AllocationUnitSize absent or 0 and no Win32_Volume.BlockSize{w_err} for"),
        &no_au,
    );
    let unbacked: Vec<String> =
        list.iter().filter(|v| v.backed_by.is_none()).map(|v| v.display_name().to_string()).collect();
    if let Some(why) = &st.unbacked_reason {
        notes.miss_for("volumes[].backed_by", why, &unbacked);
    }
    if !list.iter().any(|v| v.compressed.is_some()) {
        notes.miss("volumes[].compressed", format!("Win32_Volume.Compressed not read{w_err}"));
    }
    notes.miss(
        "volumes[].encrypted",
        "neither MSFT_Volume nor Win32_Volume says whether files on a volume use EFS (check with cipher /S)",
    );
}
