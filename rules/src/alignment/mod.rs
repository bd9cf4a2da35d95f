//! ALN: where partitions start relative to stripe units, clusters and physical sectors.

mod partition_offset_alignment;

pub use partition_offset_alignment::PARTITION_OFFSET_ALIGNMENT;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&PARTITION_OFFSET_ALIGNMENT];
