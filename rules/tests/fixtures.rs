//! Fixture tests: every `tests/fixtures/<CODE>/<case>.json` snapshot is checked by rule `<CODE>`
//! alone, with its default parameters, and the findings are compared with `<case>.snap` beside
//! it. To accept new output: `INSTA_UPDATE=always cargo test -p spindle-rules --test fixtures`,
//! then read the `.snap` diff before committing. `FIXTURES=PLC` limits the run to codes with that
//! prefix.

use std::fs;
use std::path::Path;

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::digest::digest;
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::load::parse_snapshot;
use spindle_core::params::Params;
use spindle_core::view::HostView;

#[test]
fn fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let rules = spindle_rules::all();
    let mut cases = 0;
    let mut dirs: Vec<_> = fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    let only = std::env::var("FIXTURES").unwrap_or_default();
    for dir in dirs {
        let code = dir.file_name().unwrap().to_str().unwrap().to_string();
        if !code.starts_with(&only) {
            continue;
        }
        let rule = rules.iter().find(|r| r.meta.code == code).unwrap_or_else(|| panic!("no rule {code}"));
        let active = [ActiveRule {
            rule: *rule,
            code: code.clone(),
            severity: rule.meta.severity,
            params: Params::defaults(rule.meta.params),
        }];
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file).unwrap();
            let doc = parse_snapshot(&file.display().to_string(), text).unwrap_or_else(|e| panic!("{e}"));
            let view = HostView::build(vec![doc], Declarations::default());
            let report = check_host(&active, &view, &[], Date::parse("2026-01-01").unwrap());
            let name = file.file_stem().unwrap().to_str().unwrap().to_string();
            insta::with_settings!({
                snapshot_path => dir.clone(),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name, digest(&report));
            });
            cases += 1;
        }
    }
    assert!(cases > 0, "no fixtures found");
}
