//! `spindle plan` end to end: the runbooks of the bundled examples (insta snapshots), their
//! order and their destructive steps, the scripts held to real parsers (shellcheck, sqlfluff's
//! T-SQL, the tree-sitter PowerShell grammar) on the examples, on hosts with hostile names and
//! on a generated fleet, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::script_parsers::{powershell, shellcheck, sqlfluff};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

fn plan(inputs: &[PathBuf], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("plan")
        .args(inputs)
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .current_dir(root())
        .output()
        .unwrap()
}

/// The plan's stdout, after asserting exit status 0.
fn ok(out: Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const WINDOWS: [&str; 3] = ["win2003-sector63", "azure-storage-spaces", "hdd-raid-shared-spindles"];

fn hostile_windows() -> Vec<PathBuf> {
    vec![root().join("tests/plan/hostile-windows.json")]
}

fn hostile_linux() -> Vec<PathBuf> {
    vec![root().join("tests/plan/hostile-linux-host.json"), root().join("tests/plan/hostile-linux-sql.json")]
}

fn assert_parses(what: &str, result: Option<Result<(), String>>, script: &str) {
    if let Some(Err(e)) = result {
        panic!("{what} does not pass its parser:\n{e}\n--- script ---\n{script}");
    }
}

#[test]
fn runbooks_of_the_examples() {
    for ex in [WINDOWS.as_slice(), &["linux-xfs-md"]].concat() {
        let text = ok(plan(&[example(ex)], &[]));
        insta::assert_snapshot!(format!("text-{ex}"), text);
    }
    let md = ok(plan(&[example("azure-storage-spaces")], &["--format", "markdown"]));
    insta::assert_snapshot!("markdown-azure-storage-spaces", md);
}

#[test]
fn every_unwaived_finding_is_addressed_once() {
    for ex in [WINDOWS.as_slice(), &["linux-xfs-md"]].concat() {
        let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(["check", "--format", "json", "--fail-on", "never"])
            .arg(example(ex))
            .env("SPINDLE_TODAY", "2026-11-30")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let findings = report["hosts"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["waiver"].is_null())
            .count();
        let text = ok(plan(&[example(ex)], &[]));
        let head = text.lines().next().unwrap();
        assert!(head.contains(&format!(" for {findings} findings")), "{ex}: {head} (check found {findings})");
    }
}

/// Where `needle` starts in `hay`, asserting it is there.
fn at(hay: &str, needle: &str) -> usize {
    hay.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in:\n{hay}"))
}

#[test]
fn the_outage_runs_in_order_after_the_online_changes() {
    let text = ok(plan(&[example("win2003-sector63")], &[]));
    let order = [
        "== Online changes",
        "Set a fixed growth increment",
        "== Changes that need the files offline",
        "Take ERP_PROD offline for the rebuild of D:\\, E:\\",
        "Copy everything on D:\\ to the staging folder",
        "Recreate partition 1 of disk",
        "Copy the files back to D:\\",
        "Copy everything on E:\\ to the staging folder",
        "Copy the files back to E:\\",
        "Bring ERP_PROD online and check it",
        "== Manual steps",
        "Rebuild the system volume C:\\ when the server is rebuilt",
    ];
    let positions: Vec<usize> = order.iter().map(|n| at(&text, n)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "out of order: {order:?} at {positions:?}\n{text}");
    // One outage for both volumes: ERP_PROD goes offline once.
    assert_eq!(text.matches("SET OFFLINE").count(), 1, "{text}");
    // Both rebuilds are destructive and say so; the realignment carries its measured gain.
    assert_eq!(text.matches("!! DESTRUCTIVE").count(), 2, "{text}");
    assert!(text.contains("gain: +13 % to +21 %"), "{text}");
    assert!(
        text.contains("New-Partition -DiskNumber 1 -UseMaximumSize -Alignment 1048576 -DriveLetter D"),
        "{text}"
    );
}

#[test]
fn the_azure_space_is_rebuilt_with_every_column_and_its_gain() {
    let text = ok(plan(&[example("azure-storage-spaces")], &[]));
    assert!(
        text.contains("-ResiliencySettingName Simple -NumberOfColumns 16 -Interleave 64KB -UseMaximumSize"),
        "{text}"
    );
    assert!(text.contains("Remove-VirtualDisk -FriendlyName 'SQLVDisk' -Confirm:$false"), "{text}");
    // 8 to 16 columns: +70 % (the measured reads) to +85 % (the measured writes).
    assert!(text.contains("gain: +70 % to +85 %"), "{text}");
}

#[test]
fn destructive_steps_ask_before_they_run() {
    let ps1 = ok(plan(&[example("win2003-sector63")], &["--format", "ps1"]));
    let asks: Vec<usize> = ps1.match_indices("Confirm-Destructive '").map(|(i, _)| i).collect();
    let removes: Vec<usize> = ps1.match_indices("Remove-Partition").map(|(i, _)| i).collect();
    assert_eq!(asks.len(), 2, "{ps1}");
    assert_eq!(removes.len(), 2, "{ps1}");
    assert!(asks[0] < removes[0] && removes[0] < asks[1] && asks[1] < removes[1], "{ps1}");
    let sh = ok(plan(&hostile_linux(), &["--format", "sh"]));
    assert!(sh.starts_with("#!/bin/sh\n"), "{sh}");
}

#[test]
fn scripts_of_the_examples_pass_real_parsers() {
    for ex in WINDOWS {
        let ps1 = ok(plan(&[example(ex)], &["--format", "ps1"]));
        assert_parses(&format!("{ex}.ps1"), powershell(&ps1), &ps1);
        let sql = ok(plan(&[example(ex)], &["--format", "sql"]));
        assert_parses(&format!("{ex}.sql"), sqlfluff(&sql), &sql);
    }
    let sh = ok(plan(&[example("linux-xfs-md")], &["--format", "sh"]));
    assert_parses("linux-xfs-md.sh", shellcheck(&sh), &sh);
    let sql = ok(plan(&[example("linux-xfs-md")], &["--format", "sql"]));
    assert_parses("linux-xfs-md.sql", sqlfluff(&sql), &sql);
}

#[test]
fn hostile_names_are_quoted_and_never_become_code() {
    let ps1 = ok(plan(&hostile_windows(), &["--format", "ps1"]));
    assert_parses("hostile.ps1", powershell(&ps1), &ps1);
    let sql = ok(plan(&hostile_windows(), &["--format", "sql"]));
    assert_parses("hostile.sql", sqlfluff(&sql), &sql);
    let sh = ok(plan(&hostile_linux(), &["--format", "sh"]));
    assert_parses("hostile.sh", shellcheck(&sh), &sh);
    let lsql = ok(plan(&hostile_linux(), &["--format", "sql"]));
    assert_parses("hostile-linux.sql", sqlfluff(&lsql), &lsql);

    // Quoted for their language: T-SQL brackets and N'…' doubled quotes, PowerShell single quotes
    // with the typographic ones doubled, shell single quotes.
    assert!(
        sql.contains("ALTER DATABASE [ERP]]O'Brien $(calc) ‘q’ Ünï] MODIFY FILE (NAME = N'ERP_Log `y`'"),
        "{sql}"
    );
    assert!(ps1.contains("-NewFileSystemLabel 'DATA \"d\" ‘‘e’’'"), "{ps1}");
    assert!(ps1.contains("Add-PartitionAccessPath -AccessPath 'C:\\Mounts\\Log Vol''s $(x)\\'"), "{ps1}");
    assert!(sh.contains("\nmount -o remount,noatime '/var/opt/mssql/da ta'\\''s $(rm -rf ~)'\n"), "{sh}");

    // A database whose name holds a newline (`…\nGO\nDROP DATABASE master`) is in no command: a
    // newline could end a sqlcmd batch. Its findings are manual steps, its name escaped.
    for script in [&ps1, &sql] {
        assert!(!script.contains("\nGO\nDROP"), "{script}");
        assert!(!script.lines().any(|l| l.starts_with("DROP DATABASE")), "{script}");
    }
    let text = ok(plan(&hostile_windows(), &[]));
    assert!(text.contains("Evil\\nGO\\nDROP DATABASE master"), "{text}");
    assert_eq!(spindle_core::untrusted::first_unsafe_on_terminal(&text), None, "{text}");
}

#[test]
fn plans_of_a_generated_fleet_parse() {
    let dir = std::env::temp_dir().join(format!("spindle-plan-fleet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    spindle_test_support::fleet_gen::generate(&dir, 12).unwrap();
    // Every host at once, as a runbook.
    let out = plan(std::slice::from_ref(&dir), &[]);
    assert!(matches!(out.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("Change plan for ").count(), 12, "{text}");
    // Each of a few hosts as its scripts.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files.iter().take(4) {
        let text = ok(plan(std::slice::from_ref(f), &[]));
        if text.lines().next().unwrap().contains(" (linux): ") {
            let sh = ok(plan(std::slice::from_ref(f), &["--format", "sh"]));
            assert_parses(&f.display().to_string(), shellcheck(&sh), &sh);
        } else {
            let ps1 = ok(plan(std::slice::from_ref(f), &["--format", "ps1"]));
            assert_parses(&f.display().to_string(), powershell(&ps1), &ps1);
        }
        let sql = ok(plan(std::slice::from_ref(f), &["--format", "sql"]));
        assert_parses(&f.display().to_string(), sqlfluff(&sql), &sql);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_script_is_for_one_host_and_its_system() {
    let out = plan(&[example("win2003-sector63"), example("linux-xfs-md")], &["--format", "ps1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("a script runs on one host"), "{out:?}");
    let out = plan(&[example("win2003-sector63")], &["--format", "sh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("erp-sql1 runs Windows"), "{out:?}");
    let out = plan(&[example("linux-xfs-md")], &["--format", "ps1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("runs Linux"), "{out:?}");
}

#[test]
fn bad_input_names_the_file_and_position_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("spindle-plan-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("broken.json");
    std::fs::write(&bad, "{\"schema_version\": 1,\n  \"host\": {\"name\": \"x\"},\n  \"disks\": [oops]\n}\n")
        .unwrap();
    let target = dir.join("plan.txt");
    let out = plan(&[bad], &["-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.json") && err.contains("3:"), "{err}");
    assert!(!target.exists(), "a plan was written from bad input");
    // -o writes the plan whole.
    let out = plan(&[example("hdd-raid-shared-spindles")], &["-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&target).unwrap().starts_with("Change plan for "));
    let _ = std::fs::remove_dir_all(&dir);
}
