//! End-to-end tests of expected gains: the findings of the examples carry the estimates their
//! rules' docs state, in JSON, SARIF and the text report, and `spindle check --sort gain` puts the
//! findings with the largest gain first in every format.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use spindle_test_support::multitool;
use spindle_test_support::sarif as sarif_schema;
use tempfile::TempDir;

fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(path)
}

fn spindle(args: &[&str]) -> Output {
    spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .arg("--no-config")
        .output()
        .expect("spindle runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn json_findings(args: &[&str]) -> Vec<Value> {
    let o = spindle(&[&["check", "--format", "json"], args].concat());
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["findings"].as_array().unwrap().clone())
        .collect()
}

/// What `--sort gain` ranks by: the high end, a latency cut as the speed-up it gives.
fn rank(f: &Value) -> f64 {
    let g = &f["gain"];
    if g.is_null() {
        return -1.0;
    }
    let high = g["high_percent"].as_f64().unwrap();
    match g["better"].as_str().unwrap() {
        "higher" => high,
        _ => (100.0 / (100.0 - high.min(95.0)) - 1.0) * 100.0,
    }
}

#[test]
fn the_examples_findings_carry_their_rules_estimates() {
    let sector63 = example("win2003-sector63/erp-sql1.json");
    let findings = json_findings(&[sector63.to_str().unwrap()]);
    let aln: Vec<&Value> = findings.iter().filter(|f| f["code"] == "ALN001").collect();
    assert!(!aln.is_empty());
    for f in &aln {
        let g = &f["gain"];
        assert_eq!(
            (g["better"].as_str(), g["low_percent"].as_f64(), g["high_percent"].as_f64()),
            (Some("higher"), Some(13.0), Some(21.0))
        );
        assert!(g["url"].as_str().unwrap().starts_with("https://learn.microsoft.com/"), "{g}");
        assert!(g["after"].is_null());
    }
    // Cluster size alone: no public measurement, no estimate.
    assert!(findings.iter().filter(|f| f["code"] == "FMT001").all(|f| f["gain"].is_null()));

    let spaces = example("azure-storage-spaces/azsql-oltp01.json");
    let findings = json_findings(&[spaces.to_str().unwrap()]);
    let str001 = findings.iter().find(|f| f["code"] == "STR001").expect("8 columns of 16 disks");
    assert_eq!(
        (str001["gain"]["low_percent"].as_f64(), str001["gain"]["high_percent"].as_f64()),
        (Some(70.0), Some(85.0))
    );

    // The shared-spindle RAID: 15,000 rpm disks, the log's measured 9 ms average write stall.
    let shared = example("hdd-raid-shared-spindles");
    let findings = json_findings(&[shared.to_str().unwrap()]);
    let med = findings.iter().find(|f| f["code"] == "MED001").expect("a log on shared spindles");
    let g = &med["gain"];
    assert_eq!(g["better"], "lower");
    assert_eq!(g["after"], serde_json::json!({"low_ms": 0.1, "high_ms": 2.1}));
    // (9 - 2.1) / 9 = 76.7 %, (9 - 0.1) / 9 = 98.9 %.
    assert_eq!((g["low_percent"].as_f64(), g["high_percent"].as_f64()), (Some(77.0), Some(99.0)));
    assert!(g["assumptions"].as_str().unwrap().contains("averaged 9 ms"), "{g}");
}

#[test]
fn sort_gain_puts_the_largest_gain_first_in_json_and_text() {
    let shared = example("hdd-raid-shared-spindles");
    let dir = shared.to_str().unwrap();
    let triage = json_findings(&[dir]);
    let by_gain = json_findings(&[dir, "--sort", "gain"]);
    assert_eq!(triage.len(), by_gain.len(), "sorting drops nothing");
    // Triage puts measured harm (latency) first; MED001, a layout cause, has the host's only
    // estimate.
    assert_ne!(triage[0]["code"], "MED001");
    assert_eq!(by_gain[0]["code"], "MED001");
    let ranks: Vec<f64> = by_gain.iter().map(rank).collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "descending: {ranks:?}");
    // Those with no estimate keep their triage order after the others.
    let rest = |v: &[Value]| -> Vec<String> {
        v.iter().filter(|f| f["gain"].is_null()).map(|f| f["fingerprint"].to_string()).collect()
    };
    assert_eq!(rest(&triage), rest(&by_gain));

    let text = |extra: &[&str]| stdout(&spindle(&[&["check", dir], extra].concat()));
    let first_group = |t: &str| t.lines().find(|l| l.starts_with("── ")).map(str::to_string).unwrap();
    assert!(!first_group(&text(&[])).contains("MED001"));
    let sorted = text(&["--sort", "gain"]);
    assert!(first_group(&sorted).contains("MED001"), "{sorted}");
    let gain_line = sorted.lines().find(|l| l.trim_start().starts_with("gain: ")).expect("a gain line");
    assert!(gain_line.contains("−77 % to −99 % log write service time"), "{gain_line}");
    assert!(sorted.contains("<https://en.wikipedia.org/wiki/Hard_disk_drive_performance_characteristics>"));

    // The other formats people read group the same way.
    let concise = text(&["--sort", "gain", "--format", "concise"]);
    assert!(concise.lines().next().unwrap().contains("MED001"), "{concise}");
    let markdown = text(&["--sort", "gain", "--format", "markdown"]);
    let heading = markdown.lines().find(|l| l.starts_with("#### ")).unwrap();
    assert!(heading.contains("MED001"), "{heading}");
    assert!(markdown.contains("**Expected gain:** −77 % to −99 %"), "{markdown}");
}

#[test]
fn sarif_results_carry_the_gain_and_the_log_stays_valid() {
    let sector63 = example("win2003-sector63/erp-sql1.json");
    let o = spindle(&["check", sector63.to_str().unwrap(), "--format", "sarif", "--sort", "gain"]);
    assert_eq!(o.status.code(), Some(1));
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let results = log["runs"][0]["results"].as_array().unwrap();
    let first = &results[0];
    assert_eq!(first["ruleId"], "ALN001", "the estimate first");
    let g = &first["properties"]["gain"];
    assert_eq!(
        (g["lowPercent"].as_f64(), g["highPercent"].as_f64(), g["better"].as_str()),
        (Some(13.0), Some(21.0), Some("higher"))
    );
    assert!(g.get("afterLowMs").is_none());
    assert!(
        results.iter().filter(|r| r["ruleId"] == "FMT001").all(|r| r["properties"].get("gain").is_none())
    );
    // The rule's help states the evidence the estimate comes from.
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let aln = rules.iter().find(|r| r["id"] == "ALN001").unwrap();
    assert!(aln["help"]["markdown"].as_str().unwrap().contains("## Expected gain"));
    if let Some(tool) = multitool::multitool() {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("gain.sarif");
        fs::write(&path, stdout(&o)).unwrap();
        let findings = multitool::validate(&tool, &[path]);
        assert!(findings.is_empty(), "the SARIF Multitool reports:\n{}", findings.join("\n"));
    }
}

#[test]
fn sort_takes_only_its_two_orders() {
    let sector63 = example("win2003-sector63/erp-sql1.json");
    let o = spindle(&["check", sector63.to_str().unwrap(), "--sort", "size"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("triage"));
}
