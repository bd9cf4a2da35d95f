//! A host's findings in triage order: one group per rule and cause, the most serious and most
//! harmful first. docs/report-text.md describes the order; the tests below hold it.
//!
//! Grouping is presentation: every finding of the host is in exactly one group (or, waived, in
//! the waived list), so nothing a report shows per finding is lost.

use std::collections::HashMap;

use spindle_core::finding::{Finding, Severity};
use spindle_core::gain::{Gain, rank_of};

use crate::Order;

/// Findings of one rule with one cause: same code, severity and expected value.
#[derive(Debug)]
pub(crate) struct Group<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub rule: &'a str,
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

/// How directly a rule's findings cost the server, from its code's category: 0 for measured harm
/// (latency, a volume filling up), 1 for layout causes that take an outage to fix (alignment,
/// striping, the file system's format, log and data on the same spindles), 2 for configuration
/// (file placement, growth), 3 for anything else (plugin rules, categories spindle does not know).
pub(crate) fn impact_tier(code: &str) -> u8 {
    if code.contains('/') {
        return 3;
    }
    let letters = code.find(|c: char| c.is_ascii_digit()).map_or(code, |n| &code[..n]);
    match letters {
        "LAT" | "CAP" => 0,
        "ALN" | "STR" | "FMT" | "MED" => 1,
        "PLC" | "GRW" => 2,
        _ => 3,
    }
}

/// The unwaived findings (those under a waiver that has expired count again) grouped, in triage
/// order: severity (error first), then impact tier, then more entities first, then code; groups
/// still tied keep the order their first finding was reported in. By [`Order::Gain`], the groups
/// with the largest expected gain come first, those with no estimate after them in triage order.
pub(crate) fn groups(findings: &[Finding], order: Order) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = vec![];
    let mut index: HashMap<(Severity, &str, Option<&str>), usize> = HashMap::new();
    for f in findings.iter().filter(|f| !f.is_waived()) {
        let key = (f.severity, f.code.as_str(), f.expected.as_deref());
        match index.get(&key) {
            Some(&i) => out[i].findings.push(f),
            None => {
                index.insert(key, out.len());
                out.push(Group {
                    severity: f.severity,
                    code: &f.code,
                    rule: &f.rule,
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
            .then(impact_tier(a.code).cmp(&impact_tier(b.code)))
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

    fn order(findings: &[Finding]) -> Vec<(Severity, String, usize)> {
        groups(findings, Order::Triage)
            .iter()
            .map(|g| (g.severity, g.code.to_string(), g.findings.len()))
            .collect()
    }

    #[test]
    fn severity_then_impact_then_entities_then_code() {
        use Severity::*;
        let findings = vec![
            f("GRW001", Warning, "a", "x", "fix"),
            f("GRW001", Warning, "b", "x", "fix"),
            f("PLC002", Warning, "a", "x", "fix"),
            f("ALN001", Error, "p1", "x", "fix"),
            f("ALN001", Error, "p2", "x", "fix"),
            f("LAT001", Error, "d", "x", "fix"),
            f("LAT001", Warning, "e", "x", "fix"),
            f("FMT001", Warning, "v", "x", "fix"),
            f("acme/NAM001", Error, "h", "x", "fix"),
            f("CAP001", Note, "v", "x", "fix"),
            f("STR004", Warning, "r1", "x", "fix"),
            f("STR004", Warning, "r2", "x", "fix"),
        ];
        let o: Vec<(Severity, String, usize)> = order(&findings);
        let codes: Vec<&str> = o.iter().map(|(_, c, _)| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "LAT001",      // error, measured harm
                "ALN001",      // error, layout
                "acme/NAM001", // error, unknown impact
                "LAT001",      // warning, measured harm
                "STR004",      // warning, layout, 2 entities
                "FMT001",      // warning, layout, 1 entity
                "GRW001",      // warning, configuration, 2 entities
                "PLC002",      // warning, configuration, 1 entity
                "CAP001",      // note
            ]
        );
        assert_eq!(o[1], (Error, "ALN001".into(), 2));
    }

    #[test]
    fn one_group_per_cause_and_waived_findings_stay_out() {
        use Severity::*;
        let mut waived = f("PLC004", Warning, "t9", "v", "fix");
        waived.waiver =
            Some(AppliedWaiver { reason: "r".into(), expires: None, source: "p".into(), expired: false });
        let mut expired = f("PLC004", Warning, "t8", "v", "fix");
        expired.waiver =
            Some(AppliedWaiver { reason: "r".into(), expires: None, source: "p".into(), expired: true });
        let mut findings: Vec<Finding> =
            (1..=7).map(|i| f("PLC004", Warning, &format!("t{i}"), "v", "fix")).collect();
        findings.extend([waived, expired, f("PLC004", Warning, "x", "another value", "fix")]);
        let g = groups(&findings, Order::Triage);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0].findings.len(), 8, "seven files and the one whose waiver expired");
        assert_eq!(g[1].expected, Some("another value"));
        assert!(!g.iter().flat_map(|g| &g.findings).any(|f| f.entity.key == "t9"));
    }

    #[test]
    fn distinct_fixes_are_listed_once_each_with_their_entities() {
        use Severity::*;
        let findings = vec![
            f("GRW001", Warning, "a", "x", "fix a"),
            f("GRW001", Warning, "b", "x", "fix b"),
            f("GRW001", Warning, "c", "x", "fix a"),
        ];
        let g = groups(&findings, Order::Triage);
        assert_eq!(g[0].fixes(), [("fix a", vec![0, 2]), ("fix b", vec![1])]);
        assert!(!g[0].one_message());
    }

    #[test]
    fn tiers() {
        assert_eq!(impact_tier("LAT003"), 0);
        assert_eq!(impact_tier("CAP001"), 0);
        assert_eq!(impact_tier("ALN004"), 1);
        assert_eq!(impact_tier("MED001"), 1);
        assert_eq!(impact_tier("GRW002"), 2);
        assert_eq!(impact_tier("acme/LAT001"), 3, "a plugin's code is not a builtin category");
        assert_eq!(impact_tier("XYZ"), 3);
    }
}
