//! WASM rule plugins: WASI 0.2 components of the contract `spindle:plugin@0.2.0` or `@0.1.0`
//! (plugins-sdk/wit/), run in a sandbox.
//!
//! A plugin gets no files, no environment, no arguments, no network: its only capability is a
//! bounded `log`. Every call runs in a fresh instance with a memory limit, a wall-time limit
//! (epoch interruption, sleeping included), optional fuel, and bounded stdout/stderr; what it
//! returns is checked against what it declared. [`PluginHost`] owns the engine and the
//! compiled-code cache; [`PluginHost::load`] gives a [`Plugin`]; [`Plugin::check`] runs it on one
//! host's facts.
//!
//! [`rules`] presents each loaded plugin to the engine as a rule group; [`WIT_VERSIONS`] lists the
//! contract versions this host accepts, in one place.

mod bindings;
mod cache;
mod call;
mod capture;
mod clock;
mod error;
mod host;
pub mod inspect;
mod limits;
mod pool;
pub mod rules;
mod sleep;
mod state;
mod types;
mod v0_2;
mod validate;
mod wasm_file;

#[cfg(test)]
mod tests;

pub use cache::{WASMTIME_VERSION, default_dir as default_cache_dir};
pub use call::Plugin;
pub use capture::{LOG_LINE_MAX_BYTES, LOG_MAX_BYTES, LOG_MAX_LINES, PIPE_TAIL_BYTES};
pub use error::{PluginError, PluginErrorKind};
pub use host::PluginHost;
pub use limits::{
    DEFAULT_MEMORY_BYTES, DEFAULT_TIMEOUT_MS, LimitField, Limits, MAX_FUEL, MAX_MEMORY_BYTES, MAX_TIMEOUT_MS,
};
pub use pool::Pool;
pub use rules::{PluginRule, load as load_rules};
pub use types::{
    Captured, CheckOutput, Finding, LogLevel, LogLine, NotEvaluated, PackInfo, ParamDefault, ParamKind,
    ParamSpec, RuleMeta, Severity,
};
pub use validate::{
    FACTS_SCHEMA_VERSIONS, MAX_ENTITY_BYTES, MAX_FIELD_BYTES, MAX_FIELD_SEGMENTS, MAX_FINDINGS,
    MAX_OUTPUT_TEXT, MAX_QUOTED_BYTES, MAX_TEXT_BYTES, is_code, is_kebab,
};
pub use wasm_file::MAX_WASM_BYTES;

/// The WIT package of the plugin contract.
pub const WIT_PACKAGE: &str = "spindle:plugin";
/// The contract versions this host runs, oldest first. Each has its own bindings
/// (`bindings.rs`); a plugin built against a later 0.2.x than listed links when it uses nothing
/// newer than 0.2.0 (imports match by semver).
pub const WIT_VERSIONS: &[&str] = &["0.1.0", "0.2.0"];
