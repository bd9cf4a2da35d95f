//! The baseline file `spindle baseline` writes and `spindle check --baseline` reads: today's
//! findings by their [`fingerprint`](crate::fingerprint), so that a pipeline fails only on what
//! is new.
//!
//! ```json
//! {
//!   "spindle_baseline": 1,
//!   "created_at": "2026-11-30T00:00:00Z",
//!   "findings": [
//!     {"host": "erp-sql1", "entity": "erp-sql1/disk:1/partition:1", "code": "ALN001", "fingerprint": "…", "severity": "error"}
//!   ],
//!   "not_evaluated": [
//!     {"host": "erp-sql1", "code": "ALN002", "missing": "stripe_unit_bytes"}
//!   ]
//! }
//! ```
//!
//! One finding a line, sorted by host, entity and code, so that two baselines diff line by line.
//! Waived findings are recorded too, marked `"waived": true`: they are findings, and the mark
//! lets a check tell a finding whose waiver has since lapsed (it is new again: a waiver's expiry
//! must still fail the run) from one recorded as it is.

use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;
use spindle_core::engine::HostReport;
use spindle_core::view::HostView;

use crate::{
    HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, RunProvenance, Summary, fingerprint,
};

/// The version of the baseline file this build writes and reads.
pub const VERSION: u32 = 1;

/// One finding as the baseline records it. The fingerprint is what a check matches on; the rest
/// is for the people who review the file.
#[derive(Debug, Serialize)]
struct Entry<'a> {
    host: &'a str,
    entity: &'a str,
    code: &'a str,
    fingerprint: String,
    severity: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    waived: bool,
}

/// A finding of the baseline as it records it, for reports that list those a run did not
/// check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct BaselineEntry {
    pub host: String,
    pub entity: String,
    pub code: String,
    pub fingerprint: String,
    /// Its place among the baseline's findings: a merge of shards lists them in that order.
    #[serde(skip)]
    pub index: usize,
}

/// A check not evaluated (a fact missing) as the baseline records it: a check run against the
/// baseline fails `--fail-on note` only for one it did not record.
#[derive(Debug, Serialize)]
struct NotEvaluatedEntry<'a> {
    host: &'a str,
    code: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    entity: &'a str,
    missing: &'a str,
}

/// Writes the baseline of a run. Hosts come rendered as one line per finding; the lines are kept
/// (the file is O(findings), as the baseline is) and sorted at the end.
pub struct BaselineWriter<'w> {
    w: &'w mut dyn Write,
    created_at: String,
    lines: Vec<Vec<u8>>,
    not_evaluated: Vec<Vec<u8>>,
}

impl<'w> BaselineWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        BaselineWriter { w, created_at: String::new(), lines: vec![], not_evaluated: vec![] }
    }
}

struct BaselineRender;

impl Render for BaselineRender {
    fn render_in(&self, _view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        for f in &report.findings {
            let entry = Entry {
                host: &report.host,
                entity: &f.entity.key,
                code: &f.code,
                fingerprint: fingerprint(f),
                severity: f.severity.as_str(),
                waived: f.is_waived(),
            };
            out.part(Part::Result, |buf| serde_json::to_writer(buf, &entry).map_err(io::Error::other))?;
        }
        for n in &report.not_evaluated {
            let entry = NotEvaluatedEntry {
                host: &report.host,
                code: &n.code,
                entity: n.entity.as_ref().map_or("", |e| e.key.as_str()),
                missing: &n.missing,
            };
            out.part(Part::NotEvaluated, |buf| serde_json::to_writer(buf, &entry).map_err(io::Error::other))?;
        }
        Ok(out)
    }
}

impl ReportWriter for BaselineWriter<'_> {
    fn provenance(&mut self, run: &RunProvenance) {
        self.created_at = run.started_at.clone();
    }

    fn begin(&mut self, _rules: &[RuleInfo]) -> io::Result<()> {
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(BaselineRender)
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        for (part, bytes) in host.parts() {
            match part {
                Part::NotEvaluated => self.not_evaluated.push(bytes.to_vec()),
                _ => self.lines.push(bytes.to_vec()),
            }
        }
        Ok(())
    }

    /// A server that gave no facts has nothing to record: the run is incomplete, and says so.
    fn collection_error(&mut self, _source: &str, _message: &str) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        writeln!(self.w, "{{")?;
        writeln!(self.w, "  \"spindle_baseline\": {VERSION},")?;
        writeln!(self.w, "  \"created_at\": {},", serde_json::to_string(&self.created_at)?)?;
        write_sorted(self.w, "findings", &mut self.lines)?;
        // Only when there are any: a baseline without them reads as before.
        if !self.not_evaluated.is_empty() {
            self.w.write_all(b",\n")?;
            write_sorted(self.w, "not_evaluated", &mut self.not_evaluated)?;
        }
        writeln!(self.w, "\n}}")?;
        self.w.flush()
    }
}

/// `"key": [...]`, one line an element, sorted so that two baselines diff line by line.
fn write_sorted(w: &mut dyn Write, key: &str, lines: &mut Vec<Vec<u8>>) -> io::Result<()> {
    lines.sort_unstable();
    lines.dedup();
    write!(w, "  \"{key}\": [")?;
    for (i, line) in lines.iter().enumerate() {
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        w.write_all(line)?;
    }
    write!(w, "{}]", if lines.is_empty() { "" } else { "\n  " })
}
