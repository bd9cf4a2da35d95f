//! The diff written for people (text, Markdown) and for programs (JSON). For people, each host
//! reads most important first: new findings, fixed ones, what changed in the layout, then the
//! latency; unchanged findings are only counted. Every name and message from a snapshot is
//! escaped before it reaches a terminal (and, in Markdown, before Markdown can act on it).

use std::io::{self, Write};

use spindle_core::units;
use spindle_core::untrusted;
use spindle_report::markdown::{code as md_code, text as md_text};

use super::io::{FileIo, IoSide, Metric};
use super::{Diff, DiffFormat, FindingEntry, HostDiff, Presence};
use spindle_core::units::duration;

pub fn write(diff: &Diff, format: DiffFormat, w: &mut dyn Write) -> io::Result<()> {
    match format {
        DiffFormat::Json => {
            serde_json::to_writer_pretty(&mut *w, diff).map_err(io::Error::other)?;
            writeln!(w)
        }
        DiffFormat::Text => text(diff, w),
        DiffFormat::Markdown => markdown(diff, w),
    }
}

/// A finding's entity without its host: the diff is under the host's heading.
fn entity<'a>(host: &str, label: &'a str) -> &'a str {
    label.strip_prefix(host).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

fn counts(diff: &Diff) -> String {
    let s = &diff.summary;
    let mut line = format!("{} compared", units::plural(s.hosts_compared, "host"));
    if s.hosts_added > 0 || s.hosts_removed > 0 {
        line.push_str(&format!(", {} added, {} removed", s.hosts_added, s.hosts_removed));
    }
    line.push_str(&format!(" · findings: {} new, {} fixed, {} unchanged", s.new, s.fixed, s.unchanged));
    if s.not_evaluated_after > 0 {
        line.push_str(&format!(", {} not evaluated after", s.not_evaluated_after));
    }
    line.push_str(&format!(" · {}", units::plural(s.layout_changes, "layout change")));
    if s.warnings > 0 {
        line.push_str(&format!(" · {}", units::plural(s.warnings, "warning")));
    }
    line
}

fn presence(h: &HostDiff) -> &'static str {
    match h.presence {
        Presence::Both => "",
        Presence::Added => " (added: only in AFTER)",
        Presence::Removed => " (removed: only in BEFORE)",
    }
}

/// `149.4 ms`, `847.66 KiB/s`: a metric's value for people.
fn value(m: &Metric, v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if m.name.ends_with("_ms") => units::ms(v),
        Some(v) => format!("{}/s", units::binary(v.round() as u64)),
    }
}

/// `−50.5 %`, `+3 %`, `±0 %`.
fn change(p: f64) -> String {
    let s = units::fixed(p.abs(), 1);
    let s = s.strip_suffix(".0").unwrap_or(&s).to_string();
    if s == "0" {
        "±0 %".into()
    } else if p < 0.0 {
        format!("−{s} %")
    } else {
        format!("+{s} %")
    }
}

fn metric_name(m: &Metric) -> &'static str {
    match m.name {
        "read_stall_ms" => "read stall",
        "write_stall_ms" => "write stall",
        "read_bytes_per_s" => "read",
        "write_bytes_per_s" => "written",
        other => other,
    }
}

fn per(m: &Metric) -> &'static str {
    match m.name {
        "read_stall_ms" => " per read",
        "write_stall_ms" => " per write",
        _ => "",
    }
}

/// `1 read`, `2,000,000 reads`.
fn count(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", units::thousands(n), if n == 1 { "" } else { "s" })
}

/// What two cumulative readings show of the span between them.
fn between_line(b: &IoSide) -> String {
    let mut parts = vec![];
    if let Some(r) = b.avg_read_stall_ms {
        parts.push(format!("read stall {} over {}", units::ms(r), count(b.reads, "read")));
    }
    if let Some(w) = b.avg_write_stall_ms {
        parts.push(format!("write stall {} over {}", units::ms(w), count(b.writes, "write")));
    }
    if parts.is_empty() {
        parts.push("no I/O".into());
    }
    match b.window_ms {
        Some(ms) => format!("{} ({})", parts.join(", "), duration(ms)),
        None => parts.join(", "),
    }
}

fn text(diff: &Diff, w: &mut dyn Write) -> io::Result<()> {
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

/// Whether a person needs to see this file: a measure whose shown value moved, sides that
/// cannot be compared (or something else to say of them), or a span between two readings whose
/// averages, over enough I/Os, differ from BEFORE's.
fn moved(file: &FileIo) -> bool {
    // An average over too few I/Os has no change to show, and moves by chance.
    let shown_moved =
        file.metrics.iter().any(|m| m.change_percent.is_some() && value(m, m.before) != value(m, m.after));
    let between_moved = match (&file.between, &file.before) {
        (Some(span), Some(b)) => {
            let differs = |x: Option<f64>, y: Option<f64>, n: u64| {
                n >= super::io::MIN_IOS && x.map(units::ms) != y.map(units::ms)
            };
            differs(span.avg_read_stall_ms, b.avg_read_stall_ms, span.reads)
                || differs(span.avg_write_stall_ms, b.avg_write_stall_ms, span.writes)
        }
        _ => false,
    };
    file.note.is_some() || !file.comparable || shown_moved || between_moved
}

/// The files a person's report leaves out, counted: those whose measures did not move, and
/// those with too few I/Os to say.
fn unlisted(h: &HostDiff, listed: usize) -> Vec<String> {
    let mut out = vec![];
    let same = h.io.len() - listed;
    if same > 0 {
        out.push(format!("{} with the same averages and rates on both sides", units::plural(same, "file")));
    }
    if h.io_quiet_files > 0 {
        out.push(format!(
            "{} with fewer than {} reads and writes on both sides",
            units::plural(h.io_quiet_files, "file"),
            units::thousands(super::io::MIN_IOS)
        ));
    }
    out
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

/// Data as Markdown prose: escaped for the terminal first, then for Markdown.
fn md(s: &str) -> String {
    md_text(&untrusted::message(s))
}

fn md_name(s: &str, in_table: bool) -> String {
    md_code(&untrusted::label(s), in_table)
}

fn markdown(diff: &Diff, w: &mut dyn Write) -> io::Result<()> {
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
