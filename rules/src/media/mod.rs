//! MED: what the physical media under the files can do.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
