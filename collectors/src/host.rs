//! This machine's storage as its operating system reports it (Linux sysfs, Windows storage CIM),
//! or a disk image's or raw device's, as one snapshot.

use std::path::Path;

use spindle_core::facts::Snapshot;

/// Why no host snapshot could be made; the message names the file when there is one.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

/// This machine's host facts.
pub fn this_machine() -> Result<Snapshot, HostError> {
    let result = if cfg!(windows) {
        crate::windows::collect_live().map_err(|e| e.to_string())
    } else {
        crate::linux::collect_live().map_err(|e| e.to_string())
    };
    result.map_err(|e| HostError(format!("host facts: {e}")))
}

/// Host facts read from the bytes of a disk image or a raw device: the partition table, boot
/// sectors and superblocks, with no operating system API. The host is named `host_name`, else
/// for the file.
pub fn image(path: &Path, host_name: Option<&str>) -> Result<Snapshot, HostError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| HostError(format!("{shown}: cannot open: {e}")))?;
    let disk_id = path.file_name().map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    let stem = path.file_stem().map_or(disk_id.clone(), |n| n.to_string_lossy().into_owned());
    crate::image::snapshot(&file, &disk_id, host_name.unwrap_or(&stem))
        .map_err(|e| HostError(format!("{shown}: {e}")))
}
