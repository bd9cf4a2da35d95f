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
    let file = open_image(path).map_err(|e| HostError(format!("{shown}: cannot open: {e}")))?;
    let disk_id = path.file_name().map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    let stem = path.file_stem().map_or(disk_id.clone(), |n| n.to_string_lossy().into_owned());
    crate::image::snapshot(&file, &disk_id, host_name.unwrap_or(&stem))
        .map_err(|e| HostError(format!("{shown}: {e}")))
}

/// Opens a disk image (a regular file) or a block device, refusing anything else before reading
/// it: `open` of a named pipe waits for a writer that may never come, and a character device
/// such as `/dev/zero` or a terminal is not a disk.
fn open_image(path: &Path) -> std::io::Result<std::fs::File> {
    let file = spindle_files::open_nonblocking(path)?;
    let meta = file.metadata()?;
    #[cfg(unix)]
    let block_device = std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type());
    #[cfg(not(unix))]
    let block_device = false;
    if !(meta.is_file() || block_device) {
        return Err(std::io::Error::other(format!(
            "{}, not a disk image or block device (images are read at offsets, so they cannot \
             come through a pipe)",
            spindle_files::kind(&meta)
        )));
    }
    spindle_files::set_blocking(&file)?;
    Ok(file)
}
