//! Microsoft's SARIF Multitool (`@microsoft/sarif-multitool` on npm), the validator GitHub's
//! documentation points to: `validate --rule-kind "Sarif;Gh;Ghas"` checks a log against the SARIF
//! rules and against what GitHub code scanning and GitHub Advanced Security require.
//! scripts/install-test-tools.sh installs it under `target/test-tools/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::plugins::repo_root;

/// The Multitool's own executable (the npm package's `bin.js` runs it through a shell, which
/// splits `Sarif;Gh;Ghas` at the semicolons).
fn installed() -> PathBuf {
    if let Some(path) = std::env::var_os("SARIF_MULTITOOL") {
        return PathBuf::from(path);
    }
    let platform = match std::env::consts::OS {
        "windows" => "win32",
        "macos" => "darwin",
        other => other,
    };
    let exe = if cfg!(windows) { "Sarif.Multitool.exe" } else { "Sarif.Multitool" };
    repo_root()
        .join("target/test-tools/node_modules/@microsoft")
        .join(format!("sarif-multitool-{platform}"))
        .join(exe)
}

/// The Multitool, or `None` (said on stderr) when it is not installed and `CI` is not set; in
/// CI a missing Multitool fails the test.
pub fn multitool() -> Option<PathBuf> {
    let path = installed();
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "the SARIF Multitool is not installed at {} (bash scripts/install-test-tools.sh installs it; \
         SARIF_MULTITOOL names another)",
        path.display()
    );
    crate::tier::unavailable(&why, &[]);
    None
}

/// Runs `validate --rule-kind "Sarif;Gh;Ghas"` on `logs` and returns its findings at level error
/// or warning, one line each (`file: RULE: message`). Panics if the Multitool fails or does not
/// scan every log.
pub fn validate(tool: &Path, logs: &[PathBuf]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("spindle-multitool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("validation-{}.sarif", unique()));
    let run = Command::new(tool)
        .args([
            "validate",
            "--rule-kind",
            "Sarif;Gh;Ghas",
            "--level",
            "Error;Warning",
            "--log",
            "ForceOverwrite",
        ])
        .arg("--output")
        .arg(&out)
        .args(logs)
        .output()
        .expect("the SARIF Multitool runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the Multitool failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(&format!("Done. {} files scanned.", logs.len())),
        "the Multitool did not scan every log:\n{stdout}"
    );
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    let mut findings = vec![];
    for run in log["runs"].as_array().unwrap() {
        for r in run["results"].as_array().into_iter().flatten() {
            let level = r["level"].as_str().unwrap_or("warning");
            if level != "error" && level != "warning" {
                continue;
            }
            let file =
                r.pointer("/locations/0/physicalLocation/artifactLocation/uri").and_then(Value::as_str);
            let text =
                r["message"]["text"].as_str().map(str::to_string).unwrap_or_else(|| r["message"].to_string());
            findings.push(format!(
                "{}: {level} {}: {text}",
                file.unwrap_or("?"),
                r["ruleId"].as_str().unwrap_or("?")
            ));
        }
        // A log the Multitool could not read is a notification of its run, not a result.
        for inv in run["invocations"].as_array().into_iter().flatten() {
            for key in ["toolExecutionNotifications", "toolConfigurationNotifications"] {
                for n in inv[key].as_array().into_iter().flatten() {
                    if n["level"].as_str().is_none_or(|l| l == "error" || l == "warning") {
                        findings.push(format!("{key}: {n}"));
                    }
                }
            }
        }
    }
    findings
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
