//! Arithmetic shared by the latency rules: averages that refuse to average too little, the
//! reference bands, and how to say what window the counters cover.

use spindle_core::facts::DbFile;
use spindle_core::finding::{Finding, Quantity, Severity};
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::units::duration;
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

/// Whether an average equal to the warning threshold earns the warning. Each rule's docs say
/// which: LAT001's 20 ms is the most a data read may take ("≤ 20 ms"), so 20 ms passes;
/// LAT002 warns "from" 5 ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WarnAt {
    /// The threshold itself is warned about.
    Threshold,
    /// Only averages above the threshold are.
    Above,
}

/// The severity an average earns against a warning and an error threshold, if any. The error
/// threshold is always inclusive: both rules' error thresholds start a band.
pub(crate) fn level(avg_ms: f64, (warn_ms, warn_at): (f64, WarnAt), error_ms: f64) -> Option<Severity> {
    let warned = match warn_at {
        WarnAt::Threshold => at_least(avg_ms, warn_ms),
        WarnAt::Above => !at_least(warn_ms, avg_ms),
    };
    if at_least(avg_ms, error_ms) {
        Some(Severity::Error)
    } else if warned {
        Some(Severity::Warning)
    } else {
        None
    }
}

/// The band of an average per-file stall, from Microsoft's "Troubleshoot slow SQL Server
/// performance caused by I/O issues": < 2 ms excellent, 2–5 very
/// good, 6–15 good, 16–100 poor, 100–500 bad, > 500 deplorable. The published bands are whole
/// milliseconds with gaps (5–6, 15–16); a fraction belongs to the band below the next boundary
/// (5.5 ms is very good), and 100 ms exactly is bad, where the error threshold starts.
pub(crate) fn band(avg_ms: f64) -> String {
    let (name, range) = band_parts(avg_ms);
    format!("{name} ({range})")
}

/// [`band`]'s name and range apart.
fn band_parts(avg_ms: f64) -> (&'static str, &'static str) {
    if avg_ms < 2.0 {
        ("excellent", "< 2 ms")
    } else if avg_ms < 6.0 {
        ("very good", "2–5 ms")
    } else if avg_ms < 16.0 {
        ("good", "6–15 ms")
    } else if avg_ms < 100.0 {
        ("poor", "16–100 ms")
    } else if avg_ms <= 500.0 {
        ("bad", "100–500 ms")
    } else {
        ("deplorable", "> 500 ms")
    }
}

/// The band of an average a rule reports. The bands are for file latency in general; a rule
/// may warn inside one of the better ones (a log write of 8 ms is in the "good" band, yet every
/// commit waits for it), and a warned value must not be called good: there only the band's
/// range is given.
pub(crate) fn band_of_reported(avg_ms: f64) -> String {
    match band_parts(avg_ms) {
        (_, range) if avg_ms < 16.0 => format!("in the {range} band"),
        _ => band(avg_ms),
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

/// Reports `f` when its average stall reaches a threshold: a warning at `warn_ms`, an error at
/// `error_ms`. `what` names the average (`read stall`), `stall_ms` and `count` are the raw
/// counters behind it, `note` is appended to the message. Returns the finding, if any, for the
/// caller's fix.
#[allow(clippy::too_many_arguments)]
pub(crate) fn report_average<'c, 'v, P>(
    cx: &'c mut Ctx<'v, P>,
    f: &'v Located<DbFile>,
    field: &str,
    what: &str,
    (avg, stall_ms, count, sample_ms): (f64, u64, u64, Option<u64>),
    ((warn, warn_at), error): ((f64, WarnAt), f64),
    noun: &str,
    note: &str,
) -> Option<&'c mut Finding> {
    cx.judged(f);
    let severity = level(avg, (warn, warn_at), error)?;
    let threshold = match (severity, warn_at) {
        (Severity::Error, _) => format!("at or above the {} error threshold", units::ms(error)),
        (_, WarnAt::Threshold) => format!("at or above the {} warning threshold", units::ms(warn)),
        (_, WarnAt::Above) => format!("above the {} warning threshold", units::ms(warn)),
    };
    let message = format!(
        "average {what} {} ({} ms of stall over {} {noun}, {}): {}, {threshold}{note}",
        units::ms(avg),
        units::thousands(stall_ms),
        units::thousands(count),
        window(sample_ms),
        band_of_reported(avg),
    );
    let expected = match warn_at {
        WarnAt::Threshold => format!("below {}", units::ms(warn)),
        WarnAt::Above => format!("at most {}", units::ms(warn)),
    };
    let finding = cx.report(f, field, message);
    finding.values(units::ms(avg), expected);
    finding.quantities(Quantity::ms(avg), Quantity::ms(warn));
    if severity == Severity::Error {
        finding.severity(Severity::Error);
    }
    Some(finding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erp_case_averages() {
        // The misaligned ERP server: 149.4 ms; its aligned twin: 74 ms; both servers' writes: 3 ms.
        assert_eq!(average(1_494_000, 10_000, 1000, "reads", "min_reads"), Ok(149.4));
        assert_eq!(average(740_000, 10_000, 1000, "reads", "min_reads"), Ok(74.0));
        assert_eq!(level(149.4, (20.0, WarnAt::Above), 100.0), Some(Severity::Error));
        assert_eq!(level(74.0, (20.0, WarnAt::Above), 100.0), Some(Severity::Warning));
        assert_eq!(level(3.0, (5.0, WarnAt::Threshold), 20.0), None);
    }

    #[test]
    fn no_reads_is_no_data() {
        assert!(average(0, 0, 0, "reads", "min_reads").unwrap_err().contains("no data"));
        assert!(average(5_000, 999, 1000, "reads", "min_reads").unwrap_err().contains("only 999 reads"));
        assert_eq!(average(20_000, 1000, 1000, "reads", "min_reads"), Ok(20.0));
    }

    #[test]
    fn thresholds_are_inclusive_or_not_as_said() {
        let from = |w| (w, WarnAt::Threshold);
        let above = |w| (w, WarnAt::Above);
        assert_eq!(level(20.0, from(20.0), 100.0), Some(Severity::Warning));
        assert_eq!(level(19.999, from(20.0), 100.0), None);
        assert_eq!(level(100.0, from(20.0), 100.0), Some(Severity::Error));
        assert_eq!(level(0.1 + 0.2, from(0.3), 1.0), Some(Severity::Warning));
        // "≤ 20 ms is fine": 20 ms passes, a hair above it does not.
        assert_eq!(level(20.0, above(20.0), 100.0), None);
        assert_eq!(level(0.1 + 0.2, above(0.3), 1.0), None, "floating-point noise is not above");
        assert_eq!(level(20.001, above(20.0), 100.0), Some(Severity::Warning));
        assert_eq!(level(100.0, above(20.0), 100.0), Some(Severity::Error));
    }

    #[test]
    fn a_reported_average_is_never_called_good() {
        for avg in [0.5, 3.0, 5.0, 5.9, 6.0, 8.0, 15.9] {
            let b = band_of_reported(avg);
            assert!(!b.contains("good") && !b.contains("excellent"), "{avg}: {b}");
        }
        assert_eq!(band_of_reported(8.0), "in the 6–15 ms band");
        assert_eq!(band_of_reported(19.9), "poor (16–100 ms)");
        assert_eq!(band_of_reported(149.4), "bad (100–500 ms)");
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
