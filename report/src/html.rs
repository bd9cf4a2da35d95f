//! `--format html`: one self-contained page a manager can read and print. First the fleet's
//! totals (hosts × severity) and a row per host, then per host the verdict and header, an
//! alignment diagram of every partition ([`diagram`]), and the checklist of the Markdown report
//! (every rule's state, the findings with measured against expected and
//! the fix, the waived findings, the checks not evaluated). docs/report-html.md describes it.
//!
//! Streaming, in the memory of one host: each host's row and section are written as the host is
//! checked, inside a `display: contents` wrapper, and the fleet's totals at the end from a few
//! counters; the style sheet's flex `order` shows the totals first, then the rows, then the
//! sections. No script, no external resource: the style sheet is inline, the diagrams are inline
//! SVG, the fonts are the system's. Every string from the data is escaped and cut as for a
//! terminal (`spindle_core::untrusted`), then HTML-escaped.

mod diagram;

use std::io::{self, Write};
use std::sync::Arc;

use spindle_core::engine::HostReport;
use spindle_core::finding::{Finding, Severity};
use spindle_core::fnv::fnv1a64;
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::checklist::{Markup, State, Verdict, body};
use crate::text::run_summary;
use crate::{HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Summary};

const STYLE: &str = include_str!("html/style.css");

/// `s` (already escaped by `untrusted`) with the five characters HTML acts on as references.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn name(s: &str) -> String {
    esc(&untrusted::name(s))
}

fn message(s: &str) -> String {
    esc(&untrusted::message(s))
}

struct Html;

impl Markup for Html {
    fn name(&self, escaped: &str) -> String {
        format!("<code>{}</code>", esc(escaped))
    }
    fn prose(&self, escaped: &str) -> String {
        esc(escaped)
    }
    fn strong(&self, s: &str) -> String {
        format!("<strong>{s}</strong>")
    }
    fn state(&self, state: State) -> String {
        format!("<span class=\"{}\">{}</span>", state.class(), state.label())
    }
    fn severity(&self, s: Severity) -> String {
        let class = if s == Severity::Error { "bad" } else { "warn" };
        format!("<span class=\"{class}\">{s}</span>")
    }
    fn heading(&self, out: &mut Vec<u8>, level: u8, inline: &str) -> io::Result<()> {
        writeln!(out, "<h{level}>{inline}</h{level}>")
    }
    fn paragraph(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()> {
        writeln!(out, "<p>{inline}</p>")
    }
    fn banner(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()> {
        writeln!(out, "<p class=\"banner\">{inline}</p>")
    }
    fn lines(&self, out: &mut Vec<u8>, lines: &[String]) -> io::Result<()> {
        writeln!(out, "<p>{}</p>", lines.join("<br>"))
    }
    fn code_block(&self, out: &mut Vec<u8>, lang: &str, escaped: &str) -> io::Result<()> {
        let lang: String = lang.chars().filter(|c| c.is_ascii_alphanumeric()).take(20).collect();
        writeln!(out, "<pre data-lang=\"{lang}\"><code>{}</code></pre>", esc(escaped))
    }
    fn table(&self, out: &mut Vec<u8>, heads: &[&str]) -> io::Result<()> {
        if heads.iter().all(|h| h.is_empty()) {
            return writeln!(out, "<table class=\"header\"><tbody>");
        }
        let class =
            if heads.first() == Some(&"Rule") && heads.len() == 4 { " class=\"checklist\"" } else { "" };
        let heads: String = heads.iter().map(|h| format!("<th>{h}</th>")).collect();
        writeln!(out, "<table{class}><thead><tr>{heads}</tr></thead><tbody>")
    }
    fn row(&self, out: &mut Vec<u8>, cells: &[String]) -> io::Result<()> {
        let cells: String = cells.iter().map(|c| format!("<td>{c}</td>")).collect();
        writeln!(out, "<tr>{cells}</tr>")
    }
    fn table_end(&self, out: &mut Vec<u8>) -> io::Result<()> {
        writeln!(out, "</tbody></table>")
    }
    fn list(&self, out: &mut Vec<u8>, _depth: usize) -> io::Result<()> {
        writeln!(out, "<ul>")
    }
    fn item(&self, out: &mut Vec<u8>, _depth: usize, inline: &str) -> io::Result<()> {
        write!(out, "<li>{inline}")
    }
    fn item_code(&self, out: &mut Vec<u8>, _depth: usize, escaped: &str) -> io::Result<()> {
        write!(out, "<pre><code>{}</code></pre>", esc(escaped))
    }
    fn item_end(&self, out: &mut Vec<u8>, _depth: usize) -> io::Result<()> {
        writeln!(out, "</li>")
    }
    fn list_end(&self, out: &mut Vec<u8>, _depth: usize) -> io::Result<()> {
        writeln!(out, "</ul>")
    }
}

/// What a host counts for in the fleet's totals, passed from the renderer to the writer as a
/// [`Part::Result`] of a few letters (the writer keeps counters, not hosts): `e`, `w`, `n` for
/// a severity among its findings, `W` for a waived finding, `?` for a check not evaluated, `!`
/// for a host not fully judged.
fn tally(report: &HostReport) -> String {
    let mut s = String::new();
    for (sev, c) in [(Severity::Error, 'e'), (Severity::Warning, 'w'), (Severity::Note, 'n')] {
        if report.counting().any(|f| f.severity == sev) {
            s.push(c);
        }
    }
    if report.findings.iter().any(Finding::is_waived) {
        s.push('W');
    }
    if !report.not_evaluated.is_empty() {
        s.push('?');
    }
    if Verdict::of(report) == Verdict::Incomplete {
        s.push('!');
    }
    s
}

#[derive(Debug, Default)]
struct Tally {
    errors: usize,
    warnings: usize,
    notes: usize,
    waived: usize,
    not_evaluated: usize,
    incomplete: usize,
    clean: usize,
}

pub struct HtmlWriter<'w> {
    w: &'w mut dyn Write,
    rules: Arc<Vec<RuleInfo>>,
    tally: Tally,
}

impl<'w> HtmlWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        HtmlWriter { w, rules: Arc::new(vec![]), tally: Tally::default() }
    }
}

struct HtmlRender {
    rules: Arc<Vec<RuleInfo>>,
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Incomplete | Verdict::Findings(Severity::Error) => "bad",
        Verdict::Findings(_) => "warn",
        Verdict::Unknown => "unknown",
        Verdict::Clean => "good",
    }
}

/// A host's anchor: its name's hash, so hosts rendered apart agree on it without a counter.
fn anchor(host: &str) -> String {
    format!("host-{:016x}", fnv1a64(host.as_bytes()))
}

impl HtmlRender {
    fn write_host(
        &self,
        out: &mut Vec<u8>,
        view: &HostView,
        report: &HostReport,
        context: &HostContext<'_>,
    ) -> io::Result<()> {
        let host = &report.host;
        let verdict = Verdict::of(report);
        let class = verdict_class(verdict);
        let id = anchor(host);
        let mut s = Summary::default();
        s.add(report);
        writeln!(out, "<div class=\"host-wrap\">")?;
        writeln!(
            out,
            "<a class=\"row\" href=\"#{id}\"><span><code>{}</code></span><span class=\"{class}\">{}</span><span class=\"n\">{}</span><span class=\"n\">{}</span><span class=\"n\">{}</span><span class=\"n\">{}</span><span class=\"n\">{}</span></a>",
            name(host),
            verdict.label(),
            s.errors,
            s.warnings,
            s.notes,
            s.waived,
            s.not_evaluated
        )?;
        writeln!(out, "<section class=\"host\" id=\"{id}\" data-host=\"{}\">", name(host))?;
        writeln!(
            out,
            "<h2><code>{}</code> — <span class=\"{class}\">{}</span></h2>",
            name(host),
            verdict.label()
        )?;
        body::write(&Html, out, &self.rules, view, report, context, |out| {
            // The picture before the tables: what a manager looks at first.
            diagram::write_diagrams(out, view, host)
        })?;
        writeln!(out, "</section>\n</div>")
    }
}

impl Render for HtmlRender {
    fn render_in(&self, view: &HostView, report: &HostReport, context: &HostContext) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        out.part(Part::Result, |buf| {
            buf.extend_from_slice(tally(report).as_bytes());
            io::Result::Ok(())
        })?;
        out.part(Part::Host, |buf| self.write_host(buf, view, report, context))?;
        Ok(out)
    }
}

impl ReportWriter for HtmlWriter<'_> {
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.rules = Arc::new(rules.to_vec());
        write!(
            self.w,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
             <title>spindle storage report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <svg class=\"defs\" aria-hidden=\"true\" focusable=\"false\"><defs><pattern id=\"spindle-split\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#e8a09a\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#b3261e\" stroke-width=\"4\"/></pattern></defs></svg>\n\
             <main class=\"report\">\n<header class=\"title\"><h1>spindle storage report</h1></header>\n\
             <div class=\"rows-head\"><span>Host</span><span>Verdict</span><span class=\"n\">Errors</span><span class=\"n\">Warnings</span><span class=\"n\">Notes</span><span class=\"n\">Waived</span><span class=\"n\">Not evaluated</span></div>\n\
             <h2 class=\"hosts-head\" style=\"margin-top:24px\">Hosts</h2>\n"
        )
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(HtmlRender { rules: self.rules.clone() })
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        for (part, bytes) in host.parts() {
            if part == Part::Result {
                let t = &mut self.tally;
                for c in bytes {
                    match c {
                        b'e' => t.errors += 1,
                        b'w' => t.warnings += 1,
                        b'n' => t.notes += 1,
                        b'W' => t.waived += 1,
                        b'?' => t.not_evaluated += 1,
                        b'!' => t.incomplete += 1,
                        _ => {}
                    }
                }
                if !bytes.iter().any(|c| matches!(c, b'e' | b'w' | b'n' | b'?' | b'!')) {
                    t.clean += 1;
                }
                continue;
            }
            self.w.write_all(bytes)?;
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, msg: &str) -> io::Result<()> {
        let id = anchor(source);
        writeln!(
            self.w,
            "<div class=\"host-wrap\">\n<a class=\"row\" href=\"#{id}\"><span><code>{n}</code></span><span class=\"bad\">✗ no facts collected</span><span class=\"n\">—</span><span class=\"n\">—</span><span class=\"n\">—</span><span class=\"n\">—</span><span class=\"n\">—</span></a>\n\
             <section class=\"host\" id=\"{id}\" data-host=\"{n}\">\n<h2><code>{n}</code> — <span class=\"bad\">✗ no facts collected</span></h2>\n\
             <p class=\"banner\"><strong>✗ spindle could not collect this server's facts, so nothing about it was checked:</strong> {}</p>\n</section>\n</div>",
            message(msg),
            n = name(source)
        )
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        let t = &self.tally;
        writeln!(self.w, "<section class=\"fleet\"><h2>Fleet summary</h2>")?;
        if s.incomplete() {
            writeln!(
                self.w,
                "<p class=\"banner\"><strong>✗ The run is incomplete:</strong> a rule failed, a host could not be judged or a server was not collected. The absence of findings proves nothing.</p>"
            )?;
        }
        writeln!(
            self.w,
            "<table><thead><tr><th></th><th class=\"n\">Hosts</th><th class=\"n\">Findings</th></tr></thead><tbody>\n\
             <tr><td class=\"bad\">errors</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td class=\"warn\">warnings</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td>notes</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td class=\"waived\">waived</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n\
             <tr><td class=\"unknown\">not evaluated (never a pass)</td><td class=\"n\">{}</td><td class=\"n\">{} checks</td></tr>\n\
             <tr><td class=\"bad\">not fully judged (rule error, host not judged)</td><td class=\"n\">{}</td><td class=\"n\">{} rule errors</td></tr>\n\
             <tr><td class=\"bad\">no facts collected</td><td class=\"n\">{}</td><td class=\"n\">—</td></tr>\n\
             <tr><td class=\"good\">no findings, every check made</td><td class=\"n\">{}</td><td class=\"n\">—</td></tr>\n\
             <tr><th>hosts checked</th><th class=\"n\">{}</th><th class=\"n\">{} verified</th></tr>\n</tbody></table>",
            t.errors,
            s.errors,
            t.warnings,
            s.warnings,
            t.notes,
            s.notes,
            t.waived,
            s.waived,
            t.not_evaluated,
            s.not_evaluated,
            t.incomplete,
            s.rule_errors,
            s.collection_errors,
            t.clean,
            s.hosts,
            s.passed
        )?;
        if let Some(b) = s.baseline {
            writeln!(
                self.w,
                "<p class=\"baseline\">Against the baseline: <strong>{} new</strong>, {} fixed, {} unchanged, {} not checked.</p>",
                b.new, b.fixed, b.unchanged, b.not_checked
            )?;
        }
        writeln!(self.w, "<p>{}</p>\n</section>", esc(&run_summary(s)))?;
        writeln!(
            self.w,
            "<footer class=\"foot\"><p class=\"legend\">Written by spindle. A host counts once in each row that applies to it.</p></footer>\n</main>\n</body>\n</html>"
        )
    }
}
