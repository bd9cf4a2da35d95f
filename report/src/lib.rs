//! Report writers: the run-level model (rules, per-host reports, summary) and the streaming
//! writers for the JSON report ([`json`]) and SARIF 2.1.0 ([`sarif`]).
//! For CI systems: JUnit XML ([`junit`]), GitLab Code Quality ([`gitlab`]) and GitHub Actions
//! workflow commands ([`github`]).
//!
//! A writer is driven as `begin(rules)`, then `host(view, report)` once per host as each is
//! checked, then `finish(summary)`. Writers write each host as it comes and keep nothing of it,
//! so a fleet of any size streams through in the memory of one host.

pub mod baseline;
mod causes;
mod checklist;
mod ci;
pub mod concise;
pub mod diff;
mod emit;
mod fix;
mod format_handle;
pub mod formats;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod plan;
pub mod provenance;
mod reason;
pub mod sarif;
pub mod sarif_split;
pub mod shard;
pub mod shown;
pub mod snippet;
pub mod text;

use std::io::{self, Write};
use std::ops::Range;
use std::sync::Arc;

use spindle_core::engine::{ActiveRule, HostReport};
use spindle_core::finding::{BaselineState, Finding, NotApplicable, NotEvaluated, Severity};
use spindle_core::rule::{Impact, RuleMeta};
use spindle_core::view::{EntityRef, HostView};

pub use json::JsonWriter;
pub use provenance::{AppliedParam, RuleParams, RunProvenance};
pub use sarif::SarifWriter;
pub use spindle_core::fnv::fnv1a64;

/// A rule as the run configured it, for the rules table of a report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleInfo {
    /// The code findings carry (`ALN001`; namespaced for plugins: `acme/NAM001`).
    pub code: String,
    pub name: String,
    /// The severity the active packs give it.
    pub severity: Severity,
    /// The code's letters, with the plugin namespace if any (`ALN`, `acme/NAM`).
    pub category: String,
    /// One line.
    pub summary: String,
    /// The full docs, Markdown (What it checks / Why it matters / How to fix / References).
    pub docs: String,
    /// How directly its findings cost the server: the order the reports people read list them in.
    #[serde(default)]
    pub impact: Impact,
}

impl RuleInfo {
    pub fn from_meta(code: &str, meta: &RuleMeta, severity: Severity) -> RuleInfo {
        RuleInfo {
            code: code.to_string(),
            name: meta.name.to_string(),
            severity,
            category: category_of(code),
            summary: meta.summary.to_string(),
            docs: meta.docs(),
            impact: meta.impact,
        }
    }

    pub fn from_active(active: &ActiveRule<'_>) -> RuleInfo {
        RuleInfo::from_meta(&active.code, active.rule.meta(), active.severity)
    }

    /// The rule's primary public reference: the first `https://` address under its docs'
    /// References heading (SARIF's `helpUri`), if any.
    pub fn help_uri(&self) -> Option<&str> {
        spindle_core::references::reference_urls(&self.docs).first().copied()
    }

    /// One section of the docs (`"What it checks"`), without its heading.
    pub fn doc_section(&self, heading: &str) -> Option<&str> {
        let marker = format!("## {heading}\n");
        let start = if self.docs.starts_with(&marker) {
            marker.len()
        } else {
            self.docs.find(&format!("\n{marker}"))? + marker.len() + 1
        };
        let rest = &self.docs[start..];
        let end = rest.find("\n## ").unwrap_or(rest.len());
        Some(rest[..end].trim())
    }
}

/// `ALN001` → `ALN`; `acme/NAM001` → `acme/NAM`.
fn category_of(code: &str) -> String {
    let (ns, local) = code.rsplit_once('/').map_or(("", code), |(ns, l)| (ns, l));
    let n = local.find(|c: char| c.is_ascii_digit()).unwrap_or(local.len());
    if ns.is_empty() { local[..n].to_string() } else { format!("{ns}/{}", &local[..n]) }
}

/// Counts over the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub hosts: usize,
    /// Findings that count (not waived, or waived by an expired waiver), by severity.
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Findings under a waiver that has not expired.
    pub waived: usize,
    /// Findings whose waiver has expired (also counted by severity).
    pub expired_waivers: usize,
    /// Checks not made because a fact is missing: never a pass.
    pub not_evaluated: usize,
    /// Entities rules had the facts for and chose not to judge (too few I/Os): never a failure.
    pub not_applicable: usize,
    /// Entities a rule judged and found nothing wrong with, one per rule and entity.
    pub passed: usize,
    /// Rules or plugins that failed: the run is incomplete.
    pub rule_errors: usize,
    /// Servers or hosts whose facts could not be collected at all (down, refused, timed out).
    pub collection_errors: usize,
    /// Hosts spindle could not judge at all (no rule could be evaluated, or a fact the run
    /// requires is missing): the run is incomplete.
    pub hosts_not_judged: usize,
    /// The run accepts servers that could not be collected: they are reported, but do not make
    /// it incomplete.
    pub unreachable_allowed: bool,
    /// Against the run's baseline, when it has one.
    pub baseline: Option<BaselineCounts>,
}

/// A run's findings against its baseline. `new` and its split by severity count the findings
/// that count (not waived): those, and only those, fail a run with a baseline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BaselineCounts {
    pub new: usize,
    pub new_errors: usize,
    pub new_warnings: usize,
    pub new_notes: usize,
    /// Findings of the baseline found again (waived or not).
    pub unchanged: usize,
    /// Findings of the baseline not found on this run, which looked for them (their host
    /// checked, their rule active and evaluated on it): fixed.
    pub fixed: usize,
    /// Findings of the baseline this run did not look for (their host not in it, their rule
    /// not active or not evaluated on it): "not checked", never counted fixed.
    pub not_checked: usize,
    /// Checks not evaluated that the baseline did not record: only these fail `--fail-on note`
    /// under a baseline.
    pub new_not_evaluated: usize,
}

impl BaselineCounts {
    /// `N new, N fixed, N unchanged[, N not checked]`, as the text summaries say it.
    pub fn line(&self) -> String {
        let mut line = format!("{} new, {} fixed, {} unchanged", self.new, self.fixed, self.unchanged);
        if self.not_checked > 0 {
            line.push_str(&format!(", {} not checked", self.not_checked));
        }
        line
    }

    fn add(&mut self, f: &Finding, state: BaselineState) {
        match state {
            BaselineState::Unchanged => self.unchanged += 1,
            BaselineState::New if f.is_waived() => {}
            BaselineState::New => {
                self.new += 1;
                match f.severity {
                    Severity::Error => self.new_errors += 1,
                    Severity::Warning => self.new_warnings += 1,
                    Severity::Note => self.new_notes += 1,
                }
            }
        }
    }

    fn merge(&mut self, other: &BaselineCounts) {
        self.new += other.new;
        self.new_errors += other.new_errors;
        self.new_warnings += other.new_warnings;
        self.new_notes += other.new_notes;
        self.unchanged += other.unchanged;
        self.fixed += other.fixed;
        self.not_checked += other.not_checked;
        self.new_not_evaluated += other.new_not_evaluated;
    }
}

impl Summary {
    pub fn add(&mut self, report: &HostReport) {
        self.hosts += 1;
        for f in &report.findings {
            if let Some(state) = f.baseline {
                self.baseline.get_or_insert_default().add(f, state);
            }
            if f.is_waived() {
                self.waived += 1;
                continue;
            }
            if f.waiver.is_some() {
                self.expired_waivers += 1;
            }
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Note => self.notes += 1,
            }
        }
        self.not_evaluated += report.not_evaluated.len();
        self.not_applicable += report.not_applicable.len();
        self.passed += report.passed.iter().map(|p| p.keys.len()).sum::<usize>();
        self.rule_errors += report.errors.len();
        if !report.not_judged.is_empty() {
            self.hosts_not_judged += 1;
        }
    }

    /// Adds the counts of `other` (a part of the run counted apart, say on another thread).
    pub fn merge(&mut self, other: &Summary) {
        self.hosts += other.hosts;
        self.errors += other.errors;
        self.warnings += other.warnings;
        self.notes += other.notes;
        self.waived += other.waived;
        self.expired_waivers += other.expired_waivers;
        self.not_evaluated += other.not_evaluated;
        self.not_applicable += other.not_applicable;
        self.passed += other.passed;
        self.rule_errors += other.rule_errors;
        self.collection_errors += other.collection_errors;
        self.hosts_not_judged += other.hosts_not_judged;
        self.unreachable_allowed |= other.unreachable_allowed;
        if let Some(b) = &other.baseline {
            self.baseline.get_or_insert_default().merge(b);
        }
    }

    /// Some rule failed, some host could not be judged, or some server was not collected (and
    /// that was not allowed), so the absence of findings proves nothing. The exit status and
    /// every writer take it from here, so they cannot disagree.
    pub fn incomplete(&self) -> bool {
        self.rule_errors > 0
            || self.hosts_not_judged > 0
            || (self.collection_errors > 0 && !self.unreachable_allowed)
    }

    /// Findings that count, all severities.
    pub fn findings(&self) -> usize {
        self.errors + self.warnings + self.notes
    }

    /// The most serious severity among findings that count.
    pub fn worst(&self) -> Option<Severity> {
        [(self.errors, Severity::Error), (self.warnings, Severity::Warning), (self.notes, Severity::Note)]
            .into_iter()
            .find_map(|(n, s)| (n > 0).then_some(s))
    }
}

/// What a piece of a rendered host is, so the writer can place it: the JSON and text reports
/// have one [`Part::Host`] per host; SARIF has a result per finding and notifications, which go
/// at the end of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Part {
    Host,
    Result,
    NotEvaluated,
    NotApplicable,
    RuleError,
    /// The host could not be judged at all.
    NotJudged,
    /// A warning about the host's facts (two files of one collector overlap: the older set
    /// aside). Kept whatever the notification limit, like [`Part::NotJudged`].
    Warning,
    /// A snapshot file of the host, with its provenance (SARIF `artifacts`).
    Snapshot,
    /// What a writer puts after every host's other parts (GitHub's findings unchanged since the
    /// baseline, so that the new ones come first).
    Later,
}

/// One host's part of a report, rendered apart from the writer and appended in host order.
/// The bytes of all parts share one buffer.
#[derive(Debug, Default)]
pub struct Rendered {
    bytes: Vec<u8>,
    parts: Vec<(Part, Range<usize>)>,
    /// Which host this is, for writers that write a log per host.
    host: Option<Box<HostMeta>>,
}

/// A rendered host's name, counts and the rules its report names.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct HostMeta {
    pub name: String,
    pub counts: Summary,
    /// The codes of the rules its findings, not-evaluated and not-applicable entries and rule
    /// errors name, sorted, each once.
    pub rules: Vec<String>,
}

impl Rendered {
    pub fn new() -> Self {
        Rendered { bytes: Vec::with_capacity(64 << 10), parts: vec![], host: None }
    }

    /// Records which host this is (renderers of per-host logs do).
    pub fn set_host(&mut self, report: &HostReport) {
        let mut counts = Summary::default();
        counts.add(report);
        let mut rules: Vec<String> = (report.findings.iter().map(|f| &f.code))
            .chain(report.not_evaluated.iter().map(|n| &n.code))
            .chain(report.not_applicable.iter().map(|n| &n.code))
            .chain(report.errors.iter().map(|e| &e.code))
            .cloned()
            .collect();
        rules.sort_unstable();
        rules.dedup();
        self.host = Some(Box::new(HostMeta { name: report.host.clone(), counts, rules }));
    }

    /// Which host this is, when the renderer recorded it.
    pub fn host(&self) -> Option<&HostMeta> {
        self.host.as_deref()
    }

    /// Adds a part written by `write` into the shared buffer.
    pub fn part<E>(
        &mut self,
        part: Part,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        let start = self.bytes.len();
        write(&mut self.bytes)?;
        self.parts.push((part, start..self.bytes.len()));
        Ok(())
    }

    /// The parts, in the order they were added.
    pub fn parts(&self) -> impl Iterator<Item = (Part, &[u8])> {
        self.parts.iter().map(|(p, r)| (*p, &self.bytes[r.clone()]))
    }

    /// A host rendered as one [`Part::Host`]: what formats that show a host as one block give.
    pub fn one_block(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> io::Result<Rendered> {
        let mut out = Rendered::new();
        out.part(Part::Host, write)?;
        Ok(out)
    }

    /// Writes every part, in order: the `append` of a format that places nothing apart.
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        self.parts().try_for_each(|(_, bytes)| w.write_all(bytes))
    }
}

/// Renders hosts for a writer. Rendering needs only the host (its view and report), so hosts can
/// be rendered on several threads at once; the writer then appends them one by one, in order.
pub trait Render: Send + Sync {
    /// Renders a host knowing how it was checked (the packs, the order of its findings);
    /// writers that do not show it render as without.
    fn render_in(&self, view: &HostView, report: &HostReport, context: &HostContext) -> io::Result<Rendered>;

    /// [`Render::render_in`] with the default context: the triage order, no packs named.
    fn render(&self, view: &HostView, report: &HostReport) -> io::Result<Rendered> {
        self.render_in(view, report, &HostContext::default())
    }
}

/// How a host was checked, beyond its view and report: what the text report's header shows,
/// and the order the reports people read list its findings in.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostContext<'a> {
    /// The packs that judged the host, as named (a builtin pack's name or a file's path).
    pub packs: &'a [String],
    pub order: Order,
}

/// The order of a host's findings in the reports people read (`spindle check --sort`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// The most serious and most harmful first (docs/report-text.md).
    #[default]
    Triage,
    /// The largest expected gain first ([`Gain::rank`](spindle_core::gain::Gain::rank)), then the
    /// findings with no estimate in triage order.
    Gain,
}

/// A report format, written as the run goes: `begin`, then each host rendered by
/// [`ReportWriter::renderer`] and passed to `append` in host order (or `collection_error` for a
/// server that gave no facts), then `finish`.
pub trait ReportWriter {
    /// What the run was (start time, packs, parameters), before `begin`. Formats that do not
    /// carry it ignore it.
    fn provenance(&mut self, _run: &RunProvenance) {}
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()>;
    /// What renders hosts for this writer, once `begin` has been called.
    fn renderer(&self) -> Arc<dyn Render>;
    /// Where the next host (or collection error) goes in the order of the whole, unsharded run.
    /// Only a shard file ([`shard::ShardRecorder`]) records it, for `spindle merge`.
    fn position(&mut self, _position: u64) {}
    /// Writes one rendered host.
    fn append(&mut self, host: &Rendered) -> io::Result<()>;
    /// Renders and appends one host.
    fn host(&mut self, view: &HostView, report: &HostReport) -> io::Result<()> {
        let rendered = self.renderer().render(view, report)?;
        self.append(&rendered)
    }
    /// `source` (a server, as the user named it) could not be collected, for `message`.
    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()>;
    /// With `--baseline`, before `finish`: the baseline's findings this run did not look for
    /// (counted in [`BaselineCounts::not_checked`]). Formats that list them keep them.
    fn not_checked(&mut self, _entries: Vec<baseline::BaselineEntry>) {}
    fn finish(&mut self, summary: &Summary) -> io::Result<()>;
}

impl<T: ReportWriter + ?Sized> ReportWriter for &mut T {
    fn provenance(&mut self, run: &RunProvenance) {
        (**self).provenance(run)
    }
    fn position(&mut self, position: u64) {
        (**self).position(position)
    }
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        (**self).begin(rules)
    }
    fn renderer(&self) -> Arc<dyn Render> {
        (**self).renderer()
    }
    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        (**self).append(host)
    }
    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        (**self).collection_error(source, message)
    }
    fn not_checked(&mut self, entries: Vec<baseline::BaselineEntry>) {
        (**self).not_checked(entries)
    }
    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        (**self).finish(summary)
    }
}

impl<T: ReportWriter + ?Sized> ReportWriter for Box<T> {
    fn provenance(&mut self, run: &RunProvenance) {
        (**self).provenance(run)
    }
    fn position(&mut self, position: u64) {
        (**self).position(position)
    }
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        (**self).begin(rules)
    }
    fn renderer(&self) -> Arc<dyn Render> {
        (**self).renderer()
    }
    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        (**self).append(host)
    }
    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        (**self).collection_error(source, message)
    }
    fn not_checked(&mut self, entries: Vec<baseline::BaselineEntry>) {
        (**self).not_checked(entries)
    }
    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        (**self).finish(summary)
    }
}

/// Where a fact is in a snapshot file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactLocation {
    /// Index into [`HostView::docs`].
    pub doc: usize,
    /// The file's path as given (`view.docs[doc].path`).
    pub path: String,
    /// The JSON pointer located: the entity's pointer plus the field, or the entity's alone.
    pub pointer: String,
    /// 1-based line and column (in characters) of the first character.
    pub start: (usize, usize),
    /// 1-based line and column just past the last character.
    pub end: (usize, usize),
    /// Byte range in the file's text: `"key": value` for an object member, else the value.
    pub span: Range<usize>,
    /// The field itself was found; `false` when the location fell back to the whole entity.
    pub exact: bool,
}

/// Locates `field` (a relative pointer such as `offset_bytes` or `io/io_stall_read_ms`) of an
/// entity: the first origin whose file holds it, else the first origin where the entity itself
/// can be found.
pub fn locate_entity(view: &HostView, entity: &EntityRef, field: Option<&str>) -> Option<FactLocation> {
    let field = field.filter(|f| !f.is_empty());
    let exact = field.and_then(|field| {
        entity.origins.iter().find_map(|o| {
            let field = field.trim_start_matches('/');
            let mut pointer = String::with_capacity(o.pointer.len() + 1 + field.len());
            pointer.push_str(&o.pointer);
            pointer.push('/');
            pointer.push_str(field);
            fact_location(view, o.doc, pointer, true)
        })
    });
    exact.or_else(|| entity.origins.iter().find_map(|o| fact_location(view, o.doc, o.pointer.clone(), false)))
}

/// Where a finding's fact is: its field in the entity, else the entity.
pub fn locate_finding(view: &HostView, finding: &Finding) -> Option<FactLocation> {
    locate_entity(view, &finding.entity, finding.field.as_deref())
}

/// Where a not-evaluated entry points: the missing field if it is there at all (say, `null`),
/// else its entity; the host for a host-wide entry.
pub fn locate_not_evaluated(view: &HostView, n: &NotEvaluated) -> Option<FactLocation> {
    match &n.entity {
        Some(e) => locate_entity(view, e, Some(&n.missing)),
        None => locate_entity(view, &view.host.entity(), None),
    }
}

/// Where a not-applicable entry points: the fact the rule declined to judge, else its entity.
pub fn locate_not_applicable(view: &HostView, n: &NotApplicable) -> Option<FactLocation> {
    locate_entity(view, &n.entity, Some(&n.field))
}

fn fact_location(view: &HostView, doc: usize, pointer: String, exact: bool) -> Option<FactLocation> {
    let source = view.docs.get(doc)?;
    let span = source.locate(&pointer)?.full();
    Some(FactLocation {
        doc,
        path: source.path.clone(),
        start: source.line_col(span.start),
        end: source.line_col(span.end),
        pointer,
        span,
        exact,
    })
}

/// What an entity is, from where it was read: `disk`, `partition`, `volume`, `storage-pool`,
/// `virtual-disk`, `raid-set`, `instance`, `database`, `file`, `host`; `entity` if unknown.
pub fn entity_kind(entity: &EntityRef) -> &'static str {
    let Some(origin) = entity.origins.first() else { return "entity" };
    let section =
        origin.pointer.rsplit('/').find(|t| !t.is_empty() && !t.bytes().all(|b| b.is_ascii_digit()));
    match section.unwrap_or("") {
        "host" => "host",
        "disks" => "disk",
        "partitions" => "partition",
        "volumes" => "volume",
        "storage_pools" => "storage-pool",
        "virtual_disks" => "virtual-disk",
        "raid_sets" => "raid-set",
        "sql_instances" => "instance",
        "databases" => "database",
        "files" => "file",
        _ => "entity",
    }
}

/// A finding's identity across runs, independent of files, lines and values: FNV-1a 64 (16
/// lowercase hex digits) of `code`, NUL, the entity key and, when the finding names a field,
/// NUL and the field. Baselines and SARIF `partialFingerprints` use it.
pub fn fingerprint(f: &Finding) -> String {
    format!("{:016x}", fingerprint_value(f))
}

/// [`fingerprint`] as the number its digits spell.
pub fn fingerprint_value(f: &Finding) -> u64 {
    let mut bytes = Vec::with_capacity(f.code.len() + f.entity.key.len() + 32);
    bytes.extend_from_slice(f.code.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(f.entity.key.as_bytes());
    if let Some(field) = f.field.as_deref().filter(|f| !f.is_empty()) {
        bytes.push(0);
        bytes.extend_from_slice(field.as_bytes());
    }
    fnv1a64(&bytes)
}

/// Writes `value` pretty-printed (two-space steps), every line after the first indented by
/// `indent`, so pieces serialized one at a time nest like one document. The piece is built in
/// memory first: serde_json issues a write per token, which through a `dyn Write` costs more
/// than the serializing itself.
pub(crate) fn write_indented<W: Write + ?Sized, T: serde::Serialize + ?Sized>(
    out: &mut W,
    value: &T,
    indent: &str,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(16 << 10);
    serialize_indented(&mut buf, value, indent)?;
    out.write_all(&buf)
}

/// [`write_indented`] into a buffer.
pub(crate) fn serialize_indented<T: serde::Serialize + ?Sized>(
    buf: &mut Vec<u8>,
    value: &T,
    indent: &str,
) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(buf, NestedPretty::new(indent.as_bytes()));
    value.serialize(&mut ser).map_err(io::Error::other)
}

/// serde_json's pretty layout, shifted right by a base indentation.
struct NestedPretty<'a> {
    base: &'a [u8],
    depth: usize,
    has_value: bool,
}

impl<'a> NestedPretty<'a> {
    fn new(base: &'a [u8]) -> Self {
        NestedPretty { base, depth: 0, has_value: false }
    }

    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        w.write_all(self.base)?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl NestedPretty<'_> {
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
}

impl serde_json::ser::Formatter for NestedPretty<'_> {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The order writers must be driven in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    New,
    Begun,
    Finished,
}

impl Stage {
    pub(crate) fn expect(self, want: Stage, call: &str) -> io::Result<()> {
        if self == want {
            Ok(())
        } else {
            Err(io::Error::other(format!("report writer: {call} called out of order ({self:?})")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_core::finding::AppliedWaiver;
    use spindle_core::view::Origin;

    /// A warning of `code` on the entity `key`, with nothing else (other modules' tests too).
    pub(crate) fn finding(code: &str, key: &str, field: Option<&str>) -> Finding {
        Finding {
            code: code.into(),
            rule: "r".into(),
            severity: Severity::Warning,
            message: String::new(),
            measured: None,
            expected: None,
            measured_quantity: None,
            expected_quantity: None,
            entity: EntityRef { key: key.into(), label: String::new(), origins: vec![] },
            field: field.map(Into::into),
            fix: String::new(),
            gain: None,
            waiver: None,
            baseline: None,
        }
    }

    #[test]
    fn categories() {
        assert_eq!(category_of("ALN001"), "ALN");
        assert_eq!(category_of("acme/NAM001"), "acme/NAM");
        assert_eq!(category_of("x9/AB"), "x9/AB");
    }

    #[test]
    fn fnv_known_values() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn fingerprints_are_stable_and_distinct() {
        let a = fingerprint(&finding("ALN001", "sql01/disk:1/partition:1", Some("offset_bytes")));
        assert_eq!(a.len(), 16);
        assert_eq!(a, fingerprint(&finding("ALN001", "sql01/disk:1/partition:1", Some("offset_bytes"))));
        assert_ne!(a, fingerprint(&finding("ALN001", "sql01/disk:1/partition:1", None)));
        assert_ne!(a, fingerprint(&finding("ALN002", "sql01/disk:1/partition:1", Some("offset_bytes"))));
        // The separator keeps code and key apart.
        assert_ne!(fingerprint(&finding("A", "Bc", None)), fingerprint(&finding("AB", "c", None)));
    }

    #[test]
    fn summary_counts_waivers() {
        let mut waived = finding("A1", "k", None);
        waived.waiver =
            Some(AppliedWaiver { reason: "r".into(), expires: None, source: "p".into(), expired: false });
        let mut expired = waived.clone();
        expired.waiver.as_mut().unwrap().expired = true;
        expired.severity = Severity::Error;
        let report = HostReport {
            host: "h".into(),
            findings: vec![finding("A1", "k", None), waived, expired],
            ..Default::default()
        };
        let mut s = Summary::default();
        s.add(&report);
        assert_eq!((s.hosts, s.errors, s.warnings, s.waived, s.expired_waivers), (1, 1, 1, 1, 1));
        assert_eq!(s.worst(), Some(Severity::Error));
        assert!(!s.incomplete());
    }

    #[test]
    fn summary_counts_baseline_states() {
        let with = |state, waived: bool, severity| {
            let mut f = finding("A1", "k", None);
            f.baseline = Some(state);
            f.severity = severity;
            f.waiver = waived.then(|| AppliedWaiver {
                reason: "r".into(),
                expires: None,
                source: "p".into(),
                expired: false,
            });
            f
        };
        let report = HostReport {
            host: "h".into(),
            findings: vec![
                with(BaselineState::New, false, Severity::Error),
                with(BaselineState::New, false, Severity::Note),
                with(BaselineState::New, true, Severity::Error),
                with(BaselineState::Unchanged, false, Severity::Error),
                with(BaselineState::Unchanged, true, Severity::Warning),
            ],
            ..Default::default()
        };
        let mut s = Summary::default();
        s.add(&report);
        let b = s.baseline.unwrap();
        assert_eq!((b.new, b.new_errors, b.new_warnings, b.new_notes, b.unchanged), (2, 1, 0, 1, 2));
        let mut run = Summary::default();
        run.merge(&s);
        run.merge(&s);
        assert_eq!(run.baseline.unwrap().new, 4);
        let mut none = Summary::default();
        none.add(&HostReport { findings: vec![finding("A1", "k", None)], ..Default::default() });
        assert_eq!(none.baseline, None, "no baseline, no counts");
    }

    #[test]
    fn what_makes_a_run_incomplete() {
        let with = |f: fn(&mut Summary)| {
            let mut s = Summary::default();
            f(&mut s);
            s.incomplete()
        };
        assert!(!with(|_| {}));
        assert!(with(|s| s.rule_errors = 1));
        assert!(with(|s| s.hosts_not_judged = 1));
        assert!(with(|s| s.collection_errors = 1));
        assert!(!with(|s| (s.collection_errors, s.unreachable_allowed) = (1, true)));
        assert!(with(|s| (s.collection_errors, s.unreachable_allowed, s.hosts_not_judged) = (1, true, 1)));
        // Neither kind of declined judgement makes a run incomplete.
        assert!(!with(|s| (s.not_evaluated, s.not_applicable) = (3, 4)));
        let mut merged = Summary { unreachable_allowed: true, ..Default::default() };
        merged.merge(&Summary {
            collection_errors: 2,
            not_applicable: 1,
            hosts_not_judged: 1,
            ..Default::default()
        });
        assert_eq!((merged.collection_errors, merged.not_applicable, merged.hosts_not_judged), (2, 1, 1));
        assert!(merged.unreachable_allowed);
    }

    #[test]
    fn kinds_from_origins() {
        let e = |p: &str| EntityRef {
            key: String::new(),
            label: String::new(),
            origins: vec![Origin { doc: 0, pointer: p.into() }],
        };
        assert_eq!(entity_kind(&e("/host")), "host");
        assert_eq!(entity_kind(&e("/partitions/3")), "partition");
        assert_eq!(entity_kind(&e("/sql_instances/0/databases/2/files/11")), "file");
        assert_eq!(entity_kind(&e("/sql_instances/0/databases/2")), "database");
    }

    #[test]
    fn doc_sections() {
        let r = RuleInfo {
            code: "X1".into(),
            name: "x".into(),
            severity: Severity::Note,
            category: "X".into(),
            summary: "s".into(),
            docs: "## What it checks\nA thing.\n\n## How to fix\nFix it.\n".into(),
            impact: Default::default(),
        };
        assert_eq!(r.doc_section("What it checks"), Some("A thing."));
        assert_eq!(r.doc_section("How to fix"), Some("Fix it."));
        assert_eq!(r.doc_section("References"), None);
    }
}
