//! Filesystem sizes and block size from statvfs(3) (statfs(2) underneath):
//!
//! - `f_frsize`: the fragment size, the unit of `f_blocks`/`f_bfree`/`f_bavail` (since Linux
//!   2.6); `f_bsize`: the "filesystem block size" (statvfs(3)) or "optimal transfer block size"
//!   (statfs(2)). For XFS and ext4 both are the filesystem block size, which is the allocation
//!   unit; `allocation_unit_bytes` is `f_frsize` (what `stat -f -c %S` prints), or `f_bsize`
//!   when a filesystem reports 0 (any field is 0 when undefined for the filesystem).
//! - `size_bytes` = `f_blocks` × `f_frsize`; `free_bytes` = `f_bavail` × `f_frsize`, the space
//!   an unprivileged process such as `mssql` can still use (what `df` shows as available; ext4
//!   keeps 5% more for root by default).
//!
//! statfs reads whatever filesystem is visible at a path, so a mount point hidden under a later
//! mount would report the wrong one: the live implementation also returns the path's `st_dev`,
//! and the collector refuses figures whose device is not the volume's.
//!
//! A captured tree has no statfs: [`FsStats`] lets tests supply the figures ([`TableFs`]).

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// What statvfs reports for a mounted filesystem, plus the device the path is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// `f_bsize`.
    pub block_size: u64,
    /// `f_frsize`.
    pub fragment_size: u64,
    /// `f_blocks`, `f_bfree`, `f_bavail`: counts of `f_frsize` units.
    pub blocks: u64,
    pub blocks_free: u64,
    pub blocks_available: u64,
    /// `major:minor` of `stat(path).st_dev`, when known.
    pub device: Option<(u32, u32)>,
}

impl Stats {
    /// The allocation unit: `f_frsize`, else `f_bsize`; `None` when both are 0.
    pub fn allocation_unit(&self) -> Option<u64> {
        [self.fragment_size, self.block_size].into_iter().find(|n| *n > 0)
    }

    pub fn size_bytes(&self) -> Option<u64> {
        self.blocks.checked_mul(self.allocation_unit()?)
    }

    pub fn free_bytes(&self) -> Option<u64> {
        self.blocks_available.checked_mul(self.allocation_unit()?)
    }
}

/// Filesystem figures for a mount point (an absolute path as in mountinfo).
pub trait FsStats {
    fn stats(&self, mount_point: &Path) -> io::Result<Stats>;
}

/// statvfs(3) and stat(2) on the running host.
#[cfg(target_os = "linux")]
#[derive(Debug, Default, Clone, Copy)]
pub struct LiveFs;

#[cfg(target_os = "linux")]
impl FsStats for LiveFs {
    fn stats(&self, mount_point: &Path) -> io::Result<Stats> {
        let vfs = rustix::fs::statvfs(mount_point)?;
        let dev = std::os::unix::fs::MetadataExt::dev(&std::fs::metadata(mount_point)?);
        Ok(Stats {
            block_size: vfs.f_bsize,
            fragment_size: vfs.f_frsize,
            blocks: vfs.f_blocks,
            blocks_free: vfs.f_bfree,
            blocks_available: vfs.f_bavail,
            device: Some(split_dev(dev)),
        })
    }
}

/// glibc's `dev_t` encoding (`gnu_dev_major`/`gnu_dev_minor`): 12-bit major and 20-bit minor
/// split across the 64 bits.
pub fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// Figures given by mount point, for captured trees and tests; any other path is `NotFound`.
#[derive(Debug, Clone, Default)]
pub struct TableFs(pub BTreeMap<String, Stats>);

impl FsStats for TableFs {
    fn stats(&self, mount_point: &Path) -> io::Result<Stats> {
        let key = mount_point.to_string_lossy();
        self.0.get(key.as_ref()).copied().ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, format!("no statfs figures captured for {key}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures() {
        let s = Stats {
            block_size: 4096,
            fragment_size: 4096,
            blocks: 1000,
            blocks_free: 500,
            blocks_available: 450,
            device: None,
        };
        assert_eq!(
            (s.allocation_unit(), s.size_bytes(), s.free_bytes()),
            (Some(4096), Some(4_096_000), Some(1_843_200))
        );
        let only_bsize = Stats { fragment_size: 0, block_size: 1024, blocks: 2, ..s };
        assert_eq!(only_bsize.allocation_unit(), Some(1024));
        assert_eq!(Stats::default().size_bytes(), None);
    }

    #[test]
    fn dev_t() {
        // makedev(259, 1) and makedev(8, 17) as glibc encodes them.
        assert_eq!(split_dev((259 << 8) | 1), (259, 1));
        assert_eq!(split_dev((8 << 8) | 17), (8, 17));
        assert_eq!(split_dev((1 << 8) | 0xff | (0x100 << 12)), (1, 0x1ff));
    }
}
