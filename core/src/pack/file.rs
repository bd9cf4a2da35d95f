//! The rule-pack file format (TOML), as written by people: every value keeps its position so an
//! error can point at it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

/// A pack's text and the path (or `builtin:NAME`) it came from.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: String,
    pub text: String,
}

/// A rule pack: which rules run, how severe they are, their parameters, facts people declare,
/// and accepted findings (waivers).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackFile {
    /// Short name shown in reports.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub description: Option<String>,
    /// Packs this one builds on, applied first: a builtin pack name (`recommended`, `oltp`,
    /// `data-warehouse`) or a path relative to this file.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub extends: Vec<Spanned<String>>,
    /// When present, only these rules run: codes (`ALN001`), code prefixes (`ALN`, `acme/`) or
    /// rule names (`partition-offset-alignment`).
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub select: Option<Vec<Spanned<String>>>,
    /// Rules that do not run, by code, prefix or name.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub ignore: Vec<Spanned<String>>,
    /// Per-rule settings, keyed by code or name: `severity` ("error", "warning", "note") and the
    /// rule's parameters (`spindle explain CODE` lists them).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, BTreeMap<String, serde_json::Value>>")]
    pub rules: BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    /// Facts no machine can report.
    #[serde(default)]
    pub declare: Option<DeclareSection>,
    /// Accepted findings: they stay in every report, marked waived, until they expire.
    #[serde(default)]
    pub waivers: Vec<WaiverEntry>,
    /// A waiver that expires within this many days is a warning on every run (default 30; 0
    /// turns the warning off). A later pack's value replaces an earlier one's.
    #[serde(default)]
    pub waiver_warn_days: Option<u32>,
    /// WASM rule plugins, by name: their rules' codes are namespaced by it (`acme/NAM001`) and
    /// take part in select, ignore, severities, parameters and waivers like builtin rules.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, PluginEntry>")]
    pub plugins: BTreeMap<Spanned<String>, PluginEntry>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginEntry {
    /// The plugin's `.wasm` component, relative to this pack file.
    #[schemars(with = "String")]
    pub path: Spanned<String>,
    /// SHA-256 of the file, hex: a plugin whose bytes differ is refused.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub sha256: Option<Spanned<String>>,
    /// Handed to the plugin as JSON; checked by the plugin once, when the pack loads.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub config: Option<Spanned<toml::Table>>,
    /// Memory the plugin may use per call (default 64 MiB).
    #[serde(default)]
    #[schemars(with = "Option<u64>")]
    pub memory_bytes: Option<Spanned<u64>>,
    /// Wall-clock time per call (default 2,000 ms).
    #[serde(default)]
    #[schemars(with = "Option<u64>")]
    pub timeout_ms: Option<Spanned<u64>>,
    /// Fuel per call, for deterministic limits in CI (default: unlimited).
    #[serde(default)]
    #[schemars(with = "Option<u64>")]
    pub fuel: Option<Spanned<u64>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclareSection {
    /// The workload class: `oltp` or `data-warehouse`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub workload: Option<Spanned<String>>,
    /// Stripe units of SAN LUNs or hardware RAID sets that the host cannot report.
    #[serde(default)]
    pub stripe_unit: Vec<DeclaredStripeEntry>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclaredStripeEntry {
    /// Glob on the entity key (`sql01/disk:*`) or label of the disks, partitions or volumes.
    pub entity: String,
    #[schemars(with = "u64")]
    pub stripe_unit_bytes: Spanned<u64>,
    /// How many data disks a stripe spans, when known.
    #[serde(default)]
    pub data_disks: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaiverEntry {
    /// Rule codes, prefixes or names the waiver covers.
    #[schemars(with = "Vec<String>")]
    pub rules: Vec<Spanned<String>>,
    /// Glob on the entity key (`legacy01/disk:1/*`) or label.
    pub entity: String,
    /// Why the finding is accepted; shown in every report.
    pub reason: String,
    /// `YYYY-MM-DD`: from the day after, the finding counts again and the report says so.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub expires: Option<Spanned<String>>,
}
