//! A run's verdict: its exit status, and the one line that says how it went and why it failed,
//! for a check and for the merge of a sharded one alike.

use std::path::Path;

use spindle_core::engine::HostReport;
use spindle_core::view::HostView;
use spindle_report::Summary;

use crate::options::{Exit, FailOn};

/// The first cause of each way a run can be incomplete, for the one-line summary.
#[derive(Debug, Default)]
pub struct Causes {
    collection_error: Option<String>,
    not_judged: Option<String>,
    rule_error: Option<String>,
    /// Every host's stale-facts warning ([`spindle_core::view::StaleFacts`]), in report order: said on stderr.
    pub stale: Vec<String>,
}

impl Causes {
    pub fn note_collection_error(&mut self, label: &str, why: &str) {
        self.collection_error.get_or_insert_with(|| format!("{label}: {}", first_line(why)));
    }

    /// `host`'s causes, from its report and its view.
    pub fn of(report: &HostReport, view: &HostView) -> Causes {
        Causes {
            stale: view.stale.iter().map(|s| format!("warning: {}", s.message(&report.host))).collect(),
            collection_error: None,
            not_judged: (!report.not_judged.is_empty())
                .then(|| format!("{}: {}", report.host, first_line(&report.not_judged.join("; ")))),
            rule_error: report.errors.first().map(|e| format!("{}: {}", report.host, e.code)),
        }
    }

    /// Keeps the first cause of each kind: hosts are merged in report order.
    pub fn merge(&mut self, other: Causes) {
        self.collection_error = self.collection_error.take().or(other.collection_error);
        self.not_judged = self.not_judged.take().or(other.not_judged);
        self.rule_error = self.rule_error.take().or(other.rule_error);
        self.stale.extend(other.stale);
    }
}

/// The first line of `text`, cut to a length a log line can carry.
fn first_line(text: &str) -> String {
    const MAX: usize = 160;
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= MAX {
        return line.to_string();
    }
    line.chars().take(MAX).collect::<String>() + "…"
}

/// The run in one line, as ruff and tflint print one: the counts, then why it failed if it did,
/// naming the first cause of each kind, then where the report went.
/// `spindle: 3 hosts, 2 errors, 5 warnings, 0 notes, 1 not evaluated; incomplete: 1 collection
/// error (sql01: login failed) → report.sarif`
pub fn summary_line(s: &Summary, causes: &Causes, exit: Exit, fail_on: FailOn, dest: &Path) -> String {
    use spindle_core::units::plural;
    let mut line = format!(
        "spindle: {}, {}, {}, {}, {} not evaluated",
        plural(s.hosts, "host"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notes, "note"),
        s.not_evaluated
    );
    if s.not_applicable > 0 {
        line.push_str(&format!(", {} not applicable", s.not_applicable));
    }
    if s.waived > 0 {
        line.push_str(&format!(", {} waived", s.waived));
    }
    if let Some(b) = &s.baseline {
        line.push_str(&format!("; baseline: {}", b.line()));
    }
    let with = |what: String, cause: &Option<String>| match cause {
        Some(c) => format!("{what} ({c})"),
        None => what,
    };
    let mut gaps = vec![];
    if s.collection_errors > 0 {
        gaps.push(with(plural(s.collection_errors, "collection error"), &causes.collection_error));
    }
    if s.hosts_not_judged > 0 {
        gaps.push(with(format!("{} not judged", plural(s.hosts_not_judged, "host")), &causes.not_judged));
    }
    if s.rule_errors > 0 {
        gaps.push(with(plural(s.rule_errors, "rule error"), &causes.rule_error));
    }
    match exit {
        Exit::Incomplete => line.push_str(&format!("; incomplete: {}", gaps.join(", "))),
        Exit::Findings => {
            let level = match fail_on {
                FailOn::Error => "error",
                FailOn::Warning => "warning",
                FailOn::Note => "note",
                FailOn::Never => "never",
            };
            let which = if s.baseline.is_some() { "new findings" } else { "findings" };
            line.push_str(&format!("; failed: {which} at or above --fail-on {level}"));
            if !gaps.is_empty() {
                line.push_str(&format!("; allowed: {}", gaps.join(", ")));
            }
        }
        Exit::Clean if !gaps.is_empty() => line.push_str(&format!("; allowed: {}", gaps.join(", "))),
        Exit::Clean => {}
    }
    line.push_str(&format!(" → {}", dest.display()));
    line
}

/// 2 when the run is incomplete (see [`Summary::incomplete`]: a rule failed, a host could not
/// be judged, or a server gave no facts and that was not allowed), 1 when a finding at or above
/// `--fail-on` is not waived, else 0. A check not evaluated for lack of a fact counts as a note;
/// one not applicable counts as nothing.
pub fn exit_code(s: &Summary, fail_on: FailOn) -> Exit {
    if s.incomplete() {
        return Exit::Incomplete;
    }
    // With a baseline, only new findings and new checks not evaluated count.
    let (errors, warnings, notes, not_evaluated) = match &s.baseline {
        Some(b) => (b.new_errors, b.new_warnings, b.new_notes, b.new_not_evaluated),
        None => (s.errors, s.warnings, s.notes, s.not_evaluated),
    };
    let failing = match fail_on {
        FailOn::Error => errors,
        FailOn::Warning => errors + warnings,
        FailOn::Note => errors + warnings + notes + not_evaluated,
        FailOn::Never => 0,
    };
    if failing > 0 { Exit::Findings } else { Exit::Clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_says_why_a_run_failed() {
        let out = Path::new("report.sarif");
        let s = Summary {
            hosts: 3,
            errors: 2,
            warnings: 5,
            notes: 1,
            not_evaluated: 1,
            collection_errors: 1,
            ..Default::default()
        };
        let causes = Causes { collection_error: Some("sql01: login failed".into()), ..Default::default() };
        assert_eq!(
            summary_line(&s, &causes, exit_code(&s, FailOn::Error), FailOn::Error, out),
            "spindle: 3 hosts, 2 errors, 5 warnings, 1 note, 1 not evaluated; incomplete: 1 collection \
             error (sql01: login failed) → report.sarif"
        );
        let allowed = Summary { unreachable_allowed: true, not_applicable: 4, ..s };
        assert_eq!(
            summary_line(&allowed, &causes, exit_code(&allowed, FailOn::Error), FailOn::Error, out),
            "spindle: 3 hosts, 2 errors, 5 warnings, 1 note, 1 not evaluated, 4 not applicable; failed: \
             findings at or above --fail-on error; allowed: 1 collection error (sql01: login failed) → \
             report.sarif"
        );
        let bare = Summary { hosts: 1, hosts_not_judged: 1, rule_errors: 2, ..Default::default() };
        let causes = Causes {
            not_judged: Some("bare: none of the 25 active rules could be evaluated".into()),
            rule_error: Some("sql02: acme/*".into()),
            ..Default::default()
        };
        assert_eq!(
            summary_line(&bare, &causes, exit_code(&bare, FailOn::Never), FailOn::Never, out),
            "spindle: 1 host, 0 errors, 0 warnings, 0 notes, 0 not evaluated; incomplete: 1 host not judged \
             (bare: none of the 25 active rules could be evaluated), 2 rule errors (sql02: acme/*) → \
             report.sarif"
        );
        let clean = Summary { hosts: 1, waived: 2, ..Default::default() };
        assert_eq!(
            summary_line(&clean, &Causes::default(), Exit::Clean, FailOn::Error, out),
            "spindle: 1 host, 0 errors, 0 warnings, 0 notes, 0 not evaluated, 2 waived → report.sarif"
        );
        assert_eq!(first_line(&format!("{}\nsecond", "x".repeat(200))), format!("{}…", "x".repeat(160)));
    }

    #[test]
    fn with_a_baseline_only_new_findings_fail_and_an_incomplete_run_stays_incomplete() {
        use spindle_report::BaselineCounts;
        let known = Summary {
            hosts: 1,
            errors: 4,
            warnings: 9,
            baseline: Some(BaselineCounts::default()),
            ..Default::default()
        };
        assert_eq!(exit_code(&known, FailOn::Error), Exit::Clean);
        assert_eq!(exit_code(&Summary { baseline: None, ..known }, FailOn::Error), Exit::Findings);
        let new_note = BaselineCounts { new: 1, new_notes: 1, ..Default::default() };
        let s = Summary { baseline: Some(new_note), ..known };
        assert_eq!(exit_code(&s, FailOn::Warning), Exit::Clean);
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Findings);
        assert_eq!(exit_code(&Summary { rule_errors: 1, ..known }, FailOn::Never), Exit::Incomplete);
        let line = summary_line(&s, &Causes::default(), Exit::Findings, FailOn::Note, Path::new("r.json"));
        assert!(
            line.contains(
                "; baseline: 1 new, 0 fixed, 0 unchanged; failed: new findings at or above --fail-on note"
            ),
            "{line}"
        );
    }

    #[test]
    fn not_applicable_never_fails_a_run_and_not_evaluated_is_a_note() {
        let s = Summary { hosts: 1, not_applicable: 5, ..Default::default() };
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Clean);
        let s = Summary { not_evaluated: 1, ..s };
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Findings);
        assert_eq!(exit_code(&s, FailOn::Warning), Exit::Clean);
    }
}
