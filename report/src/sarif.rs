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
mod render;
mod uri;

pub use github::{GITHUB_MAX_GZIP_BYTES, GITHUB_MAX_RESULTS, GITHUB_SHOWN_RESULTS, github_limit_warnings};
use objects::*;
pub(crate) use render::SarifRender;
pub use uri::artifact_uri;

use super::provenance::{AppliedParam, RunProvenance};
use super::{
    Part, Render, Rendered, ReportWriter, RuleInfo, Stage, Summary, serialize_indented, write_indented,
};

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

// ---- Building them. ----

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
