//! spindle-core: the facts model and its parsing, positions in the snapshot text, the merged
//! view, the rule contract, rule packs and the engine. Report writers live in `spindle-report`,
//! collectors in `spindle-collectors`, the plugin host in `spindle-plugin-host`.
//!
//! Pure by design: no I/O beyond what callers hand in, no async runtime, no native dependency, so
//! it builds for `wasm32-wasip2` and the plugin SDK can reuse its types.

pub mod declare;
pub mod digest;
pub mod engine;
pub mod entity;
pub mod finding;
pub mod gain;
#[cfg(feature = "packs")]
pub mod pack;
pub mod params;
pub mod plan;
pub mod quantity;
pub mod references;
pub mod rule;
#[cfg(feature = "packs")]
pub mod schema;
pub mod view;

// The text utilities moved to `spindle-text`; re-exported at their old paths so that rules,
// writers, collectors and plugin guests keep building unchanged.
pub use spindle_text::{date, fast_hash, fnv, glob, names, quote, units, untrusted};
// So did the facts model and its reading; the same for them.
pub use spindle_facts::model as facts;
pub use spindle_facts::{load, locate, source};

pub use finding::{Finding, NotApplicable, NotEvaluated, Severity};
pub use rule::{Ctx, Need, Rule, RuleMeta};
pub use view::{HostView, Located};
