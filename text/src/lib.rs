//! spindle-text: the text utilities every layer shares (units, quoting for T-SQL, PowerShell and
//! shell, escaping untrusted text, names, dates, globs, hashes). A leaf, below the facts model
//! and the engine, so that a crate needing a quote or a date does not pull in the rule contract.
//!
//! Pure like `spindle-core`, which re-exports each module at its old path: no I/O, builds for
//! `wasm32-wasip2`.

pub mod date;
pub mod fast_hash;
pub mod fnv;
pub mod glob;
pub mod names;
pub mod quote;
pub mod units;
pub mod untrusted;
