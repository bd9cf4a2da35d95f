//! The diff for a change ticket: the text's order, as Markdown, escaped for the terminal and
//! then for Markdown.

use std::io::{self, Write};

use spindle_core::untrusted;

use super::findings::FindingEntry;
use super::io::{FileIo, IoSide};
use super::model::{Diff, HostDiff, Presence};
use super::people::{
    between_line, change, counts, entity, metric_name, moved, per, presence, unlisted, value,
};
use crate::markdown::{code as md_code, text as md_text};

/// Data as Markdown prose: escaped for the terminal first, then for Markdown.
fn md(s: &str) -> String {
    md_text(&untrusted::message(s))
}

fn md_name(s: &str, in_table: bool) -> String {
    md_code(&untrusted::label(s), in_table)
}

pub(super) fn markdown(diff: &Diff, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "# spindle diff")?;
    writeln!(w)?;
    writeln!(w, "{} → {}", md_name(&diff.before, false), md_name(&diff.after, false))?;
    writeln!(w)?;
    writeln!(w, "{}", md_text(&counts(diff)))?;
    for h in &diff.hosts {
        markdown_host(h, w)?;
    }
    Ok(())
}

fn md_finding(w: &mut dyn Write, host: &str, f: &FindingEntry) -> io::Result<()> {
    let waived = if f.waived { " (waived)" } else { "" };
    write!(
        w,
        "- **{}** {} {}{waived} · {}: {}",
        f.severity.as_str(),
        md_name(&f.code, false),
        md(&f.rule),
        md_name(entity(host, &f.entity), false),
        md(&f.message)
    )?;
    if let Some(r) = &f.reason {
        write!(w, " — not evaluated after: {}", md(r))?;
    }
    writeln!(w)
}

fn markdown_host(h: &HostDiff, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w)?;
    writeln!(w, "## {}{}", md(&h.host), md_text(presence(h)))?;
    writeln!(w)?;
    let f = &h.findings;
    writeln!(
        w,
        "Findings: {} new, {} fixed, {} unchanged, {} not evaluated after.",
        f.new.len(),
        f.fixed.len(),
        f.unchanged.len(),
        f.not_evaluated_after.len()
    )?;
    if !h.warnings.is_empty() {
        writeln!(w)?;
        for warning in &h.warnings {
            writeln!(w, "> **Warning:** {}", md(warning))?;
        }
    }
    let lists: [(&str, &[FindingEntry]); 3] = [
        ("New findings", &f.new),
        ("Fixed findings", &f.fixed),
        ("Not evaluated after", &f.not_evaluated_after),
    ];
    for (title, list) in lists {
        if list.is_empty() && title == "Not evaluated after" {
            continue;
        }
        writeln!(w)?;
        writeln!(w, "### {title} ({})", list.len())?;
        writeln!(w)?;
        if list.is_empty() {
            writeln!(w, "None.")?;
        }
        for x in list {
            md_finding(w, &h.host, x)?;
        }
    }
    if h.presence != Presence::Both {
        return Ok(());
    }
    writeln!(w)?;
    writeln!(w, "### Layout changes ({})", h.layout.len())?;
    writeln!(w)?;
    if h.layout.is_empty() {
        writeln!(w, "None.")?;
    } else {
        writeln!(w, "| Change | Entity | What |")?;
        writeln!(w, "|---|---|---|")?;
        for c in &h.layout {
            writeln!(w, "| {} | {} | {} |", c.kind.describe(), md_name(&c.entity, true), md(&c.detail))?;
        }
    }
    writeln!(w)?;
    let moved: Vec<&FileIo> = h.io.iter().filter(|f| moved(f)).collect();
    writeln!(w, "### Latency and throughput ({})", moved.len())?;
    writeln!(w)?;
    if moved.is_empty() {
        writeln!(w, "None.")?;
    } else {
        writeln!(w, "| File | Measure | Before | After | Change |")?;
        writeln!(w, "|---|---|---|---|---|")?;
        for file in &moved {
            let name = format!("{} ({})", md_name(&file.file, true), file.file_type);
            for m in &file.metrics {
                let change = m.change_percent.map_or_else(|| "–".to_string(), change);
                writeln!(
                    w,
                    "| {name} | {}{} | {} | {} | {change} |",
                    metric_name(m),
                    per(m),
                    value(m, m.before),
                    value(m, m.after)
                )?;
            }
            let side = |s: &Option<IoSide>| s.as_ref().map_or_else(|| "none".to_string(), IoSide::describe);
            let note = file.note.as_deref().map(md).unwrap_or_default();
            writeln!(w, "| {name} | counters | {} | {} | {note} |", side(&file.before), side(&file.after))?;
            if let Some(b) = &file.between {
                writeln!(w, "| {name} | between the snapshots | | {} | |", between_line(b))?;
            }
        }
    }
    let rest = unlisted(h, moved.len());
    if !rest.is_empty() {
        writeln!(w)?;
        writeln!(w, "And {}.", rest.join("; and "))?;
    }
    Ok(())
}
