//! The JSON report: spindle's own stable, documented format (`docs/report-json.md`).
//!
//! Streamed: the header and rules on `begin`, one host object per `host` call, the summary on
//! `finish`. Every key is always present (`null` when there is no value), so consumers can rely
//! on the shape. Adding keys is compatible; renaming or removing one bumps `report_version`.

use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;

use super::baseline::BaselineEntry;
use super::emit::Emit;
use super::provenance::{AppliedParam, RunProvenance};
use super::{
    FactLocation, HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Stage, Summary, entity_kind,
    fingerprint, locate_finding, locate_not_applicable, locate_not_evaluated, write_indented,
};
use spindle_core::engine::HostReport;
use spindle_core::finding::{Finding, NotApplicable, NotEvaluated, Quantity};
use spindle_core::gain::Gain;
use spindle_core::view::{EntityRef, HostView};

/// The version of the JSON report format this writer produces. 3: the run's provenance
/// (`started_at`, `packs`, each rule's `params`), each host's `snapshots` and `passed`, each
/// finding's `quantities`, and the summary's `passed` (docs/report-json.md, "Versions").
pub const REPORT_VERSION: u32 = 3;

/// Writes the JSON report to `out` as the run goes.
pub struct JsonWriter<W: Write> {
    out: W,
    spindle_version: String,
    stage: Stage,
    hosts: usize,
    run: RunProvenance,
    not_checked: Vec<BaselineEntry>,
}

impl<W: Write> JsonWriter<W> {
    /// `spindle_version` is recorded in the report (the CLI passes its own version).
    pub fn new(out: W, spindle_version: &str) -> Self {
        JsonWriter {
            out,
            spindle_version: spindle_version.to_string(),
            stage: Stage::New,
            hosts: 0,
            run: RunProvenance::default(),
            not_checked: vec![],
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[derive(Serialize)]
struct JsonRule<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'static str,
    category: &'a str,
    summary: &'a str,
    docs: &'a str,
    params: Vec<JsonParam<'a>>,
}

#[derive(Serialize)]
struct JsonParam<'a> {
    name: &'a str,
    value: serde_json::Value,
    default: serde_json::Value,
    set_by: Option<&'a str>,
}

// A host object and the types inside it are written by hand (`emit`), each member in
// declaration order; serde's derive is the tests' reference for the layout.
#[cfg_attr(test, derive(Serialize))]
struct JsonHost<'a> {
    host: &'a str,
    sources: Vec<&'a str>,
    snapshots: Vec<JsonSnapshot<'a>>,
    rules_run: usize,
    /// Why spindle could not judge the host; `null` when it could.
    not_judged: Option<String>,
    /// Sections two files of the host both carried, and which file was used for them.
    stale_facts: Vec<JsonStale<'a>>,
    findings: Vec<JsonFinding<'a>>,
    not_evaluated: Vec<JsonNotEvaluated<'a>>,
    not_applicable: Vec<JsonNotApplicable<'a>>,
    passed: Vec<JsonPassed<'a>>,
    errors: Vec<JsonError<'a>>,
    /// Why the host's facts could not be collected; `null` when they were.
    collection_error: Option<&'a str>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonStale<'a> {
    older: &'a str,
    older_collected_at: Option<&'a str>,
    newer: &'a str,
    newer_collected_at: Option<&'a str>,
    collectors: Vec<&'a str>,
    sections: Vec<&'a str>,
    message: String,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonSnapshot<'a> {
    path: &'a str,
    collected_at: Option<&'a str>,
    collectors: Vec<JsonCollector<'a>>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonCollector<'a> {
    name: &'a str,
    version: Option<&'a str>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonPassed<'a> {
    code: &'a str,
    rule: &'a str,
    /// The entities' keys only: a fleet host passes some 270 (rule, entity) pairs, and with
    /// labels and kinds they tripled the size of a fleet report.
    keys: Vec<&'a str>,
}

/// What fixing a finding is expected to gain: the range in percent (both ends positive, `better`
/// says which way), the value after the fix keyed `low_<unit>` and `high_<unit>` when the
/// evidence gives one, and the public measurement behind it.
#[cfg_attr(test, derive(Serialize))]
struct JsonGain<'a> {
    metric: &'a str,
    better: &'static str,
    #[cfg_attr(test, serde(serialize_with = "number"))]
    low_percent: f64,
    #[cfg_attr(test, serde(serialize_with = "number"))]
    high_percent: f64,
    /// `{"low_ms": 0.1, "high_ms": 3.1}`: the metric after the fix.
    after: Option<JsonQuantities>,
    assumptions: &'a str,
    evidence: &'a str,
    url: &'a str,
}

impl<'a> From<&'a Gain> for JsonGain<'a> {
    fn from(g: &'a Gain) -> Self {
        JsonGain {
            metric: &g.metric,
            better: g.better.as_str(),
            low_percent: g.low_percent,
            high_percent: g.high_percent,
            after: g.after.map(|(low, high)| JsonQuantities::after(low, high)),
            assumptions: &g.assumptions,
            evidence: &g.evidence,
            url: &g.url,
        }
    }
}

impl JsonGain<'_> {
    fn emit(this: Option<&Self>, e: &mut Emit<'_>) {
        let Some(g) = this else { return e.null() };
        e.open(b'{');
        e.str_member("metric", g.metric);
        e.str_member("better", g.better);
        e.key("low_percent");
        e.number(g.low_percent);
        e.key("high_percent");
        e.number(g.high_percent);
        e.key("after");
        match &g.after {
            Some(a) => a.emit(e),
            None => e.null(),
        }
        e.str_member("assumptions", g.assumptions);
        e.str_member("evidence", g.evidence);
        e.str_member("url", g.url);
        e.close(b'}');
    }
}

/// Numbers keyed by role and unit: a finding's `measured_<unit>` and `expected_<unit>`, a gain's
/// `low_<unit>` and `high_<unit>`.
struct JsonQuantities {
    roles: [&'static str; 2],
    values: [Option<Quantity>; 2],
}

impl JsonQuantities {
    fn finding(measured: Option<Quantity>, expected: Option<Quantity>) -> Self {
        JsonQuantities { roles: ["measured", "expected"], values: [measured, expected] }
    }

    fn after(low: Quantity, high: Quantity) -> Self {
        JsonQuantities { roles: ["low", "high"], values: [Some(low), Some(high)] }
    }

    fn entries(&self) -> impl Iterator<Item = (&'static str, f64)> {
        self.roles
            .into_iter()
            .zip(self.values)
            .filter_map(|(role, q)| q.map(|q| (quantity_key(role, q), q.value)))
    }

    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        for (k, v) in self.entries() {
            e.key(k);
            e.number(v);
        }
        e.close(b'}');
    }
}

/// A number as the emitter writes it (`60`, not `60.0`).
#[cfg(test)]
fn number<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    super::emit::number_value(*v).serialize(s)
}

#[cfg(test)]
impl Serialize for JsonQuantities {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.entries() {
            m.serialize_entry(k, &super::emit::number_value(v))?;
        }
        m.end()
    }
}

/// `measured_bytes`, `expected_ms`, ...: the unit in the key's name, as in the snapshot.
fn quantity_key(role: &'static str, q: Quantity) -> &'static str {
    use spindle_core::finding::Unit::*;
    match (role, q.unit) {
        ("measured", Bytes) => "measured_bytes",
        ("measured", Ms) => "measured_ms",
        ("measured", Percent) => "measured_percent",
        ("measured", Count) => "measured_count",
        ("low", Bytes) => "low_bytes",
        ("low", Ms) => "low_ms",
        ("low", Percent) => "low_percent",
        ("low", Count) => "low_count",
        ("high", Bytes) => "high_bytes",
        ("high", Ms) => "high_ms",
        ("high", Percent) => "high_percent",
        ("high", Count) => "high_count",
        (_, Bytes) => "expected_bytes",
        (_, Ms) => "expected_ms",
        (_, Percent) => "expected_percent",
        (_, Count) => "expected_count",
    }
}

#[cfg_attr(test, derive(Serialize))]
struct JsonEntity<'a> {
    key: &'a str,
    label: &'a str,
    kind: &'static str,
}

impl<'a> JsonEntity<'a> {
    fn new(e: &'a EntityRef) -> Self {
        JsonEntity { key: &e.key, label: &e.label, kind: entity_kind(e) }
    }
}

#[cfg_attr(test, derive(Serialize))]
struct JsonLocation {
    path: String,
    pointer: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    exact: bool,
}

impl From<FactLocation> for JsonLocation {
    fn from(l: FactLocation) -> Self {
        JsonLocation {
            path: l.path,
            pointer: l.pointer,
            line: l.start.0,
            column: l.start.1,
            end_line: l.end.0,
            end_column: l.end.1,
            exact: l.exact,
        }
    }
}

#[cfg_attr(test, derive(Serialize))]
struct JsonWaiver<'a> {
    reason: &'a str,
    expires: Option<&'a str>,
    source: &'a str,
    expired: bool,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonFinding<'a> {
    code: &'a str,
    rule: &'a str,
    severity: &'static str,
    message: &'a str,
    measured: Option<&'a str>,
    expected: Option<&'a str>,
    quantities: JsonQuantities,
    entity: JsonEntity<'a>,
    field: Option<&'a str>,
    location: Option<JsonLocation>,
    fix: &'a str,
    gain: Option<JsonGain<'a>>,
    waived: bool,
    waiver: Option<JsonWaiver<'a>>,
    fingerprint: String,
    /// `new` or `unchanged`, with `--baseline` only.
    #[cfg_attr(test, serde(skip_serializing_if = "Option::is_none"))]
    baseline: Option<&'static str>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonNotEvaluated<'a> {
    code: &'a str,
    rule: &'a str,
    entity: Option<JsonEntity<'a>>,
    missing: &'a str,
    reason: Option<&'a str>,
    location: Option<JsonLocation>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonNotApplicable<'a> {
    code: &'a str,
    rule: &'a str,
    entity: JsonEntity<'a>,
    field: &'a str,
    reason: &'a str,
    location: Option<JsonLocation>,
}

#[cfg_attr(test, derive(Serialize))]
struct JsonError<'a> {
    code: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonSummary {
    hosts: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    waived: usize,
    expired_waivers: usize,
    not_evaluated: usize,
    not_applicable: usize,
    passed: usize,
    rule_errors: usize,
    collection_errors: usize,
    hosts_not_judged: usize,
    unreachable_allowed: bool,
    incomplete: bool,
    /// With `--baseline` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<JsonBaseline>,
}

/// The run against its baseline: findings that count and are new, findings found again, the
/// baseline's findings the run looked for and did not find (`absent`: fixed), and those it did
/// not look for (`not_checked`: their host not in the run, or their rule not run on it), listed.
#[derive(Serialize)]
struct JsonBaseline {
    new: usize,
    unchanged: usize,
    absent: usize,
    not_checked: usize,
    not_checked_findings: Vec<BaselineEntry>,
}

// The host objects are written by hand (see `emit`), in the order and layout serde's derive
// gives them; `rendered_hosts_match_serde` checks the two agree.
impl JsonHost<'_> {
    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        e.str_member("host", self.host);
        e.array_member("sources", &self.sources, |e, s| e.str(s));
        e.array_member("snapshots", &self.snapshots, |e, s| {
            e.open(b'{');
            e.str_member("path", s.path);
            e.opt_str_member("collected_at", s.collected_at);
            e.array_member("collectors", &s.collectors, |e, c| {
                e.open(b'{');
                e.str_member("name", c.name);
                e.opt_str_member("version", c.version);
                e.close(b'}');
            });
            e.close(b'}');
        });
        e.key("rules_run");
        e.num(self.rules_run);
        e.opt_str_member("not_judged", self.not_judged.as_deref());
        e.array_member("stale_facts", &self.stale_facts, |e, s| {
            e.open(b'{');
            e.str_member("older", s.older);
            e.opt_str_member("older_collected_at", s.older_collected_at);
            e.str_member("newer", s.newer);
            e.opt_str_member("newer_collected_at", s.newer_collected_at);
            e.array_member("collectors", &s.collectors, |e, c| e.str(c));
            e.array_member("sections", &s.sections, |e, c| e.str(c));
            e.str_member("message", &s.message);
            e.close(b'}');
        });
        e.array_member("findings", &self.findings, |e, f| f.emit(e));
        e.array_member("not_evaluated", &self.not_evaluated, |e, n| n.emit(e));
        e.array_member("not_applicable", &self.not_applicable, |e, n| n.emit(e));
        e.array_member("passed", &self.passed, |e, p| {
            e.open(b'{');
            e.str_member("code", p.code);
            e.str_member("rule", p.rule);
            e.array_member("keys", &p.keys, |e, k| e.str(k));
            e.close(b'}');
        });
        e.array_member("errors", &self.errors, |e, x| {
            e.open(b'{');
            e.str_member("code", x.code);
            e.str_member("message", x.message);
            e.close(b'}');
        });
        e.opt_str_member("collection_error", self.collection_error);
        e.close(b'}');
    }
}

impl JsonEntity<'_> {
    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        e.str_member("key", self.key);
        e.str_member("label", self.label);
        e.str_member("kind", self.kind);
        e.close(b'}');
    }
}

impl JsonLocation {
    fn emit(this: Option<&Self>, e: &mut Emit<'_>) {
        let Some(l) = this else { return e.null() };
        e.open(b'{');
        e.str_member("path", &l.path);
        e.str_member("pointer", &l.pointer);
        e.key("line");
        e.num(l.line);
        e.key("column");
        e.num(l.column);
        e.key("end_line");
        e.num(l.end_line);
        e.key("end_column");
        e.num(l.end_column);
        e.key("exact");
        e.bool(l.exact);
        e.close(b'}');
    }
}

impl JsonFinding<'_> {
    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        e.str_member("code", self.code);
        e.str_member("rule", self.rule);
        e.str_member("severity", self.severity);
        e.str_member("message", self.message);
        e.opt_str_member("measured", self.measured);
        e.opt_str_member("expected", self.expected);
        e.key("quantities");
        self.quantities.emit(e);
        e.key("entity");
        self.entity.emit(e);
        e.opt_str_member("field", self.field);
        e.key("location");
        JsonLocation::emit(self.location.as_ref(), e);
        e.str_member("fix", self.fix);
        e.key("gain");
        JsonGain::emit(self.gain.as_ref(), e);
        e.key("waived");
        e.bool(self.waived);
        e.key("waiver");
        match &self.waiver {
            Some(w) => {
                e.open(b'{');
                e.str_member("reason", w.reason);
                e.opt_str_member("expires", w.expires);
                e.str_member("source", w.source);
                e.key("expired");
                e.bool(w.expired);
                e.close(b'}');
            }
            None => e.null(),
        }
        e.str_member("fingerprint", &self.fingerprint);
        if let Some(state) = self.baseline {
            e.str_member("baseline", state);
        }
        e.close(b'}');
    }
}

impl JsonNotEvaluated<'_> {
    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        e.str_member("code", self.code);
        e.str_member("rule", self.rule);
        e.key("entity");
        match &self.entity {
            Some(x) => x.emit(e),
            None => e.null(),
        }
        e.str_member("missing", self.missing);
        e.opt_str_member("reason", self.reason);
        e.key("location");
        JsonLocation::emit(self.location.as_ref(), e);
        e.close(b'}');
    }
}

impl JsonNotApplicable<'_> {
    fn emit(&self, e: &mut Emit<'_>) {
        e.open(b'{');
        e.str_member("code", self.code);
        e.str_member("rule", self.rule);
        e.key("entity");
        self.entity.emit(e);
        e.str_member("field", self.field);
        e.str_member("reason", self.reason);
        e.key("location");
        JsonLocation::emit(self.location.as_ref(), e);
        e.close(b'}');
    }
}

impl<W: Write> JsonWriter<W> {
    fn write_host(&mut self, host: &[u8]) -> io::Result<()> {
        let out = &mut self.out;
        let sep: &[u8] = if self.hosts == 0 { b"\n    " } else { b",\n    " };
        out.write_all(sep)?;
        out.write_all(host)?;
        self.hosts += 1;
        Ok(())
    }
}

/// Renders hosts for [`JsonWriter`]: a host's object, as it sits in the `hosts` array.
struct JsonRender;

impl Render for JsonRender {
    fn render_in(&self, view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let host = JsonHost {
            host: &report.host,
            sources: view.docs.iter().map(|d| d.path.as_str()).collect(),
            snapshots: snapshots(view),
            rules_run: report.rules_run,
            not_judged: (!report.not_judged.is_empty()).then(|| report.not_judged.join("; ")),
            stale_facts: stale_facts(view, &report.host),
            findings: report.findings.iter().map(|f| finding(view, f)).collect(),
            not_evaluated: report.not_evaluated.iter().map(|n| not_evaluated(view, n)).collect(),
            not_applicable: report.not_applicable.iter().map(|n| not_applicable(view, n)).collect(),
            passed: report
                .passed
                .iter()
                .map(|p| JsonPassed {
                    code: &p.code,
                    rule: &p.rule,
                    keys: p.keys.iter().map(String::as_str).collect(),
                })
                .collect(),
            errors: report.errors.iter().map(|e| JsonError { code: &e.code, message: &e.message }).collect(),
            collection_error: None,
        };
        let mut out = Rendered::new();
        out.part(Part::Host, |buf| {
            host.emit(&mut Emit::new(buf, "    "));
            io::Result::Ok(())
        })?;
        Ok(out)
    }
}

/// The host's snapshot files, each with when and by what it was collected.
fn snapshots(view: &HostView) -> Vec<JsonSnapshot<'_>> {
    view.docs
        .iter()
        .zip(&view.provenance)
        .map(|(d, p)| JsonSnapshot {
            path: &d.path,
            collected_at: p.collected_at.as_deref(),
            collectors: view.collectors[p.collectors.clone()]
                .iter()
                .map(|c| JsonCollector { name: &c.name, version: c.version.as_deref() })
                .collect(),
        })
        .collect()
}

/// Snapshots of the host whose facts a newer one overrode.
fn stale_facts<'a>(view: &'a HostView, host: &str) -> Vec<JsonStale<'a>> {
    view.stale
        .iter()
        .map(|s| JsonStale {
            older: &s.older,
            older_collected_at: s.older_collected_at.as_deref(),
            newer: &s.newer,
            newer_collected_at: s.newer_collected_at.as_deref(),
            collectors: s.collectors.iter().map(String::as_str).collect(),
            sections: s.sections.clone(),
            message: s.message(host),
        })
        .collect()
}

fn finding<'a>(view: &HostView, f: &'a Finding) -> JsonFinding<'a> {
    JsonFinding {
        code: &f.code,
        rule: &f.rule,
        severity: f.severity.as_str(),
        message: &f.message,
        measured: f.measured.as_deref(),
        expected: f.expected.as_deref(),
        quantities: JsonQuantities::finding(f.measured_quantity, f.expected_quantity),
        entity: JsonEntity::new(&f.entity),
        field: f.field.as_deref(),
        location: locate_finding(view, f).map(Into::into),
        fix: &f.fix,
        gain: f.gain.as_ref().map(JsonGain::from),
        waived: f.is_waived(),
        waiver: f.waiver.as_ref().map(|w| JsonWaiver {
            reason: &w.reason,
            expires: w.expires.as_deref(),
            source: &w.source,
            expired: w.expired,
        }),
        fingerprint: fingerprint(f),
        baseline: f.baseline.map(|b| b.as_str()),
    }
}

fn not_evaluated<'a>(view: &HostView, n: &'a NotEvaluated) -> JsonNotEvaluated<'a> {
    JsonNotEvaluated {
        code: &n.code,
        rule: &n.rule,
        entity: n.entity.as_ref().map(JsonEntity::new),
        missing: &n.missing,
        reason: n.reason.as_deref(),
        location: locate_not_evaluated(view, n).map(Into::into),
    }
}

fn not_applicable<'a>(view: &HostView, n: &'a NotApplicable) -> JsonNotApplicable<'a> {
    JsonNotApplicable {
        code: &n.code,
        rule: &n.rule,
        entity: JsonEntity::new(&n.entity),
        field: &n.field,
        reason: &n.reason,
        location: locate_not_applicable(view, n).map(Into::into),
    }
}

impl<W: Write> ReportWriter for JsonWriter<W> {
    fn provenance(&mut self, run: &RunProvenance) {
        self.run = run.clone();
    }

    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.stage.expect(Stage::New, "begin")?;
        self.stage = Stage::Begun;
        let rules: Vec<JsonRule<'_>> = rules
            .iter()
            .map(|r| JsonRule {
                code: &r.code,
                name: &r.name,
                severity: r.severity.as_str(),
                category: &r.category,
                summary: &r.summary,
                docs: &r.docs,
                params: self
                    .run
                    .rules
                    .iter()
                    .find(|p| p.code == r.code)
                    .into_iter()
                    .flat_map(|p| &p.params)
                    .map(|p| JsonParam {
                        name: &p.name,
                        value: AppliedParam::json(&p.value),
                        default: AppliedParam::json(&p.default),
                        set_by: p.set_by.as_deref(),
                    })
                    .collect(),
            })
            .collect();
        let out = &mut self.out;
        out.write_all(b"{\n  \"spindle_version\": ")?;
        serde_json::to_writer(&mut *out, &self.spindle_version).map_err(io::Error::other)?;
        write!(out, ",\n  \"report_version\": {REPORT_VERSION},\n  \"started_at\": ")?;
        let started = Some(self.run.started_at.as_str()).filter(|s| !s.is_empty());
        serde_json::to_writer(&mut *out, &started).map_err(io::Error::other)?;
        out.write_all(b",\n  \"packs\": ")?;
        write_indented(out, &self.run.packs, "  ")?;
        out.write_all(b",\n  \"rules\": ")?;
        write_indented(out, &rules, "  ")?;
        out.write_all(b",\n  \"hosts\": [")
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(JsonRender)
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "host")?;
        for (_, bytes) in host.parts() {
            self.write_host(bytes)?;
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "collection_error")?;
        let host = JsonHost {
            host: source,
            sources: vec![],
            snapshots: vec![],
            rules_run: 0,
            not_judged: None,
            stale_facts: vec![],
            findings: vec![],
            not_evaluated: vec![],
            not_applicable: vec![],
            passed: vec![],
            errors: vec![],
            collection_error: Some(message),
        };
        let mut buf = Vec::new();
        host.emit(&mut Emit::new(&mut buf, "    "));
        self.write_host(&buf)
    }

    fn not_checked(&mut self, entries: Vec<BaselineEntry>) {
        self.not_checked = entries;
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "finish")?;
        self.stage = Stage::Finished;
        let s = JsonSummary {
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
            baseline: summary.baseline.map(|b| JsonBaseline {
                new: b.new,
                unchanged: b.unchanged,
                absent: b.fixed,
                not_checked: b.not_checked,
                not_checked_findings: std::mem::take(&mut self.not_checked),
            }),
        };
        let out = &mut self.out;
        let close: &[u8] = if self.hosts == 0 { b"]" } else { b"\n  ]" };
        out.write_all(close)?;
        out.write_all(b",\n  \"summary\": ")?;
        write_indented(out, &s, "  ")?;
        out.write_all(b"\n}\n")?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::serialize_indented;
    use super::*;

    fn both(host: &JsonHost<'_>) -> (String, String) {
        let mut by_hand = vec![];
        host.emit(&mut Emit::new(&mut by_hand, "    "));
        let mut by_serde = vec![];
        serialize_indented(&mut by_serde, host, "    ").unwrap();
        (String::from_utf8(by_hand).unwrap(), String::from_utf8(by_serde).unwrap())
    }

    #[test]
    fn rendered_hosts_match_serde() {
        // Every byte below 0x80, quotes, backslashes, and text beyond ASCII.
        let ascii: String = (0u8..0x80).map(char::from).collect();
        let tricky = format!("{ascii} « D:\\SQLData\\ » \u{203a} \u{1f4be} \"q\" ");
        let entity = |key| JsonEntity { key, label: &tricky, kind: "file" };
        let location = || JsonLocation {
            path: tricky.clone(),
            pointer: "/sql_instances/0/databases/2/files/7/growth".into(),
            line: 1234,
            column: 0,
            end_line: usize::MAX,
            end_column: 7,
            exact: false,
        };
        let finding = |waived: bool, some: bool| JsonFinding {
            code: "GRW001",
            rule: "no-percent-growth",
            severity: "warning",
            message: &tricky,
            measured: some.then_some("10 %"),
            expected: some.then_some(tricky.as_str()),
            quantities: JsonQuantities::finding(
                some.then_some(Quantity::percent(10.0)),
                some.then_some(Quantity::ms(149.4)),
            ),
            entity: entity("k"),
            field: some.then_some("growth"),
            location: some.then(location),
            fix: "ALTER DATABASE [x]\n\tMODIFY FILE (NAME = N'x', FILEGROWTH = 64MB);",
            gain: some.then(|| JsonGain {
                metric: &tricky,
                better: "lower",
                low_percent: 60.0,
                high_percent: 98.7,
                after: waived.then(|| JsonQuantities::after(Quantity::ms(0.1), Quantity::ms(3.1))),
                assumptions: &tricky,
                evidence: "e",
                url: "https://example.com/(x)",
            }),
            waived,
            waiver: waived.then(|| JsonWaiver {
                reason: &tricky,
                expires: some.then_some("2027-01-01"),
                source: "acme.toml",
                expired: !some,
            }),
            fingerprint: "19f27316e9de46e3".into(),
            baseline: some.then_some(if waived { "unchanged" } else { "new" }),
        };
        let hosts = [
            JsonHost {
                host: "sql01",
                sources: vec![],
                snapshots: vec![],
                rules_run: 0,
                not_judged: None,
                stale_facts: vec![],
                findings: vec![],
                not_evaluated: vec![],
                not_applicable: vec![],
                passed: vec![],
                errors: vec![],
                collection_error: Some(&tricky),
            },
            JsonHost {
                host: &tricky,
                sources: vec!["a.json", &tricky],
                snapshots: vec![
                    JsonSnapshot {
                        path: "a.json",
                        collected_at: Some("2026-11-30T06:40:12Z"),
                        collectors: vec![
                            JsonCollector { name: "wmi", version: Some(&tricky) },
                            JsonCollector { name: "sql", version: None },
                        ],
                    },
                    JsonSnapshot { path: &tricky, collected_at: None, collectors: vec![] },
                ],
                rules_run: 25,
                not_judged: Some(tricky.clone()),
                stale_facts: vec![JsonStale {
                    older: "a.json",
                    older_collected_at: None,
                    newer: &tricky,
                    newer_collected_at: Some(&tricky),
                    collectors: vec!["wmi", &tricky],
                    sections: vec!["disks", "partitions"],
                    message: tricky.clone(),
                }],
                findings: vec![
                    finding(false, true),
                    finding(true, true),
                    finding(true, false),
                    finding(false, false),
                ],
                not_evaluated: vec![
                    JsonNotEvaluated {
                        code: "LAT003",
                        rule: "latency-vs-media",
                        entity: Some(entity("e")),
                        missing: "media",
                        reason: Some(&tricky),
                        location: Some(location()),
                    },
                    JsonNotEvaluated {
                        code: "STR004",
                        rule: "raid-stripe-unit",
                        entity: None,
                        missing: "raid_sets",
                        reason: None,
                        location: None,
                    },
                ],
                not_applicable: vec![JsonNotApplicable {
                    code: "LAT001",
                    rule: "data-read-latency",
                    entity: entity("f"),
                    field: "io/num_of_reads",
                    reason: &tricky,
                    location: Some(location()),
                }],
                passed: vec![
                    JsonPassed {
                        code: "ALN001",
                        rule: "partition-offset-alignment",
                        keys: vec!["sql01/disk:0/partition:1"],
                    },
                    JsonPassed { code: "LAT001", rule: "data-read-latency", keys: vec![] },
                ],
                errors: vec![JsonError { code: "acme/*", message: &tricky }],
                collection_error: None,
            },
        ];
        for host in &hosts {
            let (by_hand, by_serde) = both(host);
            assert_eq!(by_hand, by_serde);
        }
    }
}
