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
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::checklist::{Markup, Verdict, body};
use crate::text::run_summary;
use crate::{HostContext, Render, Rendered, ReportWriter, RuleInfo, Summary};

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
pub fn text(s: &str) -> String {
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
pub fn code(s: &str, in_table: bool) -> String {
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

/// A code block whose fence (backticks, three or more) is longer than any backtick run inside,
/// each line indented by `indent` (inside a list item).
pub(crate) fn code_block(out: &mut Vec<u8>, lang: &str, body: &str, indent: &str) -> io::Result<()> {
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

/// Markdown as GitHub and GitLab render it.
struct Md;

impl Markup for Md {
    fn name(&self, escaped: &str) -> String {
        code(escaped, true)
    }
    fn name_inline(&self, escaped: &str) -> String {
        code(escaped, false)
    }
    fn prose(&self, escaped: &str) -> String {
        text(escaped)
    }
    fn strong(&self, s: &str) -> String {
        format!("**{s}**")
    }
    fn heading(&self, out: &mut Vec<u8>, level: u8, inline: &str) -> io::Result<()> {
        writeln!(out, "{} {inline}\n", "#".repeat(usize::from(level)))
    }
    fn paragraph(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()> {
        writeln!(out, "{inline}\n")
    }
    fn banner(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()> {
        writeln!(out, "> {inline}\n")
    }
    fn lines(&self, out: &mut Vec<u8>, lines: &[String]) -> io::Result<()> {
        // A line that is a step (`1.`, `-`) keeps its marker; any other is joined to the
        // paragraph by the renderer. No trailing spaces: they would make hard breaks.
        let lines: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        writeln!(out, "{}\n", lines.join("\n"))
    }
    fn code_block(&self, out: &mut Vec<u8>, lang: &str, escaped: &str) -> io::Result<()> {
        code_block(out, lang, escaped, "")?;
        writeln!(out)
    }
    fn table(&self, out: &mut Vec<u8>, heads: &[&str]) -> io::Result<()> {
        writeln!(out, "| {} |", heads.join(" | ").trim())?;
        writeln!(out, "|{}", "---|".repeat(heads.len()))
    }
    fn row(&self, out: &mut Vec<u8>, cells: &[String]) -> io::Result<()> {
        writeln!(out, "| {} |", cells.join(" | "))
    }
    fn table_end(&self, out: &mut Vec<u8>) -> io::Result<()> {
        writeln!(out)
    }
    fn list(&self, _out: &mut Vec<u8>, _depth: usize) -> io::Result<()> {
        Ok(())
    }
    fn item(&self, out: &mut Vec<u8>, depth: usize, inline: &str) -> io::Result<()> {
        writeln!(out, "{}- {inline}", "  ".repeat(depth))
    }
    fn item_code(&self, out: &mut Vec<u8>, depth: usize, escaped: &str) -> io::Result<()> {
        writeln!(out)?;
        code_block(out, "", escaped, &"  ".repeat(depth + 1))
    }
    fn item_end(&self, _out: &mut Vec<u8>, _depth: usize) -> io::Result<()> {
        Ok(())
    }
    fn list_end(&self, out: &mut Vec<u8>, depth: usize) -> io::Result<()> {
        if depth == 0 { writeln!(out) } else { Ok(()) }
    }
}

impl MarkdownRender {
    fn write_host(
        &self,
        out: &mut Vec<u8>,
        view: &HostView,
        report: &HostReport,
        context: &HostContext<'_>,
    ) -> io::Result<()> {
        let verdict = Verdict::of(report);
        writeln!(out, "## {} — {}\n", code(&untrusted::name(&report.host), false), verdict.label())?;
        body::write(&Md, out, &self.rules, view, report, context, |_| Ok(()))
    }
}

impl Render for MarkdownRender {
    fn render_in(&self, view: &HostView, report: &HostReport, context: &HostContext) -> io::Result<Rendered> {
        Rendered::one_block(|buf| self.write_host(buf, view, report, context))
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
        host.write_to(&mut self.w)
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
        if let Some(b) = s.baseline {
            writeln!(
                self.w,
                "| new since the baseline | {} |\n| fixed since the baseline | {} |\n| baseline findings not checked | {} |",
                b.new, b.fixed, b.not_checked
            )?;
        }
        writeln!(self.w, "\n{}", text(&run_summary(s)))
    }
}

/// A fix (a rule's, a plugin's: untrusted, multi-line) as Markdown: its prose escaped, its
/// code blocks fenced; for the change plan's manual steps.
pub(crate) fn fix(out: &mut Vec<u8>, raw: &str) -> io::Result<()> {
    crate::checklist::body::write_fix(&Md, out, raw)
}
