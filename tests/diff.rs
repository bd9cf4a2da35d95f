//! End-to-end tests of `spindle diff BEFORE AFTER`: what changed between two snapshots of the
//! same hosts and what it did, on before/after pairs built from the examples (tests/diff/):
//! the sector-63 ERP server realigned and reformatted as its aligned twin is, the Azure 8-column
//! Storage Spaces space rebuilt with 16 columns, then given 8 more disks in its pool, a night of
//! drift on the aligned server, and the Linux host's log volume reformatted with the data
//! volume's stripe geometry and mounted without `noatime`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

const SECTOR_63: &str = "examples/win2003-sector63/erp-sql1.json";
const REALIGNED: &str = "tests/diff/sector63-realigned/erp-sql1.json";
const EIGHT_COLUMNS: &str = "examples/azure-storage-spaces/azsql-oltp01.json";
const SIXTEEN_COLUMNS: &str = "tests/diff/azure-16-columns/azsql-oltp01.json";
const ALIGNED: &str = "examples/win2003-aligned/erp-sql2.json";
const DRIFTED: &str = "tests/diff/drift/erp-sql2.json";
const POOL_GROWN: &str = "tests/diff/azure-pool-grown/azsql-oltp01.json";
const LINUX: &str = "examples/linux-xfs-md";
const LOG_REFORMATTED: &str = "tests/diff/linux-log-reformatted";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `spindle diff …` from the repository (so reports name files relative to it), with the
/// recommended pack whatever spindle.toml is around.
fn spindle(args: &[&str]) -> Output {
    spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"))
        .arg("diff")
        .args(args)
        .arg("--no-config")
        .current_dir(repo())
        .output()
        .expect("spindle runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The diff as text, which must succeed with status 0.
fn text(before: &str, after: &str) -> String {
    let o = spindle(&[before, after]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

/// The diff as JSON, parsed, with the exit status.
fn json(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let o = spindle(&all);
    let diff = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code(), diff)
}

fn codes(list: &Value) -> Vec<&str> {
    list.as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect()
}

fn file<'a>(host: &'a Value, name: &str) -> &'a Value {
    host["io"].as_array().unwrap().iter().find(|f| f["file"] == name).unwrap_or_else(|| panic!("{name}"))
}

fn metric<'a>(file: &'a Value, name: &str) -> &'a Value {
    file["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap_or_else(|| panic!("{name}"))
}

#[test]
fn the_realigned_sector_63_server_fixes_alignment_and_clusters_and_halves_its_read_stall() {
    let out = text(SECTOR_63, REALIGNED);
    insta::assert_snapshot!("text-sector63-realigned", out);

    let (status, diff) = json(&[SECTOR_63, REALIGNED]);
    assert_eq!(status, Some(0));
    assert_eq!(diff["spindle_diff"], 1);
    let host = &diff["hosts"][0];
    assert_eq!((host["host"].as_str(), host["presence"].as_str()), (Some("erp-sql1"), Some("both")));
    let fixed = codes(&host["findings"]["fixed"]);
    assert_eq!(fixed.iter().filter(|c| **c == "ALN001").count(), 3, "{fixed:?}");
    assert_eq!(fixed.iter().filter(|c| **c == "FMT001").count(), 2, "{fixed:?}");
    assert!(codes(&host["findings"]["new"]).is_empty());
    // Still slow at 74 ms: the same finding, unchanged, though its message changed.
    let lat =
        host["findings"]["unchanged"].as_array().unwrap().iter().find(|f| f["code"] == "LAT001").unwrap();
    assert!(lat["message"].as_str().unwrap().starts_with("average read stall 74 ms"), "{lat}");

    let layout = host["layout"].as_array().unwrap();
    let offsets: Vec<_> = layout.iter().filter(|c| c["kind"] == "partition_offset").collect();
    assert_eq!(offsets.len(), 3);
    assert!(offsets.iter().all(|c| c["before"] == 32256 && c["after"] == 65536), "{offsets:?}");
    let clusters: Vec<_> =
        layout.iter().filter(|c| c["kind"] == "allocation_unit").map(|c| &c["entity"]).collect();
    assert_eq!(
        clusters,
        ["volume D:\\", "volume E:\\"],
        "C: kept its 4 KiB; the new volume GUIDs pair by letter"
    );

    let data = file(host, "MSSQLSERVER › ERP_PROD › ERP_PROD_Data");
    let read = metric(data, "read_stall_ms");
    assert_eq!((read["before"].as_f64(), read["after"].as_f64()), (Some(149.4), Some(74.0)));
    assert!((read["change_percent"].as_f64().unwrap() + 50.47).abs() < 0.01, "{read}");
    assert_eq!(data["before"]["window"], "cumulative");
    assert_eq!(data["after"]["window_ms"], 1_814_400_000u64);
    // Realigning took the server down: the counters of the AFTER side are since that restart.
    assert!(host["warnings"][0].as_str().unwrap().contains("restarted between the snapshots"), "{host}");
}

#[test]
fn a_volume_formatted_again_with_the_same_clusters_keeps_its_finding_unchanged() {
    let dir = TempDir::new().unwrap();
    let realigned = fs::read_to_string(repo().join(REALIGNED)).unwrap();
    // E: got its new GUID, but kept 4 KiB clusters.
    let e = realigned.find("\"E:\\\\\"").unwrap();
    let at = e + realigned[e..].find("\"allocation_unit_bytes\": 65536").unwrap();
    let mut half_done = realigned.clone();
    half_done
        .replace_range(at..at + "\"allocation_unit_bytes\": 65536".len(), "\"allocation_unit_bytes\": 4096");
    let after = write(dir.path(), "erp-sql1.json", &half_done);
    let (_, diff) = json(&[SECTOR_63, s(&after)]);
    let findings = &diff["hosts"][0]["findings"];
    let fmt = |list: &str| -> Vec<String> {
        findings[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "FMT001")
            .map(|f| f["entity"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(fmt("fixed"), ["erp-sql1 › volume D:\\"]);
    assert_eq!(fmt("unchanged"), ["erp-sql1 › volume E:\\"], "the same finding on the volume's successor");
    assert!(fmt("new").is_empty(), "{findings}");
}

#[test]
fn fixed_findings_carry_the_fingerprints_a_baseline_of_before_recorded() {
    let dir = TempDir::new().unwrap();
    let baseline = dir.path().join("b.json");
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["baseline", "--no-config", "-o", baseline.to_str().unwrap(), SECTOR_63])
        .current_dir(repo())
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recorded: Value = serde_json::from_str(&fs::read_to_string(&baseline).unwrap()).unwrap();
    let recorded: Vec<&str> =
        recorded["findings"].as_array().unwrap().iter().map(|f| f["fingerprint"].as_str().unwrap()).collect();
    let (_, diff) = json(&[SECTOR_63, REALIGNED]);
    let findings = &diff["hosts"][0]["findings"];
    let before: Vec<&str> = ["fixed", "unchanged"]
        .iter()
        .flat_map(|k| findings[k].as_array().unwrap())
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    let mut sorted = before.clone();
    sorted.sort_unstable();
    let mut expected = recorded.clone();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "BEFORE's findings are the baseline's, by fingerprint");
}

#[test]
fn the_16_column_rebuild_of_the_azure_space_shows_columns_interleave_clusters_and_latency() {
    insta::assert_snapshot!("text-azure-16-columns", text(EIGHT_COLUMNS, SIXTEEN_COLUMNS));
    let o = spindle(&[EIGHT_COLUMNS, SIXTEEN_COLUMNS, "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("markdown-azure-16-columns", stdout(&o));

    let (_, diff) = json(&[EIGHT_COLUMNS, SIXTEEN_COLUMNS]);
    let host = &diff["hosts"][0];
    let change = |kind: &str| {
        host["layout"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == kind)
            .unwrap_or_else(|| panic!("{kind}"))
    };
    // Recreated, the virtual disk has a new unique id; it pairs by its name.
    assert_eq!(change("columns")["entity"], "virtual disk SQLVDisk");
    assert_eq!(change("columns")["entity_key"], "azsql-oltp01/virtual-disk:5B7E20D94C1A4F6B8E3D0A2C9F4B7E61");
    assert_eq!(
        (change("columns")["before"].as_u64(), change("columns")["after"].as_u64()),
        (Some(8), Some(16))
    );
    assert_eq!(change("interleave")["after"], 65536);
    assert_eq!(change("allocation_unit")["entity"], "volume E:\\");
    assert!(!host["layout"].as_array().unwrap().iter().any(|c| c["kind"] == "virtual_disk_added"));
    let mut fixed = codes(&host["findings"]["fixed"]);
    fixed.sort_unstable();
    assert_eq!(fixed, ["FMT001", "LAT002", "STR001", "STR002"]);
    let log = file(host, "MSSQLSERVER › SalesOLTP › SalesOLTP_log");
    assert_eq!(metric(log, "write_stall_ms")["after"].as_f64(), Some(3.7));
    assert!(
        metric(log, "write_bytes_per_s")["before"].as_f64().unwrap() > 0.0,
        "a known window gives a rate"
    );
}

/// The layout changes of the first host, as (kind, entity) pairs.
fn layout(host: &Value) -> Vec<(&str, &str)> {
    host["layout"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["entity"].as_str().unwrap()))
        .collect()
}

#[test]
fn eight_disks_added_to_the_azure_pool_show_on_the_pool_and_as_disks() {
    let o = spindle(&[EIGHT_COLUMNS, POOL_GROWN, "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("markdown-azure-pool-grown", stdout(&o));

    let (_, diff) = json(&[EIGHT_COLUMNS, POOL_GROWN]);
    let host = &diff["hosts"][0];
    let changes = layout(host);
    assert_eq!(changes.len(), 9, "{changes:?}");
    assert!(
        changes[..8]
            .iter()
            .all(|(kind, entity)| *kind == "disk_added" && entity.starts_with("disk 60022483A1C0E"))
    );
    assert_eq!(changes[8], ("pool_disks_added", "pool SQLPool"));
    let gained = &host["layout"][8];
    assert_eq!(gained["after"].as_array().unwrap().len(), 8);
    assert_eq!(gained["after"][0], "60022483A1C0E7F4E82F6C1D9A05B3E6");
    assert!(gained["before"].is_null());
    assert!(
        gained["detail"]
            .as_str()
            .unwrap()
            .starts_with("8 disks (16 → 24 in the pool): disk 60022483A1C0E7F4E82F6C1D9A05B3E6, "),
        "{gained}"
    );
    // Five minutes later, the same service: no restart, and the space still spans 8 columns.
    assert_eq!(host["warnings"], serde_json::json!([]));
    assert!(codes(&host["findings"]["unchanged"]).contains(&"STR001"), "{}", host["findings"]);
}

#[test]
fn the_linux_log_volume_reformatted_with_su_and_sw_and_mounted_without_noatime() {
    insta::assert_snapshot!("text-linux-log-reformatted", text(LINUX, LOG_REFORMATTED));

    let (_, diff) = json(&[LINUX, LOG_REFORMATTED]);
    let host = &diff["hosts"][0];
    let log = "volume /var/opt/mssql/log";
    assert_eq!(
        layout(host),
        [
            ("fs_stripe_unit", log),
            ("fs_stripe_width", log),
            ("mount_option_added", log),
            ("mount_option_removed", log)
        ],
        "sunit= and swidth= are the stripe changes, in bytes; the data volume kept its geometry"
    );
    let change = |i: usize| &host["layout"][i];
    // The options listed no sunit before: the XFS volume had none, which is a change, not a gap.
    assert_eq!((change(0)["before"].clone(), change(0)["after"].clone()), (Value::Null, 524_288.into()));
    assert_eq!(change(0)["detail"], "none → 524,288 B (512 KiB)");
    assert_eq!(change(1)["after"], 1_048_576);
    assert_eq!(
        (change(2)["after"].as_str(), change(3)["before"].as_str()),
        (Some("relatime"), Some("noatime"))
    );
    // Dropping noatime is drift the rules see too; the service kept running (no warning).
    assert_eq!(codes(&host["findings"]["new"]), ["FMT004"]);
    assert_eq!(host["warnings"], serde_json::json!([]));
}

#[test]
fn drift_a_data_file_added_on_the_system_volume_is_new_and_fails_with_fail_on_new() {
    insta::assert_snapshot!("text-drift", text(ALIGNED, DRIFTED));
    let (status, diff) = json(&[ALIGNED, DRIFTED]);
    assert_eq!(status, Some(0), "without --fail-on-new a diff is written and passes");
    let host = &diff["hosts"][0];
    let added = host["layout"].as_array().unwrap().iter().find(|c| c["kind"] == "file_added").unwrap();
    assert_eq!(added["entity"], "MSSQLSERVER › ERP_PROD › ERP_PROD_Data2");
    assert_eq!(added["entity_key"], "erp-sql2/instance:MSSQLSERVER/database:ERP_PROD/file:ERP_PROD_Data2");
    assert!(added["detail"].as_str().unwrap().starts_with("on C:\\, the OS volume"), "{added}");
    let growth = host["layout"].as_array().unwrap().iter().find(|c| c["kind"] == "growth").unwrap();
    assert_eq!(growth["before"]["percent"], 10);
    assert_eq!(growth["after"]["increment_bytes"], 536_870_912u64);
    let new = &host["findings"]["new"];
    let plc002 = new.as_array().unwrap().iter().find(|f| f["code"] == "PLC002").expect("PLC002 new");
    assert!(plc002["entity"].as_str().unwrap().contains("ERP_PROD_Data2"));
    assert_eq!(plc002["fingerprint"].as_str().unwrap().len(), 16);
    assert_eq!(codes(&host["findings"]["fixed"]), ["GRW001"]);
    assert_eq!(diff["summary"]["new_unwaived"].as_u64(), Some(new.as_array().unwrap().len() as u64));
    // The same service a day later: no restart, and what the day did is shown.
    assert!(host["warnings"].as_array().unwrap().is_empty(), "{}", host["warnings"]);
    let day = &file(host, "MSSQLSERVER › ERP_PROD › ERP_PROD_Data")["between"];
    assert_eq!((day["reads"].as_u64(), day["avg_read_stall_ms"].as_f64()), (Some(2_000_000), Some(75.0)));
    assert_eq!(day["window_ms"], 86_400_000u64);

    assert_eq!(spindle(&[ALIGNED, DRIFTED, "--fail-on-new"]).status.code(), Some(1));
    assert_eq!(spindle(&[SECTOR_63, REALIGNED, "--fail-on-new"]).status.code(), Some(0), "nothing new there");
}

#[test]
fn a_new_finding_under_a_waiver_is_listed_as_waived_and_fails_nothing() {
    let dir = TempDir::new().unwrap();
    let pack = write(
        dir.path(),
        "pack.toml",
        "extends = [\"recommended\"]\n\n[[waivers]]\nrules = [\"PLC002\", \"PLC004\", \"LAT001\", \"LAT003\"]\n\
         entity = \"erp-sql2/*\"\nreason = \"the second data file moves off C: this weekend\"\nexpires = \"2027-01-31\"\n",
    );
    let (status, diff) = json(&[ALIGNED, DRIFTED, "--pack", s(&pack), "--fail-on-new"]);
    assert_eq!(status, Some(0), "{diff}");
    let new = diff["hosts"][0]["findings"]["new"].as_array().unwrap();
    assert!(!new.is_empty() && new.iter().all(|f| f["waived"] == true), "{new:?}");
    assert_eq!(
        (diff["summary"]["new"].as_u64(), diff["summary"]["new_unwaived"].as_u64()),
        (Some(new.len() as u64), Some(0))
    );
}

/// A host of one ERP data file whose counters are `reads` reads and `stall_ms` of read stall,
/// over an unknown window.
fn one_file_host(name: &str, reads: u64, stall_ms: u64) -> String {
    format!(
        r#"{{"schema_version": 1, "host": {{"name": "{name}"}},
  "sql_instances": [{{"name": "MSSQLSERVER", "databases": [{{"name": "ERP_PROD", "files": [
    {{"type": "rows", "logical_name": "ERP_PROD_Data", "io": {{"num_of_reads": {reads}, "num_of_writes": 0,
      "num_of_bytes_read": {bytes}, "num_of_bytes_written": 0, "io_stall_read_ms": {stall_ms},
      "io_stall_write_ms": 0}}}}]}}]}}]}}
"#,
        bytes = reads * 8192
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_restart_that_reset_the_counters_is_warned_about() {
    let dir = TempDir::new().unwrap();
    let before = write(dir.path(), "before.json", &one_file_host("sql01", 62_500_000, 9_337_500_000));
    let after = write(dir.path(), "after.json", &one_file_host("SQL01", 1_200_000, 88_800_000));
    let o = spindle(&[s(&before), s(&after)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "warning: instance MSSQLSERVER restarted between the snapshots and its I/O counters were reset \
             (MSSQLSERVER › ERP_PROD › ERP_PROD_Data: num_of_reads 62,500,000 → 1,200,000)"
        ),
        "{out}"
    );
    assert!(stderr(&o).contains("warning: SQL01: instance MSSQLSERVER restarted"), "{}", stderr(&o));
    // Each side's average stands on its own; no window was recorded, so there is no rate.
    assert!(flat.contains("read stall 149.4 ms → 74 ms per read (−50.5 %)"), "{out}");
    assert!(flat.contains("counters cumulative, window not recorded → cumulative, window not recorded"));
    assert!(!flat.contains("KiB/s"), "{out}");

    // The host's name changed case, not its findings.
    let (_, diff) = json(&[s(&before), s(&after)]);
    assert_eq!(diff["hosts"][0]["findings"]["new"], serde_json::json!([]), "{diff}");
    assert_eq!(codes(&diff["hosts"][0]["findings"]["unchanged"]), ["LAT001"]);

    // The same counters, grown: no restart, and no warning.
    let later = write(dir.path(), "later.json", &one_file_host("sql01", 64_500_000, 9_487_500_000));
    let (_, diff) = json(&[s(&before), s(&later)]);
    assert_eq!(diff["hosts"][0]["warnings"], serde_json::json!([]));
    assert_eq!(diff["hosts"][0]["io"][0]["between"]["avg_read_stall_ms"], 75.0);
}

#[test]
fn a_sample_is_not_compared_with_a_history() {
    let dir = TempDir::new().unwrap();
    let history = one_file_host("sql01", 62_500_000, 9_337_500_000)
        .replace(r#""io_stall_write_ms": 0"#, r#""io_stall_write_ms": 0, "sample_ms": 1814400000"#);
    let sample = one_file_host("sql01", 12_000, 600_000)
        .replace(r#""io_stall_write_ms": 0"#, r#""io_stall_write_ms": 0, "sample_ms": 300000"#);
    let before = write(dir.path(), "before.json", &history);
    let after = write(dir.path(), "after.json", &sample);
    let (status, diff) = json(&[s(&before), s(&after)]);
    assert_eq!(status, Some(0));
    let f = &diff["hosts"][0]["io"][0];
    assert_eq!(f["comparable"], false);
    assert!(f["note"].as_str().unwrap().starts_with(
        "not comparable: BEFORE's counters are cumulative over 21 days, AFTER's sampled over 5 min"
    ));
    assert!(f["metrics"].as_array().unwrap().iter().all(|m| m["change_percent"].is_null()));
    assert_eq!(
        diff["hosts"][0]["warnings"],
        serde_json::json!([]),
        "a sample is smaller than a history: no restart"
    );
}

#[test]
fn half_an_hour_since_start_up_is_a_history_and_not_compared_with_a_sample() {
    let dir = TempDir::new().unwrap();
    let with_window = |reads, stall_ms, sample_ms: u64, window: &str| {
        let io = format!(r#""io_stall_write_ms": 0, "sample_ms": {sample_ms}{window}"#);
        one_file_host("sql01", reads, stall_ms).replace(r#""io_stall_write_ms": 0"#, &io)
    };
    // The service started 30 minutes before BEFORE was collected; AFTER is a 5-minute sample.
    let before = write(
        dir.path(),
        "before.json",
        &with_window(10_000, 200_000, 1_800_000, r#", "window": "since_start""#),
    );
    let after =
        write(dir.path(), "after.json", &with_window(12_000, 60_000, 300_000, r#", "window": "sample""#));
    let (status, diff) = json(&[s(&before), s(&after)]);
    assert_eq!(status, Some(0));
    let f = &diff["hosts"][0]["io"][0];
    assert_eq!(f["comparable"], false, "{f}");
    assert!(
        f["note"].as_str().unwrap().starts_with(
            "not comparable: BEFORE's counters are cumulative over 30 min, AFTER's sampled over 5 min"
        ),
        "{f}"
    );
    assert_eq!(
        (f["before"]["window_recorded"].as_bool(), f["after"]["window_recorded"].as_bool()),
        (Some(true), Some(true))
    );
    assert!(f["metrics"].as_array().unwrap().iter().all(|m| m["change_percent"].is_null()));

    // Without the field, half an hour is guessed a sample, and the two are compared.
    let guessed = write(dir.path(), "guessed.json", &with_window(10_000, 200_000, 1_800_000, ""));
    let (_, diff) = json(&[s(&guessed), s(&after)]);
    let f = &diff["hosts"][0]["io"][0];
    assert_eq!(
        (f["comparable"].as_bool(), f["before"]["window_recorded"].as_bool()),
        (Some(true), Some(false)),
        "{f}"
    );
}

#[test]
fn a_bad_after_file_is_exit_2_naming_it_with_line_and_column_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let good = fs::read_to_string(repo().join(ALIGNED)).unwrap();
    // A trailing comma after the partitions' last entry, on a line of its own.
    let bad = good.replacen("\"size_bytes\": 150316926464\n    }", "\"size_bytes\": 150316926464\n    },", 1);
    assert_ne!(bad, good);
    let after = write(dir.path(), "after/erp-sql2.json", &bad);
    // The comma ends this 1-based line; serde_json reports the `]` on the next one.
    let line = bad[..bad.find("150316926464\n    },").unwrap()].matches('\n').count() + 2;
    let report = write(dir.path(), "diff.txt", "yesterday's diff");
    let o = spindle(&[ALIGNED, s(&after), "-o", s(&report)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let at = format!("{}:{}:", after.display(), line + 1);
    assert!(err.contains(&at), "expected {at} in:\n{err}");
    assert!(!report.exists(), "a stale diff is removed, none written");
    assert!(stdout(&o).is_empty());

    let o = spindle(&["-", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot both be standard input"), "{}", stderr(&o));

    // BEFORE that is missing is named too.
    let o = spindle(&["no/such/before.json", ALIGNED]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/before.json: cannot read"), "{}", stderr(&o));
}

#[test]
fn directories_pair_hosts_by_name_and_report_those_added_and_removed() {
    let dir = TempDir::new().unwrap();
    let copy = |from: &str, to: &str| {
        write(dir.path(), to, &fs::read_to_string(repo().join(from)).unwrap());
    };
    copy(SECTOR_63, "before/erp-sql1.json");
    copy(EIGHT_COLUMNS, "before/azsql-oltp01.json");
    copy(REALIGNED, "after/erp-sql1.json");
    // A host of two files (the storage and the SQL Server's), merged as `check` merges them.
    copy("examples/hdd-raid-shared-spindles/host.json", "after/plant-sql04/host.json");
    copy("examples/hdd-raid-shared-spindles/sql.json", "after/plant-sql04/sql.json");
    let (before, after) = (dir.path().join("before"), dir.path().join("after"));
    let (status, diff) = json(&[s(&before), s(&after)]);
    assert_eq!(status, Some(0));
    let hosts: Vec<(&str, &str)> = diff["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["host"].as_str().unwrap(), h["presence"].as_str().unwrap()))
        .collect();
    // BEFORE's hosts in file order (a directory lists by name), then AFTER's own.
    assert_eq!(hosts, [("azsql-oltp01", "removed"), ("erp-sql1", "both"), ("plant-sql04", "added")]);
    let summary = &diff["summary"];
    assert_eq!(
        (
            summary["hosts_compared"].as_u64(),
            summary["hosts_added"].as_u64(),
            summary["hosts_removed"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    let added = &diff["hosts"][2];
    assert_eq!(added["after"]["snapshots"].as_array().unwrap().len(), 2);
    assert!(!added["findings"]["new"].as_array().unwrap().is_empty(), "an added host's findings are new");
    let removed = &diff["hosts"][0];
    assert!(removed["findings"]["fixed"].as_array().unwrap().is_empty(), "a host that went fixed nothing");

    // And the text says so, with `--fail-on-new` failing on the added host's findings.
    let o = spindle(&[s(&before), s(&after), "--fail-on-new"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("━━ plant-sql04 (added: only in AFTER)"), "{out}");
    assert!(out.contains("━━ azsql-oltp01 (removed: only in BEFORE)"), "{out}");
}

#[test]
fn output_goes_to_a_file_atomically_and_names_from_the_snapshots_are_escaped() {
    let dir = TempDir::new().unwrap();
    let before = write(dir.path(), "before.json", &one_file_host("sql01", 10_000, 100_000));
    // A database name with an escape sequence that would clear the screen.
    let after_text = one_file_host("sql01", 20_000, 150_000).replace("\"ERP_PROD\"", "\"ERP\\u001b[2J\"");
    let after = write(dir.path(), "after.json", &after_text);
    let out = dir.path().join("diff.txt");
    let o = spindle(&[s(&before), s(&after), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    let written = fs::read_to_string(&out).unwrap();
    assert!(!written.contains('\u{1b}'), "{written:?}");
    assert!(written.contains("database added   MSSQLSERVER › ERP\\e[2J"), "{written}");
    assert!(written.contains("database removed MSSQLSERVER › ERP_PROD"), "{written}");
}
