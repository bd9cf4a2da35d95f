//! The latency and throughput of each database file before and after: the average read and
//! write stall per I/O (`io_stall_read_ms / num_of_reads`, as the latency rules compute it) and
//! the bytes read and written per second where the counters' window (`sample_ms`) is known.
//!
//! `sys.dm_io_virtual_file_stats` counts from the service's start. A snapshot holds either those
//! cumulative counters (`sample_ms` is then the uptime, or absent when unknown) or the difference
//! of two readings a short time apart (`collect sql --sample`, `sample_ms` the interval). An
//! average over weeks mixes every workload the server ran; one over a minute is the present. The
//! two answer different questions, so a sampled side is compared only with a sampled side and a
//! cumulative one only with a cumulative one: a mixed pair is "not comparable", said rather than
//! computed. The counters' `window` (`since_start` or `sample`, written by the SQL collector)
//! says which a side holds. Only when it is absent (a snapshot written before the field, or by a
//! collector that does not record it) is it guessed from the window's length: at most
//! [`SAMPLE_MAX_MS`] counts as a sample of the present, whether `--sample` took it or the service
//! started within the hour.
//!
//! Two cumulative readings of one service are ordered: every counter only grows. One that went
//! backwards, or an uptime that shrank, means the service restarted in between and the counters
//! were reset: the host gets a warning, as AFTER then covers only the time since the restart.
//! When nothing was reset, AFTER's counters include BEFORE's, and their difference is what the
//! files did between the two snapshots: that is shown too.

use std::collections::HashMap;

use spindle_core::facts::{FileType, IoStats, IoWindow};
use spindle_core::units;
use spindle_core::units::duration;
use spindle_core::view::{DatabaseView, HostView, Located};
pub use spindle_report::diff::{FileIo, IoSide, MIN_IOS, Metric, WindowKind};

/// The longest window counted as a sample of the present rather than a history, when the
/// counters do not say which they are.
pub const SAMPLE_MAX_MS: u64 = 60 * 60 * 1000;

/// What counters of an unrecorded kind cover, from their window's length.
fn guessed(sample_ms: Option<u64>) -> WindowKind {
    match sample_ms {
        Some(ms) if ms <= SAMPLE_MAX_MS => WindowKind::Sampled,
        _ => WindowKind::Cumulative,
    }
}

/// A side's counters, of the kind they record (else guessed from their window).
fn side_of(io: &IoStats) -> IoSide {
    let window = match io.window {
        Some(IoWindow::Sample) => WindowKind::Sampled,
        Some(IoWindow::SinceStart) => WindowKind::Cumulative,
        None => guessed(io.sample_ms),
    };
    IoSide { window_recorded: io.window.is_some(), ..side_with(io, window) }
}

/// A side's counters taken as covering `window`.
fn side_with(io: &IoStats, window: WindowKind) -> IoSide {
    let per_s = |bytes: u64| io.sample_ms.map(|ms| bytes as f64 * 1000.0 / ms as f64);
    IoSide {
        window,
        window_recorded: false,
        window_ms: io.sample_ms,
        reads: io.num_of_reads,
        writes: io.num_of_writes,
        avg_read_stall_ms: io.avg_read_stall_ms(),
        avg_write_stall_ms: io.avg_write_stall_ms(),
        read_bytes_per_s: per_s(io.num_of_bytes_read),
        write_bytes_per_s: per_s(io.num_of_bytes_written),
    }
}

/// Every file's comparison, and the warnings of the host.
pub struct IoDiff {
    pub files: Vec<FileIo>,
    /// Files with counters, but fewer than [`MIN_IOS`] reads and writes on every side.
    pub quiet_files: usize,
    pub warnings: Vec<String>,
}

/// A file's name and key: instance, database, logical name.
fn file_name(
    view: &HostView,
    d: &DatabaseView,
    f: &Located<spindle_core::facts::DbFile>,
) -> (String, String) {
    let instance = view.instances.as_deref().and_then(|i| i.get(d.instance)).map_or("", |i| i.name.as_str());
    let name = format!("{instance} › {} › {}", d.db.name, f.logical_name);
    let key = format!(
        "{}\u{0}{}\u{0}{}",
        instance.to_lowercase(),
        d.db.name.to_lowercase(),
        f.logical_name.to_lowercase()
    );
    (name, key)
}

fn type_name(t: FileType) -> &'static str {
    match t {
        FileType::Rows => "rows",
        FileType::Log => "log",
        FileType::Filestream => "filestream",
        FileType::Fulltext => "fulltext",
    }
}

/// The counters that went backwards from `b` to `a`, named, with both values.
fn went_backwards(b: &IoStats, a: &IoStats) -> Option<String> {
    let fields = [
        ("num_of_reads", b.num_of_reads, a.num_of_reads),
        ("num_of_writes", b.num_of_writes, a.num_of_writes),
        ("num_of_bytes_read", b.num_of_bytes_read, a.num_of_bytes_read),
        ("num_of_bytes_written", b.num_of_bytes_written, a.num_of_bytes_written),
        ("io_stall_read_ms", b.io_stall_read_ms, a.io_stall_read_ms),
        ("io_stall_write_ms", b.io_stall_write_ms, a.io_stall_write_ms),
    ];
    fields
        .iter()
        .find(|(_, b, a)| a < b)
        .map(|(name, b, a)| format!("{name} {} → {}", units::thousands(*b), units::thousands(*a)))
}

/// Seconds since 1970 of an RFC 3339 time (`2010-01-12T10:05:31+00:00`, `…Z`, fractions of a
/// second ignored); `None` for anything else.
pub fn epoch_seconds(s: &str) -> Option<i64> {
    let s = s.trim();
    let date = spindle_core::date::Date::parse(s.get(..10)?)?;
    let rest = s.get(10..)?;
    if !rest.starts_with(['T', 't', ' ']) {
        return None;
    }
    let time = rest.get(1..9)?;
    let b = time.as_bytes();
    if b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, m, sec): (i64, i64, i64) =
        (time[0..2].parse().ok()?, time[3..5].parse().ok()?, time[6..8].parse().ok()?);
    let mut zone = &rest[9..];
    if let Some(frac) = zone.strip_prefix('.') {
        zone = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match zone {
        "Z" | "z" => 0,
        z if z.len() == 6 && (z.starts_with('+') || z.starts_with('-')) && z.as_bytes()[3] == b':' => {
            let minutes = z.get(1..3)?.parse::<i64>().ok()? * 60 + z.get(4..6)?.parse::<i64>().ok()?;
            if z.starts_with('-') { -minutes * 60 } else { minutes * 60 }
        }
        _ => return None,
    };
    Some(date.days_since_epoch() * 86_400 + h * 3600 + m * 60 + sec - offset)
}

/// A file's counters on one side, with when they were collected.
#[derive(Clone, Copy)]
struct Reading {
    io: IoStats,
    /// Seconds since 1970 of the snapshot that holds the file, when it says.
    at: Option<i64>,
}

/// A file with its readings, and its instance's name.
struct Paired {
    name: String,
    instance: String,
    file_type: FileType,
    before: Option<Reading>,
    after: Option<Reading>,
}

/// Why two cumulative readings of one file cannot come from one run of the service, if they
/// cannot: a counter went backwards, the uptime shrank, or it grew less than the time between
/// the two collections.
fn restart_evidence(b: &Reading, a: &Reading) -> Option<String> {
    if let Some(backwards) = went_backwards(&b.io, &a.io) {
        return Some(backwards);
    }
    let (bm, am) = (b.io.sample_ms?, a.io.sample_ms?);
    if am < bm {
        return Some(format!("the counters' window shrank from {} to {}", duration(bm), duration(am)));
    }
    let elapsed_ms = u64::try_from(a.at? - b.at?).ok()?.checked_mul(1000)?;
    // Uptime and wall clock advance together; a tenth of the span (at least 10 minutes) covers
    // clocks and collection time.
    let slack_ms = (elapsed_ms / 10).max(10 * 60 * 1000);
    (am.saturating_add(slack_ms) < bm.saturating_add(elapsed_ms)).then(|| {
        format!("the counters covered {} and, {} later, {}", duration(bm), duration(elapsed_ms), duration(am))
    })
}

/// Compares the I/O of every file the two views share, in AFTER's order, then BEFORE's files
/// AFTER has no counters for; a file with counters on one side only is listed, not compared.
pub fn compare(before: &HostView, after: &HostView) -> IoDiff {
    let reading = |view: &HostView, f: &Located<spindle_core::facts::DbFile>| {
        let at = f
            .origins
            .first()
            .and_then(|o| view.provenance.get(o.doc))
            .and_then(|p| p.collected_at.as_deref())
            .and_then(epoch_seconds);
        f.io.map(|io| Reading { io, at })
    };
    let mut earlier: HashMap<String, (Paired, bool)> = HashMap::new();
    let mut order: Vec<String> = vec![];
    for (d, f) in before.files() {
        let (name, key) = file_name(before, d, f);
        if earlier.contains_key(&key) {
            continue;
        }
        let instance = instance_of(before, d);
        order.push(key.clone());
        let p = Paired { name, instance, file_type: f.file_type, before: reading(before, f), after: None };
        earlier.insert(key, (p, false));
    }
    let mut files: Vec<Paired> = vec![];
    for (d, f) in after.files() {
        let (name, key) = file_name(after, d, f);
        let b = earlier.get_mut(&key).filter(|(_, taken)| !taken).and_then(|(p, taken)| {
            *taken = true;
            p.before
        });
        let instance = instance_of(after, d);
        files.push(Paired { name, instance, file_type: f.file_type, before: b, after: reading(after, f) });
    }
    for key in order {
        if let Some((p, false)) = earlier.remove(&key) {
            files.push(p);
        }
    }

    // A restart resets every counter of the instance: one file's evidence speaks for all of them.
    // Counters that went backwards are the plainest evidence, so they are looked for first.
    let mut restarted: Vec<(String, String)> = vec![];
    for counters_only in [true, false] {
        for p in &files {
            if restarted.iter().any(|(i, _)| *i == p.instance) {
                continue;
            }
            let (Some(b), Some(a)) = (&p.before, &p.after) else { continue };
            if side_of(&b.io).window != WindowKind::Cumulative
                || side_of(&a.io).window != WindowKind::Cumulative
            {
                continue;
            }
            let why = if counters_only { went_backwards(&b.io, &a.io) } else { restart_evidence(b, a) };
            if let Some(why) = why {
                restarted.push((p.instance.clone(), format!("{}: {why}", p.name)));
            }
        }
    }

    let mut out = IoDiff { files: vec![], quiet_files: 0, warnings: vec![] };
    for p in files {
        let reset = restarted.iter().any(|(i, _)| *i == p.instance);
        let Some(file) = compare_file(
            p.name,
            p.file_type,
            p.before.map(|r| r.io).as_ref(),
            p.after.map(|r| r.io).as_ref(),
            reset,
        ) else {
            continue;
        };
        if file.before.as_ref().is_none_or(|s| !s.busy()) && file.after.as_ref().is_none_or(|s| !s.busy()) {
            out.quiet_files += 1;
        } else {
            out.files.push(file);
        }
    }
    out.warnings = restarted
        .into_iter()
        .map(|(instance, why)| {
            format!(
                "instance {instance} restarted between the snapshots and its I/O counters were reset \
                 ({why}): AFTER's counters cover only the time since the restart, BEFORE's an earlier span"
            )
        })
        .collect();
    out
}

fn instance_of(view: &HostView, d: &DatabaseView) -> String {
    view.instances.as_deref().and_then(|i| i.get(d.instance)).map_or("", |i| i.name.as_str()).to_string()
}

/// One file: its comparison (`None` when neither side has counters). `reset`: its instance
/// restarted between two cumulative readings, so they share no span.
fn compare_file(
    name: String,
    file_type: FileType,
    before: Option<&IoStats>,
    after: Option<&IoStats>,
    reset: bool,
) -> Option<FileIo> {
    let mut out = FileIo {
        file: name,
        file_type: type_name(file_type),
        before: before.map(side_of),
        after: after.map(side_of),
        comparable: false,
        note: None,
        metrics: vec![],
        between: None,
    };
    let (b, a) = match (before, after) {
        (Some(b), Some(a)) => (b, a),
        (None, None) => return None,
        (b, _) => {
            let side = if b.is_some() { "AFTER" } else { "BEFORE" };
            out.note = Some(format!("no I/O counters {side}: nothing to compare"));
            out.metrics = metrics(out.before.as_ref(), out.after.as_ref(), false);
            return Some(out);
        }
    };
    let (sb, sa) = (side_of(b), side_of(a));
    if sb.window != sa.window {
        out.note = Some(format!(
            "not comparable: BEFORE's counters are {}, AFTER's {}; compare a sample with a sample \
             (`spindle collect sql --sample 5m` on both sides)",
            sb.describe(),
            sa.describe()
        ));
    } else {
        out.comparable = true;
        if sb.window == WindowKind::Cumulative && !reset && went_backwards(b, a).is_none() {
            out.between = Some(between(b, a));
        }
    }
    out.metrics = metrics(Some(&sb), Some(&sa), out.comparable);
    out.before = Some(sb);
    out.after = Some(sa);
    Some(out)
}

/// The counters of the span between two cumulative readings with no restart in between.
fn between(b: &IoStats, a: &IoStats) -> IoSide {
    let d = IoStats {
        num_of_reads: a.num_of_reads - b.num_of_reads,
        num_of_writes: a.num_of_writes - b.num_of_writes,
        num_of_bytes_read: a.num_of_bytes_read - b.num_of_bytes_read,
        num_of_bytes_written: a.num_of_bytes_written - b.num_of_bytes_written,
        io_stall_read_ms: a.io_stall_read_ms - b.io_stall_read_ms,
        io_stall_write_ms: a.io_stall_write_ms - b.io_stall_write_ms,
        sample_ms: match (b.sample_ms, a.sample_ms) {
            (Some(bm), Some(am)) if am > bm => Some(am - bm),
            _ => None,
        },
        // A span between two readings: no collector recorded what it is.
        window: None,
    };
    side_with(&d, guessed(d.sample_ms))
}

/// The measures of either side; a change only where `comparable` and each side has enough.
fn metrics(b: Option<&IoSide>, a: Option<&IoSide>, comparable: bool) -> Vec<Metric> {
    let change = |before: Option<f64>, after: Option<f64>, enough: bool| match (before, after) {
        (Some(x), Some(y)) if comparable && enough && x > 0.0 => Some((y - x) / x * 100.0),
        _ => None,
    };
    let enough = |count: fn(&IoSide) -> u64| [b, a].iter().all(|s| s.is_some_and(|s| count(s) >= MIN_IOS));
    let (reads, writes) = (enough(|s| s.reads), enough(|s| s.writes));
    let get = |s: Option<&IoSide>, f: fn(&IoSide) -> Option<f64>| s.and_then(f);
    let mut out = vec![];
    let mut push = |name, before: Option<f64>, after: Option<f64>, enough| {
        if before.is_some() || after.is_some() {
            out.push(Metric { name, before, after, change_percent: change(before, after, enough) });
        }
    };
    push("read_stall_ms", get(b, |s| s.avg_read_stall_ms), get(a, |s| s.avg_read_stall_ms), reads);
    push("write_stall_ms", get(b, |s| s.avg_write_stall_ms), get(a, |s| s.avg_write_stall_ms), writes);
    push("read_bytes_per_s", get(b, |s| s.read_bytes_per_s), get(a, |s| s.read_bytes_per_s), true);
    push("write_bytes_per_s", get(b, |s| s.write_bytes_per_s), get(a, |s| s.write_bytes_per_s), true);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(reads: u64, stall_ms: u64, sample_ms: Option<u64>) -> IoStats {
        IoStats {
            num_of_reads: reads,
            num_of_writes: 0,
            num_of_bytes_read: reads * 8192,
            num_of_bytes_written: 0,
            io_stall_read_ms: stall_ms,
            io_stall_write_ms: 0,
            sample_ms,
            window: None,
        }
    }

    fn file(before: &IoStats, after: &IoStats, reset: bool) -> FileIo {
        compare_file("f".into(), FileType::Rows, Some(before), Some(after), reset).unwrap()
    }

    const DAY_MS: u64 = 86_400_000;
    const DAYS_21: u64 = 21 * DAY_MS;

    #[test]
    fn samples_compare_with_samples_and_a_mixed_pair_is_not_comparable() {
        let sampled = io(10_000, 200_000, Some(60_000));
        let faster = io(12_000, 60_000, Some(60_000));
        let f = file(&sampled, &faster, false);
        assert!(f.comparable && f.between.is_none());
        assert_eq!(f.metrics[0].name, "read_stall_ms");
        assert_eq!((f.metrics[0].before, f.metrics[0].after), (Some(20.0), Some(5.0)));
        assert_eq!(f.metrics[0].change_percent, Some(-75.0));
        // 10,000 × 8 KiB over 60 s.
        assert_eq!(f.metrics[1].before, Some(10_000.0 * 8192.0 / 60.0));

        let history = io(62_500_000, 9_337_500_000, Some(DAYS_21));
        let f = file(&history, &faster, false);
        assert!(!f.comparable);
        assert!(f.note.as_deref().unwrap().starts_with(
            "not comparable: BEFORE's counters are cumulative over 21 days, AFTER's sampled over 1 min"
        ));
        assert!(f.metrics.iter().all(|m| m.change_percent.is_none()));
    }

    #[test]
    fn a_recorded_window_is_believed_over_its_length() {
        const MIN_30: u64 = 30 * 60 * 1000;
        // A service started half an hour ago: its counters are a history, however short.
        let since_start = IoStats { window: Some(IoWindow::SinceStart), ..io(10_000, 200_000, Some(MIN_30)) };
        let sample = IoStats { window: Some(IoWindow::Sample), ..io(12_000, 60_000, Some(5 * 60_000)) };
        let f = file(&since_start, &sample, false);
        assert!(!f.comparable, "{f:?}");
        assert!(
            f.note
                .as_deref()
                .unwrap()
                .contains("BEFORE's counters are cumulative over 30 min, AFTER's sampled")
        );
        assert!(f.before.as_ref().is_some_and(|s| s.window_recorded));
        // Not recorded, the same half hour is guessed a sample, and compared.
        let f = file(&io(10_000, 200_000, Some(MIN_30)), &sample, false);
        assert!(f.comparable && !f.before.as_ref().unwrap().window_recorded);
        assert_eq!(f.before.unwrap().window, WindowKind::Sampled);
        // And a sample recorded as one is a sample over any window.
        let day_sample = IoStats { window: Some(IoWindow::Sample), ..io(1, 1, Some(DAY_MS)) };
        assert_eq!(side_of(&day_sample).window, WindowKind::Sampled);
    }

    #[test]
    fn a_restart_shows_in_counters_that_went_backwards_or_an_uptime_that_did_not_keep_up() {
        let at = |io, at| Reading { io, at };
        let before = at(io(62_500_000, 9_337_500_000, None), None);
        let after = at(io(1_200_000, 88_800_000, None), None);
        assert_eq!(restart_evidence(&before, &after).as_deref(), Some("num_of_reads 62,500,000 → 1,200,000"));
        let f = file(&before.io, &after.io, true);
        assert!(f.comparable, "each side's average stands on its own");
        assert_eq!(f.metrics[0].change_percent.map(|p| units::fixed(p, 1)), Some("-50.5".into()));
        assert!(f.metrics.iter().all(|m| !m.name.ends_with("per_s")), "no window, no rate");

        let (b, a) = (io(1_000, 10_000, Some(DAYS_21)), io(5_000, 20_000, Some(3 * DAY_MS)));
        assert_eq!(
            restart_evidence(&at(b, None), &at(a, None)).as_deref(),
            Some("the counters' window shrank from 21 days to 3 days")
        );
        // Counters that grew, over the same 21 days of uptime, four weeks apart.
        let (b, a) = (io(1_000, 10_000, Some(DAYS_21)), io(5_000, 20_000, Some(DAYS_21)));
        let jan = epoch_seconds("2010-01-12T10:05:31+00:00");
        let feb = epoch_seconds("2010-02-09T10:05:31Z");
        assert_eq!(
            restart_evidence(&at(b, jan), &at(a, feb)).as_deref(),
            Some("the counters covered 21 days and, 28 days later, 21 days")
        );
        // The same service a day later: no restart.
        let a = io(5_000, 20_000, Some(DAYS_21 + DAY_MS));
        let next_day = epoch_seconds("2010-01-13T10:05:31+00:00");
        assert_eq!(restart_evidence(&at(b, jan), &at(a, next_day)), None);
    }

    #[test]
    fn without_a_restart_the_span_between_two_cumulative_readings_is_shown() {
        let before = io(10_000, 1_000_000, Some(DAYS_21));
        let after = io(30_000, 1_100_000, Some(DAYS_21 + DAY_MS));
        let between = file(&before, &after, false).between.unwrap();
        assert_eq!(
            (between.reads, between.avg_read_stall_ms, between.window_ms),
            (20_000, Some(5.0), Some(DAY_MS))
        );
        assert!(file(&before, &after, true).between.is_none(), "a restart leaves no common span");
    }

    #[test]
    fn too_few_ios_give_values_but_no_change() {
        let f = file(&io(412, 8652, Some(60_000)), &io(5_000, 10_000, Some(60_000)), false);
        assert_eq!((f.metrics[0].before, f.metrics[0].change_percent), (Some(21.0), None));
    }

    #[test]
    fn collection_times_in_any_offset() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(epoch_seconds("1970-01-01T00:00:00.123-00:30"), Some(1800));
        assert_eq!(epoch_seconds("2010-01-12"), None);
        assert_eq!(epoch_seconds("2010-01-12T10:05"), None);
        // Untrusted text: whatever it holds is no time, never a panic.
        assert_eq!(epoch_seconds("2010-01-12T10:05:31+1é00"), None);
        assert_eq!(epoch_seconds("2010-01-12T10:0é:31Z"), None);
        assert_eq!(epoch_seconds("2010-01-12T10:05:31.é"), None);
    }
}
