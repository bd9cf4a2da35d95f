//! Passes: what a rule judged, less what it found fault with, could not evaluate or declined.

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::declare_rule;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::params::{NoParams, Params};
use spindle_core::rule::{Ctx, Rule};
use spindle_core::view::HostView;

declare_rule! {
    /// ## What it checks
    /// Test: partition offsets of at least 4 KiB, a multiple of 4 KiB.
    static OFFSETS = {
        code: "TST201",
        name: "offsets",
        severity: Warning,
        summary: "test",
        needs: [Partitions],
        params: [],
        check: offsets,
    }
}

fn offsets(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for p in view.partitions.iter().flatten() {
        // Judged before deciding, and twice for good measure: the engine sorts it out.
        cx.judged(p);
        cx.judged(p);
        let Some(offset) = cx.need(p, "offset_bytes", p.offset_bytes) else { continue };
        if offset < 4096 {
            cx.not_applicable(p, "offset_bytes", "too small to judge");
        } else if offset % 4096 != 0 {
            cx.report(p, "offset_bytes", "not a multiple of 4 KiB");
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// Test: says nothing of what it judged.
    static SILENT = {
        code: "TST202",
        name: "silent",
        severity: Warning,
        summary: "test",
        needs: [Partitions],
        params: [],
        check: silent,
    }
}

fn silent(_: &mut Ctx<'_, NoParams>) {}

declare_rule! {
    /// ## What it checks
    /// Test: judges everything, then panics.
    static PANICS = {
        code: "TST203",
        name: "panics",
        severity: Warning,
        summary: "test",
        needs: [Partitions],
        params: [],
        check: panics,
    }
}

fn panics(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for p in view.partitions.iter().flatten() {
        cx.judged(p);
    }
    panic!("after judging");
}

fn active(rule: &'static dyn Rule) -> ActiveRule<'static> {
    let meta = rule.meta();
    ActiveRule {
        rule,
        code: meta.code.into(),
        severity: meta.severity,
        params: Params::defaults(meta.params),
    }
}

fn check(rules: &[ActiveRule<'_>], partitions: usize) -> HostReport {
    check_host(rules, &view_of(partitions), &[], Date::parse("2026-01-01").unwrap())
}

fn view_of(partitions: usize) -> HostView {
    // p1: a finding; p2: not evaluated; p3: not applicable; p4 and beyond: pass.
    let mut list = vec![
        r#"{"id": "p1", "disk_id": "d", "number": 1, "offset_bytes": 32256}"#.to_string(),
        r#"{"id": "p2", "disk_id": "d", "number": 2}"#.to_string(),
        r#"{"id": "p3", "disk_id": "d", "number": 3, "offset_bytes": 512}"#.to_string(),
    ];
    for n in 4..=partitions {
        list.push(format!(r#"{{"id": "p{n}", "disk_id": "d", "number": {n}, "offset_bytes": 1048576}}"#));
    }
    let snapshot =
        format!(r#"{{"schema_version": 1, "host": {{"name": "h"}}, "partitions": [{}]}}"#, list.join(","));
    HostView::build(vec![parse_snapshot("h.json", snapshot).unwrap()], Declarations::default())
}

fn passed(report: &HostReport, code: &str) -> Vec<String> {
    report.passed.iter().filter(|p| p.code == code).flat_map(|p| p.keys.iter().cloned()).collect()
}

#[test]
fn passes_are_what_was_judged_less_findings_gaps_and_declines() {
    let report = check(&[active(&OFFSETS), active(&SILENT)], 5);
    assert_eq!(passed(&report, "TST201"), ["h/disk:d/partition:4", "h/disk:d/partition:5"]);
    assert_eq!(report.passed.len(), 1, "a rule that says nothing of what it judged passes nothing");
    assert_eq!(report.passed[0].rule, "offsets");
    // Keys only; the view gives the entity back for a writer that shows more.
    let first = view_of(5).entity(&report.passed[0].keys[0]).expect("a passed key is in the view");
    assert_eq!(first.label, "h › disk d › partition 4");
}

#[test]
fn many_entities_are_sorted_out_the_same_way() {
    // Past the size the engine walks, it hashes: the same answer, in judged order.
    let report = check(&[active(&OFFSETS)], 200);
    let keys = passed(&report, "TST201");
    assert_eq!(keys.len(), 197);
    assert_eq!(keys.first().unwrap(), "h/disk:d/partition:4");
    assert_eq!(keys.last().unwrap(), "h/disk:d/partition:200");
}

#[test]
fn a_rule_that_fails_passes_nothing() {
    let report = check(&[active(&PANICS)], 5);
    assert_eq!(report.errors.len(), 1);
    assert!(report.passed.is_empty());
}
