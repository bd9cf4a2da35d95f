//! Runs one rule over a snapshot written inline, for unit tests that look at what the fixture
//! digests do not show (the specific fix).

use spindle_core::declare::Declarations;
use spindle_core::finding::Finding;
use spindle_core::load::parse_snapshot;
use spindle_core::params::Params;
use spindle_core::rule::{BuiltinRule, Ctx, Rule};
use spindle_core::view::HostView;

pub(crate) fn findings(rule: &BuiltinRule, json: &str) -> Vec<Finding> {
    let doc = parse_snapshot("test.json", json.to_string()).expect("valid snapshot");
    let view = HostView::build(vec![doc], Declarations::default());
    let params = Params::defaults(rule.meta.params);
    let mut cx = Ctx::new(&view, &params, rule.meta.code, &rule.meta, rule.meta.severity);
    rule.check(&mut cx);
    cx.into_results().0
}
