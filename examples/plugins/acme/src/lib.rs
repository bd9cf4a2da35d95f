//! Acme's storage standard for SQL Server, STD-SQL-004, as spindle rules: an example of the rules
//! a company writes for itself and ships as a plugin.
//!
//! - ACM001 `data-files-on-standard-mounts`: user databases' data files live on volumes mounted
//!   at a mount point the standard names (`*\SQLData*`, `/var/opt/mssql/data*`).
//! - ACM002 `log-volume-label`: volumes holding user databases' log files are labelled `LOG`.
//! - ACM003 `production-free-space`: volumes holding database files on production hosts keep
//!   30 % free.
//!
//! The naming patterns and the list of production hosts are the pack's `config` table
//! (`[plugins.acme] config = {…}`, see [`AcmeConfig`]); the free-space threshold is a rule
//! parameter (`[rules."acme/ACM003"] min_free_percent = 35`).

mod config;
mod data_mounts;
mod files;
mod free_space;
mod log_label;

pub use config::AcmeConfig;
pub use data_mounts::DATA_FILES_ON_STANDARD_MOUNTS;
pub use free_space::PRODUCTION_FREE_SPACE;
pub use log_label::LOG_VOLUME_LABEL;

use spindle_plugin_sdk::{BuiltinRule, RulePack, export_pack, serde_json};

pub struct Acme;

impl RulePack for Acme {
    const ID: &'static str = "acme";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn rules() -> Vec<&'static BuiltinRule> {
        vec![&DATA_FILES_ON_STANDARD_MOUNTS, &LOG_VOLUME_LABEL, &PRODUCTION_FREE_SPACE]
    }

    fn validate_config(config: &serde_json::Value) -> Result<(), String> {
        AcmeConfig::from_value(config).map(|_| ())
    }
}

export_pack!(Acme);

#[cfg(test)]
mod tests;
