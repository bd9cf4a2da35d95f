//! STR: how Storage Spaces and RAID sets stripe data.

pub(crate) mod spaces;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod columns_match_disks;
pub(crate) mod interleave_for_workload;
pub(crate) mod log_on_striped_volume;
pub(crate) mod raid_stripe_unit;

pub use columns_match_disks::COLUMNS_MATCH_DISKS;
pub use interleave_for_workload::INTERLEAVE_FOR_WORKLOAD;
pub use log_on_striped_volume::LOG_ON_STRIPED_VOLUME;
pub use raid_stripe_unit::RAID_STRIPE_UNIT;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] =
    &[&COLUMNS_MATCH_DISKS, &INTERLEAVE_FOR_WORKLOAD, &LOG_ON_STRIPED_VOLUME, &RAID_STRIPE_UNIT];
// codegen:end(rules)
