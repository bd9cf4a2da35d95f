//! End-to-end tests of the `spindle` binary: exit codes, bad input, atomic output, packs and
//! waivers, merging, and that every SARIF document it writes is valid.

use spindle_test_support::sarif as sarif_schema;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

use spindle_test_support::SECTOR_63;

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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn findings_set_the_exit_status_and_fail_on_moves_the_bar() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    assert_eq!(spindle(&["check", s(&f)]).status.code(), Some(1));
    assert_eq!(spindle(&["check", s(&f), "--fail-on", "never"]).status.code(), Some(0));
    // Only ALN004 selected: a 512 B physical sector divides 32,256, so nothing fails.
    let pack = write(dir.path(), "p.toml", "select = [\"ALN004\"]\n");
    assert_eq!(spindle(&["check", s(&f), "--pack", s(&pack)]).status.code(), Some(0));
}

#[test]
fn json_report_points_at_the_offending_line() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let o = spindle(&["check", s(&f), "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = report["hosts"][0]["findings"].as_array().unwrap();
    let aln = findings.iter().find(|f| f["code"] == "ALN001").expect("ALN001 reported");
    assert_eq!(aln["location"]["line"], 6);
    assert_eq!(aln["location"]["pointer"], "/partitions/0/offset_bytes");
    assert_eq!(aln["entity"]["key"], "sql01/disk:disk1/partition:1");
    assert!(aln["message"].as_str().unwrap().contains("32,256 B (31.5 KiB)"));
    // Sections that were never collected are "not evaluated", never a silent pass.
    let nev = report["hosts"][0]["not_evaluated"].as_array().unwrap();
    assert!(nev.iter().any(|n| n["code"] == "PLC001"), "{nev:?}");
}

#[test]
fn sarif_is_valid_and_records_not_evaluated() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let o = spindle(&["check", s(&f), "--format", "sarif"]);
    let log = sarif_schema::assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap());
    let run = &log["runs"][0];
    assert!(run["results"].as_array().unwrap().iter().any(|r| r["ruleId"] == "ALN001"));
    let notes = run["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["message"]["text"].as_str().unwrap().contains("PLC001")), "{notes:?}");
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn bad_input_exits_2_naming_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    let cases = [
        ("malformed.json", "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\",}\n}\n", ":3:"),
        (
            "wrong-type.json",
            "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\", \"cpu_count\": \"eight\"}\n}\n",
            ":3:",
        ),
        (
            "negative.json",
            "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\"},\n  \"partitions\": [{\"id\": \"p\", \"disk_id\": \"d\", \"offset_bytes\": -512}]\n}\n",
            ":4:",
        ),
        (
            "version.json",
            "{\n  \"schema_version\": 9,\n  \"host\": {\"name\": \"a\"}\n}\n",
            "unsupported schema_version 9",
        ),
        ("not-json.json", "hello", ":1:"),
    ];
    for (name, text, expect) in cases {
        let f = write(dir.path(), name, text);
        let o = spindle(&["check", s(&f)]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(name) && err.contains(expect), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}: nothing is written on bad input");
    }
}

#[test]
fn unknown_field_names_line_column_pointer_and_the_closest_field() {
    let dir = TempDir::new().unwrap();
    let text = "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\", \"cpu_cont\": 8}\n}\n";
    let f = write(dir.path(), "typo.json", text);
    let o = spindle(&["check", s(&f)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    // The column is the key's opening quote.
    for expect in ["typo.json:3:25:", "unknown field `cpu_cont`", "did you mean `cpu_count`?"] {
        assert!(err.contains(expect), "{expect}: {err}");
    }
    // The pointer, wherever the terminal width wraps the message.
    let joined: String = err.split(['\n', '│']).flat_map(str::split_whitespace).collect();
    assert!(joined.contains("`cpu_cont`at/host/cpu_cont,expected"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn oversized_file_is_refused_without_reading_it() {
    let dir = TempDir::new().unwrap();
    let f = dir.path().join("huge.json");
    fs::File::create(&f).unwrap().set_len(1 << 30).unwrap(); // sparse: nothing is written
    let o = spindle(&["check", s(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a snapshot is at most"), "{}", stderr(&o));
}

#[test]
fn stray_files_in_a_fleet_folder_are_skipped_with_a_note_and_named_ones_refused() {
    // Issue 24, item 4: a NOTES.txt, a .bak, a .gz or the baseline beside the snapshots aborted
    // the whole fleet's run.
    let dir = TempDir::new().unwrap();
    write(dir.path(), "sql01.json", SECTOR_63);
    let notes = write(dir.path(), "NOTES.txt", "erp-sql1 rebuilt on 2026-12-01");
    write(dir.path(), "sql01.json.bak", SECTOR_63);
    fs::write(dir.path().join("sql02.json.gz"), [0x1f, 0x8b, 8, 0, 0, 0, 0, 0]).unwrap();
    let baseline = dir.path().join("spindle-baseline.json");
    let o = spindle(&["baseline", "--no-config", s(dir.path()), "-o", s(&baseline)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Written into the folder it reads: said, as the next run will find it there.
    assert!(squashed(&stderr(&o)).contains(&squashed("is written into the input folder")), "{}", stderr(&o));

    let o = spindle(&["check", s(dir.path()), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "the snapshot is checked: {}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["hosts"].as_array().unwrap().len(), 1, "{report}");
    let err = stderr(&o);
    let notes_of: Vec<&str> = err.lines().filter(|l| l.starts_with("spindle: skipped ")).collect();
    assert_eq!(notes_of.len(), 4, "one line per file skipped: {err}");
    // How to silence them is said once, not on every line.
    assert_eq!(err.matches("--exclude GLOB").count(), 1, "{err}");
    for (name, what) in [
        ("NOTES.txt", "not a snapshot (.json) file"),
        ("sql01.json.bak", "not a snapshot (.json) file"),
        ("sql02.json.gz", "not a snapshot (.json) file"),
        ("spindle-baseline.json", "not a snapshot: a baseline spindle wrote"),
    ] {
        assert!(notes_of.iter().any(|l| l.contains(&format!("/{name}: {what}"))), "{name}: {err}");
    }
    // --exclude leaves them out without a word: by name without `/`, by path below with one.
    let sub = dir.path().join("old");
    fs::create_dir(&sub).unwrap();
    write(&sub, "broken.json", "{");
    let o = spindle(&[
        "check",
        s(dir.path()),
        "--exclude",
        "*.bak",
        "--exclude",
        "*.gz",
        "--exclude",
        "NOTES.*",
        "--exclude",
        "spindle-baseline.json",
        "--exclude",
        "old/*",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("skipped"), "{}", stderr(&o));
    // Without it, a broken .json file is still a broken snapshot: never skipped in silence.
    let o = spindle(&["check", s(dir.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("broken.json"), "{}", stderr(&o));
    fs::remove_dir_all(&sub).unwrap();

    // Named on the command line, a file that is not a snapshot is refused, as before.
    for named in [&notes, &baseline] {
        let o = spindle(&["check", s(dir.path().join("sql01.json").as_path()), s(named)]);
        assert_eq!(o.status.code(), Some(2), "{}: {}", named.display(), stderr(&o));
    }
    let o = spindle(&["check", s(&baseline)]);
    assert!(
        squashed(&stderr(&o)).contains(&squashed("not a snapshot: a baseline spindle wrote")),
        "{}",
        stderr(&o)
    );
    // A folder with no snapshot in it is still an error.
    let empty = TempDir::new().unwrap();
    assert_eq!(spindle(&["check", s(empty.path())]).status.code(), Some(2));
    write(empty.path(), "README.txt", "snapshots go here");
    let o = spindle(&["check", s(empty.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn output_is_atomic_and_a_failed_run_leaves_no_stale_report() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "good.json", SECTOR_63);
    let out = dir.path().join("report.sarif");
    let o = spindle(&["check", s(&good), "--format", "sarif", "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    sarif_schema::assert_valid_sarif_text(&fs::read_to_string(&out).unwrap());

    let bad_dir = TempDir::new().unwrap();
    write(bad_dir.path(), "a.json", SECTOR_63);
    write(bad_dir.path(), "b.json", "{\"schema_version\": 1, \"host\": {\"name\": \"b\"}, \"disks\": 5}");
    let o = spindle(&["check", s(bad_dir.path()), "--format", "sarif", "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists(), "yesterday's report must not pass for today's");
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
}

#[test]
fn output_to_a_named_pipe_or_through_a_link_keeps_what_is_there() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "good.json", SECTOR_63);
    // A named pipe (as /dev/null or /dev/stdout are devices) cannot be renamed over: the report
    // is written into it, and it stays a pipe.
    let fifo = dir.path().join("report.pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let o = spindle(&["check", s(&good), "--format", "json", "--output", s(&fifo)]);
    // Had spindle not opened the pipe, the reader would wait forever in its open: open the pipe
    // to release it. Read and write, which never waits on Linux: a write-only open waits for a
    // reader, and the reader may close between a check and that open, as it did on a busy machine.
    drop(fs::OpenOptions::new().read(true).write(true).open(&fifo));
    let text = reader.join().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&text).expect("the whole report came through the pipe");
    assert_eq!(report["hosts"][0]["host"], "sql01");
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    // Through a symbolic link: the file it points to gets the report, the link stays a link.
    let target = dir.path().join("target.json");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = spindle(&["check", s(&good), "--format", "json", "--output", s(&link)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let report: Value = serde_json::from_str(&fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(report["hosts"][0]["host"], "sql01");

    // `-o -` is standard output, not a file named "-".
    let o = spindle(&["check", s(&good), "--format", "json", "-o", "-"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("the report on stdout");
    assert_eq!(report["hosts"][0]["host"], "sql01");
    assert!(!Path::new("-").exists());

    // A directory is not a report file.
    let o = spindle(&["check", s(&good), "--output", s(dir.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
}

#[test]
fn plain_text_when_piped() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let o = spindle(&["check", s(&f)]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "no colour codes off a terminal");
    assert!(text.starts_with("━━ sql01 ━"), "{text}");
    // The host's name heads its section; entities are named below it.
    assert!(
        text.contains(&format!("  - disk 1 › partition 1: 32,256 B (31.5 KiB) at {}:6:", s(&f))),
        "{text}"
    );
    assert!(text.contains("\"offset_bytes\": 32256"), "the snapshot's JSON is shown: {text}");
    assert!(text.contains("not evaluated"), "{text}");
}

#[test]
fn waivers_hold_until_they_expire() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let pack = write(
        dir.path(),
        "waive.toml",
        "[[waivers]]\nrules = [\"ALN\"]\nentity = \"sql01/disk:disk1/*\"\nreason = \"Rebuilt in the Q1 migration\"\nexpires = \"2027-03-31\"\n",
    );
    let o = spindle(&["check", s(&f), "--pack", s(&pack), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "waived findings do not fail the run");
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let aln = r["hosts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "ALN001")
        .cloned()
        .unwrap();
    assert_eq!(aln["waiver"]["reason"], "Rebuilt in the Q1 migration", "waived findings stay in the report");

    let later = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", s(&f), "--pack", s(&pack)])
        .env("SPINDLE_TODAY", "2027-04-01")
        .output()
        .unwrap();
    assert_eq!(later.status.code(), Some(1), "an expired waiver no longer applies");
    assert!(String::from_utf8_lossy(&later.stdout).contains("waiver expired on 2027-03-31"));
}

#[test]
fn bad_pack_names_position_and_suggests() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let pack = write(dir.path(), "p.toml", "extends = [\"oltp\"]\n\n[rules.ALN001]\nalignment_byte = 4096\n");
    let o = spindle(&["check", s(&f), "--pack", s(&pack)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("p.toml:4:1") && err.contains("did you mean `alignment_bytes`?"), "{err}");
    let o = spindle(&["check", s(&f), "--pack", "olpt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("builtin packs: recommended, oltp, data-warehouse"), "{}", stderr(&o));
}

/// A pack with several mistakes shows every one on stderr, each with its position and its own
/// snippet, under their count: one edit fixes them all.
#[test]
fn every_pack_error_is_shown_at_once() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let pack = write(
        dir.path(),
        "p.toml",
        "[rules.ALN01]\nseverity = \"note\"\n\n[rules.ALN001]\nalignment_byts = 4096\n",
    );
    let o = spindle(&["check", s(&f), "--pack", s(&pack)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("2 errors"), "{err}");
    for needle in ["p.toml:1:8", "unknown rule `ALN01`", "p.toml:5:1", "did you mean `alignment_bytes`?"] {
        assert!(err.contains(needle), "{needle} missing from:\n{err}");
    }
    // Each error's own snippet, not only its message.
    assert!(err.contains("alignment_byts = 4096") && err.contains("[rules.ALN01]"), "{err}");
}

#[test]
fn files_of_one_host_merge_and_join_by_volume_id() {
    let dir = TempDir::new().unwrap();
    let host = write(
        dir.path(),
        "host.json",
        r#"{"schema_version": 1, "host": {"name": "sql09", "os_family": "windows"},
  "volumes": [{"id": "\\\\?\\Volume{0A1B2C3D-0000-0000-0000-000000000001}\\", "mount_points": ["E:\\SQLData\\"],
               "filesystem": "NTFS", "allocation_unit_bytes": 4096}]}"#,
    );
    // SQL Server reports the GUID path in another case and without the trailing backslash.
    let sql = write(
        dir.path(),
        "sql.json",
        r#"{"schema_version": 1, "host": {"name": "sql09"},
  "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "erp", "files": [
    {"type": "rows", "logical_name": "erp", "physical_name": "E:\\SQLData\\erp.mdf",
     "volume_id": "\\\\?\\volume{0a1b2c3d-0000-0000-0000-000000000001}"}]}]}]}"#,
    );
    let pack = write(dir.path(), "p.toml", "select = [\"FMT001\"]\n");
    let o = spindle(&["check", s(&host), s(&sql), "--pack", s(&pack), "--format", "json"]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["hosts"].as_array().unwrap().len(), 1, "one host from two files");
    let f = &r["hosts"][0]["findings"][0];
    assert_eq!(f["code"], "FMT001", "{r}");
    assert!(
        f["location"]["path"].as_str().unwrap().ends_with("host.json"),
        "the cluster size is in host.json"
    );
}

#[test]
fn explain_and_rules() {
    let o = spindle(&["explain", "ALN001"]);
    let text = String::from_utf8(o.stdout).unwrap();
    for h in [
        "## What it checks",
        "## Example",
        "## Why it matters",
        "## How to fix",
        "## References",
        "## Parameters",
    ] {
        assert!(text.contains(h), "{h} in {text}");
    }
    // The example, whole: the snapshot and what the rule reports on it (rules/tests/examples.rs
    // runs it).
    assert!(text.contains("```json\n{\n  \"schema_version\": 1,\n"), "{text}");
    assert!(text.contains("\"offset_bytes\": 32256"), "{text}");
    assert!(
        text.contains(
            "```text\nerror ALN001 sql01 › disk 1 › partition 1 (E:\\) [/partitions/0/offset_bytes]\n"
        ),
        "{text}"
    );
    // What the declaration says besides the docs: the release and the impact class.
    assert!(text.contains(" Since 0.1.0. Impact: a layout cause, fixed with an outage."), "{text}");
    let o = spindle(&["explain", "ALN01"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did you mean `ALN001`?"));
    // The table: a header, then one row per builtin rule in code order, with the packs that
    // enable it.
    let o = spindle(&["rules"]);
    let table = String::from_utf8(o.stdout).unwrap();
    let mut lines = table.lines();
    assert!(lines.next().unwrap().starts_with("CODE"), "{table}");
    let codes: Vec<&str> = lines.map(|l| l.split_whitespace().next().unwrap()).collect();
    let expected: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    assert_eq!(codes, expected);
    let aln001 = table.lines().find(|l| l.starts_with("ALN001")).unwrap();
    assert!(aln001.contains("partition-offset-alignment") && aln001.contains("recommended"), "{aln001}");
}

#[test]
fn rule_table_is_current() {
    // The manual's Rules chapter; `cargo xtask docs` writes it.
    let page = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md")).unwrap();
    let begin = page.find("<!-- rules:begin").expect("docs/rules.md has the rules markers");
    let start = page[begin..].find('\n').unwrap() + begin + 1;
    let end = page.find("<!-- rules:end -->").unwrap();
    let generated = String::from_utf8(spindle(&["rules", "--format", "markdown"]).stdout).unwrap();
    assert!(page[start..end] == generated, "docs/rules.md's rule table is stale: run `cargo xtask docs`");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(spindle(&["check"]).status.code(), Some(2));
    assert_eq!(spindle(&["check", "x.json", "--format", "xml"]).status.code(), Some(2));
    assert_eq!(spindle(&["check", "/nonexistent/x.json"]).status.code(), Some(2));
}

#[test]
fn host_named_late_in_a_large_file_is_still_grouped() {
    // Collectors write `host` first; a hand-edited file may not. Past the first 8 KiB spindle
    // falls back to reading the whole file for the name.
    let dir = TempDir::new().unwrap();
    let partitions: Vec<String> = (0..400)
        .map(|i| format!("{{\"id\": \"p{i}\", \"disk_id\": \"d\", \"offset_bytes\": 1048576}}"))
        .collect();
    let text = format!(
        "{{\"schema_version\": 1, \"partitions\": [{}], \"host\": {{\"name\": \"late01\"}}}}",
        partitions.join(",\n")
    );
    assert!(text.find("late01").unwrap() > 8 << 10);
    let f = write(dir.path(), "late.json", &text);
    let o = spindle(&["check", s(&f), "--format", "json", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["hosts"][0]["host"], "late01");
}

/// Hosts are checked on several threads; the report must not show it: every format is
/// byte-for-byte the same with one thread or many, and a bad file in the middle of a fleet still
/// stops the run with its own error and no report.
#[test]
fn reports_do_not_depend_on_the_number_of_threads() {
    let dir = TempDir::new().unwrap();
    let fleet = dir.path().join("fleet");
    fs::create_dir(&fleet).unwrap();
    for i in 0..24 {
        // Hosts differ in findings (every third partition is aligned), so reordering would show.
        let offset = if i % 3 == 0 { "1048576" } else { "32256" };
        let text = SECTOR_63.replace("sql01", &format!("sql{i:02}")).replace("32256", offset);
        write(&fleet, &format!("sql{i:02}.json"), &text);
    }
    for format in ["json", "sarif", "text", "concise", "markdown", "html"] {
        let reports: Vec<Vec<u8>> = ["1", "2", "7"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("r-{format}-{jobs}"));
                let o = spindle(&["check", s(&fleet), "--format", format, "--jobs", jobs, "-o", s(&out)]);
                assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
                fs::read(&out).unwrap()
            })
            .collect();
        assert!(reports.windows(2).all(|w| w[0] == w[1]), "{format} reports differ with the thread count");
    }
    let json: Value = serde_json::from_slice(&fs::read(dir.path().join("r-json-7")).unwrap()).unwrap();
    let hosts: Vec<&str> =
        json["hosts"].as_array().unwrap().iter().map(|h| h["host"].as_str().unwrap()).collect();
    assert_eq!(hosts, (0..24).map(|i| format!("sql{i:02}")).collect::<Vec<_>>());
    // The text report, grouped per host, keeps the hosts in the same order.
    let text = fs::read_to_string(dir.path().join("r-text-7")).unwrap();
    let titles: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("━━ ")).map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(titles, hosts);

    write(
        &fleet,
        "sql13.json",
        "{\n  \"schema_version\": 1,\n  \"host\": { \"name\": \"sql13\" },\n  \"disks\": [ {\"id\": 5} ]\n}\n",
    );
    let out = dir.path().join("broken.json");
    let o = spindle(&["check", s(&fleet), "--format", "json", "--jobs", "4", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("sql13.json:4:21"), "{err}");
    assert!(!out.exists(), "a failed run leaves no report");
}

/// `spindle` run in `dir`, as a user in a project folder.
fn spindle_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .current_dir(dir)
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .expect("spindle runs")
}

/// `text` without the whitespace and frame miette wraps a message in, so that a message can be
/// looked for whatever the terminal width.
fn squashed(text: &str) -> String {
    text.split(['\n', '│']).flat_map(str::split_whitespace).collect()
}

fn codes(report: &Value, key: &str) -> Vec<String> {
    report["hosts"][0][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn active_rules(o: &Output) -> Vec<String> {
    let r: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)));
    r["rules"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn select_extend_select_and_ignore_layer_over_the_pack() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let only_aln004 = write(dir.path(), "p.toml", "select = [\"ALN004\"]\n");
    let run = |extra: &[&str]| {
        let mut args = vec!["check", s(&f), "--format", "json"];
        args.extend_from_slice(extra);
        spindle(&args)
    };
    // The pack selects ALN004 alone; --extend-select adds ALN001 (which fails this host).
    let o = run(&["--pack", s(&only_aln004)]);
    assert_eq!((o.status.code(), active_rules(&o)), (Some(0), vec!["ALN004".to_string()]));
    let o = run(&["--pack", s(&only_aln004), "--extend-select", "ALN001"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(active_rules(&o), ["ALN001", "ALN004"]);
    // --select replaces the pack's selection: by prefix, by name, comma-separated or repeated.
    let o =
        run(&["--pack", s(&only_aln004), "--select", "partition-offset-alignment,FMT001", "--select", "LAT"]);
    assert_eq!(active_rules(&o), ["ALN001", "FMT001", "LAT001", "LAT002", "LAT003"]);
    // --ignore wins over both, and works over the default pack too.
    let o = run(&["--select", "ALN", "--extend-select", "FMT001", "--ignore", "ALN001,FMT"]);
    let active = active_rules(&o);
    assert!(
        active.iter().all(|c| c.starts_with("ALN")) && !active.contains(&"ALN001".to_string()),
        "{active:?}"
    );
    assert_eq!(o.status.code(), Some(0), "without ALN001 nothing fails: {}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!codes(&r, "findings").contains(&"ALN001".to_string()));

    // Every unknown selector at once, each with its flag and a suggestion; nothing is written.
    let o = run(&[
        "--select",
        "ALX,ALN001",
        "--extend-select",
        "partition-offset-alignmnt",
        "--ignore",
        "QQQ999",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    for expect in [
        "3 rule selectors on the command line match no rule",
        "--select ALX: did you mean `ALN`?",
        "--extend-select partition-offset-alignmnt: did you mean `partition-offset-alignment`?",
        "--ignore QQQ999",
    ] {
        assert!(squashed(&err).contains(&squashed(expect)), "{expect}: {err}");
    }
}

#[test]
fn the_projects_pack_is_found_from_the_working_directory() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let sub = dir.path().join("reports/today");
    fs::create_dir_all(&sub).unwrap();
    // Without a project pack: recommended, ALN001 fails the host, and nothing is said.
    let o = spindle_in(&sub, &["check", s(&f)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("using the pack"), "{}", stderr(&o));

    for name in [".spindle.toml", "spindle.toml"] {
        // spindle.toml wins over .spindle.toml in the same folder: written last, it is the one used.
        write(dir.path(), name, "select = [\"ALN004\"]\n");
        let o = spindle_in(&sub, &["check", s(&f)]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("using the pack") && err.contains(&format!("/{name} ")), "{err}");
    }
    // --no-config (alias --isolated) skips it; --pack replaces it.
    for args in [
        vec!["check", s(&f), "--no-config"],
        vec!["check", s(&f), "--isolated"],
        vec!["check", s(&f), "--pack", "recommended"],
    ] {
        let o = spindle_in(&sub, &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(!stderr(&o).contains("using the pack"), "{args:?}: {}", stderr(&o));
    }
    // A broken project pack is an error naming it, like any pack.
    write(dir.path(), "spindle.toml", "selct = [\"ALN004\"]\n");
    let o = spindle_in(&sub, &["check", s(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("spindle.toml:1:1") && stderr(&o).contains("did you mean `select`?"),
        "{}",
        stderr(&o)
    );
}

/// A SAN LUN: no machine reports its stripe unit, so ALN002 wants one declared.
const SAN_LUN: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql05" },
  "disks": [ { "id": "lun7", "number": 4, "bus": "Fibre Channel" } ],
  "partitions": [
    { "id": "p1", "disk_id": "lun7", "number": 1, "offset_bytes": 1048576 },
    { "id": "p2", "disk_id": "lun7", "number": 2, "offset_bytes": 1114112 }
  ]
}
"#;

#[test]
fn init_writes_a_starter_pack_that_loads_and_lists_the_declarations_to_make() {
    let dir = TempDir::new().unwrap();
    let snaps = dir.path().join("snaps");
    fs::create_dir(&snaps).unwrap();
    write(&snaps, "sql05.json", SAN_LUN);
    write(&snaps, "sql01.json", SECTOR_63);

    let o = spindle_in(dir.path(), &["init", "snaps"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Both disks: a SAN LUN, and a disk of which the snapshot says nothing that rules out a
    // hardware RAID under it.
    assert!(stderr(&o).contains("wrote spindle.toml, 2 stripe units to declare"), "{}", stderr(&o));
    let pack = dir.path().join("spindle.toml");
    let text = fs::read_to_string(&pack).unwrap();
    for expect in [
        "extends = [\"recommended\"]",
        "# [[waivers]]",
        "# [[declare.stripe_unit]]",
        "# entity = 'sql05/disk:lun7'",
        "# entity = 'sql01/disk:disk1'",
        "storcli",
    ] {
        assert!(text.contains(expect), "{expect}: {text}");
    }
    // It is TOML that the real pack loader takes as it is: `check` run there uses it.
    let o = spindle_in(dir.path(), &["check", "snaps", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("using the pack"), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sql05 = r["hosts"].as_array().unwrap().iter().find(|h| h["host"] == "sql05").unwrap();
    assert!(sql05["not_evaluated"].as_array().unwrap().iter().any(|n| n["code"] == "ALN002"), "{sql05}");

    // Its declaration, uncommented with the placeholder left, does not load: the placeholder is no value.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines.iter().position(|l| l == "# entity = 'sql05/disk:lun7'").unwrap();
    assert_eq!(lines[at - 1], "# [[declare.stripe_unit]]");
    assert_eq!(lines[at + 1], "# stripe_unit_bytes = STRIPE_UNIT_BYTES");
    for l in &mut lines[at - 1..=at + 1] {
        *l = l[2..].to_string();
    }
    let uncommented = lines.join("\n") + "\n";
    fs::write(&pack, &uncommented).unwrap();
    let o = spindle_in(dir.path(), &["check", "snaps"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("spindle.toml:"), "{}", stderr(&o));
    // It says what to put there (issue 24: it said what TOML expected).
    assert!(
        squashed(&stderr(&o)).contains(&squashed("replace STRIPE_UNIT_BYTES with the stripe unit in bytes")),
        "{}",
        stderr(&o)
    );
    // Filled in, it is used: ALN002 judges the LUN's partitions (the second is misaligned).
    fs::write(&pack, uncommented.replace("= STRIPE_UNIT_BYTES", "= 262144")).unwrap();
    let o = spindle_in(dir.path(), &["check", "snaps", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sql05 = r["hosts"].as_array().unwrap().iter().find(|h| h["host"] == "sql05").unwrap();
    let aln002: Vec<&Value> =
        sql05["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "ALN002").collect();
    assert_eq!(aln002.len(), 1, "{sql05}");

    // An existing file is not replaced without --force.
    let before = fs::read_to_string(&pack).unwrap();
    let o = spindle_in(dir.path(), &["init"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already exists") && stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&pack).unwrap(), before);
    let o = spindle_in(dir.path(), &["init", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fresh = fs::read_to_string(&pack).unwrap();
    assert!(
        fresh.contains("STRIPE_UNIT_BYTES") && !fresh.contains("needed by"),
        "no snapshots, no entities: {fresh}"
    );
    // Loads as it is, elsewhere too.
    let o = spindle(&["check", s(&dir.path().join("snaps/sql01.json")), "--pack", s(&pack)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn waivers_that_match_nothing_or_expire_soon_are_warnings() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let text = "[[waivers]]\nrules = [\"ALN001\"]\nentity = \"sql01/*\"\nreason = \"rebuilt in December\"\nexpires = \"2026-12-15\"\n\n\
                [[waivers]]\nrules = [\"FMT001\"]\nentity = \"sql99/*\"\nreason = \"typo in the host\"\n";
    let pack = write(dir.path(), "waive.toml", text);
    let o = spindle(&["check", s(&f), "--pack", s(&pack)]);
    assert_eq!(o.status.code(), Some(0), "warnings do not change the exit status: {}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("waive.toml:2:10: waiver for ALN001 on `sql01/*` expires on 2026-12-15, in 15 days"),
        "{err}"
    );
    assert!(err.contains("waive.toml:8:10: waiver for FMT001 on `sql99/*` matched no finding"), "{err}");
    assert!(!err.contains("ALN001 on `sql01/*` matched no finding"), "it matched: {err}");

    // The window is the pack's to set.
    let quiet = write(dir.path(), "quiet.toml", &format!("waiver_warn_days = 14\n{text}"));
    let o = spindle(&["check", s(&f), "--pack", s(&quiet)]);
    assert!(!stderr(&o).contains("expires on"), "{}", stderr(&o));
    // SPINDLE_TODAY moves today: on the last day it says so, and the day after it has expired.
    for (today, expect) in
        [("2026-12-15", "expires on 2026-12-15, today"), ("2026-12-16", "expired on 2026-12-15")]
    {
        let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(["check", s(&f), "--pack", s(&pack)])
            .env("SPINDLE_TODAY", today)
            .output()
            .unwrap();
        assert!(stderr(&o).contains(expect), "{today}: {}", stderr(&o));
    }
}

#[test]
fn completions_for_every_shell() {
    for (shell, mark) in [
        ("bash", "_spindle()"),
        ("zsh", "#compdef spindle"),
        ("fish", "complete -c spindle"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let o = spindle(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = String::from_utf8(o.stdout).unwrap();
        assert!(script.contains(mark), "{shell}: {script}");
        // Subcommands and their flags, the new ones included.
        assert!(script.contains("extend-select") && script.contains("init"), "{shell}");
    }
    assert_eq!(spindle(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn explain_a_prefix_lists_its_rules() {
    let o = spindle(&["explain", "GRW"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let grw: Vec<&str> =
        spindle_rules::all().iter().map(|r| r.meta.code).filter(|c| c.starts_with("GRW")).collect();
    assert!(grw.len() >= 3, "{grw:?}");
    assert!(text.starts_with(&format!("# {} rules match `GRW`", grw.len())), "{text}");
    for code in grw {
        assert!(text.lines().any(|l| l.starts_with(code)), "{code}: {text}");
    }
    // Lower case, and a prefix of one rule explains it.
    let one = spindle(&["explain", "aln00"]);
    assert!(String::from_utf8(one.stdout).unwrap().contains("rules match"));
    let o = spindle(&["explain", "acme/ACM001"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--pack"), "{}", stderr(&o));
}

#[test]
fn a_snapshot_from_standard_input() {
    let run = |input: &[u8]| {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(["check", "-", "--format", "json"])
            .env("SPINDLE_TODAY", "2026-11-30")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        // Written on a thread: spindle may stop reading (too much) before it is all written.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let o = child.wait_with_output().unwrap();
        writer.join().unwrap();
        o
    };
    let o = run(SECTOR_63.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["hosts"][0]["host"], "sql01");
    assert!(codes(&r, "findings").contains(&"ALN001".to_string()));
    // Bounded as files are: 64 MiB and one byte is refused, not read to the end.
    let mut huge = vec![b' '; (64 << 20) + 1];
    huge[..SECTOR_63.len()].copy_from_slice(SECTOR_63.as_bytes());
    let o = run(&huge);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<stdin>"), "{}", stderr(&o));
}

#[test]
fn a_report_among_the_snapshots_is_skipped_and_named_for_what_it_is() {
    let dir = TempDir::new().unwrap();
    let snapshot = write(dir.path(), "sql01.json", SECTOR_63);
    // The reports of the last runs, written into the folder of snapshots.
    for (name, format) in
        [("report.json", "json"), ("run.sarif", "sarif"), ("REPORT.md", "markdown"), ("r.html", "html")]
    {
        let o = spindle(&["check", s(&snapshot), "--format", format, "-o", s(&dir.path().join(name))]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    // Anyone's Markdown is not a report spindle wrote.
    write(dir.path(), "README.md", "# Snapshots of the ERP cluster\n");
    let o = spindle(&["check", s(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = squashed(&stderr(&o));
    for (name, kind) in [
        ("report.json", "a JSON report"),
        ("run.sarif", "a SARIF report"),
        ("REPORT.md", "a Markdown report"),
        ("r.html", "an HTML report"),
    ] {
        assert!(
            err.contains(&squashed(&format!(
                "{name}: not a snapshot: looks like a report spindle wrote ({kind})"
            ))),
            "{name}: {err}"
        );
    }
    assert!(err.contains(&squashed("README.md: not a snapshot (.json) file")), "{err}");
    // Named, a report is refused with the hint, not a parse error.
    let o = spindle(&["check", s(&dir.path().join("report.json"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        squashed(&stderr(&o)).contains(&squashed(
            "report.json: not a snapshot: looks like a report spindle wrote (a JSON report)"
        )),
        "{}",
        stderr(&o)
    );
    let o = spindle(&["check", s(&dir.path().join("README.md"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("report spindle wrote"), "{}", stderr(&o));
}

#[test]
fn a_counter_window_of_zero_ms_is_refused() {
    let dir = TempDir::new().unwrap();
    let text = r#"{
  "schema_version": 1,
  "host": { "name": "sql01" },
  "sql_instances": [ { "name": "MSSQLSERVER", "databases": [ { "name": "erp", "files": [
    { "type": "rows", "logical_name": "erp", "physical_name": "D:\\erp.mdf",
      "io": { "num_of_reads": 10, "num_of_writes": 0, "num_of_bytes_read": 0, "num_of_bytes_written": 0,
              "io_stall_read_ms": 5000, "io_stall_write_ms": 0, "sample_ms": 0 } } ] } ] } ]
}
"#;
    let f = write(dir.path(), "zero.json", text);
    let o = spindle(&["check", s(&f)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("zero.json:7:") && err.contains("sample_ms must be more than 0"), "{err}");
    let f = write(dir.path(), "one.json", &text.replace("\"sample_ms\": 0", "\"sample_ms\": 60000"));
    // A real window is read (10 reads are too few to judge, so the host is not judged, but no
    // error names the file).
    let err = stderr(&spindle(&["check", s(&f)]));
    assert!(!err.contains("sample_ms must be more than 0") && !err.contains("one.json:"), "{err}");
}

#[test]
fn one_rule_is_one_rule() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let o = spindle(&["check", s(&f), "--select", "ALN004"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("no findings from 1 rule\n"), "{text}");
}

// The triage-first text report (docs/report-text.md).

/// `spindle check` on a bundled example, as a user would run it (from the repository, so paths
/// are relative), with the report at `columns` columns.
fn example(name: &str, columns: usize, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", &format!("examples/{name}")])
        .args(extra)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("COLUMNS", columns.to_string())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("spindle runs")
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in:\n{text}"))
}

#[test]
fn the_worst_finding_comes_first_after_a_header_and_a_summary_table() {
    let o = example("win2003-sector63", 80, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header: server, platform, when and by what, the files, the packs.
    assert_eq!(lines[1], "  server     MSSQLSERVER 9.00.4035.00, Standard Edition (64-bit)", "{text}");
    assert!(
        lines[2].starts_with("  platform   Windows Server 2003 R2 Enterprise x64 Edition SP2 · bare"),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("  collected  2010-01-12T10:05:31+00:00 by wmi 0.1.0, sql 0.1.0")),
        "{text}"
    );
    assert!(lines.contains(&"  snapshots  examples/win2003-sector63/erp-sql1.json"), "{text}");
    assert!(lines.contains(&"  packs      builtin:recommended"), "{text}");
    // The summary table, in the order of the groups below it: errors, measured harm first.
    let table = line_of(&text, "4 errors, 19 warnings, 0 notes · 0 waived · 13 not evaluated");
    let first = line_of(&text, "  error    LAT001 data-read-latency ");
    assert!(table < first, "{text}");
    assert_eq!(
        lines[first + 1].split_whitespace().collect::<Vec<_>>(),
        ["error", "ALN001", "partition-offset-alignment", "3", "partitions"]
    );
    // The 149.4 ms read latency is the first finding, before any layout or growth finding.
    let lat = line_of(&text, "── error LAT001 data-read-latency · 1 file");
    assert!(text.lines().nth(lat + 1).unwrap().contains("average read stall 149.4 ms"), "{text}");
    assert!(lat < line_of(&text, "── error ALN001"), "{text}");
    assert!(
        line_of(&text, "── error ALN001") < line_of(&text, "── warning LAT001"),
        "errors before warnings"
    );
    assert!(
        line_of(&text, "── warning FMT001") < line_of(&text, "── warning GRW001"),
        "layout before configuration"
    );
    assert!(lat < 40, "the worst finding is near the top (line {lat}):\n{text}");
    // Shorter than the old 535 lines, with nothing lost (tests/examples.rs checks every finding).
    // 387 before fixes named each entity; 437 since, as a group's fixes now differ by name and
    // each is printed: one fix per group with the names as a list is still to come.
    assert!(lines.len() < 450, "{} lines:\n{text}", lines.len());
    // Everything spindle writes itself fits 80 columns; only the snapshot's own lines (in the
    // snippets and a fix's code blocks), a word longer than a line, and the run's summary (kept
    // on one line for logs and grep) may overflow.
    let mut in_code = false;
    for l in &lines[..lines.len() - 1] {
        if l.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let snippet = l.contains(" │ ") || l.trim_start().starts_with('·');
        let one_word = !l.trim().contains(' ');
        assert!(l.chars().count() <= 80 || snippet || in_code || one_word, "too wide: {l}");
    }
}

#[test]
fn one_group_per_rule_and_cause_with_every_entity_and_one_fix() {
    let o = example("linux-xfs-md", 80, &[]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.matches("── warning PLC004 tempdb-own-volume · 9 files").count(), 1, "{text}");
    let group = &text[text.find("── warning PLC004").unwrap()..];
    let group = &group[..group[3..].find("\n──").map_or(group.len(), |e| e + 3)];
    for name in ["tempdev", "templog", "temp2", "temp3", "temp4", "temp5", "temp6", "temp7", "temp8"] {
        let entry = group
            .lines()
            .find(|l| l.contains(&format!("tempdb › {name} (")))
            .unwrap_or_else(|| panic!("{name}: {group}"));
        assert!(entry.starts_with("  - MSSQLSERVER › tempdb › "), "{entry}");
    }
    assert_eq!(
        group.matches("examples/linux-xfs-md/sql.json:").count(),
        9 + 1,
        "each file's position, and the snippet's: {group}"
    );
    assert_eq!(group.matches("  fix: ").count(), 1, "the fix once: {group}");
    // Distinct fixes: GRW001's T-SQL names each file, so each is printed with its file.
    let grw = &text[text.find("── warning GRW001").unwrap()..];
    assert!(grw.contains("  fix for MSSQLSERVER › master › master:\n    ALTER DATABASE [master] MODIFY FILE (NAME = N'master',"), "{grw}");
    assert!(!grw.contains("  fix: "), "{grw}");
}

#[test]
fn checks_not_evaluated_collapse_to_one_line_per_missing_fact() {
    let o = example("win2003-sector63", 100, &[]);
    let text = String::from_utf8(o.stdout).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("── not evaluated · 13 checks (facts missing; never a pass)"), "{text}");
    assert!(flat.contains("? 9 checks (ALN002, ALN003, STR004) need stripe_unit_bytes: the stripe unit of RAID set arrayA-ld1 was not collected;"), "{text}");
    assert!(flat.contains("(and 3 other reasons)"), "{text}");
    assert!(
        flat.contains(
            "? 3 checks (ALN004) need physical_sector_bytes: wmi: Windows Server 2003 reports only"
        ),
        "{text}"
    );
    assert!(
        flat.contains(
            "? 1 check (GRW003) needs instant_file_initialization: sql: sys.dm_server_services does not exist"
        ),
        "{text}"
    );
    assert_eq!(text.matches("\n  ? ").count(), 3, "{text}");
    for flag in ["--show-not-evaluated", "-v", "--verbose"] {
        let o = example("win2003-sector63", 100, &[flag]);
        let text = String::from_utf8(o.stdout).unwrap();
        assert_eq!(text.matches("\n  ? ").count(), 13, "{flag}: {text}");
        assert!(
            text.contains("  ? ALN002 offset-stripe-unit on erp-sql1 › disk 0 › partition 1 (C:\\): missing"),
            "{text}"
        );
    }
    // A host without SQL Server facts: one line for all the rules that need them.
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let text = String::from_utf8(spindle(&["check", s(&f)]).stdout).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("? 11 rules (GRW001, GRW002, LAT001, LAT002, LAT003, PLC001, 5 more) need sql_instances[].databases[].files: not collected"),
        "{text}"
    );
    assert!(flat.contains("? 1 rule (GRW003) needs sql_instances: not collected"), "{text}");
    assert!(text.contains("  server     SQL Server facts not collected"), "{text}");
}

#[test]
fn quiet_shows_the_summary_only_and_verbose_every_message() {
    let o = example("win2003-sector63", 80, &["-q"]);
    assert_eq!(o.status.code(), Some(1));
    let quiet = String::from_utf8(o.stdout).unwrap();
    assert!(quiet.contains("  error    LAT001 data-read-latency"), "{quiet}");
    assert!(!quiet.contains("fix") && !quiet.contains("╭─") && !quiet.contains("server "), "{quiet}");
    assert!(
        quiet.trim_end().ends_with(
            "1 host checked: 4 errors, 19 warnings, 0 notes; 0 waived; 13 not evaluated; 10 not applicable"
        ),
        "{quiet}"
    );
    assert!(quiet.lines().count() < 30, "{quiet}");

    let normal = String::from_utf8(example("win2003-sector63", 80, &[]).stdout).unwrap();
    let verbose = String::from_utf8(example("win2003-sector63", 80, &["-v"]).stdout).unwrap();
    // GRW001's messages differ by file: the default shows the first, -v every one.
    let tempdev = "at 8,388,608 B (8 MiB) the next growth";
    assert!(!normal.split_whitespace().collect::<String>().contains(&tempdev.replace(' ', "")), "{normal}");
    assert!(verbose.split_whitespace().collect::<String>().contains(&tempdev.replace(' ', "")), "{verbose}");
    assert!(verbose.contains("── not applicable (facts present; the rule chose not to judge them)"));
    assert!(!normal.contains("── not applicable"));
    let o = spindle(&["check", "x.json", "-q", "-v"]);
    assert_eq!(o.status.code(), Some(2), "-q and -v conflict");
}

#[test]
fn concise_is_one_line_per_finding_for_grep_and_editors() {
    let o = example("win2003-sector63", 80, &["--format", "concise"]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let findings: Vec<&str> =
        text.lines().filter(|l| l.starts_with("examples/win2003-sector63/erp-sql1.json:")).collect();
    assert_eq!(findings.len(), 23, "{text}");
    assert_eq!(
        findings[0],
        "examples/win2003-sector63/erp-sql1.json:500:17: LAT001 [error] average read stall 149.4 ms (9,337,500,000 ms of stall over 62,500,000 reads, over 21 days of counters): bad (100–500 ms), at or above the 100 ms error threshold (erp-sql1 › MSSQLSERVER › ERP_PROD › ERP_PROD_Data (D:\\MSSQL\\Data\\ERP_PROD.mdf))"
    );
    assert!(findings.contains(&"examples/win2003-sector63/erp-sql1.json:187:7: ALN001 [error] partition starts at 32,256 B (31.5 KiB), at sector 63 as Windows Server 2003 and older placed it, before the first 64 KiB boundary (erp-sql1 › disk 0 › partition 1 (C:\\))"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("erp-sql1: [not evaluated] ")).count(), 3, "{text}");
    // Under a cause, the TOML entry to paste, as lines of its own (issue 24: one line with a
    // literal `\n`), indented so that no `FILE:LINE:` reader takes one for a finding.
    let paste: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("    ")).collect();
    assert_eq!(paste.len(), 3, "{text}");
    let entry: toml::Table = toml::from_str(&paste.join("\n")).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(entry["declare"]["stripe_unit"][0]["stripe_unit_bytes"].as_integer(), Some(0), "{text}");
    assert!(!text.contains("\\n"), "{text}");
    assert_eq!(text.lines().count(), 23 + 3 + 3 + 1, "findings, causes not evaluated, the summary:\n{text}");
    assert!(text.ends_with(
        "1 host checked: 4 errors, 19 warnings, 0 notes; 0 waived; 13 not evaluated; 10 not applicable\n"
    ));
}

#[test]
fn colour_follows_the_flag_then_the_environment() {
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "sql01.json", SECTOR_63);
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_spindle"));
        c.args(["check", s(&f)])
            .args(args)
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            c.env(k, v);
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap().contains("\u{1b}[")
    };
    assert!(!run(&[], &[]), "not a terminal: no colour");
    assert!(run(&["--color", "always"], &[]));
    assert!(run(&["--color", "always"], &[("NO_COLOR", "1")]), "the flag wins");
    assert!(run(&[], &[("FORCE_COLOR", "1")]));
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[], &[("FORCE_COLOR", "0")]));
    assert!(!run(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]), "NO_COLOR wins over FORCE_COLOR");
    assert!(!run(&["--color", "never"], &[("FORCE_COLOR", "1")]));
    assert!(!run(&["--format", "concise"], &[("FORCE_COLOR", "1")]), "concise is never coloured");
}

#[test]
fn the_report_wraps_to_columns_off_a_terminal() {
    for columns in [80, 120] {
        let text = String::from_utf8(example("win2003-sector63", columns, &[]).stdout).unwrap();
        assert_eq!(text.lines().next().unwrap().chars().count(), columns, "{text}");
        let fix = text.lines().find(|l| l.starts_with("  fix: ")).unwrap();
        assert!(fix.chars().count() <= columns && fix.chars().count() > columns - 20, "{columns}: {fix}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "examples/win2003-sector63"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(o.stdout).unwrap().lines().next().unwrap().chars().count(),
        100,
        "the default"
    );
}

/// A project folder whose spindle.toml ignores ALN001, and a folder below it to run from.
fn project_ignoring_aln001() -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "spindle.toml", "extends = [\"recommended\"]\nignore = [\"ALN001\"]\n");
    let sub = dir.path().join("work");
    fs::create_dir(&sub).unwrap();
    (dir, sub)
}

fn example_dir(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name).display().to_string()
}

/// Issue 24, item 4: `plan` ignored the project's pack (its ignores, waivers, declarations).
#[test]
fn plan_applies_the_projects_pack_as_check_does() {
    let (_dir, sub) = project_ignoring_aln001();
    let sector63 = example_dir("win2003-sector63");
    let plan = |args: &[&str]| {
        let o = spindle_in(&sub, &[&["plan", sector63.as_str()][..], args].concat());
        assert!(o.status.code().is_some_and(|c| c < 2), "{args:?}: {}", stderr(&o));
        (String::from_utf8_lossy(&o.stdout).into_owned(), stderr(&o))
    };
    let (found, err) = plan(&[]);
    assert!(err.contains("using the pack") && err.contains("spindle.toml"), "{err}");
    assert!(!found.contains("fixes: ALN001"), "the pack ignores ALN001: {found}");
    let (isolated, err) = plan(&["--no-config"]);
    assert!(isolated.contains("fixes: ALN001"), "{isolated}");
    assert!(!err.contains("using the pack"), "{err}");
    // The command line's selection, as for check.
    let (ignored, _) = plan(&["--no-config", "--ignore", "ALN001"]);
    assert!(!ignored.contains("fixes: ALN001"), "{ignored}");
    let (selected, _) = plan(&["--select", "ALN001"]);
    assert!(selected.contains("fixes: ALN001") && !selected.contains("fixes: GRW001"), "{selected}");
}

#[test]
fn rules_shows_what_the_projects_pack_enables() {
    let (_dir, sub) = project_ignoring_aln001();
    let row = |args: &[&str]| {
        let o = spindle_in(&sub, &[&["rules"][..], args].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let table = String::from_utf8(o.stdout).unwrap();
        let header = table.lines().next().unwrap().to_string();
        (header, table.lines().find(|l| l.starts_with("ALN001 ")).unwrap().to_string())
    };
    let (header, aln001) = row(&[]);
    assert!(header.contains("ENABLED"), "{header}");
    assert_eq!(aln001.split_whitespace().nth(3), Some("no"), "{aln001}");
    let (header, _) = row(&["--no-config"]);
    assert!(!header.contains("ENABLED"), "{header}");
    let (_, aln001) = row(&["--no-config", "--select", "ALN"]);
    assert_eq!(aln001.split_whitespace().nth(3), Some("yes"), "{aln001}");
    let (_, aln001) = row(&["--no-config", "--ignore", "ALN001"]);
    assert_eq!(aln001.split_whitespace().nth(3), Some("no"), "{aln001}");
}

#[test]
fn explain_knows_the_projects_pack_and_its_plugins() {
    let (dir, sub) = project_ignoring_aln001();
    let o = spindle_in(&sub, &["explain", "ALN001"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("In the packs given: not enabled."), "{o:?}");
    let o = spindle_in(&sub, &["explain", "ALN001", "--no-config"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("In the packs given"), "{o:?}");

    // A plugin's rule is known in a folder whose pack declares the plugin.
    let wasm = spindle_test_support::plugins::wasm("acme");
    write(dir.path(), "spindle.toml", &format!("[plugins.acme]\npath = '{}'\n", wasm.display()));
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["explain", "acme/ACM001"])
        .current_dir(&sub)
        .env("SPINDLE_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let docs = String::from_utf8(o.stdout).unwrap();
    assert!(docs.starts_with("# acme/ACM001 ") && docs.contains("From plugin acme of"), "{docs}");
}

#[test]
fn diff_and_baseline_apply_the_projects_pack_as_check_does() {
    let (_dir, sub) = project_ignoring_aln001();
    let sector63 = example_dir("win2003-sector63");
    let diff = |args: &[&str]| {
        let o = spindle_in(&sub, &[&["diff", &sector63, &sector63, "--format", "json"][..], args].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    assert!(!diff(&[]).contains("\"ALN001\""));
    assert!(diff(&["--no-config"]).contains("\"ALN001\""));
    assert!(!diff(&["--no-config", "--ignore", "ALN001"]).contains("\"ALN001\""));

    let baseline = |args: &[&str]| {
        let out = sub.join("baseline.json");
        let o = spindle_in(&sub, &[&["baseline", &sector63, "-o", s(&out)][..], args].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        fs::read_to_string(out).unwrap()
    };
    assert!(!baseline(&[]).contains("\"ALN001\""));
    assert!(baseline(&["--no-config"]).contains("\"ALN001\""));
    assert!(!baseline(&["--no-config", "--ignore", "ALN001"]).contains("\"ALN001\""));
}

/// Issue 24, item 5: `schema`, `rules`, `explain` and `completions` panicked (exit status 101) on
/// a closed pipe or a full disk.
#[test]
fn text_commands_stop_quietly_on_a_closed_pipe_and_fail_clearly_on_a_full_disk() {
    let cases: [&[&str]; 5] = [
        &["schema", "facts"],
        &["rules", "--no-config"],
        &["rules", "--format", "markdown", "--no-config"],
        &["explain", "ALN001", "--no-config"],
        &["completions", "bash"],
    ];
    let run = |args: &[&str], stdout: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_spindle")).args(args).stdout(stdout).output().unwrap()
    };
    for args in cases {
        // The reader is gone before spindle writes a byte: every write is EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = run(args, writer.into());
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));

        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = run(args, full.into());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("stdout") && err.contains("No space left on device"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
