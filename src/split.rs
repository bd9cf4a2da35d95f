//! `--split-by host DIR`: where the per-host SARIF logs go. Each log is written into a staging
//! directory inside DIR as `<stem>.sarif.part`, and all of them are renamed into DIR as
//! `<stem>.sarif` when the run completes: a run that fails publishes none, and a run killed
//! half-way leaves only `.part` files in a hidden directory, which no uploader takes for SARIF;
//! one interrupted by SIGINT or SIGTERM leaves nothing.
//!
//! DIR must hold no `.sarif` file when the run starts: a log left from an earlier run, of a host
//! no longer checked, would be uploaded with this run's logs as if it were current.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use spindle_report::sarif_split::SplitFiles;

use crate::errors::UserError;
use crate::signals::RemoveOnInterrupt;

const STAGED: &str = ".sarif.part";

pub struct SplitDir {
    dir: PathBuf,
    staging: tempfile::TempDir,
    /// Removes the staging directory on SIGINT or SIGTERM, as `-o`'s temporary file is.
    /// Declared after `staging`, so that the directory is removed before it is forgotten.
    _interrupt: RemoveOnInterrupt,
    written: usize,
}

impl SplitDir {
    /// Creates DIR if need be, refuses one that holds SARIF logs, and stages inside it.
    pub fn new(dir: &Path) -> Result<SplitDir, UserError> {
        let fail = |e: io::Error| UserError::plain(format!("{}: {e}", dir.display()));
        fs::create_dir_all(dir).map_err(fail)?;
        let mut stale = 0usize;
        let mut first = None;
        for entry in fs::read_dir(dir).map_err(fail)? {
            let entry = entry.map_err(fail)?;
            let name = entry.file_name();
            if name.to_string_lossy().ends_with(".sarif") {
                stale += 1;
                first.get_or_insert(name);
            }
        }
        if let Some(first) = first {
            return Err(UserError::plain(format!(
                "{}: holds {stale} SARIF log(s) of an earlier run ({}): empty the directory or choose \
                 another, so that no stale log is uploaded with this run's",
                dir.display(),
                spindle_core::untrusted::name(&first.to_string_lossy())
            )));
        }
        let staging = tempfile::Builder::new().prefix(".spindle-split-").tempdir_in(dir).map_err(fail)?;
        let interrupt = RemoveOnInterrupt::dir(staging.path());
        Ok(SplitDir { dir: dir.to_path_buf(), staging, _interrupt: interrupt, written: 0 })
    }

    /// Publishes every log into DIR; returns how many.
    pub fn commit(self) -> Result<usize, UserError> {
        let fail = |p: &Path, e: io::Error| UserError::plain(format!("{}: {e}", p.display()));
        let staging = self.staging.path();
        for entry in fs::read_dir(staging).map_err(|e| fail(staging, e))? {
            let entry = entry.map_err(|e| fail(staging, e))?;
            let name = entry.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(STAGED)) else { continue };
            let dest = self.dir.join(format!("{stem}.sarif"));
            fs::rename(entry.path(), &dest).map_err(|e| fail(&dest, e))?;
        }
        Ok(self.written)
    }
}

impl SplitFiles for &mut SplitDir {
    type File = BufWriter<File>;

    fn create(&mut self, stem: &str) -> io::Result<(Self::File, String)> {
        // The staging directory is this run's alone, and DIR held no log: a name free here is
        // free in DIR. Stems come from names alone and differ as names do (lowercase), so a
        // stem is taken only by the same name twice (a host and a server not collected): `~2`
        // is no other name's stem.
        for n in 1usize.. {
            let name = if n == 1 { stem.to_string() } else { format!("{stem}~{n}") };
            let path = self.staging.path().join(format!("{name}{STAGED}"));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    self.written += 1;
                    return Ok((BufWriter::with_capacity(256 << 10, file), name));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
            }
        }
        unreachable!("a free name among usize::MAX")
    }

    fn close(&mut self, mut file: Self::File) -> io::Result<()> {
        file.flush()
    }
}
