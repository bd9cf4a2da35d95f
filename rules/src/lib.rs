//! spindle-rules: the builtin storage rules, one rule per file under `src/<category>/`.
//!
//! Codes are stable: a code is never reused for a different check.

// codegen:begin(categories): written by `cargo xtask codegen` from the rule files
pub mod alignment;
pub mod capacity;
pub mod format;
pub mod growth;
pub mod latency;
pub mod media;
pub mod placement;
pub mod striping;
// codegen:end(categories)

mod commands;
mod gain;
pub mod plan;
mod service_time;
mod straddle;
mod volume_os;

use spindle_core::rule::BuiltinRule;

/// Every builtin rule, in code order.
pub fn all() -> Vec<&'static BuiltinRule> {
    let mut rules: Vec<&'static BuiltinRule> = [
        // codegen:begin(all): written by `cargo xtask codegen` from the rule files
        alignment::RULES,
        capacity::RULES,
        format::RULES,
        growth::RULES,
        latency::RULES,
        media::RULES,
        placement::RULES,
        striping::RULES,
        // codegen:end(all)
    ]
    .concat();
    rules.sort_by_key(|r| r.meta.code);
    rules
}

/// The README's rule table (Markdown), one row per rule from its declaration: `spindle rules
/// --format markdown` prints it and `cargo xtask codegen` (or `docs`) writes it into the README.
pub fn markdown_table() -> String {
    let mut out =
        String::from("| Code | Name | Default severity | Checks | Gain estimate |\n|---|---|---|---|---|\n");
    for r in all() {
        let m = &r.meta;
        // The rules whose docs state the public measurement an estimate comes from.
        let gain = if m.docs().contains("\n## Expected gain\n") { "yes" } else { "—" };
        out.push_str(&format!("| {} | `{}` | {} | {} | {gain} |\n", m.code, m.name, m.severity, m.summary));
    }
    out
}
