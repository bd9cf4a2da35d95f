//! What the rest of spindle reads from a rule's declaration instead of its code: the impact class
//! the text reports rank by, and the remedies the plan builder picks findings by. Every builtin
//! rule declares them, and no rule code is written into the crates that must not know one.

use std::path::{Path, PathBuf};

use spindle_core::plan::Remedy;
use spindle_core::rule::Impact;

#[test]
fn every_builtin_rule_declares_its_impact() {
    let unclassified: Vec<&str> = spindle_rules::all()
        .iter()
        .filter(|r| r.meta.impact == Impact::Unclassified)
        .map(|r| r.meta.code)
        .collect();
    assert!(unclassified.is_empty(), "rules without `impact:` in their declare_rule!: {unclassified:?}");
}

#[test]
fn every_builtin_rule_says_which_release_first_shipped_it() {
    for r in spindle_rules::all() {
        let v: Vec<&str> = r.meta.since.split('.').collect();
        assert!(
            v.len() == 3 && v.iter().all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())),
            "{}: `since: \"{}\"` is not a version like 0.1.0",
            r.meta.code,
            r.meta.since
        );
    }
}

#[test]
fn remedies_name_at_most_one_manual_step_and_put_it_last() {
    for r in spindle_rules::all() {
        let manual = r.meta.remedies.iter().filter(|m| matches!(m, Remedy::Manual(_))).count();
        assert!(manual <= 1, "{}: {manual} manual remedies", r.meta.code);
        if let Some(at) = r.meta.remedies.iter().position(|m| matches!(m, Remedy::Manual(_))) {
            assert_eq!(
                at,
                r.meta.remedies.len() - 1,
                "{}: a manual remedy is the fallback, last",
                r.meta.code
            );
        }
    }
}

/// Every `.rs` file under `dir` but test modules kept in files of their own (`tests.rs`).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of `text` that are code, numbered from 1: comments cut off, and nothing from the
/// file's `#[cfg(test)]` module on (tests may use real codes as data).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = vec![];
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        let t = line.trim_start();
        if t == "#[cfg(test)]" && lines.peek().is_some_and(|(_, l)| l.trim_start().starts_with("mod ")) {
            break;
        }
        let code = match t.find("//") {
            Some(_) if t.starts_with("//") => continue,
            // A comment after code; "//" inside a string (a URL) ends the line early, which can
            // only hide a code, never invent one.
            Some(_) => &line[..line.find("//").unwrap()],
            None => line,
        };
        out.push((n + 1, code));
    }
    out
}

/// Where a builtin rule's code is written into the code under `dirs` (from the workspace's
/// root), as `path:line: CODE`.
fn codes_written_in(dirs: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let codes: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    let mut found = vec![];
    for dir in dirs {
        for path in sources(&root.join(dir)) {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in code_lines(&text) {
                for code in codes.iter().filter(|c| line.contains(**c)) {
                    found.push(format!("{}:{n}: {code}", path.strip_prefix(root).unwrap().display()));
                }
            }
        }
    }
    found
}

#[test]
fn no_rule_code_is_written_into_core_or_the_report_writers() {
    let found = codes_written_in(&["core/src", "report/src"]);
    assert!(
        found.is_empty(),
        "core and the writers read a rule's impact and remedies from its declaration, never its \
         code:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_rule_code_is_written_into_the_plan_builder() {
    let found = codes_written_in(&["rules/src/plan"]);
    assert!(found.is_empty(), "the plan builder picks findings by remedy:\n{}", found.join("\n"));
}

#[test]
fn the_scan_finds_a_code_written_as_code_and_skips_comments_and_tests() {
    let text = "fn a() {\n    // ALN001 in a comment\n    let x = \"ALN001\"; // and after\n}\n\
                #[cfg(test)]\nmod tests {\n    const C: &str = \"ALN002\";\n}\n";
    let lines = code_lines(text);
    let hits: Vec<usize> = lines.iter().filter(|(_, l)| l.contains("ALN00")).map(|(n, _)| *n).collect();
    assert_eq!(hits, [3]);
}
