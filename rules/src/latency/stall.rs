//! Arithmetic shared by the latency rules: averages that refuse to average too little, the
//! reference bands, and how to say what window the counters cover.

use spindle_core::facts::DbFile;
use spindle_core::finding::{Quantity, Severity};
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::Located;

/// The average stall per I/O, or why there is none worth judging.
///
/// `count` I/Os stalled `stall_ms` in total. No I/O at all is no data, never 0 ms; fewer than
/// `min_count` I/Os are too few: one slow I/O of `t` ms moves an average over `n` I/Os by
/// `t / n`, so a handful of cold reads after start-up could swing it across every band.
pub(crate) fn average(
    stall_ms: u64,
    count: u64,
    min_count: u64,
    what: &str,
    param: &str,
) -> Result<f64, String> {
    if count == 0 {
        return Err(format!("0 {what}: no data to average, which is not an average of 0 ms"));
    }
    if count < min_count {
        return Err(format!(
            "only {} {what} with {} ms of stall, fewer than {param} = {}: too few for an average to mean anything",
            units::thousands(count),
            units::thousands(stall_ms),
            units::thousands(min_count)
        ));
    }
    Ok(stall_ms as f64 / count as f64)
}

/// `a >= b`, forgiving the last bits of floating-point noise (a 20 ms threshold computed from
/// parameters must still catch an average of exactly 20 ms).
pub(crate) fn at_least(a: f64, b: f64) -> bool {
    a >= b - 1e-9 * b.abs().max(1.0)
}

/// The severity an average earns against a warning and an error threshold, if any.
pub(crate) fn level(avg_ms: f64, warn_ms: f64, error_ms: f64) -> Option<Severity> {
    if at_least(avg_ms, error_ms) {
        Some(Severity::Error)
    } else if at_least(avg_ms, warn_ms) {
        Some(Severity::Warning)
    } else {
        None
    }
}

/// The band of an average per-file stall, from Microsoft's "Troubleshoot slow SQL Server
/// performance caused by I/O issues" as summarised in domain.md §8: < 2 ms excellent, 2–5 very
/// good, 6–15 good, 16–100 poor, 100–500 bad, > 500 deplorable. The published bands are whole
/// milliseconds with gaps (5–6, 15–16); a fraction belongs to the band below the next boundary
/// (5.5 ms is very good), and 100 ms exactly is bad, where the error threshold starts.
pub(crate) fn band(avg_ms: f64) -> &'static str {
    if avg_ms < 2.0 {
        "excellent (< 2 ms)"
    } else if avg_ms < 6.0 {
        "very good (2–5 ms)"
    } else if avg_ms < 16.0 {
        "good (6–15 ms)"
    } else if avg_ms < 100.0 {
        "poor (16–100 ms)"
    } else if avg_ms <= 500.0 {
        "bad (100–500 ms)"
    } else {
        "deplorable (> 500 ms)"
    }
}

/// What the counters cover, for a message: `over 2.5 h of counters`, or a warning that the
/// window is unknown.
pub(crate) fn window(sample_ms: Option<u64>) -> String {
    match sample_ms {
        Some(ms) => format!("over {} of counters", duration(ms)),
        None => "window not recorded: cumulative since start-up unless the collector sampled".into(),
    }
}

/// A duration for people: `850 ms`, `42 s`, `15 min`, `2.5 h`, `3.2 days`.
pub(crate) fn duration(ms: u64) -> String {
    const S: u64 = 1000;
    const MIN: u64 = 60 * S;
    const H: u64 = 60 * MIN;
    let one_decimal = |v: f64, unit: &str| {
        let s = spindle_core::units::fixed(v, 1);
        format!("{} {unit}", s.strip_suffix(".0").unwrap_or(&s))
    };
    match ms {
        ms if ms < S => format!("{ms} ms"),
        ms if ms < MIN => one_decimal(ms as f64 / S as f64, "s"),
        ms if ms < H => one_decimal(ms as f64 / MIN as f64, "min"),
        ms if ms < 48 * H => one_decimal(ms as f64 / H as f64, "h"),
        ms => one_decimal(ms as f64 / (24 * H) as f64, "days"),
    }
}

/// Reports `f` when its average stall reaches a threshold: a warning at `warn_ms`, an error at
/// `error_ms`. `what` names the average (`read stall`), `stall_ms` and `count` are the raw
/// counters behind it, `note` is appended to the message.
#[allow(clippy::too_many_arguments)]
pub(crate) fn report_average<P>(
    cx: &mut Ctx<'_, P>,
    f: &Located<DbFile>,
    field: &str,
    what: &str,
    (avg, stall_ms, count, sample_ms): (f64, u64, u64, Option<u64>),
    (warn, error): (f64, f64),
    noun: &str,
    note: &str,
) {
    cx.judged(f);
    let Some(severity) = level(avg, warn, error) else { return };
    let threshold = match severity {
        Severity::Error => format!("the {} error threshold", units::ms(error)),
        _ => format!("the {} warning threshold", units::ms(warn)),
    };
    let message = format!(
        "average {what} {} ({} ms of stall over {} {noun}, {}): {}, at or above {threshold}{note}",
        units::ms(avg),
        units::thousands(stall_ms),
        units::thousands(count),
        window(sample_ms),
        band(avg),
    );
    let finding = cx.report(f, field, message);
    finding.values(units::ms(avg), format!("below {}", units::ms(warn)));
    finding.quantities(Quantity::ms(avg), Quantity::ms(warn));
    if severity == Severity::Error {
        finding.severity(Severity::Error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_001_averages() {
        // Server 1: 149.4 ms; server 2: 74 ms; both servers' writes: 3 ms.
        assert_eq!(average(1_494_000, 10_000, 1000, "reads", "min_reads"), Ok(149.4));
        assert_eq!(average(740_000, 10_000, 1000, "reads", "min_reads"), Ok(74.0));
        assert_eq!(level(149.4, 20.0, 100.0), Some(Severity::Error));
        assert_eq!(level(74.0, 20.0, 100.0), Some(Severity::Warning));
        assert_eq!(level(3.0, 5.0, 20.0), None);
    }

    #[test]
    fn no_reads_is_no_data() {
        assert!(average(0, 0, 0, "reads", "min_reads").unwrap_err().contains("no data"));
        assert!(average(5_000, 999, 1000, "reads", "min_reads").unwrap_err().contains("only 999 reads"));
        assert_eq!(average(20_000, 1000, 1000, "reads", "min_reads"), Ok(20.0));
    }

    #[test]
    fn thresholds_are_inclusive() {
        assert_eq!(level(20.0, 20.0, 100.0), Some(Severity::Warning));
        assert_eq!(level(19.999, 20.0, 100.0), None);
        assert_eq!(level(100.0, 20.0, 100.0), Some(Severity::Error));
        assert_eq!(level(0.1 + 0.2, 0.3, 1.0), Some(Severity::Warning));
    }

    #[test]
    fn bands() {
        assert_eq!(band(1.99), "excellent (< 2 ms)");
        assert_eq!(band(2.0), "very good (2–5 ms)");
        assert_eq!(band(5.5), "very good (2–5 ms)");
        assert_eq!(band(6.0), "good (6–15 ms)");
        assert_eq!(band(15.9), "good (6–15 ms)");
        assert_eq!(band(74.0), "poor (16–100 ms)");
        assert_eq!(band(100.0), "bad (100–500 ms)");
        assert_eq!(band(149.4), "bad (100–500 ms)");
        assert_eq!(band(500.0), "bad (100–500 ms)");
        assert_eq!(band(500.1), "deplorable (> 500 ms)");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(42_000), "42 s");
        assert_eq!(duration(900_000), "15 min");
        assert_eq!(duration(9_000_000), "2.5 h");
        assert_eq!(duration(30 * 86_400_000 / 10), "3 days");
    }
}
