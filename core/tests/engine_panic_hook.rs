//! A contained rule panic prints nothing (the report says it, once per host), while panics
//! elsewhere in the process still reach the hook that was there before. Alone in its test
//! binary: the panic hook is the process's.

use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::declare_rule;
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::params::{NoParams, Params};
use spindle_core::rule::Ctx;
use spindle_core::view::HostView;

fn panics(_: &mut Ctx<'_, NoParams>) {
    panic!("on purpose");
}

declare_rule! {
    /// ## What it checks
    /// Test.
    static PANICS = {
        code: "TST901",
        name: "panics",
        severity: Error,
        summary: "test",
        needs: [],
        params: [],
        check: panics,
    }
}

static HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn contained_panics_are_quiet_and_other_panics_are_not() {
    panic::set_hook(Box::new(|_| {
        HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
    }));
    let doc = parse_snapshot("h.json", r#"{"schema_version": 1, "host": {"name": "h"}}"#.into()).unwrap();
    let view = HostView::build(vec![doc], Declarations::default());
    let rules = [ActiveRule {
        rule: &PANICS,
        code: "TST901".into(),
        severity: PANICS.meta.severity,
        params: Params::default(),
    }];
    for _ in 0..3 {
        let r = check_host(&rules, &view, &[], Date::parse("2026-01-01").unwrap());
        assert_eq!(r.errors.len(), 1);
        assert!(r.errors[0].message.contains("on purpose"), "{}", r.errors[0].message);
    }
    assert_eq!(HOOK_CALLS.load(Ordering::SeqCst), 0, "a contained panic reached the panic hook (stderr)");

    let outside = panic::catch_unwind(|| panic!("not in a rule"));
    assert!(outside.is_err());
    assert_eq!(HOOK_CALLS.load(Ordering::SeqCst), 1, "a panic outside the rules still reaches the hook");
    let _ = panic::take_hook();
}
