//! The report's writer, built from what the run asked of it: by a check, and again by
//! `spindle merge` from what a shard file recorded, so that both write the same bytes; and what
//! a failed run does about the report an earlier one left at `--output`.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use spindle_report::ReportWriter;
use spindle_report::formats::WriterOptions;
use spindle_report::sarif::Waived;
use spindle_report::text::TextOptions;

use crate::errors::UserError;
use crate::options::{FailOn, Format};

/// A report's format and options as settled for a run (the text report's colour and width
/// already resolved against the terminal), and what fails it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSpec {
    pub format: Format,
    pub text: TextOptions,
    pub sarif_category: Option<String>,
    pub waived: Waived,
    pub fail_on: FailOn,
}

/// Where a writer's warnings about the report itself go (SARIF's limits).
pub type Warn = Box<dyn FnMut(String) + Send>;

impl ReportSpec {
    /// The writer of one report into `w` (not the per-host SARIF logs of `--split-by`).
    pub fn writer<'w>(&self, w: &'w mut dyn Write, warn: Warn) -> Box<dyn ReportWriter + 'w> {
        self.format.writer(
            w,
            WriterOptions {
                spindle_version: env!("CARGO_PKG_VERSION"),
                text: self.text,
                sarif_category: self.sarif_category.clone(),
                waived: self.waived,
                warn,
            },
        )
    }
}

/// Warnings about the report, on stderr.
pub fn warn_on_stderr() -> Warn {
    Box::new(|w| eprintln!("warning: {w}"))
}

/// Removes the report an earlier run left at `--output`, after this run failed. Only a regular
/// file: a device or pipe (`/dev/null`, a named pipe) is written into, never replaced, and a
/// directory is the user's mistake, reported as such. Through a link, only the link goes: what
/// it points to may be anything, and a failed run destroys nothing. A snapshot given as input
/// and as output is the user's facts, not a report, and stays.
pub fn remove_stale_report<P: AsRef<Path>>(output: Option<&Path>, inputs: &[P]) {
    let Some(path) = output else { return };
    if path.as_os_str() == "-" || path.starts_with("/dev") || path.starts_with("/proc") {
        return;
    }
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if inputs.iter().any(|i| fs::canonicalize(i).is_ok_and(|i| i == target)) {
        return;
    }
    crate::output::remove_stale(path);
}

/// A report that could not be written (a full disk, a closed pipe the writer did not expect).
pub fn report_io(e: std::io::Error) -> UserError {
    UserError::plain(format!("cannot write the report: {e}"))
}
