//! The guest plugins of examples/plugins/, built once per test binary by scripts/build-plugins.sh
//! (a no-op when they are up to date).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The guest plugins, built once per test run (a no-op when they are up to date).
pub fn plugins() -> &'static [PathBuf] {
    static BUILT: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = repo_root();
        let out = Command::new("bash")
            .arg(root.join("scripts/build-plugins.sh"))
            .output()
            .expect("scripts/build-plugins.sh runs");
        assert!(
            out.status.success(),
            "building the plugins failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().lines().map(|l| root.join(l)).collect()
    })
}

pub fn wasm(name: &str) -> &'static Path {
    let file = format!("{name}_rules.wasm");
    plugins()
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f == file.as_str()))
        .unwrap_or_else(|| panic!("{file} is not among the built plugins {:?}", plugins()))
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
