//! What a report says about the run itself: when it started, the packs applied, and the
//! parameters each rule ran with, so a verdict can be traced to its configuration.

use spindle_core::engine::ActiveRule;
use spindle_core::params::ParamValue;

/// The run a report describes. The writers that carry it (JSON, SARIF) are given it before
/// `begin` ([`ReportWriter::provenance`](crate::ReportWriter::provenance)).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunProvenance {
    /// When the run started: RFC 3339, UTC, whole seconds (`2026-11-30T00:00:00Z`).
    pub started_at: String,
    /// The pack files applied, in the order they applied (`builtin:recommended`, then what
    /// extends it, then the packs given); each once.
    pub packs: Vec<String>,
    /// The parameters of every active rule that has any, in the rules table's order.
    pub rules: Vec<RuleParams>,
}

/// One rule's parameters as the run applied them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RuleParams {
    pub code: String,
    pub params: Vec<AppliedParam>,
}

/// One parameter's value in this run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppliedParam {
    /// With its unit (`min_free_percent`, `alignment_bytes`).
    pub name: String,
    pub value: ParamValue,
    /// What the rule declares when no pack sets it.
    pub default: ParamValue,
    /// The pack that set `value`; `None`: the rule's default applies.
    pub set_by: Option<String>,
}

impl RuleParams {
    /// The parameters of `active` as the packs left them; `None` for a rule without any.
    pub fn from_active(active: &ActiveRule<'_>) -> Option<RuleParams> {
        let specs = active.rule.meta().params;
        if specs.is_empty() {
            return None;
        }
        let params = specs
            .iter()
            .map(|spec| AppliedParam {
                name: spec.name.to_string(),
                value: active.params.get(spec.name).cloned().unwrap_or_else(|| spec.default.into()),
                default: spec.default.into(),
                set_by: active.params.set_by(spec.name).map(str::to_string),
            })
            .collect();
        Some(RuleParams { code: active.code.clone(), params })
    }
}

impl AppliedParam {
    /// The value as JSON: a number for numeric kinds (whole numbers without a fraction), a
    /// string for a choice.
    pub fn json(v: &ParamValue) -> serde_json::Value {
        match v {
            ParamValue::Num(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => serde_json::Value::from(*n as i64),
            ParamValue::Num(n) => serde_json::Value::from(*n),
            ParamValue::Text(t) => serde_json::Value::from(t.as_str()),
        }
    }
}
