//! The manual builds as the mdBook docs/book.toml describes, with the mdbook that
//! scripts/install-test-tools.sh pins: every chapter of docs/SUMMARY.md becomes a page carrying
//! its title, mdbook says nothing is wrong, and every link between pages of the book lands on a
//! page and an anchor that exist. Links out of the book (`../examples/…`) point into the
//! repository and are links.rs's to check, on the Markdown.
//!
//! Without mdbook the test says how to install it and passes; under CI (`CI` set) it fails.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::repo_root;

/// The pinned mdbook under target/test-tools, else one on PATH, else `None` after saying why
/// (a panic under CI).
fn mdbook() -> Option<PathBuf> {
    let pinned = repo_root().join("target/test-tools/cargo/bin/mdbook");
    if pinned.is_file() {
        return Some(pinned);
    }
    if Command::new("mdbook").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("mdbook"));
    }
    let why = "mdbook is not installed: run scripts/install-test-tools.sh (it installs the pinned \
               mdbook under target/test-tools/cargo)";
    let required =
        ["CI", "SPINDLE_REQUIRE_ALL"].iter().any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    assert!(!required, "{why}");
    eprintln!("skipped: {why}");
    None
}

/// SUMMARY.md's chapters: (file, title) in order.
fn chapters(root: &Path) -> Vec<(String, String)> {
    let summary = fs::read_to_string(root.join("docs/SUMMARY.md")).unwrap();
    summary
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().trim_start_matches("- ");
            let (title, target) = rest.strip_prefix('[')?.split_once("](")?;
            Some((target.strip_suffix(')')?.to_string(), title.to_string()))
        })
        .collect()
}

/// Every value of `attr="…"` in `html`.
fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!("{attr}=\"");
    html.match_indices(&needle).filter_map(|(at, _)| html[at + needle.len()..].split('"').next()).collect()
}

#[test]
fn the_manual_builds_as_an_mdbook_with_every_chapter_and_working_links() {
    let Some(mdbook) = mdbook() else { return };
    let root = repo_root();
    let out = tempfile::TempDir::new().unwrap();
    let run = Command::new(&mdbook)
        .arg("build")
        .arg(root.join("docs"))
        .arg("--dest-dir")
        .arg(out.path())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stderr).into_owned() + &String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "mdbook build docs failed:\n{log}");
    assert!(!log.contains("[WARN]") && !log.contains("[ERROR]"), "mdbook complained:\n{log}");

    let chapters = chapters(&root);
    assert!(chapters.len() > 10, "SUMMARY.md lists too few chapters: {chapters:?}");
    let mut pages: BTreeMap<String, String> = BTreeMap::new();
    for (file, title) in &chapters {
        let page = file.replace(".md", ".html");
        let html = fs::read_to_string(out.path().join(&page))
            .unwrap_or_else(|e| panic!("{file} (in SUMMARY.md) did not become {page}: {e}"));
        assert!(html.contains(&format!("<title>{title}")), "{page} is not titled {title:?}");
        pages.insert(page, html);
    }

    let mut broken = Vec::new();
    for (page, html) in &pages {
        let anchors_of = |target: &str| -> BTreeSet<String> {
            attribute_values(&pages[target], "id").into_iter().map(str::to_string).collect()
        };
        for href in attribute_values(html, "href") {
            let (target, anchor) = href.split_once('#').unwrap_or((href, ""));
            if href.contains("://") || href.starts_with("mailto:") || target.starts_with("../") {
                continue;
            }
            if !target.is_empty() && !target.ends_with(".html") {
                if !out.path().join(target).exists() {
                    broken.push(format!("{page}: {href} (no such file in the book)"));
                }
                continue;
            }
            let target = if target.is_empty() { page.as_str() } else { target };
            if !pages.contains_key(target) {
                if !out.path().join(target).exists() {
                    broken.push(format!("{page}: {href} (no such page)"));
                }
                continue;
            }
            if !anchor.is_empty() && !anchors_of(target).contains(anchor) {
                broken.push(format!("{page}: {href} (no heading #{anchor} in {target})"));
            }
        }
    }
    assert!(broken.is_empty(), "links in the built book that go nowhere:\n{}", broken.join("\n"));
}
