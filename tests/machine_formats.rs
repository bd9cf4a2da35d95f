//! Provenance, numbers and passes in the machine formats, end to end: the binary run on the
//! bundled examples with the example packs, its JSON and SARIF parsed and checked.

use spindle_test_support::sarif as sarif_schema;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `spindle check <example> --format <format> --pack acme-production`, the clock pinned, from
/// the repository root (so paths in the report are relative to it).
fn check_with(example: &str, format: &str, today: Option<&str>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spindle"));
    cmd.current_dir(root()).arg("check").arg(Path::new("examples").join(example)).args([
        "--format",
        format,
        "--fail-on",
        "never",
        "--pack",
        "examples/packs/acme-production.toml",
    ]);
    match today {
        Some(t) => cmd.env("SPINDLE_TODAY", t),
        None => cmd.env_remove("SPINDLE_TODAY"),
    };
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(example: &str, format: &str) -> Value {
    check_with(example, format, Some("2026-11-30"))
}

fn snapshot(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(path)).unwrap()).unwrap()
}

/// A snapshot's collectors as reports list them: name and version.
fn collectors(file: &Value) -> Value {
    file["collectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::json!({"name": c["name"], "version": c["version"]}))
        .collect()
}

fn rule<'a>(report: &'a Value, code: &str) -> &'a Value {
    report["rules"].as_array().unwrap().iter().find(|r| r["code"] == code).unwrap()
}

fn param<'a>(rule: &'a Value, name: &str) -> &'a Value {
    rule["params"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()
}

#[test]
fn json_carries_the_run_the_packs_and_the_parameters_applied() {
    let r = check("win2003-sector63", "json");
    assert_eq!(r["report_version"], 3);
    assert_eq!(r["started_at"], "2026-11-30T00:00:00Z", "SPINDLE_TODAY pins the clock");
    let packs: Vec<&str> = r["packs"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(packs, ["builtin:recommended", "builtin:oltp", "examples/packs/acme-production.toml"]);

    // acme's 25 % replaces CAP001's default of 20 %, and says which pack set it.
    let cap = param(rule(&r, "CAP001"), "min_free_percent");
    assert_eq!(cap["value"], 25);
    assert_eq!(cap["default"], 20);
    assert_eq!(cap["set_by"], "examples/packs/acme-production.toml");
    // A default applies as a default.
    let aln = param(rule(&r, "ALN001"), "alignment_bytes");
    assert_eq!((aln["value"].as_u64(), aln["default"].as_u64()), (Some(65536), Some(65536)));
    assert!(aln["set_by"].is_null());
    // A fractional parameter stays a number.
    assert_eq!(param(rule(&r, "LAT003"), "floor_ssd_ms")["value"].as_f64().unwrap(), 0.1);
    // A rule without parameters lists none.
    assert_eq!(rule(&r, "GRW003")["params"], serde_json::json!([]));
}

#[test]
fn json_says_when_and_by_what_each_snapshot_was_collected() {
    let r = check("linux-xfs-md", "json");
    let host = &r["hosts"][0];
    let snapshots = host["snapshots"].as_array().unwrap();
    assert_eq!(snapshots.len(), 2);
    for (s, source) in snapshots.iter().zip(host["sources"].as_array().unwrap()) {
        assert_eq!(s["path"], *source);
        let file = snapshot(s["path"].as_str().unwrap());
        assert_eq!(s["collected_at"], file["collected_at"]);
        assert_eq!(s["collectors"], collectors(&file), "name and version, as the snapshot has them");
    }
    assert_eq!(snapshots[0]["collectors"][0]["name"], "linux");
    assert_eq!(snapshots[1]["collectors"][0]["name"], "sql");
}

fn findings<'a>(host: &'a Value, code: &str) -> Vec<&'a Value> {
    host["findings"].as_array().unwrap().iter().filter(|f| f["code"] == code).collect()
}

#[test]
fn json_findings_carry_their_numbers_with_units() {
    let r = check("win2003-sector63", "json");
    let h = &r["hosts"][0];
    let aln = findings(h, "ALN001");
    assert!(!aln.is_empty());
    for f in aln {
        assert_eq!(f["quantities"], serde_json::json!({"measured_bytes": 32256, "expected_bytes": 65536}));
        assert!(f["measured"].as_str().unwrap().starts_with("32,256 B"));
    }
    let lat = findings(h, "LAT001");
    let slow = lat.iter().find(|f| f["message"].as_str().unwrap().contains("149.4 ms")).unwrap();
    assert_eq!(slow["quantities"]["measured_ms"].as_f64(), Some(149.4));
    assert_eq!(slow["quantities"]["expected_ms"].as_f64(), Some(20.0));
    // A rule measuring no number has an empty object, never a missing key.
    for f in h["findings"].as_array().unwrap() {
        assert!(f["quantities"].is_object(), "{f}");
    }
}

#[test]
fn json_lists_what_each_rule_judged_and_passed() {
    let aligned = check("win2003-aligned", "json");
    let h = &aligned["hosts"][0];
    let passed = h["passed"].as_array().unwrap();
    let aln = passed.iter().find(|p| p["code"] == "ALN001").expect("aligned partitions pass ALN001");
    assert_eq!(aln["rule"], "partition-offset-alignment");
    let keys: Vec<&str> = aln["keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert!(!keys.is_empty());
    for key in &keys {
        assert!(key.contains("/partition:"), "{key}");
    }
    // The same partitions fail on the sector-63 twin: none of them passes there.
    let sector63 = check("win2003-sector63", "json");
    let h63 = &sector63["hosts"][0];
    let failed: Vec<&str> =
        findings(h63, "ALN001").iter().map(|f| f["entity"]["key"].as_str().unwrap()).collect();
    for p in h63["passed"].as_array().unwrap() {
        for k in p["keys"].as_array().unwrap() {
            let key = k.as_str().unwrap();
            assert!(p["code"] != "ALN001" || !failed.contains(&key), "{key} both failed and passed");
            // Nothing passes that a rule could not evaluate.
            assert!(
                !h63["not_evaluated"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|n| n["code"] == p["code"] && n["entity"]["key"] == key),
                "{key} passed {} while not evaluated",
                p["code"]
            );
        }
    }
    // A snapshot-wide rule that could not run passes nothing: ALN002 lacks the RAID stripe unit.
    assert!(!h63["passed"].as_array().unwrap().iter().any(|p| p["code"] == "ALN002"));
    // The summary counts every pass.
    let total: usize =
        h63["passed"].as_array().unwrap().iter().map(|p| p["keys"].as_array().unwrap().len()).sum();
    assert_eq!(sector63["summary"]["passed"], total);
    assert!(total > 0);
}

#[test]
fn sarif_carries_the_start_time_configuration_and_snapshots() {
    let log = check("linux-xfs-md", "sarif");
    sarif_schema::assert_valid_sarif(&log);
    let run = &log["runs"][0];
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["startTimeUtc"], "2026-11-30T00:00:00Z");

    let overrides = invocation["ruleConfigurationOverrides"].as_array().unwrap();
    let cap = overrides.iter().find(|o| o["descriptor"]["id"] == "CAP001").unwrap();
    assert_eq!(cap["configuration"]["parameters"]["min_free_percent"], 25);
    assert_eq!(cap["properties"]["defaults"]["min_free_percent"], 20);
    assert_eq!(cap["properties"]["setBy"]["min_free_percent"], "examples/packs/acme-production.toml");
    let index = cap["descriptor"]["index"].as_u64().unwrap() as usize;
    assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "CAP001");
    let aln = overrides.iter().find(|o| o["descriptor"]["id"] == "ALN001").unwrap();
    assert_eq!(aln["configuration"]["parameters"]["alignment_bytes"], 65536);
    assert_eq!(aln["properties"]["setBy"], serde_json::json!({}), "the default applies");

    assert_eq!(run["properties"]["packs"][2], "examples/packs/acme-production.toml");
    let artifacts = run["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 2);
    for a in artifacts {
        let path = a["location"]["uri"].as_str().unwrap();
        let file = snapshot(path);
        assert_eq!(a["roles"], serde_json::json!(["analysisTarget"]));
        assert_eq!(a["properties"]["host"], "lnx-sql01");
        assert_eq!(a["properties"]["collectedAt"], file["collected_at"]);
        assert_eq!(a["properties"]["collectors"], collectors(&file));
    }
}

#[test]
fn sarif_results_carry_numbers_and_passes_stay_out_of_results() {
    let log = check("win2003-sector63", "sarif");
    sarif_schema::assert_valid_sarif(&log);
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    let aln = results.iter().find(|r| r["ruleId"] == "ALN001").unwrap();
    assert_eq!(aln["properties"]["measuredBytes"], 32256);
    assert_eq!(aln["properties"]["expectedBytes"], 65536);
    // Code scanning counts every result: passes are only counted, never results.
    assert!(results.iter().all(|r| r.get("kind").is_none_or(|k| k != "pass")));
    let json = check("win2003-sector63", "json");
    assert_eq!(results.len(), json["hosts"][0]["findings"].as_array().unwrap().len());
    let summary = &run["invocations"][0]["properties"]["summary"];
    assert_eq!(summary["passed"], json["summary"]["passed"]);
}

#[test]
fn without_a_pinned_clock_the_start_time_is_now() {
    let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let r = check_with("win2003-aligned", "json", None);
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let started = r["started_at"].as_str().unwrap();
    let within: Vec<String> = (before..=after).map(spindle_core::date::rfc3339_utc).collect();
    assert!(
        within.iter().any(|t| t == started),
        "{started} is not between {} and {}",
        within[0],
        within[within.len() - 1]
    );
    let log = check_with("win2003-aligned", "sarif", None);
    sarif_schema::assert_valid_sarif(&log);
}
