//! spindle-plugin-sdk: write spindle rule plugins (WASI 0.2 components) the way the builtin rules
//! are written.
//!
//! A plugin is a crate of `cdylib` type built for `wasm32-wasip2`. Its rules are declared with
//! [`declare_rule!`] over the same typed facts ([`HostView`], [`facts`]) as spindle's own, gathered
//! in a [`RulePack`] and exported with [`export_pack!`]:
//!
//! ```ignore
//! use spindle_plugin_sdk::{declare_rule, export_pack, Ctx, RulePack, BuiltinRule};
//!
//! declare_rule! {
//!     /// ## What it checks
//!     /// ...
//!     pub static VOLUME_NAMES = {
//!         code: "NAM001",
//!         name: "volume-names",
//!         severity: Warning,
//!         summary: "Volumes are named by the company standard",
//!         needs: [Volumes],
//!         params: VolumeNamesParams {
//!             min_label_chars: { kind: Count, default: Num(3.0), doc: "Shortest label accepted." },
//!         },
//!         check: check,
//!     }
//! }
//!
//! // Parameters arrive by name in `config-json`; the check reads them typed.
//! fn check(cx: &mut Ctx<'_, VolumeNamesParams>) {
//!     let min: u32 = cx.params.min_label_chars;
//!     /* cx.report(...) */
//! }
//!
//! struct Acme;
//! impl RulePack for Acme {
//!     const ID: &'static str = "acme";
//!     const VERSION: &'static str = env!("CARGO_PKG_VERSION");
//!     fn rules() -> Vec<&'static BuiltinRule> { vec![&VOLUME_NAMES] }
//! }
//! export_pack!(Acme);
//! ```
//!
//! The crate builds natively too, so a plugin's rules can be unit-tested with `cargo test`
//! through [`check`], the same code the component's `check` export runs.

// Lets the generated bindings name this crate the way a plugin crate does.
extern crate self as spindle_plugin_sdk;

#[cfg(target_arch = "wasm32")]
pub mod arena;
mod convert;
mod run;
#[cfg(not(feature = "contract-0-1"))]
mod v0_2;

pub mod config;
pub mod log;
pub mod testing;

/// The guest bindings generated from `wit/0.2.0/plugin.wit` (world `spindle:plugin/plugin@0.2.0`),
/// the contract this SDK builds plugins for; with the `contract-0-1` feature, from
/// `wit/0.1.0/plugin.wit` instead (facts and configuration as JSON), for hosts that predate 0.2.0.
#[cfg(not(feature = "contract-0-1"))]
// Generated: the canonical ABI passes a `check-config` as flat arguments.
#[allow(clippy::too_many_arguments)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit/0.2.0",
        world: "plugin",
        pub_export_macro: true,
        export_macro_name: "__export_plugin",
        default_bindings_module: "spindle_plugin_sdk::bindings",
        runtime_path: "spindle_plugin_sdk::__private::wit_bindgen::rt",
    });
}

#[cfg(feature = "contract-0-1")]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit/0.1.0",
        world: "plugin",
        pub_export_macro: true,
        export_macro_name: "__export_plugin",
        default_bindings_module: "spindle_plugin_sdk::bindings",
        runtime_path: "spindle_plugin_sdk::__private::wit_bindgen::rt",
    });
}

/// Inside the component, allocations go to a bump arena first (see [`arena`]); a plugin that
/// wants its own global allocator turns the SDK's `arena` feature off.
#[cfg(all(target_arch = "wasm32", feature = "arena"))]
#[global_allocator]
static ALLOCATOR: arena::CallArena = arena::CallArena::new();

/// The WIT types of the contract (`finding`, `check-output`, `check-error`, ...), as Rust types.
pub use bindings::spindle::plugin::types as wit;

// The whole of spindle-core, and the names a rule uses most, as `spindle_rules` uses them.
/// serde_json, to read the pack's config table ([`config`]) without a dependency of your own.
pub use serde_json;
pub use spindle_core;
pub use spindle_core::declare::{Declarations, DeclaredStripe, Workload};
pub use spindle_core::declare_rule;
pub use spindle_core::facts::SCHEMA_VERSION;
pub use spindle_core::finding::{Finding, NotEvaluated, Severity};
pub use spindle_core::params::{Choice, FromParams, NoParams, ParamKind, ParamSpec, ParamValue, Params};
pub use spindle_core::rule::{BuiltinRule, Ctx, Need, Rule, RuleMeta};
pub use spindle_core::view::{
    DatabaseView, EntityRef, HostView, Located, Stripe, StripeSource, UnknownVolume,
};
pub use spindle_core::{declare, facts, finding, glob, params, rule, units, view};

pub use run::{check, info, rules};

/// The WIT contract version this SDK builds plugins for.
#[cfg(not(feature = "contract-0-1"))]
pub const CONTRACT_VERSION: &str = "0.2.0";
#[cfg(feature = "contract-0-1")]
pub const CONTRACT_VERSION: &str = "0.1.0";

/// A plugin's rules: what `spindle plugin inspect` lists and `spindle check` runs.
pub trait RulePack {
    /// Short id of the pack (`acme`), lowercase. spindle shows the rules namespaced by the name
    /// the pack file gives the plugin (`[plugins.acme]` → `acme/NAM001`).
    const ID: &'static str;
    /// The pack's version, usually `env!("CARGO_PKG_VERSION")`.
    const VERSION: &'static str;
    /// The rules, each declared with [`declare_rule!`]; codes are 3 letters and 3 digits.
    fn rules() -> Vec<&'static BuiltinRule>;
    /// Checks the pack's config table (`[plugins.NAME] config = {…}`, `Null` when the pack file
    /// gives none) before any rule runs. An error is returned to spindle as `bad-config`, so a
    /// typo in the pack file is reported instead of silently using defaults.
    fn validate_config(config: &serde_json::Value) -> Result<(), String> {
        let _ = config;
        Ok(())
    }
}

/// The component's exports for a [`RulePack`] (used by [`export_pack!`]).
#[doc(hidden)]
pub struct Exports<P>(std::marker::PhantomData<P>);

impl<P: RulePack> bindings::Guest for Exports<P> {
    fn info() -> wit::PackInfo {
        run::info::<P>()
    }

    fn rules() -> Vec<wit::RuleMeta> {
        run::rules::<P>()
    }

    #[cfg(feature = "contract-0-1")]
    fn check(
        facts_json: String,
        enabled_rules: Vec<String>,
        config_json: String,
    ) -> Result<wit::CheckOutput, wit::CheckError> {
        run::check::<P>(facts_json, &enabled_rules, &config_json)
    }

    #[cfg(not(feature = "contract-0-1"))]
    fn check(config: wit::CheckConfig) -> Result<wit::CheckOutput, wit::CheckError> {
        v0_2::check::<P>(bindings::spindle::plugin::facts::get(), config)
    }
}

/// Exports a [`RulePack`] as the component's `info`, `rules` and `check`. Once per plugin crate,
/// at its root.
///
/// ```ignore
/// struct Acme;
/// impl spindle_plugin_sdk::RulePack for Acme { /* ... */ }
/// spindle_plugin_sdk::export_pack!(Acme);
/// ```
#[macro_export]
macro_rules! export_pack {
    ($pack:ty) => {
        // Only inside the component: natively (`cargo test` of the plugin crate) the exports'
        // symbols (`info`, `rules`, `check`) are neither needed nor welcome.
        #[cfg(target_arch = "wasm32")]
        #[doc(hidden)]
        type __SpindlePluginExports = $crate::Exports<$pack>;
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::__export_plugin!(__SpindlePluginExports with_types_in $crate::bindings);
        const _: () = {
            fn is_a_rule_pack<P: $crate::RulePack>() {}
            let _ = is_a_rule_pack::<$pack>;
        };
    };
}

#[doc(hidden)]
pub mod __private {
    pub use wit_bindgen;
}
