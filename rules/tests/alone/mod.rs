//! One builtin rule alone, at its default parameters, on one snapshot: how the fixtures and the
//! examples in the rules' docs are run, so that both show what `spindle check --select CODE`
//! reports.

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::rule::BuiltinRule;
use spindle_core::view::HostView;

/// The day the fixtures and examples are checked on (a waiver's expiry is judged against it).
pub const TODAY: &str = "2026-01-01";

/// `rule`'s report on the snapshot `text`, or why `text` is no snapshot (naming it `path`).
pub fn check_alone(rule: &'static BuiltinRule, path: &str, text: String) -> Result<HostReport, String> {
    let doc = parse_snapshot(path, text).map_err(|e| e.to_string())?;
    let view = HostView::build(vec![doc], Declarations::default());
    Ok(check_host(&[ActiveRule::at_defaults(rule)], &view, &[], Date::parse(TODAY).unwrap()))
}
