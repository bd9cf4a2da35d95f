//! A host's findings as a diff sorts them: new, fixed, unchanged, not evaluated after.

use serde::Serialize;
use spindle_core::finding::{Finding, Severity};

use crate::fingerprint;

/// The findings of one host, sorted into new, fixed, unchanged and not evaluated after, each in
/// its side's report order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FindingDiff {
    pub new: Vec<FindingEntry>,
    pub fixed: Vec<FindingEntry>,
    pub unchanged: Vec<FindingEntry>,
    /// BEFORE's findings AFTER's check could not judge, with why (in `reason`).
    pub not_evaluated_after: Vec<FindingEntry>,
}

impl FindingDiff {
    /// Each list the most serious first (errors, then warnings, then notes), otherwise in its
    /// report's order: what a person reads first.
    pub fn sort(&mut self) {
        for list in [&mut self.new, &mut self.fixed, &mut self.unchanged, &mut self.not_evaluated_after] {
            list.sort_by_key(|f| std::cmp::Reverse(f.severity));
        }
    }
}

/// One finding, as a diff shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingEntry {
    /// 16 hexadecimal digits, as `spindle baseline` records it.
    pub fingerprint: String,
    pub code: String,
    pub rule: String,
    #[serde(serialize_with = "severity_str")]
    pub severity: Severity,
    /// The entity's label for people (`sql01 › disk 1 › partition 1 (D:\)`).
    pub entity: String,
    /// The entity's stable key (`sql01/disk:…/partition:1`).
    pub entity_key: String,
    pub message: String,
    /// Under a waiver that holds: listed, but it fails nothing.
    pub waived: bool,
    /// For `not_evaluated_after`: why AFTER could not judge it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn severity_str<S: serde::Serializer>(s: &Severity, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.as_str())
}

impl FindingEntry {
    /// The finding as the diff lists it.
    pub fn of(f: &Finding) -> FindingEntry {
        FindingEntry {
            fingerprint: fingerprint(f),
            code: f.code.clone(),
            rule: f.rule.clone(),
            severity: f.severity,
            entity: f.entity.label.clone(),
            entity_key: f.entity.key.clone(),
            message: f.message.clone(),
            waived: f.is_waived(),
            reason: None,
        }
    }
}
