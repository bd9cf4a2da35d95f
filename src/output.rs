//! Where a report goes. Always through a temporary file: with `--output` it is renamed over the
//! destination when the run completes, otherwise copied to stdout, so a run that fails on bad
//! input never leaves a partial report, and never leaves yesterday's report looking current.

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

impl Output {
    pub fn new(dest: Option<&Path>) -> Result<Self, UserError> {
        let dest = match dest {
            None => Dest::Stdout,
            Some(d) => match fs::metadata(d) {
                Ok(m) if !m.is_file() && !m.is_dir() => Dest::Stream(d.to_path_buf()),
                // Through a symbolic link, the file it points to gets the report; the link stays.
                Ok(m) if m.is_file() => Dest::File(fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf())),
                Ok(_) => {
                    return Err(UserError::plain(format!(
                        "{}: is a directory; --output takes a file name",
                        d.display()
                    )));
                }
                Err(_) => Dest::File(d.to_path_buf()),
            },
        };
        let tmp = match &dest {
            Dest::File(d) => {
                let dir = d.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                NamedTempFile::new_in(dir)
            }
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
        let reopen = |tmp: &NamedTempFile| {
            tmp.reopen().map_err(|e| UserError::plain(format!("cannot read back the report: {e}")))
        };
        match &self.dest {
            Dest::File(dest) => {
                tmp.persist(dest).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {}", dest.display(), e.error))
                })?;
            }
            Dest::Stream(dest) => {
                let fail = |e: io::Error| {
                    UserError::plain(format!("{}: cannot write the report: {e}", dest.display()))
                };
                let mut out = fs::OpenOptions::new().write(true).open(dest).map_err(fail)?;
                match io::copy(&mut reopen(&tmp)?, &mut out).and_then(|_| out.flush()) {
                    Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return Err(fail(e)),
                    _ => {}
                }
            }
            Dest::Stdout => {
                let mut stdout = io::stdout().lock();
                // A closed pipe (`spindle check … | head`) is the reader's choice, not a failure.
                match io::copy(&mut reopen(&tmp)?, &mut stdout).and_then(|_| stdout.flush()) {
                    Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                        return Err(UserError::plain(format!("cannot write the report to stdout: {e}")));
                    }
                    _ => {}
                }
            }
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

/// Writes `bytes` to `path` through a temporary file beside it: readers see the old file or the
/// whole new one, never half of it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), UserError> {
    let fail = |e: &dyn std::fmt::Display| UserError::plain(format!("{}: cannot write: {e}", path.display()));
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = NamedTempFile::new_in(dir).map_err(|e| fail(&e))?;
    tmp.write_all(bytes).and_then(|()| tmp.flush()).map_err(|e| fail(&e))?;
    tmp.persist(path).map_err(|e| fail(&e.error))?;
    Ok(())
}
