//! The test tiers. `cargo test` with nothing installed but Rust, as a user without root, is the
//! contributor's tier: it passes. A test that needs more — root (loop devices, another user's
//! files), an external tool (sfdisk, mkntfs, Chromium, the SARIF Multitool, shellcheck, sqlfluff,
//! Wine) or a built artifact (spindle.exe, the release archives) — asks for it first and, when it
//! is missing, calls [`unavailable`]:
//!
//! - where the full tier is required (`CI` set, as CI runs `.ci/run`; `SPINDLE_REQUIRE_ALL`, as
//!   `scripts/test.sh` sets it; or the variable the test names, such as `SPINDLE_REQUIRE_WINE`),
//!   the test fails with what is missing and how to get it: CI never passes by skipping;
//! - elsewhere it says on stderr what it skipped and how to install it, and returns.
//!
//! `scripts/test.sh` runs the full tier as root after `scripts/install-test-tools.sh`.

use std::io::Write;

/// Whether every test must run: `CI`, `SPINDLE_REQUIRE_ALL` or one of `also` (a test's own
/// variable) set and not empty.
pub fn required(also: &[&str]) -> bool {
    ["CI", "SPINDLE_REQUIRE_ALL"]
        .into_iter()
        .chain(also.iter().copied())
        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()))
}

/// What a test that cannot run here does: fails with `why` where the full tier is required (see
/// [`required`]), else says on stderr that it skipped and why.
pub fn unavailable(why: &str, also: &[&str]) {
    assert!(!required(also), "{why}");
    // Straight to the process's stderr, once per reason: the test harness keeps what `eprintln!`
    // writes from a test that passes, and a skip nobody sees would read as a pass.
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.iter().any(|s| s == why) {
        said.push(why.to_string());
        let _ = writeln!(std::io::stderr(), "skipped: {why}");
    }
}

/// Whether this process runs as root; if not, [`unavailable`] with `what` (what needs it).
#[cfg(unix)]
pub fn root(what: &str) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let is_root = unsafe { libc::geteuid() } == 0;
    if !is_root {
        unavailable(&format!("{what} needs root (CI runs as root: scripts/test.sh)"), &[]);
    }
    is_root
}
