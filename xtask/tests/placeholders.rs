//! `cargo xtask new-rule` writes a rule whose summary and docs say TODO; no builtin rule may keep
//! them. (The placeholder snapshot of its fixture folder fails the fixture test on its own.)

#[test]
fn no_builtin_rule_keeps_the_scaffold_placeholders() {
    let unfinished: Vec<String> = spindle_rules::all()
        .iter()
        .filter(|r| r.meta.summary.contains("TODO") || r.meta.raw_docs.contains("TODO"))
        .map(|r| format!("{} ({})", r.meta.code, r.meta.name))
        .collect();
    assert!(
        unfinished.is_empty(),
        "fill in the TODOs `cargo xtask new-rule` left in the summary and docs of: {}",
        unfinished.join(", ")
    );
}
