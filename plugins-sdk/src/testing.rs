//! Helpers for a plugin's native unit tests (`cargo test`, no component needed).
//!
//! ```ignore
//! #[test]
//! fn pack_is_well_formed() {
//!     assert_eq!(spindle_plugin_sdk::testing::problems::<Acme>(), Vec::<String>::new());
//! }
//!
//! #[test]
//! fn flags_a_data_file_outside_the_data_mounts() {
//!     let out = spindle_plugin_sdk::testing::run::<Acme>(FACTS, serde_json::json!({})).unwrap();
//!     assert_eq!(out.findings[0].code, "ACM001");
//! }
//! ```

use serde_json::{Value, json};
use spindle_core::names::{is_code, is_kebab, is_snake};
use spindle_core::params::{ParamKind, ParamValue};

use crate::{RulePack, wit};

/// The headings every rule's docs have, in this order.
pub const DOC_HEADINGS: [&str; 4] = ["What it checks", "Why it matters", "How to fix", "References"];

/// What spindle refuses when it loads a plugin (or shows badly): an id that is not kebab-case, a
/// code that is not 3 capital letters and 3 digits, a code or name used twice, a name that is
/// not kebab-case, a summary that is not one line, docs without the four headings in order, a
/// parameter name that is not snake_case, a choice word that is not kebab-case, a default its
/// own kind refuses. Empty when the pack is well formed.
pub fn problems<P: RulePack>() -> Vec<String> {
    let mut out = Vec::new();
    if !is_kebab(P::ID) {
        out.push(format!("pack id {:?} is not lowercase kebab-case (`acme`, `acme-storage`)", P::ID));
    }
    if P::VERSION.trim().is_empty() || P::VERSION.len() > 64 || P::VERSION.contains(char::is_control) {
        out.push(format!("pack version {:?} is not a short one-line version", P::VERSION));
    }
    let rules = P::rules();
    if rules.is_empty() {
        out.push("the pack has no rules".into());
    }
    for (i, r) in rules.iter().enumerate() {
        let m = &r.meta;
        if !is_code(m.code) {
            out.push(format!("{}: a code is 3 capital letters and 3 digits (`NAM001`)", m.code));
        }
        if rules[..i].iter().any(|o| o.meta.code == m.code) {
            out.push(format!("{}: code used by two rules", m.code));
        }
        if !is_kebab(m.name) {
            out.push(format!("{}: name {:?} is not kebab-case", m.code, m.name));
        }
        if rules[..i].iter().any(|o| o.meta.name == m.name) {
            out.push(format!("{}: name {:?} used by two rules", m.code, m.name));
        }
        if m.summary.trim().is_empty() || m.summary.len() > 300 || m.summary.contains(char::is_control) {
            out.push(format!("{}: the summary must be one non-empty line of at most 300 bytes", m.code));
        }
        let docs = m.docs();
        if docs.len() > 64 * 1024 {
            out.push(format!("{}: the docs are over 64 KiB", m.code));
        }
        let mut at = 0;
        for h in DOC_HEADINGS {
            match docs[at..].find(&format!("## {h}\n")) {
                Some(i) => at += i + 1,
                None => {
                    out.push(format!("{}: docs lack the heading `## {h}` (or it is out of order)", m.code))
                }
            }
        }
        for (j, p) in m.params.iter().enumerate() {
            if !is_snake(p.name) {
                out.push(format!(
                    "{}: parameter name {:?} is not snake_case (`min_free_percent`)",
                    m.code, p.name
                ));
            }
            if let ParamKind::Choice(words) = p.kind {
                if words.is_empty() {
                    out.push(format!("{}.{}: a choice needs at least one word", m.code, p.name));
                }
                for (k, w) in words.iter().enumerate() {
                    if !is_kebab(w) || words[..k].contains(w) {
                        out.push(format!(
                            "{}.{}: choice {w:?} is not kebab-case or is listed twice",
                            m.code, p.name
                        ));
                    }
                }
            }
            if m.params[..j].iter().any(|o| o.name == p.name) {
                out.push(format!("{}: parameter {} declared twice", m.code, p.name));
            }
            if let Err(e) = p.kind.validate(&ParamValue::from(p.default)) {
                out.push(format!("{}.{}: default refused by its own kind: {e}", m.code, p.name));
            }
        }
    }
    out
}

/// Runs every rule of `P`, with its default parameters and no declarations, over one snapshot,
/// with `config` as the pack's config table: what `check` does inside the component.
pub fn run<P: RulePack>(facts_json: &str, config: Value) -> Result<wit::CheckOutput, wit::CheckError> {
    let codes: Vec<String> = P::rules().iter().map(|r| r.meta.code.to_string()).collect();
    crate::check::<P>(facts_json.to_string(), &codes, &config_json(config, json!({}), json!(null)))
}

/// A `config-json` argument as spindle builds it: the pack's config table, the parameters
/// (`{"NAM001": {"min_free_percent": 30}}`; unset ones keep their defaults) and the declarations
/// (`{"workload": "oltp", "stripe_units": [...]}`, or `null`).
pub fn config_json(config: Value, params: Value, declared: Value) -> String {
    json!({"config": config, "params": params, "declared": declared}).to_string()
}
