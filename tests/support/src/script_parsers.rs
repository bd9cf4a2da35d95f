//! The real parsers `spindle plan`'s scripts are held to: `shellcheck` for the shell script,
//! sqlfluff (T-SQL dialect) for the T-SQL, and the tree-sitter PowerShell grammar for the
//! PowerShell script. scripts/install-test-tools.sh installs shellcheck with apt and the other
//! two, pinned, in a venv under `target/test-tools/parsers`. Under CI (`CI` set) a missing one
//! fails the test; elsewhere the test says what it skipped.

use std::path::PathBuf;
use std::process::Command;

fn venv(bin: &str) -> Option<PathBuf> {
    crate::consumers::test_tool(&format!("parsers/bin/{bin}"))
}

/// A file holding `text`, removed when dropped.
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn temp(name: &str, text: &str) -> (Temp, PathBuf) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("spindle-{}-{n}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    (Temp(path.clone()), path)
}

/// `shellcheck -s sh` on `script`: `Err` with its report when it finds anything (every
/// severity, style included). `None` when skipped.
pub fn shellcheck(script: &str) -> Option<Result<(), String>> {
    let tool = crate::renderers::tool_or_skip("shellcheck", "shellcheck")?;
    let (_dir, path) = temp("plan.sh", script);
    let out = Command::new(tool).args(["-s", "sh", "-S", "style"]).arg(&path).output().unwrap();
    Some(if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stdout).into_owned()) })
}

/// sqlfluff's T-SQL parser on `sql`: `Err` with what it could not parse. `None` when skipped.
///
/// sqlfluff 4.5.0's T-SQL grammar gives `ALTER DATABASE … REMOVE FILE` a segment it does not
/// define (`Ref("LiteralSegment")` in dialect_tsql.py), so it crashes on every such statement,
/// however it is written. Those statements (whole lines) are taken out before sqlfluff parses
/// the rest, and each is held instead to the exact form the plan writes:
/// `ALTER DATABASE [db] REMOVE FILE [file];`, both names bracketed with `]` doubled inside.
pub fn sqlfluff(sql: &str) -> Option<Result<(), String>> {
    let tool = venv("sqlfluff")?;
    let mut rest = String::with_capacity(sql.len());
    for line in sql.lines() {
        // sqlcmd's own commands are not T-SQL; the plan writes only this one.
        if line.starts_with(':') {
            if line != ":on error exit" {
                return Some(Err(format!("a sqlcmd command other than `:on error exit`: {line}")));
            }
            rest.push_str("-- (:on error exit)\n");
        } else if line.contains(" REMOVE FILE ") && !line.trim_start().starts_with("--") {
            if !is_remove_file(line) {
                return Some(Err(format!("not a well-quoted REMOVE FILE statement: {line}")));
            }
            rest.push_str("-- (REMOVE FILE checked apart)\n");
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    let (_file, path) = temp("plan.sql", &rest);
    let out =
        Command::new(tool).args(["parse", "--dialect", "tsql", "--nofail"]).arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // `parse` prints the tree; what it could not parse is an `unparsable` node, and a lexing or
    // parsing violation is listed after the tree.
    let bad = !out.status.success()
        || text.contains("unparsable")
        || text.contains("==== parsing violations ====")
        || !out.stderr.is_empty() && String::from_utf8_lossy(&out.stderr).contains("Traceback");
    Some(if bad { Err(format!("{text}{}", String::from_utf8_lossy(&out.stderr))) } else { Ok(()) })
}

/// `ALTER DATABASE [db] REMOVE FILE [file];` with both names bracketed as QUOTENAME writes them.
fn is_remove_file(line: &str) -> bool {
    /// What follows a bracketed name at the start of `s`.
    fn bracketed(s: &str) -> Option<&str> {
        let body = s.strip_prefix('[')?;
        let mut iter = body.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            if c == ']' {
                if iter.peek().is_some_and(|&(_, n)| n == ']') {
                    iter.next();
                    continue;
                }
                return Some(&body[i + 1..]);
            }
        }
        None
    }
    let Some(rest) = line.trim().strip_prefix("ALTER DATABASE ") else { return false };
    let Some(rest) = bracketed(rest) else { return false };
    let Some(rest) = rest.strip_prefix(" REMOVE FILE ") else { return false };
    bracketed(rest) == Some(";")
}

const PS_PARSE: &str = r#"
import sys, tree_sitter, tree_sitter_powershell
parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))
tree = parser.parse(open(sys.argv[1], "rb").read())
bad, stack = [], [tree.root_node]
while stack:
    n = stack.pop()
    if n.is_error or n.is_missing:
        bad.append(f"{n.start_point[0] + 1}:{n.start_point[1] + 1}: {'ERROR' if n.is_error else 'MISSING ' + n.type}")
    stack.extend(n.children)
print("\n".join(sorted(bad)))
sys.exit(1 if bad else 0)
"#;

/// The tree-sitter PowerShell grammar on `script`: `Err` listing every ERROR or MISSING node
/// with its line and column. `None` when skipped.
pub fn powershell(script: &str) -> Option<Result<(), String>> {
    let python = venv("python")?;
    let (_dir, path) = temp("plan.ps1", script);
    let out = Command::new(python).args(["-c", PS_PARSE]).arg(&path).output().unwrap();
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    })
}

/// Reads `bytes` as Windows PowerShell 5.1 reads a script file: UTF-8 after a UTF-8 byte order
/// mark, else Windows-1252 (the bytes cp1252 leaves undefined as the same code points), with
/// the typographic quotes PowerShell takes as quote marks (‘ ’ ‚ ‛ and “ ” „) made ASCII for the
/// grammar. Then the tree-sitter grammar: `Err` with every ERROR or MISSING node, and every
/// `$(…)` subexpression outside a double-quoted string (a name that escaped its quotes and
/// became code). `None` when skipped.
pub fn powershell_as_5_1_reads(bytes: &[u8]) -> Option<Result<(), String>> {
    let python = venv("python")?;
    let text: String = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => String::from_utf8_lossy(rest).into_owned(),
        None => bytes.iter().map(|&b| cp1252(b)).collect(),
    };
    let text: String = text
        .chars()
        .map(|c| match c {
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201E}' => '"',
            c => c,
        })
        .collect();
    let (_dir, path) = temp("plan51.ps1", &text);
    let script = format!(
        "{PS_PARSE_TREE}\nfor n in subs_outside_strings(tree.root_node):\n    bad.append(f\"{{n.start_point[0] + 1}}:{{n.start_point[1] + 1}}: subexpression outside a string\")\nprint(\"\\n\".join(sorted(bad)))\nsys.exit(1 if bad else 0)\n"
    );
    let out = Command::new(python).args(["-c", &script]).arg(&path).output().unwrap();
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    })
}

const PS_PARSE_TREE: &str = r#"
import sys, tree_sitter, tree_sitter_powershell
parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))
tree = parser.parse(open(sys.argv[1], "rb").read())
bad, stack = [], [tree.root_node]
while stack:
    n = stack.pop()
    if n.is_error or n.is_missing:
        bad.append(f"{n.start_point[0] + 1}:{n.start_point[1] + 1}: {'ERROR' if n.is_error else 'MISSING ' + n.type}")
    stack.extend(n.children)
def subs_outside_strings(root):
    stack = [(root, False)]
    while stack:
        n, in_string = stack.pop()
        if n.type == "sub_expression" and not in_string:
            yield n
        for c in n.children:
            stack.append((c, in_string or n.type == "expandable_string_literal"))
"#;

/// Windows-1252 as .NET's `Encoding.Default` decodes it on a Western Windows.
fn cp1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
        '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}
