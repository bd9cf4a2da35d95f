//! spindle-rules: the builtin storage rules, one rule per file under `src/<category>/`.
//!
//! Codes are stable: a code is never reused for a different check.

pub mod alignment;
mod straddle;

use spindle_core::rule::BuiltinRule;

/// Every builtin rule, in code order.
pub fn all() -> Vec<&'static BuiltinRule> {
    let mut rules: Vec<&'static BuiltinRule> = [alignment::RULES].concat();
    rules.sort_by_key(|r| r.meta.code);
    rules
}
