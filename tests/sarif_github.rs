//! SARIF for GitHub code scanning, end to end on the binary: Microsoft's SARIF Multitool finds
//! nothing to say (SARIF, GitHub and GitHub Advanced Security rules) about the logs of every
//! example, a fleet with a server that refuses, a run with plugins and one with waivers; the
//! analysis category; one log per host; waived findings; the warnings near GitHub's limits.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::EXAMPLES;
use spindle_test_support::mock_sql::Peers;
use spindle_test_support::multitool;
use spindle_test_support::sarif::assert_valid_sarif_text;
use tempfile::TempDir;

const ACME: &str = "examples/packs/acme-production.toml";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `spindle check ARGS` from the repository root, the clock pinned (acme's waivers apply).
fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(root())
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_SQL_PASSWORD", "not-a-secret")
        .env_remove("SPINDLE_CACHE_DIR")
        .output()
        .expect("spindle runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn example(name: &str) -> String {
    format!("examples/{name}")
}

fn read_log(path: &Path) -> Value {
    assert_valid_sarif_text(&fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The logs written into `dir` by `--split-by host`, by file name.
fn split_logs(dir: &Path) -> Vec<(String, Value)> {
    let mut logs: Vec<(String, Value)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sarif"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), read_log(&p)))
        .collect();
    logs.sort_by(|a, b| a.0.cmp(&b.0));
    logs
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

/// The run's flags to reach a server that refuses every connection.
fn refusing_server(peers: &Peers) -> Vec<String> {
    ["--server", &peers.refusing(), "--user", "spindle", "--encrypt", "off", "--connect-timeout", "2s"]
        .map(String::from)
        .to_vec()
}

#[test]
fn the_multitool_finds_nothing_in_any_log_spindle_writes() {
    let Some(tool) = multitool::multitool() else { return };
    let dir = TempDir::new().unwrap();
    let run = |name: &str, args: &[&str]| {
        let out = dir.path().join(format!("{name}.sarif"));
        let mut all = vec!["check", "--format", "sarif", "--fail-on", "never", "-o", s(&out)];
        all.extend_from_slice(args);
        let o = spindle(&all);
        assert!(o.status.code().is_some_and(|c| c <= 2), "{name}: {}", stderr(&o));
        read_log(&out);
        out
    };
    let mut logs: Vec<PathBuf> = EXAMPLES.iter().map(|ex| run(ex, &[&example(ex)])).collect();
    // Waivers (acme waives erp-sql1's sector-63 findings), in each way a log can show them.
    for waived in ["keep", "note", "omit"] {
        logs.push(run(
            &format!("waivers-{waived}"),
            &[&example("win2003-sector63"), "--pack", ACME, "--waived", waived],
        ));
    }
    // A fleet with a server that refuses: a collection error, in one log and split by host.
    let peers = Peers::new();
    let refusing = refusing_server(&peers);
    let paths: Vec<String> = EXAMPLES.iter().map(|e| example(e)).collect();
    let mut fleet: Vec<&str> = paths.iter().map(String::as_str).collect();
    fleet.extend(refusing.iter().map(String::as_str));
    fleet.extend(["--pack", ACME, "--sarif-category", "fleet"]);
    logs.push(run("fleet-collection-error", &fleet));
    let split = dir.path().join("split");
    let mut args = vec!["check", "--format", "sarif", "--split-by", "host", s(&split)];
    args.extend_from_slice(&fleet);
    let o = spindle(&args);
    assert_eq!(o.status.code(), Some(2), "a server not collected leaves the run incomplete: {}", stderr(&o));
    let split_files: Vec<PathBuf> =
        split_logs(&split).into_iter().map(|(name, _)| split.join(name)).collect();
    assert_eq!(split_files.len(), EXAMPLES.len() + 1);
    logs.extend(split_files);
    // Plugins: the acme plugin's rules beside the builtin ones.
    spindle_test_support::plugins::plugins();
    logs.push(run(
        "plugins",
        &[
            &example("win2003-sector63"),
            &example("linux-xfs-md"),
            "--pack",
            "examples/packs/acme-plugins.toml",
        ],
    ));
    let with_plugin = read_log(logs.last().unwrap());
    assert!(
        results(&with_plugin).iter().any(|r| r["ruleId"].as_str().is_some_and(|id| id.starts_with("acme/"))),
        "the plugin's rules report"
    );

    let findings = multitool::validate(&tool, &logs);
    assert!(findings.is_empty(), "the SARIF Multitool reports:\n{}", findings.join("\n"));
}

#[test]
fn the_multitool_check_can_fail() {
    let Some(tool) = multitool::multitool() else { return };
    // A log GitHub Advanced Security refuses: a notification descriptor with no full description
    // and no help (what spindle wrote before), and a rule with no help.
    let dir = TempDir::new().unwrap();
    let bad = dir.path().join("bad.sarif");
    let log = serde_json::json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "spindle", "version": "0.1.0", "informationUri": "https://github.com/spindle-sql/spindle",
                "rules": [{"id": "ALN001", "shortDescription": {"text": "Partition offset."}}],
                "notifications": [{"id": "rule-error", "shortDescription": {"text": "A rule failed."}}]
            }},
            "results": []
        }]
    });
    fs::write(&bad, serde_json::to_string_pretty(&log).unwrap()).unwrap();
    let findings = multitool::validate(&tool, &[bad]);
    assert!(findings.iter().any(|f| f.contains("GH2012")), "{findings:#?}");
}

#[test]
fn the_category_is_the_runs_automation_id() {
    for (given, id) in [("erp-fleet", "erp-fleet/"), ("spindle/erp/", "spindle/erp/")] {
        let o =
            spindle(&["check", &example("win2003-aligned"), "--format", "sarif", "--sarif-category", given]);
        let log = assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap());
        assert_eq!(log["runs"][0]["automationDetails"]["id"], id);
    }
    // Without the flag, no id: upload-sarif's `category` input fills it in.
    let o = spindle(&["check", &example("win2003-aligned"), "--format", "sarif"]);
    let log = assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap());
    assert!(log["runs"][0].get("automationDetails").is_none());
    // Only SARIF has one, and it is a name.
    for args in
        [["--format", "json", "--sarif-category", "x"], ["--format", "sarif", "--sarif-category", "/"]]
    {
        let mut all = vec!["check", "examples/win2003-aligned"];
        all.extend_from_slice(&args);
        let o = spindle(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains("--sarif-category"), "{}", stderr(&o));
    }
}

/// The waived results of `log`: those with a suppression.
fn waived(log: &Value) -> Vec<&Value> {
    results(log).iter().filter(|r| r.get("suppressions").is_some()).collect()
}

#[test]
fn waived_findings_are_kept_lowered_to_notes_or_left_out() {
    let log_for = |how: Option<&str>| {
        let mut args = vec!["check", "examples/win2003-sector63", "--format", "sarif", "--pack", ACME];
        if let Some(how) = how {
            args.extend(["--waived", how]);
        }
        let o = spindle(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap())
    };
    let json = spindle(&["check", "examples/win2003-sector63", "--format", "json", "--pack", ACME]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let waived_count = json["summary"]["waived"].as_u64().unwrap() as usize;
    assert!(waived_count > 0, "acme waives erp-sql1's partition findings");

    let keep = log_for(Some("keep"));
    let kept = waived(&keep);
    assert_eq!(kept.len(), waived_count);
    for r in &kept {
        assert_ne!(r["level"], "note", "keep: the rule's severity");
        assert_eq!(r["suppressions"][0]["status"], "accepted");
        assert!(!r["message"]["text"].as_str().unwrap().contains("Waived"));
    }
    assert_eq!(keep["runs"][0]["properties"]["waived"], "keep");

    // The default: notes that say why, with the rule's severity kept in the properties.
    let note = log_for(None);
    assert_eq!(note, log_for(Some("note")));
    let notes = waived(&note);
    assert_eq!(notes.len(), waived_count);
    for (r, k) in notes.iter().zip(&kept) {
        assert_eq!(r["partialFingerprints"], k["partialFingerprints"]);
        assert_eq!(r["level"], "note");
        assert_eq!(r["properties"]["severity"], k["level"]);
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.starts_with(k["message"]["text"].as_str().unwrap()), "{text}");
        assert!(text.contains(&format!("Waived until 2027-06-30 by {ACME}")), "{text}");
        assert!(text.contains("Sector-63 partitions on the legacy ERP server"), "{text}");
    }
    // Findings no waiver covers are the same in every mode.
    let open = |log: &Value| -> Vec<Value> {
        results(log).iter().filter(|r| r.get("suppressions").is_none()).cloned().collect()
    };
    assert_eq!(open(&note), open(&keep));

    let omit = log_for(Some("omit"));
    assert!(waived(&omit).is_empty());
    assert_eq!(open(&omit), open(&keep));
    assert_eq!(results(&omit).len(), results(&keep).len() - waived_count);
    assert_eq!(omit["runs"][0]["properties"]["waived"], "omit");
    assert_eq!(omit["runs"][0]["properties"]["waivedOmitted"], waived_count);
    assert_eq!(omit["runs"][0]["invocations"][0]["properties"]["summary"]["waived"], waived_count);

    // Once the waiver has expired, every mode writes the findings as open, at the rule's level.
    for how in ["keep", "note", "omit"] {
        let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .current_dir(root())
            .args([
                "check",
                "examples/win2003-sector63",
                "--format",
                "sarif",
                "--pack",
                ACME,
                "--waived",
                how,
            ])
            .env("SPINDLE_TODAY", "2027-07-01")
            .output()
            .unwrap();
        let expired = assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap());
        assert!(waived(&expired).is_empty(), "{how}");
        assert_eq!(results(&expired).len(), results(&keep).len(), "{how}");
        let levels =
            |log: &Value| -> Vec<Value> { results(log).iter().map(|r| r["level"].clone()).collect() };
        assert_eq!(levels(&expired), levels(&keep), "{how}");
    }
}

/// Copies of `erp-sql1` under the names `names`, in a new directory of `dir`.
fn fleet_of(dir: &Path, sub: &str, names: impl IntoIterator<Item = String>) -> PathBuf {
    let text = fs::read_to_string(root().join("examples/win2003-sector63/erp-sql1.json")).unwrap();
    assert_eq!(text.matches("\"erp-sql1\"").count(), 1, "the host's name, once");
    let fleet = dir.join(sub);
    fs::create_dir_all(&fleet).unwrap();
    for (i, name) in names.into_iter().enumerate() {
        let renamed = text.replace("\"erp-sql1\"", &serde_json::to_string(&name).unwrap());
        fs::write(fleet.join(format!("host{i:05}.json")), renamed).unwrap();
    }
    fleet
}

#[test]
fn split_by_host_writes_a_valid_log_per_host_each_its_own_category() {
    let dir = TempDir::new().unwrap();
    // Two hosts whose names make the same file name, and one a path would misplace.
    let names = ["erp-sql1", "Fleet A", "fleet_a", "../../escape"].map(String::from);
    let fleet = fleet_of(dir.path(), "fleet", names.clone());
    let peers = Peers::new();
    let refusing = refusing_server(&peers);
    let out = dir.path().join("sarif");
    let mut args =
        vec!["check", s(&fleet), "--format", "sarif", "--pack", ACME, "--split-by", "host", s(&out)];
    args.extend(refusing.iter().map(String::as_str));
    let split = spindle(&args);
    // The exit status is the run's, split or not.
    let mut one_log = vec!["check", s(&fleet), "--format", "sarif", "--pack", ACME];
    one_log.extend(refusing.iter().map(String::as_str));
    let whole = spindle(&one_log);
    assert_eq!(split.status.code(), Some(2), "{}", stderr(&split));
    assert_eq!(split.status.code(), whole.status.code());
    assert!(split.stdout.is_empty(), "the logs go to the directory");
    assert!(stderr(&split).contains(&format!("→ {}", out.display())), "{}", stderr(&split));

    let logs = split_logs(&out);
    let files: Vec<&str> = logs.iter().map(|(n, _)| n.as_str()).collect();
    let server = refusing[1].replace(',', "_");
    // A name kept as it is (but for case) is its own stem; one changed to make a file name ends
    // `~` and its hash, so it is no other name's stem.
    // Sorted: the server's stem starts with a digit.
    let expected = [&format!("{server}~"), "_.._escape~", "erp-sql1.sarif", "fleet_a.sarif", "fleet_a~"];
    assert_eq!(files.len(), expected.len(), "{files:?}");
    for (file, want) in files.iter().zip(expected) {
        match want.strip_suffix('~') {
            Some(stem) => {
                let hash = file.strip_prefix(&format!("{stem}~")).and_then(|h| h.strip_suffix(".sarif"));
                assert!(hash.is_some_and(|h| h.len() == 16), "{file}: {stem}~ and a hash");
            }
            None => assert_eq!(*file, want),
        }
    }
    // Nothing else is left in the directory (the staging directory is gone).
    assert_eq!(fs::read_dir(&out).unwrap().count(), files.len());

    let categories: BTreeSet<String> = logs
        .iter()
        .map(|(name, log)| {
            let id = log["runs"][0]["automationDetails"]["id"].as_str().unwrap().to_string();
            assert_eq!(id, format!("spindle/{}/", name.trim_end_matches(".sarif")));
            id
        })
        .collect();
    assert_eq!(categories.len(), logs.len(), "distinct categories");

    // Each host's log holds that host's results and counts, and the whole run's are their sum.
    let whole = assert_valid_sarif_text(&String::from_utf8(whole.stdout).unwrap());
    let mut total = 0;
    for (name, log) in &logs {
        let run = &log["runs"][0];
        let summary = &run["invocations"][0]["properties"]["summary"];
        if name.starts_with("127.0.0.1") {
            assert!(results(log).is_empty());
            assert_eq!(summary["collectionErrors"], 1);
            assert_eq!(run["invocations"][0]["executionSuccessful"], false);
            let note = &run["invocations"][0]["toolExecutionNotifications"][0];
            assert_eq!(note["descriptor"]["id"], "collection-error");
            continue;
        }
        assert_eq!(summary["hosts"], 1);
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
        let hosts: BTreeSet<&str> =
            results(log).iter().map(|r| r["properties"]["host"].as_str().unwrap()).collect();
        assert_eq!(hosts.len(), 1, "{name}: one host's results");
        assert!(names.iter().any(|n| hosts.contains(n.as_str())));
        assert_eq!(run["artifacts"].as_array().unwrap().len(), 1);
        total += results(log).len();
    }
    assert_eq!(total, results(&whole).len());

    // Microsoft's validator takes every one.
    if let Some(tool) = multitool::multitool() {
        let paths: Vec<PathBuf> = logs.iter().map(|(n, _)| out.join(n)).collect();
        let findings = multitool::validate(&tool, &paths);
        assert!(findings.is_empty(), "{}", findings.join("\n"));
    }

    // A second run into the same directory would mix its logs with stale ones: refused, and
    // nothing is written.
    let again = spindle(&["check", s(&fleet), "--format", "sarif", "--split-by", "host", s(&out)]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("earlier run"), "{}", stderr(&again));
    assert_eq!(split_logs(&out), logs);
}

#[test]
fn split_by_takes_host_sarif_and_no_output() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("logs");
    for (args, says) in [
        (vec!["--format", "sarif", "--split-by", "disk", s(&out)], "by `host` only"),
        (vec!["--format", "json", "--split-by", "host", s(&out)], "apply to --format sarif"),
    ] {
        let mut all = vec!["check", "examples/win2003-aligned"];
        all.extend(args);
        let o = spindle(&all);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert!(!out.exists(), "nothing written");
    }
    let o = spindle(&[
        "check",
        "examples/win2003-aligned",
        "--format",
        "sarif",
        "--split-by",
        "host",
        s(&out),
        "-o",
        "x.sarif",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn a_log_near_githubs_limits_says_so() {
    // The issue's fleet: 1,100 hosts like erp-sql1.
    let dir = TempDir::new().unwrap();
    let fleet = fleet_of(dir.path(), "fleet", (0..1100).map(|i| format!("erp-sql1-{i:04}")));
    let out = dir.path().join("fleet.sarif");
    let o = spindle(&["check", s(&fleet), "--format", "sarif", "--fail-on", "never", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = fs::read_to_string(&out).unwrap();
    let log: Value = serde_json::from_str(&text).unwrap();
    let count = results(&log).len();
    let bytes = text.len();
    let err = stderr(&o);
    let thousands = |n: usize| spindle_core::units::thousands(n as u64);
    assert!(count > 25_000, "the fleet crosses GitHub's limit ({count} results)");
    assert!(
        err.contains(&format!(
            "warning: the SARIF run has {} results: GitHub code scanning rejects",
            thousands(count)
        )),
        "{err}"
    );
    assert!(bytes > 80_000_000, "{bytes} bytes");
    assert!(err.contains(&format!("warning: the SARIF log is {} bytes", thousands(bytes))), "{err}");

    // Split by host, no log nears anything.
    let split = dir.path().join("split");
    let o = spindle(&[
        "check",
        s(&fleet),
        "--format",
        "sarif",
        "--fail-on",
        "never",
        "--split-by",
        "host",
        s(&split),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning:"), "{}", stderr(&o));
    let mut files: Vec<PathBuf> = fs::read_dir(&split).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1100);
    files.sort();
    for file in files.iter().step_by(275) {
        assert!(!results(&read_log(file)).is_empty(), "{}", file.display());
    }

    // And a small run says nothing.
    let o = spindle(&[
        "check",
        "examples/win2003-sector63",
        "--format",
        "sarif",
        "-o",
        s(&dir.path().join("one.sarif")),
    ]);
    assert!(!stderr(&o).contains("warning:"), "{}", stderr(&o));
}

#[test]
fn a_run_that_fails_publishes_no_split_log() {
    let dir = TempDir::new().unwrap();
    // Hosts sort by file: the good ones are checked, then the broken one fails the run.
    let fleet = fleet_of(dir.path(), "fleet", (0..3).map(|i| format!("good-{i}")));
    // Its host's name reads (hosts are grouped by it first); the rest is checked as it loads.
    fs::write(fleet.join("zz-broken.json"), r#"{"schema_version": 1, "host": {"name": "zz"}, "disks": 7}"#)
        .unwrap();
    let out = dir.path().join("sarif");
    let o = spindle(&["check", s(&fleet), "--format", "sarif", "--split-by", "host", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("zz-broken.json"), "{}", stderr(&o));
    let left: Vec<_> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "no log, no staging directory: {left:?}");
}

#[test]
fn a_hosts_split_log_keeps_its_name_when_another_host_joins() {
    // GitHub closes a category's alerts when its log stops coming: a host's log name (and
    // category) must not depend on which hosts run beside it.
    let dir = TempDir::new().unwrap();
    let log_names = |sub: &str, names: &[&str]| -> Vec<String> {
        let fleet = fleet_of(dir.path(), sub, names.iter().map(|n| n.to_string()));
        let out = dir.path().join(format!("{sub}-sarif"));
        let o = spindle(&["check", s(&fleet), "--format", "sarif", "--split-by", "host", s(&out)]);
        assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
        split_logs(&out).into_iter().map(|(n, _)| n).collect()
    };
    let alone = log_names("alone", &["sql 1"]);
    // Joined by a host whose name makes the same file name, listed first.
    let joined = log_names("joined", &["sql_1", "sql/1", "sql 1"]);
    assert_eq!(alone.len(), 1);
    assert_eq!(joined.len(), 3, "{joined:?}");
    assert!(joined.contains(&alone[0]), "{alone:?} in {joined:?}");
    assert!(joined.contains(&"sql_1.sarif".to_string()), "a name that is a file name is kept: {joined:?}");
}
