use serde::{Deserialize, Serialize};

/// The machine the facts describe.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// Host name; snapshots with the same name merge into one view.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_family: Option<OsFamily>,
    /// Operating system version as reported, e.g. `Windows Server 2022` or `Debian 12`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    /// Logical CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// `true` on a virtual machine, `false` on bare metal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_virtual: Option<bool>,
    /// The cloud the virtual machine runs in; absent when not known, `none` on premises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud_provider: Option<CloudProvider>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum OsFamily {
    Windows,
    Linux,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CloudProvider {
    None,
    Azure,
    Aws,
    Gcp,
    Other,
}

/// What one collector gathered, and what it could not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CollectorReport {
    /// Collector name, e.g. `sql`, `linux`, `wmi`, `image`, `manual`.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Facts this collector tried and failed to read, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_collected: Vec<NotCollected>,
}

/// A fact a collector could not read: rules that need it report "not evaluated" with this reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NotCollected {
    /// The fact, named like a snapshot field path: `volumes`, `sql_instances[].databases[].files[].io`.
    pub fact: String,
    /// Why, in the collector's words (a server message, a permission error, a missing DMV).
    pub reason: String,
}
