//! Host facts: where each partition starts, the filesystem's cluster size, the stripe geometry
//! under it and the media, read from the machine itself rather than written by hand.
//!
//! Three sources, each producing the facts snapshot's host sections (`disks`, `partitions`,
//! `volumes`, `raid_sets`, ...):
//! - [`image`]: the bytes of a disk image or a raw device (partition tables, boot sectors and
//!   superblocks), with no operating system API at all;
//! - [`linux`]: sysfs, `/proc/self/mountinfo` and statfs on a running Linux host;
//! - [`windows`]: the Windows storage CIM classes (`MSFT_Disk`, `MSFT_Partition`, ...).
//!
//! This crate is separate from the `spindle` binary so that its parsers can be fuzzed and its
//! Windows code cross-built without compiling the plugin host.

pub mod image;
pub mod linux;
pub mod windows;
