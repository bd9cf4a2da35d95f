//! The function-length half of `cargo xtask check-arch`: no function of the code that ships
//! (library and binary targets, test items aside) runs over [`MAX_LINES`] lines, from its `fn`
//! line to its closing brace, unless its doc comment says why in a line that starts with
//! `Long because`. A long function hides its steps; the few that read best whole (one match over
//! a schema, say) carry their reason where the next reader looks first.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::modules::{code_targets, read_crate};

/// The most lines a function may take without a reason.
pub const MAX_LINES: usize = 100;

/// What a doc comment line starts with (after `///`) to keep a long function whole.
pub const REASON: &str = "Long because";

/// Every long function without a reason in the workspace of `metadata`, one message each.
pub fn long_functions(metadata: &Value) -> Vec<String> {
    let root = Path::new(metadata["workspace_root"].as_str().unwrap_or_default());
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut problems = vec![];
    for (name, src) in code_targets(metadata) {
        let c = match read_crate(&name, &src) {
            Ok(c) => c,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        for m in c.modules.values() {
            if !seen.insert(m.file.clone()) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&m.file) else { continue };
            let file = m.file.strip_prefix(root).unwrap_or(&m.file);
            for f in unexplained(&m.code, &text) {
                problems.push(format!(
                    "{}:{}: `fn {}` is {} lines, over {MAX_LINES}: split it into named steps, or \
                     say why it reads best whole in a `/// {REASON} ...` line of its doc comment",
                    file.display(),
                    f.line,
                    f.name,
                    f.lines
                ));
            }
        }
    }
    problems
}

/// A function of a file: its name, the line of its `fn` (1-based) and how many lines it takes.
#[derive(Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// The functions of `code` (lexed: comments gone, literals emptied, newlines kept) over
/// [`MAX_LINES`] whose doc comment in `text` (the same file as written) gives no reason.
pub fn unexplained(code: &str, text: &str) -> Vec<Function> {
    let source: Vec<&str> = text.lines().collect();
    functions(code).into_iter().filter(|f| f.lines > MAX_LINES && !has_reason(&source, f.line)).collect()
}

/// Every function with a body in `code`, nested ones included.
pub fn functions(code: &str) -> Vec<Function> {
    let b = code.as_bytes();
    let mut out = vec![];
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = code[at + 3..].trim_start();
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue; // a `fn(...)` pointer type
        }
        let Some(open) = body_start(b, at + 3) else { continue };
        let Some(close) = matching_brace(b, open) else { continue };
        let line = line_of(code, at);
        out.push(Function { name, line, lines: line_of(code, close) - line + 1 });
    }
    out
}

/// The `{` that opens the body of the signature starting at `from`, or `None` for a
/// declaration without one (`fn f();` in a trait).
fn body_start(b: &[u8], from: usize) -> Option<usize> {
    let mut parens = 0usize;
    for (i, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => parens += 1,
            b')' | b']' => parens = parens.saturating_sub(1),
            b';' if parens == 0 => return None,
            b'{' if parens == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

fn matching_brace(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn line_of(code: &str, at: usize) -> usize {
    code.as_bytes()[..at].iter().filter(|&&c| c == b'\n').count() + 1
}

/// Whether the doc comment above line `fn_line` (1-based; attributes may sit between) has a
/// line starting with [`REASON`].
fn has_reason(source: &[&str], fn_line: usize) -> bool {
    source[..fn_line.saturating_sub(1).min(source.len())]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("///") || l.starts_with("#["))
        .any(|l| l.trim_start_matches('/').trim_start().starts_with(REASON))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(n: usize) -> String {
        "    step();\n".repeat(n)
    }

    #[test]
    fn counts_from_the_fn_line_to_the_closing_brace() {
        let code = format!("fn short() {{\n{}}}\n\nfn long() {{\n{}}}\n", body(98), body(99));
        let found = functions(&code);
        assert_eq!(found[0], Function { name: "short".into(), line: 1, lines: 100 });
        assert_eq!(found[1], Function { name: "long".into(), line: 102, lines: 101 });
        let names: Vec<_> = unexplained(&code, &code).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["long"]);
    }

    #[test]
    fn a_reason_in_the_doc_comment_keeps_a_long_function_whole() {
        let text = format!(
            "/// Renders the table.\n///\n/// Long because it is one match over the schema.\n\
             #[must_use]\npub fn long() -> u8 {{\n{}}}\n",
            body(120)
        );
        assert!(unexplained(&text, &text).is_empty());
        let without = text.replace("Long because", "Longer since");
        assert_eq!(unexplained(&without, &without).len(), 1);
    }

    #[test]
    fn declarations_and_pointer_types_are_not_functions() {
        let code = "trait T { fn f(&self); }\nstruct S { build: fn(u8) -> u8 }\nfn g() {}\n";
        let names: Vec<_> = functions(code).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["g"]);
    }
}
