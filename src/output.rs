//! Where a report goes. To a file (`--output`): through a temporary file beside it, renamed over
//! the destination when the run completes, so a run that fails on bad input never leaves a
//! partial report, and never leaves yesterday's report looking current. To stdout, a device or
//! a pipe: written as the run goes, since none can be replaced whole and staging the report
//! elsewhere would make the run depend on that space (`$TMPDIR` full, missing, or RAM-backed).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::errors::UserError;

pub struct Output {
    sink: BufWriter<Sink>,
    dest: Dest,
}

enum Dest {
    Stdout,
    /// A regular file (or one to create): the report is renamed over it.
    File(PathBuf),
    /// Something that is not a regular file, such as `/dev/null`, `/dev/stdout` or a named pipe:
    /// it cannot be renamed over (as root, that would replace the device with a file), so the
    /// report is written into it, as to stdout.
    Stream(PathBuf),
}

/// Where `path` sends a report or snapshot.
fn destination(path: &Path) -> Result<Dest, UserError> {
    // `-o -`: standard output, as most tools read it.
    if path.as_os_str() == "-" {
        return Ok(Dest::Stdout);
    }
    // `/dev/stdout` or `/proc/self/fd/1` redirected to a file resolve to that file, which must
    // not be renamed over behind the shell's back: whatever sits there is written into.
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return Ok(Dest::Stream(path.to_path_buf()));
    }
    Ok(match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(UserError::plain(format!(
                "{}: is a directory; expected a file name",
                path.display()
            )));
        }
        // Through a symbolic link, the file it points to gets the output; the link stays.
        Ok(m) if m.is_file() => Dest::File(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())),
        Ok(_) => Dest::Stream(path.to_path_buf()),
        Err(_) => Dest::File(path.to_path_buf()),
    })
}

/// Where the report's bytes go while the run lasts.
enum Sink {
    /// A temporary file beside the destination, and the destination.
    Staged(NamedTempFile, PathBuf),
    /// Stdout or a stream. After the reader closes it (`spindle check … | head`), the rest is
    /// dropped: that is the reader's choice, not a failure, and the run still ends with the
    /// exit status of its findings.
    Direct { out: Box<dyn Write>, closed: bool },
}

impl Sink {
    fn direct(out: Box<dyn Write>) -> Sink {
        Sink::Direct { out, closed: false }
    }
}

fn unless_closed(closed: &mut bool, r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            *closed = true;
            Ok(())
        }
        r => r,
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Staged(tmp, _) => tmp.write(buf),
            Sink::Direct { closed: true, .. } => Ok(buf.len()),
            Sink::Direct { out, closed } => {
                let r = out.write_all(buf);
                unless_closed(closed, r).map(|()| buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Staged(tmp, _) => tmp.flush(),
            Sink::Direct { closed: true, .. } => Ok(()),
            Sink::Direct { out, closed } => {
                let r = out.flush();
                unless_closed(closed, r)
            }
        }
    }
}

impl Output {
    pub fn new(dest: Option<&Path>) -> Result<Self, UserError> {
        let dest = match dest {
            None => Dest::Stdout,
            Some(d) => destination(d)?,
        };
        let sink = match &dest {
            Dest::File(d) => Sink::Staged(
                temp_beside(d).map_err(|e| {
                    UserError::plain(format!("{}: cannot create a temporary report file: {e}", d.display()))
                })?,
                d.clone(),
            ),
            Dest::Stream(d) => {
                Sink::direct(Box::new(fs::OpenOptions::new().write(true).open(d).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {e}", d.display()))
                })?))
            }
            Dest::Stdout => Sink::direct(Box::new(io::stdout())),
        };
        Ok(Output { sink: BufWriter::with_capacity(256 << 10, sink), dest })
    }

    pub fn writer(&mut self) -> &mut dyn Write {
        &mut self.sink
    }

    /// Publishes the finished report.
    pub fn commit(self) -> Result<(), UserError> {
        let to = match &self.dest {
            Dest::Stdout => "stdout".to_string(),
            Dest::File(d) | Dest::Stream(d) => d.display().to_string(),
        };
        let sink = self
            .sink
            .into_inner()
            .map_err(|e| UserError::plain(format!("{to}: cannot write the report: {}", e.error())))?;
        match sink {
            Sink::Staged(tmp, dest) => tmp.persist(dest).map(drop).map_err(|e| e.error),
            Sink::Direct { mut out, mut closed } => {
                let r = out.flush();
                unless_closed(&mut closed, r)
            }
        }
        .map_err(|e| UserError::plain(format!("{to}: cannot write the report: {e}")))
    }

    /// Abandons the report: the temporary file goes, and so does an older report at the
    /// destination, which would otherwise pass for this run's. What went to stdout or a stream
    /// stays there, followed by the error.
    pub fn abort(self) {
        if let Dest::File(dest) = &self.dest {
            let _ = fs::remove_file(dest);
        }
    }
}

fn temp_beside(dest: &Path) -> io::Result<NamedTempFile> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    NamedTempFile::new_in(dir)
}

/// Writes `bytes` to `path` through a temporary file beside it: readers see the old file or the
/// whole new one, never half of it. A device or pipe (`/dev/stdout`, a named pipe) is written
/// into instead.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), UserError> {
    let fail = |e: &dyn std::fmt::Display| UserError::plain(format!("{}: cannot write: {e}", path.display()));
    match destination(path)? {
        Dest::File(file) => {
            let mut tmp = temp_beside(&file).map_err(|e| fail(&e))?;
            tmp.write_all(bytes).and_then(|()| tmp.flush()).map_err(|e| fail(&e))?;
            tmp.persist(&file).map_err(|e| fail(&e.error))?;
        }
        Dest::Stream(_) => {
            let mut out = fs::OpenOptions::new().write(true).open(path).map_err(|e| fail(&e))?;
            out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| fail(&e))?;
        }
        Dest::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| fail(&e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn snapshots_go_into_pipes_and_through_links_without_replacing_them() {
        let dir = tempfile::TempDir::new().unwrap();
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"{\"schema_version\": 1}").unwrap();
        assert_eq!(reader.join().unwrap(), b"{\"schema_version\": 1}");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

        let target = dir.path().join("target.json");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");

        // /dev/null stays a device.
        write_atomically(Path::new("/dev/null"), b"x").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());

        let e = write_atomically(dir.path(), b"x").unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);
    }
}
