//! Each host's part of the log, rendered on any thread: its snapshot files as artifacts, a
//! result per finding, and a notification per not-evaluated and not-applicable entry, rule error
//! and reason the host could not be judged.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use spindle_core::engine::HostReport;
use spindle_core::finding::{AppliedWaiver, Finding, NotApplicable, NotEvaluated};
use spindle_core::view::HostView;

use super::objects::*;
use super::uri::artifact_uri;
use super::{HOST_NOT_JUDGED, NOT_APPLICABLE, NOT_EVALUATED, RULE_ERROR, STALE_FACTS, Waived};
use crate::{
    FactLocation, HostContext, Part, Render, Rendered, entity_kind, fingerprint, locate_finding,
    locate_not_applicable, locate_not_evaluated, serialize_indented,
};

/// Renders hosts for [`SarifWriter`]: a result per finding, a notification per not-evaluated and
/// not-applicable entry, rule error and reason the host could not be judged.
#[derive(Default)]
pub(crate) struct SarifRender {
    pub(super) rule_index: HashMap<String, usize>,
    /// Set once the log has kept as many not-evaluated notifications as it will: every later
    /// one is only counted, so it need not be rendered. Hosts are appended in order, so which
    /// entries are kept does not depend on the order they were rendered in.
    pub(super) notifications_full: AtomicBool,
    pub(super) waived: Waived,
    /// Several logs share this renderer (split by host): one log's limit is not the others', so
    /// none sets `notifications_full`.
    pub(super) shared: bool,
}

impl SarifRender {
    /// A renderer for several logs (split by host) whose rule tables differ: results and
    /// notifications name rules by id alone (no `ruleIndex`).
    pub(crate) fn shared(waived: Waived) -> SarifRender {
        SarifRender { waived, shared: true, ..SarifRender::default() }
    }

    pub(super) fn rule_ref<'a>(&self, code: &'a str) -> RuleRef<'a> {
        RuleRef { id: code, index: self.rule_index.get(code).copied() }
    }
}

impl Render for SarifRender {
    fn render_in(&self, view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        if self.shared {
            // Which log the host goes to, and which rules that log lists.
            out.set_host(report);
        }
        self.snapshots(&mut out, view, report)?;
        self.host_notes(&mut out, view, report)?;
        self.results(&mut out, view, report)?;
        self.not_evaluated(&mut out, view, report)?;
        self.not_applicable(&mut out, view, report)?;
        self.rule_errors(&mut out, report)?;
        Ok(out)
    }
}

impl SarifRender {
    /// The host's snapshot files, as artifacts.
    fn snapshots(&self, out: &mut Rendered, view: &HostView, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        // Rendered even past the log's limit (append counts those): a host has a file or two.
        for (doc, p) in view.docs.iter().zip(&view.provenance) {
            let artifact = Artifact {
                location: ArtifactLocation { uri: artifact_uri(&doc.path) },
                roles: ["analysisTarget"],
                properties: ArtifactProperties {
                    host,
                    collected_at: p.collected_at.as_deref(),
                    collectors: view.collectors[p.collectors.clone()]
                        .iter()
                        .map(|c| CollectorInfo { name: &c.name, version: c.version.as_deref() })
                        .collect(),
                },
            };
            out.part(Part::Snapshot, |buf| serialize_indented(buf, &artifact, "        "))?;
        }
        Ok(())
    }

    /// What a reader must see before the host's results: that it could not be judged, that its facts are stale.
    fn host_notes(&self, out: &mut Rendered, view: &HostView, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        // Hosts spindle could not judge come first in the log's notifications of the host: they
        // are what a reader must see before trusting that it has no results.
        for why in &report.not_judged {
            let note = Notification::about_host(
                "error",
                format!("{host}: spindle could not judge this host: {why}."),
                HOST_NOT_JUDGED,
                host,
            )
            .because(why);
            out.part(Part::NotJudged, |buf| serialize_indented(buf, &note, "            "))?;
        }
        for stale in &view.stale {
            let note =
                Notification::about_host("warning", format!("{}.", stale.message(host)), STALE_FACTS, host);
            out.part(Part::Warning, |buf| serialize_indented(buf, &note, "            "))?;
        }
        Ok(())
    }

    /// A result per finding (none for a waived one when the log omits them).
    fn results(&self, out: &mut Rendered, view: &HostView, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        for f in &report.findings {
            let waived = f.waiver.as_ref().filter(|w| !w.expired);
            if waived.is_some() && self.waived == Waived::Omit {
                continue;
            }
            let result = self.result(view, host, f);
            out.part(Part::Result, |buf| serialize_indented(buf, &result, "        "))?;
        }
        Ok(())
    }

    /// A finding as a SARIF result; a waived one as a note when the log is asked so.
    fn result<'a>(&self, view: &'a HostView, host: &'a str, f: &'a Finding) -> SarifResult<'a> {
        let waiver = f.waiver.as_ref();
        let waived = waiver.filter(|w| !w.expired);
        let as_note = waived.is_some() && self.waived == Waived::Note;
        let loc = locate_finding(view, f);
        let mut text = result_message(f);
        if let Some(w) = waived.filter(|_| as_note) {
            text.push_str(&waiver_message(f, w));
        }
        SarifResult {
            rule_id: &f.code,
            rule_index: self.rule_index.get(&f.code).copied(),
            level: if as_note { "note" } else { f.severity.as_str() },
            message: OwnedText { text },
            locations: [Location {
                physical_location: physical(loc.as_ref(), view, host),
                logical_locations: vec![LogicalLocation {
                    fully_qualified_name: &f.entity.key,
                    name: &f.entity.label,
                    kind: "resource",
                    properties: LogicalProperties { spindle_kind: entity_kind(&f.entity) },
                }],
            }],
            partial_fingerprints: Fingerprints { v1: fingerprint(f) },
            baseline_state: f.baseline.map(|b| b.as_str()),
            suppressions: waiver
                .filter(|w| !w.expired)
                .map(|w| Suppression {
                    kind: "external",
                    status: "accepted",
                    justification: &w.reason,
                    properties: WaiverProperties {
                        source: &w.source,
                        expires: w.expires.as_deref(),
                        expired: false,
                    },
                })
                .into_iter()
                .collect(),
            properties: ResultProperties {
                host,
                entity: &f.entity.key,
                severity: as_note.then(|| f.severity.as_str()),
                pointer: loc.map(|l| l.pointer),
                measured: f.measured.as_deref(),
                expected: f.expected.as_deref(),
                quantities: Quantities { measured: f.measured_quantity, expected: f.expected_quantity },
                gain: f.gain.as_ref().map(GainInfo::from),
                waiver: waiver.map(|w| WaiverInfo {
                    reason: &w.reason,
                    source: &w.source,
                    expires: w.expires.as_deref(),
                    expired: w.expired,
                }),
            },
        }
    }

    /// A note per check not evaluated, only counted once the log is full.
    fn not_evaluated(&self, out: &mut Rendered, view: &HostView, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        for n in &report.not_evaluated {
            if self.notifications_full.load(Ordering::Relaxed) {
                // Only counted (see `notifications_full`).
                out.part(Part::NotEvaluated, |_| io::Result::Ok(()))?;
                continue;
            }
            let loc = locate_not_evaluated(view, n);
            let note = Notification {
                level: "note",
                message: OwnedText { text: not_evaluated_message(host, n) },
                descriptor: DescriptorRef { id: NOT_EVALUATED.0, index: NOT_EVALUATED.1 },
                associated_rule: Some(self.rule_ref(&n.code)),
                locations: loc
                    .map(|l| Location {
                        physical_location: physical(Some(&l), view, host),
                        logical_locations: n
                            .entity
                            .iter()
                            .map(|e| LogicalLocation {
                                fully_qualified_name: &e.key,
                                name: &e.label,
                                kind: "resource",
                                properties: LogicalProperties { spindle_kind: entity_kind(e) },
                            })
                            .collect(),
                    })
                    .into_iter()
                    .collect(),
                properties: Some(NotificationProperties {
                    host,
                    entity: n.entity.as_ref().map(|e| e.key.as_str()),
                    missing: Some(&n.missing),
                    reason: n.reason.as_deref(),
                    field: None,
                }),
            };
            out.part(Part::NotEvaluated, |buf| serialize_indented(buf, &note, "            "))?;
        }
        Ok(())
    }

    /// A note per entity a rule declined to judge, only counted once the log is full.
    fn not_applicable(&self, out: &mut Rendered, view: &HostView, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        for n in &report.not_applicable {
            if self.notifications_full.load(Ordering::Relaxed) {
                out.part(Part::NotApplicable, |_| io::Result::Ok(()))?;
                continue;
            }
            let loc = locate_not_applicable(view, n);
            let e = &n.entity;
            let note = Notification {
                level: "note",
                message: OwnedText { text: not_applicable_message(host, n) },
                descriptor: DescriptorRef { id: NOT_APPLICABLE.0, index: NOT_APPLICABLE.1 },
                associated_rule: Some(self.rule_ref(&n.code)),
                locations: loc
                    .map(|l| Location {
                        physical_location: physical(Some(&l), view, host),
                        logical_locations: vec![LogicalLocation {
                            fully_qualified_name: &e.key,
                            name: &e.label,
                            kind: "resource",
                            properties: LogicalProperties { spindle_kind: entity_kind(e) },
                        }],
                    })
                    .into_iter()
                    .collect(),
                properties: Some(NotificationProperties {
                    host,
                    entity: Some(&e.key),
                    missing: None,
                    reason: Some(&n.reason),
                    field: Some(&n.field),
                }),
            };
            out.part(Part::NotApplicable, |buf| serialize_indented(buf, &note, "            "))?;
        }
        Ok(())
    }

    /// An error per rule that failed on the host.
    fn rule_errors(&self, out: &mut Rendered, report: &HostReport) -> io::Result<()> {
        let host = report.host.as_str();
        for e in &report.errors {
            let note = Notification {
                associated_rule: Some(self.rule_ref(&e.code)),
                ..Notification::about_host(
                    "error",
                    format!("{} failed on {host}: {}", e.code, e.message),
                    RULE_ERROR,
                    host,
                )
            };
            out.part(Part::RuleError, |buf| serialize_indented(buf, &note, "            "))?;
        }
        Ok(())
    }
}

fn physical(loc: Option<&FactLocation>, view: &HostView, host: &str) -> PhysicalLocation {
    match loc {
        Some(l) => PhysicalLocation {
            artifact_location: ArtifactLocation { uri: artifact_uri(&l.path) },
            region: Region {
                start_line: l.start.0,
                start_column: l.start.1,
                end_line: Some(l.end.0),
                end_column: Some(l.end.1),
            },
        },
        None => PhysicalLocation {
            // Line 1 of the first snapshot file; a host always has one, but never write a result
            // without a location.
            artifact_location: ArtifactLocation {
                uri: artifact_uri(view.docs.first().map_or(host, |d| d.path.as_str())),
            },
            region: Region { start_line: 1, start_column: 1, end_line: None, end_column: None },
        },
    }
}

fn result_message(f: &Finding) -> String {
    let mut text = if f.entity.label.is_empty() {
        f.message.clone()
    } else {
        format!("{}: {}", f.entity.label, f.message)
    };
    match (&f.measured, &f.expected) {
        (Some(m), Some(e)) => text.push_str(&format!("\nMeasured: {m}; expected: {e}.")),
        (Some(m), None) => text.push_str(&format!("\nMeasured: {m}.")),
        (None, Some(e)) => text.push_str(&format!("\nExpected: {e}.")),
        (None, None) => {}
    }
    if !f.fix.trim().is_empty() {
        text.push_str("\nFix: ");
        text.push_str(f.fix.trim());
    }
    text
}

/// What a result lowered to a note by its waiver says of it: GitHub shows the message, not the
/// suppression.
fn waiver_message(f: &Finding, w: &AppliedWaiver) -> String {
    let until = w.expires.as_deref().map(|d| format!(" until {d}")).unwrap_or_default();
    format!("\nWaived{until} by {} (severity {}): {}", w.source, f.severity.as_str(), w.reason)
}

fn not_evaluated_message(host: &str, n: &NotEvaluated) -> String {
    let at = n.entity.as_ref().map_or(host, |e| if e.label.is_empty() { &e.key } else { &e.label });
    let mut text = format!("{} ({}) not evaluated for {at}: {} is missing", n.code, n.rule, n.missing);
    if let Some(r) = &n.reason {
        text.push_str(&format!(" ({r})"));
    }
    text.push('.');
    text
}

fn not_applicable_message(host: &str, n: &NotApplicable) -> String {
    let e = &n.entity;
    let at = if e.label.is_empty() { e.key.as_str() } else { e.label.as_str() };
    let at = if at.is_empty() { host } else { at };
    format!("{} ({}) not applicable to {at}: {} ({}).", n.code, n.rule, n.field, n.reason)
}
