//! Findings before and after, compared by fingerprint (rule, entity key and field: what
//! `--baseline` compares), so a finding whose message changed (149.4 ms became 74 ms, still
//! above 20 ms) is the same finding, unchanged. Entity keys hold collectors' ids, and recreating
//! a volume, a partition's disk or a virtual disk gives it new ones: a BEFORE finding on such an
//! entity is compared as if found on its successor (the entity the layout diff pairs it with),
//! so a volume formatted again with the same 4 KiB clusters keeps its finding rather than
//! trading it for a new one.
//!
//! A finding BEFORE had and AFTER has not is fixed only when AFTER's check could have found
//! it: the rule ran, and neither lacked a fact for that entity nor declined to judge it (too
//! few reads since a restart). Otherwise it is "not evaluated after": a fact that could not be
//! read is unknown, never a pass.

use std::collections::HashMap;

use spindle_core::engine::HostReport;
use spindle_core::finding::Finding;
pub use spindle_report::diff::{FindingDiff, FindingEntry};
use spindle_report::fingerprint_value;

/// Compares the findings of one host's two checks; a host on one side only has all of its
/// findings new (added) or none compared (removed: its findings went with it, fixed by nothing).
/// `key_after` gives a BEFORE entity key as AFTER spells it (an entity recreated under a new
/// id, see [`super::layout::successors`]): a BEFORE finding is compared as if found on that
/// entity.
pub fn compare(
    before: Option<&HostReport>,
    after: Option<&HostReport>,
    key_after: &dyn Fn(&str) -> String,
) -> FindingDiff {
    let mut out = FindingDiff::default();
    let Some(after) = after else { return out };
    let as_after = |f: &Finding| {
        let key = key_after(&f.entity.key);
        if key == f.entity.key {
            return fingerprint_value(f);
        }
        let mut moved = f.clone();
        moved.entity.key = key;
        fingerprint_value(&moved)
    };
    let before_prints: HashMap<u64, &Finding> =
        before.iter().flat_map(|r| &r.findings).map(|f| (as_after(f), f)).collect();
    let after_prints: HashMap<u64, &Finding> =
        after.findings.iter().map(|f| (fingerprint_value(f), f)).collect();
    for f in &after.findings {
        let entry = FindingEntry::of(f);
        if before.is_some() && before_prints.contains_key(&fingerprint_value(f)) {
            out.unchanged.push(entry);
        } else {
            out.new.push(entry);
        }
    }
    let Some(before) = before else {
        out.sort();
        return out;
    };
    for f in &before.findings {
        if after_prints.contains_key(&as_after(f)) {
            continue;
        }
        let mut entry = FindingEntry::of(f);
        let mut on_successor = f.clone();
        on_successor.entity.key = key_after(&f.entity.key);
        match unjudged(after, &on_successor) {
            Some(why) => {
                entry.reason = Some(why);
                out.not_evaluated_after.push(entry);
            }
            None => out.fixed.push(entry),
        }
    }
    out.sort();
    out
}

/// Why `after` could not have found `f` again, if it could not: its rule failed, lacked a fact
/// for the entity (or the whole host), or declined to judge the entity.
fn unjudged(after: &HostReport, f: &Finding) -> Option<String> {
    if let Some(e) = after.errors.iter().find(|e| e.code == f.code) {
        return Some(format!("the rule failed: {}", e.message));
    }
    if let Some(why) = after.not_judged.first() {
        return Some(format!("the host could not be judged: {why}"));
    }
    let same_entity = |key: Option<&str>| key.is_none_or(|k| k == f.entity.key);
    if let Some(n) = after
        .not_evaluated
        .iter()
        .find(|n| n.code == f.code && same_entity(n.entity.as_ref().map(|e| e.key.as_str())))
    {
        let mut why = format!("{} not collected", n.missing);
        if let Some(r) = &n.reason {
            why.push_str(&format!(": {r}"));
        }
        return Some(why);
    }
    after
        .not_applicable
        .iter()
        .find(|n| n.code == f.code && n.entity.key == f.entity.key)
        .map(|n| format!("not judged: {}", n.reason))
}

#[cfg(test)]
mod tests {
    use spindle_core::finding::{NotApplicable, NotEvaluated, Severity};
    use spindle_core::view::EntityRef;

    use super::*;

    fn finding(code: &str, key: &str, message: &str) -> Finding {
        Finding {
            code: code.into(),
            rule: "r".into(),
            severity: Severity::Warning,
            message: message.into(),
            measured: None,
            expected: None,
            measured_quantity: None,
            expected_quantity: None,
            entity: EntityRef { key: key.into(), label: key.into(), origins: vec![] },
            field: Some("f".into()),
            fix: String::new(),
            gain: None,
            waiver: None,
            baseline: None,
        }
    }

    fn same(key: &str) -> String {
        key.to_string()
    }

    fn report(findings: Vec<Finding>) -> HostReport {
        HostReport { host: "h".into(), findings, ..Default::default() }
    }

    #[test]
    fn the_same_rule_entity_and_field_is_the_same_finding_whatever_its_message() {
        let before = report(vec![finding("LAT001", "h/f", "149.4 ms"), finding("FMT001", "h/v", "4 KiB")]);
        let after = report(vec![finding("LAT001", "h/f", "74 ms"), finding("PLC002", "h/g", "on C:")]);
        let d = compare(Some(&before), Some(&after), &same);
        let codes = |v: &[FindingEntry]| v.iter().map(|f| f.code.clone()).collect::<Vec<_>>();
        assert_eq!(codes(&d.unchanged), ["LAT001"]);
        assert_eq!(d.unchanged[0].message, "74 ms", "shown as AFTER has it");
        assert_eq!(codes(&d.new), ["PLC002"]);
        assert_eq!(codes(&d.fixed), ["FMT001"]);
    }

    #[test]
    fn a_finding_on_a_recreated_entity_is_compared_on_its_successor() {
        let before = report(vec![finding("FMT001", "h/volume:\\\\?\\volume{old}", "4 KiB")]);
        let after = report(vec![finding("FMT001", "h/volume:\\\\?\\volume{new}", "4 KiB")]);
        let d = compare(Some(&before), Some(&after), &same);
        assert_eq!((d.new.len(), d.fixed.len()), (1, 1), "by fingerprint alone");
        let successor = |k: &str| k.replace("{old}", "{new}");
        let d = compare(Some(&before), Some(&after), &successor);
        assert_eq!((d.new.len(), d.fixed.len(), d.unchanged.len()), (0, 0, 1));
    }

    #[test]
    fn a_finding_after_could_not_judge_is_not_fixed() {
        let before = report(vec![finding("LAT001", "h/f", "149.4 ms"), finding("FMT001", "h/v", "4 KiB")]);
        let mut after = report(vec![]);
        after.not_applicable.push(NotApplicable {
            code: "LAT001".into(),
            rule: "r".into(),
            entity: EntityRef { key: "h/f".into(), label: "f".into(), origins: vec![] },
            field: "io/num_of_reads".into(),
            reason: "only 12 reads".into(),
        });
        after.not_evaluated.push(NotEvaluated {
            code: "FMT001".into(),
            rule: "r".into(),
            entity: None,
            missing: "volumes".into(),
            reason: Some("wmi: access denied".into()),
        });
        let d = compare(Some(&before), Some(&after), &same);
        assert!(d.fixed.is_empty(), "{d:?}");
        let reasons: Vec<_> = d.not_evaluated_after.iter().map(|f| f.reason.clone().unwrap()).collect();
        assert_eq!(reasons, ["not judged: only 12 reads", "volumes not collected: wmi: access denied"]);
    }

    #[test]
    fn an_added_host_has_only_new_findings_and_a_removed_one_none_fixed() {
        let r = report(vec![finding("ALN001", "h/p", "sector 63")]);
        let added = compare(None, Some(&r), &same);
        assert_eq!((added.new.len(), added.fixed.len()), (1, 0));
        let removed = compare(Some(&r), None, &same);
        assert_eq!((removed.new.len(), removed.fixed.len(), removed.unchanged.len()), (0, 0, 0));
    }
}
