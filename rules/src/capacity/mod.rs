//! CAP: room to grow on the volumes that hold database files.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
