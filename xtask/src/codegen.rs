//! `cargo xtask codegen [--check]`: every list of the builtin rules, rewritten from the rule
//! files themselves, so that a rule's file is the rule. Between `// codegen:begin(NAME)` and
//! `// codegen:end(NAME)` lines it writes:
//!
//! - in each category's `mod.rs` (`rules`): a `mod` line per rule file, a `pub use` of each
//!   rule's static, and the category's `RULES` slice in code order;
//! - in `rules/src/lib.rs`: the categories' `pub mod` lines (`categories`) and their `RULES` in
//!   `all()` (`all`);
//! - the manual's rule table, docs/rules.md (see [`crate::docs`]), from the rules this xtask was built with.
//!
//! A rule file is a `.rs` file in a folder of `rules/src` that holds a `declare_rule!`; a
//! category is a folder that holds one. Fixtures need no list: `rules/build.rs` finds them.
//! Everything else in those files is hand-written and kept as it is.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::Failure;

/// rustfmt.toml's `max_width`, for the `RULES` slice.
const MAX_WIDTH: usize = 110;
const RULES_HEAD: &str = "pub static RULES: &[&BuiltinRule] =";

/// A rule declared under `rules/src`.
pub(crate) struct Declared {
    pub code: String,
    pub name: String,
    pub ident: String,
    /// The folder under `rules/src` ("" for a file directly in it).
    pub category: String,
    /// The file's module name.
    pub module: String,
    /// From the repository's root.
    pub file: PathBuf,
}

/// A file to write, relative to the root: what codegen regenerates, and what `new-rule`
/// creates before codegen registers it.
pub struct Write {
    pub path: PathBuf,
    pub text: String,
    pub created: bool,
}

/// The repository as it will be once `pending` is written: what `new-rule` works out in memory
/// before writing anything.
pub(crate) struct Tree<'a> {
    pub root: &'a Path,
    pub pending: &'a [Write],
}

impl Tree<'_> {
    pub fn read(&self, rel: &Path) -> Result<String, String> {
        if let Some(w) = self.pending.iter().rev().find(|w| w.path == rel) {
            return Ok(w.text.clone());
        }
        let path = self.root.join(rel);
        fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    /// The entries of folder `rel` with whether each is a folder, as paths from the root,
    /// sorted; pending files count, and so do the folders they would create.
    fn list(&self, rel: &Path) -> Result<Vec<(PathBuf, bool)>, String> {
        let mut out: BTreeMap<PathBuf, bool> = BTreeMap::new();
        let dir = self.root.join(rel);
        if dir.is_dir() {
            let entries = fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            for e in entries.flatten() {
                out.insert(rel.join(e.file_name()), e.path().is_dir());
            }
        }
        for w in self.pending {
            if let Ok(rest) = w.path.strip_prefix(rel) {
                let mut parts = rest.components();
                if let Some(first) = parts.next() {
                    out.insert(rel.join(first), parts.next().is_some());
                }
            }
        }
        Ok(out.into_iter().collect())
    }
}

/// The rules `declare_rule!` declares in the `.rs` files of `rules/src` and its folders.
pub(crate) fn declared_rules(tree: &Tree<'_>) -> Result<Vec<Declared>, String> {
    let src = Path::new("rules/src");
    let mut files = vec![];
    for (entry, is_dir) in tree.list(src)? {
        if is_dir {
            let inner = tree.list(&entry)?;
            files.extend(inner.into_iter().filter(|(p, d)| !d && p.extension().is_some_and(|e| e == "rs")));
        } else if entry.extension().is_some_and(|e| e == "rs") {
            files.push((entry, false));
        }
    }
    let mut out = vec![];
    for (file, _) in files {
        let text = tree.read(&file)?;
        let category = file.parent().filter(|p| *p != src).and_then(|p| p.file_name());
        let category = category.map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        let module = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for (at, _) in text.match_indices("declare_rule!") {
            let rest = &text[at..];
            let ident =
                after(rest, "static ").map(|s| s.split(|c: char| !is_ident_char(c)).next().unwrap_or(""));
            if let (Some(ident), Some(code), Some(name)) =
                (ident, quoted(rest, "code:"), quoted(rest, "name:"))
            {
                out.push(Declared {
                    code: code.into(),
                    name: name.into(),
                    ident: ident.into(),
                    category: category.clone(),
                    module: module.clone(),
                    file: file.clone(),
                });
            }
        }
    }
    Ok(out)
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The string literal after the first `field` (`code:` → `"CAP001"` → `CAP001`).
fn quoted<'a>(text: &'a str, field: &str) -> Option<&'a str> {
    let rest = after(text, field)?.trim_start().strip_prefix('"')?;
    rest.split('"').next()
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The begin marker of block `name`, as a new file writes it.
pub(crate) fn begin_marker(name: &str) -> String {
    format!("// codegen:begin({name}): written by `cargo xtask codegen` from the rule files")
}

/// `text` with `body` between the lines holding `codegen:begin(name)` and `codegen:end(name)`,
/// each of its lines indented as the begin marker is.
pub(crate) fn splice_block(text: &str, name: &str, body: &str) -> Result<String, String> {
    let begin = format!("codegen:begin({name})");
    let end = format!("codegen:end({name})");
    let lines: Vec<&str> = text.lines().collect();
    let b = lines.iter().position(|l| l.contains(&begin)).ok_or(format!("no `// {begin}` line"))?;
    let e = (b..lines.len())
        .find(|&i| lines[i].contains(&end))
        .ok_or(format!("no `// {end}` line after its begin"))?;
    let indent: String = lines[b].chars().take_while(|c| c.is_whitespace()).collect();
    let mut out: Vec<String> = lines[..=b].iter().map(|l| l.to_string()).collect();
    out.extend(body.lines().map(|l| if l.is_empty() { String::new() } else { format!("{indent}{l}") }));
    out.extend(lines[e..].iter().map(|l| l.to_string()));
    Ok(out.join("\n") + "\n")
}

/// The `pub static RULES` statement laid out as rustfmt does with `max_width = 110` and
/// `use_small_heuristics = "Max"`: on one line, else the slice on the next line, else one rule
/// per line.
pub(crate) fn rules_slice(idents: &[&str]) -> String {
    let items = idents.iter().map(|i| format!("&{i}")).collect::<Vec<_>>().join(", ");
    let one_line = format!("{RULES_HEAD} &[{items}];");
    let next_line = format!("    &[{items}];");
    if one_line.len() <= MAX_WIDTH {
        one_line
    } else if next_line.len() <= MAX_WIDTH {
        format!("{RULES_HEAD}\n{next_line}")
    } else {
        let rows: String = idents.iter().map(|i| format!("    &{i},\n")).collect();
        format!("{RULES_HEAD} &[\n{rows}];")
    }
}

/// rustfmt's order of `use` paths (style edition 2024): segment by segment, and within a
/// segment `_` before anything else and runs of digits by value (`a_b` < `a2` < `a10` < `ab`).
/// `mod` lines are in plain string order.
fn use_order(a: &str, b: &str) -> Ordering {
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Chunk<'a> {
        Underscore,
        Number(u128, usize),
        Text(&'a str),
    }
    fn chunks(s: &str) -> Vec<Chunk<'_>> {
        let mut out = vec![];
        let mut rest = s;
        while let Some(c) = rest.chars().next() {
            let len = if c == '_' {
                1
            } else {
                let digit = c.is_ascii_digit();
                rest.find(|d: char| d == '_' || d.is_ascii_digit() != digit).unwrap_or(rest.len())
            };
            let (chunk, tail) = rest.split_at(len);
            out.push(match c {
                '_' => Chunk::Underscore,
                '0'..='9' => Chunk::Number(chunk.parse().unwrap_or(u128::MAX), chunk.len()),
                _ => Chunk::Text(chunk),
            });
            rest = tail;
        }
        out
    }
    a.split("::").map(chunks).cmp(b.split("::").map(chunks))
}

/// The `rules` block of a category's `mod.rs`, from its rules (any order).
pub(crate) fn category_block(rules: &[&Declared]) -> String {
    let mut by_module: Vec<&Declared> = rules.to_vec();
    by_module.sort_by(|a, b| a.module.cmp(&b.module));
    let mut by_code = rules.to_vec();
    by_code.sort_by(|a, b| a.code.cmp(&b.code));
    let mut out = String::new();
    let mut modules: Vec<&str> = by_module.iter().map(|d| d.module.as_str()).collect();
    modules.dedup();
    for m in &modules {
        // Crate-visible: the plan builder and other rules reuse a rule's helpers.
        out.push_str(&format!("pub(crate) mod {m};\n"));
    }
    out.push('\n');
    let mut uses: Vec<String> = by_module.iter().map(|d| format!("{}::{}", d.module, d.ident)).collect();
    uses.sort_by(|a, b| use_order(a, b));
    for u in &uses {
        out.push_str(&format!("pub use {u};\n"));
    }
    out.push_str("\nuse spindle_core::rule::BuiltinRule;\n\n");
    let idents: Vec<&str> = by_code.iter().map(|d| d.ident.as_str()).collect();
    out.push_str(&rules_slice(&idents));
    out.push('\n');
    out
}

/// The files codegen would change, with their new text.
pub(crate) fn generate(tree: &Tree<'_>) -> Result<Vec<Write>, Failure> {
    let declared = declared_rules(tree).map_err(Failure::one)?;
    let mut categories: BTreeMap<&str, Vec<&Declared>> = BTreeMap::new();
    let mut problems = vec![];
    for d in &declared {
        if d.category.is_empty() {
            problems.push(format!("{}: a rule must be in a category folder", d.file.display()));
        } else {
            categories.entry(d.category.as_str()).or_default().push(d);
        }
    }
    // Each file as it is, and as codegen writes it.
    let mut files: Vec<(PathBuf, String, Result<String, String>)> = vec![];
    for (category, rules) in &categories {
        let path = PathBuf::from(format!("rules/src/{category}/mod.rs"));
        match tree.read(&path) {
            Ok(old) => {
                let new = splice_block(&old, "rules", &category_block(rules));
                files.push((path, old, new));
            }
            Err(e) => problems.push(e),
        }
    }
    let lib = PathBuf::from("rules/src/lib.rs");
    let old = tree.read(&lib).map_err(Failure::one)?;
    let mods: String = categories.keys().map(|c| format!("pub mod {c};\n")).collect();
    let all: String = categories.keys().map(|c| format!("{c}::RULES,\n")).collect();
    let new = splice_block(&old, "categories", &mods).and_then(|t| splice_block(&t, "all", &all));
    files.push((lib, old, new));
    let mut writes = vec![];
    for (path, old, new) in files {
        match new {
            Ok(new) if new != old => writes.push(Write { path, text: new, created: false }),
            Ok(_) => {}
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    if !problems.is_empty() {
        return Err(Failure(problems));
    }
    Ok(writes)
}

pub fn run(root: &Path, check: bool) -> Result<ExitCode, Failure> {
    let writes = generate(&Tree { root, pending: &[] })?;
    if check {
        for w in &writes {
            eprintln!(
                "{}: stale; `cargo xtask codegen` would rewrite its generated blocks",
                w.path.display()
            );
        }
        let table = crate::docs::run(root, true)?;
        return Ok(if writes.is_empty() && table == ExitCode::SUCCESS {
            println!("codegen: every generated block is current");
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    write_all(root, &writes)?;
    for w in &writes {
        println!("updated {}", w.path.display());
    }
    // The rule table comes from the rules this xtask was built with: after a rule file is
    // added or changed, only a rebuilt xtask knows it.
    let declared = declared_rules(&Tree { root, pending: &[] }).map_err(Failure::one)?;
    let built: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    let mut codes: Vec<&str> = declared.iter().map(|d| d.code.as_str()).collect();
    codes.sort_unstable();
    if codes == built {
        crate::docs::run(root, false)
    } else {
        println!(
            "{}: the rule table waits for the next `cargo xtask codegen`, which builds the new rules",
            crate::docs::TABLE_FILE
        );
        Ok(ExitCode::SUCCESS)
    }
}

pub(crate) fn write_all(root: &Path, writes: &[Write]) -> Result<(), Failure> {
    for w in writes {
        let path = root.join(&w.path);
        let dir = path.parent().expect("files are under the root");
        fs::create_dir_all(dir)
            .and_then(|()| fs::write(&path, &w.text))
            .map_err(|e| Failure::one(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_block_replaces_only_between_its_markers_with_their_indent() {
        let text = "a\n    // codegen:begin(x): w\n    old\n    // codegen:end(x)\nb\n";
        assert_eq!(
            splice_block(text, "x", "one\n\ntwo\n").unwrap(),
            "a\n    // codegen:begin(x): w\n    one\n\n    two\n    // codegen:end(x)\nb\n"
        );
        assert!(splice_block(text, "y", "").unwrap_err().contains("codegen:begin(y)"));
        assert!(splice_block("// codegen:begin(x)\n", "x", "").unwrap_err().contains("codegen:end(x)"));
    }

    #[test]
    fn rules_slice_layouts() {
        assert_eq!(rules_slice(&["A", "B"]), "pub static RULES: &[&BuiltinRule] = &[&A, &B];");
        let long: Vec<String> = (0..4).map(|i| format!("A_FAIRLY_LONG_RULE_STATIC_{i}")).collect();
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        assert!(rules_slice(&long[..3]).contains("=\n    &["));
        assert!(rules_slice(&long).ends_with(",\n];"));
    }

    #[test]
    fn use_paths_in_rustfmt_order() {
        let mut paths = vec!["logfree::A", "log10::A", "log2::A", "log_free::B", "log_free::A", "log::A"];
        paths.sort_by(|a, b| use_order(a, b));
        assert_eq!(paths, ["log::A", "log_free::A", "log_free::B", "log2::A", "log10::A", "logfree::A"]);
    }

    #[test]
    fn reads_a_declaration() {
        let text = "declare_rule! {\n    /// ## What it checks\n    pub static SOME_RULE = {\n        \
                    code: \"ABC001\",\n        name: \"some-rule\",\n";
        assert_eq!(quoted(text, "code:"), Some("ABC001"));
        assert_eq!(quoted(text, "name:"), Some("some-rule"));
    }

    #[test]
    fn a_category_block_lists_modules_by_name_and_rules_by_code() {
        let d = |code: &str, module: &str| Declared {
            code: code.into(),
            name: String::new(),
            ident: module.to_ascii_uppercase(),
            category: "c".into(),
            module: module.into(),
            file: PathBuf::new(),
        };
        let (a, b) = (d("XYZ002", "alpha"), d("XYZ001", "beta"));
        assert_eq!(
            category_block(&[&a, &b]),
            "pub(crate) mod alpha;\npub(crate) mod beta;\n\npub use alpha::ALPHA;\npub use beta::BETA;\n\n\
             use spindle_core::rule::BuiltinRule;\n\npub static RULES: &[&BuiltinRule] = &[&BETA, &ALPHA];\n"
        );
    }
}
