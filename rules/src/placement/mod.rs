//! PLC: where data, log and tempdb files live.

pub(crate) mod files;
pub(crate) mod tempdb_tsql;

// codegen:begin(rules): written by `cargo xtask codegen` from the rule files
pub(crate) mod data_log_separate_volumes;
pub(crate) mod no_database_files_on_system_volume;
pub(crate) mod single_log_file;
pub(crate) mod tempdb_data_files;
pub(crate) mod tempdb_own_volume;

pub use data_log_separate_volumes::DATA_LOG_SEPARATE_VOLUMES;
pub use no_database_files_on_system_volume::NO_DATABASE_FILES_ON_SYSTEM_VOLUME;
pub use single_log_file::SINGLE_LOG_FILE;
pub use tempdb_data_files::TEMPDB_DATA_FILES;
pub use tempdb_own_volume::TEMPDB_OWN_VOLUME;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[
    &DATA_LOG_SEPARATE_VOLUMES,
    &NO_DATABASE_FILES_ON_SYSTEM_VOLUME,
    &SINGLE_LOG_FILE,
    &TEMPDB_OWN_VOLUME,
    &TEMPDB_DATA_FILES,
];
// codegen:end(rules)
