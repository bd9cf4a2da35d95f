//! `--format markdown`: a pre-go-live checklist to attach to a change ticket, rendered by GitHub
//! and GitLab. Per host: the verdict, a header (server, platform, when and by what the facts
//! were collected, the snapshot files, the packs), a table of every rule with its state (passed
//! with what it verified, failed, waived with reason and expiry, not evaluated with why), then
//! the findings grouped as in the text report with measured against expected and each fix, the
//! waived findings, and the checks not evaluated. The run's summary ends the document.
//! docs/report-markdown.md describes it.
//!
//! Every string from the data is first escaped and cut as for a terminal
//! (`spindle_core::untrusted`), then for Markdown: names go in code spans whose fence is longer
//! than any backtick run they hold, prose has every character Markdown acts on backslash-escaped,
//! and a pipe is escaped in table cells; fixes keep their code, in fences of the writer's own. So
//! no data can close a table row, open a link, or reach the page as raw HTML.

use std::io::{self, Write};
use std::sync::Arc;

use spindle_core::engine::HostReport;
use spindle_core::finding::Finding;
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::checklist::{self, Markup, Verdict, short_label};
use crate::fix::{self, Block, Inline};
use crate::text::groups::groups;
use crate::text::{header, location_text, run_summary};
use crate::{HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Summary};

pub struct MarkdownWriter<'w> {
    w: &'w mut dyn Write,
    rules: Arc<Vec<RuleInfo>>,
}

impl<'w> MarkdownWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        MarkdownWriter { w, rules: Arc::new(vec![]) }
    }
}

struct MarkdownRender {
    rules: Arc<Vec<RuleInfo>>,
}

/// Prose from the data (already escaped by `untrusted`), with every character Markdown (and
/// GitHub's extensions: strikethrough, math, mentions) could act on backslash-escaped. A pipe
/// escaped this way is a pipe in a table cell too. The `:` of `://` and the `.` of `www.` are
/// escaped as well, so that no address in the data becomes a link (GFM's extended autolinks).
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.char_indices() {
        let link = match c {
            ':' => s[i + 1..].starts_with("//"),
            '.' => out.len() >= 3 && out.as_bytes()[out.len() - 3..].eq_ignore_ascii_case(b"www"),
            _ => false,
        };
        if link
            || matches!(
                c,
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '!' | '#' | '~' | '$' | '@'
            )
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A name from the data (already escaped by `untrusted`) as a code span: shown as it is, never
/// a link, a mention or HTML. `in_table` escapes its pipes, as a table cell needs.
pub(crate) fn code(s: &str, in_table: bool) -> String {
    if s.is_empty() {
        return "*(empty)*".to_string();
    }
    let longest = longest_run(s, '`');
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) { " " } else { "" };
    let body = if in_table { s.replace('|', "\\|") } else { s.to_string() };
    format!("{fence}{pad}{body}{pad}{fence}")
}

fn longest_run(s: &str, c: char) -> usize {
    let mut best = 0;
    let mut run = 0;
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A code block whose fence (backticks, three or more) is longer than any backtick run inside.
fn code_block(out: &mut Vec<u8>, lang: &str, body: &str, indent: &str) -> io::Result<()> {
    let fence = "`".repeat((longest_run(body, '`') + 1).max(3));
    // The info string is a language's name or nothing: letters, digits, `-`, `+`, `#`.
    let lang: String =
        lang.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '#')).take(20).collect();
    writeln!(out, "{indent}{fence}{lang}")?;
    for line in body.lines() {
        writeln!(out, "{indent}{line}")?;
    }
    writeln!(out, "{indent}{fence}")
}

/// A line of prose with its inline code kept as code.
fn inline(line: &str) -> String {
    fix::inlines(line)
        .iter()
        .map(|piece| match piece {
            Inline::Text(t) => text(t),
            Inline::Code(c) => code(c, false),
        })
        .collect()
}

/// A fix (or any multi-line text a rule wrote) as Markdown: prose escaped with its inline code
/// kept as code, and its code blocks fenced anew.
fn write_fix(out: &mut Vec<u8>, raw: &str) -> io::Result<()> {
    let escaped = fix::escaped(raw);
    for block in fix::blocks(&escaped) {
        match block {
            Block::Prose(lines) => {
                for (i, line) in lines.iter().enumerate() {
                    let s: String = line
                        .iter()
                        .map(|piece| match piece {
                            Inline::Text(t) => text(t),
                            Inline::Code(c) => code(c, false),
                        })
                        .collect();
                    // A line a step (`1.`, `-`) keeps its marker; any other line is joined to
                    // the paragraph, and a trailing `  ` would make a hard break: none is added.
                    let sep = if i + 1 < lines.len() { "\n" } else { "" };
                    write!(out, "{}{sep}", s.trim_start())?;
                }
                writeln!(out, "\n")?;
            }
            Block::Code { lang, text } => {
                code_block(out, lang, &text, "")?;
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

fn cell_code(s: &str) -> String {
    code(&untrusted::name(s), true)
}

fn cell_text(s: &str) -> String {
    text(&untrusted::message(s))
}

fn label(f: &Finding, host: &str) -> String {
    code(&untrusted::label(short_label(&f.entity.label, host)), true)
}

/// Markdown for the parts of a checklist cell.
pub(crate) struct Md;

impl Markup for Md {
    fn name(&self, escaped: &str) -> String {
        code(escaped, true)
    }
    fn prose(&self, escaped: &str) -> String {
        text(escaped)
    }
    fn strong(&self, s: &str) -> String {
        format!("**{s}**")
    }
}

fn untrusted_plural(n: usize, word: &str) -> String {
    spindle_core::units::plural(n, word)
}

impl MarkdownRender {
    fn write_host(
        &self,
        out: &mut Vec<u8>,
        view: &HostView,
        report: &HostReport,
        context: &HostContext<'_>,
    ) -> io::Result<()> {
        let host = &report.host;
        let verdict = Verdict::of(report);
        writeln!(out, "## {} — {}\n", code(&untrusted::name(host), false), verdict.label())?;
        // First: why the absence of findings below proves nothing.
        for why in &report.not_judged {
            writeln!(out, "> **✗ spindle could not judge this host:** {}\n", text(&untrusted::message(why)))?;
        }
        for e in &report.errors {
            writeln!(
                out,
                "> **✗ {} failed, so this host is not fully checked:** {}\n",
                code(&untrusted::name(&e.code), false),
                text(&untrusted::message(&e.message))
            )?;
        }
        writeln!(out, "| | |\n|---|---|")?;
        for (key, value) in header::fields(view, context) {
            writeln!(out, "| {key} | {} |", text(&value))?;
        }
        let mut s = Summary::default();
        s.add(report);
        writeln!(
            out,
            "| counts | {} errors, {} warnings, {} notes · {} waived · {} not evaluated · {} not applicable |\n",
            s.errors, s.warnings, s.notes, s.waived, s.not_evaluated, s.not_applicable
        )?;

        writeln!(out, "### Checklist\n")?;
        writeln!(out, "| Rule | Severity | State | Details |\n|---|---|---|---|")?;
        for r in checklist::rows(&self.rules, report) {
            let name = if r.name.is_empty() { String::new() } else { format!(" {}", cell_text(r.name)) };
            writeln!(
                out,
                "| {}{name} | {} | {} | {} |",
                cell_code(r.code),
                r.severity.map_or("", |s| s.as_str()),
                r.state.label(),
                checklist::details(&r, host, &Md)
            )?;
        }
        writeln!(out)?;
        self.write_findings(out, view, report)?;
        write_waived(out, view, report)?;
        write_not_evaluated(out, report)
    }

    fn write_findings(&self, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
        let groups = groups(&report.findings);
        if groups.is_empty() {
            return Ok(());
        }
        writeln!(out, "### Findings\n")?;
        let host = &report.host;
        for g in &groups {
            writeln!(
                out,
                "#### {} {} {} · {}\n",
                g.severity,
                code(&untrusted::name(g.code), false),
                text(&untrusted::name(g.rule)),
                untrusted_plural(g.findings.len(), "finding")
            )?;
            if g.one_message() {
                writeln!(out, "{}\n", text(&untrusted::message(&g.findings[0].message)))?;
            }
            if let Some(e) = g.expected {
                writeln!(out, "**Expected:** {}\n", text(&untrusted::message(e)))?;
            }
            let with_message = !g.one_message();
            if with_message {
                writeln!(out, "| Entity | Measured | Message | Where |\n|---|---|---|---|")?;
            } else {
                writeln!(out, "| Entity | Measured | Where |\n|---|---|---|")?;
            }
            for f in &g.findings {
                let measured = f.measured.as_deref().map(cell_text).unwrap_or_else(|| "—".into());
                let mut entity = label(f, host);
                if let Some(w) = f.waiver.as_ref().filter(|w| w.expired) {
                    let until = w.expires.as_deref().map(cell_text).unwrap_or_else(|| "?".into());
                    entity.push_str(&format!(" (waiver expired on {until})"));
                }
                let at = code(&location_text(view, f), true);
                if with_message {
                    writeln!(out, "| {entity} | {measured} | {} | {at} |", cell_text(&f.message))?;
                } else {
                    writeln!(out, "| {entity} | {measured} | {at} |")?;
                }
            }
            writeln!(out)?;
            let fixes = g.fixes();
            let single = fixes.len() == 1;
            for (fix, at) in fixes.into_iter().filter(|(fix, _)| !fix.trim().is_empty()) {
                if single {
                    writeln!(out, "**Fix:**\n")?;
                } else {
                    let names: Vec<String> = at.iter().map(|&i| label(g.findings[i], host)).collect();
                    writeln!(out, "**Fix for {}:**\n", names.join(", "))?;
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
    writeln!(out, "### Waived\n")?;
    writeln!(out, "| Rule | Entity | Measured | Until | Reason | Waiver from |\n|---|---|---|---|---|---|")?;
    for f in waived {
        let w = f.waiver.as_ref().expect("waived");
        writeln!(
            out,
            "| {} {} | {} | {} | {} | {} | {} |",
            cell_code(&f.code),
            f.severity,
            label(f, &report.host),
            f.measured.as_deref().map(cell_text).unwrap_or_else(|| "—".into()),
            w.expires.as_deref().map(cell_text).unwrap_or_else(|| "no expiry".into()),
            cell_text(&w.reason),
            code(&format!("{} ({})", untrusted::name(&w.source), location_text(view, f)), true),
        )?;
    }
    writeln!(out)
}

fn write_not_evaluated(out: &mut Vec<u8>, report: &HostReport) -> io::Result<()> {
    let causes = checklist::causes(&report.not_evaluated);
    if causes.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "### Not evaluated\n\n{} could not be made: a fact was missing. Never a pass.\n",
        untrusted_plural(report.not_evaluated.len(), "check")
    )?;
    for c in causes {
        let mut codes: Vec<String> =
            c.codes.iter().take(checklist::LISTED).map(|c| code(&untrusted::name(c), false)).collect();
        if c.codes.len() > checklist::LISTED {
            codes.push(format!("{} more", c.codes.len() - checklist::LISTED));
        }
        let who = untrusted_plural(c.checks, if c.host_wide { "rule" } else { "check" });
        let need = if c.checks == 1 { "needs" } else { "need" };
        write!(out, "- {who} ({}) {need} {}", codes.join(", "), code(&untrusted::name(c.missing), false))?;
        match c.reasons.as_slice() {
            [] => writeln!(out, ": not collected")?,
            reasons => {
                writeln!(out, ":")?;
                for r in reasons {
                    let r = untrusted::message_keeping_lines(r);
                    let (first, rest) = r.split_once('\n').unwrap_or((&r, ""));
                    writeln!(out, "  - {}", inline(first))?;
                    if !rest.trim().is_empty() {
                        writeln!(out)?;
                        code_block(out, "", rest, "    ")?;
                    }
                }
            }
        }
    }
    writeln!(out)
}

impl Render for MarkdownRender {
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
        out.part(Part::Host, |buf| self.write_host(buf, view, report, context))?;
        Ok(out)
    }
}

impl ReportWriter for MarkdownWriter<'_> {
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.rules = Arc::new(rules.to_vec());
        writeln!(self.w, "# spindle storage checklist\n")
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(MarkdownRender { rules: self.rules.clone() })
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        for (_, bytes) in host.parts() {
            self.w.write_all(bytes)?;
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        writeln!(
            self.w,
            "## {} — ✗ no facts collected\n\n> **✗ spindle could not collect this server's facts, so nothing about it was checked:** {}\n",
            code(&untrusted::name(source), false),
            text(&untrusted::message(message))
        )
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        writeln!(self.w, "## Summary\n")?;
        if s.incomplete() {
            writeln!(
                self.w,
                "> **✗ The run is incomplete:** a rule failed, a host could not be judged or a server was not collected. The absence of findings proves nothing.\n"
            )?;
        }
        writeln!(self.w, "| | Count |\n|---|---|")?;
        for (what, n) in [
            ("hosts checked", s.hosts),
            ("errors", s.errors),
            ("warnings", s.warnings),
            ("notes", s.notes),
            ("waived", s.waived),
            ("expired waivers", s.expired_waivers),
            ("checks not evaluated", s.not_evaluated),
            ("not applicable", s.not_applicable),
            ("entities verified", s.passed),
            ("rule errors", s.rule_errors),
            ("hosts not judged", s.hosts_not_judged),
            ("servers not collected", s.collection_errors),
        ] {
            writeln!(self.w, "| {what} | {n} |")?;
        }
        writeln!(self.w, "\n{}", text(&run_summary(s)))
    }
}
