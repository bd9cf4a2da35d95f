//! CAP: room to grow on the volumes that hold database files.

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod volume_free_space;

pub use volume_free_space::VOLUME_FREE_SPACE;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&VOLUME_FREE_SPACE];
// codegen:end(rules)
