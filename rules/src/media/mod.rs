//! MED: what the physical media under the files can do.

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod log_shares_spindles;

pub use log_shares_spindles::LOG_SHARES_SPINDLES;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&LOG_SHARES_SPINDLES];
// codegen:end(rules)
