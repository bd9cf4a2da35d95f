//! Disks and partitions from sysfs (Documentation/ABI/stable/sysfs-block, ABI/testing/sysfs-dev).
//!
//! - `/sys/block/<disk>` lists whole disks (including `md*`, `dm-*`, `loop*`); each partition is a
//!   subdirectory `/sys/block/<disk>/<part>` holding a `partition` file (its number). Walking
//!   this tree gives each partition's parent disk without resolving symlinks.
//! - `size` and a partition's `start`: 512-byte sectors whatever the logical block size
//!   (block/partitions/core.c; `sector_t` is in 512-byte units), so bytes = value × 512.
//! - `dev`: `major:minor`, joined with mountinfo's third field and dm tables.
//! - `queue/logical_block_size`, `queue/physical_block_size`: bytes.
//! - `queue/rotational`: 1 rotational, 0 not. Recorded as read: virtual disks (virtio, Hyper-V,
//!   VMware, loop devices) commonly report 1 whatever the storage behind them is, and stacked
//!   devices (md, dm) report what the kernel derived from their members. NVMe namespaces
//!   (`nvme*` names) are media `nvme`.
//! - `device/model`: the model string, where the driver provides one (SCSI, ATA, NVMe; not virtio).
//! - Bus: `NVMe` from `device/transport` = `pcie` (other transports, NVMe over fabrics, are
//!   named as such, since a fabric target may be an array); `virtio`, `USB`, `ATA` from the
//!   device path `/sys/block/<disk>` links to. Otherwise absent: a SCSI disk may be a SAN LUN or
//!   a RAID controller's logical drive, and sysfs does not say which.
//!
//! Skipped: devices of size 0 (an unattached loop device, an empty drive) and the memory-backed
//! `ram*`/`zram*` devices, which hold no filesystem a database would use.
//!
//! Not in the facts model, so not collected: `queue/optimal_io_size`, `minimum_io_size`,
//! `read_ahead_kb`, `alignment_offset`.

use std::collections::BTreeMap;
use std::path::Path;

use spindle_core::facts::{Disk, Media, Partition};

use super::read::{self, sectors_to_bytes};
use crate::notes::Uncollected;

/// What sysfs says about one whole disk and its partitions.
#[derive(Debug, Clone)]
pub(crate) struct BlockDisk {
    pub disk: Disk,
    pub partitions: Vec<Partition>,
}

/// `major:minor` → kernel device name, for every disk and partition found.
pub(crate) type DevMap = BTreeMap<(u32, u32), String>;

/// Reads `root/sys/block`. `Err` only when the directory itself cannot be listed.
pub(crate) fn read_disks(root: &Path, notes: &mut Uncollected) -> Result<(Vec<BlockDisk>, DevMap), String> {
    let sys_block = root.join("sys/block");
    let mut disks = Vec::new();
    let mut devs = DevMap::new();
    for name in read::names(&sys_block)? {
        if name.starts_with("ram") || name.starts_with("zram") {
            continue;
        }
        let dir = sys_block.join(&name);
        let fact = |f: &str| format!("disks[{name}].{f}");
        let size = read::number(&dir.join("size"))
            .and_then(|s| sectors_to_bytes(s).ok_or_else(|| format!("size {s} sectors overflows")));
        if size == Ok(0) {
            continue;
        }
        if let Some(d) = notes.take(fact("dev"), read::text(&dir.join("dev")).and_then(|t| parse_dev(&t))) {
            devs.insert(d, name.clone());
        }
        let queue = dir.join("queue");
        let block_size = |file: &str| {
            read::number(&queue.join(file)).and_then(|n| {
                u32::try_from(n)
                    .map_err(|_| format!("{}: {n} does not fit a sector size", queue.join(file).display()))
            })
        };
        let media = if name.starts_with("nvme") {
            Ok(Media::Nvme)
        } else {
            read::text(&queue.join("rotational")).and_then(|t| match t.as_str() {
                "1" => Ok(Media::Hdd),
                "0" => Ok(Media::Ssd),
                other => Err(format!(
                    "{}: expected 0 or 1, read {:?}",
                    queue.join("rotational").display(),
                    read::clip(other)
                )),
            })
        };
        let model = match read::optional_text(&dir.join("device/model")) {
            Ok(m) => m.filter(|m| !m.is_empty()),
            Err(e) => {
                notes.miss(fact("model"), e);
                None
            }
        };
        let disk = Disk {
            id: name.clone(),
            model,
            media: notes.take(fact("media"), media),
            bus: bus(root, &name),
            size_bytes: notes.take(fact("size_bytes"), size),
            logical_sector_bytes: notes.take(fact("logical_sector_bytes"), block_size("logical_block_size")),
            physical_sector_bytes: notes
                .take(fact("physical_sector_bytes"), block_size("physical_block_size")),
            ..Disk::default()
        };
        let partitions = read_partitions(&dir, &name, &mut devs, notes);
        disks.push(BlockDisk { disk, partitions });
    }
    Ok((disks, devs))
}

fn read_partitions(
    disk_dir: &Path,
    disk: &str,
    devs: &mut DevMap,
    notes: &mut Uncollected,
) -> Vec<Partition> {
    let names = match read::names(disk_dir) {
        Ok(n) => n,
        Err(e) => {
            notes.miss(format!("partitions[{disk}*]"), e);
            return vec![];
        }
    };
    let mut out = Vec::new();
    for name in names {
        let dir = disk_dir.join(&name);
        if !dir.join("partition").is_file() {
            continue;
        }
        let fact = |f: &str| format!("partitions[{name}].{f}");
        if let Some(d) = notes.take(fact("dev"), read::text(&dir.join("dev")).and_then(|t| parse_dev(&t))) {
            devs.insert(d, name.clone());
        }
        let bytes = |file: &str| {
            read::number(&dir.join(file))
                .and_then(|s| sectors_to_bytes(s).ok_or_else(|| format!("{file} {s} sectors overflows")))
        };
        let number = read::number(&dir.join("partition"))
            .and_then(|n| u32::try_from(n).map_err(|_| format!("partition number {n} is too large")));
        out.push(Partition {
            id: name.clone(),
            disk_id: disk.to_string(),
            number: notes.take(fact("number"), number),
            offset_bytes: notes.take(fact("offset_bytes"), bytes("start")),
            size_bytes: notes.take(fact("size_bytes"), bytes("size")),
        });
    }
    out
}

/// `major:minor` as in sysfs `dev` files and mountinfo.
pub(crate) fn parse_dev(t: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected major:minor, read {:?}", read::clip(t));
    let (a, b) = t.trim().split_once(':').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

/// The bus, only where sysfs names it unambiguously (see the module docs).
fn bus(root: &Path, name: &str) -> Option<String> {
    if name.starts_with("nvme") {
        let t = read::text(&root.join("sys/block").join(name).join("device/transport")).ok()?;
        return Some(if t == "pcie" { "NVMe".to_string() } else { format!("NVMe over {t}") });
    }
    let link = std::fs::read_link(root.join("sys/block").join(name)).ok()?;
    let starts = |c: &str, prefix: &str| {
        c.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    };
    link.components().find_map(|c| {
        let c = c.as_os_str().to_str()?;
        if starts(c, "virtio") {
            Some("virtio".to_string())
        } else if starts(c, "usb") {
            Some("USB".to_string())
        } else if starts(c, "ata") {
            Some("ATA".to_string())
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_numbers() {
        assert_eq!(parse_dev("259:0\n"), Ok((259, 0)));
        assert!(parse_dev("259").is_err());
        assert!(parse_dev("a:b").is_err());
    }
}
