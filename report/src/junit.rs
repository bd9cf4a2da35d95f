//! `--format junit`: JUnit XML, the checklist Azure DevOps, Jenkins and GitLab show as tests
//! (`docs/report-junit.md`).
//!
//! One `<testsuite>` per host, one `<testcase>` per rule of the run on it: a `<failure>` listing
//! the rule's findings that count, `<skipped>` with why when a fact it needs is missing (never a
//! pass), an `<error>` when the rule failed; passed otherwise, with what it verified and what was
//! waived in `<system-out>`. A host spindle could not judge, a rule error no rule of the run
//! claims, and a server that gave no facts are each an `<error>` test case too; a last suite,
//! `spindle`, has one test case that errs when the run is incomplete. So an incomplete run never
//! shows green.
//!
//! quick-junit builds a whole report in memory; a fleet's would grow with the fleet. Each host's
//! suite is therefore built and serialized alone (by quick-junit, inside a report of its own
//! from which the suite is taken) and the `<testsuites>` element around them is written here, so
//! the writer keeps nothing of a host once it is written. The wrapper carries no totals: they
//! would have to come before the suites. Consumers add up the suites' own.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use quick_xml::events::Event;
use quick_xml::{Reader, Writer};
use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding, NotEvaluated, RuleError, Severity};
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::ci::{Place, finding_lines, not_judged, repo_path, xml_chars};
use crate::text::run_summary;
use crate::{HostContext, Render, Rendered, ReportWriter, RuleInfo, Stage, Summary, locate_not_evaluated};

/// Characters of a `message` attribute: one line a CI system shows beside the test's name.
const MESSAGE_CHARS: usize = 512;

/// The suite a run's completeness is reported in, after the hosts'.
pub const RUN_SUITE: &str = "spindle";

pub struct JunitWriter<'w> {
    w: &'w mut dyn Write,
    stage: Stage,
    render: Arc<JunitRender>,
}

impl<'w> JunitWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        JunitWriter { w, stage: Stage::New, render: Arc::new(JunitRender { rules: vec![] }) }
    }

    /// Writes `suite` (serialized as quick-junit nests it in `<testsuites>`) into the output.
    fn write_suite(&mut self, suite: TestSuite) -> io::Result<()> {
        self.w.write_all(serialize_suite(suite)?.as_bytes())
    }
}

/// Renders hosts for [`JunitWriter`]: the rules of the run, `(code, name)`.
struct JunitRender {
    rules: Vec<(String, String)>,
}

/// One line for a `message` attribute: escaped, cut, newlines shown as `\n`.
fn one_line(s: &str) -> String {
    untrusted::head(s, MESSAGE_CHARS).into_owned()
}

/// A suite's XML, four spaces in as in `<testsuites>`, each line ended: quick-junit's own
/// serialization of a report holding only this suite, less the report around it.
fn serialize_suite(suite: TestSuite) -> io::Result<String> {
    let mut report = Report::unnamed();
    report.add_test_suite(suite);
    let xml = report.to_string().map_err(io::Error::other)?;
    let inner = String::from_utf8(suites_inner(&xml)?).map_err(io::Error::other)?;
    Ok(xml_chars(Cow::Owned(inner)).into_owned())
}

/// What `<testsuites>` holds from the line of its first `<testsuite>` on, as XML events read back
/// and written again unchanged: the indentation before the suite, the suite, the line end after.
fn suites_inner(xml: &str) -> io::Result<Vec<u8>> {
    let mut reader = Reader::from_str(xml);
    let mut out = Writer::new(Vec::new());
    // The whitespace since the last line end, written before the suite when one follows it.
    let mut indent: Vec<u8> = vec![];
    let mut copying = false;
    loop {
        let event = reader.read_event().map_err(io::Error::other)?;
        match &event {
            Event::Eof => return Err(io::Error::other("quick-junit wrote no <testsuite> in <testsuites>")),
            Event::End(e) if e.name().as_ref() == b"testsuites" => {
                return if copying { Ok(out.into_inner()) } else { Err(io::Error::other("no <testsuite>")) };
            }
            _ if copying => {}
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testsuite" => {
                out.get_mut().append(&mut indent);
                copying = true;
            }
            Event::Text(t) => {
                let raw: &[u8] = t;
                indent = raw.iter().rposition(|&b| b == b'\n').map_or(raw, |n| &raw[n + 1..]).to_vec();
                continue;
            }
            _ => {
                indent.clear();
                continue;
            }
        }
        out.write_event(event)?;
    }
}

/// Whether a rule error is the rule's: its code, or its plugin's (`acme/*`).
fn error_of(e: &RuleError, code: &str) -> bool {
    e.code == code || e.code.strip_suffix('*').is_some_and(|ns| ns.ends_with('/') && code.starts_with(ns))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn not_evaluated_line(view: &HostView, n: &NotEvaluated) -> String {
    let at =
        n.entity.as_ref().map_or_else(|| untrusted::name(view.host_name()), |e| untrusted::label(&e.label));
    let mut line = format!("{at}: {} is missing", untrusted::name(&n.missing));
    if let Some(r) = &n.reason {
        line.push_str(&format!(" ({})", untrusted::message(crate::reason::split(r).0)));
    }
    if let Some(l) = locate_not_evaluated(view, n) {
        line.push_str(&format!("\n  at {}", Place::from_location(&l).shown()));
    }
    for l in n.reason.as_deref().map(crate::reason::paste_lines).unwrap_or_default() {
        line.push_str(&format!("\n    {l}"));
    }
    line
}

fn error_case(name: &str, classname: &str, kind: &str, message: &str, description: String) -> TestCase {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    status.set_message(one_line(message)).set_type(kind).set_description(description);
    let mut case = TestCase::new(name, status);
    case.set_classname(classname);
    case
}

impl JunitRender {
    fn rule_case(
        &self,
        view: &HostView,
        report: &HostReport,
        host: &str,
        code: &str,
        name: &str,
    ) -> TestCase {
        let outcome = RuleOutcome::of(report, code);
        let status = outcome.status(view);
        let out = outcome.system_out(view, &status);
        let mut case = TestCase::new(format!("{} {}", untrusted::name(code), untrusted::name(name)), status);
        case.set_classname(host);
        if !out.is_empty() {
            case.set_system_out(out.join("\n"));
        }
        case
    }
}

/// What a host's report says about one rule.
struct RuleOutcome<'r> {
    findings: Vec<&'r Finding>,
    /// The findings not waived: those that fail the case.
    counting: Vec<&'r Finding>,
    errors: Vec<&'r RuleError>,
    not_evaluated: Vec<&'r NotEvaluated>,
    not_applicable: usize,
    /// Entities judged and found right.
    passed: usize,
}

impl<'r> RuleOutcome<'r> {
    fn of(report: &'r HostReport, code: &str) -> Self {
        let findings: Vec<&Finding> = report.findings.iter().filter(|f| f.code == code).collect();
        RuleOutcome {
            counting: findings.iter().copied().filter(|f| !f.is_waived()).collect(),
            findings,
            errors: report.errors.iter().filter(|e| error_of(e, code)).collect(),
            not_evaluated: report.not_evaluated.iter().filter(|n| n.code == code).collect(),
            not_applicable: report.not_applicable.iter().filter(|n| n.code == code).count(),
            passed: report.passed.iter().filter(|p| p.code == code).map(|p| p.keys.len()).sum::<usize>(),
        }
    }

    /// The case's status: erred, else failed, else skipped (not evaluated), else passed.
    fn status(&self, view: &HostView) -> TestCaseStatus {
        let RuleOutcome { counting, errors, not_evaluated, .. } = self;
        if !errors.is_empty() {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            let messages: Vec<String> =
                errors.iter().map(|e| untrusted::message_keeping_lines(&e.message).into_owned()).collect();
            status
                .set_message(one_line(&format!("rule error: {}", errors[0].message)))
                .set_type("rule-error")
                .set_description(messages.join("\n"));
            status
        } else if !counting.is_empty() {
            let worst = counting.iter().map(|f| f.severity).max().unwrap_or(Severity::Note);
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let mut message = plural(counting.len(), "finding", "findings");
            if counting.iter().any(|f| f.baseline.is_some()) {
                let new = counting.iter().filter(|f| f.baseline == Some(BaselineState::New)).count();
                message.push_str(&format!(": {new} new, {} unchanged", counting.len() - new));
            }
            status
                .set_message(format!("{message} ({worst} at worst)"))
                .set_type(worst.as_str())
                .set_description(finding_lines_marked(view, counting));
            status
        } else if let Some(first) = not_evaluated.first() {
            let mut status = TestCaseStatus::skipped();
            let mut why = format!("not evaluated: {} is missing", first.missing);
            if let Some(r) = &first.reason {
                why.push_str(&format!(" ({})", crate::reason::split(r).0));
            }
            if not_evaluated.len() > 1 {
                why.push_str(&format!(", and {} more", not_evaluated.len() - 1));
            }
            let all: Vec<String> = not_evaluated.iter().map(|n| not_evaluated_line(view, n)).collect();
            status.set_message(one_line(&why)).set_type("not-evaluated").set_description(all.join("\n"));
            status
        } else {
            TestCaseStatus::success()
        }
    }

    /// What the case's `<system-out>` says beside its status.
    fn system_out(&self, view: &HostView, status: &TestCaseStatus) -> Vec<String> {
        let RuleOutcome { findings, counting, errors, not_evaluated, not_applicable, passed } = self;
        let (not_applicable, passed) = (*not_applicable, *passed);
        let lines = |fs: &[&Finding]| finding_lines_marked(view, fs);
        let mut out = vec![];
        if passed > 0 {
            out.push(format!("passed: {} judged and found right", plural(passed, "entity", "entities")));
        }
        let waived: Vec<&Finding> = findings.iter().copied().filter(|f| f.is_waived()).collect();
        if !waived.is_empty() {
            out.push(format!(
                "{} waived, not failures:\n{}",
                plural(waived.len(), "finding", "findings"),
                lines(&waived)
            ));
        }
        if !errors.is_empty() && !counting.is_empty() {
            out.push(format!("findings before the error:\n{}", lines(counting)));
        }
        // Not the case's status (it failed or erred first): said here so it is not lost.
        let judged_otherwise = !counting.is_empty() || !errors.is_empty();
        if !not_evaluated.is_empty() && judged_otherwise {
            out.push(format!("{} not evaluated", plural(not_evaluated.len(), "check", "checks")));
        }
        if not_applicable > 0 {
            out.push(format!(
                "{} not applicable (the rule declined to judge)",
                plural(not_applicable, "entity", "entities")
            ));
        }
        if out.is_empty() && matches!(status, TestCaseStatus::Success { .. }) {
            out.push("no findings; the rule reported no entity it judged on this host".to_string());
        }
        out
    }
}

/// Findings a line each; against a baseline, each says whether it is new, as the text report
/// marks it.
fn finding_lines_marked(view: &HostView, fs: &[&Finding]) -> String {
    fs.iter()
        .map(|f| {
            let lines = finding_lines(f, &Place::of_finding(view, f));
            match f.baseline {
                Some(BaselineState::New) => format!("[new] {lines}"),
                Some(BaselineState::Unchanged) => format!("[unchanged] {lines}"),
                None => lines,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Render for JunitRender {
    fn render_in(&self, view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let host = untrusted::name(&report.host);
        let mut suite = TestSuite::new(host.as_ref());
        if let Some(why) = not_judged(report) {
            let files: Vec<String> = view.docs.iter().map(|d| repo_path(&d.path)).collect();
            suite.add_test_case(error_case(
                "host judged",
                &host,
                "host-not-judged",
                &format!("spindle could not judge this host: {why}"),
                format!("{why}\nsnapshot files: {}", untrusted::escape_for_terminal(&files.join(", "))),
            ));
        }
        for (code, name) in &self.rules {
            suite.add_test_case(self.rule_case(view, report, &host, code, name));
        }
        // A rule error no rule of the run claims (a plugin that failed before naming its rules).
        for e in report.errors.iter().filter(|e| !self.rules.iter().any(|(code, _)| error_of(e, code))) {
            suite.add_test_case(error_case(
                &format!("{} (rule error)", untrusted::name(&e.code)),
                &host,
                "rule-error",
                &format!("rule error: {}", e.message),
                untrusted::message_keeping_lines(&e.message).into_owned(),
            ));
        }
        let xml = serialize_suite(suite)?;
        Rendered::one_block(|buf| buf.write_all(xml.as_bytes()))
    }
}

impl ReportWriter for JunitWriter<'_> {
    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.stage.expect(Stage::New, "begin")?;
        self.stage = Stage::Begun;
        self.render =
            Arc::new(JunitRender { rules: rules.iter().map(|r| (r.code.clone(), r.name.clone())).collect() });
        self.w.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"spindle\">\n")
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.render.clone()
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "host")?;
        host.write_to(&mut self.w)
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "collection_error")?;
        let source = untrusted::name(source);
        let mut suite = TestSuite::new(source.as_ref());
        suite.add_test_case(error_case(
            "facts collected",
            &source,
            "collection-error",
            &format!("no facts collected: {message}"),
            untrusted::message_keeping_lines(message).into_owned(),
        ));
        self.write_suite(suite)
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "finish")?;
        self.stage = Stage::Finished;
        let line = run_summary(summary);
        let status = if summary.incomplete() {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(format!("the run is incomplete: {line}")).set_type("incomplete");
            status
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new("run complete", status);
        case.set_classname(RUN_SUITE).set_system_out(line);
        let mut suite = TestSuite::new(RUN_SUITE);
        suite.add_test_case(case);
        self.write_suite(suite)?;
        self.w.write_all(b"</testsuites>\n")?;
        self.w.flush()
    }
}
