//! Where a report goes. Always through a temporary file: with `--output` it is renamed over the
//! destination when the run completes, otherwise copied to stdout (or into a device or pipe
//! given as `--output`), so a run that fails on bad input never leaves a partial report, and
//! never leaves yesterday's report looking current.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::errors::UserError;

pub struct Output {
    tmp: BufWriter<NamedTempFile>,
    dest: Dest,
}

enum Dest {
    Stdout,
    /// A regular file (or one to create): the report is renamed over it.
    File(PathBuf),
    /// Something that is not a regular file, such as `/dev/null`, `/dev/stdout` or a named pipe:
    /// it cannot be renamed over (as root, that would replace the device with a file), so the
    /// finished report is copied into it, as to stdout.
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

fn temp_beside(dest: &Path) -> io::Result<NamedTempFile> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    NamedTempFile::new_in(dir)
}

impl Output {
    pub fn new(dest: Option<&Path>) -> Result<Self, UserError> {
        let dest = match dest {
            None => Dest::Stdout,
            Some(d) => destination(d)?,
        };
        let tmp = match &dest {
            Dest::File(d) => temp_beside(d),
            Dest::Stdout | Dest::Stream(_) => NamedTempFile::new(),
        }
        .map_err(|e| UserError::plain(format!("cannot create a temporary report file: {e}")))?;
        Ok(Output { tmp: BufWriter::with_capacity(256 << 10, tmp), dest })
    }

    pub fn writer(&mut self) -> &mut dyn Write {
        &mut self.tmp
    }

    /// Publishes the finished report.
    pub fn commit(self) -> Result<(), UserError> {
        let tmp = self
            .tmp
            .into_inner()
            .map_err(|e| UserError::plain(format!("cannot write the report: {}", e.error())))?;
        match &self.dest {
            Dest::File(dest) => {
                tmp.persist(dest).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {}", dest.display(), e.error))
                })?;
            }
            Dest::Stream(dest) => {
                let mut out = fs::OpenOptions::new().write(true).open(dest).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {e}", dest.display()))
                })?;
                copy_report(&tmp, &mut out, &dest.display().to_string())?;
            }
            Dest::Stdout => copy_report(&tmp, &mut io::stdout().lock(), "stdout")?,
        }
        Ok(())
    }

    /// Abandons the report: the temporary file goes, and so does an older report at the
    /// destination, which would otherwise pass for this run's.
    pub fn abort(self) {
        if let Dest::File(dest) = &self.dest {
            let _ = fs::remove_file(dest);
        }
    }
}

/// Copies the finished report into `out`. A closed pipe (`spindle check … | head`) is the
/// reader's choice, not a failure.
fn copy_report(tmp: &NamedTempFile, out: &mut dyn Write, to: &str) -> Result<(), UserError> {
    let mut report =
        tmp.reopen().map_err(|e| UserError::plain(format!("cannot read back the report: {e}")))?;
    match io::copy(&mut report, out).and_then(|_| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(UserError::plain(format!("cannot write the report to {to}: {e}")))
        }
        _ => Ok(()),
    }
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
