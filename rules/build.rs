//! One test per fixture folder (`tests/fixtures/<CODE>/`), found by file: a rule's fixtures need
//! no list anywhere. `tests/fixtures.rs` includes what this writes; each test is named by its
//! code, so `cargo test -p spindle-rules --test fixtures PLC` runs the PLC fixtures.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=tests/fixtures");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    let mut out = String::from("/// The fixture folders, by name.\nconst FOUND: &[&str] = &[");
    for f in &folders {
        write!(out, "{f:?}, ").unwrap();
    }
    out.push_str("];\n");
    // A folder whose name is no identifier is still in FOUND, where `every_rule_has_fixtures`
    // names it; it only gets no test of its own.
    for f in folders.iter().filter(|f| f.chars().all(|c| c.is_ascii_alphanumeric()) && !f.is_empty()) {
        write!(out, "#[test]\n#[allow(non_snake_case)]\nfn {f}() {{\n    check_code({f:?});\n}}\n").unwrap();
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("fixture_tests.rs");
    std::fs::write(&target, out).expect("OUT_DIR is writable");
}
