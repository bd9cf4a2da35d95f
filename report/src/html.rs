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
use spindle_core::untrusted;
use spindle_core::view::HostView;
use spindle_core::{fnv::fnv1a64, units};

use crate::checklist::{self, Markup, Verdict, short_label};
use crate::fix::{self, Block, Inline};
use crate::text::groups::groups;
use crate::text::{header, location_text, run_summary};
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

/// A line of prose with its inline code kept as code.
fn inline(pieces: &[Inline<'_>]) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            Inline::Text(t) => esc(t),
            Inline::Code(c) => format!("<code>{}</code>", esc(c)),
        })
        .collect()
}

fn write_fix(out: &mut Vec<u8>, raw: &str) -> io::Result<()> {
    let escaped = fix::escaped(raw);
    for block in fix::blocks(&escaped) {
        match block {
            Block::Prose(lines) => {
                let lines: Vec<String> = lines.iter().map(|line| inline(line)).collect();
                writeln!(out, "<p>{}</p>", lines.join("<br>"))?;
            }
            Block::Code { lang, text } => {
                let lang: String = lang.chars().filter(|c| c.is_ascii_alphanumeric()).take(20).collect();
                writeln!(out, "<pre data-lang=\"{lang}\"><code>{}</code></pre>", esc(&text))?;
            }
        }
    }
    Ok(())
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
        for why in &report.not_judged {
            writeln!(
                out,
                "<p class=\"banner\"><strong>✗ spindle could not judge this host:</strong> {}</p>",
                message(why)
            )?;
        }
        for e in &report.errors {
            writeln!(
                out,
                "<p class=\"banner\"><strong>✗ <code>{}</code> failed, so this host is not fully checked:</strong> {}</p>",
                name(&e.code),
                message(&e.message)
            )?;
        }
        writeln!(out, "<table class=\"header\">")?;
        for (key, value) in header::fields(view, context) {
            writeln!(out, "<tr><th>{key}</th><td>{}</td></tr>", esc(&value))?;
        }
        writeln!(
            out,
            "<tr><th>counts</th><td>{} errors, {} warnings, {} notes · {} waived · {} not evaluated · {} not applicable</td></tr></table>",
            s.errors, s.warnings, s.notes, s.waived, s.not_evaluated, s.not_applicable
        )?;

        // The picture before the tables: what a manager looks at first.
        diagram::write_diagrams(out, view, host)?;
        writeln!(
            out,
            "<h3>Checklist</h3>\n<table class=\"checklist\"><thead><tr><th>Rule</th><th>Severity</th><th>State</th><th>Details</th></tr></thead><tbody>"
        )?;
        for r in checklist::rows(&self.rules, report) {
            writeln!(
                out,
                "<tr><td><code>{}</code> {}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>",
                name(r.code),
                name(r.name),
                r.severity.map_or("", |s| s.as_str()),
                r.state.class(),
                r.state.label(),
                checklist::details(&r, host, &Html)
            )?;
        }
        writeln!(out, "</tbody></table>")?;
        self.write_findings(out, view, report)?;
        write_waived(out, view, report)?;
        write_not_evaluated(out, report)?;
        writeln!(out, "</section>\n</div>")
    }

    fn write_findings(&self, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
        let groups = groups(&report.findings);
        if groups.is_empty() {
            return Ok(());
        }
        writeln!(out, "<h3>Findings</h3>")?;
        let host = &report.host;
        let label = |f: &Finding| {
            format!("<code>{}</code>", esc(&untrusted::label(short_label(&f.entity.label, host))))
        };
        for g in &groups {
            let class = if g.severity == Severity::Error { "bad" } else { "warn" };
            writeln!(
                out,
                "<h4><span class=\"{class}\">{}</span> <code>{}</code> {} · {}</h4>",
                g.severity,
                name(g.code),
                name(g.rule),
                units::plural(g.findings.len(), "finding")
            )?;
            let one = g.one_message();
            if one {
                writeln!(out, "<p>{}</p>", message(&g.findings[0].message))?;
            }
            if let Some(e) = g.expected {
                writeln!(out, "<p><strong>Expected:</strong> {}</p>", message(e))?;
            }
            let extra = if one { "" } else { "<th>Message</th>" };
            writeln!(
                out,
                "<table><thead><tr><th>Entity</th><th>Measured</th>{extra}<th>Where</th></tr></thead><tbody>"
            )?;
            for f in &g.findings {
                let mut entity = label(f);
                if let Some(w) = f.waiver.as_ref().filter(|w| w.expired) {
                    entity.push_str(&format!(
                        " (waiver expired on {})",
                        w.expires.as_deref().map_or("?".to_string(), message)
                    ));
                }
                let measured = f.measured.as_deref().map_or("—".to_string(), message);
                let msg = if one { String::new() } else { format!("<td>{}</td>", message(&f.message)) };
                writeln!(
                    out,
                    "<tr><td>{entity}</td><td>{measured}</td>{msg}<td><code>{}</code></td></tr>",
                    esc(&location_text(view, f))
                )?;
            }
            writeln!(out, "</tbody></table>")?;
            let fixes = g.fixes();
            let single = fixes.len() == 1;
            for (fix, at) in fixes.into_iter().filter(|(fix, _)| !fix.trim().is_empty()) {
                if single {
                    writeln!(out, "<p><strong>Fix:</strong></p>")?;
                } else {
                    let names: Vec<String> = at.iter().map(|&i| label(g.findings[i])).collect();
                    writeln!(out, "<p><strong>Fix for {}:</strong></p>", names.join(", "))?;
                }
                write_fix(out, fix)?;
            }
        }
        Ok(())
    }
}

fn write_waived(out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
    let waived: Vec<&Finding> = report.findings.iter().filter(|f| f.is_waived()).collect();
    if waived.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h3>Waived</h3>\n<table><thead><tr><th>Rule</th><th>Entity</th><th>Measured</th><th>Until</th><th>Reason</th><th>Waiver from</th></tr></thead><tbody>"
    )?;
    for f in waived {
        let w = f.waiver.as_ref().expect("waived");
        writeln!(
            out,
            "<tr><td><code>{}</code> {}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code> ({})</td></tr>",
            name(&f.code),
            f.severity,
            esc(&untrusted::label(short_label(&f.entity.label, &report.host))),
            f.measured.as_deref().map_or("—".to_string(), message),
            w.expires.as_deref().map_or("no expiry".to_string(), message),
            message(&w.reason),
            name(&w.source),
            esc(&location_text(view, f))
        )?;
    }
    writeln!(out, "</tbody></table>")
}

fn write_not_evaluated(out: &mut Vec<u8>, report: &HostReport) -> io::Result<()> {
    let causes = checklist::causes(&report.not_evaluated);
    if causes.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h3>Not evaluated</h3>\n<p><span class=\"unknown\">{} could not be made</span>: a fact was missing. Never a pass.</p>\n<ul>",
        units::plural(report.not_evaluated.len(), "check")
    )?;
    for c in causes {
        let mut codes: Vec<String> =
            c.codes.iter().take(checklist::LISTED).map(|c| format!("<code>{}</code>", name(c))).collect();
        if c.codes.len() > checklist::LISTED {
            codes.push(format!("{} more", c.codes.len() - checklist::LISTED));
        }
        let who = units::plural(c.checks, if c.host_wide { "rule" } else { "check" });
        let need = if c.checks == 1 { "needs" } else { "need" };
        write!(out, "<li>{who} ({}) {need} <code>{}</code>", codes.join(", "), name(c.missing))?;
        if c.reasons.is_empty() {
            writeln!(out, ": not collected</li>")?;
            continue;
        }
        writeln!(out, ":<ul>")?;
        for r in c.reasons {
            let r = untrusted::message_keeping_lines(r);
            let (first, rest) = r.split_once('\n').unwrap_or((&r, ""));
            write!(out, "<li>{}", inline(&fix::inlines(first)))?;
            if !rest.trim().is_empty() {
                write!(out, "<pre><code>{}</code></pre>", esc(rest))?;
            }
            writeln!(out, "</li>")?;
        }
        writeln!(out, "</ul></li>")?;
    }
    writeln!(out, "</ul>")
}

impl Render for HtmlRender {
    fn render(&self, view: &HostView, report: &HostReport) -> io::Result<Rendered> {
        self.render_in(view, report, &HostContext::default())
    }

    fn render_in(
        &self,
        view: &HostView,
        report: &HostReport,
        context: &HostContext<'_>,
    ) -> io::Result<Rendered> {
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
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
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
        writeln!(self.w, "<p>{}</p>\n</section>", esc(&run_summary(s)))?;
        writeln!(
            self.w,
            "<footer class=\"foot\"><p class=\"legend\">Written by spindle. A host counts once in each row that applies to it.</p></footer>\n</main>\n</body>\n</html>"
        )
    }
}
