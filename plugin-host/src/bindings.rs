//! Host bindings generated from the WIT contract `spindle:plugin@0.1.0` (world `plugin`).
//!
//! Synchronous: a plugin call blocks the calling thread, bounded by the epoch deadline.

wasmtime::component::bindgen!({
    world: "plugin",
    path: "../plugins-sdk/wit/0.1.0",
});

pub use spindle::plugin::types;
