//! `declare_rule!` parameters: one declaration gives the specs packs are validated against and
//! the typed struct the check reads, with the values the packs set.

use spindle_core::date::Date;
use spindle_core::declare::{Declarations, Workload};
use spindle_core::declare_rule;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::params::{ParamDefault, ParamKind, ParamValue, Params};
use spindle_core::rule::Ctx;
use spindle_core::view::HostView;

declare_rule! {
    /// ## What it checks
    /// Test: reports the parameters it read.
    static EVERY_KIND = {
        code: "TST100",
        name: "every-kind",
        severity: Note,
        summary: "test",
        needs: [],
        params: EveryKind {
            boundary_bytes: { kind: Bytes, default: Num(65536.0), doc: "A size." },
            max_files: { kind: Count, default: Num(8.0), doc: "A count." },
            floor_ms: { kind: Ms, default: Num(0.5), doc: "A time." },
            min_free_percent: { kind: Percent, default: Num(20.0), doc: "A share." },
            factor: { kind: Factor, default: Num(3.0), doc: "A factor." },
            include_system_databases: { kind: Choice(bool), default: Text("no"), doc: "A yes or no." },
            workload: { kind: Choice(Workload), default: Text("oltp"), doc: "A typed choice." },
            layout: { kind: Choice(&["simple", "mirror"]), default: Text("simple"), doc: "A word." },
        },
        check: report_params,
    }
}

fn report_params(cx: &mut Ctx<'_, EveryKind>) {
    let p: &EveryKind = cx.params;
    let (bytes, files, ms, percent, factor): (u64, u32, f64, f64, f64) =
        (p.boundary_bytes, p.max_files, p.floor_ms, p.min_free_percent, p.factor);
    let (system, workload, layout): (bool, Workload, &'static str) =
        (p.include_system_databases, p.workload, p.layout);
    let message = format!("{bytes} {files} {ms} {percent} {factor} {system} {} {layout}", workload.as_str());
    let host = &cx.view.host;
    cx.report(host, "", message);
}

fn run(params: Params) -> HostReport {
    let doc = parse_snapshot("h.json", r#"{"schema_version": 1, "host": {"name": "h"}}"#.into()).unwrap();
    let view = HostView::build(vec![doc], Declarations::default());
    let rules =
        [ActiveRule { rule: &EVERY_KIND, code: "TST100".into(), severity: EVERY_KIND.meta.severity, params }];
    check_host(&rules, &view, &[], Date::parse("2026-01-01").unwrap())
}

#[test]
fn the_specs_come_from_the_same_declaration() {
    let specs: Vec<(&str, ParamKind, ParamDefault)> =
        EVERY_KIND.meta.params.iter().map(|s| (s.name, s.kind, s.default)).collect();
    assert_eq!(
        specs,
        [
            ("boundary_bytes", ParamKind::Bytes, ParamDefault::Num(65536.0)),
            ("max_files", ParamKind::Count, ParamDefault::Num(8.0)),
            ("floor_ms", ParamKind::Ms, ParamDefault::Num(0.5)),
            ("min_free_percent", ParamKind::Percent, ParamDefault::Num(20.0)),
            ("factor", ParamKind::Factor, ParamDefault::Num(3.0)),
            ("include_system_databases", ParamKind::Choice(&["no", "yes"]), ParamDefault::Text("no")),
            ("workload", ParamKind::Choice(&["oltp", "data-warehouse"]), ParamDefault::Text("oltp")),
            ("layout", ParamKind::Choice(&["simple", "mirror"]), ParamDefault::Text("simple")),
        ]
    );
    assert_eq!(EVERY_KIND.meta.params[5].doc, "A yes or no.");
}

#[test]
fn the_check_reads_the_defaults_and_what_packs_set() {
    let r = run(Params::defaults(EVERY_KIND.meta.params));
    assert_eq!(r.findings[0].message, "65536 8 0.5 20 3 false oltp simple");

    let mut set = Params::defaults(EVERY_KIND.meta.params);
    for (name, value) in [
        ("boundary_bytes", ParamValue::Num(1048576.0)),
        ("max_files", ParamValue::Num(4.0)),
        ("floor_ms", ParamValue::Num(0.1)),
        ("min_free_percent", ParamValue::Num(12.5)),
        ("factor", ParamValue::Num(1.5)),
        ("include_system_databases", ParamValue::Text("yes".into())),
        ("workload", ParamValue::Text("data-warehouse".into())),
        ("layout", ParamValue::Text("mirror".into())),
    ] {
        set.set(name, value);
    }
    let r = run(set);
    assert_eq!(r.findings[0].message, "1048576 4 0.1 12.5 1.5 true data-warehouse mirror");
}

#[test]
fn a_value_its_kind_refuses_fails_the_rule_not_the_run() {
    // Packs refuse it before any check runs; a caller that skips them gets a rule error.
    let mut bad = Params::defaults(EVERY_KIND.meta.params);
    bad.set("max_files", ParamValue::Text("eight".into()));
    let r = run(bad);
    assert!(r.findings.is_empty());
    assert_eq!(r.errors.len(), 1);
    assert!(
        r.errors[0].message.contains("rule parameter max_files = \"eight\" does not read as count"),
        "{}",
        r.errors[0].message
    );
}
