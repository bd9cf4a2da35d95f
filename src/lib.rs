//! spindle: a linter for SQL Server storage, as a library. The check pipeline lives here: the
//! sources of facts (snapshot files, live servers, an inventory, this machine), reading and
//! grouping them by host, checking hosts on every core in file order, writing the report
//! atomically, and the errors a user sees. The `spindle` binary only maps its command line onto
//! [`options`] and the outcome onto an exit status.
//!
//! Below it: `spindle-collectors` gathers facts, `spindle-core` decides, `spindle-report`
//! renders, `spindle-plugin-host` runs rule plugins. None of them knows the command line.

// UserError carries the offending file for miette to show; it is built once, on the way to exit
// status 2, so its size on the error path costs nothing worth boxing for.
#![allow(clippy::result_large_err)]
// Every system call goes through rustix or signal-hook; the one unsafe block left (the path
// table's encoded bytes, src/input.rs) is allowed where it is, with its argument.
#![deny(unsafe_code)]

pub mod baseline;
pub mod commands;
pub mod connect;
pub mod engine;
pub mod errors;
pub mod fleet;
pub mod input;
pub mod inventory;
pub mod options;
pub mod ordered;
pub mod output;
pub mod packs;
mod password;
pub mod shard;
pub mod signals;
pub mod sources;
pub mod split;
pub mod verdict;
pub mod writers;

pub use commands::check::run as check;
pub use errors::UserError;
pub use options::{CheckOptions, Exit, FailOn, Format, Require};

/// What `spindle --version` prints after the name: the version, the commit and target it was
/// built from and for, and the plugin contract versions this spindle runs (`0.1.0 (commit
/// 0bfc778a1d2e, x86_64-unknown-linux-musl; plugin contracts spindle:plugin@0.1.0, 0.2.0)`).
/// The commit is known in builds made by `cargo xtask dist` (or with `SPINDLE_COMMIT` set).
pub fn version_line() -> String {
    format!(
        "{} (commit {}, {}; plugin contracts {}@{})",
        env!("CARGO_PKG_VERSION"),
        option_env!("SPINDLE_COMMIT").filter(|c| !c.is_empty()).unwrap_or("unknown"),
        env!("SPINDLE_TARGET"),
        spindle_plugin_host::WIT_PACKAGE,
        spindle_plugin_host::WIT_VERSIONS.join(", ")
    )
}
