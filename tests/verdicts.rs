//! Verdicts a pipeline can trust, end to end with the binary: a run in which spindle could not
//! look is never green (a local SQL Server that could not be read, a host no rule could be
//! evaluated on, facts `--require` asks for), a judgement a rule declined is not a missing fact,
//! a failed run leaves no stale report, and `--output` prints why a run failed on stderr.

use spindle_test_support::mock_sql;
use spindle_test_support::sarif as sarif_schema;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_SQL_PASSWORD", "pw")
        .env_remove("SPINDLE_CACHE_DIR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .output()
        .expect("spindle runs")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `text` with every run of white space (a wrapped line's break and indent) as one space.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(o), stderr(o)))
}

/// A host whose every collector came back empty-handed: nothing any rule can look at.
const ONLY_NOT_COLLECTED: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql07" },
  "collectors": [
    { "name": "sql", "not_collected": [
      { "fact": "sql_instances", "reason": "Login failed for user 'spindle'" }
    ] },
    { "name": "wmi", "not_collected": [
      { "fact": "disks", "reason": "Access denied" },
      { "fact": "partitions", "reason": "Access denied" },
      { "fact": "volumes", "reason": "Access denied" }
    ] }
  ]
}
"#;

/// Host storage with nothing wrong (aligned, 64 KiB clusters, plenty of room), no SQL facts.
const HOST_ONLY: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql08", "os_family": "windows" },
  "disks": [ { "id": "disk1", "number": 1, "physical_sector_bytes": 4096, "media": "ssd" } ],
  "partitions": [ { "id": "disk1-p1", "disk_id": "disk1", "number": 1, "offset_bytes": 1048576 } ],
  "volumes": [
    { "id": "vol-e", "mount_points": ["E:\\"], "filesystem": "NTFS", "allocation_unit_bytes": 65536,
      "size_bytes": 1000000000000, "free_bytes": 600000000000, "compressed": false,
      "backed_by": { "partitions": ["disk1-p1"] } }
  ]
}
"#;

/// sql08's SQL Server: master read 412 times (too few to average), Sales 5,000 times at 2 ms.
const SQL_ONLY: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql08" },
  "sql_instances": [ { "name": "MSSQLSERVER", "databases": [
    { "name": "master", "role": "system", "files": [
      { "type": "rows", "logical_name": "master", "physical_name": "E:\\Data\\master.mdf",
        "io": { "num_of_reads": 412, "num_of_writes": 10, "num_of_bytes_read": 3375104, "num_of_bytes_written": 81920,
                "io_stall_read_ms": 8652, "io_stall_write_ms": 10,
                "sample_ms": 3600000 } } ] },
    { "name": "Sales", "role": "user", "files": [
      { "type": "rows", "logical_name": "Sales", "physical_name": "E:\\Data\\Sales.mdf",
        "io": { "num_of_reads": 5000, "num_of_writes": 10, "num_of_bytes_read": 40960000, "num_of_bytes_written": 81920,
                "io_stall_read_ms": 10000, "io_stall_write_ms": 10,
                "sample_ms": 3600000 } } ] }
  ] } ]
}
"#;

#[test]
fn a_host_no_rule_could_be_evaluated_on_makes_the_run_incomplete_in_every_format() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql07.json", ONLY_NOT_COLLECTED);

    // Text: the host's first line says so; the summary too; exit 2 whatever --fail-on says.
    let o = spindle(&["check", s(&f), "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("━━ sql07 ━"), "{text}");
    // The verdict is the host's first line, wrapped to the report's width.
    let verdict = text.split_once('\n').unwrap().1;
    assert!(
        flat(verdict).starts_with("✗ spindle could not judge this host: none of the 25 active rules could be evaluated: the snapshots lack partitions,"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("1 host not judged — the run is incomplete"), "{text}");
    assert!(!text.contains("no findings from"), "{text}");

    // JSON: on the host and in the summary.
    let r = json(&spindle(&["check", s(&f), "--format", "json"]));
    let host = &r["hosts"][0];
    assert!(host["not_judged"].as_str().unwrap().starts_with("none of the 25 active rules"), "{host:#}");
    assert_eq!(host["rules_run"], 0);
    assert_eq!(r["report_version"], 3);
    assert_eq!(
        (r["summary"]["hosts_not_judged"].as_u64(), r["summary"]["incomplete"].as_bool()),
        (Some(1), Some(true))
    );
    // Every rule still says what it missed, with the collector's reason.
    let ne = host["not_evaluated"].as_array().unwrap();
    assert!(
        ne.iter().any(|n| n["code"] == "GRW003" && n["reason"].as_str().unwrap().contains("Login failed"))
    );

    // SARIF: an error notification for the host, and the run did not succeed.
    let o = spindle(&["check", s(&f), "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(2));
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let note = inv["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["descriptor"]["id"] == "host-not-judged")
        .expect("a host-not-judged notification");
    assert_eq!(note["level"], "error");
    assert!(
        note["message"]["text"].as_str().unwrap().starts_with("sql07: spindle could not judge this host")
    );

    // An empty host is no different; one rule that ran is enough to judge a host by.
    let empty = write(dir.path(), "empty.json", "{\"schema_version\": 1, \"host\": {\"name\": \"e\"}}\n");
    assert_eq!(spindle(&["check", s(&empty), "--fail-on", "never"]).status.code(), Some(2));
    let host = write(dir.path(), "sql08.json", HOST_ONLY);
    let o = spindle(&["check", s(&host), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["hosts"][0]["not_judged"], Value::Null);
}

#[test]
fn too_few_reads_is_not_applicable_and_never_fails_a_run() {
    let dir = TempDir::new().unwrap();
    let sql = write(dir.path(), "sql08-sql.json", SQL_ONLY);
    let pack = write(dir.path(), "latency.toml", "select = [\"LAT001\"]\n");
    let o = spindle(&["check", s(&sql), "--pack", s(&pack), "--format", "json", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(0), "nothing is missing and nothing is wrong: {}", stderr(&o));
    let r = json(&o);
    let host = &r["hosts"][0];
    assert_eq!(host["not_evaluated"], serde_json::json!([]), "master's reads are not a missing fact");
    let na = host["not_applicable"].as_array().unwrap();
    assert_eq!(na.len(), 1, "{na:#?}");
    assert_eq!(na[0]["code"], "LAT001");
    assert_eq!(na[0]["field"], "io/num_of_reads");
    assert_eq!(na[0]["entity"]["key"], "sql08/instance:MSSQLSERVER/database:master/file:master");
    assert!(
        na[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("only 412 reads with 8,652 ms of stall, fewer than min_reads = 1,000")
    );
    assert_eq!(na[0]["location"]["exact"], true);
    assert_eq!(
        (r["summary"]["not_evaluated"].as_u64(), r["summary"]["not_applicable"].as_u64()),
        (Some(0), Some(1))
    );

    // The default text report counts it; -v lists it.
    let o = spindle(&["check", s(&sql), "--pack", s(&pack), "--fail-on", "note"]);
    let text = stdout(&o);
    assert!(text.contains(" · 1 not applicable"), "{text}");
    assert!(!text.contains("── not applicable"), "not applicable stays out of the default view: {text}");
    let o = spindle(&["check", s(&sql), "--pack", s(&pack), "--fail-on", "note", "-v"]);
    let text = stdout(&o);
    assert!(text.contains("── not applicable (facts present; the rule chose not to judge them)"), "{text}");
    assert!(text.contains("  - LAT001 data-read-latency on sql08 › MSSQLSERVER › master › master"), "{text}");
    assert!(!text.contains("missing io/num_of_reads"), "{text}");

    let o = spindle(&["check", s(&sql), "--pack", s(&pack), "--format", "sarif"]);
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["descriptor"]["id"] == "not-applicable"), "{notes:#?}");
    assert!(notes.iter().all(|n| n["descriptor"]["id"] != "not-evaluated"), "{notes:#?}");

    // A file with no counters at all still lacks a fact, which --fail-on note counts.
    let no_io = SQL_ONLY.replace(
        r#""io": { "num_of_reads": 5000, "num_of_writes": 10, "num_of_bytes_read": 40960000, "num_of_bytes_written": 81920,
                "io_stall_read_ms": 10000, "io_stall_write_ms": 10,
                "sample_ms": 3600000 }"#,
        r#""size_bytes": 8388608"#,
    );
    assert_ne!(no_io, SQL_ONLY);
    let sql = write(dir.path(), "sql08-sql.json", &no_io);
    let o = spindle(&["check", s(&sql), "--pack", s(&pack), "--fail-on", "note", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // With master declined and Sales unmeasured, LAT001 verified nothing: the host is not judged
    // (a not-applicable check is no verification), and the run is incomplete, not merely failed.
    let r = json(&o);
    assert_eq!(
        (r["summary"]["not_evaluated"].as_u64(), r["summary"]["hosts_not_judged"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn require_fails_a_run_whose_hosts_lack_the_named_facts() {
    let dir = TempDir::new().unwrap();
    let host = write(dir.path(), "sql08-host.json", HOST_ONLY);
    let o = spindle(&["check", s(&host), "--require", "sql", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(
        r["hosts"][0]["not_judged"],
        "--require sql: no SQL Server facts (sql_instances not collected)"
    );
    assert_eq!(r["summary"]["incomplete"], true);
    assert_eq!(spindle(&["check", s(&host), "--require", "host"]).status.code(), Some(0));

    // The collector's reason, when it gave one.
    let nothing = write(dir.path(), "sql07.json", ONLY_NOT_COLLECTED);
    let r = json(&spindle(&["check", s(&nothing), "--require", "sql,host", "--format", "json"]));
    let why = r["hosts"][0]["not_judged"].as_str().unwrap();
    assert!(
        why.contains("--require sql: no SQL Server facts (sql_instances not collected: sql: Login failed for user 'spindle')"),
        "{why}"
    );
    assert!(
        why.contains("--require host: no host storage facts (disks, partitions, volumes not collected: wmi: Access denied; wmi: Access denied; wmi: Access denied)"),
        "{why}"
    );

    // SQL facts without the host's storage (its volumes come from SQL Server, not the host).
    let sql = write(dir.path(), "sql08-sql.json", SQL_ONLY);
    let o = spindle(&["check", s(&sql), "--require", "host"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(flat(&stdout(&o)).contains("✗ spindle could not judge this host: --require host: no host storage facts (disks, partitions, volumes not collected)"), "{}", stdout(&o));
    // Both collectors' files of one host: both requirements met.
    let o =
        spindle(&["check", s(&host), s(&sql), "--require", "sql", "--require", "host", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));

    let help = stdout(&spindle(&["check", "--help"]));
    assert!(help.contains("--require <FACTS>") && help.contains("[possible values: sql, host]"), "{help}");
    assert!(help.contains("Exit status:\n  0  no unwaived finding"), "{help}");
    let o = spindle(&["check", s(&host), "--require", "disks"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'disks'"), "{}", stderr(&o));
}

#[test]
fn every_failed_run_removes_a_stale_report() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "sql08.json", HOST_ONLY);
    let out = dir.path().join("report.sarif");
    let bad_pack = write(dir.path(), "bad.toml", "[rules.ALN001]\nalignment_byte = 4096\n");
    let not_wasm = write(dir.path(), "acme.wasm", "not a component");
    let bad_plugin = write(dir.path(), "plugins.toml", "[plugins.acme]\npath = \"acme.wasm\"\n");
    assert!(not_wasm.exists());
    let missing = dir.path().join("missing.json");
    let cases: [(&str, Vec<&str>); 3] = [
        ("a missing input", vec!["check", s(&missing)]),
        ("a bad pack", vec!["check", s(&good), "--pack", s(&bad_pack)]),
        ("a bad plugin", vec!["check", s(&good), "--pack", s(&bad_plugin)]),
    ];
    for (what, args) in cases {
        fs::write(&out, "yesterday's report").unwrap();
        let mut args = args.clone();
        args.extend(["--format", "sarif", "--output", s(&out)]);
        let o = spindle(&args);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        assert!(!out.exists(), "{what}: yesterday's report must not pass for today's");
    }

    // A report that cannot be written (a file-size limit stands in for a full disk). A text
    // report this small is still in its buffer when the run ends: the write fails only when
    // the report is published, and the stale one must go then too.
    fs::write(&out, "yesterday's report").unwrap();
    let o = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$@\"", "sh", env!("CARGO_BIN_EXE_spindle")])
        .args(["check", s(&good), "--output", s(&out)])
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write the report"), "{}", stderr(&o));
    assert!(!out.exists(), "a report that could not be written leaves none");
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 4, "no temporary file left: {left:?}");

    // An incomplete run did write its report: it stays, marked incomplete.
    let bare = write(dir.path(), "bare.json", "{\"schema_version\": 1, \"host\": {\"name\": \"e\"}}\n");
    let o = spindle(&["check", s(&bare), "--format", "sarif", "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let log = sarif_schema::assert_valid_sarif_text(&fs::read_to_string(&out).unwrap());
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);
}

#[test]
fn with_output_one_line_on_stderr_says_how_the_run_went() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("report.json");
    let sector63 = write(
        dir.path(),
        "sql01.json",
        r#"{"schema_version": 1, "host": {"name": "sql01"},
  "disks": [{"id": "disk1", "number": 1, "physical_sector_bytes": 512}],
  "partitions": [{"id": "disk1-p1", "disk_id": "disk1", "number": 1, "offset_bytes": 32256}]}"#,
    );
    let o = spindle(&["check", s(&sector63), "--format", "json", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let line = stderr(&o);
    assert!(
        line.starts_with("spindle: 1 host, 1 error, 0 warnings, 0 notes, ")
            && line
                .ends_with(&format!("; failed: findings at or above --fail-on error → {}\n", out.display())),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1, "{line}");

    let bare = write(dir.path(), "bare.json", ONLY_NOT_COLLECTED);
    let o = spindle(&["check", s(&bare), "--format", "json", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("; incomplete: 1 host not judged (sql07: none of the 25 active rules could be evaluated: the snapshots lack partitions,"),
        "{}",
        stderr(&o)
    );

    // A clean run says so too; to stdout (no --output) nothing is added to stderr.
    let clean = write(dir.path(), "sql08.json", HOST_ONLY);
    let o = spindle(&["check", s(&clean), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stderr(&o),
        format!("spindle: 1 host, 0 errors, 0 warnings, 0 notes, 23 not evaluated → {}\n", out.display())
    );
    assert_eq!(stderr(&spindle(&["check", s(&clean)])), "");
}

// ---- Live: `check --local` and `--server` against the TDS mock (plain TDS). ----

/// `spindle check --local` with its SQL Server at `server`.
fn check_local(server: &str, extra: &[&str]) -> Output {
    let mut args = vec!["check", "--local", "--server", server, "--user", "spindle", "--encrypt", "off"];
    args.extend_from_slice(&["--connect-timeout", "2s", "--query-timeout", "2s"]);
    args.extend_from_slice(extra);
    spindle(&args)
}

#[test]
fn local_sql_server_that_cannot_be_read_is_a_collection_error() {
    let peers = mock_sql::Peers::new();
    let refusing = peers.refusing();

    let o = check_local(&refusing, &["--format", "json", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(2), "could not look: {}", stderr(&o));
    let r = json(&o);
    let hosts = r["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2, "{hosts:#?}");
    // First, as for --server: the server as named, and why.
    assert_eq!(hosts[0]["host"], refusing.as_str());
    assert!(hosts[0]["collection_error"].as_str().unwrap().contains("cannot connect"), "{:#}", hosts[0]);
    // The machine itself is checked, and the SQL rules say why they could not judge it.
    let ne = hosts[1]["not_evaluated"].as_array().unwrap();
    assert!(
        ne.iter().any(|n| n["code"] == "GRW003"
            && n["reason"].as_str().unwrap_or("").contains("no SQL Server facts")
            && n["reason"].as_str().unwrap_or("").contains("cannot connect")),
        "{ne:#?}"
    );
    assert_eq!(
        (r["summary"]["collection_errors"].as_u64(), r["summary"]["incomplete"].as_bool()),
        (Some(1), Some(true))
    );

    let o = check_local(&refusing, &["--format", "sarif"]);
    assert_eq!(o.status.code(), Some(2));
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert!(
        inv["toolExecutionNotifications"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["descriptor"]["id"] == "collection-error")
    );

    let o = check_local(&refusing, &[]);
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("━━ {refusing} ━"))
            && text.lines().nth(1).unwrap_or("").starts_with("  ✗ no facts collected: cannot connect"),
        "shown first: {text}"
    );

    // No password: the same.
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", "--local", "--server", &refusing, "--user", "spindle", "--format", "json"])
        .env_remove("SPINDLE_SQL_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        json(&o)["hosts"][0]["collection_error"].as_str().unwrap().contains("no password for login spindle")
    );
}

#[test]
fn allowed_unreachable_servers_leave_the_run_complete_in_every_format() {
    let peers = mock_sql::Peers::new();
    let refusing = peers.refusing();
    let allow = ["--allow-unreachable", "--fail-on", "never"];

    let o = check_local(&refusing, &[&allow[..], &["--format", "json"]].concat());
    let r = json(&o);
    assert_eq!(r["hosts"][0]["collection_error"].as_str().map(|e| e.contains("cannot connect")), Some(true));
    let sum = &r["summary"];
    assert_eq!(
        (sum["collection_errors"].as_u64(), sum["unreachable_allowed"].as_bool()),
        (Some(1), Some(true))
    );
    // The server no longer makes the run incomplete; this machine's own storage still may, when
    // no rule verified anything on it (a VM with one unpartitioned virtio disk has nothing
    // ALN001 or the others judge): that host is not judged, whatever the server did.
    let blind = sum["hosts_not_judged"] == 1;
    assert_eq!(o.status.code(), Some(if blind { 2 } else { 0 }), "{}", stderr(&o));
    assert_eq!(sum["incomplete"], blind);
    assert_eq!(sum["rule_errors"], 0);

    let o = check_local(&refusing, &allow);
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    assert!(last.contains("1 server not collected"), "{last}");
    assert_eq!(last.ends_with("; 1 server not collected (unreachable servers allowed)"), !blind, "{last}");
    assert_eq!(text.contains("incomplete"), blind, "{text}");

    let o = check_local(&refusing, &[&allow[..], &["--format", "sarif"]].concat());
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], !blind);

    // --require sql wants SQL Server's facts, which an unreachable server did not give.
    let o = check_local(&refusing, &[&allow[..], &["--require", "sql", "--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["summary"]["unreachable_allowed"], false);
    assert!(r["hosts"][1]["not_judged"].as_str().unwrap().contains("--require sql: no SQL Server facts"));

    // A server that answers: --require sql is met by the local check.
    let server = peers.sql(mock_sql::healthy("LOCALSQL"));
    let o = check_local(&server, &["--require", "sql", "--fail-on", "never", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["summary"]["collection_errors"], 0);

    // --server, with --output: the log names the server and the cause.
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("fleet.sarif");
    let args =
        ["check", "--server", &refusing, "--user", "spindle", "--encrypt", "off", "--connect-timeout", "2s"];
    let o = spindle(&[&args[..], &["--format", "sarif", "-o", s(&out)]].concat());
    assert_eq!(o.status.code(), Some(2));
    let line = stderr(&o);
    assert!(
        line.contains(&format!("; incomplete: 1 collection error ({refusing}: cannot connect"))
            && line.trim_end().ends_with(&format!("→ {}", out.display())),
        "{line}"
    );
}

/// A disk on a SAS bus (a stripe may hide behind it) whose sector sizes and stripe unit were not
/// collected, and a partition at 1 MiB on it: ALN002 and ALN004 run and can verify nothing.
const NO_STRIPE_NO_SECTOR: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql09", "os_family": "windows" },
  "disks": [ { "id": "disk1", "number": 1, "bus": "SAS" } ],
  "partitions": [ { "id": "disk1-p1", "disk_id": "disk1", "number": 1, "offset_bytes": 1048576 } ],
  "volumes": [ { "id": "vol-e", "mount_points": ["E:\\"], "backed_by": { "partitions": ["disk1-p1"] } } ]
}
"#;

#[test]
fn a_host_on_which_nothing_was_verified_is_not_judged_in_every_format() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql09.json", NO_STRIPE_NO_SECTOR);
    let select = ["--select", "ALN002,ALN004"];

    let o = spindle(&[&["check", s(&f), "--format", "json"][..], &select].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let r = json(&o);
    let host = &r["hosts"][0];
    assert_eq!((host["rules_run"].as_u64(), host["findings"].as_array().map(Vec::len)), (Some(2), Some(0)));
    assert_eq!(
        host["not_judged"],
        "nothing was verified: the 2 rules that ran (ALN002, ALN004) judged nothing: the facts lack \
         stripe_unit_bytes, physical_sector_bytes"
    );
    assert_eq!(r["summary"]["incomplete"], true);

    let o = spindle(&[&["check", s(&f)][..], &select].concat());
    let text = stdout(&o);
    assert!(flat(&text).contains("✗ spindle could not judge this host: nothing was verified"), "{text}");
    assert!(!text.contains("0 passed") && !text.contains("no findings from"), "{text}");
    assert!(text.trim_end().ends_with("1 host not judged — the run is incomplete"), "{text}");

    let o = spindle(&[&["check", s(&f), "--format", "sarif"][..], &select].concat());
    assert_eq!(o.status.code(), Some(2));
    let log = sarif_schema::assert_valid_sarif_text(&stdout(&o));
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false, "GitHub would close the host's alerts on a clean run");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));

    // A rule that only declined to judge verified nothing either: GRW003 on SQL Server on Linux.
    let linux_sql = write(
        dir.path(),
        "lnx.json",
        r#"{ "schema_version": 1, "host": { "name": "lnx", "os_family": "linux" },
             "sql_instances": [ { "name": "MSSQLSERVER" } ] }"#,
    );
    let o = spindle(&["check", s(&linux_sql), "--select", "GRW003", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let host = &json(&o)["hosts"][0];
    assert_eq!(host["not_applicable"].as_array().map(Vec::len), Some(1), "{host:#}");
    assert!(host["not_judged"].as_str().unwrap().ends_with("1 check was not applicable"), "{host:#}");

    // An all-zero disk image: a raw disk with no partition, no volume, nothing any rule judges.
    let zero = dir.path().join("zero.img");
    fs::File::create(&zero).unwrap().set_len(16 << 20).unwrap();
    let snap = dir.path().join("zero.json");
    let o = spindle(&["collect", "host", "--image", s(&zero), "--host", "blank", "-o", s(&snap)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = spindle(&["check", s(&snap), "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let host = &json(&o)["hosts"][0];
    assert!(host["not_judged"].as_str().unwrap().starts_with("nothing was verified: the "), "{host:#}");
}

#[test]
fn live_only_flags_on_a_check_of_files_are_a_usage_error() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql08.json", HOST_ONLY);
    for flags in [
        &["--sample", "60s"][..],
        &["--concurrency", "4"],
        &["--user", "spindle"],
        &["--integrated"],
        &["--allow-unreachable"],
        &["--save-snapshots", "snaps"],
        &["--encrypt", "off"],
    ] {
        let o = spindle(&[&["check", s(&f)][..], flags].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(&format!("{} applies to live collection only", flags[0])), "{err}");
        assert!(o.stdout.is_empty(), "no report: {}", stdout(&o));
    }
    // Their defaults are no use of them.
    assert_eq!(spindle(&["check", s(&f)]).status.code(), Some(0));
}

/// SQL Server on an Azure Linux VM: a data disk partitioned at 1 MiB, no Storage Spaces sections
/// (an older collector), instant file initialization not reported. Nothing is unknown that could
/// ever be known.
const AZURE_LINUX: &str = r#"{
  "schema_version": 1,
  "host": { "name": "lnx-az1", "os_family": "linux", "is_virtual": true, "cloud_provider": "azure" },
  "disks": [ { "id": "sdc", "bus": "SCSI", "physical_sector_bytes": 4096, "logical_sector_bytes": 512 } ],
  "partitions": [ { "id": "sdc1", "disk_id": "sdc", "number": 1, "offset_bytes": 1048576 } ],
  "volumes": [ { "id": "sdc1", "mount_points": ["/var/opt/mssql/data"], "filesystem": "xfs",
                 "allocation_unit_bytes": 4096, "backed_by": { "partitions": ["sdc1"] } } ],
  "sql_instances": [ { "name": "MSSQLSERVER" } ]
}
"#;

#[test]
fn checks_that_can_never_be_resolved_do_not_fail_fail_on_note() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "lnx-az1.json", AZURE_LINUX);
    let select = "ALN001,ALN002,ALN003,ALN004,GRW003,STR002";
    let o = spindle(&["check", s(&f), "--select", select, "--fail-on", "note", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stderr(&o), stdout(&o));
    let host = &json(&o)["hosts"][0];
    assert_eq!(host["not_evaluated"], serde_json::json!([]), "{host:#}");
    let na: Vec<&str> =
        host["not_applicable"].as_array().unwrap().iter().map(|n| n["code"].as_str().unwrap()).collect();
    for code in ["ALN002", "ALN003", "GRW003", "STR002"] {
        assert!(na.contains(&code), "{code} not applicable: {host:#}");
    }
}
