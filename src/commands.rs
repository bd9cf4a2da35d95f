//! The subcommands, one file each, holding its entry point: what it reads, how it runs the
//! pipeline, what it writes and the exit status it ends with. The machinery they share (where
//! facts come from, the engine, the writers, the verdict) lives beside this module, never in it:
//! no command reaches into another.
//!
//! `spindle completions` and `spindle schema` print what clap and `spindle-core` generate, and
//! are answered in `src/main.rs`.

pub mod baseline;
pub mod check;
pub mod collect;
pub mod diff;
pub mod explain;
pub mod init;
pub mod merge;
pub mod plan;
pub mod plugin;
