//! FMT: how volumes are formatted and mounted.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
