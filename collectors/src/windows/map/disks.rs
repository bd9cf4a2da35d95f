//! Disks from `MSFT_Disk`, with media, rotation speed and bus from the physical drive each is,
//! and the pooled drives Windows shows only as `MSFT_PhysicalDisk`.

use spindle_core::facts::{Backing, Disk};

use super::BUS_STORAGE_SPACES;
use super::joins::Joins;
use super::read;
use super::values::{bus_name, media, nonempty, opt, partition_style, rpm, sector};
use crate::notes::Uncollected;
use crate::windows::rows::*;

/// Ids of the disks a fact could not be read for, by why.
#[derive(Default)]
struct Unknown {
    /// Disks with no physical drive to read media and speed from.
    no_drive: Vec<String>,
    media: Vec<String>,
    rpm: Vec<String>,
    bus: Vec<String>,
    /// Storage Spaces disks with no virtual disk.
    space_without_vd: Vec<String>,
}

pub(super) fn disks(rows: &WmiRows, j: &Joins, notes: &mut Uncollected) -> Option<Vec<Disk>> {
    read(&rows.disks, "MSFT_Disk", "disks", notes)?;
    let pds = rows.physical_disks.rows();
    let mut unknown = Unknown::default();
    let mut list: Vec<Disk> = (0..j.disks.len()).map(|i| disk(pds, j, i, &mut unknown)).collect();
    for (p, drive) in pds.iter().enumerate() {
        if !j.pd_is_disk.contains(&p) {
            list.push(pooled_drive(drive, &j.pd_ids[p], &mut unknown));
        }
    }
    disk_notes(rows, &list, unknown, notes);
    Some(list)
}

/// The `i`th disk by number.
fn disk(pds: &[MsftPhysicalDisk], j: &Joins, i: usize, unknown: &mut Unknown) -> Disk {
    let (d, id) = (j.disks[i], &j.disk_ids[i]);
    let mut disk = Disk {
        id: id.clone(),
        number: d.number,
        model: nonempty(&d.model).or_else(|| nonempty(&d.friendly_name)),
        bus: bus_name(d.bus_type).map(str::to_string),
        size_bytes: d.size,
        logical_sector_bytes: sector(d.logical_sector_size),
        physical_sector_bytes: sector(d.physical_sector_size),
        partition_style: d.partition_style.map(partition_style),
        ..Default::default()
    };
    let vd = j.vd_of_disk[i];
    if let Some(v) = vd {
        disk.backed_by = Some(Backing::VirtualDisk(j.vd_ids[v].clone()));
    } else if d.bus_type == Some(BUS_STORAGE_SPACES) {
        unknown.space_without_vd.push(id.clone());
    }
    match j.pd_of_disk[i] {
        Some(p) => {
            let p = &pds[p];
            disk.media = media(p, d.bus_type, id, &mut unknown.media);
            disk.rpm = rpm(p, id, &mut unknown.rpm);
            if disk.bus.is_none() {
                disk.bus = bus_name(p.bus_type).map(str::to_string);
            }
        }
        None if vd.is_none() && d.bus_type != Some(BUS_STORAGE_SPACES) => unknown.no_drive.push(id.clone()),
        None => {}
    }
    if disk.bus.is_none() {
        unknown.bus.push(format!("{id} (BusType {})", opt(d.bus_type)));
    }
    disk
}

/// A drive the OS does not show as a disk (a pooled one): a disk without a number.
fn pooled_drive(p: &MsftPhysicalDisk, id: &str, unknown: &mut Unknown) -> Disk {
    if p.bus_type.is_some_and(|b| bus_name(Some(b)).is_none()) {
        unknown.bus.push(format!("{id} (BusType {})", opt(p.bus_type)));
    }
    Disk {
        id: id.to_string(),
        number: None,
        model: nonempty(&p.model).or_else(|| nonempty(&p.friendly_name)),
        media: media(p, p.bus_type, id, &mut unknown.media),
        rpm: rpm(p, id, &mut unknown.rpm),
        bus: bus_name(p.bus_type).map(str::to_string),
        size_bytes: p.size,
        logical_sector_bytes: sector(p.logical_sector_size),
        physical_sector_bytes: sector(p.physical_sector_size),
        ..Default::default()
    }
}

fn disk_notes(rows: &WmiRows, disks: &[Disk], unknown: Unknown, notes: &mut Uncollected) {
    if let Some(e) = rows.physical_disks.error() {
        notes.miss("disks[].media", format!("MSFT_PhysicalDisk: {e}"));
        notes.miss("disks[].rpm", format!("MSFT_PhysicalDisk: {e}"));
    } else {
        let why = "no MSFT_PhysicalDisk has the UniqueId or DeviceId of";
        notes.miss_for("disks[].media", why, &unknown.no_drive);
        notes.miss_for("disks[].rpm", why, &unknown.no_drive);
    }
    notes.miss_for(
        "disks[].media",
        "MSFT_PhysicalDisk.MediaType is 0 (Unspecified) or unknown: the platform does not say \
         what media backs",
        &unknown.media,
    );
    notes.miss_for(
        "disks[].rpm",
        "MSFT_PhysicalDisk.SpindleSpeed is 0xFFFFFFFF (unknown), absent, or 0 while MediaType does \
         not say solid state, for",
        &unknown.rpm,
    );
    notes.miss_for("disks[].bus", "MSFT_Disk / MSFT_PhysicalDisk.BusType unknown or reserved", &unknown.bus);
    let err = rows
        .virtual_disk_to_disk
        .error()
        .map_or(String::new(), |e| format!(" (MSFT_VirtualDiskToDisk: {e})"));
    notes.miss_for(
        "disks[].backed_by",
        &format!("no MSFT_VirtualDisk matches these Storage Spaces disks{err}"),
        &unknown.space_without_vd,
    );
    let no_sector: Vec<String> =
        disks.iter().filter(|d| d.physical_sector_bytes.is_none()).map(|d| d.id.clone()).collect();
    notes.miss_for("disks[].physical_sector_bytes", "PhysicalSectorSize absent or 0 for", &no_sector);
}
