//! LAT: the I/O stalls SQL Server measured.

mod fixes;
mod stall;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod data_read_latency;
pub(crate) mod latency_vs_media;
pub(crate) mod log_write_latency;

pub use data_read_latency::DATA_READ_LATENCY;
pub use latency_vs_media::LATENCY_VS_MEDIA;
pub use log_write_latency::LOG_WRITE_LATENCY;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&DATA_READ_LATENCY, &LOG_WRITE_LATENCY, &LATENCY_VS_MEDIA];
// codegen:end(rules)
