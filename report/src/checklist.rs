//! A host's checklist, the model the reports people read (Markdown, HTML) share: one row per
//! rule of the run with the state the rule left the host in, and what the rule could not
//! evaluate grouped by the missing fact. Built per host from its report and dropped with it.
//!
//! A row's state is the worst thing the rule did on the host, so a rule that failed on one
//! partition and verified three others reads as failed, and one that could not see a fact reads
//! as not evaluated, never as passed.

use spindle_core::engine::HostReport;
use spindle_core::finding::{
    AppliedWaiver, Finding, NotApplicable, NotEvaluated, Passed, RuleError, Severity,
};

use spindle_core::{units, untrusted};

use spindle_core::view::HostView;

use crate::RuleInfo;

pub(crate) mod body;
pub(crate) use body::Markup;

/// What a rule did on a host, the most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum State {
    /// The rule (or plugin) failed: the run is incomplete.
    RuleError,
    /// The host could not be judged at all: no rule ran on it.
    NotJudged,
    /// Findings that count.
    Failed,
    /// A fact the rule needs is missing: never a pass.
    NotEvaluated,
    /// Findings, all under a waiver that has not expired.
    Waived,
    /// Entities judged and found right.
    Passed,
    /// Facts present; the rule chose not to judge them.
    NotApplicable,
    /// The rule reported nothing on this host (nothing of the kind it checks, or a plugin rule,
    /// which cannot say what it verified).
    NoFindings,
}

impl State {
    /// The word a reader scans for, with a mark that does not rely on colour.
    pub fn label(self) -> &'static str {
        match self {
            State::RuleError => "✗ rule error",
            State::NotJudged => "✗ not judged",
            State::Failed => "✗ failed",
            State::NotEvaluated => "? not evaluated",
            State::Waived => "~ waived",
            State::Passed => "✓ passed",
            State::NotApplicable => "– not applicable",
            State::NoFindings => "– no findings",
        }
    }

    /// A class name for styling (HTML).
    pub fn class(self) -> &'static str {
        match self {
            State::RuleError | State::NotJudged | State::Failed => "bad",
            State::NotEvaluated => "unknown",
            State::Waived => "waived",
            State::Passed => "good",
            State::NotApplicable | State::NoFindings => "neutral",
        }
    }
}

/// One rule on one host.
#[derive(Debug)]
pub(crate) struct Row<'a> {
    pub code: &'a str,
    pub name: &'a str,
    /// The severity the packs give the rule; `None` for a code the run's rule list lacks.
    pub severity: Option<Severity>,
    /// What the rule checks, in one line.
    pub summary: &'a str,
    pub state: State,
    /// Findings that count.
    pub failed: Vec<&'a Finding>,
    /// Findings under a waiver that has not expired.
    pub waived: Vec<&'a Finding>,
    pub passed: Option<&'a Passed>,
    pub not_evaluated: Vec<&'a NotEvaluated>,
    pub not_applicable: Vec<&'a NotApplicable>,
    pub errors: Vec<&'a RuleError>,
}

impl<'a> Row<'a> {
    fn new(code: &'a str, name: &'a str, severity: Option<Severity>, summary: &'a str) -> Self {
        Row {
            code,
            name,
            severity,
            summary,
            state: State::NoFindings,
            failed: vec![],
            waived: vec![],
            passed: None,
            not_evaluated: vec![],
            not_applicable: vec![],
            errors: vec![],
        }
    }
}

/// The checklist of a host: a row for every rule of the run, in the run's order, then a row for
/// any code the host's report has that the rule list lacks (so nothing reported is dropped).
pub(crate) fn rows<'a>(rules: &'a [RuleInfo], report: &'a HostReport) -> Vec<Row<'a>> {
    let mut out: Vec<Row<'a>> =
        rules.iter().map(|r| Row::new(&r.code, &r.name, Some(r.severity), &r.summary)).collect();
    // Rules are few (tens); a host's entries are many. An index keeps this linear.
    let mut index: std::collections::HashMap<&str, usize> =
        out.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
    let mut row = |code: &'a str, name: &'a str| -> usize {
        *index.entry(code).or_insert_with(|| {
            out.push(Row::new(code, name, None, ""));
            out.len() - 1
        })
    };
    let mut placed: Vec<(usize, Entry<'a>)> = vec![];
    for f in &report.findings {
        placed.push((row(&f.code, &f.rule), Entry::Finding(f)));
    }
    for p in &report.passed {
        placed.push((row(&p.code, &p.rule), Entry::Passed(p)));
    }
    for n in &report.not_evaluated {
        placed.push((row(&n.code, &n.rule), Entry::NotEvaluated(n)));
    }
    for n in &report.not_applicable {
        placed.push((row(&n.code, &n.rule), Entry::NotApplicable(n)));
    }
    for e in &report.errors {
        placed.push((row(&e.code, ""), Entry::Error(e)));
    }
    for (i, entry) in placed {
        let r = &mut out[i];
        match entry {
            Entry::Finding(f) if f.is_waived() => r.waived.push(f),
            Entry::Finding(f) => r.failed.push(f),
            Entry::Passed(p) => r.passed = Some(p),
            Entry::NotEvaluated(n) => r.not_evaluated.push(n),
            Entry::NotApplicable(n) => r.not_applicable.push(n),
            Entry::Error(e) => r.errors.push(e),
        }
    }
    let not_judged = !report.not_judged.is_empty();
    for r in &mut out {
        r.state = if !r.errors.is_empty() {
            State::RuleError
        } else if !r.failed.is_empty() {
            State::Failed
        } else if !r.not_evaluated.is_empty() {
            State::NotEvaluated
        } else if not_judged {
            State::NotJudged
        } else if !r.waived.is_empty() {
            State::Waived
        } else if r.passed.is_some_and(|p| !p.keys.is_empty()) {
            State::Passed
        } else if !r.not_applicable.is_empty() {
            State::NotApplicable
        } else {
            State::NoFindings
        };
    }
    out
}

enum Entry<'a> {
    Finding(&'a Finding),
    Passed(&'a Passed),
    NotEvaluated(&'a NotEvaluated),
    NotApplicable(&'a NotApplicable),
    Error(&'a RuleError),
}

/// A host's verdict in a few words, never green when the host was not fully judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A rule failed or the host could not be judged: the absence of findings proves nothing.
    Incomplete,
    Findings(Severity),
    /// No finding, but some checks could not be made.
    Unknown,
    Clean,
}

impl Verdict {
    pub fn of(report: &HostReport) -> Verdict {
        if !report.errors.is_empty() || !report.not_judged.is_empty() {
            Verdict::Incomplete
        } else if let Some(s) = report.counting().map(|f| f.severity).max() {
            Verdict::Findings(s)
        } else if !report.not_evaluated.is_empty() {
            Verdict::Unknown
        } else {
            Verdict::Clean
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Incomplete => "✗ incomplete: not fully judged",
            Verdict::Findings(Severity::Error) => "✗ errors",
            Verdict::Findings(Severity::Warning) => "✗ warnings",
            Verdict::Findings(Severity::Note) => "notes",
            Verdict::Unknown => "? no findings, some checks not evaluated",
            Verdict::Clean => "✓ no findings",
        }
    }
}

/// `label` without the host's name in front: the host's heading already says it.
pub(crate) fn short_label<'a>(label: &'a str, host: &str) -> &'a str {
    label.strip_prefix(host).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

/// How many of the items a cell lists by name; the rest are counted.
pub(crate) const LISTED: usize = 6;

/// `C:\`, `D:\`, … and 3 more: at most [`LISTED`] names, the rest counted.
fn listed<'a>(labels: impl ExactSizeIterator<Item = &'a str>, host: &str, m: &dyn Markup) -> String {
    let n = labels.len();
    listed_of(labels, n, host, m)
}

/// [`listed`] for `n` labels of which `labels` gives at least the first [`LISTED`].
fn listed_of<'a>(labels: impl Iterator<Item = &'a str>, n: usize, host: &str, m: &dyn Markup) -> String {
    let mut shown: Vec<String> =
        labels.take(LISTED).map(|l| m.name(&untrusted::label(short_label(l, host)))).collect();
    if n > LISTED {
        shown.push(format!("and {} more", n - LISTED));
    }
    shown.join(", ")
}

/// The details of a rule's row: what it verified, found, waived, declined or could not see.
pub(crate) fn details(r: &Row<'_>, view: &HostView, m: &dyn Markup) -> String {
    let host = view.host_name();
    let prose = |s: &str| m.prose(&untrusted::message(s));
    let mut parts: Vec<String> = vec![];
    for e in &r.errors {
        parts.push(format!("{} {}", m.strong("rule failed:"), prose(&e.message)));
    }
    if let Some(worst) = r.failed.iter().map(|f| f.severity).max() {
        parts.push(format!(
            "{} ({worst}) on {}",
            units::plural(r.failed.len(), "finding"),
            listed(r.failed.iter().map(|f| f.entity.label.as_str()), host, m)
        ));
    }
    for n in &r.not_evaluated {
        let at = n
            .entity
            .as_ref()
            .map_or("the host".to_string(), |e| m.name(&untrusted::label(short_label(&e.label, host))));
        let why = n
            .reason
            .as_deref()
            .map(|r| match crate::reason::split(r) {
                (first, paste) if paste.is_empty() => prose(first.lines().next().unwrap_or("")),
                // A cell holds one line: the entry to paste is shown whole below the table.
                (first, _) => format!("{} the entry to paste is listed below", prose(first)),
            })
            .unwrap_or("not collected".into());
        parts.push(format!("not evaluated on {at}: needs {} ({why})", m.name(&untrusted::name(&n.missing))));
    }
    // One entry per waiver (reason and expiry), naming the entities it covers.
    let mut waivers: Vec<(&AppliedWaiver, Vec<&str>)> = vec![];
    for f in &r.waived {
        let w = f.waiver.as_ref().expect("waived");
        match waivers.iter_mut().find(|(o, _)| o.reason == w.reason && o.expires == w.expires) {
            Some((_, on)) => on.push(&f.entity.label),
            None => waivers.push((w, vec![&f.entity.label])),
        }
    }
    for (w, on) in waivers {
        let until = w.expires.as_deref().map_or("no expiry".to_string(), |d| format!("until {}", prose(d)));
        parts.push(format!("waived on {} {until}: {}", listed(on.into_iter(), host, m), prose(&w.reason)));
    }
    if let Some(p) = r.passed.filter(|p| !p.keys.is_empty()) {
        let what = if r.summary.is_empty() { String::new() } else { format!("{}: ", prose(r.summary)) };
        // A pass holds keys; only the labels shown are looked up.
        let labels: Vec<String> = p
            .keys
            .iter()
            .take(LISTED)
            .map(|k| view.entity(k).map_or_else(|| k.clone(), |e| e.label))
            .collect();
        let shown = labels.iter().map(String::as_str);
        parts.push(format!("{what}verified on {}", listed_of(shown, p.keys.len(), host, m)));
    }
    if let Some(n) = r.not_applicable.first().filter(|_| parts.is_empty()) {
        let more = match r.not_applicable.len() {
            1 => String::new(),
            k => format!(" (and {} more)", k - 1),
        };
        let on = m.name(&untrusted::label(short_label(&n.entity.label, host)));
        parts.push(format!("not judged on {on}: {}{more}", prose(&n.reason)));
    }
    if parts.is_empty() {
        parts.push(match r.state {
            State::NotJudged => "the host could not be judged".to_string(),
            _ => "nothing reported on this host".to_string(),
        });
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_core::view::EntityRef;

    fn entity(key: &str) -> EntityRef {
        EntityRef { key: key.into(), label: key.into(), origins: vec![] }
    }

    fn finding(code: &str, key: &str, waived: bool) -> Finding {
        let mut f = crate::tests::finding(code, key, None);
        f.waiver = waived.then(|| AppliedWaiver {
            reason: "r".into(),
            expires: None,
            source: "p".into(),
            expired: false,
        });
        f
    }

    fn rule(code: &str) -> RuleInfo {
        RuleInfo {
            code: code.into(),
            name: code.to_lowercase(),
            severity: Severity::Warning,
            category: String::new(),
            summary: String::new(),
            docs: String::new(),
            impact: Default::default(),
        }
    }

    fn passed(code: &str) -> Passed {
        Passed { code: code.into(), rule: "r".into(), keys: vec![entity("ok").key] }
    }

    fn not_evaluated(code: &str) -> NotEvaluated {
        NotEvaluated { code: code.into(), rule: "r".into(), entity: None, missing: "m".into(), reason: None }
    }

    #[test]
    fn a_row_is_the_worst_the_rule_did() {
        let rules: Vec<RuleInfo> = ["A1", "B1", "C1", "D1", "E1", "F1"].map(rule).to_vec();
        let report = HostReport {
            findings: vec![finding("A1", "x", false), finding("C1", "y", true), finding("G1", "z", false)],
            passed: vec![passed("A1"), passed("B1"), passed("C1"), passed("D1")],
            not_evaluated: vec![not_evaluated("D1")],
            errors: vec![RuleError { code: "E1".into(), message: "trap".into() }],
            ..Default::default()
        };
        let states: Vec<(&str, State)> = rows(&rules, &report).iter().map(|r| (r.code, r.state)).collect();
        assert_eq!(
            states,
            [
                ("A1", State::Failed),
                ("B1", State::Passed),
                ("C1", State::Waived),
                ("D1", State::NotEvaluated),
                ("E1", State::RuleError),
                ("F1", State::NoFindings),
                // A code the rule list lacks keeps its findings.
                ("G1", State::Failed),
            ]
        );
        // A host not judged passes nothing.
        let report =
            HostReport { passed: vec![passed("B1")], not_judged: vec!["why".into()], ..Default::default() };
        assert!(rows(&rules, &report).iter().all(|r| r.state == State::NotJudged));
    }
}
