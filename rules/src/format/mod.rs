//! FMT: how volumes are formatted and mounted.

pub(crate) mod db_volumes;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod allocation_unit_size;
pub(crate) mod filesystem_type;
pub(crate) mod linux_mount_options;
pub(crate) mod volume_compression;

pub use allocation_unit_size::ALLOCATION_UNIT_SIZE;
pub use filesystem_type::FILESYSTEM_TYPE;
pub use linux_mount_options::LINUX_MOUNT_OPTIONS;
pub use volume_compression::VOLUME_COMPRESSION;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] =
    &[&ALLOCATION_UNIT_SIZE, &VOLUME_COMPRESSION, &FILESYSTEM_TYPE, &LINUX_MOUNT_OPTIONS];
// codegen:end(rules)
