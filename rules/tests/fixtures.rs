//! Fixture tests: every `tests/fixtures/<CODE>/<case>.json` snapshot is checked by rule `<CODE>`
//! alone, with its default parameters, and the findings are compared with `<case>.snap` beside
//! it. One test per code, named by it and found by file (`build.rs`), so `cargo test -p spindle-rules --test fixtures PLC` runs
//! the PLC fixtures, and a failing code reports every case that differs, not only the first. To
//! accept new output: `INSTA_UPDATE=always cargo test -p spindle-rules --test fixtures`, then
//! read the `.snap` diff before committing.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use spindle_core::digest::digest;
use spindle_core::engine::HostReport;
use spindle_core::references::reference_urls;
use spindle_core::rule::BuiltinRule;

mod alone;
use alone::check_alone;

// One test per fixture folder, found by `build.rs`, and `FOUND`, the folders' names.
include!(concat!(env!("OUT_DIR"), "/fixture_tests.rs"));

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

#[test]
fn every_rule_has_fixtures() {
    let codes: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    assert_eq!(codes, FOUND, "every builtin rule has a fixture folder, and every folder a rule");
}

/// The expected gains of the findings (the digest leaves them out: a plugin twin has none).
fn gains(report: &HostReport) -> String {
    let mut out = String::new();
    for f in &report.findings {
        if let Some(g) = &f.gain {
            out.push_str(&format!(
                "gain {} {}: {}\n  assumes {}\n  {}\n",
                f.code,
                f.entity.label,
                g.line(),
                g.assumptions,
                g.url
            ));
        }
    }
    out
}

/// An estimate a rule attaches is stated in its docs, under "Expected gain", with the public
/// measurement among its References.
fn assert_gains_documented(rule: &BuiltinRule, report: &HostReport) {
    let docs = rule.meta.docs();
    for g in report.findings.iter().filter_map(|f| f.gain.as_ref()) {
        assert!(
            docs.contains("\n## Expected gain\n"),
            "{}: a finding has a gain its docs do not state",
            rule.meta.code
        );
        assert!(
            reference_urls(&docs).contains(&g.url.as_str()),
            "{}: the gain's source {} is not among its References",
            rule.meta.code,
            g.url
        );
    }
}

#[test]
fn every_rule_that_states_a_gain_shows_one_in_a_fixture() {
    for rule in spindle_rules::all() {
        if !rule.meta.docs().contains("\n## Expected gain\n") {
            continue;
        }
        let code = rule.meta.code;
        let dir = root().join(code);
        let any = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .any(|file| {
                let text = fs::read_to_string(&file).unwrap();
                let report = check_alone(rule, &file.display().to_string(), text).unwrap();
                report.findings.iter().any(|f| f.gain.is_some())
            });
        assert!(any, "{code}'s docs state an expected gain, but none of its fixtures shows one");
    }
}

/// Checks every case of `code`, then fails naming each case whose output differs (insta has
/// printed each diff as it went).
fn check_code(code: &str) {
    let rules = spindle_rules::all();
    let rule = *rules.iter().find(|r| r.meta.code == code).unwrap_or_else(|| panic!("no rule {code}"));
    let dir = root().join(code);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no fixtures (<case>.json)", dir.display());
    let mut differ = vec![];
    for file in &files {
        let name = file.file_stem().unwrap().to_str().unwrap().to_string();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let text = fs::read_to_string(file).unwrap();
            let report =
                check_alone(rule, &file.display().to_string(), text).unwrap_or_else(|e| panic!("{e}"));
            assert!(report.errors.is_empty(), "{code} failed: {:?}", report.errors);
            assert_gains_documented(rule, &report);
            insta::with_settings!({
                snapshot_path => dir.clone(),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name.as_str(), digest(&report) + &gains(&report));
            });
        }));
        if outcome.is_err() {
            differ.push(name);
        }
    }
    assert!(
        differ.is_empty(),
        "{code}: {} of {} cases failed: {}",
        differ.len(),
        files.len(),
        differ.join(", ")
    );
}
