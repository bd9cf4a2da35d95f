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
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let file = open_nonblocking(path)?;
        let t = file.metadata()?.file_type();
        if !(t.is_file() || t.is_block_device()) {
            let what = if t.is_fifo() {
                "a named pipe"
            } else if t.is_char_device() {
                "a character device"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_dir() {
                "a directory"
            } else {
                "not a file"
            };
            return Err(std::io::Error::other(format!(
                "{what}, not a disk image or block device (images are read at offsets, so they \
                 cannot come through a pipe)"
            )));
        }
        set_blocking(&file)?;
        Ok(file)
    }
    #[cfg(not(unix))]
    std::fs::File::open(path)
}

/// Opens for reading without waiting for a writer.
#[cfg(target_os = "linux")]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

/// Without the `libc` constant here, the type is checked before opening; a file swapped for a
/// pipe in between is the one case left to block.
#[cfg(all(unix, not(target_os = "linux")))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::metadata(path)?.file_type();
    if t.is_fifo() || t.is_socket() {
        return Err(std::io::Error::other("a named pipe or socket, not a disk image or block device"));
    }
    std::fs::File::open(path)
}

/// Clears `O_NONBLOCK` once the file is known to be an image or a disk, so that no read of a
/// slow device or network file system ends early with `EAGAIN`.
#[cfg(target_os = "linux")]
fn set_blocking(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns; F_GETFL and F_SETFL take no pointers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(all(unix, not(target_os = "linux")))]
fn set_blocking(_: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}
