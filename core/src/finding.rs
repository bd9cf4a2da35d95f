//! What rules say: findings, facts they could not evaluate, entities they chose not to judge, and
//! rules that failed.

use std::fmt;

use crate::entity::EntityRef;
use crate::gain::Gain;
pub use crate::quantity::{Quantity, Unit};

/// How serious a finding is. Ordered: `Note < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A waiver that matched a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedWaiver {
    pub reason: String,
    /// `YYYY-MM-DD`, when the waiver has an expiry date.
    pub expires: Option<String>,
    /// The pack file that holds the waiver.
    pub source: String,
    /// The waiver's date has passed: the finding counts again.
    pub expired: bool,
}

/// Whether a finding was already there when the baseline was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BaselineState {
    /// Not in the baseline (or recorded under a waiver that no longer holds): it counts.
    New,
    /// In the baseline: known, and it does not fail the run.
    Unchanged,
}

impl BaselineState {
    /// The word reports use: `new`, `unchanged` (SARIF's `baselineState` values).
    pub fn as_str(self) -> &'static str {
        match self {
            BaselineState::New => "new",
            BaselineState::Unchanged => "unchanged",
        }
    }
}

/// One thing wrong, with the measured and the expected value and how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Rule code, namespaced for plugins (`ALN001`, `acme/NAM001`).
    pub code: String,
    /// Rule name (`partition-offset-alignment`).
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// The value read, with its unit (`32,256 B (31.5 KiB)`).
    pub measured: Option<String>,
    /// What the rule expected (`a multiple of 64 KiB`).
    pub expected: Option<String>,
    /// The measured value as a number with its unit (`32256` bytes), when it is one.
    pub measured_quantity: Option<Quantity>,
    /// The expected value as a number with its unit (`65536` bytes for "a multiple of 64 KiB"):
    /// the limit or target the prose names, when there is one.
    pub expected_quantity: Option<Quantity>,
    pub entity: EntityRef,
    /// The fact within the entity, as a relative JSON pointer (`offset_bytes`, `io/io_stall_read_ms`).
    pub field: Option<String>,
    pub fix: String,
    /// What fixing it is expected to gain, where a public measurement supports an estimate.
    pub gain: Option<Gain>,
    pub waiver: Option<AppliedWaiver>,
    /// Against the run's baseline (`spindle check --baseline`), when it has one: set once by the
    /// caller after the waivers, read by every report writer.
    pub baseline: Option<BaselineState>,
}

impl Finding {
    pub fn severity(&mut self, s: Severity) -> &mut Self {
        self.severity = s;
        self
    }

    pub fn values(&mut self, measured: impl Into<String>, expected: impl Into<String>) -> &mut Self {
        self.measured = Some(measured.into());
        self.expected = Some(expected.into());
        self
    }

    /// The numbers behind [`Finding::values`]: what was measured and the limit or target it was
    /// held against, each with its unit (`None` where the prose has no single number).
    pub fn quantities(
        &mut self,
        measured: impl Into<Option<Quantity>>,
        expected: impl Into<Option<Quantity>>,
    ) -> &mut Self {
        self.measured_quantity = measured.into();
        self.expected_quantity = expected.into();
        self
    }

    /// The fix for this entity. Empty: the rule's docs' fix (as when none is given), so no
    /// finding is reported without one.
    pub fn fix(&mut self, fix: impl Into<String>) -> &mut Self {
        self.fix = fix.into();
        self
    }

    /// What fixing it is expected to gain (see [`Gain`]): only from a public measurement.
    pub fn gain(&mut self, gain: impl Into<Option<Gain>>) -> &mut Self {
        self.gain = gain.into();
        self
    }

    /// A waived finding stays in every report but does not fail the run.
    pub fn is_waived(&self) -> bool {
        self.waiver.as_ref().is_some_and(|w| !w.expired)
    }
}

/// A rule that could not be evaluated because a fact it needs is missing. Never a pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotEvaluated {
    pub code: String,
    pub rule: String,
    /// The entity the rule was looking at; `None` for the host as a whole.
    pub entity: Option<EntityRef>,
    /// The missing fact, named like a snapshot field (`partitions`, `offset_bytes`).
    pub missing: String,
    /// Why it is missing, when a collector recorded a reason.
    pub reason: Option<String>,
}

/// An entity a rule had the facts for and chose not to judge: too little to go on (a file with
/// 412 reads, fewer than the rule's `min_reads`), or a check that does not apply to it (a
/// virtual machine's "physical" media). Kept apart from [`NotEvaluated`] because the two call
/// for opposite actions: a missing fact is a gap in what spindle saw and never a pass, while a
/// judgement the rule declined is the rule working as documented, so it never fails a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotApplicable {
    pub code: String,
    pub rule: String,
    pub entity: EntityRef,
    /// The fact the rule looked at, as a relative JSON pointer (`io/num_of_reads`, `is_virtual`).
    pub field: String,
    /// Why the rule did not judge, with the values it saw.
    pub reason: String,
}

/// The entities one rule judged on a host and found nothing wrong with: what a checklist shows as
/// verified. Only entities the rule said it judged ([`Ctx::judged`](crate::rule::Ctx::judged)),
/// less those with a finding (waived or not), a not-evaluated or a not-applicable entry of the
/// rule; so a rule that did not run, or failed, has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passed {
    pub code: String,
    pub rule: String,
    /// The entities' keys, in the order the rule judged them (snapshot order), each once; a
    /// writer that shows more finds the entity with [`HostView::entity`](crate::view::HostView::entity).
    /// Keys only: a fleet host passes hundreds of (rule, entity) pairs.
    pub keys: Vec<String>,
}

/// A rule or plugin that failed: the run is incomplete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub code: String,
    pub message: String,
}

impl RuleError {
    /// Characters of a panic message kept in a report; a rule that panics on every host of a
    /// fleet would otherwise repeat whatever it formatted, however long, once per host.
    pub const PANIC_MESSAGE_CHARS: usize = 500;

    /// `what` (`rule ALN001 (partition-offset-alignment)`) panicked with `message`: control
    /// characters and bidirectional overrides escaped as `\u{..}` (as the plugin host escapes a
    /// plugin's output), so a fact's text in the message can neither drive the terminal nor
    /// break a report line, and cut to [`RuleError::PANIC_MESSAGE_CHARS`].
    pub fn panicked(code: &str, what: &str, message: &str) -> RuleError {
        let mut shown = String::with_capacity(message.len().min(Self::PANIC_MESSAGE_CHARS + 8));
        let mut chars = message.chars();
        for c in chars.by_ref().take(Self::PANIC_MESSAGE_CHARS) {
            if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
                shown.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                shown.push(c);
            }
        }
        if chars.next().is_some() {
            shown.push_str(" […]");
        }
        RuleError {
            code: code.to_string(),
            message: format!("{what} panicked, so it reported nothing for this host: {shown}"),
        }
    }
}
