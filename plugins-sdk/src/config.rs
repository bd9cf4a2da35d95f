//! The pack's config table for the plugin (`[plugins.NAME] config = {…}` in the pack file), as
//! the rules of a running `check` see it.
//!
//! Rules are plain functions of a [`Ctx`](spindle_core::rule::Ctx), which carries the facts and
//! the rule's parameters; the plugin-wide config is read here instead. Check it once in
//! [`RulePack::validate_config`](crate::RulePack::validate_config), so that a rule can rely on it.

use std::cell::RefCell;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde_json::Value;

thread_local! {
    static CONFIG: RefCell<Rc<Value>> = RefCell::new(Rc::new(Value::Null));
}

/// The config table of the current `check` call; `Null` when the pack gives none (and outside
/// a `check`).
pub fn get() -> Rc<Value> {
    CONFIG.with(|c| c.borrow().clone())
}

/// The config table read into `T`; `Null` reads as an empty table, so a `T` with
/// `#[serde(default)]` gets its defaults when the pack gives no config. Anything but a table (or
/// `Null`) is refused.
pub fn parse<T: DeserializeOwned>() -> Result<T, String> {
    parse_value(&get())
}

/// `value` read into `T`, with `Null` as an empty table (what [`parse`] does); anything but a
/// table or `Null` is refused.
pub fn parse_value<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    let value = match value {
        Value::Null => Value::Object(Default::default()),
        v @ Value::Object(_) => v.clone(),
        // serde would read a struct from an array of its fields: refuse what TOML calls no table.
        other => return Err(format!("expected a table, found {other}")),
    };
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Runs `f` with `config` as the current config table, and clears it afterwards (also when `f`
/// unwinds, in native tests).
pub(crate) fn scoped<R>(config: Value, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CONFIG.with(|c| *c.borrow_mut() = Rc::new(Value::Null));
        }
    }
    CONFIG.with(|c| *c.borrow_mut() = Rc::new(config));
    let _reset = Reset;
    f()
}
