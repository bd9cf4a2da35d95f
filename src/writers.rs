//! The report's writer, built from what the run asked of it: by a check, and again by
//! `spindle merge` from what a shard file recorded, so that both write the same bytes.

use std::io::Write;

use serde::{Deserialize, Serialize};
use spindle_report::baseline::BaselineWriter;
use spindle_report::concise::ConciseWriter;
use spindle_report::github::GithubWriter;
use spindle_report::gitlab::GitlabWriter;
use spindle_report::html::HtmlWriter;
use spindle_report::junit::JunitWriter;
use spindle_report::markdown::MarkdownWriter;
use spindle_report::sarif::Waived;
use spindle_report::text::{TextOptions, TextWriter};
use spindle_report::{JsonWriter, ReportWriter, SarifWriter};

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
        let version = env!("CARGO_PKG_VERSION");
        match self.format {
            Format::Text => Box::new(TextWriter::with_options(w, self.text)),
            Format::Concise => Box::new(ConciseWriter::new(w)),
            Format::Json => Box::new(JsonWriter::new(w, version)),
            Format::Sarif => {
                let log = SarifWriter::new(w, version).with_waived(self.waived).with_limit_warnings(warn);
                Box::new(match &self.sarif_category {
                    Some(c) => log.with_category(c),
                    None => log,
                })
            }
            Format::Markdown => Box::new(MarkdownWriter::new(w)),
            Format::Html => Box::new(HtmlWriter::new(w)),
            Format::Junit => Box::new(JunitWriter::new(w)),
            Format::Gitlab => Box::new(GitlabWriter::new(w)),
            Format::Github => Box::new(GithubWriter::new(w)),
            Format::Baseline => Box::new(BaselineWriter::new(w)),
        }
    }
}

/// Warnings about the report, on stderr.
pub fn warn_on_stderr() -> Warn {
    Box::new(|w| eprintln!("warning: {w}"))
}
