//! GitHub code scanning's limits on a SARIF upload, and what a log near them warns about.

/// GitHub code scanning rejects a run of more than this many results.
pub const GITHUB_MAX_RESULTS: usize = 25_000;
/// ... and shows only this many of a run's results, the most severe first.
pub const GITHUB_SHOWN_RESULTS: usize = 5_000;
/// ... and rejects a file of more than this many bytes once gzipped.
pub const GITHUB_MAX_GZIP_BYTES: u64 = 10 * 1000 * 1000;
/// How much smaller gzip makes a spindle log, at the least: measured on generated fleets
/// (docs/report-sarif.md), logs shrink about 14 times; the estimate takes 10 so that it warns
/// early rather than late.
const GZIP_RATIO_AT_LEAST: u64 = 10;

/// What a finished log of `results` results and `bytes` bytes should warn about before it is
/// uploaded to GitHub code scanning: a run past 80 % of the results it accepts, past the
/// results it shows, or large enough that gzip may not bring it under the size it accepts.
pub fn github_limit_warnings(results: usize, bytes: u64) -> Vec<String> {
    use spindle_core::units::thousands;
    let mut out = vec![];
    let advice = "split it (--split-by host DIR) or check fewer hosts per run";
    if results > GITHUB_MAX_RESULTS {
        out.push(format!(
            "the SARIF run has {} results: GitHub code scanning rejects a run of more than {}; {advice}",
            thousands(results as u64),
            thousands(GITHUB_MAX_RESULTS as u64)
        ));
    } else if results > GITHUB_MAX_RESULTS / 5 * 4 {
        out.push(format!(
            "the SARIF run has {} results, near GitHub code scanning's limit of {} a run; {advice}",
            thousands(results as u64),
            thousands(GITHUB_MAX_RESULTS as u64)
        ));
    } else if results > GITHUB_SHOWN_RESULTS {
        out.push(format!(
            "the SARIF run has {} results: GitHub code scanning shows only the {} most severe; {advice}",
            thousands(results as u64),
            thousands(GITHUB_SHOWN_RESULTS as u64)
        ));
    }
    // The limit is on the gzipped upload; past 80 % of it, at the worst ratio, warn.
    if bytes > GITHUB_MAX_GZIP_BYTES * GZIP_RATIO_AT_LEAST / 5 * 4 {
        out.push(format!(
            "the SARIF log is {} bytes: gzipped it may exceed the {} bytes GitHub code scanning \
             accepts; {advice}",
            thousands(bytes),
            thousands(GITHUB_MAX_GZIP_BYTES)
        ));
    }
    out
}
