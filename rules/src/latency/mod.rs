//! LAT: the I/O stalls SQL Server measured.

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[];
