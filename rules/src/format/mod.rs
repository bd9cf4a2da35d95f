//! FMT: how volumes are formatted and mounted.

mod allocation_unit_size;
pub(crate) mod db_volumes;
mod filesystem_type;
mod linux_mount_options;
mod volume_compression;

pub use allocation_unit_size::ALLOCATION_UNIT_SIZE;
pub use filesystem_type::FILESYSTEM_TYPE;
pub use linux_mount_options::LINUX_MOUNT_OPTIONS;
pub use volume_compression::VOLUME_COMPRESSION;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] =
    &[&ALLOCATION_UNIT_SIZE, &VOLUME_COMPRESSION, &FILESYSTEM_TYPE, &LINUX_MOUNT_OPTIONS];
