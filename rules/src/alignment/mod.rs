//! ALN: where partitions start relative to stripe units, clusters and physical sectors.

pub(crate) mod recreate;
mod stripe_facts;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod offset_stripe_unit;
pub(crate) mod partition_offset_alignment;
pub(crate) mod physical_sector_alignment;
pub(crate) mod stripe_unit_allocation_unit;

pub use offset_stripe_unit::OFFSET_STRIPE_UNIT;
pub use partition_offset_alignment::PARTITION_OFFSET_ALIGNMENT;
pub use physical_sector_alignment::PHYSICAL_SECTOR_ALIGNMENT;
pub use stripe_unit_allocation_unit::STRIPE_UNIT_ALLOCATION_UNIT;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[
    &PARTITION_OFFSET_ALIGNMENT,
    &OFFSET_STRIPE_UNIT,
    &STRIPE_UNIT_ALLOCATION_UNIT,
    &PHYSICAL_SECTOR_ALIGNMENT,
];
// codegen:end(rules)
