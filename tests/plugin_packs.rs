//! Plugins through packs and `spindle check`: namespaced codes that packs select, grade and
//! waive like builtin rules; a builtin rule compiled into a plugin reports exactly what the
//! builtin reports; a failing plugin leaves every other rule's report intact and marks the run
//! incomplete; a plugin whose bytes differ from the pack's sha256 is refused.

use spindle_test_support::plugins as built_plugins;
use spindle_test_support::sarif as sarif_schema;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use built_plugins::wasm;
use serde_json::Value;
use tempfile::TempDir;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-cache"))
        .output()
        .expect("spindle runs")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

fn pack(dir: &Path, text: &str) -> String {
    let p = dir.join("pack.toml");
    fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn sha256_of(path: &Path) -> String {
    fs::read_to_string(format!("{}.sha256", path.display())).unwrap().trim().to_string()
}

/// Findings as comparable lines, the code's namespace removed.
fn lines(host: &Value, strip: &str) -> Vec<String> {
    let mut out: Vec<String> = host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {} {}",
                f["code"].as_str().unwrap().trim_start_matches(strip),
                f["severity"],
                f["entity"]["key"],
                f["location"]["pointer"],
                f["location"]["line"],
                f["message"]
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_example_company_pack_runs_its_plugin() {
    wasm("acme");
    let o = spindle(&[
        "check",
        &example("win2003-sector63"),
        "--pack",
        &example("packs/acme-plugins.toml"),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let r = json(&o);
    let host = &r["hosts"][0];
    let acme: Vec<&str> = host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str().filter(|c| c.starts_with("acme/")))
        .collect();
    assert!(acme.contains(&"acme/ACM001"), "{acme:?}");
    assert!(
        r["rules"].as_array().unwrap().iter().any(|r| r["code"] == "acme/ACM003"),
        "plugin rules are listed"
    );
    assert_eq!(r["summary"]["rule_errors"], 0);
}

#[test]
fn plugin_rules_are_graded_and_waived_like_builtin_ones() {
    let dir = TempDir::new().unwrap();
    let p = pack(
        dir.path(),
        &format!(
            "select = [\"acme/\"]\n[plugins.acme]\npath = \"{}\"\nsha256 = \"{}\"\n\n[rules.\"acme/ACM001\"]\nseverity = \"error\"\n\n[[waivers]]\nrules = [\"acme/ACM003\"]\nentity = \"*\"\nreason = \"Capacity order CHG-1 lands in January\"\n",
            wasm("acme").display(),
            sha256_of(wasm("acme")),
        ),
    );
    let o = spindle(&[
        "check",
        &example("win2003-sector63"),
        "--pack",
        &p,
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    let r = json(&o);
    let findings = r["hosts"][0]["findings"].as_array().unwrap();
    assert!(
        findings.iter().all(|f| f["code"].as_str().unwrap().starts_with("acme/")),
        "only the plugin runs"
    );
    assert!(findings.iter().filter(|f| f["code"] == "acme/ACM001").all(|f| f["severity"] == "error"));
    let acm3: Vec<_> = findings.iter().filter(|f| f["code"] == "acme/ACM003").collect();
    assert!(!acm3.is_empty() && acm3.iter().all(|f| f["waived"] == true), "{acm3:?}");
}

/// Each finding's measured and expected quantities, in the order of [`lines`].
fn quantities(host: &Value, strip: &str) -> Vec<String> {
    let mut out: Vec<String> = host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let code = f["code"].as_str().unwrap().trim_start_matches(strip);
            format!("{code} {} {} {}", f["entity"]["key"], f["location"]["pointer"], f["quantities"])
        })
        .collect();
    out.sort();
    out
}

/// The parity plugin, built against contract 0.2.0 and against 0.1.0, reports what the builtin
/// rules report; 0.2.0 carries the findings' quantities too.
#[test]
fn a_builtin_rule_compiled_into_a_plugin_reports_the_same() {
    let dir = TempDir::new().unwrap();
    let builtin = pack(dir.path(), "select = [\"ALN001\", \"FMT001\"]\n");
    let dir2 = TempDir::new().unwrap();
    let plugin = pack(
        dir2.path(),
        &format!("select = [\"parity/\"]\n[plugins.parity]\npath = \"{}\"\n", wasm("parity").display()),
    );
    let dir3 = TempDir::new().unwrap();
    let plugin_v0_1 = pack(
        dir3.path(),
        &format!("select = [\"parity/\"]\n[plugins.parity]\npath = \"{}\"\n", wasm("parity_v0_1").display()),
    );
    let examples: Vec<String> = fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !["packs", "plugins"].contains(&p.file_name().unwrap().to_str().unwrap()))
        .map(|p| p.display().to_string())
        .collect();
    assert!(examples.len() >= 5);
    for ex in examples {
        let a = json(&spindle(&["check", &ex, "--pack", &builtin, "--format", "json", "--fail-on", "never"]));
        let b = json(&spindle(&["check", &ex, "--pack", &plugin, "--format", "json", "--fail-on", "never"]));
        let c =
            json(&spindle(&["check", &ex, "--pack", &plugin_v0_1, "--format", "json", "--fail-on", "never"]));
        assert_eq!(lines(&a["hosts"][0], ""), lines(&b["hosts"][0], "parity/"), "{ex}");
        assert_eq!(lines(&a["hosts"][0], ""), lines(&c["hosts"][0], "parity/"), "{ex}, contract 0.1.0");
        assert_eq!(quantities(&a["hosts"][0], ""), quantities(&b["hosts"][0], "parity/"), "{ex}");
        for (other, contract) in [(&b, "0.2.0"), (&c, "0.1.0")] {
            assert_eq!(
                a["hosts"][0]["not_evaluated"].as_array().unwrap().len(),
                other["hosts"][0]["not_evaluated"].as_array().unwrap().len(),
                "{ex}, contract {contract}"
            );
        }
    }
}

#[test]
fn a_failing_plugin_leaves_the_rest_of_the_report_and_marks_the_run_incomplete() {
    for (mode, expect) in
        [("loop", "timed out"), ("panic", "panics on purpose"), ("bad-entity", "not in this host's facts")]
    {
        let dir = TempDir::new().unwrap();
        let p = pack(
            dir.path(),
            &format!(
                "extends = [\"recommended\"]\n[plugins.hostile]\npath = \"{}\"\ntimeout_ms = 300\nconfig = {{ mode = \"{mode}\" }}\n",
                wasm("hostile").display()
            ),
        );
        let o = spindle(&["check", &example("win2003-sector63"), "--pack", &p, "--format", "sarif"]);
        assert_eq!(o.status.code(), Some(2), "{mode}: {}", String::from_utf8_lossy(&o.stderr));
        let log = sarif_schema::assert_valid_sarif_text(&String::from_utf8(o.stdout).unwrap());
        let run = &log["runs"][0];
        assert!(
            run["results"].as_array().unwrap().iter().any(|r| r["ruleId"] == "ALN001"),
            "{mode}: builtins still report"
        );
        let inv = &run["invocations"][0];
        assert_eq!(inv["executionSuccessful"], false, "{mode}");
        let notes = inv["toolExecutionNotifications"].as_array().unwrap();
        let error =
            notes.iter().find(|n| n["level"] == "error").unwrap_or_else(|| panic!("{mode}: {notes:?}"));
        let text = error["message"]["text"].as_str().unwrap();
        assert!(text.contains("plugin `hostile`") && text.contains("pack.toml"), "{mode}: {text}");
        assert!(text.contains(expect), "{mode}: {text}");
    }
}

#[test]
fn a_plugin_whose_bytes_differ_from_the_pack_is_refused() {
    let dir = TempDir::new().unwrap();
    let p = pack(
        dir.path(),
        &format!("[plugins.acme]\npath = \"{}\"\nsha256 = \"{}\"\n", wasm("acme").display(), "0".repeat(64)),
    );
    let o = spindle(&["check", &example("win2003-sector63"), "--pack", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("pack.toml:3:"), "points at the sha256 line: {err}");
    assert!(o.stdout.is_empty());

    for (name, bytes) in [
        ("notes.wasm", b"not a plugin".to_vec()),
        ("cut.wasm", fs::read(wasm("acme")).unwrap()[..1000].to_vec()),
    ] {
        let f = dir.path().join(name);
        fs::write(&f, bytes).unwrap();
        let p = pack(dir.path(), &format!("[plugins.acme]\npath = \"{name}\"\n"));
        let o = spindle(&["check", &example("win2003-sector63"), "--pack", &p]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("pack.toml:2:") && !err.contains("panicked"), "{name}: {err}");
    }
}

#[test]
fn a_pack_fuel_limit_stops_a_plugin_deterministically() {
    // Fuel is metered only when a pack asks for it; this one does.
    let dir = TempDir::new().unwrap();
    let p = pack(
        dir.path(),
        &format!(
            "select = [\"hostile/\"]\n[plugins.hostile]\npath = \"{}\"\nfuel = 1000000\ntimeout_ms = 60000\nconfig = {{ mode = \"loop\" }}\n",
            wasm("hostile").display()
        ),
    );
    let o = spindle(&["check", &example("win2003-sector63"), "--pack", &p, "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let r = json(&o);
    let msg = r["hosts"][0]["errors"][0]["message"].as_str().unwrap();
    assert!(msg.contains("fuel"), "{msg}");
}

#[test]
fn plugin_rules_are_listed_and_explained_with_their_pack() {
    wasm("acme");
    let acme = example("packs/acme-plugins.toml");
    let o = spindle(&["rules", "--pack", &acme]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.lines().next().unwrap().contains("ENABLED"), "{table}");
    for code in ["acme/ACM001", "acme/ACM002", "acme/ACM003"] {
        let row = table.lines().find(|l| l.starts_with(code)).unwrap_or_else(|| panic!("{code}: {table}"));
        assert!(
            row.contains(" yes ") && row.contains("plugin acme of") && row.contains("acme-plugins.toml"),
            "{row}"
        );
    }
    // The pack's own settings show: CAP001 is a note there.
    let cap001 = table.lines().find(|l| l.starts_with("CAP001")).unwrap();
    assert!(cap001.contains("note"), "{cap001}");

    let o = spindle(&["explain", "acme/ACM003", "--pack", &acme]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    for expect in [
        "# acme/ACM003 ",
        "From plugin acme of",
        "In the packs given: enabled",
        "[rules.\"acme/ACM003\"]",
        "min_free_percent",
    ] {
        assert!(text.contains(expect), "{expect}: {text}");
    }
    let o = spindle(&["explain", "acme/", "--pack", &acme]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("# 3 rules match `acme/`"), "{text}");
}

#[test]
fn a_plugin_config_it_refuses_is_an_error_at_its_place_in_the_pack() {
    let dir = TempDir::new().unwrap();
    let p = pack(
        dir.path(),
        &format!(
            "extends = [\"recommended\"]\n\n[plugins.acme]\npath = \"{}\"\n\n[plugins.acme.config]\nlog_label_wrd = \"LOG\"\n",
            wasm("acme").display()
        ),
    );
    for args in [vec!["check", &example("win2003-sector63"), "--pack", &p], vec!["rules", "--pack", &p]] {
        let o = spindle(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        // Said once, where the config is, not once per host.
        assert!(err.contains("pack.toml:6:") || err.contains("pack.toml:7:"), "{err}");
        assert!(
            err.contains("plugin `acme` does not accept its config") && err.contains("log_label_wrd"),
            "{err}"
        );
        assert_eq!(err.matches("does not accept").count(), 1, "{err}");
        assert!(o.stdout.is_empty());
    }
}

/// ACM002 written in Python against contract 0.2.0 (componentize-py, no Rust SDK) reports what
/// its Rust twin in the acme plugin reports, through spindle, on every example.
#[test]
fn a_plugin_in_python_reports_what_its_rust_twin_reports() {
    let Some(python_wasm) = built_plugins::python_plugin() else { return };
    let dir = TempDir::new().unwrap();
    let rust = pack(
        dir.path(),
        &format!("select = [\"acme/ACM002\"]\n[plugins.acme]\npath = \"{}\"\n", wasm("acme").display()),
    );
    let dir2 = TempDir::new().unwrap();
    let python = pack(
        dir2.path(),
        &format!("select = [\"acmepy/ACM002\"]\n[plugins.acmepy]\npath = \"{}\"\n", python_wasm.display()),
    );
    let mut findings = 0;
    for ex in [
        "win2003-sector63",
        "win2003-aligned",
        "linux-xfs-md",
        "azure-storage-spaces",
        "hdd-raid-shared-spindles",
    ] {
        let ex = example(ex);
        let a = json(&spindle(&["check", &ex, "--pack", &rust, "--format", "json", "--fail-on", "never"]));
        let b = json(&spindle(&["check", &ex, "--pack", &python, "--format", "json", "--fail-on", "never"]));
        for (report, what) in [(&a, "Rust"), (&b, "Python")] {
            assert_eq!(report["summary"]["rule_errors"], 0, "{ex}, {what}: {}", report["summary"]);
        }
        for h in 0..a["hosts"].as_array().unwrap().len() {
            let (ha, hb) = (&a["hosts"][h], &b["hosts"][h]);
            assert_eq!(lines(ha, "acme/"), lines(hb, "acmepy/"), "{ex}");
            let ne = |host: &Value, strip: &str| -> Vec<String> {
                let mut v: Vec<String> = host["not_evaluated"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| {
                        let code = n["code"].as_str().unwrap().trim_start_matches(strip);
                        format!("{code} {} {} {}", n["entity"]["key"], n["missing"], n["reason"])
                    })
                    .collect();
                v.sort();
                v
            };
            assert_eq!(ne(ha, "acme/"), ne(hb, "acmepy/"), "{ex}");
            findings += lines(ha, "").len();
        }
    }
    assert!(findings > 0, "the examples give ACM002 something to report");
}
