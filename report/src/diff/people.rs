//! What the text and Markdown diffs share: the counts, and which values and files a person is
//! shown.

use spindle_core::units;
use spindle_core::units::duration;

use super::io::{FileIo, IoSide, MIN_IOS, Metric};
use super::model::{Diff, HostDiff, Presence};

/// A finding's entity without its host: the diff is under the host's heading.
pub(super) fn entity<'a>(host: &str, label: &'a str) -> &'a str {
    label.strip_prefix(host).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

pub(super) fn counts(diff: &Diff) -> String {
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

pub(super) fn presence(h: &HostDiff) -> &'static str {
    match h.presence {
        Presence::Both => "",
        Presence::Added => " (added: only in AFTER)",
        Presence::Removed => " (removed: only in BEFORE)",
    }
}

/// `149.4 ms`, `847.66 KiB/s`: a metric's value for people.
pub(super) fn value(m: &Metric, v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if m.name.ends_with("_ms") => units::ms(v),
        Some(v) => format!("{}/s", units::binary(v.round() as u64)),
    }
}

/// `−50.5 %`, `+3 %`, `±0 %`.
pub(super) fn change(p: f64) -> String {
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

pub(super) fn metric_name(m: &Metric) -> &'static str {
    match m.name {
        "read_stall_ms" => "read stall",
        "write_stall_ms" => "write stall",
        "read_bytes_per_s" => "read",
        "write_bytes_per_s" => "written",
        other => other,
    }
}

pub(super) fn per(m: &Metric) -> &'static str {
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
pub(super) fn between_line(b: &IoSide) -> String {
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

/// Whether a person needs to see this file: a measure whose shown value moved, sides that
/// cannot be compared (or something else to say of them), or a span between two readings whose
/// averages, over enough I/Os, differ from BEFORE's.
pub(super) fn moved(file: &FileIo) -> bool {
    // An average over too few I/Os has no change to show, and moves by chance.
    let shown_moved =
        file.metrics.iter().any(|m| m.change_percent.is_some() && value(m, m.before) != value(m, m.after));
    let between_moved = match (&file.between, &file.before) {
        (Some(span), Some(b)) => {
            let differs =
                |x: Option<f64>, y: Option<f64>, n: u64| n >= MIN_IOS && x.map(units::ms) != y.map(units::ms);
            differs(span.avg_read_stall_ms, b.avg_read_stall_ms, span.reads)
                || differs(span.avg_write_stall_ms, b.avg_write_stall_ms, span.writes)
        }
        _ => false,
    };
    file.note.is_some() || !file.comparable || shown_moved || between_moved
}

/// The files a person's report leaves out, counted: those whose measures did not move, and
/// those with too few I/Os to say.
pub(super) fn unlisted(h: &HostDiff, listed: usize) -> Vec<String> {
    let mut out = vec![];
    let same = h.io.len() - listed;
    if same > 0 {
        out.push(format!("{} with the same averages and rates on both sides", units::plural(same, "file")));
    }
    if h.io_quiet_files > 0 {
        out.push(format!(
            "{} with fewer than {} reads and writes on both sides",
            units::plural(h.io_quiet_files, "file"),
            units::thousands(MIN_IOS)
        ));
    }
    out
}
