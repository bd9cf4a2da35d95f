//! GRW: how database files grow.

#[cfg(test)]
mod testutil;
pub(crate) mod tsql;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod growth_increment;
pub(crate) mod instant_file_initialization;
pub(crate) mod no_percent_growth;

pub use growth_increment::GROWTH_INCREMENT;
pub use instant_file_initialization::INSTANT_FILE_INITIALIZATION;
pub use no_percent_growth::NO_PERCENT_GROWTH;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&NO_PERCENT_GROWTH, &GROWTH_INCREMENT, &INSTANT_FILE_INITIALIZATION];
// codegen:end(rules)
