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
    dest: Option<PathBuf>,
}

impl Output {
    pub fn new(dest: Option<&Path>) -> Result<Self, UserError> {
        let tmp = match dest {
            Some(d) => {
                let dir = d.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                NamedTempFile::new_in(dir)
            }
            None => NamedTempFile::new(),
        }
        .map_err(|e| UserError::plain(format!("cannot create a temporary report file: {e}")))?;
        Ok(Output { tmp: BufWriter::with_capacity(256 << 10, tmp), dest: dest.map(Path::to_path_buf) })
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
            Some(dest) => {
                tmp.persist(dest).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {}", dest.display(), e.error))
                })?;
            }
            None => {
                let mut f = tmp
                    .reopen()
                    .map_err(|e| UserError::plain(format!("cannot read back the report: {e}")))?;
                let mut stdout = io::stdout().lock();
                // A closed pipe (`spindle check … | head`) is the reader's choice, not a failure.
                match io::copy(&mut f, &mut stdout).and_then(|_| stdout.flush()) {
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
        if let Some(dest) = &self.dest {
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
