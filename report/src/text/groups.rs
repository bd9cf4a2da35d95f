//! A host's findings in triage order: one group per rule and cause, the most serious and most
//! harmful first. docs/report-text.md describes the order; the tests below hold it.
//!
//! Grouping is presentation: every finding of the host is in exactly one group (or, waived, in
//! the waived list), so nothing a report shows per finding is lost.

use std::collections::HashMap;

use spindle_core::finding::{Finding, Severity};
use spindle_core::gain::{Gain, rank_of};
use spindle_core::rule::Impact;

use crate::{Order, RuleInfo};

/// Findings of one rule with one cause: same code, severity and expected value.
#[derive(Debug)]
pub(crate) struct Group<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub rule: &'a str,
    /// How directly the rule's findings cost the server, as the rule declares it.
    pub impact: Impact,
    pub expected: Option<&'a str>,
    /// In the order the rule reported them.
    pub findings: Vec<&'a Finding>,
}

impl Group<'_> {
    /// The distinct fixes of the group, each with the indices (into `findings`) it applies to,
    /// in order of first appearance.
    pub fn fixes(&self) -> Vec<(&str, Vec<usize>)> {
        let mut out: Vec<(&str, Vec<usize>)> = vec![];
        for (i, f) in self.findings.iter().enumerate() {
            match out.iter_mut().find(|(fix, _)| *fix == f.fix.as_str()) {
                Some((_, at)) => at.push(i),
                None => out.push((f.fix.as_str(), vec![i])),
            }
        }
        out
    }

    /// The distinct expected gains of the group, each with the indices it applies to, in order
    /// of first appearance; findings with none are in no entry.
    pub fn gains(&self) -> Vec<(&Gain, Vec<usize>)> {
        let mut out: Vec<(&Gain, Vec<usize>)> = vec![];
        for (i, f) in self.findings.iter().enumerate() {
            let Some(g) = &f.gain else { continue };
            match out.iter_mut().find(|(x, _)| *x == g) {
                Some((_, at)) => at.push(i),
                None => out.push((g, vec![i])),
            }
        }
        out
    }

    /// The largest [`rank_of`] among the group's findings: below every estimate when none has one.
    pub fn best_gain(&self) -> f64 {
        self.findings.iter().map(|f| rank_of(f.gain.as_ref())).fold(rank_of(None), f64::max)
    }

    /// Every finding says the same thing (the message names no per-entity value).
    pub fn one_message(&self) -> bool {
        self.findings.windows(2).all(|w| w[0].message == w[1].message)
    }
}

/// The unwaived findings (those under a waiver that has expired count again) grouped, in triage
/// order: severity (error first), then the rule's [`Impact`] as `rules` (the run's rules)
/// declare it, then more entities first, then code; groups
/// still tied keep the order their first finding was reported in. By [`Order::Gain`], the groups
/// with the largest expected gain come first, those with no estimate after them in triage order.
pub(crate) fn groups<'a>(findings: &'a [Finding], order: Order, rules: &[RuleInfo]) -> Vec<Group<'a>> {
    let mut out: Vec<Group<'_>> = vec![];
    let mut index: HashMap<(Severity, &str, Option<&str>), usize> = HashMap::new();
    for f in findings.iter().filter(|f| !f.is_waived()) {
        let key = (f.severity, f.code.as_str(), f.expected.as_deref());
        match index.get(&key) {
            Some(&i) => out[i].findings.push(f),
            None => {
                index.insert(key, out.len());
                let impact =
                    rules.iter().find(|r| r.code == f.code).map_or(Impact::Unclassified, |r| r.impact);
                out.push(Group {
                    severity: f.severity,
                    code: &f.code,
                    rule: &f.rule,
                    impact,
                    expected: f.expected.as_deref(),
                    findings: vec![f],
                });
            }
        }
    }
    // A stable sort: ties keep the order of first appearance.
    out.sort_by(|a, b| {
        let by_gain = match order {
            Order::Gain => b.best_gain().total_cmp(&a.best_gain()),
            Order::Triage => std::cmp::Ordering::Equal,
        };
        by_gain
            .then(b.severity.cmp(&a.severity))
            .then(a.impact.cmp(&b.impact))
            .then(b.findings.len().cmp(&a.findings.len()))
            .then(a.code.cmp(b.code))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_core::finding::AppliedWaiver;
    use spindle_core::view::EntityRef;

    fn f(code: &str, severity: Severity, entity: &str, expected: &str, fix: &str) -> Finding {
        Finding {
            code: code.into(),
            rule: format!("rule-{code}"),
            severity,
            message: format!("{code} on {entity}"),
            measured: Some("m".into()),
            expected: Some(expected.into()),
            measured_quantity: None,
            expected_quantity: None,
            entity: EntityRef { key: entity.into(), label: entity.into(), origins: vec![] },
            field: None,
            fix: fix.into(),
            gain: None,
            waiver: None,
            baseline: None,
        }
    }

    /// The run's rules: made-up codes, so that nothing can be read from their letters.
    fn rules() -> Vec<RuleInfo> {
        [("HRM001", Impact::Measured), ("HRM002", Impact::Measured), ("LAY001", Impact::Layout)]
            .into_iter()
            .chain([("LAY002", Impact::Layout), ("CFG001", Impact::Configuration)])
            .chain([("CFG002", Impact::Configuration), ("acme/NAM001", Impact::Unclassified)])
            .map(|(code, impact)| RuleInfo {
                code: code.into(),
                name: format!("rule-{code}"),
                severity: Severity::Warning,
                category: String::new(),
                summary: String::new(),
                docs: String::new(),
                impact,
            })
            .collect()
    }

    fn order(findings: &[Finding]) -> Vec<(Severity, String, usize)> {
        groups(findings, Order::Triage, &rules())
            .iter()
            .map(|g| (g.severity, g.code.to_string(), g.findings.len()))
            .collect()
    }

    #[test]
    fn severity_then_impact_then_entities_then_code() {
        use Severity::*;
        let findings = vec![
            f("CFG001", Warning, "a", "x", "fix"),
            f("CFG001", Warning, "b", "x", "fix"),
            f("CFG002", Warning, "a", "x", "fix"),
            f("LAY001", Error, "p1", "x", "fix"),
            f("LAY001", Error, "p2", "x", "fix"),
            f("HRM001", Error, "d", "x", "fix"),
            f("HRM001", Warning, "e", "x", "fix"),
            f("LAY002", Warning, "v", "x", "fix"),
            f("acme/NAM001", Error, "h", "x", "fix"),
            f("HRM002", Note, "v", "x", "fix"),
            f("LAY003", Warning, "r1", "x", "fix"),
            f("LAY003", Warning, "r2", "x", "fix"),
            f("LAY003", Warning, "r3", "x", "fix"),
        ];
        let o: Vec<(Severity, String, usize)> = order(&findings);
        let codes: Vec<&str> = o.iter().map(|(_, c, _)| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "HRM001",      // error, measured harm
                "LAY001",      // error, layout
                "acme/NAM001", // error, unclassified
                "HRM001",      // warning, measured harm
                "LAY002",      // warning, layout, 1 entity
                "CFG001",      // warning, configuration, 2 entities
                "CFG002",      // warning, configuration, 1 entity
                "LAY003",      // warning, not among the run's rules: unclassified, whatever its letters
                "HRM002",      // note
            ]
        );
        assert_eq!(o[1], (Error, "LAY001".into(), 2));
    }

    #[test]
    fn one_group_per_cause_and_waived_findings_stay_out() {
        use Severity::*;
        let mut waived = f("CFG001", Warning, "t9", "v", "fix");
        waived.waiver =
            Some(AppliedWaiver { reason: "r".into(), expires: None, source: "p".into(), expired: false });
        let mut expired = f("CFG001", Warning, "t8", "v", "fix");
        expired.waiver =
            Some(AppliedWaiver { reason: "r".into(), expires: None, source: "p".into(), expired: true });
        let mut findings: Vec<Finding> =
            (1..=7).map(|i| f("CFG001", Warning, &format!("t{i}"), "v", "fix")).collect();
        findings.extend([waived, expired, f("CFG001", Warning, "x", "another value", "fix")]);
        let g = groups(&findings, Order::Triage, &rules());
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0].findings.len(), 8, "seven files and the one whose waiver expired");
        assert_eq!(g[1].expected, Some("another value"));
        assert!(!g.iter().flat_map(|g| &g.findings).any(|f| f.entity.key == "t9"));
    }

    #[test]
    fn distinct_fixes_are_listed_once_each_with_their_entities() {
        use Severity::*;
        let findings = vec![
            f("CFG001", Warning, "a", "x", "fix a"),
            f("CFG001", Warning, "b", "x", "fix b"),
            f("CFG001", Warning, "c", "x", "fix a"),
        ];
        let g = groups(&findings, Order::Triage, &rules());
        assert_eq!(g[0].fixes(), [("fix a", vec![0, 2]), ("fix b", vec![1])]);
        assert!(!g[0].one_message());
    }
}
