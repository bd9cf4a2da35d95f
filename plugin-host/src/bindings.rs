//! Host bindings generated from the WIT contracts, one module per version this host runs.
//!
//! Synchronous: a plugin call blocks the calling thread, bounded by the epoch deadline.

/// `spindle:plugin@0.1.0`: facts and configuration as JSON.
pub(crate) mod v0_1 {
    wasmtime::component::bindgen!({
        world: "plugin",
        path: "../plugins-sdk/wit/0.1.0",
    });

    pub use spindle::plugin::types;
}

/// `spindle:plugin@0.2.0`: typed facts through the imported `facts` interface, typed
/// configuration. The `facts` import is defined by hand (see `facts_import`), so that every
/// plugin of a host lowers the same encoded facts without a copy.
pub(crate) mod v0_2 {
    wasmtime::component::bindgen!({
        world: "plugin",
        path: "../plugins-sdk/wit/0.2.0",
    });

    pub use spindle::plugin::{facts, types};
}
