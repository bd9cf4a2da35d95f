//! The terminal report: per host, first whether spindle could judge it at all, then findings
//! grouped by entity, each shown on the snapshot's JSON with the offending field labelled; then
//! what could not be evaluated and what the rules chose not to judge; then one summary line.
//!
//! Every string here that spindle did not write — names, labels, paths, messages from rules,
//! servers and plugins, the snapshot's own text — goes through `spindle_core::untrusted` on its
//! way: escaped, so data cannot drive the terminal or forge a line of the report, and cut, so a
//! name of megabytes is not echoed whole (the JSON and SARIF reports keep them whole, as data).

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use crate::snippet::Snippet;
use crate::{Part, Render, Rendered, ReportWriter, RuleInfo, Summary, locate_finding};
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use spindle_core::engine::HostReport;
use spindle_core::finding::{Finding, Severity};
use spindle_core::untrusted::{self, escape_for_terminal as esc};
use spindle_core::view::HostView;

pub struct TextWriter<'w> {
    w: &'w mut dyn Write,
    render: Arc<TextRender>,
}

/// Renders hosts for [`TextWriter`].
struct TextRender {
    handler: GraphicalReportHandler,
}

impl<'w> TextWriter<'w> {
    pub fn new(w: &'w mut dyn Write, colour: bool) -> Self {
        let theme = if colour { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
        let handler = GraphicalReportHandler::new_themed(theme).with_context_lines(2).with_width(110);
        TextWriter { w, render: Arc::new(TextRender { handler }) }
    }
}

/// One finding as a miette diagnostic over the snapshot file that holds the fact.
#[derive(Debug)]
struct FindingDiagnostic {
    message: String,
    severity: miette::Severity,
    source: Option<Snippet>,
    label: Option<LabeledSpan>,
    help: String,
}

impl fmt::Display for FindingDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindingDiagnostic {}

impl Diagnostic for FindingDiagnostic {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label.clone().map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

fn diagnostic(view: &HostView, f: &Finding) -> FindingDiagnostic {
    let located = locate_finding(view, f);
    let label_text = match (&f.measured, &f.expected) {
        (Some(m), Some(e)) => {
            format!("measured {}; expected {}", untrusted::message(m), untrusted::message(e))
        }
        _ => untrusted::name(f.field.as_deref().unwrap_or_default()).into_owned(),
    };
    let (source, label) = match located {
        Some(loc) => {
            let doc = &view.docs[loc.doc];
            // The location's line and column come from the file's line index: the snippet need
            // not scan the file up to the span for each finding.
            let (line, column) = (loc.start.0 - 1, loc.start.1 - 1);
            let source = Snippet::at(&doc.path, &doc.text, loc.span.clone(), line, column);
            let label = LabeledSpan::new_with_span(Some(label_text), source.span());
            (Some(source), Some(label))
        }
        None => (None, None),
    };
    // Inside miette's frame a newline is indented under the message, so the message and the
    // fix keep theirs (a rule's fix is written in lines).
    let mut help = format!("fix: {}", untrusted::message_keeping_lines(&f.fix));
    if let Some(w) = &f.waiver
        && w.expired
    {
        help.push_str(&format!(
            "\nwaiver expired on {} ({}: {})",
            untrusted::name(w.expires.as_deref().unwrap_or("?")),
            untrusted::name(&w.source),
            untrusted::message(&w.reason)
        ));
    }
    FindingDiagnostic {
        // The code leads the message: miette would otherwise print it on a line of its own.
        message: format!("{} {}", untrusted::name(&f.code), untrusted::message_keeping_lines(&f.message)),
        severity: match f.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        },
        source,
        label,
        help,
    }
}

/// A multi-line message (a plugin's error with its output) on lines of its own: each line
/// escaped, and every line after the first inside a frame, so none starts at column 0.
fn framed(message: &str) -> String {
    let message = untrusted::message_keeping_lines(message);
    let mut lines = message.split('\n');
    let mut out = esc(lines.next().unwrap_or_default()).into_owned();
    for line in lines {
        out.push_str("\n    │ ");
        out.push_str(&esc(line));
    }
    out
}

impl Render for TextRender {
    fn render(&self, view: &HostView, report: &HostReport) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        out.part(Part::Host, |buf| self.write_host(buf, view, report))?;
        Ok(out)
    }
}

impl TextRender {
    fn write_host(&self, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
        let sources: Vec<_> = view.docs.iter().map(|d| untrusted::name(&d.path)).collect();
        writeln!(out, "━━ {} ({})", untrusted::name(&report.host), sources.join(", "))?;
        // First: a host spindle could not judge has no findings because nothing was checked.
        for why in &report.not_judged {
            writeln!(out, "  ✗ spindle could not judge this host: {}", untrusted::message(why))?;
        }
        // Group by entity, keeping the order in which entities first appear.
        let mut order: Vec<&str> = vec![];
        for f in &report.findings {
            if !order.contains(&f.entity.label.as_str()) {
                order.push(&f.entity.label);
            }
        }
        for label in order {
            writeln!(out, "\n── {}", untrusted::label(label))?;
            for f in report.findings.iter().filter(|f| f.entity.label == label) {
                if f.is_waived() {
                    let w = f.waiver.as_ref().expect("waived");
                    let until = w
                        .expires
                        .as_deref()
                        .map(|d| format!(" until {}", untrusted::name(d)))
                        .unwrap_or_default();
                    writeln!(
                        out,
                        "  waived {} {}: {} ({}{until}: {})",
                        f.severity,
                        untrusted::name(&f.code),
                        untrusted::message(&f.message),
                        untrusted::name(&w.source),
                        untrusted::message(&w.reason)
                    )?;
                    continue;
                }
                let mut s = String::new();
                self.handler
                    .render_report(&mut s, &diagnostic(view, f))
                    .map_err(|e| io::Error::other(e.to_string()))?;
                write!(out, "{s}")?;
            }
        }
        if !report.not_evaluated.is_empty() {
            writeln!(out, "\n── not evaluated (facts missing; never counted as a pass)")?;
            for n in &report.not_evaluated {
                let at = n.entity.as_ref().map_or(report.host.as_str(), |e| e.label.as_str());
                write!(
                    out,
                    "  ? {} {} on {}: missing {}",
                    untrusted::name(&n.code),
                    untrusted::name(&n.rule),
                    untrusted::label(at),
                    untrusted::name(&n.missing)
                )?;
                if let Some(r) = &n.reason {
                    write!(out, " ({})", untrusted::message(r))?;
                }
                writeln!(out)?;
            }
        }
        if !report.not_applicable.is_empty() {
            writeln!(out, "\n── not applicable (facts present; the rule chose not to judge them)")?;
            for n in &report.not_applicable {
                writeln!(
                    out,
                    "  - {} {} on {}: {} ({})",
                    untrusted::name(&n.code),
                    untrusted::name(&n.rule),
                    untrusted::label(&n.entity.label),
                    untrusted::name(&n.field),
                    untrusted::message(&n.reason)
                )?;
            }
        }
        for e in &report.errors {
            writeln!(out, "\n  ✗ {} failed: {}", untrusted::name(&e.code), framed(&e.message))?;
        }
        if report.findings.is_empty()
            && report.not_evaluated.is_empty()
            && report.errors.is_empty()
            && report.not_judged.is_empty()
        {
            writeln!(out, "  no findings from {}", spindle_core::units::plural(report.rules_run, "rule"))?;
        }
        writeln!(out)
    }
}

impl ReportWriter for TextWriter<'_> {
    fn begin(&mut self, _rules: &[RuleInfo]) -> io::Result<()> {
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.render.clone()
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        for (_, bytes) in host.parts() {
            self.w.write_all(bytes)?;
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        // Marked as a host's section is: a label of data never starts a line.
        writeln!(self.w, "━━ {}\n  ✗ no facts collected: {}\n", untrusted::name(source), framed(message))
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let not_applicable = if s.not_applicable > 0 {
            format!("; {} not applicable", s.not_applicable)
        } else {
            String::new()
        };
        let mut gaps = vec![];
        if s.rule_errors > 0 {
            gaps.push(plural(s.rule_errors, "rule error"));
        }
        if s.hosts_not_judged > 0 {
            gaps.push(format!("{} not judged", plural(s.hosts_not_judged, "host")));
        }
        if s.collection_errors > 0 {
            gaps.push(format!("{} not collected", plural(s.collection_errors, "server")));
        }
        let gaps = match (gaps.is_empty(), s.incomplete()) {
            (true, _) => String::new(),
            (false, true) => format!("; {} — the run is incomplete", gaps.join(", ")),
            // Only servers the run was told to accept as unreachable.
            (false, false) => format!("; {} (unreachable servers allowed)", gaps.join(", ")),
        };
        writeln!(
            self.w,
            "{} checked: {}, {}, {}; {} waived; {} not evaluated{not_applicable}{gaps}",
            plural(s.hosts, "host"),
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
            plural(s.notes, "note"),
            s.waived,
            s.not_evaluated,
        )
    }
}
