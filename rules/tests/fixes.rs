//! Fixes are written for the server in question: its drive letters and mount points, its
//! database and logical file names, quoted so that a hostile name (quotes, brackets, spaces,
//! `$(…)`, non-ASCII) stays a name. Two tests:
//!
//! - every case in `tests/fixes/` runs through every builtin rule, and each finding's fix is
//!   compared with `<case>.snap` beside it (`INSTA_UPDATE=always cargo test -p spindle-rules
//!   --test fixes`, then read the diff);
//! - every fix of every rule fixture, fix case and bundled example is checked: it names only
//!   this host's drive letters (the entity's own when it has a volume), quotes every T-SQL name
//!   and string and every PowerShell argument it passes, unquotes to a name the server has, and
//!   cites no internal note.

use std::fs;
use std::path::{Path, PathBuf};

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::finding::Finding;
use spindle_core::load::parse_snapshot;
use spindle_core::view::HostView;
use spindle_test_support::citations::internal_citation;

fn run_all(files: &[PathBuf]) -> (HostView, HostReport) {
    let rules = spindle_rules::all();
    let active: Vec<ActiveRule<'_>> = rules.iter().map(|r| ActiveRule::at_defaults(*r)).collect();
    let docs = files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(f).unwrap();
            parse_snapshot(&f.display().to_string(), text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    let view = HostView::build(docs, Declarations::default());
    let report = check_host(&active, &view, &[], Date::parse("2026-01-01").unwrap());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    (view, report)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn hostile_names_give_fixes_for_this_server() {
    let dir = root().join("tests/fixes");
    let cases = json_files(&dir);
    assert!(cases.len() >= 2, "{}: expected the hostile cases", dir.display());
    for case in &cases {
        let (_, report) = run_all(std::slice::from_ref(case));
        let mut out = String::new();
        for f in &report.findings {
            out.push_str(&format!("{} {}\n", f.code, f.entity.label));
            for line in f.fix.lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        for n in report
            .not_evaluated
            .iter()
            .filter(|n| n.reason.as_deref().is_some_and(|r| r.contains("[[declare")))
        {
            let label = n.entity.as_ref().map_or("", |e| e.label.as_str());
            out.push_str(&format!("not-evaluated {} {label}\n", n.code));
            for line in n.reason.as_deref().unwrap_or_default().lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        let name = case.file_stem().unwrap().to_str().unwrap().to_string();
        insta::with_settings!({
            snapshot_path => dir.clone(),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name.as_str(), out);
        });
    }
}

/// Every host the tests know: each rule fixture, each fix case, each bundled example (its
/// files merged, as `spindle check DIR` merges them).
fn every_host() -> Vec<Vec<PathBuf>> {
    let mut hosts = vec![];
    for dir in json_dirs(&root().join("tests/fixtures")) {
        hosts.extend(json_files(&dir).into_iter().map(|f| vec![f]));
    }
    hosts.extend(json_files(&root().join("tests/fixes")).into_iter().map(|f| vec![f]));
    for dir in json_dirs(&root().join("../examples")) {
        let files = json_files(&dir);
        if !files.is_empty() {
            hosts.push(files);
        }
    }
    hosts
}

fn json_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

#[test]
fn every_fix_names_this_server_and_quotes_what_it_names() {
    let mut checked = 0;
    let mut failures = vec![];
    for files in every_host() {
        let (view, report) = run_all(&files);
        // The snapshots' strings as the server has them (JSON writes `\\` for `\`).
        let text: String =
            files.iter().map(|f| fs::read_to_string(f).unwrap().replace(r"\\", r"\")).collect();
        for f in &report.findings {
            checked += 1;
            if let Err(why) = check_fix(&view, &text, f) {
                failures.push(format!(
                    "{} {} ({}): {why}\n{}",
                    f.code,
                    f.entity.label,
                    files[0].display(),
                    f.fix
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} fixes checked");
    assert!(failures.is_empty(), "{} fixes wrong:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// The names the rules' docs use as examples: a fix that prints one the snapshot does not have
/// talks about another server.
const DOC_EXAMPLES: &[&str] =
    &["Sales", "sql01", "SQLPool", "SQLData2", r"\SQLLogs\", r"T:\TempDB", "db_log"];

fn check_fix(view: &HostView, snapshot_text: &str, f: &Finding) -> Result<(), String> {
    let fix = &f.fix;
    if let Some(c) = internal_citation(fix) {
        return Err(format!("cites an internal note: {c}"));
    }
    for example in DOC_EXAMPLES {
        if fix.contains(example) && !snapshot_text.contains(example) {
            return Err(format!("names {example}, which this server does not have"));
        }
    }
    // Drive letters: the entity's volume's, else any of the host's.
    let letters = letters_for(view, f);
    for pattern in ["-DriveLetter ", "LogicalDisk(", "assign letter=", "volumeinfo "] {
        for (at, _) in fix.match_indices(pattern) {
            let c = fix[at + pattern.len()..].chars().next().unwrap_or(' ');
            if c != '*' && !letters.contains(&c.to_ascii_uppercase()) {
                return Err(format!(
                    "drive letter {c} after `{pattern}`: this entity's volumes are {letters:?}"
                ));
            }
        }
    }
    // T-SQL: names in brackets, strings as N'…', each unquoting to a name of this server.
    let databases: Vec<&str> = view.databases.iter().map(|d| d.db.name.as_str()).collect();
    let logical: Vec<&str> = view.files().map(|(_, f)| f.logical_name.as_str()).collect();
    for (pattern, names) in
        [("ALTER DATABASE ", &databases), ("USE ", &databases), ("REMOVE FILE ", &logical)]
    {
        for (at, _) in fix.match_indices(pattern) {
            let rest = &fix[at + pattern.len()..];
            let name =
                bracketed(rest).ok_or_else(|| format!("`{pattern}` not followed by a [quoted] name"))?;
            if !names.contains(&name.as_str()) {
                return Err(format!("`{pattern}{name}` unquotes to no name of this server"));
            }
        }
    }
    // A file being added has a new name; every other name is one the server has.
    let patterns = [
        ("MODIFY FILE (NAME = ", Some(&logical)),
        ("ADD FILE (NAME = ", None),
        ("DB_ID(", Some(&databases)),
        ("FILENAME = ", None),
        ("SHRINKFILE (", Some(&logical)),
    ];
    for (pattern, names) in patterns {
        for (at, _) in fix.match_indices(pattern) {
            let rest = &fix[at + pattern.len()..];
            if pattern == "SHRINKFILE (" && rest.starts_with(|c: char| c.is_ascii_digit()) {
                continue; // by file_id
            }
            let s = n_string(rest).ok_or_else(|| format!("`{pattern}` not followed by an N'string'"))?;
            if let Some(names) = names
                && !names.contains(&s.as_str())
            {
                return Err(format!("`{pattern}N'{s}'` unquotes to no name of this server"));
            }
        }
    }
    // PowerShell: what a cmdlet is given by name is in single quotes.
    for pattern in [
        "-FriendlyName ",
        "-StoragePoolFriendlyName ",
        "-Path ",
        "-FilePath ",
        "-ComputerName ",
        "-AccessPath ",
    ] {
        for (at, _) in fix.match_indices(pattern) {
            let rest = &fix[at + pattern.len()..];
            single_quoted(rest).ok_or_else(|| format!("`{pattern}` not followed by a 'quoted' argument"))?;
        }
    }
    Ok(())
}

/// The drive letters the fix of `f` may name.
fn letters_for(view: &HostView, f: &Finding) -> Vec<char> {
    let letter = |v: &spindle_core::facts::Volume| -> Vec<char> {
        v.mount_points
            .iter()
            .filter(|m| m.len() <= 3 && m.as_bytes().get(1) == Some(&b':'))
            .filter_map(|m| m.chars().next())
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    let key = &f.entity.key;
    let volumes = view.volumes.iter().flatten();
    if let Some(v) = volumes.clone().find(|v| &v.key == key) {
        return letter(v);
    }
    if let Some((_, file)) = view.files().find(|(_, file)| &file.key == key)
        && let Ok(v) = view.volume_of_file(file)
    {
        return letter(v);
    }
    if let Some(p) = view.partitions.iter().flatten().find(|p| &p.key == key) {
        return volumes
            .filter(|v| view.partitions_of_volume(v).iter().any(|q| q.key == p.key))
            .flat_map(|v| letter(v))
            .collect();
    }
    volumes.flat_map(|v| letter(v)).collect()
}

/// `[a]]b] …` → `a]b`.
fn bracketed(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('[')?.chars().peekable();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        if c == ']' {
            if chars.peek() == Some(&']') {
                chars.next();
            } else {
                return Some(out);
            }
        }
        out.push(c);
    }
    None
}

/// `N'it''s' …` → `it's`.
fn n_string(s: &str) -> Option<String> {
    quoted(s.strip_prefix("N'")?, &['\''])
}

/// `'a''b' …` → `a'b`; PowerShell takes the typographic single quotes as quotes too.
fn single_quoted(s: &str) -> Option<String> {
    quoted(
        s.strip_prefix(['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'])?,
        &['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'],
    )
}

fn quoted(s: &str, quotes: &[char]) -> Option<String> {
    let mut chars = s.chars().peekable();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        if quotes.contains(&c) {
            if chars.peek().is_some_and(|n| quotes.contains(n)) {
                chars.next();
            } else {
                return Some(out);
            }
        }
        out.push(c);
    }
    None
}

#[test]
fn the_unquoting_helpers_unquote() {
    assert_eq!(bracketed("[a]]b] MODIFY").as_deref(), Some("a]b"));
    assert_eq!(bracketed("a]"), None);
    assert_eq!(n_string("N'it''s', x").as_deref(), Some("it's"));
    assert_eq!(n_string("'x'"), None);
    assert_eq!(single_quoted("'Pool ''A'' ‘‘x’’' -x").as_deref(), Some("Pool 'A' ‘x’"));
    assert_eq!(single_quoted("\"x\""), None);
}
