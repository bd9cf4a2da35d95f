//! `cargo xtask new-rule CODE name category`: a builtin rule's file with TODO placeholders, its
//! registration in its category's `mod.rs` (and the category's in `rules/src/lib.rs` when the
//! category is new), and a fixture folder whose placeholder snapshot fails until it is recorded.
//!
//! Every argument is checked, and every edit is worked out in memory, before anything is written.

use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spindle_core::names::{is_code, is_kebab, is_snake};

use crate::Failure;

/// rustfmt.toml's `max_width`, for the `RULES` slice this rewrites.
const MAX_WIDTH: usize = 110;
const RULES_HEAD: &str = "pub static RULES: &[&BuiltinRule] =";
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

/// A rule declared under `rules/src`.
struct Declared {
    code: String,
    name: String,
    ident: String,
    /// The folder under `rules/src` ("" for a file directly in it).
    category: String,
    file: PathBuf,
}

/// A file to write, relative to the root.
pub struct Write {
    pub path: PathBuf,
    pub text: String,
    pub created: bool,
}

pub fn run(root: &Path, code: &str, name: &str, category: &str) -> Result<ExitCode, Failure> {
    let writes = plan(root, code, name, category)?;
    for w in &writes {
        let path = root.join(&w.path);
        let dir = path.parent().expect("files are under the root");
        fs::create_dir_all(dir)
            .and_then(|()| fs::write(&path, &w.text))
            .map_err(|e| Failure::one(format!("cannot write {}: {e}", path.display())))?;
        println!("{} {}", if w.created { "created" } else { "updated" }, w.path.display());
    }
    let file = &writes[0].path;
    println!(
        "\nNext: fill in the TODOs of {}, add fixture cases to rules/tests/fixtures/{code}/, then\n  \
         INSTA_UPDATE=always cargo test -p spindle-rules --test fixtures   # and read the .snap diff\n  \
         cargo xtask docs                                                 # the README's rule table",
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The files `new-rule` writes, the rule's own file first; every problem with the arguments.
pub fn plan(root: &Path, code: &str, name: &str, category: &str) -> Result<Vec<Write>, Failure> {
    let src = root.join("rules/src");
    let lib_path = src.join("lib.rs");
    let lib = fs::read_to_string(&lib_path).map_err(|e| {
        Failure::one(format!("cannot read {}: {e} (is `--root` the repository?)", lib_path.display()))
    })?;
    let declared = declared_rules(&src).map_err(Failure::one)?;
    let module = name.replace('-', "_");
    let ident = module.to_ascii_uppercase();
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
    let edit_failed = |file: &str, e: String| Failure::one(format!("{file}: {e}; edit it by hand"));
    if existing_category {
        let mod_path = rel("mod.rs");
        let text = fs::read_to_string(root.join(&mod_path))
            .map_err(|e| Failure::one(format!("cannot read {}: {e}", mod_path.display())))?;
        let code_of = |ident: &str| {
            declared.iter().find(|d| d.category == category && d.ident == ident).map(|d| d.code.clone())
        };
        let text = register_in_category(&text, &module, &ident, code, code_of)
            .map_err(|e| edit_failed(&mod_path.display().to_string(), e))?;
        writes.push(Write { path: mod_path, text, created: false });
    } else {
        let text = register_category(&lib, category).map_err(|e| edit_failed("rules/src/lib.rs", e))?;
        writes.push(Write { path: rel("mod.rs"), text: category_mod(code, &module), created: true });
        writes.push(Write { path: "rules/src/lib.rs".into(), text, created: false });
    }
    let list_path = PathBuf::from("rules/tests/fixtures.rs");
    let list = fs::read_to_string(root.join(&list_path))
        .map_err(|e| Failure::one(format!("cannot read {}: {e}", list_path.display())))?;
    let list = register_fixture(&list, code).map_err(|e| edit_failed("rules/tests/fixtures.rs", e))?;
    writes.push(Write { path: list_path, text: list, created: false });
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
    Ok(writes)
}

/// `code` added to the `fixtures! { … }` list of rules/tests/fixtures.rs, which makes one test
/// per code: the list is rewritten in code order, one line per code prefix.
fn register_fixture(text: &str, code: &str) -> Result<String, String> {
    const OPEN: &str = "fixtures! {\n";
    let start = text.find(OPEN).ok_or("no `fixtures! {` list")? + OPEN.len();
    let end = start + text[start..].find("\n}").ok_or("the `fixtures!` list is not closed")? + 1;
    let mut codes: Vec<&str> =
        text[start..end].split(|c: char| c == ',' || c.is_whitespace()).filter(|c| !c.is_empty()).collect();
    codes.push(code);
    codes.sort_unstable();
    let mut body = String::new();
    for (i, c) in codes.iter().enumerate() {
        let same_prefix = i > 0 && codes[i - 1].get(..3) == c.get(..3);
        body.push_str(if same_prefix { " " } else { "    " });
        body.push_str(c);
        body.push(',');
        if codes.get(i + 1).is_none_or(|n| n.get(..3) != c.get(..3)) {
            body.push('\n');
        }
    }
    Ok(format!("{}{body}{}", &text[..start], &text[end..]))
}

/// The rules `declare_rule!` declares in the `.rs` files under `src` and its folders.
fn declared_rules(src: &Path) -> Result<Vec<Declared>, String> {
    let mut out = vec![];
    let mut files = vec![];
    for entry in read_dir(src)? {
        if entry.is_dir() {
            files.extend(read_dir(&entry)?.into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")));
        } else if entry.extension().is_some_and(|e| e == "rs") {
            files.push(entry);
        }
    }
    for file in files {
        let text = fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let category = file.parent().filter(|p| p != &src).and_then(|p| p.file_name());
        let category = category.map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        let rel = file.strip_prefix(src.parent().and_then(Path::parent).unwrap_or(src)).unwrap_or(&file);
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
                    file: rel.to_path_buf(),
                });
            }
        }
    }
    Ok(out)
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut out: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
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

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The rule's file: its doc comment with the four headings and TODOs, `needs` and `params` empty,
/// a check that reports nothing yet.
fn rule_file(code: &str, name: &str) -> String {
    let ident = name.replace('-', "_").to_ascii_uppercase();
    format!(
        r#"use spindle_core::declare_rule;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;

declare_rule! {{
    /// ## What it checks
    /// TODO: what passes and what is reported, on which facts, with the thresholds (and whether
    /// a value exactly at the limit passes), and when the rule is "not evaluated".
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
        summary: "TODO: one line on what passes, as the README's rule table shows it",
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

/// A new category's `mod.rs`, holding the one rule.
fn category_mod(code: &str, module: &str) -> String {
    let ident = module.to_ascii_uppercase();
    format!(
        "//! {}: TODO: one line on what the rules of this category look at.\n\nmod {module};\n\n\
         pub use {module}::{ident};\n\nuse spindle_core::rule::BuiltinRule;\n\n{}\n",
        &code[..3],
        rules_slice(std::slice::from_ref(&ident))
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

/// The `pub static RULES` statement laid out as rustfmt does with `max_width = 110` and
/// `use_small_heuristics = "Max"`: on one line, else the slice on the next line, else one rule
/// per line.
fn rules_slice(idents: &[String]) -> String {
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

/// The module a top-level `mod x;` line (of any visibility) declares.
fn mod_decl(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix("pub(") {
        Some(r) => r.split_once(") ")?.1,
        None => line.strip_prefix("pub ").unwrap_or(line),
    };
    let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
    name.chars().all(is_ident_char).then_some(name)
}

/// Inserts `new` among the sorted items of a group, before the first item `sorts_after` (or
/// after the last). An item is (first line, last line, key); attribute lines start items.
fn insert_sorted(
    lines: &mut Vec<String>,
    items: &[(usize, usize, String)],
    new: String,
    sorts_after: impl Fn(&str) -> bool,
) {
    let at = match items.iter().find(|(_, _, k)| sorts_after(k)) {
        Some((first, _, _)) => *first,
        None => items.last().map_or(lines.len(), |(_, last, _)| last + 1),
    };
    lines.insert(at, new);
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

/// The top-level `mod` declarations, each with the attribute lines above it.
fn mod_items(lines: &[String]) -> Vec<(usize, usize, String)> {
    let mut items = vec![];
    for (i, line) in lines.iter().enumerate() {
        if let Some(name) = mod_decl(line) {
            let mut first = i;
            while first > 0 && lines[first - 1].starts_with("#[") {
                first -= 1;
            }
            items.push((first, i, name.to_string()));
        }
    }
    items
}

fn split_lines(text: &str) -> Vec<String> {
    text.lines().map(String::from).collect()
}

fn join_lines(lines: &[String]) -> String {
    lines.join("\n") + "\n"
}

/// A category's `mod.rs` with the rule registered: its `mod` line and `pub use` line in sorted
/// order, its static in `RULES` in code order (`code_of` gives the codes of the others).
fn register_in_category(
    text: &str,
    module: &str,
    ident: &str,
    code: &str,
    code_of: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut lines = split_lines(text);
    let mods = mod_items(&lines);
    if mods.is_empty() {
        return Err("found no `mod` lines".into());
    }
    if mods.iter().any(|(_, _, m)| m == module) {
        return Err(format!("it already declares `mod {module}`"));
    }
    insert_sorted(&mut lines, &mods, format!("mod {module};"), |m| m > module);

    let uses: Vec<_> = (lines.iter().enumerate())
        .filter_map(|(i, l)| l.strip_prefix("pub use ").map(|u| (i, i, u.to_string())))
        .collect();
    if uses.is_empty() {
        return Err("found no `pub use` lines".into());
    }
    let path = format!("{module}::{ident}");
    let sorts_after = |u: &str| use_order(u.trim_end_matches(';'), &path).is_gt();
    insert_sorted(&mut lines, &uses, format!("pub use {path};"), sorts_after);

    let start =
        lines.iter().position(|l| l.starts_with(RULES_HEAD)).ok_or(format!("found no `{RULES_HEAD}`"))?;
    let end =
        (start..lines.len()).find(|&i| lines[i].trim_end().ends_with("];")).ok_or("`RULES` has no end")?;
    let statement = lines[start..=end].join("\n");
    let slice = statement[RULES_HEAD.len()..].trim().strip_prefix("&[").and_then(|s| s.strip_suffix("];"));
    let slice = slice.ok_or("`RULES` is not a `&[...]` slice")?;
    let mut idents: Vec<String> = slice
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.strip_prefix('&').unwrap_or(s).to_string())
        .collect();
    let at =
        idents.iter().position(|i| code_of(i).is_some_and(|c| c.as_str() > code)).unwrap_or(idents.len());
    idents.insert(at, ident.to_string());
    lines.splice(start..=end, split_lines(&rules_slice(&idents)));
    Ok(join_lines(&lines))
}

/// `rules/src/lib.rs` with a new category: `pub mod` among the modules, `RULES` in `all()`'s list,
/// both in sorted order.
fn register_category(lib: &str, category: &str) -> Result<String, String> {
    let mut lines = split_lines(lib);
    let mods = mod_items(&lines);
    if mods.is_empty() {
        return Err("found no `mod` lines".into());
    }
    insert_sorted(&mut lines, &mods, format!("pub mod {category};"), |m| m > category);
    let entries: Vec<_> = (lines.iter().enumerate())
        .filter_map(|(i, l)| {
            let cat = l.trim().strip_suffix("::RULES,")?;
            cat.chars().all(is_ident_char).then(|| (i, i, cat.to_string()))
        })
        .collect();
    let Some((first, _, _)) = entries.first() else {
        return Err("found no `<category>::RULES,` lines in `all()`".into());
    };
    let indent: String = lines[*first].chars().take_while(|c| c.is_whitespace()).collect();
    insert_sorted(&mut lines, &entries, format!("{indent}{category}::RULES,"), |c| c > category);
    Ok(join_lines(&lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(idents: &[&str]) -> Vec<String> {
        idents.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fixture_list_stays_in_code_order() {
        let text = "x\nfixtures! {\n    ALN001, ALN002,\n    CAP001,\n}\n\nfn root() {}\n";
        assert_eq!(
            register_fixture(text, "ALN003").unwrap(),
            "x\nfixtures! {\n    ALN001, ALN002, ALN003,\n    CAP001,\n}\n\nfn root() {}\n"
        );
        assert_eq!(
            register_fixture(text, "BAK001").unwrap(),
            "x\nfixtures! {\n    ALN001, ALN002,\n    BAK001,\n    CAP001,\n}\n\nfn root() {}\n"
        );
        assert!(register_fixture("fn x() {}", "ALN003").is_err());
    }

    #[test]
    fn rules_slice_layouts() {
        assert_eq!(rules_slice(&strings(&["A", "B"])), "pub static RULES: &[&BuiltinRule] = &[&A, &B];");
        let long = strings(&[
            "ALLOCATION_UNIT_SIZE",
            "VOLUME_COMPRESSION",
            "FILESYSTEM_TYPE",
            "LINUX_MOUNT_OPTIONS",
        ]);
        assert_eq!(
            rules_slice(&long),
            "pub static RULES: &[&BuiltinRule] =\n    \
             &[&ALLOCATION_UNIT_SIZE, &VOLUME_COMPRESSION, &FILESYSTEM_TYPE, &LINUX_MOUNT_OPTIONS];"
        );
        let longer = strings(&[
            "PARTITION_OFFSET_ALIGNMENT",
            "OFFSET_STRIPE_UNIT",
            "STRIPE_UNIT_ALLOCATION_UNIT",
            "PHYSICAL_SECTOR_ALIGNMENT",
        ]);
        assert_eq!(
            rules_slice(&longer),
            "pub static RULES: &[&BuiltinRule] = &[\n    &PARTITION_OFFSET_ALIGNMENT,\n    \
             &OFFSET_STRIPE_UNIT,\n    &STRIPE_UNIT_ALLOCATION_UNIT,\n    &PHYSICAL_SECTOR_ALIGNMENT,\n];"
        );
    }

    const GROWTH: &str = "//! GRW: how database files grow.

mod growth_increment;
#[cfg(test)]
mod testutil;
pub(crate) mod tsql;

pub use growth_increment::GROWTH_INCREMENT;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&GROWTH_INCREMENT];
";

    #[test]
    fn registers_in_sorted_and_code_order() {
        let code_of = |i: &str| (i == "GROWTH_INCREMENT").then(|| "GRW002".to_string());
        // Before the attributed `testutil`, and before GRW002 in `RULES`.
        let out = register_in_category(GROWTH, "size_check", "SIZE_CHECK", "GRW001", code_of).unwrap();
        assert_eq!(
            out,
            "//! GRW: how database files grow.

mod growth_increment;
mod size_check;
#[cfg(test)]
mod testutil;
pub(crate) mod tsql;

pub use growth_increment::GROWTH_INCREMENT;
pub use size_check::SIZE_CHECK;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&SIZE_CHECK, &GROWTH_INCREMENT];
"
        );
        // After the last `mod` (past a `pub(crate)` one) and after the last rule.
        let out = register_in_category(GROWTH, "zeroing", "ZEROING", "GRW009", code_of).unwrap();
        assert!(out.contains("pub(crate) mod tsql;\nmod zeroing;\n\npub use"), "{out}");
        assert!(out.contains("pub use growth_increment::GROWTH_INCREMENT;\npub use zeroing::ZEROING;\n"));
        assert!(out.contains("= &[&GROWTH_INCREMENT, &ZEROING];\n"), "{out}");
        // First of all.
        let out = register_in_category(GROWTH, "a_check", "A_CHECK", "GRW009", code_of).unwrap();
        assert!(out.contains("\n\nmod a_check;\nmod growth_increment;\n"), "{out}");
        assert!(
            register_in_category(GROWTH, "tsql", "TSQL", "GRW009", code_of).unwrap_err().contains("tsql")
        );
        assert!(register_in_category("//! x\n", "a", "A", "GRW001", code_of).is_err());
    }

    #[test]
    fn registers_a_category() {
        let lib = "//! x\n\npub mod alignment;\nmod straddle;\npub mod striping;\n\n\
                   fn all() {\n    [\n        alignment::RULES,\n        striping::RULES,\n    ]\n}\n";
        assert_eq!(
            register_category(lib, "quota").unwrap(),
            "//! x\n\npub mod alignment;\npub mod quota;\nmod straddle;\npub mod striping;\n\n\
             fn all() {\n    [\n        alignment::RULES,\n        quota::RULES,\n        striping::RULES,\n    ]\n}\n"
        );
        assert!(register_category("pub mod a;\n", "b").unwrap_err().contains("RULES"));
    }

    #[test]
    fn new_category_mod() {
        assert_eq!(
            category_mod("QUO001", "quota_headroom"),
            "//! QUO: TODO: one line on what the rules of this category look at.

mod quota_headroom;

pub use quota_headroom::QUOTA_HEADROOM;

use spindle_core::rule::BuiltinRule;

pub static RULES: &[&BuiltinRule] = &[&QUOTA_HEADROOM];
"
        );
    }

    #[test]
    fn use_paths_in_rustfmt_order() {
        let mut paths = vec!["logfree::A", "log10::A", "log2::A", "log_free::B", "log_free::A", "log::A"];
        paths.sort_by(|a, b| use_order(a, b));
        assert_eq!(paths, ["log::A", "log_free::A", "log_free::B", "log2::A", "log10::A", "logfree::A"]);
    }

    #[test]
    fn reads_declarations() {
        let text = "declare_rule! {\n    /// ## What it checks\n    pub static SOME_RULE = {\n        \
                    code: \"ABC001\",\n        name: \"some-rule\",\n";
        assert_eq!(quoted(text, "code:"), Some("ABC001"));
        assert_eq!(quoted(text, "name:"), Some("some-rule"));
        assert_eq!(mod_decl("pub(crate) mod db_volumes;"), Some("db_volumes"));
        assert_eq!(mod_decl("mod tests {"), None);
        assert_eq!(mod_decl("    mod inner;"), None);
    }
}
