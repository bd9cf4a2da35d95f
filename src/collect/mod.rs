//! Collectors: live facts from SQL Servers (and, through `spindle-hostfacts`, from the host),
//! and the `spindle collect` command that saves them as a snapshot.

pub mod args;
pub mod command;
pub mod fleet;
pub mod host;
pub mod inventory;
mod password;
pub mod sql;
