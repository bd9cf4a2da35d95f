//! PLC: where data, log and tempdb files live.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
