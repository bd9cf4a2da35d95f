//! The CI formats (JUnit, GitLab Code Quality, GitHub workflow commands) over hand-made hosts:
//! hostile names in every string they show (a host and a file named with `|`, `<`, `&`, `::`,
//! newlines, terminal escapes and characters XML forbids), and runs that are incomplete (a rule
//! error, a host not judged, a server not collected), which must never read as green.

use serde_json::{Value, json};
use spindle_core::declare::Declarations;
use spindle_core::engine::HostReport;
use spindle_core::facts::Snapshot;
use spindle_core::finding::{AppliedWaiver, Finding, NotEvaluated, Passed, RuleError, Severity};
use spindle_core::view::{Document, HostView};
use spindle_report::github::GithubWriter;
use spindle_report::gitlab::GitlabWriter;
use spindle_report::junit::JunitWriter;
use spindle_report::{ReportWriter, RuleInfo, Summary};
use spindle_test_support::consumers;

/// Names a snapshot or a server could carry: markup, the formats' own separators, line breaks,
/// a terminal escape, C0 and C1 controls, characters XML 1.0 forbids, a bidirectional override.
fn hostile() -> Vec<String> {
    let mut v: Vec<String> = [
        "sql|01<script>alert(1)</script>&amp;",
        "a::error title=forged::owned",
        "x,title=y:z%0A%25",
        "line\nbreak\r\n::error::forged",
        "\u{1b}[2J\u{1b}]0;title\u{7}",
        "\u{9b}31m\u{7f}\u{85}",
        "\u{fffe}\u{ffff}\u{0}\u{b}\u{c}",
        "abc\u{202e}lmx.exe",
        "]]><!--",
    ]
    .map(String::from)
    .to_vec();
    v.push((0u8..0x20).map(char::from).collect());
    v
}

/// A host named `n` whose snapshot file is named after it, with a finding that counts, a
/// waived one, a check not evaluated and a pass.
fn host(n: &str) -> (HostView, HostReport) {
    let snapshot: Snapshot = serde_json::from_value(json!({
        "schema_version": 1,
        "host": { "name": n },
        "disks": [ { "id": "d1", "number": 1 } ],
        "partitions": [ { "id": "p1", "disk_id": "d1", "number": 1, "offset_bytes": 32256 },
                        { "id": "p2", "disk_id": "d1", "number": 2, "offset_bytes": 1048576 } ]
    }))
    .unwrap();
    let text = serde_json::to_string_pretty(&snapshot).unwrap();
    let doc = Document { path: format!("snaps/{n}.json"), text, snapshot };
    let view = HostView::build(vec![doc], Declarations::default());
    let parts: Vec<_> = view.partitions.iter().flatten().map(|p| p.entity()).collect();
    let finding = |waiver: Option<AppliedWaiver>| Finding {
        code: "TST001".into(),
        rule: "test-rule".into(),
        severity: Severity::Error,
        message: format!("partition {n} starts at 32256 B"),
        measured: Some(n.into()),
        expected: Some("a multiple of 64 KiB".into()),
        measured_quantity: None,
        expected_quantity: None,
        entity: parts[0].clone(),
        field: Some("offset_bytes".into()),
        fix: n.into(),
        gain: None,
        waiver,
        baseline: None,
    };
    let waived = AppliedWaiver {
        reason: n.into(),
        expires: Some("2030-01-01".into()),
        source: n.into(),
        expired: false,
    };
    let mut warning = finding(Some(waived));
    warning.severity = Severity::Warning;
    let report = HostReport {
        host: view.host.key.clone(),
        findings: vec![finding(None), warning],
        not_evaluated: vec![NotEvaluated {
            code: "TST002".into(),
            rule: "needs-raid".into(),
            entity: None,
            missing: "raid_sets".into(),
            reason: Some(n.into()),
        }],
        passed: vec![Passed {
            code: "TST001".into(),
            rule: "test-rule".into(),
            keys: vec![parts[1].key.clone()],
        }],
        rules_run: 1,
        ..Default::default()
    };
    (view, report)
}

fn rules() -> Vec<RuleInfo> {
    let rule = |code: &str, name: &str, severity| RuleInfo {
        code: code.into(),
        name: name.into(),
        severity,
        category: String::new(),
        summary: String::new(),
        docs: String::new(),
        impact: Default::default(),
    };
    vec![
        rule("TST001", "test-rule", Severity::Error),
        rule("TST002", "needs-raid", Severity::Warning),
        rule("acme/NAM001", "names", Severity::Note),
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    Junit,
    Gitlab,
    Github,
}

/// The report of `hosts` (each with `errors` and `not_judged` added) and of servers that gave no
/// facts, in `fmt`.
fn write(fmt: Fmt, hosts: &[(HostView, HostReport)], unreachable: &[(&str, &str)]) -> String {
    let mut out = Vec::new();
    {
        let mut w: Box<dyn ReportWriter> = match fmt {
            Fmt::Junit => Box::new(JunitWriter::new(&mut out)),
            Fmt::Gitlab => Box::new(GitlabWriter::new(&mut out)),
            Fmt::Github => Box::new(GithubWriter::new(&mut out)),
        };
        let mut summary = Summary::default();
        w.begin(&rules()).unwrap();
        for (source, why) in unreachable {
            w.collection_error(source, why).unwrap();
            summary.collection_errors += 1;
        }
        for (v, r) in hosts {
            summary.add(r);
            w.host(v, r).unwrap();
        }
        w.finish(&summary).unwrap();
    }
    String::from_utf8(out).unwrap()
}

/// The incomplete run: a host whose plugin and one rule failed and which could not be judged
/// for a missing fact, beside a server that gave no facts.
fn incomplete(n: &str) -> (Vec<(HostView, HostReport)>, String) {
    let (v, mut r) = host(n);
    r.errors.push(RuleError { code: "TST002".into(), message: format!("rule panicked: {n}") });
    r.errors.push(RuleError { code: "acme/*".into(), message: format!("plugin trapped\n  stderr: {n}") });
    r.errors.push(RuleError { code: "other/*".into(), message: "a plugin of no rule of the run".into() });
    r.not_judged.push(format!("the run requires SQL Server facts ({n})"));
    (vec![(v, r)], format!("tcp:{n},1433"))
}

/// What XML 1.0 does not allow in a document at all.
fn xml_forbidden(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// What a terminal or a log viewer must not be sent from the data.
fn control(c: char) -> bool {
    (c < ' ' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c) || c == '\u{202e}'
}

#[test]
fn junit_of_hostile_names_is_well_formed_and_escaped() {
    let lint = consumers::xmllint_path();
    for n in hostile() {
        let (hosts, server) = incomplete(&n);
        let xml = write(Fmt::Junit, &hosts, &[(&server, &n)]);
        for (i, c) in xml.char_indices() {
            assert!(!xml_forbidden(c) && !control(c), "{n:?}: U+{:04X} at byte {i}", c as u32);
        }
        assert!(!xml.contains("<script>") && !xml.contains("]]><!--"), "{n:?}: markup from the data:\n{xml}");
        if let Some(lint) = &lint {
            consumers::xmllint(lint, xml.as_bytes()).unwrap_or_else(|e| panic!("{n:?}: {e}\n{xml}"));
        }
    }
}

#[test]
fn junit_shows_every_gap_of_an_incomplete_run_as_an_error() {
    let (hosts, server) = incomplete("sql01");
    let xml = write(Fmt::Junit, &hosts, &[(&server, "cannot connect: refused")]);
    // The host: not judged; TST002 and the acme plugin's rule erred; a plugin no rule of the run
    // names has a case of its own; TST001 still fails on its finding.
    assert!(
        xml.contains(r#"<testsuite name="sql01" tests="5" skipped="0" errors="4" failures="1">"#),
        "{xml}"
    );
    for case in ["host judged", "TST002 needs-raid", "acme/NAM001 names", "other/* (rule error)"] {
        let at = xml.find(&format!(r#"<testcase name="{case}""#)).unwrap_or_else(|| panic!("{case}:\n{xml}"));
        let next = xml[at..].find("</testcase>").unwrap();
        assert!(xml[at..at + next].contains("<error "), "{case} is not an error:\n{xml}");
    }
    assert!(xml.contains(r#"<failure message="1 finding (error at worst)" type="error">"#), "{xml}");
    // The server: a suite with an error; the run: its own suite, erring.
    assert!(
        xml.contains(r#"<testsuite name="tcp:sql01,1433" tests="1" skipped="0" errors="1" failures="0">"#)
    );
    assert!(xml.contains(r#"<testsuite name="spindle" tests="1" skipped="0" errors="1" failures="0">"#));
    assert!(xml.contains(r#"<error message="the run is incomplete: "#), "{xml}");

    // Complete: the run's case passes, a waived finding is no failure and says why it is waived.
    let (v, mut r) = host("sql02");
    r.findings.retain(|f| f.is_waived());
    let xml = write(Fmt::Junit, &[(v, r)], &[]);
    assert!(!xml.contains("<error") && !xml.contains("<failure"), "{xml}");
    assert!(xml.contains("1 finding waived, not failures:"), "{xml}");
    assert!(xml.contains("waived: sql02 (until 2030-01-01) [sql02]"), "{xml}");
    assert!(xml.contains("passed: 1 entity judged and found right"), "{xml}");
    assert!(
        xml.contains(
            r#"<skipped message="not evaluated: raid_sets is missing (sql02)" type="not-evaluated">"#
        )
    );
}

/// The GitLab report's issues, checked against what GitLab requires of each.
fn gitlab_issues(text: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let issues = doc.as_array().unwrap().clone();
    for i in &issues {
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(i[key].as_str().is_some_and(|s| !s.is_empty()), "{key}: {i}");
        }
        assert!(
            ["info", "minor", "major", "critical", "blocker"].contains(&i["severity"].as_str().unwrap()),
            "{i}"
        );
        assert!(i["location"]["path"].is_string(), "{i}");
        assert!(i["location"]["lines"]["begin"].as_u64().is_some_and(|l| l >= 1), "{i}");
    }
    let mut fingerprints: Vec<&str> = issues.iter().map(|i| i["fingerprint"].as_str().unwrap()).collect();
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), issues.len(), "fingerprints are unique: {text}");
    issues
}

#[test]
fn gitlab_of_hostile_names_is_valid_and_points_at_the_file() {
    for n in hostile() {
        let (hosts, server) = incomplete(&n);
        let text = write(Fmt::Gitlab, &hosts, &[(&server, &n)]);
        let issues = gitlab_issues(&text);
        // The path is the file's own, for GitLab to link; what is shown is escaped.
        let finding = issues.iter().find(|i| i["check_name"] == "TST001").unwrap();
        assert_eq!(finding["location"]["path"], format!("snaps/{n}.json"));
        for i in &issues {
            let d = i["description"].as_str().unwrap();
            assert!(!d.chars().any(|c| control(c) || c == '\n'), "{n:?}: {d:?}");
        }
    }
}

#[test]
fn gitlab_shows_an_incomplete_run_as_blockers() {
    let (hosts, server) = incomplete("sql01");
    let issues = gitlab_issues(&write(Fmt::Gitlab, &hosts, &[(&server, "refused")]));
    let of = |check: &str| issues.iter().filter(|i| i["check_name"] == check).collect::<Vec<_>>();
    assert_eq!(of("spindle/collection-error").len(), 1);
    assert_eq!(of("spindle/host-not-judged").len(), 1);
    assert_eq!(of("spindle/rule-error").len(), 3);
    for i in issues.iter().filter(|i| i["check_name"].as_str().unwrap().starts_with("spindle/")) {
        assert_eq!(i["severity"], "blocker", "{i}");
    }
    // The finding that counts; the waived one is left out; the missing fact is information.
    let tst = of("TST001");
    assert_eq!(tst.len(), 1);
    assert_eq!(tst[0]["severity"], "critical");
    assert_eq!(of("TST002")[0]["severity"], "info");
    // Nothing at all: an empty array.
    assert_eq!(write(Fmt::Gitlab, &[], &[]), "[]\n");
}

/// A workflow command parsed as GitHub's runner does: `::name props::message`, the properties
/// split at `,` and `=`, each value and the message unescaped.
fn parse_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").unwrap_or_else(|| panic!("not a command: {line:?}"));
    let (head, message) = rest.split_once("::").unwrap_or_else(|| panic!("no message: {line:?}"));
    let (name, props) = head.split_once(' ').unwrap_or((head, ""));
    let unescape = |s: &str| {
        s.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
    };
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("{p:?} in {line:?}"));
            assert!(["file", "line", "col", "endLine", "endColumn", "title"].contains(&k), "{k} in {line:?}");
            (k.to_string(), unescape(v))
        })
        .collect();
    (name.to_string(), props, unescape(message))
}

#[test]
fn github_commands_of_hostile_names_cannot_be_forged() {
    for n in hostile() {
        let (hosts, server) = incomplete(&n);
        let out = write(Fmt::Github, &hosts, &[(&server, &n)]);
        let lines: Vec<&str> = out.lines().collect();
        assert!(!out.contains('\r'), "{n:?}");
        let (last, commands) = lines.split_last().unwrap();
        assert!(last.starts_with("spindle: 1 host checked: "), "{n:?}: {last}");
        let mut names = vec![];
        for line in commands {
            assert!(!line.chars().any(control), "{n:?}: {line:?}");
            let (name, props, message) = parse_command(line);
            assert!(["error", "warning", "notice"].contains(&name.as_str()), "{n:?}: {line}");
            assert!(!message.chars().any(control), "{n:?}: {message:?}");
            for (_, v) in &props {
                assert!(!v.contains('\n'), "{n:?}: {line}");
            }
            names.push(name);
        }
        // A host, a rule error ×3, the finding, a notice, the server, and the run: forged none.
        assert_eq!(commands.len(), 8, "{n:?}:\n{out}");
        assert_eq!(names.iter().filter(|c| *c == "error").count(), 7, "{n:?}:\n{out}");
    }
}

#[test]
fn github_annotates_findings_at_their_fact_and_an_incomplete_run_as_errors() {
    let (v, r) = host("sql02");
    let out = write(Fmt::Github, &[(v, r)], &[]);
    let commands: Vec<_> = out.lines().filter(|l| l.starts_with("::")).map(parse_command).collect();
    assert_eq!(commands.len(), 2, "the finding and the missing fact; the waived one is left out:\n{out}");
    let (name, props, message) = &commands[0];
    assert_eq!(name, "error");
    let prop = |k: &str| props.iter().find(|(p, _)| p == k).map(|(_, v)| v.as_str());
    assert_eq!(prop("file"), Some("snaps/sql02.json"));
    assert_eq!(prop("title"), Some("TST001 test-rule"));
    assert!(prop("line").is_some_and(|l| l.parse::<usize>().unwrap() > 1), "{props:?}");
    assert_eq!(
        message,
        "sql02 › disk 1 › partition 1: partition sql02 starts at 32256 B\nmeasured sql02; expected a multiple of 64 KiB"
    );
    assert_eq!(commands[1].0, "notice");
    assert!(!out.contains("run incomplete"), "{out}");

    let (hosts, server) = incomplete("sql01");
    let out = write(Fmt::Github, &hosts, &[(&server, "refused")]);
    let run = out
        .lines()
        .find(|l| l.contains("title=spindle%3A run incomplete::"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(run.starts_with("::error "), "{run}");
}
