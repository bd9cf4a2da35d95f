//! The terminal report, triage first. Per host: whether spindle could judge it at all, a short
//! header (server, platform, when and by what the facts were collected, the packs), a summary
//! table, then the findings grouped by rule and cause in triage order ([`groups`]), each group's
//! first finding drawn on the snapshot's JSON with the offending field labelled, every entity of
//! the group with its measured value and position, and each distinct fix once; then what could
//! not be evaluated, one line per missing fact. docs/report-text.md describes the layout.
//!
//! Every string here that spindle did not write — names, labels, paths, messages from rules,
//! servers and plugins, the snapshot's own text — goes through `spindle_core::untrusted` on its
//! way: escaped, so data cannot drive the terminal or forge a line of the report, and cut, so a
//! name of megabytes is not echoed whole (the JSON and SARIF reports keep them whole, as data).

pub(crate) mod groups;
pub(crate) mod header;
#[cfg(test)]
mod tests;
pub(crate) mod wrap;

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use crate::snippet::Snippet;
use crate::{HostContext, Render, Rendered, ReportWriter, RuleInfo, Summary, entity_kind, locate_finding};
use groups::Group;
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding, NotEvaluated, Severity};
use spindle_core::untrusted::{self, escape_for_terminal as esc};
use spindle_core::view::HostView;

/// How much of each host the report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// The summary only: the verdict, the counts and the table of finding groups.
    Quiet,
    #[default]
    Normal,
    /// Also every finding's own message, every check not evaluated and every one not applicable.
    Verbose,
}

/// How the text report is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TextOptions {
    /// ANSI colours (SGR sequences only).
    pub colour: bool,
    /// Columns to wrap to.
    pub width: usize,
    pub detail: Detail,
    /// List every check not evaluated rather than one line per missing fact.
    pub show_not_evaluated: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions { colour: false, width: 100, detail: Detail::Normal, show_not_evaluated: false }
    }
}

/// The narrowest width the report lays itself out for.
const MIN_WIDTH: usize = 40;

pub struct TextWriter<'w> {
    w: &'w mut dyn Write,
    render: Arc<TextRender>,
}

/// Renders hosts for [`TextWriter`].
struct TextRender {
    handler: GraphicalReportHandler,
    options: TextOptions,
    /// The run's rules, from [`ReportWriter::begin`]: what the triage order reads.
    rules: Vec<RuleInfo>,
}

impl<'w> TextWriter<'w> {
    /// The default layout (100 columns), with or without colour.
    pub fn new(w: &'w mut dyn Write, colour: bool) -> Self {
        TextWriter::with_options(w, TextOptions { colour, ..TextOptions::default() })
    }

    pub fn with_options(w: &'w mut dyn Write, options: TextOptions) -> Self {
        let options = TextOptions { width: options.width.max(MIN_WIDTH), ..options };
        let theme =
            if options.colour { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
        let handler =
            GraphicalReportHandler::new_themed(theme).with_context_lines(1).with_width(options.width);
        TextWriter { w, render: Arc::new(TextRender { handler, options, rules: vec![] }) }
    }
}

/// A group's first finding as a miette diagnostic over the snapshot file that holds the fact:
/// the message, and the fact labelled with its measured value. The fix is printed by the group.
#[derive(Debug)]
struct FindingDiagnostic {
    message: String,
    severity: miette::Severity,
    source: Option<Snippet>,
    label: Option<LabeledSpan>,
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
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label.clone().map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

fn diagnostic(view: &HostView, f: &Finding) -> FindingDiagnostic {
    let label_text = match &f.measured {
        Some(m) => format!("measured {}", untrusted::message(m)),
        None => untrusted::name(f.field.as_deref().unwrap_or_default()).into_owned(),
    };
    let (source, label) = match locate_finding(view, f) {
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
    FindingDiagnostic {
        message: untrusted::message_keeping_lines(&f.message).into_owned(),
        severity: match f.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        },
        source,
        label,
    }
}

/// Where a finding's fact is, as an editor takes it: `path:line:column`; the entity's snapshot
/// file (else the host's first) without a line when the fact could not be found in the text.
pub fn location_text(view: &HostView, f: &Finding) -> String {
    match locate_finding(view, f) {
        Some(loc) => format!("{}:{}:{}", untrusted::name(&loc.path), loc.start.0, loc.start.1),
        None => {
            let doc = f.entity.origins.first().and_then(|o| view.docs.get(o.doc)).or(view.docs.first());
            untrusted::name(doc.map_or(view.host_name(), |d| d.path.as_str())).into_owned()
        }
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

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `3 partitions`, `1 file`, `2 RAID sets`; `4 entities` when the kinds differ.
fn entities(findings: &[&Finding]) -> String {
    let kinds: Vec<&str> = findings.iter().map(|f| entity_kind(&f.entity)).collect();
    let n = findings.len();
    let kind = if kinds.windows(2).all(|w| w[0] == w[1]) {
        kinds.first().copied().unwrap_or("entity")
    } else {
        "entity"
    };
    match kind {
        "entity" => format!("{n} {}", if n == 1 { "entity" } else { "entities" }),
        "raid-set" => plural(n, "RAID set"),
        k => plural(n, &k.replace('-', " ")),
    }
}

/// The group's entities at `at`, for a gain or a fix that applies to some of them: their names
/// only, as the group lists each entity whole (a file's path in parentheses is left out).
fn entity_names(g: &Group<'_>, at: &[usize], host: &str) -> String {
    let names: Vec<String> = at
        .iter()
        .map(|&i| {
            untrusted::label(without_suffix(short_label(&g.findings[i].entity.label, host))).into_owned()
        })
        .collect();
    names.join(", ")
}

/// A label without the parenthesised part the view puts at its end (a file's path, a
/// partition's mount point): found from the end with the parentheses balanced, as a name before
/// it (`Sales (old)`) and the path itself (`C:\Program Files (x86)\…`) may hold parentheses too.
fn without_suffix(label: &str) -> &str {
    if !label.ends_with(')') {
        return label;
    }
    let mut depth = 0usize;
    for (i, c) in label.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return label[..i].strip_suffix(' ').unwrap_or(label);
                }
            }
            _ => {}
        }
    }
    label
}

/// An entity's label without the host's name in front: the host's header already says it.
fn short_label<'a>(label: &'a str, host: &str) -> &'a str {
    label.strip_prefix(host).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

impl Render for TextRender {
    fn render_in(&self, view: &HostView, report: &HostReport, context: &HostContext) -> io::Result<Rendered> {
        Rendered::one_block(|buf| self.write_host(buf, view, report, context))
    }
}

impl TextRender {
    fn paint(&self, text: &str, sgr: &str) -> String {
        if self.options.colour { format!("\u{1b}[{sgr}m{text}\u{1b}[0m") } else { text.to_string() }
    }

    fn severity_sgr(s: Severity) -> &'static str {
        match s {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Note => "1;36",
        }
    }

    /// `lead` followed by `fill` to the report's width.
    fn ruled(&self, lead: &str, fill: char) -> String {
        let used = lead.chars().count();
        let mut line = lead.to_string();
        line.extend(std::iter::repeat_n(fill, self.options.width.saturating_sub(used)));
        line
    }

    /// A line of TOML to paste, indented under its cause; a long comment wraps onto comment
    /// lines, the code never.
    fn write_paste(&self, out: &mut Vec<u8>, line: &str) -> io::Result<()> {
        const INDENT: &str = "        ";
        for l in crate::reason::wrap_toml(line, self.options.width.saturating_sub(INDENT.len())) {
            writeln!(out, "{INDENT}{l}")?;
        }
        Ok(())
    }

    fn wrap(&self, text: &str, first: &str, rest: &str) -> String {
        wrap::paragraph(text, self.options.width, first, rest)
    }

    fn write_host(
        &self,
        out: &mut Vec<u8>,
        view: &HostView,
        report: &HostReport,
        context: &HostContext<'_>,
    ) -> io::Result<()> {
        let o = self.options;
        let host = untrusted::name(&report.host);
        writeln!(out, "{}", self.paint(&self.ruled(&format!("━━ {host} "), '━'), "1"))?;
        // First: a host spindle could not judge, or judged only in part, has fewer findings
        // than it should.
        for why in &report.not_judged {
            let why = untrusted::message(why);
            writeln!(
                out,
                "{}",
                self.wrap(&format!("✗ spindle could not judge this host: {why}"), "  ", "    ")
            )?;
        }
        for e in &report.errors {
            writeln!(out, "  ✗ {} failed: {}", untrusted::name(&e.code), framed(&e.message))?;
        }
        if o.detail != Detail::Quiet {
            for (key, value) in header::fields(view, context) {
                writeln!(out, "{}", self.wrap(&value, &format!("  {key:<10} "), &" ".repeat(13)))?;
            }
        }
        let groups = groups::groups(&report.findings, context.order, &self.rules);
        self.write_summary(out, report, &groups)?;
        if o.detail == Detail::Quiet {
            return writeln!(out);
        }
        for g in &groups {
            self.write_group(out, view, report, g)?;
        }
        self.write_waived(out, view, report)?;
        self.write_not_evaluated(out, report)?;
        if o.detail == Detail::Verbose && !report.not_applicable.is_empty() {
            writeln!(out, "\n── not applicable (facts present; the rule chose not to judge them)")?;
            for n in &report.not_applicable {
                let line = format!(
                    "{} {} on {}: {} ({})",
                    untrusted::name(&n.code),
                    untrusted::name(&n.rule),
                    untrusted::label(&n.entity.label),
                    untrusted::name(&n.field),
                    untrusted::message(&n.reason)
                );
                writeln!(out, "{}", self.wrap(&line, "  - ", "      "))?;
            }
        }
        writeln!(out)
    }

    /// The host's counts and one line per finding group, in the order the groups follow.
    fn write_summary(&self, out: &mut Vec<u8>, report: &HostReport, groups: &[Group<'_>]) -> io::Result<()> {
        let mut s = Summary::default();
        s.add(report);
        let mut counts = format!(
            "{}, {}, {} · {} waived · {} not evaluated",
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
            plural(s.notes, "note"),
            s.waived,
            s.not_evaluated
        );
        if s.not_applicable > 0 {
            counts.push_str(&format!(" · {} not applicable", s.not_applicable));
        }
        if let Some(b) = s.baseline {
            counts.push_str(&format!(" · {} new", b.new));
        }
        writeln!(out)?;
        writeln!(out, "{}", self.wrap(&counts, "  ", "  "))?;
        if groups.is_empty() {
            if report.not_evaluated.is_empty() && report.errors.is_empty() && report.not_judged.is_empty() {
                writeln!(out, "  no findings from {}", plural(report.rules_run, "rule"))?;
            }
            return Ok(());
        }
        writeln!(out)?;
        let code_w = groups.iter().map(|g| untrusted::name(g.code).chars().count()).max().unwrap_or(0);
        let rule_w = groups.iter().map(|g| untrusted::name(g.rule).chars().count()).max().unwrap_or(0);
        for g in groups {
            let sev = self.paint(&format!("{:<8}", g.severity.as_str()), Self::severity_sgr(g.severity));
            let line = format!(
                "{:<code_w$} {:<rule_w$} {}",
                untrusted::name(g.code),
                untrusted::name(g.rule),
                entities(&g.findings)
            );
            // Wrapped as if the severity were there, so the first line fits too.
            let pad = " ".repeat(11);
            writeln!(out, "  {sev} {}", self.wrap(&line, &pad, &pad).trim_start())?;
        }
        Ok(())
    }

    fn write_group(
        &self,
        out: &mut Vec<u8>,
        view: &HostView,
        report: &HostReport,
        g: &Group<'_>,
    ) -> io::Result<()> {
        let o = self.options;
        let title = format!(
            "── {} {} {} · {} ",
            g.severity,
            untrusted::name(g.code),
            untrusted::name(g.rule),
            entities(&g.findings)
        );
        writeln!(out, "\n{}", self.paint(&self.ruled(&title, '─'), Self::severity_sgr(g.severity)))?;
        let mut s = String::new();
        self.handler
            .render_report(&mut s, &diagnostic(view, g.findings[0]))
            .map_err(|e| io::Error::other(e.to_string()))?;
        write!(out, "{s}")?;
        if let Some(e) = g.expected {
            writeln!(out, "{}", self.wrap(&format!("expected: {}", untrusted::message(e)), "  ", "    "))?;
        }
        let host = report.host.as_str();
        self.write_gains(out, g, host)?;
        let every_message = o.detail == Detail::Verbose && !g.one_message();
        for f in &g.findings {
            let label = untrusted::label(short_label(&f.entity.label, host));
            let at = location_text(view, f);
            let line = match &f.measured {
                Some(m) => format!("{label}: {} at {at}", untrusted::message(m)),
                None => format!("{label} at {at}"),
            };
            // Against a baseline, what a pipeline fails on is marked where it is listed.
            let lead = if f.baseline == Some(BaselineState::New) { "  - [new] " } else { "  - " };
            writeln!(out, "{}", self.wrap(&line, lead, "      "))?;
            if every_message {
                let m = untrusted::message(&f.message);
                writeln!(out, "{}", self.wrap(&m, "      ", "      "))?;
            }
            if let Some(w) = f.waiver.as_ref().filter(|w| w.expired) {
                let expired = format!(
                    "waiver expired on {} ({}: {})",
                    untrusted::name(w.expires.as_deref().unwrap_or("?")),
                    untrusted::name(&w.source),
                    untrusted::message(&w.reason)
                );
                writeln!(out, "{}", self.wrap(&expired, "      ", "      "))?;
            }
        }
        let fixes = g.fixes();
        let single = fixes.len() == 1;
        for (fix, at) in fixes.into_iter().filter(|(fix, _)| !fix.trim().is_empty()) {
            let fix = untrusted::message_keeping_lines(fix);
            if single {
                writeln!(out, "{}", wrap::reflow(&fix, o.width, "  fix: ", "       "))?;
            } else {
                let names = entity_names(g, &at, host);
                writeln!(out, "{}", self.wrap(&format!("fix for {names}:"), "  ", "    "))?;
                writeln!(out, "{}", wrap::reflow(&fix, o.width, "    ", "    "))?;
            }
        }
        Ok(())
    }

    /// What fixing the group is expected to gain: each distinct estimate once, with its
    /// assumptions and source, naming the entities when the group's findings differ.
    fn write_gains(&self, out: &mut Vec<u8>, g: &Group<'_>, host: &str) -> io::Result<()> {
        let gains = g.gains();
        let every = gains.len() == 1 && gains[0].1.len() == g.findings.len();
        for (gain, at) in gains {
            let lead = if every {
                "gain: ".to_string()
            } else {
                format!("gain for {}: ", entity_names(g, &at, host))
            };
            let text = format!("{lead}{}", untrusted::message(&gain.line()));
            writeln!(out, "{}", self.wrap(&text, "  ", "        "))?;
            let why = format!("assumes {}", untrusted::message(&gain.assumptions));
            writeln!(out, "{}", self.wrap(&why, "        ", "        "))?;
            let source =
                format!("source: {} <{}>", untrusted::message(&gain.evidence), untrusted::name(&gain.url));
            writeln!(out, "{}", self.wrap(&source, "        ", "        "))?;
        }
        Ok(())
    }

    fn write_waived(&self, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
        let waived: Vec<&Finding> = report.findings.iter().filter(|f| f.is_waived()).collect();
        if waived.is_empty() {
            return Ok(());
        }
        writeln!(out, "\n{}", self.ruled(&format!("── waived · {} ", waived.len()), '─'))?;
        for f in waived {
            let w = f.waiver.as_ref().expect("waived");
            let until =
                w.expires.as_deref().map(|d| format!(" until {}", untrusted::name(d))).unwrap_or_default();
            let measured =
                f.measured.as_deref().map(|m| format!(" {}", untrusted::message(m))).unwrap_or_default();
            let line = format!(
                "{} {} {}:{measured} at {} ({}{until}: {})",
                f.severity,
                untrusted::name(&f.code),
                untrusted::label(short_label(&f.entity.label, &report.host)),
                location_text(view, f),
                untrusted::name(&w.source),
                untrusted::message(&w.reason)
            );
            writeln!(out, "{}", self.wrap(&line, "  - ", "      "))?;
        }
        Ok(())
    }

    fn write_not_evaluated(&self, out: &mut Vec<u8>, report: &HostReport) -> io::Result<()> {
        if report.not_evaluated.is_empty() {
            return Ok(());
        }
        let n = report.not_evaluated.len();
        writeln!(
            out,
            "\n{}",
            self.ruled(
                &format!("── not evaluated · {} (facts missing; never a pass) ", plural(n, "check")),
                '─'
            )
        )?;
        let o = self.options;
        if o.show_not_evaluated || o.detail == Detail::Verbose {
            for n in &report.not_evaluated {
                let at = n.entity.as_ref().map_or(report.host.as_str(), |e| e.label.as_str());
                let mut line = format!(
                    "{} {} on {}: missing {}",
                    untrusted::name(&n.code),
                    untrusted::name(&n.rule),
                    untrusted::label(at),
                    untrusted::name(&n.missing)
                );
                if let Some(r) = &n.reason {
                    line.push_str(&format!(" ({})", untrusted::message(crate::reason::split(r).0)));
                }
                writeln!(out, "{}", self.wrap(&line, "  ? ", "      "))?;
                for l in n.reason.as_deref().map(crate::reason::paste_lines).unwrap_or_default() {
                    self.write_paste(out, &l)?;
                }
            }
            return Ok(());
        }
        for (cause, paste) in causes(&report.not_evaluated) {
            writeln!(out, "{}", self.wrap(&cause, "  ? ", "      "))?;
            for l in paste {
                self.write_paste(out, &l)?;
            }
        }
        writeln!(out, "  (--show-not-evaluated lists every check)")
    }
}

/// The checks not evaluated, one line per missing fact, in order of first appearance:
/// `9 checks (ALN002, ALN003, STR004) need stripe_unit_bytes: <the first reason> (and 2 other
/// reasons)`; `24 rules need sql_instances: …` when every check of the fact is host-wide. With
/// each, the lines of its first reason to paste (a declare hint's TOML), shown below it whole.
pub(crate) fn causes(entries: &[NotEvaluated]) -> Vec<(String, Vec<String>)> {
    crate::causes::causes(entries)
        .into_iter()
        .map(|c| {
            const SHOWN: usize = 6;
            let mut shown: Vec<String> =
                c.codes.iter().take(SHOWN).map(|c| untrusted::name(c).into_owned()).collect();
            if c.codes.len() > SHOWN {
                shown.push(format!("{} more", c.codes.len() - SHOWN));
            }
            let who = plural(c.checks, if c.host_wide { "rule" } else { "check" });
            let who = format!("{who} ({})", shown.join(", "));
            let paste = c.reasons.first().map(|r| crate::reason::paste_lines(r)).unwrap_or_default();
            let reason = match c.reasons.split_first() {
                None => "not collected".to_string(),
                Some((first, [])) => untrusted::message(crate::reason::split(first).0).into_owned(),
                Some((first, rest)) => format!(
                    "{} (and {} other {})",
                    untrusted::message(crate::reason::split(first).0),
                    rest.len(),
                    if rest.len() == 1 { "reason" } else { "reasons" }
                ),
            };
            let need = if c.checks == 1 { "needs" } else { "need" };
            (format!("{who} {need} {}: {reason}", untrusted::name(c.missing)), paste)
        })
        .collect()
}

impl ReportWriter for TextWriter<'_> {
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        let r = &self.render;
        self.render =
            Arc::new(TextRender { handler: r.handler.clone(), options: r.options, rules: rules.to_vec() });
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.render.clone()
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        host.write_to(&mut self.w)
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        // Marked as a host's section is: a label of data never starts a line.
        let title = self.render.ruled(&format!("━━ {} ", untrusted::name(source)), '━');
        writeln!(self.w, "{}\n  ✗ no facts collected: {}\n", self.render.paint(&title, "1"), framed(message))
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        writeln!(self.w, "{}", run_summary(s))
    }
}

/// The run's last line: `1 host checked: 4 errors, 19 warnings, 0 notes; 0 waived; …`.
pub fn run_summary(s: &Summary) -> String {
    let not_applicable =
        if s.not_applicable > 0 { format!("; {} not applicable", s.not_applicable) } else { String::new() };
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
    let baseline = match s.baseline {
        Some(b) => format!("; baseline: {}", b.line()),
        None => String::new(),
    };
    format!(
        "{} checked: {}, {}, {}; {} waived; {} not evaluated{not_applicable}{baseline}{gaps}",
        plural(s.hosts, "host"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notes, "note"),
        s.waived,
        s.not_evaluated,
    )
}
