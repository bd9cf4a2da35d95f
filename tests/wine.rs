//! The Windows build, run: `spindle.exe` (cross-built with mingw by scripts/build-windows-exe.sh)
//! under Wine, held to the Linux build's output byte for byte wherever paths do not differ, and
//! to Windows' own conventions where they do (drive letters, backslashes, `-o C:\…`). Its live
//! collector talks to Wine's WMI, which serves the `root\cimv2` classes and answers the
//! `MSFT_*` storage classes with nothing: what it serves is collected, the rest is not collected
//! with the reason, and the run never hangs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::wine::{Wine, program_stderr, run_bounded};
use spindle_test_support::{EXAMPLES, spindle_command};

const BIN: &str = env!("CARGO_BIN_EXE_spindle");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The two builds' runs of the same arguments from folder `cwd`.
fn both_in(wine: &Wine, cwd: &Path, args: &[&str]) -> (Output, Output) {
    let mut linux = spindle_command(BIN);
    linux.args(args).current_dir(cwd);
    let mut windows = wine.command();
    windows.args(args).current_dir(cwd);
    (run_bounded(linux), run_bounded(windows))
}

/// Asserts that the Windows build printed what the Linux build did, on both streams, and exited
/// with the same status; returns that status.
fn assert_same(wine: &Wine, args: &[&str]) -> i32 {
    assert_same_in(wine, repo(), args)
}

/// [`assert_same`] from folder `cwd`.
fn assert_same_in(wine: &Wine, cwd: &Path, args: &[&str]) -> i32 {
    let (linux, windows) = both_in(wine, cwd, args);
    let code = linux.status.code().expect("an exit status");
    assert_eq!(windows.status.code(), Some(code), "{args:?}: {}", program_stderr(&windows.stderr));
    if linux.stdout != windows.stdout {
        let (l, w) = (String::from_utf8_lossy(&linux.stdout), String::from_utf8_lossy(&windows.stdout));
        let line = l
            .lines()
            .zip(w.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(l.lines().count().min(w.lines().count()));
        panic!(
            "{args:?}: stdout differs from line {}:\n  linux:   {:?}\n  windows: {:?}",
            line + 1,
            l.lines().nth(line),
            w.lines().nth(line)
        );
    }
    assert_eq!(String::from_utf8_lossy(&linux.stderr), program_stderr(&windows.stderr), "{args:?}: stderr");
    code
}

/// The values clap lists for `--format` in `spindle <command> --help`: every format a user can
/// ask for, so that a new one is run here without a list to keep.
fn formats(command: &str) -> Vec<String> {
    let help = spindle_command(BIN).args([command, "--help"]).output().expect("spindle runs");
    let help =
        String::from_utf8(help.stdout).expect("UTF-8 help").split_whitespace().collect::<Vec<_>>().join(" ");
    let at = help.find("--format").expect("a --format option");
    let values = &help[at..];
    let values = &values[values.find("[possible values: ").expect("possible values") + 18..];
    values[..values.find(']').expect("]")].split(", ").map(String::from).collect()
}

#[test]
fn the_exe_starts_and_prints_what_the_linux_build_prints() {
    let Some(wine) = Wine::find(BIN) else { return };
    // The version names the target it was built for, the rest is the same.
    let (linux, windows) = both_in(&wine, repo(), &["--version"]);
    let windows = String::from_utf8(windows.stdout).unwrap();
    assert!(windows.contains(", x86_64-pc-windows-gnu; plugin contracts"), "{windows}");
    let linux_target = format!(", {};", env!("SPINDLE_TARGET"));
    assert_eq!(
        windows.replace(", x86_64-pc-windows-gnu;", &linux_target),
        String::from_utf8(linux.stdout).unwrap()
    );
    for args in [
        &["--help"][..],
        &["rules"],
        &["rules", "--format", "markdown"],
        &["explain", "ALN001"],
        &["explain", "STR001"],
        &["schema", "facts"],
        &["schema", "pack"],
        &["completions", "powershell"],
    ] {
        assert_eq!(assert_same(&wine, args), 0, "{args:?}");
    }
    // Usage errors: the same words, exit status 2.
    assert_eq!(assert_same(&wine, &["explain", "NOPE001"]), 2);
    assert_eq!(assert_same(&wine, &["check", "--format", "yaml", "examples/win2003-sector63"]), 2);
}

#[test]
fn every_example_in_every_format_is_the_linux_builds_report() {
    let Some(wine) = Wine::find(BIN) else { return };
    let check_formats = formats("check");
    assert!(check_formats.len() >= 9 && check_formats.iter().any(|f| f == "sarif"), "{check_formats:?}");
    let mut statuses = std::collections::BTreeSet::new();
    for example in EXAMPLES {
        let dir = format!("examples/{example}");
        for format in &check_formats {
            statuses.insert(assert_same(&wine, &["check", &dir, "--no-config", "--format", format]));
        }
        // A file named inside the folder, as a user types it on Windows.
        let first = std::fs::read_dir(repo().join(&dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".json"))
            .min()
            .unwrap();
        let linux = run_bounded({
            let mut c = spindle_command(BIN);
            c.args(["check", "--no-config", &format!("{dir}/{first}")]).current_dir(repo());
            c
        });
        let windows = run_bounded({
            let mut c = wine.command();
            c.args(["check", "--no-config", &format!(r"examples\{example}\{first}")]).current_dir(repo());
            c
        });
        assert_eq!(windows.status.code(), linux.status.code(), "{example}");
        let shown = String::from_utf8_lossy(&windows.stdout);
        assert!(shown.contains(&format!(r"examples\{example}\{first}")), "a path is shown as given: {shown}");
    }
    assert!(statuses.contains(&0) && statuses.contains(&1), "examples that pass and fail: {statuses:?}");

    // Change plans, the ps1 runbook above all: the script a DBA runs on the Windows host.
    for example in ["win2003-sector63", "azure-storage-spaces", "hdd-raid-shared-spindles"] {
        for format in formats("plan") {
            assert_same(&wine, &["plan", &format!("examples/{example}"), "--no-config", "--format", &format]);
        }
    }
    assert_same(&wine, &["diff", "examples/win2003-sector63", "examples/win2003-aligned", "--no-config"]);
}

#[test]
fn plugins_run_in_the_windows_build_as_in_the_linux_one() {
    let Some(wine) = Wine::find(BIN) else { return };
    // wasmtime compiles and runs the components under Windows' calling convention and memory
    // API there: the same findings, the same words.
    spindle_test_support::plugins::plugins();
    let pack = "examples/packs/acme-plugins.toml";
    assert_eq!(assert_same(&wine, &["rules", "--pack", pack]), 0);
    assert_eq!(assert_same(&wine, &["explain", "acme/ACM001", "--pack", pack]), 0);
    for format in ["text", "json", "sarif"] {
        assert_eq!(
            assert_same(&wine, &["check", "examples/win2003-sector63", "--pack", pack, "--format", format]),
            1
        );
    }
    let wasm = spindle_test_support::plugins::wasm("acme");
    let wasm = wasm.strip_prefix(repo()).unwrap().to_str().unwrap();
    assert_eq!(assert_same(&wine, &["plugin", "inspect", wasm]), 0);
}

#[test]
fn bad_input_is_exit_status_2_naming_the_file_and_position() {
    let Some(wine) = Wine::find(BIN) else { return };
    let dir = tempdir("bad-input");
    std::fs::write(
        dir.join("broken.json"),
        "{\n  \"schema_version\": 1,\n  \"host\": { \"name\": \"x\" ,, }\n}\n",
    )
    .unwrap();
    assert_eq!(assert_same_in(&wine, &dir, &["check", "broken.json"]), 2);
    let (_, windows) = both_in(&wine, &dir, &["check", "broken.json"]);
    assert!(
        program_stderr(&windows.stderr).contains("broken.json:3:"),
        "{}",
        program_stderr(&windows.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn windows_paths_in_and_out() {
    let Some(wine) = Wine::find(BIN) else { return };
    // The example through Wine's Z: drive (the Unix root), with backslashes, and the report
    // written to C:\ of the prefix.
    let unix_dir = repo().join("examples/win2003-sector63");
    let z_dir = format!("Z:{}", unix_dir.to_str().unwrap().replace('/', "\\"));
    let out_dir = format!(r"C:\spindle-test-{}", std::process::id());
    std::fs::create_dir_all(wine.drive_c(&out_dir)).unwrap();
    let report = format!(r"{out_dir}\report.json");
    let mut c = wine.command();
    c.args(["check", &z_dir, "--no-config", "--format", "json", "-o", &report]);
    let o = run_bounded(c);
    assert_eq!(o.status.code(), Some(1), "{}", program_stderr(&o.stderr));
    // One line on stderr says how the run went and where the report is.
    assert!(program_stderr(&o.stderr).contains(&report), "{}", program_stderr(&o.stderr));
    let written = std::fs::read_to_string(wine.drive_c(&report)).expect("the report at C:\\");
    let written: Value = serde_json::from_str(&written).unwrap();

    let linux = spindle_command(BIN)
        .args(["check", unix_dir.to_str().unwrap(), "--no-config", "--format", "json"])
        .output()
        .unwrap();
    let linux: Value = serde_json::from_slice(&linux.stdout).unwrap();
    // The same report, with each snapshot named by the path as given on each system.
    let unix_file = format!("{}/erp-sql1.json", unix_dir.display());
    let z_file = format!(r"{z_dir}\erp-sql1.json");
    let as_linux =
        serde_json::to_string(&written).unwrap().replace(&json_str(&z_file), &json_str(&unix_file));
    assert_eq!(as_linux, serde_json::to_string(&linux).unwrap());
    assert!(serde_json::to_string(&written).unwrap().contains(&json_str(&z_file)), "paths as given");

    // SARIF names artifacts by file URI, the Windows one with its drive letter.
    let mut c = wine.command();
    c.args(["check", &z_dir, "--no-config", "--format", "sarif"]);
    let sarif = String::from_utf8(run_bounded(c).stdout).unwrap();
    let uri = format!("file:///Z:{}/erp-sql1.json", unix_dir.display());
    assert!(sarif.contains(&format!("\"uri\": \"{uri}\"")), "{uri} in {sarif}");

    // A plan written to C:\, byte for byte the Linux build's.
    let plan = format!(r"{out_dir}\plan.ps1");
    let mut c = wine.command();
    c.args(["plan", &z_dir, "--no-config", "--format", "ps1", "-o", &plan]);
    let o = run_bounded(c);
    assert_eq!(o.status.code(), Some(0), "{}", program_stderr(&o.stderr));
    let linux = spindle_command(BIN)
        .args(["plan", unix_dir.to_str().unwrap(), "--no-config", "--format", "ps1"])
        .output()
        .unwrap();
    assert_eq!(std::fs::read(wine.drive_c(&plan)).unwrap(), linux.stdout);

    // A folder that does not exist: exit status 2, the destination named as given, nothing
    // written, and no temporary file's name in the message.
    let missing = format!(r"{out_dir}\no-such-folder\report.json");
    let mut c = wine.command();
    c.args(["check", &z_dir, "--no-config", "-o", &missing]);
    let o = run_bounded(c);
    let err = program_stderr(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(r"no-such-folder") && !err.contains(".tmp"), "{err}");
    std::fs::remove_dir_all(wine.drive_c(&out_dir)).unwrap();
}

#[test]
fn a_closed_pipe_is_the_readers_choice_not_an_error() {
    let Some(wine) = Wine::find(BIN) else { return };
    // `spindle.exe check … | head -c 1`: the report (300 KiB of SARIF, more than the pipe holds)
    // is cut, and the run ends as its findings say, not with a write error.
    let mut c = Command::new("bash");
    c.args(["-c", r#""$@" | head -c 1 >/dev/null; exit "${PIPESTATUS[0]}""#, "bash", "wine"])
        .arg(&wine.exe)
        .args(["check", "examples/win2003-sector63", "--no-config", "--format", "sarif"])
        .current_dir(repo());
    for (k, v) in wine.command().get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let o = run_bounded(c);
    let err = program_stderr(&o.stderr);
    assert!(!err.contains("cannot write"), "{err}");
    assert_eq!(o.status.code(), Some(1), "the findings' status: {err}");
}

#[test]
fn live_collection_reads_wines_wmi_and_says_what_it_could_not() {
    let Some(wine) = Wine::find(BIN) else { return };
    let mut c = wine.command();
    c.args(["collect", "host"]).current_dir(std::env::temp_dir());
    let o = run_bounded(c);
    let err = program_stderr(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let snapshot: Value = serde_json::from_slice(&o.stdout).expect("a JSON snapshot");
    assert_eq!(snapshot["host"]["os_family"], "windows", "{snapshot:#}");

    // What Wine serves in root\cimv2 is collected: its disks, partitions and drive letters, each
    // letter linked to its partition, and the system drive marked.
    let disks = snapshot["disks"].as_array().expect("disks from Win32_DiskDrive");
    assert!(!disks.is_empty() && disks.iter().all(|d| d["id"].as_str().unwrap().contains("PHYSICALDRIVE")));
    assert!(snapshot["partitions"].as_array().is_some_and(|p| !p.is_empty()), "{snapshot:#}");
    let volumes = snapshot["volumes"].as_array().expect("volumes from Win32_LogicalDisk");
    let c_drive = volumes.iter().find(|v| v["mount_points"][0] == r"C:\").expect(r"C:\");
    assert_eq!(c_drive["os_volume"], true);
    assert!(
        c_drive["backed_by"]["partitions"][0].as_str().is_some_and(|p| p.starts_with("Disk #")),
        "{c_drive:#}"
    );
    assert!(c_drive["size_bytes"].as_u64().is_some_and(|n| n > 0));

    // The Storage namespace Wine only pretends to serve: not collected, with the reason.
    let not_collected = &snapshot["collectors"][0]["not_collected"];
    let reason = |fact: &str| {
        not_collected
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["fact"] == fact)
            .map(|n| n["reason"].as_str().unwrap().to_string())
    };
    for fact in ["storage_pools", "virtual_disks", "disks[].media"] {
        assert!(
            reason(fact).is_some_and(|r| r.contains("MSFT_Disk listed no disks")),
            "{fact}: {not_collected:#}"
        );
    }
    assert!(snapshot.get("storage_pools").is_none_or(Value::is_null), "{snapshot:#}");
    assert!(err.contains("not collected: storage_pools"), "{err}");

    // The Linux build reads what the Windows build wrote.
    let dir = tempdir("wine-collect");
    let file = dir.join("wine-host.json");
    std::fs::write(&file, &o.stdout).unwrap();
    let check =
        spindle_command(BIN).args(["check", "--no-config", "--format", "json"]).arg(&file).output().unwrap();
    assert!(matches!(check.status.code(), Some(0..=2)), "{}", String::from_utf8_lossy(&check.stderr));
    let report: Value = serde_json::from_slice(&check.stdout).expect("a JSON report");
    assert_eq!(report["hosts"].as_array().map(Vec::len), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_local_check_without_sql_server_is_incomplete_unless_allowed() {
    let Some(wine) = Wine::find(BIN) else { return };
    let run = |extra: &[&str]| {
        let mut c = wine.command();
        c.args(["check", "--local", "--no-config", "--format", "json"])
            .args(extra)
            .current_dir(std::env::temp_dir());
        run_bounded(c)
    };
    let o = run(&[]);
    let err = program_stderr(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "no SQL Server answers under Wine: {err}");
    let report: Value = serde_json::from_slice(&o.stdout).expect("a JSON report all the same");
    assert_eq!(report["summary"]["incomplete"], true, "{report:#}");
    assert_eq!(report["summary"]["collection_errors"], 1, "{report:#}");
    let o = run(&["--allow-unreachable"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", program_stderr(&o.stderr));
}

/// A fresh folder under the target folder.
fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().join(format!("wine-tests/{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json_str(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}
