//! STR: how Storage Spaces and RAID sets stripe data.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
