//! Live collection end to end: the `spindle` binary's tiberius client against Microsoft's TDS
//! mock server on loopback (plain TDS: the mock's TLS framing is not the real server's, so TLS
//! settings are unit-tested in `collect::sql::connect`), and against peers that refuse, never
//! answer, send garbage or drop the connection mid-result.

use spindle_test_support::sarif as sarif_schema;

use spindle_test_support::mock_sql;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use mock_sql::{Peers, healthy, queries, refused, with};
use serde_json::Value;

const PASSWORD: &str = "s3cr3t-Pa55word";

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_SQL_PASSWORD", PASSWORD)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env_remove("SPINDLE_CACHE_DIR")
        .output()
        .expect("spindle runs")
}

/// Plain TDS to the mock, short timeouts so the misbehaving peers are judged quickly.
const CONN: &[&str] =
    &["--user", "spindle", "--encrypt", "off", "--connect-timeout", "2s", "--query-timeout", "2s"];

fn collect(server: &str, extra: &[&str]) -> (Value, Output) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snap.json");
    let mut args = vec!["collect", "sql", "--server", server, "-o", out.to_str().unwrap()];
    args.extend_from_slice(CONN);
    args.extend_from_slice(extra);
    let o = spindle(&args);
    assert!(o.status.success(), "collect failed: {}", String::from_utf8_lossy(&o.stderr));
    let text = fs::read_to_string(&out).unwrap();
    assert!(!text.contains(PASSWORD));
    (serde_json::from_str(&text).unwrap(), o)
}

fn check_json(servers: &[&str], extra: &[&str]) -> (Value, Output) {
    let mut args = vec!["check", "--format", "json"];
    for s in servers {
        args.extend(["--server", s]);
    }
    args.extend_from_slice(CONN);
    args.extend_from_slice(extra);
    let o = spindle(&args);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    (v, o)
}

fn file<'a>(snap: &'a Value, db: &str, logical: &str) -> &'a Value {
    snap["sql_instances"][0]["databases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == db)
        .and_then(|d| d["files"].as_array().unwrap().iter().find(|f| f["logical_name"] == logical))
        .unwrap_or_else(|| panic!("{db}/{logical} not in {snap:#}"))
}

fn not_collected(snap: &Value) -> Vec<(String, String)> {
    snap["collectors"][0]["not_collected"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| (n["fact"].as_str().unwrap().into(), n["reason"].as_str().unwrap().into()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_healthy_server_gives_a_complete_snapshot_in_bytes() {
    let peers = Peers::new();
    let server = peers.sql(healthy("SQL01"));
    let (snap, _) = collect(&server, &[]);

    assert_eq!(snap["schema_version"], 1);
    assert_eq!(snap["host"]["name"], "SQL01");
    assert_eq!(snap["host"]["os_family"], "windows");
    assert_eq!(snap["host"]["os_version"], "Windows Server 2022 Datacenter 10.0");
    assert_eq!(snap["host"]["memory_bytes"], 64u64 << 30, "KiB × 1024");
    assert_eq!(snap["host"]["is_virtual"], true);
    let inst = &snap["sql_instances"][0];
    assert_eq!((inst["name"].as_str(), inst["version"].as_str()), (Some("MSSQLSERVER"), Some("16.0.4135.4")));
    assert_eq!(inst["cpu_count"], 8);
    assert_eq!((inst["product_level"].as_str(), inst["clustered"].as_bool()), (Some("RTM"), Some(false)));
    assert_eq!(inst["instant_file_initialization"], false);
    assert_eq!(inst["service_account"], r"NT Service\MSSQLSERVER", "{:?}", not_collected(&snap));
    let roles: Vec<_> =
        inst["databases"].as_array().unwrap().iter().map(|d| d["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "tempdb", "system", "system", "user"]);

    // Pages → bytes exactly once; percent growth kept as percent; -1 and the 2 TB log cap.
    let sales = file(&snap, "Sales", "Sales");
    assert_eq!(sales["size_bytes"], 1_310_720u64 * 8192);
    assert_eq!(sales["growth"], serde_json::json!({"percent": 10}));
    assert_eq!(sales["max_size"], "unlimited");
    assert_eq!(sales["volume_id"], mock_sql::VOL_E_DATA);
    let log = file(&snap, "Sales", "Sales_log");
    assert_eq!(log["type"], "log");
    assert_eq!(log["growth"], serde_json::json!({"increment_bytes": 8192u64 * 8192}));
    assert_eq!(log["max_size"], serde_json::json!({"bytes": 2u64 << 40}));
    assert_eq!(file(&snap, "tempdb", "temp4")["size_bytes"], 1u64 << 30);

    // Raw counters, covering the service's uptime.
    let io = &sales["io"];
    assert_eq!((io["num_of_reads"].as_u64(), io["io_stall_read_ms"].as_u64()), (Some(1000), Some(4000)));
    assert_eq!(io["sample_ms"], 86_400_000);
    assert_eq!(io["window"], "since_start");

    // One volume per volume id, with its folder mount point.
    let vols = snap["volumes"].as_array().unwrap();
    assert_eq!(vols.len(), 4);
    let data = vols.iter().find(|v| v["id"] == mock_sql::VOL_E_DATA).unwrap();
    assert_eq!(data["mount_points"], serde_json::json!([r"E:\SQLData\"]));
    assert_eq!((data["filesystem"].as_str(), data["label"].as_str()), (Some("NTFS"), Some("DATA")));
    assert_eq!(data["free_bytes"], 100_000_000_000u64);
    assert!(not_collected(&snap).is_empty(), "{:?}", not_collected(&snap));
}

#[test]
fn check_server_collects_and_judges_in_one_go() {
    let peers = Peers::new();
    let server = peers.sql(healthy("SQL01"));
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("snaps");
    let (report, o) =
        check_json(&[&server], &["--save-snapshots", saved.to_str().unwrap(), "--fail-on", "warning"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let host = &report["hosts"][0];
    assert_eq!(host["host"], "SQL01");
    let codes: Vec<&str> =
        host["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    for expected in ["GRW001", "GRW002", "GRW003", "PLC005", "CAP001"] {
        assert!(codes.contains(&expected), "{expected} missing from {codes:?}");
    }
    // Results point into the saved snapshot.
    let percent = host["findings"].as_array().unwrap().iter().find(|f| f["code"] == "GRW001").unwrap();
    let path = percent["location"]["path"].as_str().unwrap();
    assert!(Path::new(path).starts_with(&saved), "{path}");
    let text = fs::read_to_string(path).unwrap();
    let line = percent["location"]["line"].as_u64().unwrap() as usize;
    assert!(text.lines().nth(line - 1).unwrap().contains("\"growth\""), "line {line} of {path}");
    assert!(!String::from_utf8_lossy(&o.stderr).contains(PASSWORD));
}

#[test]
fn a_refused_dmv_loses_only_its_own_facts() {
    let peers = Peers::new();
    let denied = "VIEW SERVER STATE permission was denied on object 'server', database 'master'.";
    let server = peers.sql(with(healthy("SQL02"), queries::VOLUME_STATS, refused(300, denied)));
    let (snap, o) = collect(&server, &[]);
    assert!(snap.get("volumes").is_none(), "volumes must be absent, not empty");
    let notes = not_collected(&snap);
    assert!(
        notes.iter().any(|(f, r)| f == "volumes" && r.contains("error 300") && r.contains(denied)),
        "{notes:?}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("error 300"));
    // Everything else is there.
    let sales = file(&snap, "Sales", "Sales");
    assert!(sales.get("volume_id").is_none());
    assert_eq!(sales["io"]["num_of_reads"], 1000);
    assert_eq!(snap["sql_instances"][0]["instant_file_initialization"], false);

    // Checked, the volume rules say "not evaluated" with the server's reason, never pass.
    let (report, _) = check_json(&[&server], &[]);
    let ne = report["hosts"][0]["not_evaluated"].as_array().unwrap();
    assert!(
        ne.iter().any(|n| n["code"] == "CAP001" && n["reason"].as_str().unwrap_or("").contains("error 300")),
        "{ne:#?}"
    );
}

#[test]
fn older_versions_skip_what_they_lack_and_say_so() {
    let peers = Peers::new();
    // SQL Server 2008 R2 RTM: no dm_os_host_info, no dm_os_volume_stats, no dm_server_services,
    // and physical_memory_in_bytes instead of _kb.
    let batches = vec![
        (queries::SERVER_PROPERTIES, mock_sql::server_properties("10.50.1600.1", "OLD01")),
        (queries::SYS_INFO_2008, mock_sql::sys_info(4, 8 * 1024 * 1024, 3600)),
        (queries::DATABASES, mock_sql::databases()),
        (queries::MASTER_FILES, mock_sql::master_files(mock_sql::FILES)),
        (queries::FILE_STATS, mock_sql::file_stats(mock_sql::FILES, 10, 1, 1)),
    ];
    let server = peers.sql(batches);
    let (snap, _) = collect(&server, &[]);
    assert_eq!(snap["host"]["memory_bytes"], 8u64 << 30);
    let notes = not_collected(&snap);
    for (fact, why) in [
        ("host.os_version", "needs SQL Server 2017"),
        ("volumes", "needs SQL Server 2008 R2 SP1"),
        ("sql_instances[].instant_file_initialization", "needs SQL Server 2008 R2 SP1"),
    ] {
        assert!(notes.iter().any(|(f, r)| f == fact && r.contains(why)), "{fact}: {notes:?}");
    }
    assert_eq!(file(&snap, "Sales", "Sales")["size_bytes"], 1_310_720u64 * 8192);

    // SQL Server 2014: the IFI column is missing (error 207), asked again without it.
    let batches = with(
        with(
            healthy("MID01"),
            queries::SERVER_PROPERTIES,
            mock_sql::server_properties("12.0.6024.0", "MID01"),
        ),
        queries::SERVER_SERVICES,
        refused(207, "Invalid column name 'instant_file_initialization_enabled'."),
    );
    let batches = with(batches, queries::SERVER_SERVICES_NO_IFI, mock_sql::server_services_no_ifi());
    let (snap, _) = collect(&peers.sql(batches), &[]);
    let inst = &snap["sql_instances"][0];
    assert!(inst.get("instant_file_initialization").is_none());
    assert_eq!(inst["service_account"], r"NT Service\MSSQLSERVER", "{:?}", not_collected(&snap));
    assert!(
        not_collected(&snap)
            .iter()
            .any(|(f, r)| f == "sql_instances[].instant_file_initialization" && r.contains("error 207"))
    );
    assert!(not_collected(&snap).iter().any(|(f, _)| f == "host.os_version"), "2014 has no dm_os_host_info");
}

#[test]
fn sampling_reads_the_counters_twice_and_keeps_the_difference() {
    let peers = Peers::new();
    let server = peers.sql(healthy("SQL03"));
    let (snap, _) = collect(&server, &["--sample", "1s"]);
    let io = &file(&snap, "Sales", "Sales")["io"];
    // The mock's counters did not move: no I/O in the interval (cumulative would say 1000).
    assert_eq!(io["num_of_reads"], 0);
    let covers = io["sample_ms"].as_u64().unwrap();
    assert!((1000..10_000).contains(&covers), "sample_ms {covers}");
    assert_eq!(io["window"], "sample");
}

#[test]
fn unreachable_servers_are_errors_of_their_own() {
    let peers = Peers::new();
    let good = peers.sql(healthy("SQL04"));
    let refusing = peers.refusing();
    let silent = peers.silent();
    let garbage = peers.garbage();
    let cut = peers.cutting(&peers.sql(healthy("SQL05")), "sys.master_files");
    let (report, o) = check_json(&[&good, &refusing, &silent, &garbage, &cut], &[]);
    assert_eq!(o.status.code(), Some(2), "incomplete: {}", String::from_utf8_lossy(&o.stderr));
    let hosts = report["hosts"].as_array().unwrap();
    let error_of = |label: &str| -> String {
        hosts
            .iter()
            .find(|h| h["host"] == label)
            .and_then(|h| h["collection_error"].as_str())
            .unwrap_or_else(|| panic!("{label}: {hosts:#?}"))
            .to_string()
    };
    assert!(error_of(&refusing).contains("cannot connect"), "{}", error_of(&refusing));
    assert!(error_of(&silent).contains("no login answer within 2 s"), "{}", error_of(&silent));
    assert!(error_of(&garbage).contains("Protocol error"), "{}", error_of(&garbage));
    let cut_error = error_of(&cut);
    assert_eq!(cut_error, "connection lost while reading sys.master_files: bytes remaining on stream");
    // The good server was checked in full.
    let ok = hosts.iter().find(|h| h["host"] == "SQL04").unwrap();
    assert!(ok["collection_error"].is_null() && !ok["findings"].as_array().unwrap().is_empty());
    assert_eq!(report["summary"]["collection_errors"], 4);
    assert_eq!(report["summary"]["incomplete"], true);

    // --allow-unreachable: still reported, but the exit status follows the findings.
    let (_, o) = check_json(&[&good, &refusing], &["--allow-unreachable", "--fail-on", "warning"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_fleet_of_fifty_with_three_bad_servers() {
    let peers = Peers::new();
    let dir = tempfile::tempdir().unwrap();
    let mut inventory = String::new();
    let mut bad = vec![];
    for i in 0..50 {
        let name = match i {
            7 => peers.refusing(),
            23 => peers.silent(),
            41 => peers.cutting(&peers.sql(healthy("CUT")), "sys.dm_io_virtual_file_stats"),
            _ => peers.sql(healthy(&format!("SQL{i:02}"))),
        };
        if [7, 23, 41].contains(&i) {
            bad.push(name.clone());
        }
        let tags = if i % 2 == 0 { "[\"prod\"]" } else { "[\"test\"]" };
        inventory.push_str(&format!("[[server]]\nname = \"{name}\"\ntags = {tags}\n\n"));
    }
    let inv = dir.path().join("servers.toml");
    fs::write(&inv, inventory).unwrap();
    let sarif = dir.path().join("fleet.sarif");
    let mut args = vec![
        "check",
        "--inventory",
        inv.to_str().unwrap(),
        "--format",
        "sarif",
        "-o",
        sarif.to_str().unwrap(),
    ];
    args.extend_from_slice(CONN);
    let o = spindle(&args);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let log = sarif_schema::assert_valid_sarif_text(&fs::read_to_string(&sarif).unwrap());
    let run = &log["runs"][0];
    let inv_ = &run["invocations"][0];
    assert_eq!(inv_["executionSuccessful"], false);
    assert_eq!(inv_["properties"]["summary"]["hosts"], 47);
    assert_eq!(inv_["properties"]["summary"]["collectionErrors"], 3);
    let notes: Vec<&str> = inv_["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["descriptor"]["id"] == "collection-error")
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    for b in &bad {
        assert!(notes.iter().any(|n| n.starts_with(b.as_str())), "{b} not named in {notes:?}");
    }
    let hosts: std::collections::HashSet<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["properties"]["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts.len(), 47);

    // --tag picks a subset: 25 even servers, two of the bad ones among them (7 and 41 are odd).
    let (report, _) = {
        let mut args =
            vec!["check", "--inventory", inv.to_str().unwrap(), "--tag", "prod", "--format", "json"];
        args.extend_from_slice(CONN);
        let o = spindle(&args);
        (serde_json::from_slice::<Value>(&o.stdout).unwrap(), o)
    };
    assert_eq!(report["hosts"].as_array().unwrap().len(), 25);
    assert_eq!(report["summary"]["collection_errors"], 0);
}

#[test]
fn an_access_token_from_the_environment_reaches_the_server_and_nowhere_else() {
    let peers = Peers::new();
    let (server, store) = peers.sql_recording(healthy("AAD01"));
    let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.spindle-test-token";
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["collect", "sql", "--server", &server, "--access-token-env", "AAD_TOKEN", "--encrypt", "off"])
        .env("AAD_TOKEN", token)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("\"AAD01\"") && !stdout.contains(token));
    let seen: Vec<Option<String>> = peers.rt.block_on(async {
        store.lock().await.all().values().map(|c| c.received_token_as_string()).collect()
    });
    assert_eq!(seen, [Some(token.to_string())], "the token is the login");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("warning: --encrypt off"), "plain TDS warns: {stderr}");
    assert!(!stderr.contains(token));
}

#[test]
fn secrets_stay_out_of_the_command_line_and_the_output() {
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["collect", "sql", "--server", "127.0.0.1,1", "--user", "spindle"])
        .env_remove("SPINDLE_SQL_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("set SPINDLE_SQL_PASSWORD"));
    let o = spindle(&["collect", "sql", "--server", "127.0.0.1,1", "--user", "spindle", "--password", "x"]);
    assert_eq!(o.status.code(), Some(2), "there is no --password flag");
    let o = spindle(&["check", "--server", "127.0.0.1,1", "--user", "spindle", "--concurrency", "0"]);
    assert_eq!(o.status.code(), Some(2), "zero servers at once would never finish");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--concurrency"));
}

#[test]
fn a_fleet_sharing_a_login_asks_for_its_password_once() {
    let peers = Peers::new();
    let dir = tempfile::tempdir().unwrap();
    let inv = dir.path().join("servers.toml");
    let servers: Vec<String> = (0..3).map(|i| peers.sql(healthy(&format!("TTY{i}")))).collect();
    fs::write(&inv, servers.iter().map(|s| format!("[[server]]\nname = \"{s}\"\n")).collect::<String>())
        .unwrap();
    let out = dir.path().join("report.json");
    // util-linux `script` gives spindle a terminal, as a DBA at a console has; the password is
    // typed once.
    let cmd = format!(
        "{} check --inventory {} --user spindle --encrypt off --format json -o {}",
        env!("CARGO_BIN_EXE_spindle"),
        inv.display(),
        out.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("SPINDLE_SQL_PASSWORD")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux script");
    use std::io::{Read, Write};
    // Type the password when asked: spindle turns echo off before it prompts, so from the
    // moment the prompt shows, nothing typed lands on the screen.
    let mut stdout = child.stdout.take().unwrap();
    let mut screen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&screen).contains("Password for spindle:") {
        assert_eq!(stdout.read(&mut byte).unwrap(), 1, "no prompt: {}", String::from_utf8_lossy(&screen));
        screen.push(byte[0]);
    }
    child.stdin.take().unwrap().write_all(format!("{PASSWORD}\n").as_bytes()).unwrap();
    stdout.read_to_end(&mut screen).unwrap();
    assert!(child.wait().unwrap().success());
    let screen = String::from_utf8_lossy(&screen);
    assert_eq!(screen.matches("Password for spindle:").count(), 1, "{screen}");
    assert!(!screen.contains(PASSWORD), "the password is not echoed: {screen}");
    let report: Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(report["summary"]["hosts"], 3);
}

/// The servers of an inventory are reported in its order, whatever order they answer in: here
/// the first never answers (it is reported last of all to finish, after its timeout) and the
/// second refuses at once.
#[test]
fn a_fleet_report_lists_servers_in_inventory_order() {
    let peers = Peers::new();
    let dir = tempfile::tempdir().unwrap();
    let mut names = vec![peers.silent(), peers.refusing()];
    names.extend((1..=4).map(|i| peers.sql(healthy(&format!("ORDER{i}")))));
    let inventory: String = names.iter().map(|n| format!("[[server]]\nname = \"{n}\"\n\n")).collect();
    let inv = dir.path().join("servers.toml");
    fs::write(&inv, inventory).unwrap();
    let mut args = vec!["check", "--inventory", inv.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(CONN);
    let o = spindle(&args);
    let report: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let hosts = report["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 6, "{report:#}");
    assert_eq!(hosts[0]["host"], names[0].as_str());
    assert!(
        hosts[0]["collection_error"].is_string() && hosts[1]["collection_error"].is_string(),
        "{report:#}"
    );
    assert_eq!(hosts[1]["host"], names[1].as_str());
    for (i, h) in hosts[2..].iter().enumerate() {
        let text = h.to_string();
        assert!(h["collection_error"].is_null() && text.contains(&format!("ORDER{}", i + 1)), "{i}: {text}");
    }
}
