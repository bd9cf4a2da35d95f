//! `cargo xtask docs` on a temporary copy of the manual's rule table, docs/rules.md.

mod common;

use std::fs;

use common::*;

/// The table the xtask writes is the one tests/cli.rs (`rule_table_is_current`) expects
/// from `spindle rules --format markdown`: both pass on the same page.
#[test]
fn the_rule_table_is_current() {
    let dir = copy_repo();
    let o = xtask(dir.path(), &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("the rule table is current"), "{}", stdout(&o));
}

#[test]
fn check_fails_on_a_stale_table_and_docs_fixes_it_once() {
    let dir = copy_repo();
    let page = dir.path().join("docs/rules.md");
    // The current page, whatever state the repository's is in.
    assert_eq!(xtask(dir.path(), &["docs"]).status.code(), Some(0));
    let current = fs::read_to_string(&page).unwrap();

    // A row of the rule table itself, not of another table on the page.
    let table = &current[current.find("<!-- rules:begin").expect("the begin marker")..];
    let row = table.lines().find(|l| l.starts_with("| ") && !l.starts_with("| Code")).unwrap().to_string();
    let stale = current.replacen(&format!("{row}\n"), "", 1);
    fs::write(&page, &stale).unwrap();
    let o = xtask(dir.path(), &["docs", "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("stale") && stderr(&o).contains(&format!("+ {row}")), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&page).unwrap(), stale, "--check writes nothing");

    let o = xtask(dir.path(), &["docs"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("rule table updated") && stdout(&o).contains(&format!("+ {row}")));
    assert_eq!(fs::read_to_string(&page).unwrap(), current);

    // Current: nothing is written (the modification time stays).
    let mtime = fs::metadata(&page).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = xtask(dir.path(), &["docs"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("the rule table is current"), "{}", stdout(&o));
    assert_eq!(fs::metadata(&page).unwrap().modified().unwrap(), mtime);
}

#[test]
fn docs_without_markers_is_an_error() {
    let dir = copy_repo();
    let page = dir.path().join("docs/rules.md");
    fs::write(&page, "# spindle\n\nNo table here.\n").unwrap();
    let o = xtask(dir.path(), &["docs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<!-- rules:begin"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&page).unwrap(), "# spindle\n\nNo table here.\n");
    let o = xtask(dir.path(), &["docs", "extra"]);
    assert_eq!(o.status.code(), Some(2));
}
