//! `spindle plan` end to end: the runbooks of the bundled examples (insta snapshots), their
//! order and their destructive steps, the scripts held to real parsers (shellcheck, sqlfluff's
//! T-SQL, the tree-sitter PowerShell grammar) on the examples, on hosts with hostile names and
//! on a generated fleet, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::script_parsers::{powershell, powershell_as_5_1_reads, shellcheck, sqlfluff};

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
    assert!(text.contains("'create partition primary align=1024', 'assign letter=D'"), "{text}");
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
    let ps1 = ok(plan(&[example("azure-storage-spaces")], &["--format", "ps1"]));
    let asks: Vec<usize> = ps1.match_indices("Confirm-Step 'Step 4 deletes data").map(|(i, _)| i).collect();
    let removes: Vec<usize> = ps1.match_indices("Remove-VirtualDisk").map(|(i, _)| i).collect();
    assert_eq!(asks.len(), 1, "{ps1}");
    assert_eq!(removes.len(), 1, "{ps1}");
    assert!(asks[0] < removes[0], "{ps1}");
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
        ps1.contains("ALTER DATABASE [ERP]]O''Brien $(calc) ‘‘q’’ Ünï] MODIFY FILE (NAME = N''ERP_Log `y`''"),
        "{ps1}"
    );
    // sqlcmd would read `$(calc)` in a file as a variable: the T-SQL plan shows it, escaped, and
    // stops before it.
    assert!(sql.contains("ALTER DATABASE [ERP]]O'Brien $\\x28calc) ‘q’ Ünï] MODIFY FILE"), "{sql}");
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

/// The lines of a T-SQL script sqlcmd runs: neither comments nor blank.
fn statements(sql: &str) -> Vec<&str> {
    sql.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("--")).collect()
}

#[test]
fn the_sql_plan_stops_before_the_first_step_it_cannot_do() {
    for (ex, other) in [("win2003-sector63", "ps1"), ("azure-storage-spaces", "ps1"), ("linux-xfs-md", "sh")]
    {
        let sql = ok(plan(&[example(ex)], &["--format", "sql"]));
        assert!(!sql.contains("RAISERROR") || sql.contains(&format!("--format {other}")), "{ex}:\n{sql}");
        let sql = ok(plan(&[example(ex)], &["--format", "sql"]));
        let run = statements(&sql);
        assert_eq!(run.first(), Some(&":on error exit"), "{ex}:\n{sql}");
        // No outage in which nothing is done: an OFFLINE is never followed by an ONLINE with only
        // comments between (here: every OFFLINE and what follows it are comments).
        for (i, l) in run.iter().enumerate() {
            if l.contains("SET OFFLINE") || l.contains("SHUTDOWN") {
                let next = run[i + 1..].iter().find(|l| **l != "GO");
                assert!(!next.is_some_and(|n| n.contains("SET ONLINE")), "{ex}: an empty outage:\n{sql}");
                panic!("{ex}: the T-SQL plan takes databases offline, and cannot copy their files:\n{sql}");
            }
        }
    }
    // The sector-63 host's outage is PowerShell's: the script stops with an error naming that plan.
    let sql = ok(plan(&[example("win2003-sector63")], &["--format", "sql"]));
    let stop = at(&sql, "RAISERROR (N'Stopped before step 2");
    assert!(sql[stop..].contains("spindle plan --format ps1"), "{sql}");
    assert!(!sql[stop..].lines().skip(2).any(|l| !l.is_empty() && !l.starts_with("--")), "{sql}");
    // What it does run comes before: the growth settings.
    assert!(at(&sql, "FILEGROWTH = 64MB") < stop, "{sql}");
}

/// Where sqlcmd would substitute a scripting variable: every `$(` in a SQL file (sqlcmd reads
/// them in comments too), and in a script every sqlcmd or Invoke-Sqlcmd call that lacks `-x` or
/// `-DisableVariables` when the script holds a `$(` anywhere.
fn sqlcmd_variables(script: &str, format: &str) -> Vec<String> {
    if format == "sql" {
        return script.lines().filter(|l| l.contains("$(")).map(str::to_string).collect();
    }
    if !script.contains("$(") {
        return vec![];
    }
    script
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            match words.first() {
                Some(&"Invoke-Sqlcmd") => !words.contains(&"-DisableVariables"),
                Some(&"sqlcmd") | Some(&"\"$SQLCMD\"") => !words.contains(&"-x"),
                _ => false,
            }
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn names_reach_sqlcmd_with_scripting_variables_off() {
    let ps1 = ok(plan(&hostile_windows(), &["--format", "ps1"]));
    assert!(ps1.contains("ERP]]O''Brien $(calc)"), "the hostile name is not in a command:\n{ps1}");
    assert_eq!(sqlcmd_variables(&ps1, "ps1"), Vec::<String>::new(), "{ps1}");
    let sh = ok(plan(&hostile_linux(), &["--format", "sh"]));
    assert!(sh.contains("$(") && sh.contains("plan_sql '"), "{sh}");
    assert_eq!(sqlcmd_variables(&sh, "sh"), Vec::<String>::new(), "{sh}");
    for input in [hostile_windows(), hostile_linux()] {
        let sql = ok(plan(&input, &["--format", "sql"]));
        assert_eq!(sqlcmd_variables(&sql, "sql"), Vec::<String>::new(), "{sql}");
        assert!(sql.contains("$\\x28calc)") || sql.contains("$\\x28"), "{sql}");
    }
    // The old Windows host's script runs sqlcmd.exe, with -x.
    let ps1 = ok(plan(&[example("win2003-sector63")], &["--format", "ps1"]));
    assert!(ps1.contains("sqlcmd -S $SqlInstance -E -b -x -I -i $file"), "{ps1}");
}

/// Each step of a script (its header and what runs), by the `--- Step n:` headers.
fn script_steps(script: &str) -> Vec<&str> {
    script.split("--- Step ").skip(1).collect()
}

#[test]
fn every_outage_and_destructive_step_asks_first() {
    let risky_ps = [
        "SET OFFLINE",
        "Stop-Service",
        "Restart-Service",
        "robocopy",
        "Remove-",
        "Format-Volume",
        "diskpart",
        "format.com",
        "Move-Item",
    ];
    let risky_sh =
        ["SET OFFLINE", "systemctl stop", "systemctl restart", "cp -a", "parted", "mkfs", "\nmv ", "umount"];
    let mut checked = 0;
    for (script, risky, ask) in [
        (ok(plan(&[example("win2003-sector63")], &["--format", "ps1"])), &risky_ps[..], "Confirm-Step '"),
        (ok(plan(&[example("azure-storage-spaces")], &["--format", "ps1"])), &risky_ps[..], "Confirm-Step '"),
        (ok(plan(&hostile_windows(), &["--format", "ps1"])), &risky_ps[..], "Confirm-Step '"),
        (ok(plan(&hostile_linux(), &["--format", "sh"])), &risky_sh[..], "confirm_step "),
    ] {
        for step in script_steps(&script) {
            // Only what runs: comment lines are not commands.
            let body: String =
                step.lines().filter(|l| !l.starts_with('#')).map(|l| format!("\n{l}")).collect();
            let Some(first) = risky.iter().filter_map(|r| body.find(r)).min() else { continue };
            checked += 1;
            let asked = body.find(ask).unwrap_or_else(|| panic!("step runs unasked:\n{step}"));
            assert!(asked < first, "step asks only after it starts:\n{step}");
        }
    }
    assert!(checked >= 12, "only {checked} risky steps seen");
}

#[test]
fn an_old_windows_host_gets_diskpart_and_nothing_newer() {
    let ps1 = ok(plan(&[example("win2003-sector63")], &["--format", "ps1"]));
    assert_parses("win2003-sector63.ps1", powershell(&ps1), &ps1);
    for newer in [
        "#Requires",
        "Get-Partition",
        "New-Partition",
        "Remove-Partition",
        "Format-Volume",
        "Get-Volume",
        "Invoke-Sqlcmd",
    ] {
        assert!(
            !ps1.lines().any(|l| l.contains(newer) && !l.starts_with("# ")),
            "{newer} on Windows Server 2003:\n{ps1}"
        );
    }
    assert!(ps1.contains("'select disk 1', 'select partition 1', 'delete partition', 'create partition primary align=1024', 'assign letter=D'"), "{ps1}");
    assert!(ps1.contains("diskpart /s $diskpartScript"), "{ps1}");
    assert!(ps1.contains("'Y' | format.com D: /FS:NTFS /A:64K /Q /V:SQLData"), "{ps1}");
    // Windows Server 2012 R2 has the Storage cmdlets, and no #Requires either.
    let ps1 = ok(plan(&[example("azure-storage-spaces")], &["--format", "ps1"]));
    assert!(ps1.contains("New-Partition") && !ps1.contains("#Requires"), "{ps1}");
}

#[test]
fn tempdb_files_are_added_where_and_as_the_plan_puts_tempdb() {
    let text = ok(plan(&[example("win2003-sector63")], &[]));
    // tempdb moves off C:\ to a volume the host does not have yet: the files are added there
    // once it exists, with the growth the plan gives tempdev, and none is added on C:\ now.
    let add = &text[at(&text, "Add 7 data files to tempdb")..];
    let add = &add[..add.find("\n\n").unwrap()];
    let ps1 = ok(plan(&[example("win2003-sector63")], &["--format", "ps1"]));
    assert!(!ps1.lines().any(|l| !l.starts_with('#') && l.contains("ADD FILE")), "{ps1}");
    assert!(add.contains("<folder on the new tempdb volume>\\tempdb_mssql_2.ndf"), "{add}");
    assert!(add.contains("FILEGROWTH = 64MB"), "{add}");
    assert!(!add.contains("FILEGROWTH = 10%") && !add.contains("log backup"), "{add}");
    let manual = at(&text, "== Manual steps");
    assert!(at(&text, "Add 7 data files to tempdb") > manual, "{text}");
}

/// A copy of `from` with `edit` applied to its JSON, in a fresh folder; the folder is returned.
fn edited(from: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-plan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    edit(&mut doc);
    let path = dir.join(from.file_name().unwrap());
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    dir
}

fn findings_of(inputs: &[PathBuf]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", "--format", "json", "--fail-on", "never"])
        .args(inputs)
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["hosts"][0]["findings"].as_array().unwrap().clone()
}

#[test]
fn fixes_follow_the_role_of_what_they_fix() {
    // The system volume is realigned at reinstall: its fix deletes nothing.
    let findings = findings_of(&[example("win2003-sector63")]);
    let c = findings
        .iter()
        .find(|f| f["code"] == "ALN001" && f["entity"]["label"].as_str().unwrap().contains("(C:\\)"))
        .expect("ALN001 on the system disk");
    let fix = c["fix"].as_str().unwrap();
    assert!(
        fix.contains("reinstalled") && !fix.contains("delete partition") && !fix.contains("letter=C"),
        "{fix}"
    );

    // An md member is failed out, recreated, added back and resynced, never formatted; and a
    // Linux host hears nothing of Windows.
    let dir = edited(&root().join("tests/plan/hostile-linux-host.json"), "md-member", |d| {
        for p in d["partitions"].as_array_mut().unwrap() {
            if p["id"] == "sdc1" {
                p["offset_bytes"] = 32256.into();
            }
        }
    });
    let inputs = [dir.join("hostile-linux-host.json"), root().join("tests/plan/hostile-linux-sql.json")];
    let findings = findings_of(&inputs);
    let f = findings.iter().find(|f| f["code"] == "ALN001").expect("ALN001 on sdc1");
    let fix = f["fix"].as_str().unwrap();
    assert!(fix.contains("mdadm /dev/md0 --fail /dev/sdc1 --remove /dev/sdc1"), "{fix}");
    assert!(fix.contains("mdadm /dev/md0 --add /dev/sdc1") && fix.contains("mdadm --wait /dev/md0"), "{fix}");
    assert!(!fix.contains("mkfs"), "{fix}");
    assert!(!f["message"].as_str().unwrap().contains("Windows"), "{f}");
    let text = ok(plan(&inputs, &[]));
    assert!(!text.contains("mkfs.xfs -f /dev/sdc1") && !text.contains("Windows Server 2003"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rebuild_names_the_alignment_waiver_it_could_lift_for_free() {
    let pack = root().join("examples/packs/acme-production.toml");
    let out = plan(&[example("win2003-sector63")], &["--pack", pack.to_str().unwrap(), "--format", "ps1"]);
    assert!(matches!(out.status.code(), Some(0)), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let step = &text[at(&text, "# --- Step 4: Format D:\\ again")..];
    let step = &step[..at(step, "\nConfirm-Step")];
    assert!(step.contains("costs nothing more"), "{step}");
    assert!(step.contains("ALN001 on erp-sql1 › disk 1 › partition 1 (D:\\)"), "{step}");
    assert!(step.contains("acme-production.toml: Sector-63 partitions"), "{step}");
}

#[test]
fn the_ps1_plan_has_a_byte_order_mark_and_reads_the_same_in_windows_powershell_5_1() {
    let out = plan(&hostile_windows(), &["--format", "ps1"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = out.stdout;
    assert!(bytes.starts_with(b"\xef\xbb\xbf"), "no byte order mark");
    assert!(String::from_utf8_lossy(&bytes).contains("ERPё$(Start-Process calc)ёђт"));
    if let Some(r) = powershell_as_5_1_reads(&bytes) {
        r.unwrap_or_else(|e| panic!("as Windows PowerShell 5.1 reads it:\n{e}"));
        // Without the mark, 5.1 reads Windows-1252, and the name ends its string: the check bites.
        assert!(powershell_as_5_1_reads(&bytes[3..]).unwrap().is_err(), "the 5.1 check cannot fail");
    }
    // -o writes the same bytes.
    let dir = std::env::temp_dir().join(format!("spindle-plan-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("plan.ps1");
    let out = plan(&hostile_windows(), &["--format", "ps1", "-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&target).unwrap(), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_name_that_reaches_a_command_is_checked() {
    let line_starts_with_evil = |s: &str| s.lines().any(|l| l.trim_start().starts_with("Remove-Item"));
    // A pool name with a newline, then a virtual-disk id with one.
    let spaces = root().join("tests/plan/hostile-spaces.json");
    let ps1 = ok(plan(std::slice::from_ref(&spaces), &["--format", "ps1"]));
    assert!(!line_starts_with_evil(&ps1), "{ps1}");
    assert!(!ps1.contains("Remove-VirtualDisk") && !ps1.contains("robocopy"), "{ps1}");
    let text = ok(plan(std::slice::from_ref(&spaces), &[]));
    assert!(text.contains("spindle wrote no commands for it: `SQLPool\\nRemove-Item"), "{text}");
    let dir = edited(&spaces, "vdisk-id", |d| {
        d["storage_pools"][0]["name"] = "SQLPool".into();
        let evil = "A3F1\nRemove-Item -Recurse -Force C:\\Windows\n";
        d["virtual_disks"][0]["id"] = evil.into();
        d["virtual_disks"][0].as_object_mut().unwrap().remove("name");
        for disk in d["disks"].as_array_mut().unwrap() {
            if disk["backed_by"]["virtual_disk"].is_string() {
                disk["backed_by"]["virtual_disk"] = evil.into();
            }
        }
    });
    let ps1 = ok(plan(std::slice::from_ref(&dir), &["--format", "ps1"]));
    assert!(!line_starts_with_evil(&ps1) && !ps1.contains("Remove-VirtualDisk"), "{ps1}");
    let _ = std::fs::remove_dir_all(&dir);

    // A double quote in a mount point: robocopy under PowerShell 5.1 would split it.
    let dir = edited(&hostile_windows()[0], "quote-mount", |d| {
        let s = serde_json::to_string(d)
            .unwrap()
            .replace("Log Vol's $(x)", "Log Vol\\\" /MIR C:\\\\Windows\\\\System32 \\\"x");
        *d = serde_json::from_str(&s).unwrap();
    });
    let ps1 = ok(plan(std::slice::from_ref(&dir), &["--format", "ps1"]));
    assert!(!ps1.lines().any(|l| l.starts_with("robocopy") && l.contains('"')), "{ps1}");
    // The volume shares its outage with D:\: the whole outage is manual, and says why.
    assert!(!ps1.lines().any(|l| !l.starts_with('#') && l.contains("robocopy")), "{ps1}");
    let text = ok(plan(std::slice::from_ref(&dir), &[]));
    assert!(text.contains("holds a double quote, which Windows PowerShell 5.1 does not escape"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);

    // An unknown os_volume on C:\ counts as the system's: never copied off, never deleted.
    let dir = edited(&example("win2003-sector63").join("erp-sql1.json"), "unknown-os", |d| {
        for v in d["volumes"].as_array_mut().unwrap() {
            v.as_object_mut().unwrap().remove("os_volume");
        }
    });
    let ps1 = ok(plan(std::slice::from_ref(&dir), &["--format", "ps1"]));
    assert!(!ps1.contains("robocopy 'C:\\'") && !ps1.contains("'select disk 0'"), "{ps1}");
    assert!(ps1.contains("Rebuild the system volume C:\\ when the server is rebuilt"), "{ps1}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sh_plan_prints_names_as_text() {
    // A path with `..` segments: rules/src/plan/tests.rs (the hostile Linux hosts move no file).
    // Text that reaches the terminal goes through printf '%s', never echo (which reads \033).
    let sh = ok(plan(&hostile_linux(), &["--format", "sh"]));
    assert!(!sh.lines().any(|l| l.trim_start().starts_with("echo ") || l.contains("; echo ")), "{sh}");
    assert!(sh.contains("printf 'stopped before: %s\\n' \"$1\""), "{sh}");
}
