//! The fix ALN001, ALN002 and ALN004 share: recreate this partition, on this disk, at an offset
//! that is a multiple of what it must be aligned to, then give its volume back its letter or
//! folder and its 64 KiB clusters.

use spindle_core::facts::{OsFamily, Partition};
use spindle_core::units;
use spindle_core::view::{HostView, Located};

use crate::commands::{
    dev_path, drive_letter, format_volume, is_linux, linux_mount, ps_string, sh_word, volume_of_partition,
};

/// The smallest offset of at least 1 MiB that is a multiple of both 1 MiB and `align_bytes`
/// (so diskpart's `align=` in KiB and parted's MiB can express it): 1 MiB for any power-of-two
/// boundary up to 1 MiB.
pub(crate) fn aligned_offset(align_bytes: u64) -> u64 {
    const MIB: u64 = 1024 * 1024;
    MIB / gcd(MIB, align_bytes.max(1)) * align_bytes.max(1)
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// How to recreate partition `p` at a multiple of `align_bytes` (`why` names the boundary: "the
/// 256 KiB stripe unit"), written for its disk and its volume.
pub(super) fn recreate_partition(
    view: &HostView,
    p: &Located<Partition>,
    align_bytes: u64,
    why: &str,
) -> String {
    let start = aligned_offset(align_bytes);
    let volume = volume_of_partition(view, p);
    let linux = view.host.os_family == Some(OsFamily::Linux)
        || volume.is_some_and(|v| is_linux(view, v))
        || p.disk_id.starts_with("/dev/");
    let vol_name = volume.map_or_else(|| format!("partition {}", p.id), |v| v.display_name().to_string());
    if linux {
        let disk = sh_word(&dev_path(&p.disk_id));
        let number = p.number.map_or_else(|| "<partition number>".to_string(), |n| n.to_string());
        let mount = volume.and_then(|v| linux_mount(v)).map(sh_word);
        let mut fix = format!(
            "Move the data off {vol_name}, then recreate partition {number} of {disk} at {} (a multiple of {why}): \
             `parted {disk} rm {number}`, `parted {disk} mkpart primary {}MiB 100%`, then `mkfs.xfs {}`",
            units::binary(start),
            start >> 20,
            sh_word(&dev_path(&p.id)),
        );
        if let Some(m) = mount {
            fix.push_str(&format!(", mount it again at {m}"));
        }
        fix.push_str(&format!(
            " and move the data back: a partition cannot be moved in place. Check the start in \
             512-byte sectors with `cat /sys/class/block/{}/start`.",
            p.id.trim_start_matches("/dev/")
        ));
        return fix;
    }
    let disk = view.disk(&p.disk_id);
    // The disk number diskpart and the Storage cmdlets take; a `\\.\PHYSICALDRIVEn` id carries it.
    let number = disk
        .and_then(|d| d.number)
        .or_else(|| p.disk_id.strip_prefix(r"\\.\PHYSICALDRIVE").and_then(|n| n.parse().ok()));
    let (select, ps_disk) = match number {
        Some(n) => (format!("select disk {n}"), format!("-DiskNumber {n}")),
        None => (
            format!("select disk <the number Get-Disk shows for {}>", p.disk_id),
            format!("-DiskNumber (Get-Disk -UniqueId {}).Number", ps_string(&p.disk_id)),
        ),
    };
    let part = p.number.map_or_else(|| "<partition number>".to_string(), |n| n.to_string());
    let letter = volume.and_then(|v| drive_letter(v));
    let assign = letter.map(|l| format!(", `assign letter={l}`")).unwrap_or_default();
    let ps_letter = letter.map(|l| format!(" -DriveLetter {l}")).unwrap_or_default();
    let mut fix = format!(
        "Move the data off {vol_name}, then recreate partition {part} of disk {} at {} (a multiple of {why}): \
         diskpart `{select}`, `select partition {part}`, `delete partition`, `create partition primary align={}`{assign}; \
         or PowerShell `Remove-Partition {ps_disk} -PartitionNumber {part}` and \
         `New-Partition {ps_disk} -UseMaximumSize -Alignment {start}{ps_letter}`.",
        number.map_or_else(|| p.disk_id.clone(), |n| n.to_string()),
        units::binary(start),
        start / 1024,
    );
    if let Some(v) = volume {
        if letter.is_none()
            && let Some(folder) = v.mount_points.first()
        {
            fix.push_str(&format!(
                " Mount it at its folder again: `Add-PartitionAccessPath {ps_disk} -PartitionNumber {part} -AccessPath {}`.",
                ps_string(folder)
            ));
        }
        fix.push_str(&format!(" Format it with 64 KiB clusters (`{}`)", format_volume(v, "NTFS", 65536)));
    } else {
        fix.push_str(" Format it with 64 KiB clusters (`Format-Volume -AllocationUnitSize 65536`)");
    }
    fix.push_str(&format!(
        " and move the data back: a partition cannot be moved in place. Check the offset in bytes, \
         not with diskpart (it rounds to KiB): `Get-Partition {ps_disk} -PartitionNumber {part} | Select-Object Offset`."
    ));
    fix
}

#[cfg(test)]
mod tests {
    use super::aligned_offset;

    #[test]
    fn aligned_offsets() {
        assert_eq!(aligned_offset(65_536), 1_048_576);
        assert_eq!(aligned_offset(262_144), 1_048_576);
        assert_eq!(aligned_offset(2_097_152), 2_097_152);
        // A 3-disk controller's 192 KiB unit: 3 MiB is the first common multiple.
        assert_eq!(aligned_offset(196_608), 3_145_728);
        assert_eq!(aligned_offset(4096), 1_048_576);
    }
}
