//! End-to-end tests of baselines: `spindle baseline` records a run's findings, `spindle check
//! --baseline` fails only on new ones, counts the fixed ones, and says so in every report.

use spindle_test_support::multitool;
use spindle_test_support::sarif as sarif_schema;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use tempfile::TempDir;

/// A host with no SQL Server facts and one partition at sector 63: one ALN001 error.
use spindle_test_support::SECTOR_63;

/// The repository's examples.
fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(path)
}

/// Runs spindle in `cwd` (so that reports name files relative to it), without a pack found
/// there.
fn spindle_in(cwd: &Path, args: &[&str]) -> Output {
    spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .arg("--no-config")
        .current_dir(cwd)
        .output()
        .expect("spindle runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stderr with miette's frame and wrapping undone, one space between words.
fn flat_stderr(o: &Output) -> String {
    stderr(o).replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `spindle baseline -o NAME inputs…` in `dir`, which must succeed; the baseline, parsed.
fn record(dir: &Path, name: &str, inputs: &[&str]) -> Value {
    let mut args = vec!["baseline", "-o", name];
    args.extend_from_slice(inputs);
    let o = spindle_in(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// `spindle check --baseline BASELINE --format json inputs…`: exit status and report.
fn check_json(dir: &Path, baseline: &str, inputs: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["check", "--baseline", baseline, "--format", "json"];
    args.extend_from_slice(inputs);
    let o = spindle_in(dir, &args);
    let report = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code(), report)
}

fn findings(report: &Value) -> Vec<&Value> {
    report["hosts"].as_array().unwrap().iter().flat_map(|h| h["findings"].as_array().unwrap()).collect()
}

/// A copy of the aligned ERP server's snapshot in `dir/snaps`, with the text changed by `edit`.
fn erp_sql2(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let snaps = dir.join("snaps");
    fs::create_dir_all(&snaps).unwrap();
    let text = fs::read_to_string(example("win2003-aligned/erp-sql2.json")).unwrap();
    let path = snaps.join("erp-sql2.json");
    fs::write(&path, edit(text)).unwrap();
    path
}

/// The first partition's offset moved to sector 63.
fn misaligned(text: String) -> String {
    let at = text.find("\"offset_bytes\": 65536").expect("an aligned partition");
    let mut text = text;
    text.replace_range(at..at + "\"offset_bytes\": 65536".len(), "\"offset_bytes\": 32256");
    text
}

/// `b.json`, the baseline of the aligned ERP server in `dir/snaps`, which then gets one problem.
fn one_new_problem(dir: &Path) {
    erp_sql2(dir, |t| t);
    record(dir, "b.json", &["snaps"]);
    erp_sql2(dir, misaligned);
}

#[test]
fn a_check_against_its_own_baseline_has_nothing_new_and_passes_despite_errors() {
    let dir = TempDir::new().unwrap();
    let inputs = example("win2003-sector63");
    let inputs = inputs.to_str().unwrap();
    let baseline = record(dir.path(), "spindle-baseline.json", &[inputs]);
    assert_eq!(baseline["spindle_baseline"], 1);
    assert_eq!(baseline["created_at"], "2026-11-30T00:00:00Z");
    let recorded = baseline["findings"].as_array().unwrap();

    // Without the baseline the example fails: it has errors.
    let o = spindle_in(dir.path(), &["check", inputs, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let plain: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(plain["summary"]["errors"].as_u64().unwrap() > 0);
    assert!(plain["summary"].get("baseline").is_none(), "no baseline, no baseline counts");
    assert!(findings(&plain).iter().all(|f| f.get("baseline").is_none()));

    let (code, report) = check_json(dir.path(), "spindle-baseline.json", &[inputs]);
    assert_eq!(code, Some(0), "nothing is new");
    let all = findings(&report);
    assert_eq!(all.len(), recorded.len(), "the baseline records every finding");
    assert!(all.iter().all(|f| f["baseline"] == "unchanged"));
    assert_eq!(
        report["summary"]["baseline"],
        serde_json::json!({"new": 0, "unchanged": all.len(), "absent": 0, "not_checked": 0, "not_checked_findings": []})
    );
    assert!(report["summary"]["errors"].as_u64().unwrap() > 0, "the errors are still reported");

    // Each entry is the finding's fingerprint with what a reviewer needs, in a fixed order.
    for f in &all {
        let entry = recorded.iter().find(|e| e["fingerprint"] == f["fingerprint"]).expect("recorded");
        assert_eq!(entry["code"], f["code"]);
        assert_eq!(entry["entity"], f["entity"]["key"]);
        assert_eq!(entry["severity"], f["severity"]);
        assert_eq!(entry["host"], report["hosts"][0]["host"]);
    }
    let keys: Vec<(String, String, String)> = recorded
        .iter()
        .map(|e| (e["host"].to_string(), e["entity"].to_string(), e["code"].to_string()))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "sorted by host, entity and code");
    let first = fs::read(dir.path().join("spindle-baseline.json")).unwrap();
    record(dir.path(), "again.json", &["--jobs", "1", inputs]);
    assert_eq!(first, fs::read(dir.path().join("again.json")).unwrap(), "deterministic");
}

#[test]
fn a_new_problem_is_the_only_new_finding_and_fails_the_run() {
    let dir = TempDir::new().unwrap();
    erp_sql2(dir.path(), |t| t);
    record(dir.path(), "b.json", &["snaps"]);
    let (code, _) = check_json(dir.path(), "b.json", &["snaps"]);
    assert_eq!(code, Some(0), "the aligned server's warnings are all known");

    erp_sql2(dir.path(), misaligned);
    let (code, report) = check_json(dir.path(), "b.json", &["snaps"]);
    assert_eq!(code, Some(1));
    let new: Vec<&Value> = findings(&report).into_iter().filter(|f| f["baseline"] == "new").collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!((new[0]["code"].as_str(), new[0]["field"].as_str()), (Some("ALN001"), Some("offset_bytes")));
    assert_eq!(report["summary"]["baseline"]["new"], 1);
    assert_eq!(report["summary"]["baseline"]["absent"], 0);

    // The text report marks it where it is listed, and its last line counts it.
    let o = spindle_in(dir.path(), &["check", "--baseline", "b.json", "snaps"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert_eq!(text.matches("[new]").count(), 1, "{text}");
    let marked = text.lines().find(|l| l.contains("[new]")).unwrap();
    assert!(marked.contains("32,256 B") && marked.contains("snaps/erp-sql2.json:"), "{marked}");
    assert!(text.contains("; baseline: 1 new, 0 fixed, 16 unchanged"), "{text}");

    // One line per finding: the new one says so.
    let o = spindle_in(dir.path(), &["check", "--baseline", "b.json", "snaps", "--format", "concise"]);
    let concise = stdout(&o);
    let new: Vec<&str> = concise.lines().filter(|l| l.contains(", new]")).collect();
    assert_eq!(new.len(), 1, "{concise}");
    assert!(new[0].contains("ALN001 [error, new]"), "{}", new[0]);

    // The line on stderr says what failed.
    let o = spindle_in(dir.path(), &["check", "--baseline", "b.json", "snaps", "-o", "r.txt"]);
    assert!(
        flat_stderr(&o).contains("baseline: 1 new, 0 fixed, 16 unchanged; failed: new findings"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_fixed_problem_is_counted_absent() {
    let dir = TempDir::new().unwrap();
    erp_sql2(dir.path(), misaligned);
    record(dir.path(), "b.json", &["snaps"]);
    erp_sql2(dir.path(), |t| t);
    let (code, report) = check_json(dir.path(), "b.json", &["snaps"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        report["summary"]["baseline"],
        serde_json::json!({"new": 0, "unchanged": 16, "absent": 1, "not_checked": 0, "not_checked_findings": []})
    );
    let o = spindle_in(dir.path(), &["check", "--baseline", "b.json", "snaps", "--format", "markdown"]);
    assert!(stdout(&o).contains("| fixed since the baseline | 1 |"), "{}", stdout(&o));
    let o = spindle_in(dir.path(), &["check", "--baseline", "b.json", "snaps", "--format", "html"]);
    assert!(stdout(&o).contains("<strong>0 new</strong>, 1 fixed, 16 unchanged"));
}

#[test]
fn fingerprints_survive_renaming_and_moving_the_snapshot() {
    let dir = TempDir::new().unwrap();
    let original = erp_sql2(dir.path(), misaligned);
    record(dir.path(), "b.json", &["snaps/erp-sql2.json"]);
    let elsewhere = dir.path().join("archive/2026/november");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::rename(&original, elsewhere.join("renamed-host-file.json")).unwrap();
    let (code, report) = check_json(dir.path(), "b.json", &["archive"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        report["summary"]["baseline"],
        serde_json::json!({"new": 0, "unchanged": 17, "absent": 0, "not_checked": 0, "not_checked_findings": []})
    );
    // The report does point at the new place: only the identity stayed.
    let path = findings(&report)[0]["location"]["path"].as_str().unwrap().to_string();
    assert!(path.contains("renamed-host-file.json"), "{path}");
}

#[test]
fn a_bad_baseline_is_bad_input_named_by_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("sql01.json"), SECTOR_63).unwrap();
    fs::write(dir.path().join("report.json"), "yesterday").unwrap();
    let cases = [
        ("truncated.json", "{\n  \"spindle_baseline\": 1,\n  \"findings\": [\n", "truncated.json:4:"),
        (
            "digits.json",
            "{\n  \"spindle_baseline\": 1,\n  \"findings\": [\n    {\"fingerprint\": \"xyz\"}\n  ]\n}\n",
            "digits.json:4:",
        ),
        ("version.json", "{\n  \"spindle_baseline\": 7,\n  \"findings\": []\n}\n", "version.json:2:"),
        ("report.sarif", "{\"version\": \"2.1.0\", \"runs\": []}", "report.sarif:1:"),
    ];
    for (name, text, at) in cases {
        fs::write(dir.path().join(name), text).unwrap();
        let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", name, "-o", "report.json"]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = stderr(&o);
        assert!(err.contains(at), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.path().join("report.json").exists(), "{name}: a stale report is removed");
        fs::write(dir.path().join("report.json"), "yesterday").unwrap();
    }
    let err = flat_stderr(&spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "digits.json"]));
    assert!(err.contains("expected 16 hexadecimal digits"), "{err}");
    let err = flat_stderr(&spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "version.json"]));
    assert!(err.contains("baseline version 7"), "{err}");
    // What the file says is untrusted: escaped and cut before the terminal.
    let hostile = format!(
        "{{\"spindle_baseline\": 1, \"findings\": [{{\"fingerprint\": \"\\u001b[31m{}\"}}]}}",
        "x".repeat(1 << 20)
    );
    fs::write(dir.path().join("hostile.json"), hostile).unwrap();
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "hostile.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!o.stderr.contains(&0x1b), "no escape sequence reaches the terminal");
    assert!(o.stderr.len() < 64 << 10, "a megabyte is not echoed: {} bytes", o.stderr.len());
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "missing.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(flat_stderr(&o).contains("missing.json: cannot read the baseline"), "{}", stderr(&o));
}

#[test]
fn sarif_results_carry_their_baseline_state_and_the_log_stays_valid() {
    let dir = TempDir::new().unwrap();
    one_new_problem(dir.path());
    let o = spindle_in(dir.path(), &["check", "snaps", "--baseline", "b.json", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let results = log["runs"][0]["results"].as_array().unwrap();
    let state = |s: &str| results.iter().filter(|r| r["baselineState"] == s).count();
    assert_eq!((state("new"), state("unchanged")), (1, 16));
    assert_eq!(results.len(), 17, "every result has a state");
    let new = results.iter().find(|r| r["baselineState"] == "new").unwrap();
    assert_eq!(new["ruleId"], "ALN001");
    let counts = &log["runs"][0]["invocations"][0]["properties"]["summary"]["baseline"];
    assert_eq!(*counts, serde_json::json!({"new": 1, "unchanged": 16, "absent": 0, "notChecked": 0}));
    // Microsoft's validator, with GitHub's rules, where it is installed (always in CI).
    if let Some(tool) = multitool::multitool() {
        let path = dir.path().join("baseline.sarif");
        fs::write(&path, stdout(&o)).unwrap();
        let findings = multitool::validate(&tool, &[path]);
        assert!(findings.is_empty(), "the SARIF Multitool reports:\n{}", findings.join("\n"));
    }

    // Without a baseline, no result says anything of one.
    let o = spindle_in(dir.path(), &["check", "snaps", "--format", "sarif"]);
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    assert!(log["runs"][0]["results"].as_array().unwrap().iter().all(|r| r.get("baselineState").is_none()));
}

#[test]
fn a_run_that_could_not_look_is_incomplete_whatever_the_baseline() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("sql01.json"), SECTOR_63).unwrap();
    record(dir.path(), "b.json", &["sql01.json"]);
    let (code, _) = check_json(dir.path(), "b.json", &["sql01.json"]);
    assert_eq!(code, Some(0));
    let (code, report) = check_json(dir.path(), "b.json", &["sql01.json", "--require", "sql"]);
    assert_eq!(code, Some(2), "no SQL Server facts: the run is incomplete");
    assert_eq!(report["summary"]["incomplete"], true);
    assert_eq!(report["summary"]["baseline"]["new"], 0);
    // Recording a baseline of such a run says so too.
    let o = spindle_in(dir.path(), &["baseline", "-o", "c.json", "sql01.json", "--require", "sql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("incomplete"), "{}", stderr(&o));
}

#[test]
fn a_waived_finding_is_recorded_and_new_again_when_its_waiver_lapses() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("sql01.json"), SECTOR_63).unwrap();
    let waiver = |expires: &str| {
        format!(
            "[[waivers]]\nrules = [\"ALN001\"]\nentity = \"sql01/*\"\nreason = \"rebuilt in Q1\"\nexpires = \"{expires}\"\n"
        )
    };
    fs::write(dir.path().join("waive.toml"), waiver("2027-03-31")).unwrap();
    let baseline = record(dir.path(), "b.json", &["sql01.json", "--pack", "waive.toml"]);
    let aln: Vec<&Value> =
        baseline["findings"].as_array().unwrap().iter().filter(|e| e["code"] == "ALN001").collect();
    assert_eq!(aln.len(), 1);
    assert_eq!(aln[0]["waived"], true, "recorded, marked waived");

    let (code, report) = check_json(dir.path(), "b.json", &["sql01.json", "--pack", "waive.toml"]);
    assert_eq!(code, Some(0));
    assert_eq!(report["summary"]["baseline"]["new"], 0);

    // The waiver lapses: the finding counts again, and the baseline does not take it over.
    fs::write(dir.path().join("waive.toml"), waiver("2026-11-01")).unwrap();
    let (code, report) = check_json(dir.path(), "b.json", &["sql01.json", "--pack", "waive.toml"]);
    assert_eq!(code, Some(1));
    let f = findings(&report).into_iter().find(|f| f["code"] == "ALN001").unwrap().clone();
    assert_eq!(f["baseline"], "new");
    assert_eq!(report["summary"]["baseline"]["absent"], 0, "it was found again, not fixed");
}

#[test]
fn text_report_against_a_baseline() {
    let dir = TempDir::new().unwrap();
    one_new_problem(dir.path());
    let o = spindle_in(dir.path(), &["check", "snaps", "--baseline", "b.json", "--color", "never"]);
    insta::assert_snapshot!("text-baseline-one-new", stdout(&o));
}

/// Every example's directory, as inputs.
fn examples() -> Vec<String> {
    [
        "win2003-sector63",
        "win2003-aligned",
        "linux-xfs-md",
        "azure-storage-spaces",
        "hdd-raid-shared-spindles",
    ]
    .iter()
    .map(|e| example(e).to_str().unwrap().to_string())
    .collect()
}

#[test]
fn a_run_of_one_host_against_a_fleet_baseline_fixes_nothing_it_did_not_check() {
    let dir = TempDir::new().unwrap();
    let all = examples();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let baseline = record(dir.path(), "fleet.json", &all);
    let recorded = baseline["findings"].as_array().unwrap();
    let one = example("win2003-sector63");
    let one = one.to_str().unwrap();
    let (code, report) = check_json(dir.path(), "fleet.json", &[one]);
    assert_eq!(code, Some(0), "nothing is new");
    let host = report["hosts"][0]["host"].as_str().unwrap().to_string();
    let others: Vec<&Value> = recorded.iter().filter(|e| e["host"] != host.as_str()).collect();
    assert!(others.len() > 10, "the other hosts have findings: {}", others.len());
    let counts = &report["summary"]["baseline"];
    assert_eq!(counts["absent"], 0, "no host the run did not check is fixed: {counts}");
    assert_eq!(counts["not_checked"], others.len(), "{counts}");
    let listed = counts["not_checked_findings"].as_array().unwrap();
    assert_eq!(listed.len(), others.len());
    assert!(listed.iter().all(|e| e["host"] != host.as_str() && e["fingerprint"].is_string()), "{listed:?}");

    // The same word in every format.
    let o = spindle_in(dir.path(), &["check", one, "--baseline", "fleet.json"]);
    let text = stdout(&o);
    let line = format!(
        "; baseline: 0 new, 0 fixed, {} unchanged, {} not checked",
        findings(&report).len(),
        others.len()
    );
    assert!(text.contains(&line), "{text}");
    let o = spindle_in(dir.path(), &["check", one, "--baseline", "fleet.json", "-o", "r.txt"]);
    assert!(flat_stderr(&o).contains(&line), "{}", stderr(&o));
    let o = spindle_in(dir.path(), &["check", one, "--baseline", "fleet.json", "--format", "sarif"]);
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let sarif = &log["runs"][0]["invocations"][0]["properties"]["summary"]["baseline"];
    assert_eq!((&sarif["absent"], &sarif["notChecked"]), (&Value::from(0), &Value::from(others.len())));
    let o = spindle_in(dir.path(), &["check", one, "--baseline", "fleet.json", "--format", "markdown"]);
    assert!(stdout(&o).contains(&format!("| baseline findings not checked | {} |", others.len())));
    let o = spindle_in(dir.path(), &["check", one, "--baseline", "fleet.json", "--format", "html"]);
    assert!(stdout(&o).contains(&format!("{} not checked", others.len())));

    // A rule the run did not select was not checked either, on the host it did check.
    let (_, report) = check_json(dir.path(), "fleet.json", &[one, "--select", "ALN"]);
    let mine_not_aln = recorded
        .iter()
        .filter(|e| e["host"] == host.as_str() && !e["code"].as_str().unwrap().starts_with("ALN"))
        .count();
    assert!(mine_not_aln > 0);
    assert_eq!(report["summary"]["baseline"]["absent"], 0);
    assert_eq!(report["summary"]["baseline"]["not_checked"], others.len() + mine_not_aln);
}

#[test]
fn a_problem_fixed_on_a_checked_host_is_still_fixed_beside_unchecked_ones() {
    let dir = TempDir::new().unwrap();
    erp_sql2(dir.path(), misaligned);
    let other = example("win2003-sector63");
    record(dir.path(), "b.json", &["snaps", other.to_str().unwrap()]);
    erp_sql2(dir.path(), |t| t);
    let (code, report) = check_json(dir.path(), "b.json", &["snaps"]);
    assert_eq!(code, Some(0));
    let counts = &report["summary"]["baseline"];
    assert_eq!(counts["absent"], 1, "the realigned partition: {counts}");
    assert!(counts["not_checked"].as_u64().unwrap() > 0, "{counts}");
}

#[test]
fn checks_not_evaluated_already_in_the_baseline_do_not_fail_fail_on_note() {
    let dir = TempDir::new().unwrap();
    // No SQL Server facts: every SQL rule is not evaluated.
    fs::write(dir.path().join("sql01.json"), SECTOR_63).unwrap();
    let baseline = record(dir.path(), "b.json", &["sql01.json"]);
    let recorded = baseline["not_evaluated"].as_array().expect("the checks not evaluated are recorded");
    assert!(!recorded.is_empty());
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "b.json", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(0), "nothing new: {}", stderr(&o));
    // Without the baseline, or with one that does not record them, they fail as before.
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(1));
    let mut old = baseline.clone();
    old.as_object_mut().unwrap().remove("not_evaluated");
    fs::write(dir.path().join("old.json"), old.to_string()).unwrap();
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "old.json", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // A check not evaluated that the baseline did not have is new.
    let mut fewer = baseline.clone();
    fewer["not_evaluated"].as_array_mut().unwrap().pop();
    fs::write(dir.path().join("fewer.json"), fewer.to_string()).unwrap();
    let o = spindle_in(dir.path(), &["check", "sql01.json", "--baseline", "fewer.json", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_baseline_is_read_with_a_bound_and_a_byte_order_mark_is_accepted() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("sql01.json"), SECTOR_63).unwrap();
    record(dir.path(), "b.json", &["sql01.json"]);
    // As a Windows editor saves it.
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(fs::read(dir.path().join("b.json")).unwrap());
    fs::write(dir.path().join("bom.json"), bom).unwrap();
    let (code, report) = check_json(dir.path(), "bom.json", &["sql01.json"]);
    assert_eq!(code, Some(0));
    assert_eq!(report["summary"]["baseline"]["unchanged"], 1);

    // A named pipe nobody writes to is refused, not waited on; /dev/zero is not read forever.
    let fifo = dir.path().join("fifo.json");
    use rustix::fs::{CWD, FileType, Mode, mknodat};
    mknodat(CWD, &fifo, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let mut child = spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
            .args(["check", "sql01.json", "--no-config", "--baseline", path])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A run that hangs on the pipe, or reads /dev/zero until memory runs out, fails here
        // rather than hanging the tests.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{path}: still reading the baseline after 30 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{path}: {}", stderr(&o));
        let err = flat_stderr(&o);
        assert!(err.contains(&format!("{path}: cannot read the baseline")), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn ci_formats_put_the_new_finding_first_and_say_new_or_unchanged() {
    let dir = TempDir::new().unwrap();
    one_new_problem(dir.path());
    // GitHub shows 10 annotations of each kind per step: the one new finding comes first, the
    // 16 unchanged ones after every new one, as notices.
    let o = spindle_in(dir.path(), &["check", "snaps", "--baseline", "b.json", "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let log = stdout(&o);
    let commands: Vec<&str> = log.lines().filter(|l| l.starts_with("::")).collect();
    let findings: Vec<&str> =
        commands.iter().copied().filter(|l| l.contains("(new)::") || l.contains("(unchanged)::")).collect();
    assert_eq!(findings.len(), 17, "{log}");
    assert!(findings[0].starts_with("::error ") && findings[0].contains("title=ALN001"), "{}", findings[0]);
    assert!(findings[0].contains("(new)::"), "{}", findings[0]);
    assert!(findings[1..].iter().all(|l| l.starts_with("::notice ") && l.contains("(unchanged)::")), "{log}");
    let first_unchanged = commands.iter().position(|l| l.contains("(unchanged)::")).unwrap();
    assert!(commands[first_unchanged..].iter().all(|l| l.contains("(unchanged)::")), "{log}");
    // Without a baseline, as before: no word of one.
    let o = spindle_in(dir.path(), &["check", "snaps", "--format", "github"]);
    assert!(!stdout(&o).contains("(new)") && !stdout(&o).contains("(unchanged)"));

    // GitLab says it in the description, the only field its widget shows for it.
    let o = spindle_in(dir.path(), &["check", "snaps", "--baseline", "b.json", "--format", "gitlab"]);
    let issues: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let says = |what: &str| {
        issues
            .iter()
            .filter(|i| i["description"].as_str().unwrap().ends_with(&format!("({what} since the baseline)")))
            .count()
    };
    assert_eq!((says("new"), says("unchanged")), (1, 16));

    // JUnit: in the failing test case's message and before each finding.
    let o = spindle_in(dir.path(), &["check", "snaps", "--baseline", "b.json", "--format", "junit"]);
    let xml = stdout(&o);
    assert!(xml.contains("message=\"1 finding: 1 new, 0 unchanged (error at worst)\""), "{xml}");
    assert_eq!(xml.matches("[new] ALN001").count(), 1, "{xml}");
    assert_eq!(xml.matches("[unchanged] ").count(), 16, "{xml}");
}
