//! STR: how Storage Spaces and RAID sets stripe data.

mod columns_match_disks;
mod interleave_for_workload;
mod log_on_striped_volume;
mod raid_stripe_unit;
pub(crate) mod spaces;

pub use columns_match_disks::COLUMNS_MATCH_DISKS;
pub use interleave_for_workload::INTERLEAVE_FOR_WORKLOAD;
pub use log_on_striped_volume::LOG_ON_STRIPED_VOLUME;
pub use raid_stripe_unit::RAID_STRIPE_UNIT;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] =
    &[&COLUMNS_MATCH_DISKS, &INTERLEAVE_FOR_WORKLOAD, &LOG_ON_STRIPED_VOLUME, &RAID_STRIPE_UNIT];
