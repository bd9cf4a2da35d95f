//! `--format gitlab`: GitLab Code Quality (the CodeClimate subset GitLab reads), a JSON array of
//! issues for a merge request's widget (`docs/report-gitlab.md`).
//!
//! An issue per finding that counts (waived findings are left out: GitLab has no notion of an
//! accepted issue, and would show each as open), fingerprinted as the JSON and SARIF reports do,
//! so an issue keeps its identity from run to run and across a moved snapshot. What makes a run
//! incomplete — a rule error, a host spindle could not judge, a server that gave no facts — is a
//! `blocker` issue, so an incomplete run never reads as clean; a fact a rule needed and did not
//! have is an `info` issue per rule and missing fact on a host. Streamed: `[` on `begin`, each
//! issue as it comes, `]` on `finish`.

use std::io::{self, Write};
use std::sync::Arc;

use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding, Severity};
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::ci::{
    Place, headline, not_evaluated_groups, not_evaluated_place, not_evaluated_text, not_judged, values,
};
use crate::emit::Emit;
use crate::{
    HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Stage, Summary, fingerprint, fnv1a64,
};

/// GitLab's word for a severity: an error is `critical`, a warning `major`, a note `minor`.
/// `info` is a fact a rule could not see, `blocker` what makes the run incomplete.
pub fn gitlab_severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "critical",
        Severity::Warning => "major",
        Severity::Note => "minor",
    }
}

pub struct GitlabWriter<'w> {
    w: &'w mut dyn Write,
    stage: Stage,
    issues: usize,
}

impl<'w> GitlabWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        GitlabWriter { w, stage: Stage::New, issues: 0 }
    }

    fn write_issue(&mut self, issue: &[u8]) -> io::Result<()> {
        self.w.write_all(if self.issues == 0 { b"\n  " } else { b",\n  " })?;
        self.w.write_all(issue)?;
        self.issues += 1;
        Ok(())
    }
}

struct Issue<'a> {
    check_name: &'a str,
    description: String,
    fingerprint: String,
    severity: &'static str,
    place: Place,
}

impl Issue<'_> {
    fn emit(&self, buf: &mut Vec<u8>) {
        let mut e = Emit::new(buf, "  ");
        e.open(b'{');
        e.str_member("description", &self.description);
        e.str_member("check_name", self.check_name);
        e.str_member("fingerprint", &self.fingerprint);
        e.str_member("severity", self.severity);
        e.key("location");
        e.open(b'{');
        e.str_member("path", &self.place.path);
        e.key("lines");
        e.open(b'{');
        e.key("begin");
        e.num(self.place.line);
        e.close(b'}');
        e.close(b'}');
        e.close(b'}');
    }
}

/// A fingerprint for what is not a finding: FNV-1a 64 of its parts joined by NUL, as
/// [`fingerprint`] makes a finding's, so it too is the same from run to run.
fn fingerprint_of(parts: &[&str]) -> String {
    format!("{:016x}", fnv1a64(parts.join("\0").as_bytes()))
}

fn description(f: &Finding) -> String {
    let mut text = format!("{} ({}): {}", untrusted::name(&f.code), untrusted::name(&f.rule), headline(f));
    if let Some(v) = values(f) {
        text.push_str(&format!(" ({v})"));
    }
    if f.waiver.is_some() {
        text.push_str(" (its waiver has expired)");
    }
    // GitLab compares a merge request's issues with its target branch's, not with a baseline;
    // the description is where its widget shows what the baseline says.
    match f.baseline {
        Some(BaselineState::New) => text.push_str(" (new since the baseline)"),
        Some(BaselineState::Unchanged) => text.push_str(" (unchanged since the baseline)"),
        None => {}
    }
    text
}

/// Each finding's fingerprint, unique on its host: GitLab shows one issue per fingerprint, and
/// a plugin may report one rule on one entity several times (the identity baselines and SARIF
/// use). A finding sharing it is told apart by its message, then by its place among those with
/// the same message, so each is the same from run to run while the plugin says the same.
fn unique_fingerprints(findings: &[&Finding]) -> Vec<String> {
    let bases: Vec<String> = findings.iter().map(|f| fingerprint(f)).collect();
    let mut out: Vec<String> = Vec::with_capacity(bases.len());
    let mut sorted = bases.clone();
    sorted.sort_unstable();
    let shared = |b: &String| {
        sorted.binary_search(b).is_ok_and(|i| sorted.get(i + 1) == Some(b) || (i > 0 && sorted[i - 1] == *b))
    };
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (f, base) in findings.iter().zip(&bases) {
        if !shared(base) {
            out.push(base.clone());
            continue;
        }
        let by_message = fingerprint_of(&[base, &f.message]);
        let repeat = seen.entry(by_message.clone()).or_default();
        out.push(if *repeat == 0 {
            by_message
        } else {
            fingerprint_of(&[base, &f.message, &repeat.to_string()])
        });
        *repeat += 1;
    }
    out
}

struct GitlabRender;

impl Render for GitlabRender {
    fn render_in(&self, view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let host = report.host.as_str();
        let shown = untrusted::name(host);
        let mut issues = vec![];
        if let Some(why) = not_judged(report) {
            issues.push(Issue {
                check_name: "spindle/host-not-judged",
                description: format!("spindle could not judge {shown}: {why}"),
                fingerprint: fingerprint_of(&["host-not-judged", host]),
                severity: "blocker",
                place: Place::fallback(view, None),
            });
        }
        for (i, e) in report.errors.iter().enumerate() {
            // A rule failing twice on a host is two issues: the second fingerprinted apart.
            let repeat = report.errors[..i].iter().filter(|x| x.code == e.code).count();
            issues.push(Issue {
                check_name: "spindle/rule-error",
                description: format!(
                    "{} failed on {shown}, which is not fully checked: {}",
                    untrusted::name(&e.code),
                    untrusted::message(&e.message)
                ),
                fingerprint: fingerprint_of(&["rule-error", host, &e.code, &repeat.to_string()]),
                severity: "blocker",
                place: Place::fallback(view, None),
            });
        }
        let counting: Vec<&Finding> = report.counting().collect();
        for (f, fingerprint) in counting.iter().zip(unique_fingerprints(&counting)) {
            issues.push(Issue {
                check_name: &f.code,
                description: description(f),
                fingerprint,
                severity: gitlab_severity(f.severity),
                place: Place::of_finding(view, f),
            });
        }
        for (n, count) in not_evaluated_groups(report) {
            issues.push(Issue {
                check_name: &n.code,
                description: not_evaluated_text(host, n, count),
                fingerprint: fingerprint_of(&["not-evaluated", host, &n.code, &n.missing]),
                severity: "info",
                place: not_evaluated_place(view, n),
            });
        }
        let mut out = Rendered::new();
        for issue in &issues {
            out.part(Part::Result, |buf| {
                issue.emit(buf);
                io::Result::Ok(())
            })?;
        }
        Ok(out)
    }
}

impl ReportWriter for GitlabWriter<'_> {
    fn begin(&mut self, _rules: &[RuleInfo]) -> io::Result<()> {
        self.stage.expect(Stage::New, "begin")?;
        self.stage = Stage::Begun;
        self.w.write_all(b"[")
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(GitlabRender)
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "host")?;
        for (_, bytes) in host.parts() {
            self.write_issue(bytes)?;
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "collection_error")?;
        let issue = Issue {
            check_name: "spindle/collection-error",
            description: format!(
                "no facts collected from {}: {}",
                untrusted::name(source),
                untrusted::message(message)
            ),
            fingerprint: fingerprint_of(&["collection-error", source]),
            severity: "blocker",
            place: Place { path: source.to_string(), line: 1, column: 1, end: None },
        };
        let mut buf = vec![];
        issue.emit(&mut buf);
        self.write_issue(&buf)
    }

    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "finish")?;
        self.stage = Stage::Finished;
        self.w.write_all(if self.issues == 0 { b"]\n" } else { b"\n]\n" })?;
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::finding;

    #[test]
    fn findings_of_one_rule_on_one_entity_get_fingerprints_of_their_own_stable_across_runs() {
        // A plugin reporting one rule three times on one entity: GitLab would show one issue.
        let mut three = [finding("acme/ACM001", "h/db:1", None), finding("acme/ACM001", "h/db:1", None)];
        three[0].message = "owner is sa".into();
        three[1].message = "owner is dbo".into();
        let mut same_message = finding("acme/ACM001", "h/db:1", None);
        same_message.message = "owner is sa".into();
        let alone = finding("ALN001", "h/disk:1/partition:1", Some("offset_bytes"));
        let all = [&three[0], &three[1], &same_message, &alone];
        let prints = unique_fingerprints(&all);
        let mut distinct = prints.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{prints:?}");
        // A finding no other shares keeps the fingerprint of the JSON and SARIF reports.
        assert_eq!(prints[3], fingerprint(&alone));
        // The same findings in another run: the same fingerprints.
        assert_eq!(unique_fingerprints(&all), prints);
        // One told apart by its message keeps its fingerprint whatever its place.
        let reordered = unique_fingerprints(&[&three[1], &three[0], &same_message]);
        assert_eq!(reordered[0], prints[1]);
    }
}
