//! The real consumers of the CI report formats, run by the tests: libxml2's `xmllint` and
//! Python's `junitparser` (scripts/install-test-tools.sh installs both). Under CI (`CI` set) a
//! missing one fails the test; elsewhere the test says what it skipped and why.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Whether `probe` runs and succeeds; if not, a panic under CI, else a note on stderr.
fn available(what: &str, install: &str, probe: &mut Command) -> bool {
    let ok = probe.stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if !ok {
        let why = format!("{what} is not installed ({install}, or scripts/install-test-tools.sh)");
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("SKIPPED the {what} check: {why}");
    }
    ok
}

/// The Python interpreter the tests run junitparser with.
pub const PYTHON: &str = "python3";

pub fn has_xmllint() -> bool {
    available("xmllint", "apt-get install libxml2-utils", Command::new("xmllint").arg("--version"))
}

pub fn has_junitparser() -> bool {
    available(
        "junitparser",
        "python3 -m pip install --user junitparser",
        Command::new(PYTHON).args(["-c", "import junitparser"]),
    )
}

/// Runs `program args` with `input` on its standard input.
pub fn run_with_input(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
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

/// `xmllint --noout` on `xml`: `Err` with what it said when the document is not well-formed.
pub fn xmllint(xml: &[u8]) -> Result<(), String> {
    let out = run_with_input("xmllint", &["--noout", "-"], xml);
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}
