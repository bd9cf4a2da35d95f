//! CAP: room to grow on the volumes that hold database files.

mod volume_free_space;

pub use volume_free_space::VOLUME_FREE_SPACE;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&VOLUME_FREE_SPACE];
