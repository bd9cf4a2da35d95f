//! The report's writer, built from what the run asked of it: by a check, and again by
//! `spindle merge` from what a shard file recorded, so that both write the same bytes.

use std::io::Write;

use serde::{Deserialize, Serialize};
use spindle_report::ReportWriter;
use spindle_report::formats::WriterOptions;
use spindle_report::sarif::Waived;
use spindle_report::text::TextOptions;

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
