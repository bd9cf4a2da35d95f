//! Rule packs: TOML files that select rules, set severities and parameters, declare facts and
//! waive findings. Packs stack: `extends` first, then the pack itself, then the next `--pack`.
//!
//! The core reads no files: the caller's [`PackLoader`] turns a reference (a builtin name or a
//! path) into text.

mod error;
mod file;
mod parse;
mod resolve;
mod select;

pub use error::{MAX_ERRORS_PER_PACK, PackError, PackErrors, did_you_mean};
pub use file::{DeclareSection, DeclaredStripeEntry, PackFile, PluginEntry, SourceText, WaiverEntry};
pub use resolve::{
    Config, DEFAULT_WAIVER_WARN_DAYS, MAX_PACK_READS, MAX_PLUGINS, PackLoader, PackStack, PluginDecl,
    RuleSetting, load_packs, resolve,
};
pub use select::{Selection, UnknownSelector};
