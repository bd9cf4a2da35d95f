//! Contract 0.2.0 at the host's edge: the `facts` import, the typed configuration, and the
//! plugin's answers converted to the shapes 0.1.0's checks already read (0.2.0 only adds the
//! quantities of findings, checked here).

pub(crate) mod facts;

use std::sync::Arc;

use serde_json::Value;

use spindle_core::finding::{Quantity, Unit};
use spindle_core::params::ParamValue;
use spindle_core::rule::Need;
use wasmtime::component::Linker;

use crate::bindings::{v0_1::types as v1, v0_2::facts::HostFacts, v0_2::types as v2};
use crate::state::State;

/// The import name of the facts interface this host implements. A plugin built against any
/// 0.2.x at or below it links (wasmtime matches 0.2.x imports by semver).
pub(crate) const FACTS_INTERFACE: &str = "spindle:plugin/facts@0.2.0";

/// Defines 0.2.0's imports beside 0.1.0's: the (type-only) `types` instance and `facts.get`,
/// which lowers the call's facts from the `Arc` every plugin of the host shares.
pub(crate) fn add_to_linker(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    crate::bindings::v0_2::types::add_to_linker::<State, wasmtime::component::HasSelf<State>>(linker, |s| s)?;
    linker.instance(FACTS_INTERFACE)?.func_wrap("get", |store, (): ()| {
        let facts: Option<Arc<HostFacts>> = store.data().facts.clone();
        match facts {
            Some(f) => Ok((f,)),
            // Only `check` has facts: `info` and `rules` are answered before any host.
            None => Err(wasmtime::Error::msg("facts.get called outside `check`: there is no host yet")),
        }
    })?;
    Ok(())
}

impl v2::Host for State {}

/// The typed configuration of one call.
pub(crate) fn check_config(
    rules: Vec<(String, Vec<(String, ParamValue)>)>,
    workload: Option<String>,
    stripes: Vec<v2::DeclaredStripe>,
    config_json: String,
) -> v2::CheckConfig {
    v2::CheckConfig {
        rules: rules
            .into_iter()
            .map(|(code, params)| v2::EnabledRule {
                code,
                params: params
                    .into_iter()
                    .map(|(name, v)| v2::Param {
                        name,
                        value: match v {
                            ParamValue::Num(n) => v2::ParamValue::Num(n),
                            ParamValue::Text(t) => v2::ParamValue::Text(t),
                        },
                    })
                    .collect(),
            })
            .collect(),
        workload,
        stripe_units: stripes,
        config_json,
    }
}

pub(crate) fn pack_info(i: v2::PackInfo) -> v1::PackInfo {
    v1::PackInfo { id: i.id, version: i.version, facts_schema_version: i.facts_schema_version }
}

fn severity(s: v2::Severity) -> v1::Severity {
    match s {
        v2::Severity::Error => v1::Severity::Error,
        v2::Severity::Warning => v1::Severity::Warning,
        v2::Severity::Note => v1::Severity::Note,
    }
}

/// Each rule's needs, in the order of the rules.
pub(crate) type Needs = Vec<Vec<Need>>;

/// 0.2.0's typed parameter specs in 0.1.0's words, for the same checks, and the rules' needs.
pub(crate) fn rule_metas(rules: Vec<v2::RuleMeta>) -> (Vec<v1::RuleMeta>, Needs) {
    let needs = rules
        .iter()
        .map(|r| {
            r.needs
                .iter()
                .map(|n| match n {
                    v2::Need::Disks => Need::Disks,
                    v2::Need::Partitions => Need::Partitions,
                    v2::Need::Volumes => Need::Volumes,
                    v2::Need::StoragePools => Need::StoragePools,
                    v2::Need::VirtualDisks => Need::VirtualDisks,
                    v2::Need::RaidSets => Need::RaidSets,
                    v2::Need::SqlInstances => Need::SqlInstances,
                    v2::Need::DatabaseFiles => Need::DatabaseFiles,
                })
                .collect()
        })
        .collect();
    let metas = rules
        .into_iter()
        .map(|r| v1::RuleMeta {
            code: r.code,
            name: r.name,
            summary: r.summary,
            docs: r.docs,
            severity: severity(r.severity),
            params: r
                .params
                .into_iter()
                .map(|p| {
                    let (kind, choices) = match p.kind {
                        v2::ParamKind::Bytes => ("bytes", vec![]),
                        v2::ParamKind::Ms => ("ms", vec![]),
                        v2::ParamKind::Count => ("count", vec![]),
                        v2::ParamKind::Percent => ("percent", vec![]),
                        v2::ParamKind::Factor => ("factor", vec![]),
                        v2::ParamKind::Choice(c) => ("choice", c),
                    };
                    let default_json = match p.default {
                        v2::ParamValue::Num(n) => serde_json::Number::from_f64(n)
                            .map_or_else(|| "NaN".to_string(), |n| n.to_string()),
                        v2::ParamValue::Text(t) => serde_json::Value::String(t).to_string(),
                    };
                    v1::ParamSpec { name: p.name, kind: kind.into(), choices, default_json, doc: p.doc }
                })
                .collect(),
        })
        .collect();
    (metas, needs)
}

/// The measured and expected quantities of each finding, in order.
pub(crate) type Quantities = Vec<(Option<Quantity>, Option<Quantity>)>;

/// The output in 0.1.0's shape, and the quantities 0.2.0 adds. A quantity must be a finite
/// number, 0 or more (bytes, milliseconds, percent and counts all are).
pub(crate) fn output(out: v2::CheckOutput) -> Result<(v1::CheckOutput, Quantities), String> {
    let mut quantities = Vec::with_capacity(out.findings.len());
    let quantity = |code: &str, q: Option<v2::Quantity>| -> Result<Option<Quantity>, String> {
        let Some(q) = q else { return Ok(None) };
        if !q.value.is_finite() || q.value < 0.0 {
            return Err(format!(
                "its output breaks the plugin contract: a finding for `{}` has the quantity {}, not a \
                 finite number 0 or more",
                crate::validate::text(code),
                q.value
            ));
        }
        let unit = match q.unit {
            v2::Unit::Bytes => Unit::Bytes,
            v2::Unit::Ms => Unit::Ms,
            v2::Unit::Percent => Unit::Percent,
            v2::Unit::Count => Unit::Count,
        };
        Ok(Some(Quantity { value: q.value, unit }))
    };
    let mut findings = Vec::with_capacity(out.findings.len());
    for f in out.findings {
        quantities.push((quantity(&f.code, f.measured_quantity)?, quantity(&f.code, f.expected_quantity)?));
        findings.push(v1::Finding {
            code: f.code,
            severity: f.severity.map(severity),
            message: f.message,
            measured: f.measured,
            expected: f.expected,
            entity: f.entity,
            field: f.field,
            fix: f.fix,
        });
    }
    let not_evaluated = out
        .not_evaluated
        .into_iter()
        .map(|n| v1::NotEvaluated { code: n.code, entity: n.entity, missing: n.missing, reason: n.reason })
        .collect();
    Ok((v1::CheckOutput { findings, not_evaluated }, quantities))
}

pub(crate) fn check_error(e: v2::CheckError) -> v1::CheckError {
    match e {
        v2::CheckError::BadFacts(m) => v1::CheckError::BadFacts(m),
        v2::CheckError::BadConfig(m) => v1::CheckError::BadConfig(m),
        v2::CheckError::Failed(m) => v1::CheckError::Failed(m),
    }
}

/// The typed facts and configuration of contract 0.1.0's JSON arguments: `facts_json` one host's
/// snapshot, `config_json` the `{"config", "params", "declared"}` object.
pub(crate) fn from_json(
    facts_json: &str,
    enabled: &[String],
    config_json: &str,
) -> Result<(HostFacts, v2::CheckConfig), String> {
    let doc = spindle_core::load::parse_snapshot("facts-json", facts_json.to_string())
        .map_err(|e| e.to_string())?;
    let view = spindle_core::view::HostView::build(vec![doc], Default::default());
    let cfg: Value = if config_json.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(config_json).map_err(|e| format!("config-json: {e}"))?
    };
    let rules = enabled
        .iter()
        .map(|code| {
            let params = cfg["params"][code.as_str()]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(name, v)| {
                    let v = match v {
                        Value::String(t) => ParamValue::Text(t.clone()),
                        v => ParamValue::Num(v.as_f64()?),
                    };
                    Some((name.clone(), v))
                })
                .collect();
            (code.clone(), params)
        })
        .collect();
    let declared = &cfg["declared"];
    let stripes = declared["stripe_units"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| v2::DeclaredStripe {
            entity: s["entity"].as_str().unwrap_or_default().to_string(),
            stripe_unit_bytes: s["stripe_unit_bytes"].as_u64().unwrap_or_default(),
            data_disks: s["data_disks"].as_u64().and_then(|n| u32::try_from(n).ok()),
            source: s["source"].as_str().map(str::to_string),
        })
        .collect();
    let table = match &cfg["config"] {
        Value::Null => "{}".to_string(),
        t => t.to_string(),
    };
    let workload = declared["workload"].as_str().map(str::to_string);
    Ok((facts::encode(&view), check_config(rules, workload, stripes, table)))
}
