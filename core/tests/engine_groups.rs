//! Rules checked in groups (a plugin's rules): one call per host, pack severities applied, and a
//! failing group recorded as an error while every other rule still reports.

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::finding::{Finding, NotEvaluated, RuleError};
use spindle_core::load::parse_snapshot;
use spindle_core::params::{NoParams, Params};
use spindle_core::rule::{Ctx, Rule, RuleGroup, RuleMeta};
use spindle_core::view::HostView;
use spindle_core::{Severity, declare_rule};

fn host_note(cx: &mut Ctx<'_, NoParams>) {
    let host = &cx.view.host;
    cx.report(host, "", "builtin ran");
}

declare_rule! {
    /// ## What it checks
    /// Test.
    static BUILTIN = {
        code: "TST001",
        name: "builtin",
        severity: Warning,
        summary: "test",
        needs: [],
        params: [],
        check: host_note,
    }
}

/// A stand-in for a plugin: its rules' metadata and a canned answer.
struct Group {
    fail: bool,
}

struct Member {
    meta: RuleMeta,
    group: Group,
}

impl Rule for Member {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }
    fn check(&self, _: &mut Ctx<'_>) {
        unreachable!("group members are checked by their group")
    }
    fn group(&self) -> Option<&dyn RuleGroup> {
        Some(&self.group)
    }
}

impl RuleGroup for Group {
    fn id(&self) -> &str {
        "plugin p"
    }
    fn check(
        &self,
        view: &HostView,
        rules: &[&ActiveRule<'_>],
    ) -> Result<(Vec<Finding>, Vec<NotEvaluated>), RuleError> {
        if self.fail {
            return Err(RuleError { code: "p/*".into(), message: "plugin p trapped".into() });
        }
        let findings = rules
            .iter()
            .map(|r| Finding {
                code: r.code.clone(),
                rule: r.rule.meta().name.into(),
                severity: Severity::Error,
                message: "from the group".into(),
                measured: None,
                expected: None,
                measured_quantity: None,
                expected_quantity: None,
                entity: view.host.entity(),
                field: None,
                fix: String::new(),
                gain: None,
                waiver: None,
                baseline: None,
            })
            .collect();
        Ok((findings, vec![]))
    }
}

fn member(fail: bool) -> Member {
    Member {
        meta: RuleMeta {
            code: "GRP001",
            name: "grouped",
            severity: Severity::Error,
            summary: "test",
            impact: spindle_core::rule::Impact::Unclassified,
            since: "",
            stage: spindle_core::rule::Stage::Stable,
            remedies: &[],
            needs: &[],
            params: &[],
            raw_docs: "",
            fix_cache: std::sync::OnceLock::new(),
        },
        group: Group { fail },
    }
}

fn run(fail: bool, grouped_severity: Severity) -> spindle_core::engine::HostReport {
    let doc = parse_snapshot("h.json", r#"{"schema_version": 1, "host": {"name": "h"}}"#.into()).unwrap();
    let view = HostView::build(vec![doc], Declarations::default());
    let m = member(fail);
    let rules = [
        ActiveRule {
            rule: &BUILTIN,
            code: "TST001".into(),
            severity: Severity::Warning,
            params: Params::default(),
        },
        ActiveRule {
            rule: &m,
            code: "p/GRP001".into(),
            severity: grouped_severity,
            params: Params::default(),
        },
    ];
    check_host(&rules, &view, &[], Date::parse("2026-01-01").unwrap())
}

#[test]
fn group_findings_join_the_report_with_pack_severity() {
    let r = run(false, Severity::Error);
    let codes: Vec<_> = r.findings.iter().map(|f| (f.code.as_str(), f.severity)).collect();
    assert_eq!(codes, [("TST001", Severity::Warning), ("p/GRP001", Severity::Error)]);
    let r = run(false, Severity::Note);
    assert_eq!(r.findings[1].severity, Severity::Note, "the pack's severity wins");
    assert_eq!(r.rules_run, 2);
}

#[test]
fn a_failing_group_is_an_error_and_the_rest_still_report() {
    let r = run(true, Severity::Error);
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.findings.len(), 1, "the builtin rule still reports");
    assert_eq!(r.findings[0].code, "TST001");
}
