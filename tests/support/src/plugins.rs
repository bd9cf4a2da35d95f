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

/// The repository's root: this crate sits in `tests/support/`.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}
