//! The diff for people at a terminal: per host, new findings, fixed ones, layout changes, then
//! latency; every name and message from a snapshot escaped.

use std::io::{self, Write};

use spindle_core::untrusted;

use super::findings::FindingEntry;
use super::io::{FileIo, IoSide};
use super::model::{Diff, HostDiff, Presence};
use super::people::{
    between_line, change, counts, entity, metric_name, moved, per, presence, unlisted, value,
};

pub(super) fn text(diff: &Diff, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "spindle diff {} → {}", untrusted::name(&diff.before), untrusted::name(&diff.after))?;
    writeln!(w, "  {}", counts(diff))?;
    for h in &diff.hosts {
        text_host(h, w)?;
    }
    Ok(())
}

fn text_finding(w: &mut dyn Write, host: &str, f: &FindingEntry) -> io::Result<()> {
    let waived = if f.waived { " (waived)" } else { "" };
    writeln!(
        w,
        "    {:<8} {} {}{waived} · {}",
        f.severity.as_str(),
        untrusted::name(&f.code),
        untrusted::name(&f.rule),
        untrusted::label(entity(host, &f.entity))
    )?;
    writeln!(w, "             {}", untrusted::message(&f.message))?;
    if let Some(r) = &f.reason {
        writeln!(w, "             not evaluated after: {}", untrusted::message(r))?;
    }
    Ok(())
}

fn text_host(h: &HostDiff, w: &mut dyn Write) -> io::Result<()> {
    let host = untrusted::name(&h.host);
    let title = format!("━━ {host}{} ", presence(h));
    writeln!(w)?;
    writeln!(w, "{title}{}", "━".repeat(80usize.saturating_sub(title.chars().count())))?;
    for (side, info) in [("before", &h.before), ("after", &h.after)] {
        let Some(info) = info else { continue };
        let files: Vec<_> = info.snapshots.iter().map(|s| untrusted::name(s).into_owned()).collect();
        let when: Vec<_> = info.collected_at.iter().map(|s| untrusted::name(s).into_owned()).collect();
        let when = if when.is_empty() { String::new() } else { format!(" (collected {})", when.join(", ")) };
        writeln!(w, "  {side:<7}{}{when}", files.join(", "))?;
    }
    let f = &h.findings;
    writeln!(
        w,
        "  findings {} new, {} fixed, {} unchanged{}",
        f.new.len(),
        f.fixed.len(),
        f.unchanged.len(),
        if f.not_evaluated_after.is_empty() {
            String::new()
        } else {
            format!(", {} not evaluated after", f.not_evaluated_after.len())
        }
    )?;
    for warning in &h.warnings {
        writeln!(w, "  warning: {}", untrusted::message(warning))?;
    }
    let section = |w: &mut dyn Write, title: &str, n: usize| -> io::Result<()> {
        writeln!(w)?;
        if n == 0 { writeln!(w, "  {title}: none") } else { writeln!(w, "  {title} ({n})") }
    };
    section(w, "New findings", f.new.len())?;
    for x in &f.new {
        text_finding(w, &h.host, x)?;
    }
    section(w, "Fixed findings", f.fixed.len())?;
    for x in &f.fixed {
        text_finding(w, &h.host, x)?;
    }
    if !f.not_evaluated_after.is_empty() {
        section(w, "Not evaluated after (neither fixed nor found)", f.not_evaluated_after.len())?;
        for x in &f.not_evaluated_after {
            text_finding(w, &h.host, x)?;
        }
    }
    if h.presence != Presence::Both {
        return Ok(());
    }
    section(w, "Layout changes", h.layout.len())?;
    // One column for the kinds of this host's changes, as wide as the longest.
    let kind_width = h.layout.iter().map(|c| c.kind.describe().chars().count()).max().unwrap_or(0);
    for c in &h.layout {
        writeln!(
            w,
            "    {:<kind_width$} {}: {}",
            c.kind.describe(),
            untrusted::label(&c.entity),
            untrusted::message(&c.detail)
        )?;
    }
    let moved: Vec<&FileIo> = h.io.iter().filter(|f| moved(f)).collect();
    section(w, "Latency and throughput", moved.len())?;
    for file in &moved {
        text_file(w, file)?;
    }
    for rest in unlisted(h, moved.len()) {
        writeln!(w, "    and {rest}")?;
    }
    Ok(())
}

fn text_file(w: &mut dyn Write, file: &FileIo) -> io::Result<()> {
    writeln!(w, "    {} ({})", untrusted::label(&file.file), file.file_type)?;
    for m in &file.metrics {
        let change = m.change_percent.map(|p| format!(" ({})", change(p))).unwrap_or_default();
        writeln!(
            w,
            "      {:<12} {} → {}{}{change}",
            metric_name(m),
            value(m, m.before),
            value(m, m.after),
            per(m)
        )?;
    }
    let side = |s: &Option<IoSide>| s.as_ref().map_or_else(|| "none".to_string(), IoSide::describe);
    writeln!(w, "      {:<12} {} → {}", "counters", side(&file.before), side(&file.after))?;
    if let Some(b) = &file.between {
        writeln!(w, "      {:<12} {}", "between", between_line(b))?;
    }
    if let Some(note) = &file.note {
        writeln!(w, "      {note}")?;
    }
    Ok(())
}
