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
struct DeclaredJson {
    #[serde(default)]
    workload: Option<String>,
    #[serde(default)]
    stripe_units: Vec<StripeJson>,
}

#[derive(Deserialize)]
struct StripeJson {
    entity: String,
    stripe_unit_bytes: u64,
    #[serde(default)]
    data_disks: Option<u32>,
    #[serde(default)]
    source: Option<String>,
}

/// Where a declaration through `config-json` comes from when it does not say: the contract does
/// not carry the pack's path for the workload (it does for stripe units), so rules say "declared
/// in the rule pack".
const DECLARED_SOURCE: &str = "the rule pack";

/// The `check` export: runs the `enabled` rules of `P` over one host's facts.
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
    let pack = P::rules();
    let bad = wit::CheckError::BadConfig;

    let cfg: CheckConfig = if config_json.trim().is_empty() {
        CheckConfig::default()
    } else {
        serde_json::from_str(config_json).map_err(|e| bad(format!("config-json: {e}")))?
    };

    let known = || pack.iter().map(|r| r.meta.code).collect::<Vec<_>>().join(", ");
    let find = |code: &str| pack.iter().copied().find(|r| r.meta.code == code);
    for code in enabled {
        if find(code).is_none() {
            return Err(bad(format!(
                "enabled rule {code} is not a rule of plugin {} (its rules: {})",
                P::ID,
                known()
            )));
        }
    }

    let mut params: BTreeMap<&str, Params> = BTreeMap::new();
    for (code, values) in &cfg.params {
        let rule = find(code).ok_or_else(|| {
            bad(format!(
                "params for {code}, which is not a rule of plugin {} (its rules: {})",
                P::ID,
                known()
            ))
        })?;
        params.insert(rule.meta.code, rule_params(rule, values).map_err(bad)?);
    }

    P::validate_config(&cfg.config).map_err(|e| bad(format!("config of plugin {}: {e}", P::ID)))?;

    let declared = declarations(cfg.declared.unwrap_or_default()).map_err(bad)?;

    // Tolerant: spindle may be newer than the spindle-core this plugin was built with, and send
    // fields it does not know (the contract lets the facts schema grow). They are skipped, and
    // said once in the log; no rule of this build can read them anyway.
    let facts = parse_snapshot_tolerant("facts-json", facts_json)
        .map_err(|e| wit::CheckError::BadFacts(e.to_string()))?;
    if !facts.ignored.is_empty() {
        crate::log::info(ignored_summary(&facts.ignored));
    }
    let view = HostView::build(vec![facts.document], declared);

    // The pack's order, whatever order spindle lists the codes in.
    let active: Vec<ActiveRule<'_>> = pack
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
    let report =
        config::scoped(cfg.config, || check_host(&active, &view, &[], Date::from_days_since_epoch(0)));
    if !report.errors.is_empty() {
        let errors: Vec<String> = report.errors.into_iter().map(|e| e.message).collect();
        return Err(wit::CheckError::Failed(errors.join("; ")));
    }

    // Contract 0.1.0 has no slot for not-applicable entries (`Ctx::not_applicable`): a plugin's
    // are dropped here. They never fail a run, so no verdict changes; a later contract may carry
    // them.
    Ok(wit::CheckOutput {
        findings: report.findings.into_iter().map(convert::finding).collect(),
        not_evaluated: report.not_evaluated.into_iter().map(convert::not_evaluated).collect(),
    })
}

/// A rule's parameters: its defaults, with the given values checked against their kinds.
fn rule_params(rule: &BuiltinRule, values: &BTreeMap<String, Value>) -> Result<Params, String> {
    let code = rule.meta.code;
    let mut params = Params::defaults(rule.meta.params);
    for (name, value) in values {
        let Some(spec) = rule.meta.params.iter().find(|s| s.name == name) else {
            let declared: Vec<&str> = rule.meta.params.iter().map(|s| s.name).collect();
            let declared = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
            return Err(format!("{code} has no parameter {name} (its parameters: {declared})"));
        };
        let value = match value {
            Value::Number(n) => ParamValue::Num(
                n.as_f64().ok_or_else(|| format!("{code}.{name}: {n} is not a number spindle can hold"))?,
            ),
            Value::String(s) => ParamValue::Text(s.clone()),
            other => {
                return Err(format!("{code}.{name}: expected {}, found {other}", spec.kind.describe()));
            }
        };
        spec.kind.validate(&value).map_err(|e| format!("{code}.{name}: {e}"))?;
        params.set(name, value);
    }
    Ok(params)
}

fn declarations(d: DeclaredJson) -> Result<Declarations, String> {
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
