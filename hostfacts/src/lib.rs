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

/// The current time as RFC 3339 UTC, for `collected_at`.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    spindle_core::date::rfc3339_utc(secs)
}
