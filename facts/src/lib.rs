//! spindle-facts: what a snapshot says and where it says it. The facts model (`model`, which
//! `spindle-core` re-exports as `facts`), strict and tolerant loading with positions, and
//! locating a JSON pointer in the text. It knows nothing of views, rules or packs, so a
//! collector or a tool that only reads snapshots does not build the engine.
//!
//! Pure like `spindle-core`: no I/O, builds for `wasm32-wasip2`.

pub mod load;
pub mod locate;
mod member_names;
pub mod model;
pub mod source;
mod tolerant;
