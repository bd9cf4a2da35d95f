//! The guest plugins of examples/plugins/, built once per test binary by scripts/build-plugins.sh
//! (a no-op when they are up to date).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The guest plugins, built once per test run (a no-op when they are up to date).
pub fn plugins() -> &'static [PathBuf] {
    static BUILT: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let stdout = build("scripts/build-plugins.sh", "");
        stdout.lines().map(|l| repo_root().join(l)).collect()
    })
}

/// Runs the build script at `script` (from the repository's root) and gives its stdout; a
/// failure panics with its stderr, after `hint`.
fn build(script: &str, hint: &str) -> String {
    let out = Command::new("bash").arg(repo_root().join(script)).output().expect("bash runs");
    assert!(out.status.success(), "{script} failed{hint}:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn wasm(name: &str) -> &'static Path {
    let file = format!("{name}_rules.wasm");
    plugins()
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f == file.as_str()))
        .unwrap_or_else(|| panic!("{file} is not among the built plugins {:?}", plugins()))
}

/// The Python example plugin (examples/plugins/python: ACM002 with componentize-py), built once
/// per test binary by its build.sh; `None` when componentize-py (from
/// scripts/install-test-tools.sh) is missing, which fails the test in CI and skips it elsewhere.
pub fn python_plugin() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if !repo_root().join("target/test-tools/pyvenv/bin/componentize-py").is_file() {
                crate::tier::unavailable(
                    "the Python plugin needs componentize-py: run scripts/install-test-tools.sh",
                    &[],
                );
                return None;
            }
            build(
                "examples/plugins/python/build.sh",
                " (scripts/install-test-tools.sh installs componentize-py)",
            );
            Some(repo_root().join("target/plugins-py/acme_py.wasm"))
        })
        .as_deref()
}

/// The repository's root. Found at run time from the directory `cargo test` gives the package
/// under test: this crate's own compile-time path is wrong when a target directory is shared by
/// several checkouts, since cargo then reuses one checkout's build of this crate for all of them
/// (the plugins built, the scripts run, would be another checkout's). Else this crate's place,
/// `tests/support/`.
pub fn repo_root() -> PathBuf {
    let at_run_time = std::env::var_os("CARGO_MANIFEST_DIR").and_then(|dir| {
        Path::new(&dir)
            .ancestors()
            .find(|d| d.join("scripts/build-plugins.sh").is_file())
            .map(Path::to_path_buf)
    });
    at_run_time
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .canonicalize()
        .expect("the repository root")
}
