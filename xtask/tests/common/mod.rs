//! What the xtask tests share: a temporary copy of the parts of the repository the xtask reads
//! and writes, the xtask run on it, and snapshots of the copy to tell what changed.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// The repository the xtask was built from.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A copy of `rules/` (without build output), docs/rules.md and rustfmt.toml.
pub fn copy_repo() -> TempDir {
    let dir = TempDir::new().unwrap();
    let root = repo_root();
    copy_dir(&root.join("rules"), &dir.path().join("rules"));
    fs::create_dir_all(dir.path().join("docs")).unwrap();
    for file in ["docs/rules.md", "rustfmt.toml"] {
        fs::copy(root.join(file), dir.path().join(file)).unwrap();
    }
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.is_dir() {
            if name != "target" {
                copy_dir(&path, &to.join(name));
            }
        } else {
            fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

/// Every file under `dir`, by path relative to it, with its content.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The files added, removed or changed between two snapshots.
pub fn changed(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut out: Vec<String> =
        after.iter().filter(|(p, c)| before.get(*p) != Some(c)).map(|(p, _)| p.clone()).collect();
    out.extend(before.keys().filter(|p| !after.contains_key(*p)).cloned());
    out.sort();
    out
}

/// `cargo xtask --root DIR ARGS…`.
pub fn xtask(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).arg("--root").arg(root).args(args).output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn read(dir: &Path, rel: &str) -> String {
    fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Asserts rustfmt, with the repository's rustfmt.toml, leaves `text` as it is. Skipped, with a
/// note, where rustfmt is not installed.
pub fn assert_rustfmt_clean(text: &str, what: &str) {
    let config = repo_root().join("rustfmt.toml");
    let child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--config-path"])
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("rustfmt not found: {what} not checked for formatting");
        return;
    };
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "rustfmt failed on {what}: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), text, "{what} is not as rustfmt lays it out");
}

/// A category folder with rules in it, and its codes' letters (`capacity`, `CAP`).
pub fn some_category(dir: &Path) -> (String, String) {
    let src = dir.join("rules/src");
    let mut dirs: Vec<_> =
        fs::read_dir(&src).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    for d in dirs {
        for (_, text) in snapshot(&d) {
            let text = String::from_utf8_lossy(&text).into_owned();
            if let Some(i) = text.find("code: \"") {
                let category = d.file_name().unwrap().to_string_lossy().into_owned();
                return (category, text[i + 7..i + 10].to_string());
            }
        }
    }
    panic!("no category with rules under {}", src.display());
}
