//! What users read cites what they can open: the README, the manual (every chapter of docs/ and
//! docs/SUMMARY.md), the examples' README, the builtin packs and `spindle explain` name no
//! internal source note (by its number or its file name), and `explain` gives every rule a
//! public `https://` reference.

use std::fs;
use std::path::Path;
use std::process::Command;

use spindle_test_support::citations::internal_citation;

fn read_all(paths: &[&Path]) -> Vec<(String, String)> {
    paths.iter().map(|p| (p.display().to_string(), fs::read_to_string(p).unwrap())).collect()
}

#[test]
fn readme_docs_and_packs_cite_no_internal_notes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files =
        vec![root.join("README.md"), root.join("examples/README.md"), root.join("plugins-sdk/README.md")];
    for dir in ["docs", "rule-packs", "examples/packs"] {
        let mut more: Vec<_> = fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        more.sort();
        files.extend(more.into_iter().filter(|p| p.extension().is_some_and(|e| e == "md" || e == "toml")));
    }
    assert!(files.len() >= 8, "{files:?}");
    // Every chapter the manual's SUMMARY lists is among them (the manual was the README once).
    let summary = fs::read_to_string(root.join("docs/SUMMARY.md")).unwrap();
    let chapters: Vec<&str> = summary
        .split("](")
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .filter(|s| s.ends_with(".md"))
        .collect();
    assert!(chapters.len() >= 12, "{chapters:?}");
    for chapter in chapters {
        assert!(files.contains(&root.join("docs").join(chapter)), "docs/{chapter} is not checked");
    }
    let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    for (path, text) in read_all(&paths) {
        assert_eq!(internal_citation(&text), None, "{path} cites an internal note");
    }
}

#[test]
fn explain_cites_public_references_only() {
    for r in spindle_rules::all() {
        let o = Command::new(env!("CARGO_BIN_EXE_spindle")).args(["explain", r.meta.code]).output().unwrap();
        assert!(o.status.success(), "{}: {}", r.meta.code, String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(internal_citation(&out), None, "`spindle explain {}` cites an internal note", r.meta.code);
        let refs =
            &out[out.find("References").unwrap_or_else(|| panic!("{}: no References\n{out}", r.meta.code))..];
        assert!(
            refs.contains("https://"),
            "`spindle explain {}` lists no https:// reference:\n{out}",
            r.meta.code
        );
    }
}
