//! MED: what the physical media under the files can do.

mod log_shares_spindles;

pub use log_shares_spindles::LOG_SHARES_SPINDLES;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&LOG_SHARES_SPINDLES];
