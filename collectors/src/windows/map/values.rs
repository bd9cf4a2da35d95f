//! What the CIM values mean: codes to names, the ids the facts use, and the text helpers every
//! entity's mapping shares.

use spindle_core::facts::{Media, PartitionStyle, same_path};

use crate::windows::rows::*;

/// `SpindleSpeed` when the rotation speed is unknown.
const SPINDLE_UNKNOWN: u32 = 0xFFFF_FFFF;

/// `MSFT_Disk.BusType` / `MSFT_PhysicalDisk.BusType` names; `None` for 0 (Unknown) and the
/// reserved or undocumented values.
pub fn bus_name(code: Option<u16>) -> Option<&'static str> {
    Some(match code? {
        1 => "SCSI",
        2 => "ATAPI",
        3 => "ATA",
        4 => "1394",
        5 => "SSA",
        6 => "Fibre Channel",
        7 => "USB",
        8 => "RAID",
        9 => "iSCSI",
        10 => "SAS",
        11 => "SATA",
        12 => "SD",
        13 => "MMC",
        14 => "Virtual",
        15 => "File Backed Virtual",
        16 => "Storage Spaces",
        17 => "NVMe",
        _ => return None,
    })
}

/// `MSFT_Disk.PartitionStyle`: 0 is documented as Unknown and is what an uninitialised disk
/// reports (PowerShell shows it as RAW, and `Initialize-Disk` examples select `RAW` disks).
pub(super) fn partition_style(code: u16) -> PartitionStyle {
    match code {
        0 => PartitionStyle::Raw,
        1 => PartitionStyle::Mbr,
        2 => PartitionStyle::Gpt,
        _ => PartitionStyle::Unknown,
    }
}

/// `MSFT_Volume.FileSystemType` (Windows 10+), when `FileSystem` is empty.
pub(super) fn fs_type_name(code: Option<u16>) -> Option<&'static str> {
    Some(match code? {
        4 => "FAT",
        5 => "FAT16",
        6 => "FAT32",
        14 => "NTFS",
        15 => "ReFS",
        0x8000 => "CSVFS_NTFS",
        0x8001 => "CSVFS_ReFS",
        _ => return None,
    })
}

/// `MediaType` 3 HDD, 4 SSD (NVMe on the NVMe bus), 5 SCM. 0 (Unspecified) and undocumented
/// values are `unknown`: the platform was asked and could not tell.
pub(super) fn media(
    p: &MsftPhysicalDisk,
    bus: Option<u16>,
    id: &str,
    unknown: &mut Vec<String>,
) -> Option<Media> {
    Some(match p.media_type {
        Some(3) => Media::Hdd,
        Some(4) if bus == Some(17) || p.bus_type == Some(17) => Media::Nvme,
        Some(4) => Media::Ssd,
        Some(5) => Media::Scm,
        Some(_) => {
            unknown.push(id.to_string());
            Media::Unknown
        }
        None => {
            unknown.push(id.to_string());
            return None;
        }
    })
}

/// `SpindleSpeed` in RPM: 0 only counts when `MediaType` agrees the drive is solid state; the
/// unknown marker 0xFFFFFFFF leaves the speed absent.
pub(super) fn rpm(p: &MsftPhysicalDisk, id: &str, unknown: &mut Vec<String>) -> Option<u32> {
    match p.spindle_speed {
        Some(0) if matches!(p.media_type, Some(4) | Some(5)) => Some(0),
        Some(n) if n != 0 && n != SPINDLE_UNKNOWN => Some(n),
        _ => {
            unknown.push(id.to_string());
            None
        }
    }
}

/// Sector sizes: UInt32 on MSFT_Disk, UInt64 elsewhere; 0 is "not reported".
pub(super) fn sector(n: Option<u64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
}

pub(super) fn pool_id(p: &MsftStoragePool, i: usize) -> String {
    first_nonempty(&[&p.unique_id, &p.object_id]).unwrap_or_else(|| format!("pool{i}"))
}

/// The id SQL Server reports for a volume (`sys.dm_os_volume_stats.volume_id`): the GUID path
/// from `Path`, else from `UniqueId`; a volume with neither keeps what it has.
pub(super) fn msft_volume_id(v: &MsftVolume) -> Option<String> {
    v.path
        .as_deref()
        .and_then(volume_guid_path)
        .or_else(|| v.unique_id.as_deref().and_then(volume_guid_path))
        .or_else(|| first_nonempty(&[&v.path, &v.unique_id, &v.object_id]))
}

/// A volume GUID path in the form Windows' volume APIs, and so SQL Server, report it:
/// `\\?\Volume{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\`, lower-case GUID, trailing backslash.
/// `None` when `s` is not a volume GUID path.
pub fn volume_guid_path(s: &str) -> Option<String> {
    let t = s.trim();
    let rest = t.strip_prefix(r"\\?\").or_else(|| t.strip_prefix(r"\\.\"))?;
    let rest = rest.strip_suffix('\\').unwrap_or(rest);
    if rest.len() != 44 || !rest.is_char_boundary(7) || !rest[..7].eq_ignore_ascii_case("volume{") {
        return None;
    }
    let guid = rest[7..].strip_suffix('}')?;
    let ok = guid.len() == 36
        && guid
            .char_indices()
            .all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() });
    ok.then(|| format!(r"\\?\Volume{{{}}}\", guid.to_ascii_lowercase()))
}

/// Adds a mount point once, as a directory path with its trailing backslash (`E:\SQLData\`).
pub(super) fn add_mount_point(list: &mut Vec<String>, p: &str) {
    let p = p.trim();
    if p.is_empty() {
        return;
    }
    let p = if p.ends_with('\\') { p.to_string() } else { format!("{p}\\") };
    if !list.iter().any(|m| same_path(m, &p)) {
        list.push(p);
    }
}

pub(super) fn nonempty(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

pub(super) fn first_nonempty(list: &[&Option<String>]) -> Option<String> {
    list.iter().find_map(|s| nonempty(s))
}

pub(super) fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("absent".to_string(), |v| v.to_string())
}
