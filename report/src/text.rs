//! The terminal report: per host, first whether spindle could judge it at all, then findings
//! grouped by entity, each shown on the snapshot's JSON with the offending field labelled; then
//! what could not be evaluated and what the rules chose not to judge; then one summary line.

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use crate::{Part, Render, Rendered, ReportWriter, RuleInfo, Summary, locate_finding};
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};
use spindle_core::engine::HostReport;
use spindle_core::finding::{Finding, Severity};
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
    source: Option<NamedSource<String>>,
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
        (Some(m), Some(e)) => format!("measured {m}; expected {e}"),
        _ => f.field.clone().unwrap_or_default(),
    };
    let (source, label) = match located {
        Some(loc) => {
            let doc = &view.docs[loc.doc];
            (
                Some(NamedSource::new(doc.path.clone(), doc.text.clone()).with_language("json")),
                Some(LabeledSpan::new_with_span(Some(label_text), loc.span.clone())),
            )
        }
        None => (None, None),
    };
    let mut help = format!("fix: {}", f.fix);
    if let Some(w) = &f.waiver
        && w.expired
    {
        help.push_str(&format!(
            "\nwaiver expired on {} ({}: {})",
            w.expires.as_deref().unwrap_or("?"),
            w.source,
            w.reason
        ));
    }
    FindingDiagnostic {
        // The code leads the message: miette would otherwise print it on a line of its own.
        message: format!("{} {}", f.code, f.message),
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

impl Render for TextRender {
    fn render(&self, view: &HostView, report: &HostReport) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        out.part(Part::Host, |buf| self.write_host(buf, view, report))?;
        Ok(out)
    }
}

impl TextRender {
    fn write_host(&self, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
        let sources: Vec<&str> = view.docs.iter().map(|d| d.path.as_str()).collect();
        writeln!(out, "━━ {} ({})", report.host, sources.join(", "))?;
        // First: a host spindle could not judge has no findings because nothing was checked.
        for why in &report.not_judged {
            writeln!(out, "  ✗ spindle could not judge this host: {why}")?;
        }
        // Group by entity, keeping the order in which entities first appear.
        let mut order: Vec<&str> = vec![];
        for f in &report.findings {
            if !order.contains(&f.entity.label.as_str()) {
                order.push(&f.entity.label);
            }
        }
        for label in order {
            writeln!(out, "\n── {label}")?;
            for f in report.findings.iter().filter(|f| f.entity.label == label) {
                if f.is_waived() {
                    let w = f.waiver.as_ref().expect("waived");
                    let until = w.expires.as_deref().map(|d| format!(" until {d}")).unwrap_or_default();
                    writeln!(
                        out,
                        "  waived {} {}: {} ({}{until}: {})",
                        f.severity, f.code, f.message, w.source, w.reason
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
                write!(out, "  ? {} {} on {at}: missing {}", n.code, n.rule, n.missing)?;
                if let Some(r) = &n.reason {
                    write!(out, " ({r})")?;
                }
                writeln!(out)?;
            }
        }
        if !report.not_applicable.is_empty() {
            writeln!(out, "\n── not applicable (facts present; the rule chose not to judge them)")?;
            for n in &report.not_applicable {
                writeln!(out, "  - {} {} on {}: {} ({})", n.code, n.rule, n.entity.label, n.field, n.reason)?;
            }
        }
        for e in &report.errors {
            writeln!(out, "\n  ✗ {} failed: {}", e.code, e.message)?;
        }
        if report.findings.is_empty()
            && report.not_evaluated.is_empty()
            && report.errors.is_empty()
            && report.not_judged.is_empty()
        {
            writeln!(out, "  no findings from {} rules", report.rules_run)?;
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
        writeln!(self.w, "{source}\n  ✗ no facts collected: {message}\n")
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
