//! GRW: how database files grow.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
