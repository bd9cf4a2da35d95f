//! `cargo xtask codegen` on a temporary copy of `rules/`: the repository's generated blocks are
//! current, a stale one fails `--check` and is rewritten, and hand-written lines are kept.

mod common;

use std::fs;

use common::*;

#[test]
fn every_generated_block_is_current() {
    let dir = copy_repo();
    let o = xtask(dir.path(), &["codegen", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every generated block is current"), "{}", stdout(&o));
}

#[test]
fn a_rule_left_out_of_its_category_fails_check_and_codegen_puts_it_back() {
    let dir = copy_repo();
    let (category, _) = some_category(dir.path());
    let mod_rs = format!("rules/src/{category}/mod.rs");
    let current = read(dir.path(), &mod_rs);
    let line = current.lines().find(|l| l.starts_with("pub use ")).expect("a rule's pub use").to_string();
    let stale = current.replacen(&format!("{line}\n"), "", 1);
    fs::write(dir.path().join(&mod_rs), &stale).unwrap();

    let o = xtask(dir.path(), &["codegen", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains(&format!("{mod_rs}: stale")), "{}", stderr(&o));
    assert_eq!(read(dir.path(), &mod_rs), stale, "--check writes nothing");

    let o = xtask(dir.path(), &["codegen"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("updated {mod_rs}")), "{}", stdout(&o));
    assert_eq!(read(dir.path(), &mod_rs), current);
    assert_rustfmt_clean(&current, &mod_rs);
}

#[test]
fn hand_written_lines_outside_the_markers_are_kept() {
    let dir = copy_repo();
    let (category, _) = some_category(dir.path());
    let mod_rs = format!("rules/src/{category}/mod.rs");
    let current = read(dir.path(), &mod_rs);
    let edited =
        current.replacen("// codegen:begin(rules)", "mod helper_kept;\n\n// codegen:begin(rules)", 1);
    // And a generated line edited by hand: codegen puts it back.
    let generated = edited.lines().skip_while(|l| !l.contains("codegen:begin")).nth(1).unwrap().to_string();
    assert!(generated.starts_with("pub(crate) mod "), "{generated}");
    let edited = edited.replacen(&generated, &generated.replacen("pub(crate) ", "pub ", 1), 1);
    fs::write(dir.path().join(&mod_rs), &edited).unwrap();
    assert_eq!(xtask(dir.path(), &["codegen"]).status.code(), Some(0));
    let after = read(dir.path(), &mod_rs);
    assert!(after.contains("mod helper_kept;\n"), "{after}");
    assert_eq!(after.replacen("mod helper_kept;\n\n", "", 1), current);
}

#[test]
fn a_category_without_markers_is_an_error_naming_the_file_and_nothing_is_written() {
    let dir = copy_repo();
    let (category, _) = some_category(dir.path());
    let mod_rs = format!("rules/src/{category}/mod.rs");
    let unmarked: String = read(dir.path(), &mod_rs)
        .lines()
        .filter(|l| !l.contains("codegen:"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(dir.path().join(&mod_rs), &unmarked).unwrap();
    let before = snapshot(dir.path());
    let o = xtask(dir.path(), &["codegen"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{mod_rs}: no `// codegen:begin(rules)` line")), "{}", stderr(&o));
    assert!(changed(&before, &snapshot(dir.path())).is_empty());
}
