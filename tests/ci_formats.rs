//! The CI formats end to end: the binary run on the bundled examples, its output snapshotted,
//! read by the real consumers (xmllint; Python's junitparser, checked against the JSON report of
//! the same run), GitLab fingerprints compared across runs and a moved snapshot, and incomplete
//! runs (a host not judged, a server not collected) shown as errors in every format. To accept
//! new output: `INSTA_UPDATE=always cargo test --test ci_formats`, then read the diff.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::consumers;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `spindle check ARGS`, from the repository root (paths in reports relative to it), the clock
/// pinned.
fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(root())
        .arg("check")
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_SQL_PASSWORD", "not-a-secret")
        .output()
        .unwrap()
}

/// The report in `format` of `args`, which must exit with `status`.
fn report(format: &str, args: &[&str], status: i32) -> String {
    let mut all = vec!["--format", format];
    all.extend(args);
    let out = spindle(&all);
    assert_eq!(out.status.code(), Some(status), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const ACME: [&str; 5] =
    ["examples/win2003-sector63", "--pack", "examples/packs/acme-production.toml", "--fail-on", "never"];

/// A host with no SQL Server facts in a run that requires them: spindle cannot judge it.
const NOT_JUDGED: [&str; 5] = ["examples/linux-xfs-md/host.json", "--require", "sql", "--fail-on", "never"];

/// A server that refuses the connection (a loopback port just let go) beside an example.
fn unreachable() -> (String, Vec<String>) {
    let server = spindle_test_support::mock_sql::Peers::new().refusing();
    let args = [
        "examples/win2003-aligned",
        "--server",
        &server,
        "--user",
        "sa",
        "--encrypt",
        "off",
        "--fail-on",
        "never",
    ];
    (server.clone(), args.map(String::from).to_vec())
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn reports_of_the_examples() {
    for format in ["junit", "gitlab", "github"] {
        insta::assert_snapshot!(format!("{format}-win2003-sector63-acme"), report(format, &ACME, 0));
        insta::assert_snapshot!(format!("{format}-host-not-judged"), report(format, &NOT_JUDGED, 2));
    }
}

/// Checks the JUnit report of `args` with xmllint and, through junitparser, against the JSON
/// report of the same run; returns what the checker counted.
fn junit_agrees_with_json(args: &[&str], status: i32) -> Option<Value> {
    let xml = report("junit", args, status);
    if let Some(lint) = consumers::xmllint_path() {
        consumers::xmllint(&lint, xml.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    }
    if !consumers::has_junitparser() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (xml_path, json_path) = (dir.path().join("report.xml"), dir.path().join("report.json"));
    std::fs::write(&xml_path, &xml).unwrap();
    std::fs::write(&json_path, report("json", args, status)).unwrap();
    let script = root().join("tests/ci/junit_matches_json.py");
    let out = Command::new(consumers::PYTHON).arg(script).arg(&xml_path).arg(&json_path).output().unwrap();
    assert!(out.status.success(), "junitparser: {}\n{xml}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn junit_of_every_example_reads_in_junitparser_as_the_json_report_says() {
    // Every example: each folder of examples/ with a snapshot in it.
    let mut dirs: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            std::fs::read_dir(p)
                .is_ok_and(|mut d| d.any(|f| f.unwrap().path().extension().is_some_and(|x| x == "json")))
        })
        .map(|p| format!("examples/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    dirs.sort();
    let mut all: Vec<&str> = dirs.iter().map(String::as_str).collect();
    all.extend(["--fail-on", "never"]);
    if let Some(counts) = junit_agrees_with_json(&all, 0) {
        // A suite per example's host and the run's; every kind of case the examples have.
        assert!(dirs.len() >= 5, "{dirs:?}");
        assert_eq!(counts["suites"], dirs.len() + 1, "{counts}");
        assert_eq!(counts["error"], 0, "{counts}");
        for k in ["passed", "failure", "skipped"] {
            assert!(counts[k].as_u64() > Some(0), "{k}: {counts}");
        }
    }
    junit_agrees_with_json(&ACME, 0);
}

#[test]
fn junit_of_an_incomplete_run_has_errors_junitparser_sees() {
    let (server, unreachable) = unreachable();
    let unreachable = strs(&unreachable);
    for (args, status) in [(&NOT_JUDGED[..], 2), (&unreachable[..], 2)] {
        if let Some(counts) = junit_agrees_with_json(args, status) {
            // The host not judged, or the server not collected; the run's own case.
            assert!(counts["error"].as_u64() >= Some(1), "{counts}");
        }
        let xml = report("junit", args, status);
        assert!(xml.contains(r#"<error message="the run is incomplete: "#), "{xml}");
    }
    let xml = report("junit", &unreachable, 2);
    assert!(
        xml.contains(&format!(
            r#"<testsuite name="{server}" tests="1" skipped="0" errors="1" failures="0">"#
        )),
        "{xml}"
    );
}

fn gitlab(args: &[&str], status: i32) -> Vec<Value> {
    let issues: Value = serde_json::from_str(&report("gitlab", args, status)).unwrap();
    issues.as_array().unwrap().clone()
}

fn fingerprints(issues: &[Value]) -> Vec<String> {
    let mut f: Vec<String> = issues.iter().map(|i| i["fingerprint"].as_str().unwrap().to_string()).collect();
    f.sort();
    f
}

#[test]
fn gitlab_fingerprints_are_those_of_the_json_report_and_survive_a_moved_snapshot() {
    let first = gitlab(&ACME, 0);
    assert_eq!(fingerprints(&first), fingerprints(&gitlab(&ACME, 0)), "the same from run to run");
    // A finding's fingerprint is the JSON report's: baselines and SARIF share it.
    let json: Value = serde_json::from_str(&report("json", &ACME, 0)).unwrap();
    for f in json["hosts"][0]["findings"].as_array().unwrap().iter().filter(|f| f["waived"] == false) {
        let issue =
            first.iter().find(|i| i["fingerprint"] == f["fingerprint"]).unwrap_or_else(|| panic!("{f}"));
        assert_eq!(issue["check_name"], f["code"]);
        assert_eq!(issue["location"]["lines"]["begin"], f["location"]["line"]);
    }
    // Waived findings are left out; nothing else is.
    let counting =
        json["hosts"][0]["findings"].as_array().unwrap().iter().filter(|f| f["waived"] == false).count();
    let not_evaluated = first.iter().filter(|i| i["severity"] == "info").count();
    assert_eq!(first.len(), counting + not_evaluated);
    assert!(not_evaluated > 0);

    // The same snapshot under another name in another directory.
    let dir = tempfile::tempdir().unwrap();
    let moved = dir.path().join("moved").join("renamed.json");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::copy(root().join("examples/win2003-sector63/erp-sql1.json"), &moved).unwrap();
    let mut args = ACME;
    args[0] = moved.to_str().unwrap();
    let elsewhere = gitlab(&args, 0);
    assert_eq!(fingerprints(&first), fingerprints(&elsewhere), "independent of the file's path");
    assert!(
        elsewhere.iter().all(|i| i["location"]["path"].as_str().unwrap().ends_with("moved/renamed.json"))
    );
}

#[test]
fn gitlab_and_github_show_an_incomplete_run_as_blockers_and_errors() {
    let (server, unreachable) = unreachable();
    let unreachable = strs(&unreachable);
    for args in [&NOT_JUDGED[..], &unreachable[..]] {
        let issues = gitlab(args, 2);
        assert!(
            issues.iter().any(|i| i["severity"] == "blocker"
                && ["spindle/host-not-judged", "spindle/collection-error"]
                    .contains(&i["check_name"].as_str().unwrap())),
            "{issues:#?}"
        );
        let out = report("github", args, 2);
        assert!(out.lines().any(|l| l.starts_with("::error title=spindle%3A run incomplete::")), "{out}");
        assert!(out.lines().last().unwrap().ends_with("the run is incomplete"), "{out}");
    }
    let out = report("github", &unreachable, 2);
    assert!(
        out.contains(&format!(
            "::error title=spindle%3A server not collected::no facts collected from {server}: "
        )),
        "{out}"
    );
}

#[test]
fn github_annotates_each_finding_that_counts_at_its_fact() {
    let out = report("github", &ACME, 0);
    let json: Value = serde_json::from_str(&report("json", &ACME, 0)).unwrap();
    let counting: Vec<&Value> =
        json["hosts"][0]["findings"].as_array().unwrap().iter().filter(|f| f["waived"] == false).collect();
    let commands: Vec<&str> =
        out.lines().filter(|l| l.starts_with("::error ") || l.starts_with("::warning ")).collect();
    assert_eq!(commands.len(), counting.len(), "{out}");
    for f in counting {
        let at = format!(
            "file={},line={},col={},",
            f["location"]["path"].as_str().unwrap(),
            f["location"]["line"],
            f["location"]["column"]
        );
        let command = if f["severity"] == "error" { "::error " } else { "::warning " };
        assert!(commands.iter().any(|c| c.starts_with(command) && c.contains(&at)), "{at}: {out}");
    }
}

/// Exit statuses are the library's, whatever the format.
#[test]
fn exit_statuses_do_not_depend_on_the_format() {
    for format in ["json", "junit", "gitlab", "github"] {
        let out = spindle(&["examples/win2003-sector63", "--format", format]);
        assert_eq!(out.status.code(), Some(1), "{format}: findings fail the run");
        let out = spindle(&["examples/win2003-sector63", "--format", format, "--fail-on", "never"]);
        assert_eq!(out.status.code(), Some(0), "{format}");
    }
}

/// What a log or a web page must not be sent from the data.
fn control(c: char) -> bool {
    (c < ' ' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c) || matches!(c, '\u{202a}'..='\u{202e}')
}

#[test]
fn hostile_host_and_file_names_end_to_end() {
    // A host and its file named with markup, the formats' separators, a line break, a terminal
    // escape, controls and a bidirectional override.
    let mut snapshot: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/win2003-sector63/erp-sql1.json")).unwrap(),
    )
    .unwrap();
    snapshot["host"]["name"] = "sql|01<x>&y::error title=z::w\n\u{1b}[2J\u{7}\u{202e}".into();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snap|<b>&c::d\nline\u{1b}[31m\u{1}.json");
    std::fs::write(&file, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
    let args = [dir.path().to_str().unwrap(), "--fail-on", "never"];

    junit_agrees_with_json(&args, 0);
    let xml = report("junit", &args, 0);
    assert!(!xml.contains("<x>") && !xml.contains("<b>"), "{xml}");

    let issues: Value = serde_json::from_str(&report("gitlab", &args, 0)).unwrap();
    for i in issues.as_array().unwrap() {
        // The path as it is, for GitLab to find the file; what is shown, escaped.
        assert_eq!(i["location"]["path"], file.to_str().unwrap());
        assert!(!i["description"].as_str().unwrap().chars().any(|c| control(c) || c == '\n'), "{i}");
    }

    let out = report("github", &args, 0);
    let lines: Vec<&str> = out.lines().collect();
    let (last, commands) = lines.split_last().unwrap();
    assert!(last.starts_with("spindle: 1 host checked: "), "{last}");
    assert!(!commands.is_empty());
    for line in commands {
        assert!(!line.chars().any(control), "{line:?}");
        let (head, _message) = line.split_once("::").map(|(_, r)| r.split_once("::").unwrap()).unwrap();
        // Properties: `file`, `line`, …, `title`, each value free of the separators.
        for prop in head.split_once(' ').unwrap().1.split(',') {
            let (k, v) = prop.split_once('=').unwrap_or_else(|| panic!("{prop:?} in {line:?}"));
            assert!(["file", "line", "col", "endLine", "endColumn", "title"].contains(&k), "{line:?}");
            assert!(!v.contains(':') && !v.contains(','), "{line:?}");
        }
    }
}

#[test]
fn a_ci_report_written_among_the_snapshots_is_named_as_one() {
    for (name, format, kind) in
        [("spindle.xml", "junit", "a JUnit report"), ("gl.json", "gitlab", "a GitLab Code Quality report")]
    {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(
            root().join("examples/win2003-sector63/erp-sql1.json"),
            dir.path().join("erp-sql1.json"),
        )
        .unwrap();
        let out = dir.path().join(name);
        let dir_arg = dir.path().to_str().unwrap();
        report(format, &[dir_arg, "--fail-on", "never", "-o", out.to_str().unwrap()], 0);
        // Found by walking the folder: skipped with a note naming it for what it is, and the
        // snapshot beside it checked (issue 24).
        let o = spindle(&[dir_arg]);
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        // Without miette's frame and wrapping.
        let squashed = |s: &str| s.chars().filter(|c| !c.is_whitespace() && *c != '│').collect::<String>();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            squashed(&err).contains(&squashed(&format!(
                "{name}: not a snapshot: looks like a report spindle wrote ({kind})"
            ))),
            "{err}"
        );
        // Named, it is refused with that hint.
        let o = spindle(&[out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            squashed(&err).contains(&squashed(&format!(
                "{name}: not a snapshot: looks like a report spindle wrote ({kind})"
            ))),
            "{err}"
        );
    }
}

/// Every fenced block of `lang` in README.md and docs/*.md: (file:line, text).
fn doc_blocks(lang: &str) -> Vec<(String, String)> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut blocks = vec![];
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(root()).unwrap().display().to_string();
        let mut open: Option<(usize, String)> = None;
        for (i, line) in text.lines().enumerate() {
            let fence = line.trim_start();
            match &mut open {
                None if fence == format!("```{lang}") => open = Some((i + 1, String::new())),
                Some((at, body)) if fence == "```" => {
                    blocks.push((format!("{shown}:{at}"), std::mem::take(body)));
                    open = None;
                }
                Some((_, body)) => {
                    body.push_str(line);
                    body.push('\n');
                }
                None => {}
            }
        }
    }
    blocks
}

/// The command a step or job runs: GitHub's `run`, Azure's and GitLab's `script` (a string or
/// a list of lines).
fn commands(step: &Value) -> String {
    ["run", "script"]
        .iter()
        .filter_map(|k| step.get(k))
        .map(|v| match v {
            Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"),
            v => v.as_str().unwrap_or_default().to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn runs_spindle(step: &Value) -> bool {
    commands(step).contains("spindle check")
}

/// Runs whatever the steps before it did: GitHub `if: always()` / `!cancelled()`, Azure
/// `condition: always()` / `succeededOrFailed()`.
fn runs_always(step: &Value) -> bool {
    ["if", "condition"]
        .iter()
        .filter_map(|k| step.get(k).and_then(Value::as_str))
        .any(|c| c.contains("always()") || c.contains("!cancelled()") || c.contains("succeededOrFailed()"))
}

/// What `where_` (a block of the docs) does wrong as a CI recipe: a spindle step that cannot
/// fail the job, or a publishing step or job that a failed spindle step skips.
fn recipe_faults(where_: &str, doc: &Value, kinds: &mut BTreeSet<&'static str>) -> Vec<String> {
    let mut faults = vec![];
    let check_steps = |steps: &[Value], faults: &mut Vec<String>, kinds: &mut BTreeSet<&'static str>| {
        let Some(first) = steps.iter().position(runs_spindle) else { return };
        kinds.insert(if steps[first].get("script").is_some() { "azure" } else { "github" });
        for step in &steps[first..] {
            if step.get("continue-on-error") == Some(&Value::Bool(true)) {
                faults.push(format!("{where_}: continue-on-error: the job never fails"));
            }
        }
        for step in &steps[first + 1..] {
            if !runs_always(step) {
                faults.push(format!("{where_}: {step} is skipped when spindle exits 1"));
            }
        }
    };
    match doc {
        // A list of steps (GitHub or Azure DevOps).
        Value::Array(steps) => check_steps(steps, &mut faults, kinds),
        Value::Object(top) => {
            let jobs = top.get("jobs").and_then(Value::as_object);
            if let Some(jobs) = jobs {
                // GitHub Actions: each job's steps, and the jobs that need one that ran spindle.
                let gating: Vec<&String> = jobs
                    .iter()
                    .filter(|(_, j)| j["steps"].as_array().is_some_and(|s| s.iter().any(runs_spindle)))
                    .map(|(name, _)| name)
                    .collect();
                for (name, job) in jobs {
                    if let Some(steps) = job["steps"].as_array() {
                        check_steps(steps, &mut faults, kinds);
                    }
                    let needs: Vec<&str> = match &job["needs"] {
                        Value::String(n) => vec![n.as_str()],
                        Value::Array(ns) => ns.iter().filter_map(Value::as_str).collect(),
                        _ => vec![],
                    };
                    if needs.iter().any(|n| gating.iter().any(|g| g.as_str() == *n)) && !runs_always(job) {
                        faults.push(format!("{where_}: job {name} is skipped when spindle exits 1"));
                    }
                }
            } else {
                // GitLab CI: jobs at the top; a job's artifacts must be kept when it fails.
                for (name, job) in top {
                    if !runs_spindle(job) {
                        continue;
                    }
                    kinds.insert("gitlab");
                    if commands(job).contains("|| true")
                        || job.get("allow_failure") == Some(&Value::Bool(true))
                    {
                        faults.push(format!("{where_}: job {name} never fails"));
                    }
                    if job.get("artifacts").is_some() && job["artifacts"]["when"] != "always" {
                        faults.push(format!("{where_}: job {name} loses its report when spindle exits 1"));
                    }
                }
            }
        }
        _ => {}
    }
    faults
}

#[test]
fn every_ci_recipe_in_the_docs_publishes_the_report_always_and_fails_the_job() {
    let yaml = doc_blocks("yaml");
    assert!(yaml.len() >= 4, "{yaml:?}");
    let mut faults = vec![];
    let mut kinds = BTreeSet::new();
    for (where_, text) in &yaml {
        // Whatever the CI system, nothing may swallow spindle's status.
        for bad in ["|| true", "continue-on-error: true", "|| exit 0", "set +e"] {
            if text.contains(bad) {
                faults.push(format!("{where_}: `{bad}` swallows spindle's exit status"));
            }
        }
    }
    if let Some(python) = consumers::python_with_yaml() {
        for ((where_, _), doc) in yaml.iter().zip(consumers::parse_yaml(&python, &yaml)) {
            faults.extend(recipe_faults(where_, &doc, &mut kinds));
        }
        // Each CI system the docs give a recipe for was found and checked.
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["azure", "github", "gitlab"]);
    }
    // Jenkins (Groovy): the spindle step fails the stage, the publishing is in `post { always`.
    let groovy = doc_blocks("groovy");
    assert!(!groovy.is_empty());
    for (where_, text) in &groovy {
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.contains("|| true") {
            faults.push(format!("{where_}: `|| true` swallows spindle's exit status"));
        }
        let Some(post) = flat.find("post { always {") else {
            faults.push(format!("{where_}: the report is not published in `post {{ always {{ … }} }}`"));
            continue;
        };
        if !flat[post..].contains("junit '") || flat[..post].contains("junit '") {
            faults.push(format!("{where_}: junit is not in `post {{ always }}`"));
        }
    }
    // The manual's one-line recipes (docs/ci.md) say the same.
    let page = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let row = |format: &str| {
        page.lines()
            .find(|l| l.starts_with(&format!("| `--format {format}`")))
            .unwrap_or_else(|| panic!("docs/ci.md has no row for --format {format}"))
    };
    for (format, needs) in [
        ("junit", ["condition: succeededOrFailed()", "post { always { junit"].as_slice()),
        ("gitlab", ["when: always"].as_slice()),
        ("sarif", ["!cancelled()"].as_slice()),
    ] {
        for need in needs {
            if !row(format).contains(need) {
                faults.push(format!("docs/ci.md, --format {format}: no `{need}`"));
            }
        }
    }
    for format in ["junit", "gitlab", "github", "sarif"] {
        if row(format).contains("|| true") {
            faults.push(format!("docs/ci.md, --format {format}: `|| true`"));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
