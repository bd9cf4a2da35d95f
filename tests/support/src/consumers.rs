//! The real consumers of the CI report formats, run by the tests: libxml2's `xmllint` and
//! Python's `junitparser` (scripts/install-test-tools.sh installs both). Under CI (`CI` set) a
//! missing one fails the test; elsewhere the test says what it skipped and why, as for the
//! renderers of the reports people read ([`crate::renderers`]).

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Whether `probe` runs and succeeds; if not, a panic under CI, else a note on stderr.
fn available(what: &str, install: &str, probe: &mut Command) -> bool {
    let ok = probe.stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if !ok {
        crate::tier::unavailable(
            &format!(
                "the {what} check: {what} is not installed ({install}, or scripts/install-test-tools.sh)"
            ),
            &[],
        );
    }
    ok
}

/// The Python interpreter the tests run junitparser with.
pub const PYTHON: &str = "python3";

/// The path of xmllint, or `None` after saying why the check is skipped (a panic under CI).
/// A program `scripts/install-test-tools.sh` installs under `target/test-tools/` (`rel`, such as
/// `pyvenv/bin/check-jsonschema`), or `None` after saying the check is skipped: locally a test
/// says what it skipped and how to install it; under CI (`CI` set) a missing tool fails it.
pub fn test_tool(rel: &str) -> Option<PathBuf> {
    let path = crate::plugins::repo_root().join("target/test-tools").join(rel);
    if path.is_file() {
        return Some(path);
    }
    crate::tier::unavailable(
        &format!("{} is missing: run scripts/install-test-tools.sh", path.display()),
        &[],
    );
    None
}

pub fn xmllint_path() -> Option<PathBuf> {
    crate::renderers::tool_or_skip("xmllint", "libxml2-utils")
}

pub fn has_junitparser() -> bool {
    available(
        "junitparser",
        "python3 -m pip install --user junitparser",
        Command::new(PYTHON).args(["-c", "import junitparser"]),
    )
}

/// Runs `program args` with `input` on its standard input.
pub fn run_with_input(program: impl AsRef<OsStr>, args: &[&str], input: &[u8]) -> Output {
    let program = program.as_ref();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.to_string_lossy()));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: a consumer that answers before reading all would block the pipe.
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// `xmllint --noout` (at `xmllint`, from [`xmllint_path`]) on `xml`: `Err` with what it said
/// when the document is not well-formed.
pub fn xmllint(xmllint: &Path, xml: &[u8]) -> Result<(), String> {
    let out = run_with_input(xmllint, &["--noout", "-"], xml);
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// A Python with PyYAML: the parsers' venv (sqlfluff depends on PyYAML), else the system's.
pub fn python_with_yaml() -> Option<PathBuf> {
    let venv = crate::plugins::repo_root().join("target/test-tools/parsers/bin/python");
    for python in [venv, PathBuf::from("python3")] {
        let ok = Command::new(&python).args(["-c", "import yaml"]).output().is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    crate::tier::unavailable("no Python with PyYAML: run scripts/install-test-tools.sh", &[]);
    None
}

/// Each YAML text parsed by PyYAML, as JSON; a block that does not parse fails the test.
pub fn parse_yaml(python: &Path, blocks: &[(String, String)]) -> Vec<serde_json::Value> {
    let script =
        "import json, sys, yaml\nprint(json.dumps([yaml.safe_load(t) for t in json.load(sys.stdin)]))";
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let texts: Vec<&str> = blocks.iter().map(|(_, t)| t.as_str()).collect();
    serde_json::to_writer(child.stdin.take().unwrap(), &texts).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "PyYAML: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}
