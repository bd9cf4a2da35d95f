//! Owned Rust types mirroring the WIT contract, checked by the host before anyone sees them.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::bindings::v0_1::types as wit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<wit::Severity> for Severity {
    fn from(s: wit::Severity) -> Self {
        match s {
            wit::Severity::Error => Severity::Error,
            wit::Severity::Warning => Severity::Warning,
            wit::Severity::Note => Severity::Note,
        }
    }
}

/// What the plugin says about itself (`info`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackInfo {
    pub id: String,
    pub version: String,
    pub facts_schema_version: u32,
}

/// A parameter's kind, as spindle's packs understand it (mirrors `spindle_core::params::ParamKind`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "choices")]
pub enum ParamKind {
    Bytes,
    Ms,
    Count,
    Percent,
    Factor,
    Choice(Vec<String>),
}

impl ParamKind {
    /// The kind's word in the WIT contract (`bytes`, `choice`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ParamKind::Bytes => "bytes",
            ParamKind::Ms => "ms",
            ParamKind::Count => "count",
            ParamKind::Percent => "percent",
            ParamKind::Factor => "factor",
            ParamKind::Choice(_) => "choice",
        }
    }
}

/// A parameter's default, read from the plugin's `default-json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamDefault {
    Num(f64),
    Text(String),
}

impl fmt::Display for ParamDefault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamDefault::Num(n) => write!(f, "{n}"),
            ParamDefault::Text(t) => write!(f, "\"{t}\""),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamSpec {
    pub name: String,
    #[serde(flatten)]
    pub kind: ParamKind,
    pub default: ParamDefault,
    pub doc: String,
}

/// A rule the plugin declares (`rules`), validated: code `AAA000`, kebab-case name, known kinds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleMeta {
    /// Within the plugin, without namespace (`NAM001`).
    pub code: String,
    pub name: String,
    pub severity: Severity,
    pub summary: String,
    /// Markdown with the headings What it checks / Why it matters / How to fix / References.
    pub docs: String,
    pub params: Vec<ParamSpec>,
    /// The facts sections without which it cannot judge a host (contract 0.2.0 and later):
    /// the engine reports it not evaluated instead of calling the plugin.
    #[serde(skip)]
    pub needs: Vec<spindle_core::rule::Need>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// One of the codes the call enabled, without namespace.
    pub code: String,
    /// `None`: the rule's severity as the pack sets it.
    pub severity: Option<Severity>,
    pub message: String,
    pub measured: Option<String>,
    pub expected: Option<String>,
    /// The entity's key as the plugin computed it; the host has not checked that it exists.
    pub entity: String,
    pub field: Option<String>,
    /// `None`: the How to fix section of the rule's docs.
    pub fix: Option<String>,
    /// The measured and expected values as numbers with units (contract 0.2.0 and later).
    #[serde(skip)]
    pub measured_quantity: Option<spindle_core::finding::Quantity>,
    #[serde(skip)]
    pub expected_quantity: Option<spindle_core::finding::Quantity>,
}

impl From<wit::Finding> for Finding {
    fn from(f: wit::Finding) -> Self {
        Finding {
            code: f.code,
            severity: f.severity.map(Severity::from),
            message: f.message,
            measured: f.measured,
            expected: f.expected,
            entity: f.entity,
            field: f.field,
            fix: f.fix,
            measured_quantity: None,
            expected_quantity: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotEvaluated {
    pub code: String,
    /// `None`: the host as a whole.
    pub entity: Option<String>,
    pub missing: String,
    pub reason: Option<String>,
}

impl From<wit::NotEvaluated> for NotEvaluated {
    fn from(n: wit::NotEvaluated) -> Self {
        NotEvaluated { code: n.code, entity: n.entity, missing: n.missing, reason: n.reason }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
        }
    }
}

impl From<wit::LogLevel> for LogLevel {
    fn from(l: wit::LogLevel) -> Self {
        match l {
            wit::LogLevel::Debug => LogLevel::Debug,
            wit::LogLevel::Info => LogLevel::Info,
            wit::LogLevel::Warn => LogLevel::Warn,
        }
    }
}

/// A line the plugin sent to spindle's log; control characters are escaped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    pub level: LogLevel,
    pub message: String,
}

/// What the plugin wrote besides its result, during one call: all bounded, all escaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// Lines the plugin logged, at most [`LOG_MAX_LINES`](crate::LOG_MAX_LINES).
    pub log: Vec<LogLine>,
    /// Log lines dropped over the bounds.
    pub log_dropped: usize,
    /// The last bytes the plugin wrote to stderr (a Rust panic's message lands here).
    pub stderr: String,
    /// Bytes of stderr dropped before that tail.
    pub stderr_dropped: u64,
    /// The last bytes the plugin wrote to stdout.
    pub stdout: String,
}

/// A successful `check`: findings and not-evaluated entries, each with a code the call enabled.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutput {
    pub findings: Vec<Finding>,
    pub not_evaluated: Vec<NotEvaluated>,
    pub captured: Captured,
    /// Wall time of the call, instantiation included.
    pub elapsed: Duration,
}
