//! The module-circle half of `cargo xtask check-arch`: inside every crate of the workspace, no
//! two sibling modules may depend on each other, directly or round a longer loop. A circle is
//! where a crate stops having a seam: neither side can be read, tested or split off alone
//! (`engine → rule → view → engine` kept `spindle-core` in one piece).
//!
//! The check reads the sources, not the compiler's view: for each library and binary target it
//! follows `mod` declarations from the crate root, drops comments, string contents and
//! `#[cfg(test)]` items (a test module may use anything), and collects every path that starts
//! with `crate`, `$crate`, `super` or `self`, `use` groups expanded. Each path is resolved
//! module by module, through `pub use` re-exports and `#[macro_export]` macros to where the item
//! is defined. A reference from inside sibling A to inside sibling B is an edge A → B of their
//! common parent; every strongly connected set of more than one sibling is a circle, reported
//! with one reference per edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A module by its path from the crate root (`[]` is the root, `["pack", "parse"]`).
type ModPath = Vec<String>;

/// One crate target's modules: each module's code (comments and test items removed) and file.
pub(crate) struct Crate {
    name: String,
    pub(crate) modules: BTreeMap<ModPath, Module>,
    /// `#[macro_export]` macros live at the crate root by name; where each is defined.
    macros: BTreeMap<String, ModPath>,
}

pub(crate) struct Module {
    pub(crate) file: PathBuf,
    /// Comments and test items removed, string contents emptied, every newline kept.
    pub(crate) code: String,
}

/// A reference from one module's code to another module, at a line of its file.
struct Reference {
    target: ModPath,
    line: usize,
}

/// Every module circle in the workspace whose `cargo metadata` is `metadata`, one message each.
pub fn circles(metadata: &Value) -> Vec<String> {
    let root = Path::new(metadata["workspace_root"].as_str().unwrap_or_default());
    let mut problems = vec![];
    for (name, src) in code_targets(metadata) {
        match read_crate(&name, &src) {
            Ok(c) => problems.extend(crate_circles(&c, root)),
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    problems
}

/// The workspace's library and binary targets, each as a name (`spindle-core (lib)`) and its
/// root file: the code that ships, as opposed to tests, benches and examples.
pub(crate) fn code_targets(metadata: &Value) -> Vec<(String, PathBuf)> {
    let mut out = vec![];
    for package in metadata["packages"].as_array().into_iter().flatten() {
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds = target["kind"].as_array().into_iter().flatten().filter_map(Value::as_str);
            if !kinds.clone().any(|k| matches!(k, "lib" | "rlib" | "bin" | "proc-macro")) {
                continue;
            }
            let Some(src) = target["src_path"].as_str() else { continue };
            let name = format!(
                "{} ({})",
                target["name"].as_str().unwrap_or("?"),
                kinds.collect::<Vec<_>>().join(",")
            );
            out.push((name, PathBuf::from(src)));
        }
    }
    out
}

pub(crate) fn read_crate(name: &str, root: &Path) -> Result<Crate, String> {
    let mut c = Crate { name: name.to_string(), modules: BTreeMap::new(), macros: BTreeMap::new() };
    let mut pending = vec![(ModPath::new(), root.to_path_buf())];
    while let Some((path, file)) = pending.pop() {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let code = strip_tests(&lex(&text));
        for child in child_modules(&code) {
            let child_file = child_file(&file, path.is_empty(), &child)
                .ok_or_else(|| format!("{}: no file for `mod {child};`", file.display()))?;
            let mut child_path = path.clone();
            child_path.push(child);
            pending.push((child_path, child_file));
        }
        for m in exported_macros(&code) {
            c.macros.insert(m, path.clone());
        }
        c.modules.insert(path, Module { file, code });
    }
    Ok(c)
}

/// The file of `mod child;` declared in `parent`: beside a crate root or `mod.rs`, else in the
/// folder named for the parent file.
fn child_file(parent: &Path, is_root: bool, child: &str) -> Option<PathBuf> {
    let dir = parent.parent()?;
    let base = if is_root || parent.file_name()? == "mod.rs" {
        dir.to_path_buf()
    } else {
        dir.join(parent.file_stem()?)
    };
    [base.join(format!("{child}.rs")), base.join(child).join("mod.rs")].into_iter().find(|p| p.is_file())
}

/// The source with comments removed and string and character literals emptied, newlines kept
/// so that byte offsets still give the right line.
fn lex(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newlines = |out: &mut String, s: &[u8]| {
        out.extend(s.iter().filter(|&&c| c == b'\n').map(|_| '\n'));
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                keep_newlines(&mut out, &b[start..i.min(b.len())]);
            }
            b'r' if (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
                && !b[..i].last().is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let start = i;
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i = (i + close.len()).min(b.len());
                out.push_str("\"\"");
                keep_newlines(&mut out, &b[start..i]);
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push_str("\"\"");
                keep_newlines(&mut out, &b[start..i]);
            }
            // A character literal ('x', '\n', '"'), not a lifetime ('a).
            b'\'' if b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'') => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push_str("' '");
            }
            _ => {
                // Copy one whole character (the text is UTF-8).
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    out
}

/// `code` with every `#[cfg(test)]` item blanked out (its newlines kept): a test module may
/// reach anywhere.
fn strip_tests(code: &str) -> String {
    const ATTR: &str = "#[cfg(test)]";
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find(ATTR).map(|p| p + from) {
        let b = out.as_bytes();
        let mut i = at + ATTR.len();
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b';' if depth == 0 => {
                    i += 1;
                    break;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let blank: String = out[at..i].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        out.replace_range(at..i, &blank);
        from = at + blank.len();
    }
    out
}

/// The modules `code` declares in files of their own (`mod x;`, `pub(crate) mod x;`).
fn child_modules(code: &str) -> Vec<String> {
    let mut out = vec![];
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && code.as_bytes()[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && rest[name.len()..].trim_start().starts_with(';') {
            out.push(name);
        }
    }
    out
}

/// Names of the `#[macro_export]` macros defined in `code`.
fn exported_macros(code: &str) -> Vec<String> {
    let mut out = vec![];
    for (at, _) in code.match_indices("#[macro_export]") {
        let rest = &code[at..];
        if let Some(m) = rest.find("macro_rules!") {
            let name: String = rest[m + 12..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// Every `use` path in `code`, groups expanded, with the byte offset of its statement and
/// whether it is a re-export (`pub` or `pub(...)`), and the name it binds.
fn use_paths(code: &str) -> Vec<(usize, bool, Vec<String>, String)> {
    let mut out = vec![];
    let b = code.as_bytes();
    for (at, _) in code.match_indices("use ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let Some(end) = code[at..].find(';') else { continue };
        let before = code[..at].trim_end();
        let public = ["pub", "pub(crate)", "pub(super)"].iter().any(|v| before.ends_with(v));
        let tree = &code[at + 4..at + end];
        let mut paths = vec![];
        expand(tree.trim(), &[], &mut paths);
        for (path, bound) in paths {
            out.push((at, public, path, bound));
        }
    }
    out
}

/// Expands one use tree (`a::{b, c::d as e, self}`) after `prefix` into paths and the names
/// they bind.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> =
            tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut base = prefix.to_vec();
        base.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], &base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &base, out);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p, Some(a.trim())),
        None => (tree, None),
    };
    let mut full = prefix.to_vec();
    for seg in path.split("::").map(str::trim).filter(|s| !s.is_empty()) {
        if seg == "self" && !full.is_empty() {
            continue;
        }
        full.push(seg.to_string());
    }
    let bound = alias.map(str::to_string).or_else(|| full.last().cloned()).unwrap_or_default();
    if bound != "*" {
        out.push((full, bound));
    }
}

/// Every other path expression of `code` that starts at `crate`, `$crate`, `super` or `self`.
fn expression_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = vec![];
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts =
            ["$crate::", "crate::", "super::", "self::"].into_iter().find(|p| code[i..].starts_with(p));
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'$');
        if let (Some(_), true) = (starts, boundary) {
            let end = code[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '$'))
                .map_or(b.len(), |e| i + e);
            let segs: Vec<String> =
                code[i..end].split("::").filter(|s| !s.is_empty()).map(|s| s.replace('$', "")).collect();
            out.push((i, segs));
            i = end;
        } else {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

impl Crate {
    /// The module a path written in `from` ends in: its modules walked, then a re-export or an
    /// exported macro followed to where the item is defined.
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 8 {
            return None;
        }
        let mut at: ModPath;
        let mut segs = path.iter().peekable();
        match segs.peek().map(|s| s.as_str()) {
            Some("crate") => {
                at = vec![];
                segs.next();
            }
            Some("self") => {
                at = from.clone();
                segs.next();
            }
            Some("super") => {
                at = from.clone();
                while segs.peek().map(|s| s.as_str()) == Some("super") {
                    at.pop()?;
                    segs.next();
                }
            }
            // A path from the module itself: a child module, or an external crate.
            Some(_) => at = from.clone(),
            None => return None,
        }
        for seg in segs {
            let mut child = at.clone();
            child.push(seg.clone());
            if self.modules.contains_key(&child) {
                at = child;
                continue;
            }
            if let Some(target) = self.reexport(&at, seg, depth) {
                return Some(target);
            }
            if at.is_empty()
                && let Some(m) = self.macros.get(seg)
            {
                return Some(m.clone());
            }
            break;
        }
        Some(at)
    }

    /// Where the item `name` that module `at` re-exports (`pub use x::Name;`) is defined.
    fn reexport(&self, at: &ModPath, name: &str, depth: usize) -> Option<ModPath> {
        let m = self.modules.get(at)?;
        use_paths(&m.code)
            .into_iter()
            .find(|(_, public, path, bound)| *public && bound == name && path.len() > 1)
            .and_then(|(_, _, path, _)| self.resolve(at, &path, depth + 1))
    }

    fn references(&self, from: &ModPath) -> Vec<Reference> {
        let m = &self.modules[from];
        let line = |at: usize| m.code[..at].bytes().filter(|&c| c == b'\n').count() + 1;
        let mut out = vec![];
        let relative =
            |p: &[String]| matches!(p.first().map(String::as_str), Some("crate" | "self" | "super"));
        for (at, _, path, _) in use_paths(&m.code) {
            if relative(&path) {
                out.extend(self.resolve(from, &path, 0).map(|target| Reference { target, line: line(at) }));
            }
        }
        for (at, path) in expression_paths(&m.code) {
            out.extend(self.resolve(from, &path, 0).map(|target| Reference { target, line: line(at) }));
        }
        out
    }
}

/// The circles of one crate; files are named relative to `root`. There is no allow-list: the
/// last known circles (in `spindle-core`) were broken by the core split.
fn crate_circles(c: &Crate, root: &Path) -> Vec<String> {
    // parent module → (child A, child B) → the first reference that makes the edge A → B.
    let mut edges: BTreeMap<ModPath, BTreeMap<(String, String), String>> = BTreeMap::new();
    for from in c.modules.keys() {
        for r in c.references(from) {
            let common = from.iter().zip(&r.target).take_while(|(a, b)| a == b).count();
            let (Some(a), Some(b)) = (from.get(common), r.target.get(common)) else { continue };
            let file = &c.modules[from].file;
            let evidence = format!("{}:{}", file.strip_prefix(root).unwrap_or(file).display(), r.line);
            edges
                .entry(from[..common].to_vec())
                .or_default()
                .entry((a.clone(), b.clone()))
                .or_insert(evidence);
        }
    }
    let mut out = vec![];
    for (parent, es) in &edges {
        for scc in strongly_connected(es.keys()) {
            let within: Vec<String> = es
                .iter()
                .filter(|((a, b), _)| scc.contains(a) && scc.contains(b))
                .map(|((a, b), ev)| format!("{a} → {b} ({ev})"))
                .collect();
            let place = if parent.is_empty() { "the crate root".to_string() } else { parent.join("::") };
            out.push(format!(
                "{}: a module circle under {place}: {{{}}}: {}",
                c.name,
                scc.iter().cloned().collect::<Vec<_>>().join(", "),
                within.join("; ")
            ));
        }
    }
    out
}

/// The strongly connected sets of more than one node (Tarjan's algorithm, iterative enough for
/// a module graph).
fn strongly_connected<'a>(edges: impl Iterator<Item = &'a (String, String)>) -> Vec<BTreeSet<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        graph.entry(a).or_default().push(b);
        graph.entry(b).or_default();
    }
    struct State<'g> {
        graph: &'g BTreeMap<&'g str, Vec<&'g str>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in &s.graph[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on_stack: BTreeSet::new(),
        out: vec![],
    };
    for &v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        crate_circles(&read_crate("demo", &dir.path().join("lib.rs")).unwrap(), dir.path())
    }

    #[test]
    fn two_siblings_using_each_other_are_a_circle() {
        let found = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            ("b.rs", "pub struct B(crate::a::A);\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("{a, b}") && found[0].contains("a → b (a.rs:1)"), "{found:?}");
    }

    #[test]
    fn a_loop_through_a_re_export_a_group_and_super_is_found() {
        let found = crate_of(&[
            ("lib.rs", "pub mod p;\npub use p::x::X;\n"),
            ("p/mod.rs", "pub mod x;\npub mod y;\npub mod z;\n"),
            ("p/x.rs", "use super::{y::Y, z};\npub struct X;\n"),
            ("p/y.rs", "pub struct Y;\n"),
            ("p/z.rs", "// crate::p::y is only a comment\nfn f() -> crate::X { todo!() }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("under p: {x, z}"), "{found:?}");
    }

    #[test]
    fn tests_comments_strings_and_a_one_way_use_are_no_circle() {
        let found = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            (
                "a.rs",
                "pub struct A;\nconst S: &str = \"crate::b::B\";\n#[cfg(test)]\nmod tests { use crate::b::B; }\n",
            ),
            ("b.rs", "/* crate::a */ pub struct B(crate::a::A);\n"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn an_exported_macro_belongs_to_the_module_that_defines_it() {
        let found = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            ("a.rs", "#[macro_export]\nmacro_rules! m { () => { $crate::b::f() } }\n"),
            ("b.rs", "pub fn f() {}\npub fn g() { crate::m!(); }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
