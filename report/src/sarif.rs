//! SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
//!
//! One run. Results stream out host by host; every result has a physical location with a region
//! (code scanning rejects a file otherwise), falling back to line 1 of the host's first snapshot
//! file when the fact cannot be found. Not-evaluated and not-applicable entries, rule errors and
//! hosts that could not be judged become tool execution notifications of the run's invocation,
//! which is written last (it needs the summary): they are the one thing kept until `finish`,
//! already serialized, up to a limit for not-evaluated and not-applicable entries.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod github;
mod objects;
mod uri;

pub use github::{GITHUB_MAX_GZIP_BYTES, GITHUB_MAX_RESULTS, GITHUB_SHOWN_RESULTS, github_limit_warnings};
use objects::*;
pub use uri::artifact_uri;

use super::provenance::{AppliedParam, RunProvenance};
use super::{
    FactLocation, HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Stage, Summary, entity_kind,
    fingerprint, locate_finding, locate_not_applicable, locate_not_evaluated, serialize_indented,
    write_indented,
};
use spindle_core::engine::HostReport;
use spindle_core::finding::{AppliedWaiver, Finding, NotApplicable, NotEvaluated};
use spindle_core::view::HostView;

/// The `$schema` written in every log: the OASIS SARIF 2.1.0 schema (errata 01).
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Where people learn about spindle: the workspace's `repository` (SARIF makes `informationUri`
/// optional; should a manifest ever drop it, the log leaves it out rather than make one up).
pub const INFORMATION_URI: Option<&str> = {
    let repository = env!("CARGO_PKG_REPOSITORY");
    if repository.is_empty() { None } else { Some(repository) }
};

/// The key of the fingerprint in `partialFingerprints` (see [`super::fingerprint`]).
pub const FINGERPRINT_KEY: &str = "spindle/v1";

/// Not-evaluated and not-applicable notifications kept by default; past it, one note counts the
/// rest.
pub const DEFAULT_NOTIFICATION_LIMIT: usize = 10_000;

/// Notification descriptors, in `tool.driver.notifications` order.
const NOT_EVALUATED: (&str, usize) = ("not-evaluated", 0);
const RULE_ERROR: (&str, usize) = ("rule-error", 1);
const COLLECTION_ERROR: (&str, usize) = ("collection-error", 3);
const NOT_EVALUATED_OMITTED: (&str, usize) = ("not-evaluated-omitted", 2);
const NOT_APPLICABLE: (&str, usize) = ("not-applicable", 4);
const HOST_NOT_JUDGED: (&str, usize) = ("host-not-judged", 5);
const STALE_FACTS: (&str, usize) = ("stale-facts", 6);

/// What a log does with a finding under a waiver that has not expired. GitHub code scanning
/// ignores SARIF `suppressions`, so a waived result stays an open alert there at its severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Waived {
    /// A result at its severity, with a suppression (SARIF viewers that read suppressions hide it).
    Keep,
    /// A result at level `note`, with a suppression, its message naming the waiver: an open
    /// alert on GitHub, at the lowest level, that says why it is accepted.
    #[default]
    Note,
    /// No result: the run's properties count the findings left out (`waivedOmitted`).
    Omit,
}

impl Waived {
    pub fn as_str(self) -> &'static str {
        match self {
            Waived::Keep => "keep",
            Waived::Note => "note",
            Waived::Omit => "omit",
        }
    }
}

/// A log's output, counted: GitHub's limits are on results and on bytes.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Called with each warning about GitHub's upload limits, once the log is finished.
pub type LimitWarnings = Box<dyn FnMut(String) + Send>;

/// Writes a SARIF 2.1.0 log to `out` as the run goes.
pub struct SarifWriter<W: Write> {
    out: Counted<W>,
    tool_version: String,
    /// `runAutomationDetails.id`, ending in `/`: GitHub's analysis category.
    category: Option<String>,
    waived: Waived,
    on_limits: Option<LimitWarnings>,
    stage: Stage,
    render: Arc<SarifRender>,
    results: usize,
    /// Serialized notifications, each followed by a separator, kept until `finish`.
    notifications: Vec<u8>,
    not_evaluated_kept: usize,
    not_evaluated_omitted: usize,
    limit: usize,
    run: RunProvenance,
    /// Serialized `artifacts` (the snapshot files, with their provenance), each followed by a
    /// separator, kept until `finish` up to `limit`; past it, only counted.
    artifacts: Vec<u8>,
    artifacts_kept: usize,
    artifacts_omitted: usize,
}

impl<W: Write> SarifWriter<W> {
    /// `tool_version` becomes `tool.driver.version` (the CLI passes its own version).
    pub fn new(out: W, tool_version: &str) -> Self {
        SarifWriter {
            out: Counted { inner: out, bytes: 0 },
            tool_version: tool_version.to_string(),
            category: None,
            waived: Waived::default(),
            on_limits: None,
            stage: Stage::New,
            render: Arc::new(SarifRender::default()),
            results: 0,
            notifications: Vec::new(),
            not_evaluated_kept: 0,
            not_evaluated_omitted: 0,
            limit: DEFAULT_NOTIFICATION_LIMIT,
            run: RunProvenance::default(),
            artifacts: Vec::new(),
            artifacts_kept: 0,
            artifacts_omitted: 0,
        }
    }

    /// How many not-evaluated and not-applicable notifications to keep (they wait in memory until
    /// `finish`); the rest are counted in one note. Rule errors and hosts not judged are always
    /// kept. The same limit bounds the snapshot files listed in `artifacts`.
    pub fn with_notification_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// GitHub's analysis category (`runAutomationDetails.id`): several runs of spindle uploaded
    /// for one commit need distinct ones. GitHub takes the id up to its last `/` as the category,
    /// so one is added when `category` does not end with it (as `upload-sarif` does).
    pub fn with_category(mut self, category: &str) -> Self {
        let mut id = category.to_string();
        if !id.ends_with('/') {
            id.push('/');
        }
        self.category = Some(id);
        self
    }

    /// What to do with findings under a waiver (see [`Waived`]).
    pub fn with_waived(mut self, waived: Waived) -> Self {
        self.waived = waived;
        self
    }

    /// Where warnings go when the finished log nears GitHub's upload limits (see
    /// [`github_limit_warnings`]); without it, none are made.
    pub fn with_limit_warnings(mut self, on_limits: LimitWarnings) -> Self {
        self.on_limits = Some(on_limits);
        self
    }

    /// `begin` with a renderer made by another log's `begin`: the logs of a split run share
    /// one, so that hosts render once whichever log they go to.
    pub(crate) fn begin_sharing(&mut self, rules: &[&[u8]], render: Arc<SarifRender>) -> io::Result<()> {
        self.stage.expect(Stage::New, "begin")?;
        self.stage = Stage::Begun;
        self.render = render;
        let out = &mut self.out;
        out.write_all(b"{\n  \"$schema\": ")?;
        serde_json::to_writer(&mut *out, SARIF_SCHEMA).map_err(io::Error::other)?;
        out.write_all(b",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")?;
        // `tool` laid out as serde_json's pretty printer would, with the rules' descriptors
        // already serialized.
        out.write_all(
            b"{\n        \"driver\": {\n          \"name\": \"spindle\",\n          \"version\": ",
        )?;
        serde_json::to_writer(&mut *out, &self.tool_version).map_err(io::Error::other)?;
        if let Some(uri) = INFORMATION_URI {
            out.write_all(b",\n          \"informationUri\": ")?;
            serde_json::to_writer(&mut *out, uri).map_err(io::Error::other)?;
        }
        out.write_all(b",\n          \"rules\": [")?;
        for (i, rule) in rules.iter().enumerate() {
            out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
            out.write_all(RULE_INDENT.as_bytes())?;
            out.write_all(rule)?;
        }
        out.write_all(if rules.is_empty() { b"]" } else { b"\n          ]" })?;
        out.write_all(b",\n          \"notifications\": ")?;
        write_indented(out, &notification_descriptors(), "          ")?;
        out.write_all(b"\n        }\n      }")?;
        if let Some(id) = &self.category {
            out.write_all(b",\n      \"automationDetails\": {\n        \"id\": ")?;
            serde_json::to_writer(&mut *out, id).map_err(io::Error::other)?;
            out.write_all(b"\n      }")?;
        }
        out.write_all(b",\n      \"columnKind\": \"unicodeCodePoints\",\n      \"results\": [")
    }

    /// The results written and the bytes, so far.
    pub(crate) fn written(&self) -> (usize, u64) {
        (self.results, self.out.bytes)
    }

    pub fn into_inner(self) -> W {
        self.out.inner
    }

    fn push_notification(&mut self, n: &Notification<'_>) -> io::Result<()> {
        let mut buf = Vec::new();
        serialize_indented(&mut buf, n, "            ")?;
        self.push_rendered_notification(&buf);
        Ok(())
    }

    fn push_rendered_notification(&mut self, bytes: &[u8]) {
        self.notifications.extend_from_slice(b"\n            ");
        self.notifications.extend_from_slice(bytes);
        self.notifications.push(b',');
    }
}

/// Renders hosts for [`SarifWriter`]: a result per finding, a notification per not-evaluated and
/// not-applicable entry, rule error and reason the host could not be judged.
#[derive(Default)]
pub(crate) struct SarifRender {
    rule_index: HashMap<String, usize>,
    /// Set once the log has kept as many not-evaluated notifications as it will: every later
    /// one is only counted, so it need not be rendered. Hosts are appended in order, so which
    /// entries are kept does not depend on the order they were rendered in.
    notifications_full: AtomicBool,
    waived: Waived,
    /// Several logs share this renderer (split by host): one log's limit is not the others', so
    /// none sets `notifications_full`.
    shared: bool,
}

impl SarifRender {
    /// A renderer for several logs (split by host) whose rule tables differ: results and
    /// notifications name rules by id alone (no `ruleIndex`).
    pub(crate) fn shared(waived: Waived) -> SarifRender {
        SarifRender { waived, shared: true, ..SarifRender::default() }
    }

    fn rule_ref<'a>(&self, code: &'a str) -> RuleRef<'a> {
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

// ---- Building them. ----

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

/// Where a rule's descriptor sits in `tool.driver.rules`.
const RULE_INDENT: &str = "            ";

/// A rule's descriptor as `tool.driver.rules` holds it, serialized once: a split run writes the
/// same descriptors into many logs.
pub(crate) fn rule_descriptor(r: &RuleInfo) -> io::Result<Vec<u8>> {
    let descriptor = RuleDescriptor {
        id: &r.code,
        name: &r.name,
        short_description: Text { text: &r.summary },
        full_description: Text {
            text: r.doc_section("What it checks").filter(|s| !s.is_empty()).unwrap_or(&r.summary),
        },
        help_uri: r.help_uri(),
        help: Help { text: &r.docs, markdown: &r.docs },
        default_configuration: Configuration { level: r.severity.as_str() },
        properties: RuleProperties { tags: [&r.category] },
    };
    let mut buf = Vec::with_capacity(r.docs.len() * 2 + 512);
    serialize_indented(&mut buf, &descriptor, RULE_INDENT)?;
    Ok(buf)
}

/// The descriptors of tool notifications, in the order of their indices (`NOT_EVALUATED`, ...).
fn notification_descriptors() -> Vec<NotificationDescriptor> {
    // (descriptor, level, short description, full description, help)
    type Row = ((&'static str, usize), &'static str, &'static str, &'static str, &'static str);
    let table: [Row; 7] = [
        (
            NOT_EVALUATED,
            "note",
            "A rule could not judge an entity because a fact it needs is missing; this is not a pass.",
            "The rule named by the notification needed a fact that the snapshot does not have (its \
             collector could not read it, or a declaration is missing), so it judged nothing about the \
             entity. spindle never counts such a check as passed.",
            "Collect the missing fact (the notification names it, and the collector's reason when it \
             gave one), or declare it in a pack (`[[declare.*]]`), then run the check again.",
        ),
        (
            RULE_ERROR,
            "error",
            "A rule or plugin failed: the run is incomplete.",
            "A rule, or the plugin that provides it, failed on a host (a trap, a resource limit, a bad \
             answer). Its findings for that host are unknown, so the run is marked incomplete and spindle \
             exits with status 2.",
            "Read the notification's message for the failure; fix or update the plugin, or leave the \
             rule out of the pack (`--ignore CODE`) until it is fixed.",
        ),
        (
            NOT_EVALUATED_OMITTED,
            "note",
            "More not-evaluated and not-applicable entries than the log keeps; the JSON report lists them \
             all.",
            "The log lists a bounded number of not-evaluated and not-applicable notifications; this one \
             counts those left out.",
            "Write the JSON report (`--format json`) for the complete list.",
        ),
        (
            COLLECTION_ERROR,
            "error",
            "A server's facts could not be collected (down, refused, timed out): the run is incomplete.",
            "spindle could not collect any facts from a server it was asked to check (it was down, \
             refused the connection or the login, or timed out), so nothing about that server was \
             judged. Unless the run allows unreachable servers (`--allow-unreachable`), it is marked \
             incomplete.",
            "Check that the server is up and reachable from where spindle runs, and that the login has \
             VIEW SERVER STATE; the notification's message gives the cause.",
        ),
        (
            NOT_APPLICABLE,
            "note",
            "A rule had the facts for an entity and chose not to judge it (too few I/Os to average, a \
             check that does not apply); this never fails a run.",
            "The rule had the facts it needs and decided they do not support a verdict for this entity \
             (for example, too few I/Os for an average latency to mean anything).",
            "Nothing to fix: the notification's reason says why the rule declined. Sample the counters \
             for longer (`--sample`) when the reason is too little activity.",
        ),
        (
            HOST_NOT_JUDGED,
            "error",
            "spindle could not judge a host: no rule could be evaluated on it, or facts the run requires \
             are missing. The run is incomplete.",
            "No active rule could be evaluated on the host, or the host lacks facts the run requires \
             (`--require`). A report without findings for it proves nothing, so the run is marked \
             incomplete.",
            "Collect the host's facts with the collector the notification names (`spindle collect host`, \
             `spindle collect sql`), then run the check again.",
        ),
        (
            STALE_FACTS,
            "warning",
            "Two snapshot files of one host from the same collector overlap: the newer one's facts were used.",
            "Two files of one host from the same collector (yesterday's and today's `spindle collect \
             host`, say) both carry a section such as `partitions`. The file with the later \
             `collected_at` is used for it and the older copy is set aside, so that an old reading \
             can neither hide today's problem nor be judged twice. The message names both files.",
            "Keep one snapshot per host and collector in the folder spindle checks (move older ones to \
             an archive folder, or pass `--exclude` with a glob that matches them).",
        ),
    ];
    table
        .into_iter()
        .enumerate()
        .map(|(i, ((id, index), level, short, full, help))| {
            debug_assert_eq!(i, index, "{id} is at its index");
            NotificationDescriptor {
                id,
                short_description: Text { text: short },
                full_description: Text { text: full },
                help: Help { text: help, markdown: help },
                default_configuration: Configuration { level },
            }
        })
        .collect()
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

impl<W: Write> ReportWriter for SarifWriter<W> {
    fn provenance(&mut self, run: &RunProvenance) {
        self.run = run.clone();
    }

    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        let mut rule_index = HashMap::new();
        for (i, r) in rules.iter().enumerate() {
            rule_index.entry(r.code.clone()).or_insert(i);
        }
        let render = Arc::new(SarifRender {
            rule_index,
            notifications_full: AtomicBool::new(false),
            shared: false,
            waived: self.waived,
        });
        let descriptors = rules.iter().map(rule_descriptor).collect::<io::Result<Vec<_>>>()?;
        let descriptors: Vec<&[u8]> = descriptors.iter().map(Vec::as_slice).collect();
        self.begin_sharing(&descriptors, render)
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.render.clone()
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "host")?;
        for (part, bytes) in host.parts() {
            match part {
                Part::Result | Part::Host | Part::Later => {
                    let sep: &[u8] = if self.results == 0 { b"\n        " } else { b",\n        " };
                    self.out.write_all(sep)?;
                    self.out.write_all(bytes)?;
                    self.results += 1;
                }
                Part::NotEvaluated | Part::NotApplicable => {
                    if self.not_evaluated_kept >= self.limit || bytes.is_empty() {
                        self.not_evaluated_omitted += 1;
                        if !self.render.shared {
                            self.render.notifications_full.store(true, Ordering::Relaxed);
                        }
                        continue;
                    }
                    self.push_rendered_notification(bytes);
                    self.not_evaluated_kept += 1;
                }
                Part::RuleError | Part::NotJudged | Part::Warning => self.push_rendered_notification(bytes),
                Part::Snapshot => {
                    if self.artifacts_kept >= self.limit {
                        self.artifacts_omitted += 1;
                        continue;
                    }
                    self.artifacts.extend_from_slice(b"\n        ");
                    self.artifacts.extend_from_slice(bytes);
                    self.artifacts.push(b',');
                    self.artifacts_kept += 1;
                }
            }
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "collection_error")?;
        let note = Notification {
            level: "error",
            message: OwnedText { text: format!("{source}: no facts collected: {message}") },
            descriptor: DescriptorRef { id: COLLECTION_ERROR.0, index: COLLECTION_ERROR.1 },
            associated_rule: None,
            locations: vec![],
            properties: Some(NotificationProperties {
                host: source,
                entity: None,
                missing: None,
                reason: None,
                field: None,
            }),
        };
        self.push_notification(&note)
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "finish")?;
        self.stage = Stage::Finished;
        self.note_omitted()?;
        let close: &[u8] = if self.results == 0 { b"]" } else { b"\n      ]" };
        self.out.write_all(close)?;
        self.write_invocations(summary)?;
        self.write_artifacts_and_run(summary)?;
        self.out.flush()?;
        if let Some(warn) = self.on_limits.as_mut() {
            for w in github_limit_warnings(self.results, self.out.bytes) {
                warn(w);
            }
        }
        Ok(())
    }
}

impl<W: Write> SarifWriter<W> {
    /// The one notification that says how many entries the log left out, when it left any.
    fn note_omitted(&mut self) -> io::Result<()> {
        if self.not_evaluated_omitted > 0 {
            let note = Notification {
                level: "note",
                message: OwnedText {
                    text: format!(
                        "{} more not-evaluated or not-applicable entries are not listed here (the log \
                         keeps {}); the JSON report lists them all.",
                        self.not_evaluated_omitted, self.limit
                    ),
                },
                descriptor: DescriptorRef { id: NOT_EVALUATED_OMITTED.0, index: NOT_EVALUATED_OMITTED.1 },
                associated_rule: None,
                locations: vec![],
                properties: None,
            };
            self.push_notification(&note)?;
        }
        Ok(())
    }

    /// The run's one invocation: whether it succeeded, its rules' settings, its notifications
    /// and its counts.
    fn write_invocations(&mut self, summary: &Summary) -> io::Result<()> {
        let overrides = overrides(&self.run, &self.render);
        let out = &mut self.out;
        write!(
            out,
            ",\n      \"invocations\": [\n        {{\n          \"executionSuccessful\": {}",
            !summary.incomplete()
        )?;
        if !self.run.started_at.is_empty() {
            out.write_all(b",\n          \"startTimeUtc\": ")?;
            serde_json::to_writer(&mut *out, &self.run.started_at).map_err(io::Error::other)?;
        }
        out.write_all(b",\n          \"ruleConfigurationOverrides\": ")?;
        write_indented(out, &overrides, "          ")?;
        out.write_all(b",\n          \"toolExecutionNotifications\": [")?;
        let notes = std::mem::take(&mut self.notifications);
        if let Some(notes) = notes.strip_suffix(b",") {
            out.write_all(notes)?;
            out.write_all(b"\n          ")?;
        }
        out.write_all(b"],\n          \"properties\": ")?;
        write_indented(out, &invocation_properties(summary), "          ")?;
        out.write_all(b"\n        }\n      ]")
    }

    /// The snapshot files the log kept, then the run's own properties, and the log's end.
    fn write_artifacts_and_run(&mut self, summary: &Summary) -> io::Result<()> {
        let out = &mut self.out;
        out.write_all(b",\n      \"artifacts\": [")?;
        let artifacts = std::mem::take(&mut self.artifacts);
        if let Some(artifacts) = artifacts.strip_suffix(b",") {
            out.write_all(artifacts)?;
            out.write_all(b"\n      ")?;
        }
        out.write_all(b"],\n      \"properties\": ")?;
        let run = RunProperties {
            packs: &self.run.packs,
            artifacts_omitted: self.artifacts_omitted,
            waived: self.waived.as_str(),
            waived_omitted: if self.waived == Waived::Omit { Some(summary.waived) } else { None },
        };
        write_indented(out, &run, "      ")?;
        out.write_all(b"\n    }\n  ]\n}\n")
    }
}

/// The rules' parameters as the run applied them, against their defaults.
fn overrides<'a>(run: &'a RunProvenance, render: &'a SarifRender) -> Vec<ConfigurationOverride<'a>> {
    run.rules
        .iter()
        .map(|r| {
            let each = |value: fn(&AppliedParam) -> serde_json::Value| {
                r.params.iter().map(|p| (p.name.clone(), value(p))).collect()
            };
            ConfigurationOverride {
                descriptor: render.rule_ref(&r.code),
                configuration: OverrideConfiguration { parameters: each(|p| AppliedParam::json(&p.value)) },
                properties: OverrideProperties {
                    defaults: each(|p| AppliedParam::json(&p.default)),
                    set_by: r
                        .params
                        .iter()
                        .filter_map(|p| Some((p.name.as_str(), p.set_by.as_deref()?)))
                        .collect(),
                },
            }
        })
        .collect()
}

/// The run's counts, as the invocation's properties.
fn invocation_properties(summary: &Summary) -> InvocationProperties {
    InvocationProperties {
        summary: SummaryProperties {
            hosts: summary.hosts,
            errors: summary.errors,
            warnings: summary.warnings,
            notes: summary.notes,
            waived: summary.waived,
            expired_waivers: summary.expired_waivers,
            not_evaluated: summary.not_evaluated,
            not_applicable: summary.not_applicable,
            passed: summary.passed,
            rule_errors: summary.rule_errors,
            collection_errors: summary.collection_errors,
            hosts_not_judged: summary.hosts_not_judged,
            unreachable_allowed: summary.unreachable_allowed,
            incomplete: summary.incomplete(),
            baseline: summary.baseline.map(|b| BaselineProperties {
                new: b.new,
                unchanged: b.unchanged,
                absent: b.fixed,
                not_checked: b.not_checked,
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn githubs_limits() {
        let warned = |results, bytes| github_limit_warnings(results, bytes).join("\n");
        assert_eq!(warned(5_000, 1_000_000), "");
        assert!(warned(5_001, 0).contains("shows only the 5,000 most severe"));
        assert!(warned(20_001, 0).contains("20,001 results, near GitHub code scanning's limit of 25,000"));
        assert!(warned(25_001, 0).contains("rejects a run of more than 25,000"));
        assert_eq!(github_limit_warnings(25_001, 0).len(), 1, "the worst of the three");
        assert_eq!(warned(0, 80_000_000), "");
        assert!(warned(0, 80_000_001).contains("80,000,001 bytes: gzipped it may exceed"));
    }

    #[test]
    fn uris() {
        assert_eq!(artifact_uri("snapshots/sql01.json"), "snapshots/sql01.json");
        assert_eq!(artifact_uri("./snapshots/sql01.json"), "snapshots/sql01.json");
        assert_eq!(artifact_uri("snapshots\\sql 01.json"), "snapshots/sql%2001.json");
        assert_eq!(artifact_uri("../x/a#b?c%d.json"), "../x/a%23b%3Fc%25d.json");
        assert_eq!(artifact_uri("a:b.json"), "a%3Ab.json");
        assert_eq!(artifact_uri("ab:c.json"), "ab%3Ac.json");
        assert_eq!(artifact_uri("/work/snaps/é.json"), "file:///work/snaps/%C3%A9.json");
        assert_eq!(artifact_uri("C:\\Snaps\\sql01.json"), "file:///C:/Snaps/sql01.json");
        assert_eq!(artifact_uri("\\\\filer\\share\\s.json"), "file://filer/share/s.json");
    }
}
