//! The index of every object and array of a snapshot down to its entities, made in one pass.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::member_names::MemberNames;

use super::scanner::Scanner;

/// How deep [`containers`] records objects and arrays: no pointer it records has more tokens.
pub(crate) const MAX_INDEXED_DEPTH: usize = 6;

/// The JSON pointer and start of every object and array in `text` down to the depth of the
/// snapshot's entities, in one pass: what a report
/// needs to find the entity behind each finding without rescanning the file. `None` when the
/// text is not JSON. Of a member named twice (escapes decoded), only the first is indexed, as
/// [`locate`] finds the first: what the later one holds is skipped.
pub fn containers(text: &str) -> Option<Vec<(String, usize)>> {
    containers_in(text, false)
}

/// [`containers`] of a text already parsed as JSON (a loaded snapshot's): what lies below the
/// indexed depth is skipped by its brackets and quotes alone, unchecked, which is most of the
/// work saved. On text that is not JSON the result is unspecified (but nothing panics).
pub(crate) fn containers_of_parsed(text: &str) -> Option<Vec<(String, usize)>> {
    containers_in(text, true)
}

fn containers_in(text: &str, parsed: bool) -> Option<Vec<(String, usize)>> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut s = Scanner { b: text.as_bytes(), pos: start, parsed };
    let mut out = vec![];
    let mut path = String::new();
    // Open containers: `{` or `[`, the path length before their current token, the index.
    let mut open: Vec<(u8, usize, usize)> = vec![];
    let mut names = MemberNames::default();
    // The name of the member whose value comes next. It joins `path` only if the value is an
    // object or array: most members are numbers and strings, which need no pointer.
    let mut key: Option<Cow<'_, str>> = None;
    // The value next is a member named twice: skipped whole, since `locate` finds the first.
    let mut repeat = false;
    loop {
        // Expecting a value at `path`.
        s.ws();
        match s.peek()? {
            _ if std::mem::take(&mut repeat) => {
                s.value()?;
            }
            c @ (b'{' | b'[') => {
                // Entities sit at most six tokens deep (`/sql_instances/0/databases/2/files/7`);
                // what is deeper is found from them, so it need not cost an entry each.
                if let Some(k) = key.take() {
                    push_token(&k, &mut path);
                }
                out.push((path.clone(), s.pos));
                if open.len() == MAX_INDEXED_DEPTH {
                    // Nothing inside is indexed: skip it whole rather than build the pointer of
                    // every member (most of a snapshot is the members of its database files).
                    s.value()?;
                } else {
                    s.pos += 1;
                    s.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if s.peek()? == close {
                        s.pos += 1;
                    } else {
                        open.push((c, path.len(), 0));
                        if c == b'{' {
                            names.open();
                            (key, repeat) = member(text, &mut s, &mut names)?;
                        } else {
                            path.push_str("/0");
                        }
                        continue;
                    }
                }
            }
            c => {
                key = None;
                s.scalar(c)?;
            }
        }
        // A value ended: close what it ends, or move to the next member or element.
        loop {
            let Some(top) = open.last_mut() else {
                s.ws();
                return (s.pos == s.b.len()).then_some(out);
            };
            s.ws();
            match (s.peek()?, top.0) {
                (b',', kind) => {
                    s.pos += 1;
                    path.truncate(top.1);
                    if kind == b'{' {
                        s.ws();
                        (key, repeat) = member(text, &mut s, &mut names)?;
                    } else {
                        top.2 += 1;
                        // Formatted in place: a `to_string` per element would allocate.
                        let _ = write!(path, "/{}", top.2);
                    }
                    break;
                }
                (b'}', b'{') | (b']', b'[') => {
                    s.pos += 1;
                    path.truncate(top.1);
                    if top.0 == b'{' {
                        names.close();
                    }
                    open.pop();
                }
                _ => return None,
            }
        }
    }
}

/// Reads a member's key and colon: the member's name (escapes decoded), or `None` with `true`
/// when the object being scanned had a member of that name already.
fn member<'t>(
    text: &'t str,
    s: &mut Scanner<'_>,
    names: &mut MemberNames<'t>,
) -> Option<(Option<Cow<'t, str>>, bool)> {
    let key = s.member_key()?;
    let raw = &text[key.start + 1..key.end - 1];
    let name: Cow<'t, str> =
        if raw.contains('\\') { serde_json::from_str::<String>(&text[key]).ok()?.into() } else { raw.into() };
    Some(if names.is_new(name.clone()) { (Some(name), false) } else { (None, true) })
}

/// Appends the pointer token of the member `name` to `path`.
fn push_token(name: &str, path: &mut String) {
    path.push('/');
    if name.contains(['~', '/']) {
        for c in name.chars() {
            match c {
                '~' => path.push_str("~0"),
                '/' => path.push_str("~1"),
                c => path.push(c),
            }
        }
    } else {
        // Keys almost never need escaping: copy them whole.
        path.push_str(name);
    }
}
