//! Windows storage facts from CIM/WMI: disks, partitions, volumes, Storage Spaces pools and
//! virtual disks, and the physical drives under them.
//!
//! Two halves:
//! - [`map`]: the rows of the CIM classes ([`WmiRows`], plain structs named and shaped like the
//!   classes) → a facts [`Snapshot`](spindle_core::facts::Snapshot). Pure, and tested on every
//!   platform with rows shaped like the documented classes.
//! - [`collect_live`]: on Windows, reads those rows through the `wmi` crate from
//!   `ROOT\Microsoft\Windows\Storage` (Windows 8 / Server 2012 and later), falling back to the
//!   legacy `root\cimv2` classes when that namespace is missing, then calls [`map`]. Elsewhere
//!   it returns [`WindowsError::NotWindows`].
//!
//! Sources for every property and its unit are in [`rows`]: the MSFT_* class pages of
//! MicrosoftDocs/windows-driver-docs (`windows-driver-docs-pr/storage/msft-<class>.md`) and the
//! Win32_* pages of MicrosoftDocs/win32 (`desktop-src/CIMWin32Prov/`). The volume id is the
//! volume GUID path `\\?\Volume{…}\` as `sys.dm_os_volume_stats.volume_id` reports it
//! (MicrosoftDocs/win32 `desktop-src/FileIO/naming-a-volume.md`), so that SQL Server facts join
//! on it; mount points hold drive letter roots and mounted folders alike, so a volume with no
//! drive letter (a mounted folder, a cluster shared volume under `C:\ClusterStorage\`) is there.
//!
//! A query that fails loses only its own facts: the section or field is absent and the WMI error
//! is its `not_collected` reason. Values the classes document as "unknown" (MediaType 0,
//! SpindleSpeed 0xFFFFFFFF, AllocationUnitSize 0) are never turned into a guess.

mod map;
pub mod rows;

#[cfg(windows)]
mod live;

#[cfg(test)]
mod tests;

pub use map::{COLLECTOR, bus_name, map, volume_guid_path};
pub use rows::*;

use spindle_core::facts::Snapshot;

/// Why the live collection could not produce a snapshot at all. Failures of single queries are
/// not errors: they become `not_collected` entries in the snapshot.
#[derive(Debug, thiserror::Error)]
pub enum WindowsError {
    /// Called on a platform other than Windows.
    #[error("the Windows storage collector runs only on Windows")]
    NotWindows,
    /// Not even `root\cimv2` could be opened (COM or WMI unavailable, access denied).
    #[error("cannot connect to WMI namespace {namespace}: {message}")]
    Connect { namespace: String, message: String },
}

/// Reads this machine's storage facts through WMI.
///
/// On Windows: connects to `ROOT\Microsoft\Windows\Storage` (and `root\cimv2`), queries each
/// class, and maps the rows with [`map`]. Fails only when `root\cimv2` cannot be opened at all.
#[cfg(windows)]
pub fn collect_live() -> Result<Snapshot, WindowsError> {
    live::collect().map(|rows| map(&rows))
}

/// Reads this machine's storage facts through WMI: on this platform, always
/// [`WindowsError::NotWindows`].
#[cfg(not(windows))]
pub fn collect_live() -> Result<Snapshot, WindowsError> {
    Err(WindowsError::NotWindows)
}

/// The raw rows [`collect_live`] maps, for dumping a machine's CIM view as a test fixture.
#[cfg(windows)]
pub fn collect_rows() -> Result<WmiRows, WindowsError> {
    live::collect()
}

/// The raw rows [`collect_live`] maps: on this platform, always [`WindowsError::NotWindows`].
#[cfg(not(windows))]
pub fn collect_rows() -> Result<WmiRows, WindowsError> {
    Err(WindowsError::NotWindows)
}
