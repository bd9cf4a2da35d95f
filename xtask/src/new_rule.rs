//! `cargo xtask new-rule CODE name category`: a builtin rule's file with TODO placeholders and a
//! fixture folder whose placeholder snapshot fails until it is recorded (a new category also
//! gets a `mod.rs` with an empty generated block); then [`codegen`](crate::codegen) registers
//! it, as it would any rule file. Nothing else is edited by hand or by this command.
//!
//! Every argument is checked, and every edit is worked out in memory, before anything is written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spindle_core::names::{is_code, is_kebab, is_snake};

use crate::Failure;
use crate::codegen::{self, Declared, Tree, Write, declared_rules};
/// The case the fixture folder starts with: a host with no facts at all.
const FIXTURE_CASE: &str = "nothing-collected";

/// Words a module cannot be named (a rule's file or a category).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
    "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static",
    "struct", "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual",
    "where", "while", "yield",
];

pub fn run(root: &Path, code: &str, name: &str, category: &str) -> Result<ExitCode, Failure> {
    let writes = plan(root, code, name, category)?;
    codegen::write_all(root, &writes)?;
    for w in &writes {
        println!("{} {}", if w.created { "created" } else { "updated" }, w.path.display());
    }
    let file = &writes[0].path;
    println!(
        "\nNext: fill in the TODOs of {}, add fixture cases to rules/tests/fixtures/{code}/, then\n  \
         INSTA_UPDATE=always cargo test -p spindle-rules --test fixtures   # and read the .snap diff\n  \
         cargo test -p spindle-rules --test examples                      # what `## Example` reports\n  \
         cargo xtask codegen                                              # the rule table in docs/rules.md",
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The files `new-rule` writes, the rule's own file first; every problem with the arguments.
pub fn plan(root: &Path, code: &str, name: &str, category: &str) -> Result<Vec<Write>, Failure> {
    let src = root.join("rules/src");
    let lib_path = src.join("lib.rs");
    if !lib_path.is_file() {
        return Err(Failure::one(format!(
            "cannot read {} (is `--root` the repository?)",
            lib_path.display()
        )));
    }
    let declared = declared_rules(&Tree { root, pending: &[] }).map_err(Failure::one)?;
    let module = name.replace('-', "_");
    let cat_dir = src.join(category);
    let existing_category = cat_dir.is_dir();
    let mut problems = vec![];

    // CODE
    let fixtures = Path::new("rules/tests/fixtures").join(code);
    if !is_code(code) {
        problems.push(format!("CODE `{code}` is not 3 uppercase letters and 3 digits (`CAP002`)"));
    } else if let Some(d) = declared.iter().find(|d| d.code == code) {
        problems.push(format!("CODE `{code}` is already used by `{}` ({})", d.name, d.file.display()));
    } else if root.join(&fixtures).exists() {
        problems.push(format!("CODE `{code}`: {} already exists", fixtures.display()));
    }

    // NAME
    if !is_kebab(name) {
        problems.push(format!(
            "NAME `{name}` is not kebab-case: lowercase words of letters and digits joined by single \
             hyphens (`log-free-space`)"
        ));
    } else if let Some(d) = declared.iter().find(|d| d.name == name) {
        problems.push(format!("NAME `{name}` is already the name of {} ({})", d.code, d.file.display()));
    } else if KEYWORDS.contains(&module.as_str()) {
        problems.push(format!(
            "NAME `{name}`: `{module}` is a Rust keyword, which cannot name the rule's module"
        ));
    } else if existing_category && cat_dir.join(format!("{module}.rs")).exists() {
        problems.push(format!("NAME `{name}`: rules/src/{category}/{module}.rs already exists"));
    }

    // CATEGORY, and whether the code's letters fit it
    let prefix = code.get(..3).filter(|_| is_code(code));
    let letters = |d: &Declared| d.code.get(..3).unwrap_or_default().to_string();
    let prefix_of = |cat: &str| declared.iter().find(|d| d.category == cat).map(letters);
    if !is_snake(category) || KEYWORDS.contains(&category) {
        problems.push(format!(
            "CATEGORY `{category}` is not a module name: snake_case, as the folders under rules/src/ are \
             (`capacity`, `placement`)"
        ));
    } else if existing_category {
        if !cat_dir.join("mod.rs").is_file() {
            problems.push(format!("CATEGORY `{category}`: rules/src/{category}/ has no mod.rs"));
        } else if let (Some(p), Some(want)) = (prefix, prefix_of(category))
            && p != want
        {
            problems.push(format!(
                "CODE `{code}` does not fit CATEGORY `{category}`, whose codes start with `{want}`"
            ));
        }
    } else if src.join(format!("{category}.rs")).exists() {
        problems.push(format!(
            "CATEGORY `{category}`: rules/src/{category}.rs is a helper module, not a category folder"
        ));
    } else if let Some(d) = prefix.and_then(|p| declared.iter().find(|d| letters(d) == p)) {
        problems.push(format!(
            "CATEGORY `{category}` does not exist, and codes starting `{}` belong to `{}`: use that \
             category, or a code with letters of its own for a new one",
            letters(d),
            d.category
        ));
    }
    if !problems.is_empty() {
        return Err(Failure(problems));
    }

    let rel = |p: &str| PathBuf::from(format!("rules/src/{category}/{p}"));
    let mut writes =
        vec![Write { path: rel(&format!("{module}.rs")), text: rule_file(code, name), created: true }];
    if !existing_category {
        writes.push(Write { path: rel("mod.rs"), text: category_mod(code), created: true });
    }
    writes.push(Write {
        path: fixtures.join(format!("{FIXTURE_CASE}.json")),
        text: fixture_json(),
        created: true,
    });
    writes.push(Write {
        path: fixtures.join(format!("{FIXTURE_CASE}.snap")),
        text: fixture_snap(code),
        created: true,
    });
    // Registered as codegen registers every rule file: its `mod.rs` (and `lib.rs` for a new
    // category) rewritten between their markers.
    let registrations = codegen::generate(&Tree { root, pending: &writes })?;
    writes.extend(registrations);
    Ok(writes)
}

/// The rule's file: its doc comment with the four headings and TODOs, `needs` and `params` empty,
/// a check that reports nothing yet.
fn rule_file(code: &str, name: &str) -> String {
    let ident = name.replace('-', "_").to_ascii_uppercase();
    // The workspace's version: the release that will first ship the rule.
    let version = env!("CARGO_PKG_VERSION");
    format!(
        r#"use spindle_core::declare_rule;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;

declare_rule! {{
    /// ## What it checks
    /// TODO: what passes and what is reported, on which facts, with the thresholds (and whether
    /// a value exactly at the limit passes), and when the rule is "not evaluated".
    ///
    /// ## Example
    /// TODO: one line on the case, then the smallest snapshot that breaks the rule (only the
    /// entities and facts it reads, with realistic values; a fixture case is a good start) and
    /// what the rule alone reports on it: `cargo test -p spindle-rules --test examples` prints it.
    ///
    /// ```json
    /// {{
    ///   "schema_version": 1,
    ///   "host": {{ "name": "sql01" }}
    /// }}
    /// ```
    ///
    /// ```text
    /// TODO: what the rule reports on the snapshot above
    /// ```
    ///
    /// ## Why it matters
    /// TODO: what goes wrong when the rule is broken, with numbers where there are some.
    ///
    /// ## How to fix
    /// TODO: the commands that fix it (PowerShell, T-SQL, Linux), and how to check the result.
    ///
    /// ## References
    /// - TODO: the public sources of the thresholds, with https URLs (Microsoft Learn, vendor
    ///   guides, papers).
    pub static {ident} = {{
        code: "{code}",
        name: "{name}",
        severity: Warning,
        summary: "TODO: one line on what passes, as the rule table shows it",
        since: "{version}",
        // Runs only where selected by its code or name until its thresholds are settled: remove
        // the line to make it stable.
        stage: Preview,
        // TODO: Measured (harm seen on the server), Layout (a cause fixed with an outage) or
        // Configuration (fixed online or at a restart): where the text reports rank findings.
        impact: Configuration,
        // The plan steps that fix its findings (spindle_core::plan::Remedy), e.g.
        // `remedy: [Rebuild(Alignment)],`; without, each finding is a manual step with its fix.
        needs: [],
        params: [],
        check: check,
    }}
}}

fn check(_cx: &mut Ctx<'_, NoParams>) {{
    // TODO: list the facts the rule needs in `needs`, then for each entity it judges: `cx.need(at,
    // field, value)` records "not evaluated" when a fact is missing, `cx.report(at, field,
    // message).values(measured, expected)` a finding. The other rules of the category show how.
}}
"#
    )
}

/// A new category's `mod.rs`: its doc line to fill in, and the block codegen fills.
fn category_mod(code: &str) -> String {
    format!(
        "//! {}: TODO: one line on what the rules of this category look at.\n\n{}\n// codegen:end(rules)\n",
        &code[..3],
        codegen::begin_marker("rules")
    )
}

fn fixture_json() -> String {
    "{\n  \"schema_version\": 1,\n  \"host\": { \"name\": \"sql01\" }\n}\n".into()
}

/// A snapshot no run can produce, so the fixture test fails until the real one is recorded.
fn fixture_snap(code: &str) -> String {
    format!(
        "---\nsource: rules/tests/fixtures.rs\n---\nTODO: what {code} says about {FIXTURE_CASE}.json; record it with \
         `INSTA_UPDATE=always cargo test -p spindle-rules --test fixtures` and read it\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_category_mod_is_a_doc_line_and_an_empty_block() {
        assert_eq!(
            category_mod("QUO001"),
            "//! QUO: TODO: one line on what the rules of this category look at.\n\n\
             // codegen:begin(rules): written by `cargo xtask codegen` from the rule files\n\
             // codegen:end(rules)\n"
        );
    }
}
