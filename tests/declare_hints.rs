//! The `[[declare.stripe_unit]]` hints spindle prints for the bundled examples paste into a pack
//! as TOML: pasted as printed, the pack parses and the real loader refuses only the placeholders
//! (naming the file and line, and saying what to put there); with the value filled in, it loads
//! and the entities the hints were written for are judged.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use spindle_test_support::EXAMPLES;
use tempfile::TempDir;

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("NO_COLOR", "1")
        .output()
        .expect("spindle runs")
}

fn report(args: &[&str]) -> Value {
    let o = spindle(&[&["check", "--format", "json"][..], args].concat());
    assert!(
        o.status.code().is_some_and(|c| c < 2),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Every hint in a report's not-evaluated reasons: from `[[declare.stripe_unit]]` to the end.
fn hints(report: &Value) -> Vec<String> {
    let mut out = vec![];
    for host in report["hosts"].as_array().unwrap() {
        for n in host["not_evaluated"].as_array().unwrap() {
            if let Some(at) =
                n["reason"].as_str().and_then(|r| r.find("[[declare.stripe_unit]]").map(|i| &r[i..]))
            {
                out.push(at.to_string());
            }
        }
    }
    out
}

#[test]
fn every_printed_hint_pastes_into_a_pack_the_loader_reads() {
    let mut all: Vec<String> = EXAMPLES.iter().flat_map(|e| hints(&report(&[e]))).collect();
    all.sort();
    all.dedup();
    assert!(all.len() >= 3, "the examples print hints for their RAID logical drives: {all:?}");
    for h in &all {
        assert!(h.ends_with('\n') && h.lines().count() == 3, "three lines of TOML: {h:?}");
        assert!(h.contains("stripe_unit_bytes = 0  # placeholder"), "{h}");
        // It names the tool that shows the value, not a value to copy.
        assert!(
            ["perccli", "ssacli", "mdadm", "lvs", "Get-VirtualDisk", "SAN"].iter().any(|t| h.contains(t)),
            "{h}"
        );
        assert!(!h.contains("262144") && !h.contains("65536"), "a placeholder, not a recommendation: {h}");
    }

    let dir = TempDir::new().unwrap();
    let pack: PathBuf = dir.path().join("hints.toml");
    let text = format!("name = \"hints\"\nextends = [\"recommended\"]\n\n{}", all.join("\n"));
    let parsed: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("not TOML: {e}\n{text}"));
    let entries = parsed["declare"]["stripe_unit"].as_array().unwrap();
    assert_eq!(entries.len(), all.len());
    // Windows device paths survive as they were printed (a literal string keeps `\\.\`).
    assert!(
        entries.iter().any(|e| e["entity"].as_str().unwrap().ends_with(r"/disk:\\.\PHYSICALDRIVE1")),
        "{entries:?}"
    );

    // As printed: the loader refuses the placeholder, at its line, and says what to do. One hint
    // per pack, so each error is the only one and is shown whole.
    for h in &all {
        let one = format!("name = \"hint\"\nextends = [\"recommended\"]\n\n{h}");
        fs::write(&pack, &one).unwrap();
        let o = spindle(&["check", "--pack", pack.to_str().unwrap(), "win2003-sector63"]);
        assert_eq!(o.status.code(), Some(2), "a placeholder never loads as a stripe unit: {h}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("{}:6:21: stripe_unit_bytes must be positive", pack.display())),
            "{err}"
        );
        assert!(err.contains("placeholder of spindle's declare hint"), "{err}");
    }

    // Filled in: the pack loads, and no entity still asks for a declaration.
    fs::write(&pack, text.replace("stripe_unit_bytes = 0", "stripe_unit_bytes = 131072")).unwrap();
    let filled = report(&[&["--pack", pack.to_str().unwrap()][..], &EXAMPLES[..]].concat());
    assert!(hints(&filled).is_empty(), "{:?}", hints(&filled));
    let judged = filled["hosts"].as_array().unwrap().iter().flat_map(|h| h["findings"].as_array().unwrap());
    assert!(judged.filter(|f| f["code"] == "ALN002").count() >= 3, "the declared stripe unit was used");
}
