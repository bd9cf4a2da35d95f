//! spindle-rules: the builtin storage rules, one rule per file under `src/<category>/`.
//!
//! Codes are stable: a code is never reused for a different check.

pub mod alignment;
pub mod capacity;
pub mod format;
pub mod growth;
pub mod latency;
pub mod media;
pub mod placement;
mod straddle;
pub mod striping;

use spindle_core::rule::BuiltinRule;

/// Every builtin rule, in code order.
pub fn all() -> Vec<&'static BuiltinRule> {
    let mut rules: Vec<&'static BuiltinRule> = [
        alignment::RULES,
        capacity::RULES,
        format::RULES,
        growth::RULES,
        latency::RULES,
        media::RULES,
        placement::RULES,
        striping::RULES,
    ]
    .concat();
    rules.sort_by_key(|r| r.meta.code);
    rules
}
