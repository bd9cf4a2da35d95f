//! The SARIF objects spindle writes, as serde sees them: field order is output order.

use serde::Serialize;
use spindle_core::finding::Quantity;
use spindle_core::gain::Gain;

#[derive(Serialize)]
pub(super) struct Text<'a> {
    pub(super) text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RuleDescriptor<'a> {
    pub(super) id: &'a str,
    pub(super) name: &'a str,
    pub(super) short_description: Text<'a>,
    pub(super) full_description: Text<'a>,
    /// The rule's first public reference, when its docs list one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) help_uri: Option<&'a str>,
    pub(super) help: Help<'a>,
    pub(super) default_configuration: Configuration,
    pub(super) properties: RuleProperties<'a>,
}

#[derive(Serialize)]
pub(super) struct Help<'a> {
    pub(super) text: &'a str,
    pub(super) markdown: &'a str,
}

#[derive(Serialize)]
pub(super) struct Configuration {
    pub(super) level: &'static str,
}

#[derive(Serialize)]
pub(super) struct RuleProperties<'a> {
    pub(super) tags: [&'a str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct NotificationDescriptor {
    pub(super) id: &'static str,
    pub(super) short_description: Text<'static>,
    /// GitHub's validation asks every descriptor, notifications' too, for a full description and
    /// help (Multitool rule GH2012).
    pub(super) full_description: Text<'static>,
    pub(super) help: Help<'static>,
    pub(super) default_configuration: Configuration,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifResult<'a> {
    pub(super) rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rule_index: Option<usize>,
    pub(super) level: &'static str,
    pub(super) message: OwnedText,
    pub(super) locations: [Location<'a>; 1],
    pub(super) partial_fingerprints: Fingerprints,
    /// `new` or `unchanged`, with `--baseline` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) baseline_state: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) suppressions: Vec<Suppression<'a>>,
    pub(super) properties: ResultProperties<'a>,
}

#[derive(Serialize)]
pub(super) struct OwnedText {
    pub(super) text: String,
}

#[derive(Serialize)]
pub(super) struct Fingerprints {
    #[serde(rename = "spindle/v1")]
    pub(super) v1: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Location<'a> {
    pub(super) physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) logical_locations: Vec<LogicalLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PhysicalLocation {
    pub(super) artifact_location: ArtifactLocation,
    pub(super) region: Region,
}

#[derive(Serialize)]
pub(super) struct ArtifactLocation {
    pub(super) uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Region {
    pub(super) start_line: usize,
    pub(super) start_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) end_column: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LogicalLocation<'a> {
    pub(super) fully_qualified_name: &'a str,
    pub(super) name: &'a str,
    pub(super) kind: &'static str,
    pub(super) properties: LogicalProperties,
}

#[derive(Serialize)]
pub(super) struct LogicalProperties {
    /// spindle's own entity kind (`partition`, `file`, ...); SARIF's `kind` is `resource`.
    #[serde(rename = "spindleKind")]
    pub(super) spindle_kind: &'static str,
}

#[derive(Serialize)]
pub(super) struct Suppression<'a> {
    pub(super) kind: &'static str,
    pub(super) status: &'static str,
    pub(super) justification: &'a str,
    pub(super) properties: WaiverProperties<'a>,
}

#[derive(Serialize)]
pub(super) struct WaiverProperties<'a> {
    pub(super) source: &'a str,
    pub(super) expires: Option<&'a str>,
    pub(super) expired: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ResultProperties<'a> {
    pub(super) host: &'a str,
    pub(super) entity: &'a str,
    /// The rule's severity, when a waiver lowered the result's level to `note`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) severity: Option<&'static str>,
    pub(super) pointer: Option<String>,
    pub(super) measured: Option<&'a str>,
    pub(super) expected: Option<&'a str>,
    /// `measuredBytes`, `expectedMs`, ...: the numbers behind `measured` and `expected`.
    #[serde(flatten)]
    pub(super) quantities: Quantities,
    /// What fixing it is expected to gain, where a public measurement supports an estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) gain: Option<GainInfo<'a>>,
    /// Present for every waiver, expired or not (an expired one has no suppression).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) waiver: Option<WaiverInfo<'a>>,
}

/// An expected gain as a result property: the range in percent (both ends positive, `better`
/// says which way), the value after the fix (`afterLowMs`, `afterHighMs`) when the evidence
/// gives one, and the public measurement.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GainInfo<'a> {
    pub(super) metric: &'a str,
    pub(super) better: &'static str,
    pub(super) low_percent: serde_json::Value,
    pub(super) high_percent: serde_json::Value,
    #[serde(flatten)]
    pub(super) after: After,
    pub(super) assumptions: &'a str,
    pub(super) evidence: &'a str,
    pub(super) url: &'a str,
}

impl<'a> From<&'a Gain> for GainInfo<'a> {
    fn from(g: &'a Gain) -> Self {
        GainInfo {
            metric: &g.metric,
            better: g.better.as_str(),
            low_percent: crate::emit::number_value(g.low_percent),
            high_percent: crate::emit::number_value(g.high_percent),
            after: After(g.after),
            assumptions: &g.assumptions,
            evidence: &g.evidence,
            url: &g.url,
        }
    }
}

pub(super) struct After(pub(super) Option<(Quantity, Quantity)>);

impl Serialize for After {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        if let Some((low, high)) = self.0 {
            for (role, q) in [("afterLow", low), ("afterHigh", high)] {
                m.serialize_entry(&format!("{role}{}", unit_suffix(q)), &crate::emit::number_value(q.value))?;
            }
        }
        m.end()
    }
}

fn unit_suffix(q: Quantity) -> &'static str {
    use spindle_core::finding::Unit::*;
    match q.unit {
        Bytes => "Bytes",
        Ms => "Ms",
        Percent => "Percent",
        Count => "Count",
    }
}

/// A finding's numbers as result properties, the unit in the name (`measuredBytes: 32256`).
pub(super) struct Quantities {
    pub(super) measured: Option<Quantity>,
    pub(super) expected: Option<Quantity>,
}

impl Serialize for Quantities {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        for (role, q) in [("measured", self.measured), ("expected", self.expected)] {
            let Some(q) = q else { continue };
            m.serialize_entry(&format!("{role}{}", unit_suffix(q)), &crate::emit::number_value(q.value))?;
        }
        m.end()
    }
}

#[derive(Serialize)]
pub(super) struct Artifact<'a> {
    pub(super) location: ArtifactLocation,
    pub(super) roles: [&'static str; 1],
    pub(super) properties: ArtifactProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactProperties<'a> {
    pub(super) host: &'a str,
    /// The snapshot's `collected_at` as written: not `lastModifiedTimeUtc`, which is the file's.
    pub(super) collected_at: Option<&'a str>,
    pub(super) collectors: Vec<CollectorInfo<'a>>,
}

#[derive(Serialize)]
pub(super) struct CollectorInfo<'a> {
    pub(super) name: &'a str,
    pub(super) version: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ConfigurationOverride<'a> {
    pub(super) descriptor: RuleRef<'a>,
    pub(super) configuration: OverrideConfiguration,
    pub(super) properties: OverrideProperties<'a>,
}

#[derive(Serialize)]
pub(super) struct OverrideConfiguration {
    pub(super) parameters: serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct OverrideProperties<'a> {
    /// The rule's declared defaults, by parameter.
    pub(super) defaults: serde_json::Map<String, serde_json::Value>,
    /// The pack that set each parameter that is not its default.
    pub(super) set_by: std::collections::BTreeMap<&'a str, &'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RunProperties<'a> {
    /// The pack files applied, in order.
    pub(super) packs: &'a [String],
    /// Snapshot files left out of `artifacts` past the log's limit.
    #[serde(skip_serializing_if = "is_zero")]
    pub(super) artifacts_omitted: usize,
    /// What the log did with waived findings: `keep`, `note` or `omit`.
    pub(super) waived: &'static str,
    /// With `omit`: the waived findings left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) waived_omitted: Option<usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
pub(super) struct WaiverInfo<'a> {
    pub(super) reason: &'a str,
    pub(super) source: &'a str,
    pub(super) expires: Option<&'a str>,
    pub(super) expired: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Notification<'a> {
    pub(super) level: &'static str,
    pub(super) message: OwnedText,
    pub(super) descriptor: DescriptorRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) associated_rule: Option<RuleRef<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) locations: Vec<Location<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) properties: Option<NotificationProperties<'a>>,
}

impl<'a> Notification<'a> {
    /// A notification about a whole host: no rule, no entity, no location.
    pub(super) fn about_host(
        level: &'static str,
        text: String,
        (id, index): (&'static str, usize),
        host: &'a str,
    ) -> Self {
        Notification {
            level,
            message: OwnedText { text },
            descriptor: DescriptorRef { id, index },
            associated_rule: None,
            locations: vec![],
            properties: Some(NotificationProperties {
                host,
                entity: None,
                missing: None,
                reason: None,
                field: None,
            }),
        }
    }

    pub(super) fn because(mut self, reason: &'a str) -> Self {
        if let Some(p) = self.properties.as_mut() {
            p.reason = Some(reason);
        }
        self
    }
}

#[derive(Serialize)]
pub(super) struct DescriptorRef {
    pub(super) id: &'static str,
    pub(super) index: usize,
}

#[derive(Serialize)]
pub(super) struct RuleRef<'a> {
    pub(super) id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) index: Option<usize>,
}

#[derive(Serialize)]
pub(super) struct NotificationProperties<'a> {
    pub(super) host: &'a str,
    pub(super) entity: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) missing: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) field: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InvocationProperties {
    pub(super) summary: SummaryProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SummaryProperties {
    pub(super) hosts: usize,
    pub(super) errors: usize,
    pub(super) warnings: usize,
    pub(super) notes: usize,
    pub(super) waived: usize,
    pub(super) expired_waivers: usize,
    pub(super) not_evaluated: usize,
    pub(super) not_applicable: usize,
    pub(super) passed: usize,
    pub(super) rule_errors: usize,
    pub(super) collection_errors: usize,
    pub(super) hosts_not_judged: usize,
    pub(super) unreachable_allowed: bool,
    pub(super) incomplete: bool,
    /// With `--baseline` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) baseline: Option<BaselineProperties>,
}

/// The run against its baseline. The baseline's findings not found again are counted here, not
/// written as `absent` results: the baseline keeps their fingerprints only (no message, no
/// location to give a result), and GitHub, which ignores `baselineState`, would open an alert
/// for each.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BaselineProperties {
    pub(super) new: usize,
    pub(super) unchanged: usize,
    /// Fixed: looked for and not found.
    pub(super) absent: usize,
    /// Not looked for (their host not in the run, or their rule not run on it): SARIF's
    /// `baselineState` has no word for it, so they are only counted.
    pub(super) not_checked: usize,
}
