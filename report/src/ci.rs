//! What the CI formats (JUnit, GitLab Code Quality, GitHub workflow commands) share: where a
//! finding points in a form a CI system links to a file of the repository, and a finding told in
//! a few escaped lines. Each CI system shows these strings in a web page or a log, so everything
//! from the data is escaped and bounded as for a terminal ([`untrusted`]).

use std::borrow::Cow;

use spindle_core::engine::HostReport;
use spindle_core::finding::{Finding, NotEvaluated};
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::{FactLocation, locate_finding, locate_not_evaluated};

/// A place in a snapshot file, as CI systems take it: a repository-relative path (forward
/// slashes, no leading `./`), 1-based line and column, and where the fact ends when it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end: Option<(usize, usize)>,
}

impl Place {
    pub fn from_location(l: &FactLocation) -> Place {
        Place { path: repo_path(&l.path), line: l.start.0, column: l.start.1, end: Some(l.end) }
    }

    /// Line 1 of the file the entity was read from, else of the host's first file (else the host
    /// itself): every CI system wants a file for an annotation, and a finding is never dropped.
    pub fn fallback(view: &HostView, doc: Option<usize>) -> Place {
        let file = doc.and_then(|d| view.docs.get(d)).or(view.docs.first());
        Place {
            path: repo_path(file.map_or(view.host_name(), |d| d.path.as_str())),
            line: 1,
            column: 1,
            end: None,
        }
    }

    /// Where a finding's fact is, else line 1 of its file.
    pub fn of_finding(view: &HostView, f: &Finding) -> Place {
        match locate_finding(view, f) {
            Some(l) => Place::from_location(&l),
            None => Place::fallback(view, f.entity.origins.first().map(|o| o.doc)),
        }
    }

    /// `path:line:col`, escaped for display.
    pub fn shown(&self) -> String {
        format!("{}:{}:{}", untrusted::escape_for_terminal(&self.path), self.line, self.column)
    }
}

/// `snapshots\sql01.json` → `snapshots/sql01.json`; `./a.json` → `a.json`. CI systems resolve
/// paths against the repository's root with forward slashes.
pub(crate) fn repo_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut rel = p.as_str();
    while let Some(r) = rel.strip_prefix("./") {
        rel = r;
    }
    rel.to_string()
}

/// `label: message`, escaped, on one line.
pub(crate) fn headline(f: &Finding) -> String {
    let message = untrusted::message(&f.message);
    if f.entity.label.is_empty() {
        message.into_owned()
    } else {
        format!("{}: {message}", untrusted::label(&f.entity.label))
    }
}

/// `measured 32,256 B; expected a multiple of 64 KiB`, escaped; `None` when the rule gave neither.
pub(crate) fn values(f: &Finding) -> Option<String> {
    let m = f.measured.as_deref().map(untrusted::message);
    let e = f.expected.as_deref().map(untrusted::message);
    match (m, e) {
        (Some(m), Some(e)) => Some(format!("measured {m}; expected {e}")),
        (Some(m), None) => Some(format!("measured {m}")),
        (None, Some(e)) => Some(format!("expected {e}")),
        (None, None) => None,
    }
}

/// A finding in a few lines: what and where, the values, and the waiver if one applied
/// (`waived` for one in force, `waiver expired` for one that no longer is).
pub(crate) fn finding_lines(f: &Finding, place: &Place) -> String {
    let mut text =
        format!("{} [{}] {}\n  at {}", untrusted::name(&f.code), f.severity, headline(f), place.shown());
    if let Some(v) = values(f) {
        text.push_str("\n  ");
        text.push_str(&v);
    }
    if let Some(w) = &f.waiver {
        text.push_str(if w.expired { "\n  waiver expired: " } else { "\n  waived: " });
        text.push_str(&untrusted::message(&w.reason));
        if let Some(until) = &w.expires {
            text.push_str(&format!(" (until {})", untrusted::name(until)));
        }
        text.push_str(&format!(" [{}]", untrusted::name(&w.source)));
    }
    text
}

/// `s` with what XML 1.0 does not allow as a character written as an escape: U+FFFE and
/// U+FFFF (the text was already escaped for a terminal, which takes care of the controls).
pub(crate) fn xml_chars(s: Cow<'_, str>) -> Cow<'_, str> {
    if !s.contains(['\u{fffe}', '\u{ffff}']) {
        return s;
    }
    s.replace('\u{fffe}', "\\u{fffe}").replace('\u{ffff}', "\\u{ffff}").into()
}

/// A host's not-evaluated entries by rule and missing fact, in the order they came, each with
/// how many checks it stands for: one rule lacking a fact lacks it on many entities.
pub(crate) fn not_evaluated_groups(report: &HostReport) -> Vec<(&NotEvaluated, usize)> {
    let mut groups: Vec<(&NotEvaluated, usize)> = vec![];
    for n in &report.not_evaluated {
        match groups.iter_mut().find(|(g, _)| g.code == n.code && g.missing == n.missing) {
            Some((_, count)) => *count += 1,
            None => groups.push((n, 1)),
        }
    }
    groups
}

/// `ALN002 (raid-stripe-unit) not evaluated on sql01: raid_sets is missing (reason) for 3
/// checks`, escaped.
pub(crate) fn not_evaluated_text(host: &str, n: &NotEvaluated, count: usize) -> String {
    let mut text = format!(
        "{} ({}) not evaluated on {}: {} is missing",
        untrusted::name(&n.code),
        untrusted::name(&n.rule),
        untrusted::name(host),
        untrusted::name(&n.missing)
    );
    if let Some(r) = &n.reason {
        text.push_str(&format!(" ({})", untrusted::message(r)));
    }
    if count > 1 {
        text.push_str(&format!(" for {count} checks"));
    }
    text
}

/// Where a group of not-evaluated entries points: its first entry's place, else the host's file.
pub(crate) fn not_evaluated_place(view: &HostView, n: &NotEvaluated) -> Place {
    locate_not_evaluated(view, n).map_or_else(|| Place::fallback(view, None), |l| Place::from_location(&l))
}

/// Why spindle could not judge the host, escaped, the reasons joined by `; `; `None` when it
/// could.
pub(crate) fn not_judged(report: &HostReport) -> Option<String> {
    (!report.not_judged.is_empty())
        .then(|| report.not_judged.iter().map(|w| untrusted::message(w)).collect::<Vec<_>>().join("; "))
}
