//! The two ways a rule can decline to judge, kept apart — a fact missing (not evaluated) and a
//! judgement the rule chose not to make with the fact in hand (not applicable) — and a host that
//! no rule could be evaluated on, or on which the rules that ran judged nothing, which the engine
//! says it could not judge.

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::declare_rule;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::params::Params;
use spindle_core::rule::{Ctx, Rule};
use spindle_core::view::HostView;

declare_rule! {
    /// ## What it checks
    /// Test: judges partitions with enough of something, declines the others.
    static PICKY = {
        code: "TST101",
        name: "picky",
        severity: Warning,
        summary: "test",
        needs: [Partitions],
        params: PickyParams {
            min_offset_bytes: { kind: Bytes, default: Num(4096.0), doc: "Smallest offset judged." },
        },
        check: picky,
    }
}

fn picky(cx: &mut Ctx<'_, PickyParams>) {
    let min = cx.params.min_offset_bytes;
    let view = cx.view;
    for p in view.partitions.iter().flatten() {
        let Some(offset) = cx.need(p, "offset_bytes", p.offset_bytes) else { continue };
        if offset < min {
            cx.not_applicable(p, "offset_bytes", format!("{offset} B, below min_offset_bytes"));
        } else {
            cx.judged(p);
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// Test: needs RAID sets.
    static NEEDS_RAID = {
        code: "TST102",
        name: "needs-raid",
        severity: Warning,
        summary: "test",
        needs: [RaidSets],
        params: [],
        check: nothing,
    }
}

fn nothing(_: &mut Ctx<'_, spindle_core::params::NoParams>) {}

fn active(rule: &'static dyn Rule) -> ActiveRule<'static> {
    let meta = rule.meta();
    ActiveRule {
        rule,
        code: meta.code.into(),
        severity: meta.severity,
        params: Params::defaults(meta.params),
    }
}

fn check(rules: &[ActiveRule<'_>], snapshot: &str) -> HostReport {
    let view =
        HostView::build(vec![parse_snapshot("h.json", snapshot.into()).unwrap()], Declarations::default());
    check_host(rules, &view, &[], Date::parse("2026-01-01").unwrap())
}

const PARTITIONS: &str = r#"{"schema_version": 1, "host": {"name": "h"},
  "partitions": [
    {"id": "p1", "disk_id": "d", "number": 1, "offset_bytes": 1024},
    {"id": "p2", "disk_id": "d", "number": 2},
    {"id": "p3", "disk_id": "d", "number": 3, "offset_bytes": 1048576}
  ]}"#;

#[test]
fn a_declined_judgement_is_not_applicable_and_a_missing_fact_not_evaluated() {
    let r = check(&[active(&PICKY)], PARTITIONS);
    let na: Vec<(&str, &str)> =
        r.not_applicable.iter().map(|n| (n.entity.key.as_str(), n.field.as_str())).collect();
    assert_eq!(na, [("h/disk:d/partition:1", "offset_bytes")]);
    assert_eq!(r.not_applicable[0].reason, "1024 B, below min_offset_bytes");
    assert_eq!((r.not_applicable[0].code.as_str(), r.not_applicable[0].rule.as_str()), ("TST101", "picky"));
    let ne: Vec<&str> = r.not_evaluated.iter().map(|n| n.missing.as_str()).collect();
    assert_eq!(ne, ["offset_bytes"], "only the partition without an offset lacks a fact");
    assert_eq!(r.rules_run, 1);
    assert!(r.not_judged.is_empty(), "{:?}", r.not_judged);
}

#[test]
fn a_host_no_rule_could_be_evaluated_on_is_not_judged() {
    let empty = r#"{"schema_version": 1, "host": {"name": "h"}}"#;
    let r = check(&[active(&PICKY), active(&NEEDS_RAID)], empty);
    assert_eq!(r.rules_run, 0);
    assert_eq!(
        r.not_judged,
        ["none of the 2 active rules could be evaluated: the snapshots lack partitions, raid_sets"]
    );

    let r = check(&[active(&NEEDS_RAID)], PARTITIONS);
    assert_eq!(r.not_judged, ["the one active rule could not be evaluated: the snapshots lack raid_sets"]);

    // One rule that ran is enough to judge the host by.
    let r = check(&[active(&PICKY), active(&NEEDS_RAID)], PARTITIONS);
    assert!(r.not_judged.is_empty(), "{:?}", r.not_judged);

    let r = check(&[], PARTITIONS);
    assert_eq!(r.not_judged, ["no rule is active: the packs select none"]);
}

#[test]
fn a_host_on_which_the_rules_that_ran_judged_nothing_is_not_judged() {
    // Every partition either lacks its offset or is below the rule's floor: the rule ran, and
    // verified nothing.
    let nothing_verified = r#"{"schema_version": 1, "host": {"name": "h"},
      "partitions": [
        {"id": "p1", "disk_id": "d", "number": 1, "offset_bytes": 1024},
        {"id": "p2", "disk_id": "d", "number": 2}
      ]}"#;
    let r = check(&[active(&PICKY), active(&NEEDS_RAID)], nothing_verified);
    assert_eq!((r.rules_run, r.rules_judged), (1, 0));
    assert_eq!(
        r.not_judged,
        ["nothing was verified: the one rule that ran (TST101) judged nothing: the facts lack \
          offset_bytes, raid_sets; 1 check was not applicable"]
    );

    // No partition at all: the rule ran over an empty section.
    let none = r#"{"schema_version": 1, "host": {"name": "h"}, "partitions": []}"#;
    let r = check(&[active(&PICKY)], none);
    assert_eq!(
        r.not_judged,
        ["nothing was verified: the one rule that ran (TST101) judged nothing: the facts hold nothing \
          they check"]
    );

    // One judged partition is enough.
    let r = check(&[active(&PICKY)], PARTITIONS);
    assert_eq!((r.rules_run, r.rules_judged), (1, 1));
    assert!(r.not_judged.is_empty(), "{:?}", r.not_judged);
}
