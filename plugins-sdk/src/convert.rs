//! spindle-core's types to the WIT contract's, and back.

use spindle_core::finding::{Finding, NotEvaluated, Severity};
use spindle_core::params::{ParamDefault, ParamKind, ParamSpec};
use spindle_core::rule::RuleMeta;

use crate::wit;

pub(crate) fn severity(s: Severity) -> wit::Severity {
    match s {
        Severity::Error => wit::Severity::Error,
        Severity::Warning => wit::Severity::Warning,
        Severity::Note => wit::Severity::Note,
    }
}

/// The kind as the contract spells it, and the accepted words of a choice.
#[cfg(feature = "contract-0-1")]
pub(crate) fn kind(k: ParamKind) -> (&'static str, Vec<String>) {
    match k {
        ParamKind::Bytes => ("bytes", vec![]),
        ParamKind::Ms => ("ms", vec![]),
        ParamKind::Count => ("count", vec![]),
        ParamKind::Percent => ("percent", vec![]),
        ParamKind::Factor => ("factor", vec![]),
        ParamKind::Choice(words) => ("choice", words.iter().map(|w| w.to_string()).collect()),
    }
}

/// A default as JSON: whole numbers without a fraction (`65536`, not `65536.0`), so a pack
/// writer reading `spindle plugin inspect` sees what they would write themselves.
#[cfg(feature = "contract-0-1")]
pub(crate) fn default_json(d: ParamDefault) -> String {
    match d {
        ParamDefault::Num(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => {
            format!("{}", n as i64)
        }
        ParamDefault::Num(n) => serde_json::Number::from_f64(n).map_or("null".into(), |n| n.to_string()),
        ParamDefault::Text(t) => serde_json::Value::from(t).to_string(),
    }
}

#[cfg(feature = "contract-0-1")]
pub(crate) fn param(p: &ParamSpec) -> wit::ParamSpec {
    let (kind, choices) = kind(p.kind);
    wit::ParamSpec {
        name: p.name.to_string(),
        kind: kind.to_string(),
        choices,
        default_json: default_json(p.default),
        doc: p.doc.to_string(),
    }
}

#[cfg(not(feature = "contract-0-1"))]
pub(crate) fn param(p: &ParamSpec) -> wit::ParamSpec {
    wit::ParamSpec {
        name: p.name.to_string(),
        kind: match p.kind {
            ParamKind::Bytes => wit::ParamKind::Bytes,
            ParamKind::Ms => wit::ParamKind::Ms,
            ParamKind::Count => wit::ParamKind::Count,
            ParamKind::Percent => wit::ParamKind::Percent,
            ParamKind::Factor => wit::ParamKind::Factor,
            ParamKind::Choice(words) => wit::ParamKind::Choice(words.iter().map(|w| w.to_string()).collect()),
        },
        default: match p.default {
            ParamDefault::Num(n) => wit::ParamValue::Num(n),
            ParamDefault::Text(t) => wit::ParamValue::Text(t.to_string()),
        },
        doc: p.doc.to_string(),
    }
}

pub(crate) fn rule_meta(m: &RuleMeta) -> wit::RuleMeta {
    wit::RuleMeta {
        code: m.code.to_string(),
        name: m.name.to_string(),
        summary: m.summary.to_string(),
        docs: m.docs(),
        severity: severity(m.severity),
        params: m.params.iter().map(param).collect(),
        #[cfg(not(feature = "contract-0-1"))]
        needs: m.needs.iter().map(|n| need(*n)).collect(),
    }
}

#[cfg(not(feature = "contract-0-1"))]
fn need(n: spindle_core::rule::Need) -> wit::Need {
    use spindle_core::rule::Need;
    match n {
        Need::Disks => wit::Need::Disks,
        Need::Partitions => wit::Need::Partitions,
        Need::Volumes => wit::Need::Volumes,
        Need::StoragePools => wit::Need::StoragePools,
        Need::VirtualDisks => wit::Need::VirtualDisks,
        Need::RaidSets => wit::Need::RaidSets,
        Need::SqlInstances => wit::Need::SqlInstances,
        Need::DatabaseFiles => wit::Need::DatabaseFiles,
    }
}

#[cfg(feature = "contract-0-1")]
pub(crate) fn finding(f: Finding) -> wit::Finding {
    wit::Finding {
        code: f.code,
        severity: Some(severity(f.severity)),
        message: f.message,
        measured: f.measured,
        expected: f.expected,
        entity: f.entity.key,
        field: f.field,
        fix: (!f.fix.is_empty()).then_some(f.fix),
    }
}

#[cfg(not(feature = "contract-0-1"))]
pub(crate) fn finding(f: Finding) -> wit::Finding {
    let quantity = |q: Option<spindle_core::finding::Quantity>| {
        q.map(|q| wit::Quantity {
            value: q.value,
            unit: match q.unit {
                spindle_core::finding::Unit::Bytes => wit::Unit::Bytes,
                spindle_core::finding::Unit::Ms => wit::Unit::Ms,
                spindle_core::finding::Unit::Percent => wit::Unit::Percent,
                spindle_core::finding::Unit::Count => wit::Unit::Count,
            },
        })
    };
    wit::Finding {
        code: f.code,
        severity: Some(severity(f.severity)),
        message: f.message,
        measured: f.measured,
        expected: f.expected,
        measured_quantity: quantity(f.measured_quantity),
        expected_quantity: quantity(f.expected_quantity),
        entity: f.entity.key,
        field: f.field,
        fix: (!f.fix.is_empty()).then_some(f.fix),
    }
}

pub(crate) fn not_evaluated(n: NotEvaluated) -> wit::NotEvaluated {
    wit::NotEvaluated { code: n.code, entity: n.entity.map(|e| e.key), missing: n.missing, reason: n.reason }
}

/// A host's report as the contract's output. Neither contract has a slot for not-applicable
/// entries (`Ctx::not_applicable`): a plugin's are dropped here. They never fail a run, so no
/// verdict changes; a later contract may carry them.
pub(crate) fn output(report: spindle_core::engine::HostReport) -> wit::CheckOutput {
    wit::CheckOutput {
        findings: report.findings.into_iter().map(finding).collect(),
        not_evaluated: report.not_evaluated.into_iter().map(not_evaluated).collect(),
    }
}

#[cfg(all(test, feature = "contract-0-1"))]
mod tests {
    use super::*;

    #[test]
    fn defaults_as_json() {
        assert_eq!(default_json(ParamDefault::Num(65536.0)), "65536");
        assert_eq!(default_json(ParamDefault::Num(0.5)), "0.5");
        assert_eq!(default_json(ParamDefault::Num(-3.0)), "-3");
        assert_eq!(default_json(ParamDefault::Text("oltp")), "\"oltp\"");
        assert_eq!(default_json(ParamDefault::Text("a\"b")), r#""a\"b""#);
    }
}
