//! Volumes from `MSFT_Volume`, with the partitions under them, their mount points and whether
//! one holds the running Windows.

use spindle_core::facts::{Backing, Volume, norm_volume_id};

use super::Storage;
use super::joins::Joins;
use super::values::{add_mount_point, fs_type_name, msft_volume_id, nonempty, volume_guid_path};
use crate::notes::Uncollected;
use crate::windows::rows::*;

pub(super) fn volumes(rows: &WmiRows, j: &Joins, st: &mut Storage, notes: &mut Uncollected) {
    let vols = match &rows.volumes {
        Rows::Ok(vols) => vols,
        Rows::Failed(e) => {
            st.volumes_error = Some(format!("MSFT_Volume: {e}"));
            st.unbacked_reason =
                Some(format!("MSFT_Volume: {e}; Win32_Volume does not link volumes to partitions, for"));
            return;
        }
        Rows::NotQueried => return,
    };
    let mut list = vec![];
    for (i, v) in vols.iter().enumerate() {
        if v.drive_type == Some(5) {
            continue; // CD-ROM
        }
        let Some(id) = msft_volume_id(v) else {
            notes.miss("volumes", format!("an MSFT_Volume (row {i}) has no Path, UniqueId or ObjectId"));
            continue;
        };
        list.push(volume(rows.partitions.rows(), j, v, id, st));
    }
    st.volumes = Some(list);
    st.unbacked_reason = Some(match (rows.partition_to_volume.error(), rows.partitions.error()) {
        (_, Some(e)) => format!("MSFT_Partition: {e}"),
        (Some(e), None) => {
            format!(
                "MSFT_PartitionToVolume: {e}; and no MSFT_Partition.AccessPaths lists the volume GUID path of"
            )
        }
        (None, None) => "no MSFT_Partition belongs to these volumes (a cluster shared volume owned \
                         by another node, or a dynamic-disk volume)"
            .to_string(),
    });
}

/// One volume, mounted where it and its partitions say; a boot partition makes it the OS's.
fn volume(parts: &[MsftPartition], j: &Joins, v: &MsftVolume, id: String, st: &mut Storage) -> Volume {
    let pidx = j.partitions_of_volume(v.object_id.as_ref(), &id);
    let mut mount_points = vec![];
    if let Some(l) = v.drive_letter {
        add_mount_point(&mut mount_points, &format!("{l}:\\"));
    }
    for &p in &pidx {
        if let Some(l) = parts[p].drive_letter {
            add_mount_point(&mut mount_points, &format!("{l}:\\"));
        }
        for ap in parts[p].access_paths.iter().flatten() {
            if volume_guid_path(ap).is_none() && !ap.starts_with(r"\\") {
                add_mount_point(&mut mount_points, ap);
            }
        }
        if parts[p].is_boot == Some(true) {
            st.boot_volumes.insert(norm_volume_id(&id));
        }
    }
    let filesystem =
        nonempty(&v.file_system).or_else(|| fs_type_name(v.file_system_type).map(str::to_string));
    Volume {
        id,
        mount_points,
        label: nonempty(&v.file_system_label),
        filesystem,
        allocation_unit_bytes: v.allocation_unit_size.filter(|n| *n > 0),
        size_bytes: v.size,
        free_bytes: v.size_remaining,
        backed_by: (!pidx.is_empty())
            .then(|| Backing::Partitions(pidx.iter().map(|&p| j.part_ids[p].clone()).collect())),
        ..Default::default()
    }
}
