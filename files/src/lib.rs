//! Opening files spindle did not write (snapshots, packs, inventories, plugins, disk images)
//! without trusting what they are: `open` of a named pipe waits for a writer that may never
//! come, and a device such as `/dev/zero` has no end and says its size is 0. Every path is
//! opened without blocking and judged on the open file (so one swapped for a pipe after it was
//! listed is judged too), and reads stop one byte past a cap whatever the size says.
//!
//! A leaf crate, so that the library, the plugin host and the collectors share one copy: the
//! plugin host cannot depend on the library, and core does no I/O.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Opens `path` for reading without waiting for a writer: a named pipe opens at once (and
/// reads nothing) rather than blocking the run.
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path)
    }
    #[cfg(not(unix))]
    File::open(path)
}

/// Clears the `O_NONBLOCK` of [`open_nonblocking`] once the file is known to be one to read:
/// local file systems ignore it, but a pipe, a slow device or a network or FUSE file system may
/// honour it and end a read early with `EAGAIN`.
pub fn set_blocking(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        fcntl_setfl(file, fcntl_getfl(file)? - OFlags::NONBLOCK)?;
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// Opens a file that must be a regular file, refusing pipes, devices, sockets and directories
/// without blocking on them. The error of a file of another kind reads
/// "not a regular file (a named pipe)".
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other(NotRegular(kind(&meta)).to_string()));
    }
    set_blocking(&file)?;
    Ok((file, meta))
}

/// What a path that is not a regular file is, for an error message: "a named pipe".
pub fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        } else if t.is_char_device() {
            return "a character device";
        } else if t.is_block_device() {
            return "a block device";
        } else if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_file() { "a regular file" } else { "not a file" }
}

/// Whether the open file is a named pipe.
pub fn is_fifo(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NotRegular(&'static str);

impl fmt::Display for NotRegular {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a regular file ({})", self.0)
    }
}

/// Why [`read_regular`] or [`read_bounded`] gave no bytes; each caller words it for its file.
#[derive(Debug)]
pub enum ReadError {
    /// The path is a pipe, device, socket or directory: what [`kind`] says.
    NotRegular(&'static str),
    /// More than the cap: `size_bytes` is the file's size when it said so before reading, `None`
    /// when the cap was found by reading one byte past it.
    TooLarge {
        size_bytes: Option<u64>,
        cap_bytes: u64,
    },
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(kind) => NotRegular(kind).fmt(f),
            ReadError::TooLarge { size_bytes: Some(n), cap_bytes } => {
                write!(f, "the file is {n} bytes, over the {cap_bytes}-byte limit")
            }
            ReadError::TooLarge { size_bytes: None, cap_bytes } => {
                write!(f, "more than {cap_bytes} bytes, over the limit")
            }
            ReadError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

/// At most `cap_bytes` of `r`; more is [`ReadError::TooLarge`], found by reading one byte past
/// the cap rather than trusting a size (`/dev/zero`, pipes and files in /proc have none).
pub fn read_bounded(r: impl Read, cap_bytes: u64) -> Result<Vec<u8>, ReadError> {
    read_into(r, cap_bytes, Vec::new())
}

/// [`read_bounded`] into `bytes`: given room for a regular file's stated size, the read does not
/// grow the buffer a dozen times over (measured: 1.4 % of a fleet check's instructions).
fn read_into(r: impl Read, cap_bytes: u64, mut bytes: Vec<u8>) -> Result<Vec<u8>, ReadError> {
    r.take(cap_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap_bytes {
        return Err(ReadError::TooLarge { size_bytes: None, cap_bytes });
    }
    Ok(bytes)
}

/// The bytes of a regular file of at most `cap_bytes`, read once: a pipe or device is refused
/// without blocking, a file whose size is over the cap is refused unread, and one whose size
/// lies is read only to one byte past the cap.
pub fn read_regular(path: &Path, cap_bytes: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_nonblocking(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(&meta)));
    }
    set_blocking(&file).map_err(ReadError::Io)?;
    if meta.len() > cap_bytes {
        return Err(ReadError::TooLarge { size_bytes: Some(meta.len()), cap_bytes });
    }
    // Within the cap, so the allocation is bounded whatever the size claims.
    let stated = usize::try_from(meta.len()).unwrap_or(0);
    read_into(file, cap_bytes, Vec::with_capacity(stated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_up_to_its_cap_and_refused_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_regular(&p, 5).unwrap(), b"12345");
        match read_regular(&p, 4) {
            Err(ReadError::TooLarge { size_bytes: Some(5), cap_bytes: 4 }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(read_regular(&dir.path().join("missing"), 9), Err(ReadError::Io(_))));
        match read_regular(dir.path(), 9) {
            Err(e @ ReadError::NotRegular("a directory")) => {
                assert_eq!(e.to_string(), "not a regular file (a directory)")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_stream_is_read_to_one_byte_past_the_cap() {
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), b"abc");
        let endless = io::repeat(0);
        match read_bounded(endless, 1024) {
            Err(ReadError::TooLarge { size_bytes: None, cap_bytes: 1024 }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_or_device_is_refused_without_blocking() {
        use rustix::fs::{CWD, FileType, Mode, mknodat};
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        mknodat(CWD, &fifo, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
        // No writer: this would block forever in a plain `open`.
        assert!(matches!(read_regular(&fifo, 9), Err(ReadError::NotRegular("a named pipe"))));
        let e = open_regular(&fifo).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a named pipe)");
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 9),
            Err(ReadError::NotRegular("a character device"))
        ));
        let file = open_nonblocking(&fifo).unwrap();
        assert!(is_fifo(&file.metadata().unwrap()));
    }
}
