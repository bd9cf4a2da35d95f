//! Collectors: facts read from the machine and the server rather than written by hand. They
//! gather; they never judge (that is the engine's job) and know nothing of the command line.
//!
//! Each produces sections of a facts snapshot, and records what it could not read in the
//! snapshot's `collectors[].not_collected`, never as a value:
//! - [`image`]: the bytes of a disk image or a raw device (partition tables, boot sectors and
//!   superblocks), with no operating system API at all;
//! - [`linux`]: sysfs, `/proc/self/mountinfo` and statfs on a running Linux host;
//! - [`windows`]: the Windows storage CIM classes (`MSFT_Disk`, `MSFT_Partition`, ...);
//! - [`sql`]: a SQL Server's files, volumes and I/O counters over TDS (feature `sql`, default);
//! - [`host`]: this machine, or an image, as one snapshot;
//! - [`notes`]: the list every collector keeps of what it could not read, which becomes its
//!   `collectors[]` report;
//! - [`inventory`]: the SQL Servers to collect from, as an inventory file lists them, and
//!   [`target`]: how one server is named.
//!
//! The host parsers and the inventory are fuzzed (`fuzz/`), which builds this crate
//! without `sql`.

pub mod host;
pub mod image;
pub mod inventory;
pub mod linux;
pub mod notes;
#[cfg(feature = "sql")]
pub mod sql;
pub mod target;
pub mod windows;

/// The current time as RFC 3339 UTC, for `collected_at`.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    spindle_core::date::rfc3339_utc(secs)
}
