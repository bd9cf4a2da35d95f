//! Hostile text: names, messages and snapshot text that try to drive the terminal (item 2), to be
//! labelled past the column a formatter can pad to (item 5), or to be echoed at a size that
//! floods the report (item 12).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spindle_core::untrusted;
use spindle_test_support::mock_sql::{Peers, healthy, queries, refused, with};
use tempfile::TempDir;

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .env("SPINDLE_TODAY", "2026-11-30")
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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Strings that try to drive a terminal: every C0 control, escape sequences (clear screen, a
/// window title, colours), C1 controls, bidirectional overrides and isolates, invisible marks, a
/// lone combining mark, and a newline forging a summary line at column 0.
fn nasty() -> Vec<String> {
    let mut v: Vec<String> = (0u8..0x20).map(|b| format!("c{b:02x}{}x", b as char)).collect();
    v.extend(
        [
            "\u{1b}[2J\u{1b}[H",
            "\u{1b}]0;pwned\u{7}",
            "\u{1b}]8;;http://evil/\u{1b}\\link\u{1b}]8;;\u{1b}\\",
            "red\u{1b}[31mred",
            "del\u{7f}\u{85}\u{9b}31m",
            "abc\u{202e}fdp.exe",
            "\u{2066}iso\u{2069}\u{2067}late\u{2069}",
            "lrm\u{200e}rlm\u{200f}alm\u{61c}",
            "zw\u{200b}\u{200c}\u{200d}\u{feff}\u{2060}",
            "\u{301}combining",
            "nul\0byte",
            "x\n1 host checked: 0 errors, 0 warnings, 0 notes; 0 waived; 0 not evaluated",
            "\r1 host checked: 0 errors",
            "ls\u{2028}ps\u{2029}",
        ]
        .map(String::from),
    );
    v
}

/// No forbidden character anywhere, no combining mark right after a space or at a line's start,
/// and no line but the last that reads like the run's summary.
fn assert_terminal_safe(what: &str, out: &str) {
    for (i, c) in out.char_indices() {
        assert!(
            c == '\n' || !untrusted::is_unsafe(c),
            "{what}: U+{:04X} at byte {i}: …{}…",
            c as u32,
            near(out, i)
        );
    }
    let lines: Vec<&str> = out.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        let forged = line.contains(" checked: ") && line.starts_with(|c: char| c.is_ascii_digit());
        assert!(!forged || n + 1 == lines.len(), "{what}: line {n} forges a summary: {line}");
        assert!(!line.starts_with('\u{301}'), "{what}: line {n} starts with a combining mark");
    }
}

fn near(s: &str, i: usize) -> &str {
    let mut a = i.saturating_sub(40);
    while !s.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (i + 40).min(s.len());
    while !s.is_char_boundary(b) {
        b += 1;
    }
    &s[a..b]
}

/// A snapshot with a finding on every kind of entity it names (a sector-63 partition, a
/// compressed volume, percent growth) and `n` spliced into every name, label, path and reason.
fn hostile_snapshot(n: &str) -> Value {
    json!({
        "schema_version": 1,
        "host": { "name": format!("sql01{n}"), "os_family": "windows", "os_version": n },
        "collectors": [ { "name": format!("wmi{n}"), "version": n,
            "not_collected": [ { "fact": format!("raid_sets{n}"), "reason": format!("no tool{n}") } ] } ],
        "disks": [ { "id": format!("disk1{n}"), "number": 1, "physical_sector_bytes": 512,
                     "model": n, "bus": n } ],
        "partitions": [ { "id": format!("disk1-p1{n}"), "disk_id": format!("disk1{n}"), "number": 1,
                          "offset_bytes": 32256 } ],
        "volumes": [ { "id": format!("vol{n}"), "label": n, "mount_points": [format!("E:\\{n}")],
                       "filesystem": "NTFS", "compressed": true, "allocation_unit_bytes": 4096,
                       "backed_by": { "partitions": [format!("disk1-p1{n}")] } } ],
        "sql_instances": [ { "name": format!("MSSQL{n}"), "version": n, "edition": n,
            "service_account": n, "databases": [ { "name": format!("sales{n}"), "state": n,
                "recovery_model": n, "files": [
                    { "type": "rows", "logical_name": format!("sales{n}"),
                      "physical_name": format!("E:\\{n}\\sales.mdf"), "volume_id": format!("vol{n}"),
                      "growth": { "percent": 10 }, "size_bytes": 1048576 },
                    { "type": "log", "logical_name": format!("log{n}"),
                      "physical_name": format!("E:\\{n}\\sales.ldf"), "volume_id": format!("vol{n}"),
                      "growth": { "percent": 10 }, "size_bytes": 1048576 } ] } ] } ]
    })
}

#[test]
fn item02_escapes_terminal_controls_from_every_name() {
    let dir = TempDir::new().unwrap();
    for (i, n) in nasty().iter().enumerate() {
        // The file's own name is data too.
        let name = format!("{i}-{}.json", n.replace(['/', '\0'], "_"));
        let f = write(dir.path(), &name, &serde_json::to_string_pretty(&hostile_snapshot(n)).unwrap());
        let o = spindle(&["check", s(&f)]);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(1), "{n:?}: {err}");
        assert!(out.contains("ALN001") && out.contains("GRW001"), "{n:?}: {out}");
        assert_terminal_safe(&format!("stdout for {n:?}"), &out);
        assert_terminal_safe(&format!("stderr for {n:?}"), &err);
    }
}

#[test]
fn item02_escapes_terminal_controls_in_errors_on_stderr() {
    let dir = TempDir::new().unwrap();
    for (i, n) in nasty().iter().enumerate() {
        // Not JSON, with the data around the error and in the file's name.
        let name = format!("{i}-{}.json", n.replace(['/', '\0'], "_"));
        let f = write(dir.path(), &name, &format!("{{\"schema_version\": 1, \"host\": {n}\n{n}\n"));
        let o = spindle(&["check", s(&f)]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{n:?}: {err}");
        assert!(err.contains(":1:"), "{n:?}: {err}");
        assert_terminal_safe(&format!("stderr for {n:?}"), &err);
    }
}

/// One line of JSON (as `jq -c` writes), with `pad` disks before a sector-63 partition.
fn minified(pad: usize, offset: &str) -> String {
    let disks: Vec<String> = (0..pad)
        .map(|i| {
            format!(
                r#"{{"id":"disk{i}","number":{i},"model":"Virtual Disk {i}","physical_sector_bytes":512}}"#
            )
        })
        .collect();
    format!(
        r#"{{"schema_version":1,"host":{{"name":"sql01","os_family":"windows"}},"disks":[{}],"partitions":[{{"id":"p1","disk_id":"disk1","number":1,"offset_bytes":{offset}}}]}}"#,
        disks.join(",")
    )
}

/// Every line of `out` is at most `max` characters.
fn assert_lines_at_most(what: &str, out: &str, max: usize) {
    for (n, line) in out.lines().enumerate() {
        let len = line.chars().count();
        assert!(
            len <= max,
            "{what}: line {n} has {len} characters: {}…",
            line.chars().take(200).collect::<String>()
        );
    }
}

#[test]
fn item05_finding_past_column_65535_does_not_panic() {
    let dir = TempDir::new().unwrap();
    let snapshot = minified(2000, "32256");
    let column = snapshot.find(r#""offset_bytes""#).unwrap() + 1;
    assert!(column > 70_000, "{column}");
    let f = write(dir.path(), "minified.json", &snapshot);
    let o = spindle(&["check", s(&f)]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains("ALN001"), "{out}");
    // The label names the true line and column; the line shown is a window around it.
    assert!(out.contains(&format!("minified.json:1:{column}]")), "{out}");
    assert!(out.contains("\"offset_bytes\":32256"), "{out}");
    assert_lines_at_most("stdout", &out, 1000);
}

#[test]
fn item05_parse_error_past_column_65535_does_not_panic() {
    let dir = TempDir::new().unwrap();
    let snapshot = minified(2000, "-512");
    let column = snapshot.find("-512").unwrap() + 1;
    let f = write(dir.path(), "minified.json", &snapshot);
    let o = spindle(&["check", s(&f)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // serde_json places the error on the number's last digit.
    let at = err.find("minified.json:1:").unwrap_or_else(|| panic!("{err}")) + "minified.json:1:".len();
    let reported: usize = err[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
    assert!((column..column + 8).contains(&reported), "{reported} for {column}: {err}");
    assert!(err.contains("-512"), "{err}");
    assert_lines_at_most("stderr", &err, 1000);
}

#[test]
fn item12_huge_host_name_is_refused_with_its_position() {
    let dir = TempDir::new().unwrap();
    let name = "n".repeat(10 << 20);
    let snapshot = format!("{{\n  \"schema_version\": 1,\n  \"host\": {{ \"name\": \"{name}\" }}\n}}\n");
    let f = write(dir.path(), "big-name.json", &snapshot);
    for format in ["text", "json"] {
        let o = spindle(&["check", s(&f), "--format", format]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}", near(&err, 0));
        assert!(err.contains("big-name.json:3:21"), "{}", near(&err, 0));
        assert!(err.contains("/host/name"), "{}", near(&err, 0));
        // A report to stdout is streamed, so a failed run may have written its opening; never
        // the name.
        assert!(err.len() < 16 << 10, "{} bytes of stderr", err.len());
        assert!(o.stdout.len() < 1 << 20, "{} bytes of stdout", o.stdout.len());
        assert!(!text(&o.stdout).contains(&name[..1000]), "the name is not echoed on stdout");
    }
}

#[test]
fn item12_long_names_and_messages_are_cut_in_the_text_report() {
    let dir = TempDir::new().unwrap();
    // Under the bound a snapshot may have, far over what a report line should echo.
    let long = "x".repeat(4000);
    let f = write(dir.path(), "long.json", &serde_json::to_string_pretty(&hostile_snapshot(&long)).unwrap());
    let o = spindle(&["check", s(&f)]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let header = out.lines().next().unwrap();
    assert!(header.chars().count() < 400, "{header}");
    assert!(header.contains(" more bytes)"), "{header}");
    assert_lines_at_most("stdout", &out, 6000);
}

#[test]
fn item12_parse_error_on_a_huge_line_is_quick_and_short() {
    let dir = TempDir::new().unwrap();
    let mut garbage = String::from("{\"schema_version\": 1, \"host\": @");
    garbage.push_str(&"\u{1b}[2J garbage ".repeat(1 << 20));
    let f = write(dir.path(), "garbage.json", &garbage);
    let started = Instant::now();
    let o = spindle(&["check", s(&f)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", near(&err, 0));
    assert!(err.contains("garbage.json:1:31"), "{}", near(&err, 0));
    assert!(err.len() < 16 << 10, "{} bytes of stderr", err.len());
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert_terminal_safe("stderr", &err);
}

/// Plain TDS to the loopback mock, with short timeouts.
const CONN: &[&str] =
    &["--user", "spindle", "--encrypt", "off", "--connect-timeout", "2s", "--query-timeout", "2s"];

fn spindle_live(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .args(CONN)
        .env("SPINDLE_SQL_PASSWORD", "s3cr3t-Pa55word")
        .env("SPINDLE_TODAY", "2026-11-30")
        .env_remove("SPINDLE_CACHE_DIR")
        .output()
        .expect("spindle runs")
}

#[test]
fn item02_escapes_what_a_server_says() {
    let peers = Peers::new();
    // The server's own name for itself, and its error message for a refused query.
    let name = "SQL01\u{1b}]0;pwned\u{7}\u{202e}\n1 host checked: 0 errors";
    let denied = "denied\u{1b}[2J\u{200e}\n0 errors, 0 warnings";
    let server = peers.sql(with(healthy(name), queries::VOLUME_STATS, refused(300, denied)));
    let dir = TempDir::new().unwrap();
    let saved = dir.path().join("snap.json");

    let o = spindle_live(&["collect", "sql", "--server", &server, "-o", s(&saved)]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("not collected: volumes: ") && err.contains("denied\\e[2J"), "{err}");
    assert_terminal_safe("collect's stderr", &err);

    let o = spindle_live(&["check", "--server", &server, "--fail-on", "warning"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(out.contains("SQL01\\e]0;pwned\\u{7}\\u{202e}\\n1 host checked"), "{out}");
    assert!(out.contains("denied\\e[2J\\u{200e}\\n0 errors"), "{out}");
    assert_terminal_safe("check's stdout", &out);
    assert_terminal_safe("check's stderr", &err);
}

#[test]
fn item12_a_server_with_an_absurd_name_is_its_own_error() {
    let peers = Peers::new();
    let absurd = peers.sql(healthy(&"N".repeat(5000)));
    let good = peers.sql(healthy("SQL02"));
    let o = spindle_live(&["check", "--format", "json", "--server", &absurd, "--server", &good]);
    assert_eq!(o.status.code(), Some(2), "incomplete: {}", text(&o.stderr));
    assert!(o.stdout.len() < 1 << 20, "{} bytes of report", o.stdout.len());
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let hosts = report["hosts"].as_array().unwrap();
    let refused = hosts.iter().find(|h| h["host"] == absurd.as_str()).expect("the server is reported");
    let error = refused["collection_error"].as_str().unwrap();
    assert!(error.contains("/host/name is 5,000 bytes long"), "{error}");
    // The other server is checked in full.
    let ok = hosts.iter().find(|h| h["host"] == "SQL02").unwrap();
    assert!(ok["collection_error"].is_null() && !ok["findings"].as_array().unwrap().is_empty());
}
