//! A builtin rule (or a group) that panics is contained like a plugin that traps: it reports
//! nothing for the host, an error names it, and every other rule still reports.

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::finding::{Finding, NotEvaluated, RuleError};
use spindle_core::load::parse_snapshot;
use spindle_core::params::{NoParams, Params};
use spindle_core::rule::{Ctx, Rule, RuleGroup, RuleMeta};
use spindle_core::view::HostView;
use spindle_core::{Severity, declare_rule};

fn reports_then_panics(cx: &mut Ctx<'_, NoParams>) {
    let host = &cx.view.host;
    cx.report(host, "", "reported before the panic");
    let shares: Vec<u64> = vec![];
    panic!("no volumes to divide by: {}", shares[0] / 2);
}

fn floods_the_terminal(_: &mut Ctx<'_, NoParams>) {
    panic!("\u{1b}[2J\u{202e}cleared\n{}", "x".repeat(5000));
}

fn host_note(cx: &mut Ctx<'_, NoParams>) {
    let host = &cx.view.host;
    cx.report(host, "", "fine ran");
}

declare_rule! {
    /// ## What it checks
    /// Test: indexes an empty list.
    static PANICS = {
        code: "TST901",
        name: "panics",
        severity: Error,
        summary: "test",
        needs: [],
        params: [],
        check: reports_then_panics,
    }
}

declare_rule! {
    /// ## What it checks
    /// Test: panics with terminal escapes and a long message.
    static FLOODS = {
        code: "TST902",
        name: "floods",
        severity: Error,
        summary: "test",
        needs: [],
        params: [],
        check: floods_the_terminal,
    }
}

declare_rule! {
    /// ## What it checks
    /// Test.
    static FINE = {
        code: "TST001",
        name: "fine",
        severity: Warning,
        summary: "test",
        needs: [],
        params: [],
        check: host_note,
    }
}

fn view(host: &str) -> HostView {
    let text = format!(r#"{{"schema_version": 1, "host": {{"name": "{host}"}}}}"#);
    HostView::build(vec![parse_snapshot("h.json", text).unwrap()], Declarations::default())
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

fn check(rules: &[ActiveRule<'_>], host: &str) -> HostReport {
    check_host(rules, &view(host), &[], Date::parse("2026-01-01").unwrap())
}

#[test]
fn a_panicking_rule_is_an_error_and_the_others_still_report() {
    let rules = [active(&PANICS), active(&FINE)];
    for host in ["h1", "h2"] {
        let r = check(&rules, host);
        assert_eq!(r.errors.len(), 1, "{host}: {:?}", r.errors);
        let e = &r.errors[0];
        assert_eq!(e.code, "TST901");
        assert!(
            e.message.starts_with("rule TST901 (panics) panicked, so it reported nothing for this host: "),
            "{}",
            e.message
        );
        assert!(e.message.contains("index out of bounds: the len is 0 but the index is 0"), "{}", e.message);
        assert!(e.message.contains("engine_panics.rs:"), "the message says where: {}", e.message);
        let codes: Vec<&str> = r.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["TST001"], "what the panicking rule reported before it panicked is dropped");
        assert_eq!(r.rules_run, 1, "a rule that panicked did not run to the end");
    }
}

#[test]
fn a_panic_message_is_escaped_and_cut() {
    let r = check(&[active(&FLOODS)], "h");
    let m = &r.errors[0].message;
    assert!(!m.chars().any(|c| c.is_control() || c == '\u{202e}'), "{m:?}");
    assert!(m.contains(r"\u{1b}[2J\u{202e}cleared\u{a}xxx"), "{m}");
    assert!(m.ends_with(" […]"), "{m}");
    let shown = m.split_once("for this host: ").unwrap().1;
    assert!(shown.chars().count() < RuleError::PANIC_MESSAGE_CHARS + 40, "{} chars", shown.chars().count());
}

/// A group that panics in its call (a plugin host's bug, not a plugin's trap).
struct Exploding;

struct Member(RuleMeta);

impl Rule for Member {
    fn meta(&self) -> &RuleMeta {
        &self.0
    }
    fn check(&self, _: &mut Ctx<'_>) {
        unreachable!("group members are checked by their group")
    }
    fn group(&self) -> Option<&dyn RuleGroup> {
        Some(&Exploding)
    }
}

impl RuleGroup for Exploding {
    fn id(&self) -> &str {
        "plugin `p` of pack p.toml"
    }
    fn check(
        &self,
        _: &HostView,
        _: &[&ActiveRule<'_>],
    ) -> Result<(Vec<Finding>, Vec<NotEvaluated>), RuleError> {
        panic!("the plugin host lost its instance")
    }
}

fn member(code: &'static str) -> Member {
    Member(RuleMeta {
        code,
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
    })
}

#[test]
fn a_panicking_group_is_one_error_for_its_rules() {
    let (a, b) = (member("GRP001"), member("GRP002"));
    let rules = [
        active(&FINE),
        ActiveRule {
            rule: &a,
            code: "p/GRP001".into(),
            severity: Severity::Error,
            params: Params::default(),
        },
        ActiveRule {
            rule: &b,
            code: "p/GRP002".into(),
            severity: Severity::Error,
            params: Params::default(),
        },
    ];
    let r = check(&rules, "h");
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!(r.errors[0].code, "p/*");
    assert!(
        r.errors[0].message.starts_with("plugin `p` of pack p.toml panicked, so it reported nothing for this host: the plugin host lost its instance"),
        "{}",
        r.errors[0].message
    );
    assert_eq!(r.findings.len(), 1, "the builtin rule still reports");
}
