//! Assembles the snapshot from the readers: disks and partitions ([`super::block`]), md arrays
//! ([`super::md`]), device-mapper ([`super::dm`]), mounts ([`super::mountinfo`]), filesystem
//! figures ([`super::statfs`], [`super::ext4`]) and the host ([`super::host`]).
//!
//! Volumes: one per block device with a mounted filesystem, keyed by the device mountinfo names
//! (`major:minor`, matched against sysfs `dev` files; for filesystems such as btrfs that report
//! an anonymous device, the mount source `/dev/NAME` when NAME is a block device in sysfs). The
//! id is `/dev/<kernel name>` (`/dev/sdb1`, `/dev/md0`, `/dev/dm-3`). Every mount of the device
//! (bind mounts, the same filesystem mounted twice) is one of its mount points; options come
//! from the mount of the filesystem's root (mountinfo field 4 = `/`), else the first mount.
//! Mounts of anything that is not a block device in sysfs are not volumes: proc, sysfs, tmpfs,
//! devtmpfs, overlay, cgroup, FUSE and network filesystems (NFS, CIFS), and filesystems on the
//! skipped memory-backed devices.

use std::collections::BTreeMap;
use std::path::Path;

use spindle_core::facts::{Backing, CloudProvider, Disk, SCHEMA_VERSION, Snapshot, Volume};

use super::block::{self, DevMap};
use super::dm::{self, DmTables};
use super::mountinfo::{self, MountEntry};
use super::statfs::FsStats;
use super::{LinuxError, ext4, host, md, read};
use crate::notes::Uncollected;

pub(crate) fn collect(root: &Path, fs: &dyn FsStats, tables: &dyn DmTables) -> Result<Snapshot, LinuxError> {
    let mountinfo_path = root.join("proc/self/mountinfo");
    if !root.join("sys/block").is_dir() && !mountinfo_path.is_file() {
        return Err(LinuxError::NotLinux(format!(
            "{} has neither sys/block nor proc/self/mountinfo",
            root.display()
        )));
    }
    let mut notes = Uncollected::default();
    let host = host::read_host(root, &mut notes)?;

    // Disks, partitions, md arrays, dm backings.
    let mut devs = DevMap::new();
    let mut disk_backing: BTreeMap<String, Option<Backing>> = BTreeMap::new();
    let (disks, partitions, raid_sets) = match block::read_disks(root, &mut notes) {
        Ok((found, map)) => {
            devs = map;
            let mut disks = Vec::new();
            let mut partitions = Vec::new();
            let mut raids = Vec::new();
            for b in found {
                let mut disk: Disk = b.disk;
                if let Some(r) = md::read_array(root, &disk.id, &mut notes) {
                    disk.backed_by = Some(Backing::RaidSet(r.id.clone()));
                    raids.push(r);
                } else if let Some(backing) = dm::read_backing(root, &disk.id, &devs, tables, &mut notes) {
                    disk.backed_by = backing;
                }
                disk_backing.insert(disk.id.clone(), disk.backed_by.clone());
                partitions.extend(b.partitions);
                disks.push(disk);
            }
            (Some(disks), Some(partitions), Some(raids))
        }
        Err(e) => {
            for f in ["disks", "partitions", "raid_sets"] {
                notes.miss(f, e.clone());
            }
            (None, None, None)
        }
    };
    let partition_ids: BTreeMap<&str, ()> =
        partitions.iter().flatten().map(|p| (p.id.as_str(), ())).collect();

    // Volumes.
    let volumes = match read::text(&mountinfo_path) {
        Ok(text) => {
            let (entries, bad) = mountinfo::parse(&text);
            for b in bad {
                notes.miss(
                    "volumes",
                    format!("{} line {}: {}", mountinfo_path.display(), b.line_no, b.reason),
                );
            }
            let mut vols = Vec::new();
            for (name, group) in group_by_device(&entries, &devs) {
                let backed_by = if partition_ids.contains_key(name.as_str()) {
                    Some(Backing::Partitions(vec![name.clone()]))
                } else {
                    disk_backing.get(&name).cloned().flatten()
                };
                vols.push(volume(root, &name, &group, backed_by, fs, &mut notes));
            }
            Some(vols)
        }
        Err(e) => {
            notes.miss("volumes", e);
            None
        }
    };
    if matches!(host.cloud_provider, Some(CloudProvider::Azure | CloudProvider::Aws | CloudProvider::Gcp)) {
        notes.miss(
            "volumes[].temp_disk",
            "the Linux collector cannot tell a cloud VM's local temporary disk from sysfs",
        );
    }

    Ok(Snapshot {
        schema_version: SCHEMA_VERSION,
        collected_at: None,
        host,
        collectors: vec![notes.report("linux")],
        disks,
        partitions,
        volumes,
        // Storage Spaces exist only on Windows: looked for, and none (an absent section would
        // read as "not collected" and leave its checks unresolved forever).
        storage_pools: Some(vec![]),
        virtual_disks: Some(vec![]),
        raid_sets,
        sql_instances: None,
    })
}

/// Mount entries grouped by the block device they are on, in the order devices first appear.
fn group_by_device<'a>(entries: &'a [MountEntry], devs: &DevMap) -> Vec<(String, Vec<&'a MountEntry>)> {
    let mut out: Vec<(String, Vec<&MountEntry>)> = Vec::new();
    for e in entries {
        let name = devs.get(&(e.major, e.minor)).cloned().or_else(|| {
            let n = e.source.strip_prefix("/dev/")?;
            devs.values().find(|v| *v == n).cloned()
        });
        let Some(name) = name else { continue };
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, g)) => g.push(e),
            None => out.push((name, vec![e])),
        }
    }
    out
}

fn volume(
    root: &Path,
    name: &str,
    group: &[&MountEntry],
    backed_by: Option<Backing>,
    fs: &dyn FsStats,
    notes: &mut Uncollected,
) -> Volume {
    let id = format!("/dev/{name}");
    let fact = |f: &str| format!("volumes[{id}].{f}");
    let primary = group.iter().find(|e| e.root == "/").unwrap_or(&group[0]);
    let mut mount_points: Vec<String> = Vec::new();
    for e in group {
        if !mount_points.contains(&e.mount_point) {
            mount_points.push(e.mount_point.clone());
        }
    }

    // statfs through the first mount point that answers for this device.
    let mut errors = Vec::new();
    let mut stats = None;
    for e in group {
        match fs.stats(Path::new(&e.mount_point)) {
            Ok(s) if s.device.is_none_or(|d| d == (e.major, e.minor)) => {
                stats = Some(s);
                break;
            }
            Ok(s) => errors.push(format!(
                "{} shows device {}:{}, not the volume's {}:{} (another mount covers it)",
                e.mount_point,
                s.device.map_or(0, |d| d.0),
                s.device.map_or(0, |d| d.1),
                e.major,
                e.minor
            )),
            Err(err) => errors.push(format!("statfs {}: {err}", e.mount_point)),
        }
    }
    let (allocation_unit_bytes, size_bytes, free_bytes) = match stats {
        Some(s) => {
            let unit = s.allocation_unit();
            if unit.is_none() {
                notes.miss(fact("allocation_unit_bytes"), "statfs reports f_frsize and f_bsize as 0");
            }
            (unit, s.size_bytes(), s.free_bytes())
        }
        None => {
            let reason = errors.join("; ");
            for f in ["allocation_unit_bytes", "size_bytes", "free_bytes"] {
                notes.miss(fact(f), reason.clone());
            }
            (None, None, None)
        }
    };

    // The filesystem's own stripe geometry.
    let (mut unit, mut width) = (None, None);
    match primary.fs_type.as_str() {
        "xfs" => {
            let (u, w) = mountinfo::xfs_stripe(primary);
            unit = notes.take(fact("fs_stripe_unit_bytes"), u).flatten();
            width = notes.take(fact("fs_stripe_width_bytes"), w).flatten();
        }
        "ext4" => {
            let mount_stripe = primary.super_option("stripe").and_then(|s| s.parse::<u64>().ok());
            match ext4::read_superblock(root, name) {
                Ok(sb) => (unit, width) = ext4::geometry(&sb, mount_stripe),
                Err(e) if mount_stripe.is_some() => {
                    let reason = format!(
                        "mountinfo shows stripe={} (filesystem blocks), which is the stripe width or, when none is set, the stride; the superblock that says which cannot be read: {e}",
                        mount_stripe.unwrap_or(0)
                    );
                    notes.miss(fact("fs_stripe_unit_bytes"), reason.clone());
                    notes.miss(fact("fs_stripe_width_bytes"), reason);
                }
                // No `stripe=`: the allocator has no stripe, so neither is set.
                Err(_) => {}
            }
        }
        _ => {}
    }

    Volume {
        id,
        mount_points: mount_points.clone(),
        filesystem: Some(primary.fs_type.clone()),
        allocation_unit_bytes,
        size_bytes,
        free_bytes,
        os_volume: Some(mount_points.iter().any(|m| m == "/")),
        fs_stripe_unit_bytes: unit,
        fs_stripe_width_bytes: width,
        mount_options: Some(primary.all_options()),
        backed_by,
        ..Volume::default()
    }
}
