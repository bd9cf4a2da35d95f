//! The three exports, for any [`RulePack`]: what the component runs, and what native unit tests
//! call directly.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use spindle_core::date::Date;
use spindle_core::declare::{Declarations, DeclaredStripe, Workload};
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::facts::SCHEMA_VERSION;
use spindle_core::glob::Glob;
use spindle_core::load::parse_snapshot_tolerant;
use spindle_core::params::{ParamValue, Params};
use spindle_core::rule::BuiltinRule;
use spindle_core::view::HostView;

use crate::{RulePack, config, convert, wit};

/// The `info` export.
pub fn info<P: RulePack>() -> wit::PackInfo {
    wit::PackInfo {
        id: P::ID.to_string(),
        version: P::VERSION.to_string(),
        facts_schema_version: SCHEMA_VERSION,
    }
}

/// The `rules` export.
pub fn rules<P: RulePack>() -> Vec<wit::RuleMeta> {
    P::rules().iter().map(|r| convert::rule_meta(&r.meta)).collect()
}

/// The `config-json` argument of `check`. Keys the contract may add later are ignored.
#[derive(Deserialize, Default)]
struct CheckConfig {
    #[serde(default)]
    config: Value,
    #[serde(default)]
    params: BTreeMap<String, BTreeMap<String, Value>>,
    #[serde(default)]
    declared: Option<DeclaredJson>,
}

#[derive(Deserialize, Default)]
pub(crate) struct DeclaredJson {
    #[serde(default)]
    pub workload: Option<String>,
    #[serde(default)]
    pub stripe_units: Vec<StripeJson>,
}

#[derive(Deserialize)]
pub(crate) struct StripeJson {
    pub entity: String,
    pub stripe_unit_bytes: u64,
    #[serde(default)]
    pub data_disks: Option<u32>,
    #[serde(default)]
    pub source: Option<String>,
}

/// Where a declaration through `config-json` comes from when it does not say: the contract does
/// not carry the pack's path for the workload (it does for stripe units), so rules say "declared
/// in the rule pack".
const DECLARED_SOURCE: &str = "the rule pack";

/// Contract 0.1.0's `check` export (with the SDK's `contract-0-1` feature), and what a plugin's
/// native unit tests call under either contract: runs the `enabled` rules of `P` over one host's
/// facts as JSON, with `config_json` the `{"config", "params", "declared"}` object.
///
/// A rule that panics fails the whole call. In the component panics abort: the panic message
/// goes to stderr, the call traps, and spindle reports the plugin failed with that message.
/// Natively (a plugin's unit tests) the engine contains the panic, and `check` returns
/// `failed` with the message, which is what spindle would report.
pub fn check<P: RulePack>(
    facts_json: String,
    enabled: &[String],
    config_json: &str,
) -> Result<wit::CheckOutput, wit::CheckError> {
    let bad = wit::CheckError::BadConfig;

    let cfg: CheckConfig = if config_json.trim().is_empty() {
        CheckConfig::default()
    } else {
        serde_json::from_str(config_json).map_err(|e| bad(format!("config-json: {e}")))?
    };

    let mut params: BTreeMap<&'static str, Params> = BTreeMap::new();
    for (code, values) in &cfg.params {
        let rule = find_rule::<P>(code, "params for").map_err(bad)?;
        params.insert(rule.meta.code, rule_params(rule, values).map_err(bad)?);
    }
    let declared = declarations(cfg.declared.unwrap_or_default()).map_err(bad)?;

    // Tolerant: spindle may be newer than the spindle-core this plugin was built with, and send
    // fields it does not know (the contract lets the facts schema grow). They are skipped, and
    // said once in the log; no rule of this build can read them anyway.
    let facts = parse_snapshot_tolerant("facts-json", facts_json)
        .map_err(|e| wit::CheckError::BadFacts(e.to_string()))?;
    if !facts.ignored.is_empty() {
        crate::log::info(ignored_summary(&facts.ignored));
    }
    run_pack::<P>(
        enabled,
        params,
        cfg.config,
        |declared| HostView::build(vec![facts.document], declared),
        declared,
    )
}

/// The rule of `P` with `code`, or why there is none (`what` says what named it).
pub(crate) fn find_rule<P: RulePack>(code: &str, what: &str) -> Result<&'static BuiltinRule, String> {
    let pack = P::rules();
    pack.iter().copied().find(|r| r.meta.code == code).ok_or_else(|| {
        let known: Vec<&str> = pack.iter().map(|r| r.meta.code).collect();
        format!("{what} {code}, which is not a rule of plugin {} (its rules: {})", P::ID, known.join(", "))
    })
}

/// Runs the `enabled` rules of `P` (each checked to be one of its rules) with their `params`
/// over the view `view` builds, under the pack's `config` table: what both contracts' `check`
/// do once they have read their arguments.
pub(crate) fn run_pack<P: RulePack>(
    enabled: &[String],
    mut params: BTreeMap<&'static str, Params>,
    config: Value,
    view: impl FnOnce(Declarations) -> HostView,
    declared: Declarations,
) -> Result<wit::CheckOutput, wit::CheckError> {
    let bad = wit::CheckError::BadConfig;
    for code in enabled {
        find_rule::<P>(code, "enabled rule").map_err(bad)?;
    }
    P::validate_config(&config).map_err(|e| bad(format!("config of plugin {}: {e}", P::ID)))?;
    let view = view(declared);

    // The pack's order, whatever order spindle lists the codes in.
    let active: Vec<ActiveRule<'_>> = P::rules()
        .iter()
        .copied()
        .filter(|r| enabled.iter().any(|c| c == r.meta.code))
        .map(|r| ActiveRule {
            rule: r,
            code: r.meta.code.to_string(),
            severity: r.meta.severity,
            params: params.remove(r.meta.code).unwrap_or_else(|| Params::defaults(r.meta.params)),
        })
        .collect();

    // No waivers cross the contract (spindle applies them to the plugin's findings), so the date
    // is never read.
    let report = config::scoped(config, || check_host(&active, &view, &[], Date::from_days_since_epoch(0)));
    if !report.errors.is_empty() {
        let errors: Vec<String> = report.errors.into_iter().map(|e| e.message).collect();
        return Err(wit::CheckError::Failed(errors.join("; ")));
    }
    Ok(convert::output(report))
}

/// A rule's parameters: its defaults, with the given values checked against their kinds.
fn rule_params(rule: &BuiltinRule, values: &BTreeMap<String, Value>) -> Result<Params, String> {
    let code = rule.meta.code;
    let mut typed = Vec::with_capacity(values.len());
    for (name, value) in values {
        let value = match value {
            Value::Number(n) => ParamValue::Num(
                n.as_f64().ok_or_else(|| format!("{code}.{name}: {n} is not a number spindle can hold"))?,
            ),
            Value::String(s) => ParamValue::Text(s.clone()),
            other => {
                let kind = rule.meta.params.iter().find(|s| s.name == name).map(|s| s.kind.describe());
                return Err(match kind {
                    Some(kind) => format!("{code}.{name}: expected {kind}, found {other}"),
                    None => unknown_param(rule, name),
                });
            }
        };
        typed.push((name.clone(), value));
    }
    typed_params(rule, typed)
}

/// A rule's parameters: its defaults, with the given typed values checked against their kinds.
pub(crate) fn typed_params(
    rule: &BuiltinRule,
    values: impl IntoIterator<Item = (String, ParamValue)>,
) -> Result<Params, String> {
    let code = rule.meta.code;
    let mut params = Params::defaults(rule.meta.params);
    for (name, value) in values {
        let Some(spec) = rule.meta.params.iter().find(|s| s.name == name) else {
            return Err(unknown_param(rule, &name));
        };
        spec.kind.validate(&value).map_err(|e| format!("{code}.{name}: {e}"))?;
        params.set(&name, value);
    }
    Ok(params)
}

fn unknown_param(rule: &BuiltinRule, name: &str) -> String {
    let declared: Vec<&str> = rule.meta.params.iter().map(|s| s.name).collect();
    let declared = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
    format!("{} has no parameter {name} (its parameters: {declared})", rule.meta.code)
}

pub(crate) fn declarations(d: DeclaredJson) -> Result<Declarations, String> {
    let workload = match d.workload.as_deref() {
        None => None,
        Some(w) => Some((
            Workload::parse(w).ok_or_else(|| {
                format!("declared.workload: expected \"oltp\" or \"data-warehouse\", found \"{w}\"")
            })?,
            DECLARED_SOURCE.to_string(),
        )),
    };
    let mut stripes = Vec::with_capacity(d.stripe_units.len());
    for (i, s) in d.stripe_units.into_iter().enumerate() {
        if s.stripe_unit_bytes == 0 {
            return Err(format!("declared.stripe_units[{i}].stripe_unit_bytes must be positive"));
        }
        stripes.push(DeclaredStripe {
            entity: Glob::new(s.entity),
            stripe_unit_bytes: s.stripe_unit_bytes,
            data_disks: s.data_disks,
            source: s.source.unwrap_or_else(|| DECLARED_SOURCE.to_string()),
        });
    }
    Ok(Declarations { workload, stripes })
}

/// The log line for the facts members this plugin skipped: each path once, with array indices
/// as `*` and a count, so one new volume field on 40 volumes is one entry.
fn ignored_summary(ignored: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut paths: Vec<(String, usize)> = vec![];
    for pointer in ignored {
        let general = pointer
            .split('/')
            .map(|t| if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) { "*" } else { t })
            .collect::<Vec<_>>()
            .join("/");
        match paths.iter_mut().find(|(p, _)| *p == general) {
            Some((_, n)) => *n += 1,
            None => paths.push((general, 1)),
        }
    }
    let mut list: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|(p, n)| if *n > 1 { format!("{p} ({n} times)") } else { p.clone() })
        .collect();
    if paths.len() > SHOWN {
        list.push(format!("and {} more", paths.len() - SHOWN));
    }
    format!(
        "facts-json: skipped {} field(s) that this plugin does not know (it was built with an older \
         spindle-core; rebuild it to read them): {}",
        ignored.len(),
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_fields_are_summarised_by_path() {
        let ignored: Vec<String> = [
            "/volumes/0/fs_stripe_unit_bytes",
            "/volumes/0/fs_stripe_width_bytes",
            "/volumes/1/fs_stripe_unit_bytes",
            "/collector_build",
            "/volumes/12/fs_stripe_unit_bytes",
        ]
        .map(String::from)
        .into();
        let line = ignored_summary(&ignored);
        assert!(line.starts_with("facts-json: skipped 5 field(s) that this plugin does not know"), "{line}");
        assert!(
            line.ends_with(
                ": /volumes/*/fs_stripe_unit_bytes (3 times), /volumes/*/fs_stripe_width_bytes, /collector_build"
            ),
            "{line}"
        );

        let many: Vec<String> = (0..12).map(|i| format!("/f{i}")).collect();
        assert!(ignored_summary(&many).ends_with(", /f9, and 2 more"), "{}", ignored_summary(&many));
    }
}
