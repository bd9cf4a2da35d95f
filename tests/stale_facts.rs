//! Two snapshots of one host from the same collector: the newer one's facts are checked, and the
//! run says which files it chose between; never the first file's facts in silence. Files of one
//! host from different collectors (host storage and SQL Server) still merge without a word.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_TODAY", "2026-12-05")
        .env_remove("SPINDLE_CACHE_DIR")
        .output()
        .expect("spindle runs")
}

fn example(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(path)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The bundled sector-63 server, as collected at `at`, its partitions moved to `offset_bytes`
/// when given (1 MiB: as it was before someone restored the old layout).
fn erp_sql1(dir: &Path, name: &str, at: &str, offset_bytes: Option<u64>) -> PathBuf {
    let text = fs::read_to_string(example("win2003-sector63/erp-sql1.json")).unwrap();
    let mut snapshot: Value = serde_json::from_str(&text).unwrap();
    snapshot["collected_at"] = at.into();
    if let Some(offset) = offset_bytes {
        for p in snapshot["partitions"].as_array_mut().unwrap() {
            p["offset_bytes"] = offset.into();
        }
    }
    let path = dir.join(name);
    fs::write(&path, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
    path
}

/// The ALN001 findings of a JSON report, each with the file its location is in.
fn aln001_files(report: &Value) -> Vec<String> {
    report["hosts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "ALN001")
        .map(|f| f["location"]["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string())
        .collect()
}

#[test]
fn the_newer_of_two_snapshots_of_one_host_is_checked_and_both_are_named() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let old = "erp-sql1-2026-12-03.json";
    let new = "erp-sql1-2026-12-04.json";
    erp_sql1(d, old, "2026-12-03T08:00:00+01:00", Some(1_048_576));
    erp_sql1(d, new, "2026-12-04T08:00:00+01:00", None);

    let o = spindle(&["check", d.to_str().unwrap(), "--select", "ALN001", "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "today's sector 63 is checked, not yesterday's 1 MiB: {}",
        stderr(&o)
    );
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let files = aln001_files(&report);
    assert!(!files.is_empty() && files.iter().all(|f| f == new), "{files:?}");
    let err = stderr(&o);
    let warning =
        err.lines().find(|l| l.starts_with("warning: erp-sql1: ")).unwrap_or_else(|| panic!("{err}"));
    assert!(warning.contains(old) && warning.contains(new), "{warning}");
    assert!(
        warning.contains("partitions") && warning.contains(&format!("the newer, {}", d.join(new).display())),
        "{warning}"
    );

    // The report itself says it too, for a pipeline that keeps the report and not the log.
    let stale = &report["hosts"][0]["stale_facts"];
    assert_eq!(stale.as_array().map(Vec::len), Some(1), "{stale:#}");
    assert!(stale[0]["older"].as_str().unwrap().ends_with(old), "{stale:#}");
    assert!(stale[0]["newer"].as_str().unwrap().ends_with(new), "{stale:#}");
    assert_eq!(stale[0]["newer_collected_at"], "2026-12-04T08:00:00+01:00");
    assert!(stale[0]["sections"].as_array().unwrap().iter().any(|s| s == "partitions"), "{stale:#}");
    let o = spindle(&["check", d.to_str().unwrap(), "--select", "ALN001", "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    let note =
        notes.iter().find(|n| n["descriptor"]["id"] == "stale-facts").expect("a stale-facts notification");
    assert_eq!(note["level"], "warning");
    let text = note["message"]["text"].as_str().unwrap();
    assert!(text.contains(old) && text.contains(new), "{text}");
    let descriptors = sarif["runs"][0]["tool"]["driver"]["notifications"].as_array().unwrap();
    assert_eq!(descriptors[note["descriptor"]["index"].as_u64().unwrap() as usize]["id"], "stale-facts");

    // The dates, not the names, decide: collected the other way round, the aligned file is the
    // newer one, and ALN001 passes on it.
    erp_sql1(d, old, "2026-12-04T09:00:00+01:00", Some(1_048_576));
    let o = spindle(&["check", d.to_str().unwrap(), "--select", "ALN001", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(aln001_files(&report).is_empty());
    assert!(report["hosts"][0]["passed"].as_array().is_some_and(|p| !p.is_empty()), "{report:#}");
    let err = stderr(&o);
    assert!(err.contains(&format!("the newer, {}", d.join(old).display())), "{err}");
}

#[test]
fn host_and_sql_server_files_of_one_host_merge_without_a_warning() {
    let o = spindle(&["check", example("linux-xfs-md").to_str().unwrap(), "--format", "json"]);
    let err = stderr(&o);
    assert!(!err.contains("both describe"), "{err}");
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["hosts"][0]["sources"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["hosts"][0]["stale_facts"], Value::Array(vec![]));
}
