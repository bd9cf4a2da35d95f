//! The fix ALN001, ALN002 and ALN004 share: recreate this partition, on this disk, at an offset
//! that is a multiple of what it must be aligned to, then give its volume back its letter or
//! folder and its 64 KiB clusters.

use spindle_core::facts::{OsFamily, Partition, RaidKind};
use spindle_core::units;
use spindle_core::view::{HostView, Located};

use crate::commands::{dev_path, drive_letter, format_volume, is_linux, linux_mount, ps_string, sh_word};

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
    let volume = view.volume_of_partition(p);
    let linux = view.host.os_family == Some(OsFamily::Linux)
        || volume.is_some_and(|v| is_linux(view, v))
        || p.disk_id.starts_with("/dev/");
    let vol_name = volume.map_or_else(|| format!("partition {}", p.id), |v| v.display_name().to_string());
    // The running system's volume cannot be emptied in place: it is realigned at reinstall.
    if let Some(v) = volume.filter(|v| crate::volume_os::is_os_volume(view, v)) {
        return format!(
            "{} holds the running operating system: it cannot be emptied and recreated in place. \
             Realign it (partition start at {}, a multiple of {why}) when the server is reinstalled or \
             migrated: Windows Setup since Windows Server 2008 and current Linux installers start \
             partitions at 1 MiB. Until then, keep database files off it.",
            v.display_name(),
            units::binary(start)
        );
    }
    if let Some(md) = md_array_of(view, p) {
        return md_member(p, md, start, why);
    }
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

/// The md RAID set `p` is a member of.
fn md_array_of<'v>(view: &'v HostView, p: &Partition) -> Option<&'v Located<spindle_core::facts::RaidSet>> {
    view.raid_sets.iter().flatten().find(|r| {
        r.kind == Some(RaidKind::Md)
            && r.member_ids.iter().flatten().any(|m| m == &p.id || dev_path(m) == dev_path(&p.id))
    })
}

/// An md member is never formatted (the filesystem is on the array): it is failed out,
/// recreated aligned, added back and resynced, one member at a time. A RAID 0 array has no
/// redundancy to resync from, so it is rebuilt whole.
fn md_member(p: &Partition, md: &spindle_core::facts::RaidSet, start: u64, why: &str) -> String {
    let array = sh_word(&dev_path(&md.id));
    let member = sh_word(&dev_path(&p.id));
    let disk = sh_word(&dev_path(&p.disk_id));
    let number = p.number.map_or_else(|| "<partition number>".to_string(), |n| n.to_string());
    let level = md.level.as_deref().unwrap_or("");
    if level.eq_ignore_ascii_case("raid0") || level.eq_ignore_ascii_case("linear") {
        return format!(
            "{member} is a member of {array}, a {level} array with no redundancy: no member can be \
             taken out. Back up what is on {array}, recreate every member partition at {} (a \
             multiple of {why}), recreate the array (`mdadm --create`), make its filesystem on \
             {array} and restore. Never format a member: the filesystem is on the array.",
            units::binary(start)
        );
    }
    format!(
        "{member} is a member of md RAID set {array}: fail it out, recreate it at {} (a multiple of \
         {why}), add it back and let the array resync, one member at a time: `mdadm {array} --fail \
         {member} --remove {member}`, `parted {disk} rm {number}`, `parted -a none {disk} mkpart \
         primary {}MiB 100%`, `parted {disk} set {number} raid on`, `mdadm {array} --add {member}`, \
         then `mdadm --wait {array}` (progress in `/proc/mdstat`) before the next member. Never \
         format a member: the filesystem is on {array}. The new partition starts later and is \
         smaller: check it still holds the array's Used Dev Size (`mdadm --detail {array}`), or \
         shrink the array first (`mdadm --grow {array} --size`). The array runs degraded until the \
         resync ends: do it with a verified backup, in a quiet period. Check the start in 512-byte \
         sectors with `cat /sys/class/block/{}/start`.",
        units::binary(start),
        start >> 20,
        sh_word(p.id.trim_start_matches("/dev/")),
    )
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
