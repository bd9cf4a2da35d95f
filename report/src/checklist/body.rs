//! The body of a host in the reports people read, written once for both: the banners that say
//! the host is not fully checked, the header, the checklist, the findings grouped as in the text
//! report with measured against expected and each fix, the waived findings and the checks not
//! evaluated. Each format says how a heading, a table or a code block is written ([`Markup`]),
//! and escapes every string by its own rules.

use std::io;

use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding, Severity};
use spindle_core::units::plural;
use spindle_core::untrusted;
use spindle_core::view::HostView;

use super::{LISTED, State, details, rows, short_label};
use crate::causes::causes;
use crate::fix::{self, Block, Inline};
use crate::text::groups::{Group, groups};
use crate::text::{header, location_text};
use crate::{HostContext, Order, RuleInfo, Summary};

/// How a format writes the pieces of a host's body. Strings given as `escaped` come from the
/// data and were escaped by `spindle_core::untrusted`; the format escapes them again by its own
/// rules. Other strings are spindle's own words and markup the format returned.
pub(crate) trait Markup {
    /// A name from the data (a code, an entity's label, a fact, a path) in a table cell.
    fn name(&self, escaped: &str) -> String;
    /// A name from the data in running text, outside tables.
    fn name_inline(&self, escaped: &str) -> String {
        self.name(escaped)
    }
    /// Prose from the data: a message, a reason, a value.
    fn prose(&self, escaped: &str) -> String;
    /// Spindle's own words, emphasised.
    fn strong(&self, s: &str) -> String;
    /// A rule's state on the host, as a table cell shows it.
    fn state(&self, state: State) -> String {
        state.label().to_string()
    }
    /// A severity, as a heading shows it.
    fn severity(&self, s: Severity) -> String {
        s.as_str().to_string()
    }

    fn heading(&self, out: &mut Vec<u8>, level: u8, inline: &str) -> io::Result<()>;
    fn paragraph(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()>;
    /// A warning that must be read first: the host is not fully checked.
    fn banner(&self, out: &mut Vec<u8>, inline: &str) -> io::Result<()>;
    /// Lines of one paragraph, each kept on its own line (a fix's steps).
    fn lines(&self, out: &mut Vec<u8>, lines: &[String]) -> io::Result<()>;
    fn code_block(&self, out: &mut Vec<u8>, lang: &str, escaped: &str) -> io::Result<()>;
    /// A table's start with its column heads (all empty: a table without a head row).
    fn table(&self, out: &mut Vec<u8>, heads: &[&str]) -> io::Result<()>;
    fn row(&self, out: &mut Vec<u8>, cells: &[String]) -> io::Result<()>;
    fn table_end(&self, out: &mut Vec<u8>) -> io::Result<()>;
    /// A list of items, each with a list of its own: `depth` 0 or 1.
    fn list(&self, out: &mut Vec<u8>, depth: usize) -> io::Result<()>;
    fn item(&self, out: &mut Vec<u8>, depth: usize, inline: &str) -> io::Result<()>;
    /// A code block inside the open item of a list at `depth`.
    fn item_code(&self, out: &mut Vec<u8>, depth: usize, escaped: &str) -> io::Result<()>;
    fn item_end(&self, out: &mut Vec<u8>, depth: usize) -> io::Result<()>;
    fn list_end(&self, out: &mut Vec<u8>, depth: usize) -> io::Result<()>;
}

/// Prose and inline code, each marked up.
fn pieces(m: &dyn Markup, pieces: &[Inline<'_>]) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            Inline::Text(t) => m.prose(t),
            Inline::Code(c) => m.name_inline(c),
        })
        .collect()
}

/// A line of prose from the data with its inline code kept as code.
fn inline(m: &dyn Markup, line: &str) -> String {
    pieces(m, &fix::inlines(line))
}

/// A fix (or any multi-line text a rule wrote): its prose with inline code, its code blocks.
pub(crate) fn write_fix(m: &dyn Markup, out: &mut Vec<u8>, raw: &str) -> io::Result<()> {
    let escaped = fix::escaped(raw);
    for block in fix::blocks(&escaped) {
        match block {
            Block::Prose(lines) => {
                let lines: Vec<String> = lines.iter().map(|line| pieces(m, line)).collect();
                m.lines(out, &lines)?;
            }
            Block::Code { lang, text } => m.code_block(out, lang, &text)?,
        }
    }
    Ok(())
}

/// Writes the body of `report`'s host; `between` writes what comes between the header and the
/// checklist (the HTML report's diagrams).
pub(crate) fn write(
    m: &dyn Markup,
    out: &mut Vec<u8>,
    rules: &[RuleInfo],
    view: &HostView,
    report: &HostReport,
    context: &HostContext<'_>,
    between: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
) -> io::Result<()> {
    // First: why the absence of findings below proves nothing.
    for why in &report.not_judged {
        let why = m.prose(&untrusted::message(why));
        m.banner(out, &format!("{} {why}", m.strong("✗ spindle could not judge this host:")))?;
    }
    for e in &report.errors {
        let code = m.name_inline(&untrusted::name(&e.code));
        let lead = m.strong(&format!("✗ {code} failed, so this host is not fully checked:"));
        m.banner(out, &format!("{lead} {}", m.prose(&untrusted::message(&e.message))))?;
    }
    m.table(out, &["", ""])?;
    for (key, value) in header::fields(view, context) {
        m.row(out, &[key.to_string(), m.prose(&value)])?;
    }
    let mut s = Summary::default();
    s.add(report);
    let counts = format!(
        "{} errors, {} warnings, {} notes · {} waived · {} not evaluated · {} not applicable",
        s.errors, s.warnings, s.notes, s.waived, s.not_evaluated, s.not_applicable
    );
    m.row(out, &["counts".to_string(), counts])?;
    m.table_end(out)?;
    between(out)?;

    m.heading(out, 3, "Checklist")?;
    m.table(out, &["Rule", "Severity", "State", "Details"])?;
    for r in rows(rules, report) {
        let name =
            if r.name.is_empty() { String::new() } else { format!(" {}", m.prose(&untrusted::name(r.name))) };
        m.row(
            out,
            &[
                format!("{}{name}", m.name(&untrusted::name(r.code))),
                r.severity.map_or("", |s| s.as_str()).to_string(),
                m.state(r.state),
                details(&r, view, m),
            ],
        )?;
    }
    m.table_end(out)?;
    write_findings(m, out, rules, view, report, context.order)?;
    write_waived(m, out, view, report)?;
    write_not_evaluated(m, out, report)
}

fn label(m: &dyn Markup, f: &Finding, host: &str) -> String {
    m.name(&untrusted::label(short_label(&f.entity.label, host)))
}

fn write_findings(
    m: &dyn Markup,
    out: &mut Vec<u8>,
    rules: &[RuleInfo],
    view: &HostView,
    report: &HostReport,
    order: Order,
) -> io::Result<()> {
    let groups = groups(&report.findings, order, rules);
    if groups.is_empty() {
        return Ok(());
    }
    m.heading(out, 3, "Findings")?;
    let host = &report.host;
    let prose = |s: &str| m.prose(&untrusted::message(s));
    for g in &groups {
        let title = format!(
            "{} {} {} · {}",
            m.severity(g.severity),
            m.name_inline(&untrusted::name(g.code)),
            m.prose(&untrusted::name(g.rule)),
            plural(g.findings.len(), "finding")
        );
        m.heading(out, 4, &title)?;
        let one = g.one_message();
        if one {
            m.paragraph(out, &prose(&g.findings[0].message))?;
        }
        if let Some(e) = g.expected {
            m.paragraph(out, &format!("{} {}", m.strong("Expected:"), prose(e)))?;
        }
        let heads: &[&str] =
            if one { &["Entity", "Measured", "Where"] } else { &["Entity", "Measured", "Message", "Where"] };
        m.table(out, heads)?;
        for f in &g.findings {
            let mut entity = label(m, f, host);
            // Against a baseline, what a pipeline fails on is marked where it is listed.
            if f.baseline == Some(BaselineState::New) {
                entity = format!("{} {entity}", m.strong("new"));
            }
            if let Some(w) = f.waiver.as_ref().filter(|w| w.expired) {
                let until = w.expires.as_deref().map_or("?".to_string(), prose);
                entity.push_str(&format!(" (waiver expired on {until})"));
            }
            let mut cells = vec![entity, f.measured.as_deref().map_or("—".to_string(), prose)];
            if !one {
                cells.push(prose(&f.message));
            }
            cells.push(m.name(&location_text(view, f)));
            m.row(out, &cells)?;
        }
        m.table_end(out)?;
        for (gain, at) in g.gains() {
            let lead = if at.len() == g.findings.len() {
                m.strong("Expected gain:")
            } else {
                m.strong(&format!("Expected gain for {}:", entity_names(m, g, &at, host)))
            };
            m.paragraph(
                out,
                &format!(
                    "{lead} {}. Assumes {} Source: {} ({}).",
                    prose(&gain.line()),
                    prose(&gain.assumptions),
                    prose(&gain.evidence),
                    m.name_inline(&untrusted::name(&gain.url))
                ),
            )?;
        }
        let fixes = g.fixes();
        let single = fixes.len() == 1;
        for (fix, at) in fixes.into_iter().filter(|(fix, _)| !fix.trim().is_empty()) {
            if single {
                m.paragraph(out, &m.strong("Fix:"))?;
            } else {
                m.paragraph(out, &m.strong(&format!("Fix for {}:", entity_names(m, g, &at, host))))?;
            }
            write_fix(m, out, fix)?;
        }
    }
    Ok(())
}

/// The entities of a group at `at`, for a heading that applies to some of them only.
fn entity_names(m: &dyn Markup, g: &Group<'_>, at: &[usize], host: &str) -> String {
    let names: Vec<String> = at
        .iter()
        .map(|&i| m.name_inline(&untrusted::label(short_label(&g.findings[i].entity.label, host))))
        .collect();
    names.join(", ")
}

fn write_waived(m: &dyn Markup, out: &mut Vec<u8>, view: &HostView, report: &HostReport) -> io::Result<()> {
    let waived: Vec<&Finding> = report.findings.iter().filter(|f| f.is_waived()).collect();
    if waived.is_empty() {
        return Ok(());
    }
    let prose = |s: &str| m.prose(&untrusted::message(s));
    m.heading(out, 3, "Waived")?;
    m.table(out, &["Rule", "Entity", "Measured", "Until", "Reason", "Waiver from"])?;
    for f in waived {
        let w = f.waiver.as_ref().expect("waived");
        m.row(
            out,
            &[
                format!("{} {}", m.name(&untrusted::name(&f.code)), f.severity),
                label(m, f, &report.host),
                f.measured.as_deref().map_or("—".to_string(), prose),
                w.expires.as_deref().map_or("no expiry".to_string(), prose),
                prose(&w.reason),
                m.name(&format!("{} ({})", untrusted::name(&w.source), location_text(view, f))),
            ],
        )?;
    }
    m.table_end(out)
}

fn write_not_evaluated(m: &dyn Markup, out: &mut Vec<u8>, report: &HostReport) -> io::Result<()> {
    let causes = causes(&report.not_evaluated);
    if causes.is_empty() {
        return Ok(());
    }
    m.heading(out, 3, "Not evaluated")?;
    let n = plural(report.not_evaluated.len(), "check");
    m.paragraph(
        out,
        &format!("{}: a fact was missing. Never a pass.", m.strong(&format!("{n} could not be made"))),
    )?;
    m.list(out, 0)?;
    for c in causes {
        let mut codes: Vec<String> =
            c.codes.iter().take(LISTED).map(|c| m.name_inline(&untrusted::name(c))).collect();
        if c.codes.len() > LISTED {
            codes.push(format!("{} more", c.codes.len() - LISTED));
        }
        let who = plural(c.checks, if c.host_wide { "rule" } else { "check" });
        let need = if c.checks == 1 { "needs" } else { "need" };
        let missing = m.name_inline(&untrusted::name(c.missing));
        if c.reasons.is_empty() {
            m.item(out, 0, &format!("{who} ({}) {need} {missing}: not collected", codes.join(", ")))?;
            m.item_end(out, 0)?;
            continue;
        }
        m.item(out, 0, &format!("{who} ({}) {need} {missing}:", codes.join(", ")))?;
        m.list(out, 1)?;
        for r in &c.reasons {
            // A reason's first line is prose; what follows (a pack entry to declare) is code.
            let r = untrusted::message_keeping_lines(r);
            let (first, rest) = r.split_once('\n').unwrap_or((&r, ""));
            m.item(out, 1, &inline(m, first))?;
            if !rest.trim().is_empty() {
                m.item_code(out, 1, rest)?;
            }
            m.item_end(out, 1)?;
        }
        m.list_end(out, 1)?;
        m.item_end(out, 0)?;
    }
    m.list_end(out, 0)
}
