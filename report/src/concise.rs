//! `--format concise`: one line per finding, as compilers and ruff print them, for grep and
//! editors: `FILE:LINE:COL: CODE [severity] message (entity)`, in the text report's triage order,
//! waived findings last and marked. A finding whose fact is not in the text is placed at its
//! snapshot file without a line. What is not a finding says so in brackets where a code would be
//! (`[not judged]`, `[rule error]`, `[not evaluated]`, `[collection error]`), and the run's
//! summary line ends the report as in the text report.
//!
//! Every string from the data is escaped and cut as in the text report, and a message's
//! newlines are escaped: one finding is one line.

use std::io::{self, Write};
use std::sync::Arc;

use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding};
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::text::{causes, groups::groups, location_text, run_summary};
use crate::{HostContext, Render, Rendered, ReportWriter, RuleInfo, Summary};

pub struct ConciseWriter<'w> {
    w: &'w mut dyn Write,
    render: Arc<ConciseRender>,
}

impl<'w> ConciseWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        ConciseWriter { w, render: Arc::new(ConciseRender { rules: vec![] }) }
    }
}

struct ConciseRender {
    /// The run's rules, from [`ReportWriter::begin`]: what the triage order reads.
    rules: Vec<RuleInfo>,
}

fn finding_line(out: &mut Vec<u8>, view: &HostView, f: &Finding, waived: bool) -> io::Result<()> {
    writeln!(
        out,
        "{}: {} [{}{}{}] {} ({})",
        location_text(view, f),
        untrusted::name(&f.code),
        f.severity,
        if waived { ", waived" } else { "" },
        if f.baseline == Some(BaselineState::New) { ", new" } else { "" },
        untrusted::message(&f.message),
        untrusted::label(&f.entity.label)
    )
}

impl Render for ConciseRender {
    fn render_in(&self, view: &HostView, report: &HostReport, context: &HostContext) -> io::Result<Rendered> {
        Rendered::one_block(|buf| {
            let host = untrusted::name(&report.host);
            for why in &report.not_judged {
                writeln!(buf, "{host}: [not judged] {}", untrusted::message(why))?;
            }
            for e in &report.errors {
                writeln!(
                    buf,
                    "{host}: {} [rule error] {}",
                    untrusted::name(&e.code),
                    untrusted::message(&e.message)
                )?;
            }
            for g in groups(&report.findings, context.order, &self.rules) {
                for f in g.findings {
                    finding_line(buf, view, f, false)?;
                }
            }
            for f in report.findings.iter().filter(|f| f.is_waived()) {
                finding_line(buf, view, f, true)?;
            }
            for (cause, paste) in causes(&report.not_evaluated) {
                writeln!(buf, "{host}: [not evaluated] {cause}")?;
                // The TOML to paste, as lines of its own: indented, so no `FILE:LINE:` reader
                // takes one for a finding.
                for l in paste {
                    writeln!(buf, "    {l}")?;
                }
            }
            Ok(())
        })
    }
}

impl ReportWriter for ConciseWriter<'_> {
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.render = Arc::new(ConciseRender { rules: rules.to_vec() });
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.render.clone()
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        host.write_to(&mut self.w)
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        writeln!(
            self.w,
            "{}: [collection error] no facts collected: {}",
            untrusted::name(source),
            untrusted::message(message)
        )
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        writeln!(self.w, "{}", run_summary(s))
    }
}
