//! The Linux host collector: disks, partitions, md arrays, LVM, mounted filesystems and the host
//! itself, read from sysfs, procfs and statfs on a running machine.
//!
//! Every file is read under a root directory, so a captured tree (`root/sys/...`,
//! `root/proc/...`, `root/etc/os-release`) can stand in for a live host; statfs, which cannot be
//! captured, comes through [`FsStats`], and device-mapper tables, which are not in sysfs,
//! through [`DmTables`].
//!
//! Where each fact comes from (details in each module):
//!
//! | fact | source | unit conversion |
//! |---|---|---|
//! | disks, partitions | `/sys/block/<disk>[/<part>]`: `size`, `start`, `partition`, `dev` (`block.rs`) | sectors × 512 |
//! | sector sizes, media | `queue/logical_block_size`, `physical_block_size`, `rotational` | bytes; 0/1 |
//! | md RAID | `/sys/block/mdN/md/`: `level`, `chunk_size`, `dev-*/slot`, `slaves/` (`md.rs`) | bytes |
//! | LVM | `/sys/block/dm-N/dm/{name,uuid}`, `slaves/`, `dmsetup table` ([`dm`]) | sectors × 512 |
//! | volumes | `/proc/self/mountinfo` ([`mountinfo`]) | XFS `sunit`/`swidth`: × 512 |
//! | ext4 stripe | the ext4 superblock on `/dev/<name>` ([`ext4`]) | blocks × block size |
//! | allocation unit, size, free | statvfs `f_frsize`, `f_blocks`, `f_bavail` ([`statfs`]) | × `f_frsize` |
//! | host | `/proc/sys/kernel/hostname`, `/etc/os-release`, `/sys/devices/system/cpu/online`, `/proc/meminfo`, DMI (`host.rs`, [`dmi`]) | KiB × 1024 |
//!
//! A fact that cannot be read (a missing or garbled file, a permission error, a mount point
//! statfs cannot reach) is left absent and listed in the collector report's `not_collected`
//! with the reason; nothing is defaulted. Read but not in the facts model, so not reported:
//! `queue/optimal_io_size`, `minimum_io_size`, `read_ahead_kb`.

mod block;
mod collect;
pub mod dm;
pub mod dmi;
pub mod ext4;
mod host;
mod md;
pub mod mountinfo;
mod read;
pub mod statfs;

use std::path::Path;

use spindle_core::facts::Snapshot;

pub use dm::{DmTables, Dmsetup, NoDmTables, TableDm};
#[cfg(target_os = "linux")]
pub use statfs::LiveFs;
pub use statfs::{FsStats, Stats, TableFs};

/// Why no snapshot could be produced at all. Facts that merely could not be read are not
/// errors: they are absent and listed in `not_collected`.
#[derive(Debug, thiserror::Error)]
pub enum LinuxError {
    /// The root has neither `sys/block` nor `proc/self/mountinfo`.
    #[error("not a Linux sysfs/procfs tree: {0}")]
    NotLinux(String),
    /// The host name (required in every snapshot) cannot be read.
    #[error("cannot read the host name: {0}")]
    HostName(String),
    /// `collect_live` on an operating system other than Linux.
    #[error("the Linux collector runs on Linux only")]
    Unsupported,
}

/// Collects the host sections of a snapshot from the tree under `root` (`/` on a live host),
/// with filesystem figures from `fs`. Device-mapper tables come from `dmsetup` when `root` is
/// `/`; under any other root they are recorded as not collected (see [`collect_with`]).
pub fn collect(root: &Path, fs: &dyn FsStats) -> Result<Snapshot, LinuxError> {
    if root == Path::new("/") {
        collect_with(root, fs, &Dmsetup)
    } else {
        let none = NoDmTables(format!(
            "{} is a captured tree: device-mapper tables are not in sysfs and dmsetup would read this host's",
            root.display()
        ));
        collect_with(root, fs, &none)
    }
}

/// [`collect`] with the device-mapper tables from `tables`.
pub fn collect_with(root: &Path, fs: &dyn FsStats, tables: &dyn DmTables) -> Result<Snapshot, LinuxError> {
    collect::collect(root, fs, tables)
}

/// Collects from the running host: root `/`, statvfs, `dmsetup`, and the collection time.
pub fn collect_live() -> Result<Snapshot, LinuxError> {
    #[cfg(target_os = "linux")]
    {
        let mut s = collect(Path::new("/"), &LiveFs)?;
        s.collected_at = Some(crate::now_rfc3339());
        Ok(s)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(LinuxError::Unsupported)
    }
}
