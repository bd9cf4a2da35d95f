//! Host facts for `spindle collect host` and `spindle check --local`: this machine's storage as
//! its operating system reports it (Linux sysfs, Windows storage CIM).

use spindle_core::facts::Snapshot;

use crate::errors::UserError;

/// This machine's host facts.
pub fn this_machine() -> Result<Snapshot, UserError> {
    let result = if cfg!(windows) {
        spindle_hostfacts::windows::collect_live().map_err(|e| e.to_string())
    } else {
        spindle_hostfacts::linux::collect_live().map_err(|e| e.to_string())
    };
    result.map_err(|e| UserError::plain(format!("host facts: {e}")))
}

/// Host facts read from the bytes of a disk image or a raw device: the partition table, boot
/// sectors and superblocks, with no operating system API. The host is named `host_name`, else
/// for the file.
pub fn image(path: &std::path::Path, host_name: Option<&str>) -> Result<Snapshot, UserError> {
    let shown = path.display().to_string();
    let file =
        std::fs::File::open(path).map_err(|e| UserError::plain(format!("{shown}: cannot open: {e}")))?;
    let disk_id = path.file_name().map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    let stem = path.file_stem().map_or(disk_id.clone(), |n| n.to_string_lossy().into_owned());
    spindle_hostfacts::image::snapshot(&file, &disk_id, host_name.unwrap_or(&stem))
        .map_err(|e| UserError::plain(format!("{shown}: {e}")))
}
