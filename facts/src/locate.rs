//! Finds the text of a fact in a snapshot file: the byte ranges of the value at an RFC 6901 JSON
//! pointer (and of its key, for an object member), so reports can give a line and column.
//!
//! A small scanner over the text, not a parse into a tree: it walks only the path the pointer
//! names, skipping (and checking) the values it passes. No recursion, so no nesting is too deep;
//! malformed text gives `None`, never a panic.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use crate::member_names::MemberNames;

/// Where a pointer's value is in the text, as byte ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The member's key, quotes included, when the pointer's last token names an object member.
    pub key: Option<Range<usize>>,
    /// The value, from its first to its last byte (brackets and quotes included).
    pub value: Range<usize>,
}

impl Span {
    /// From the key (if any) to the end of the value: `"offset_bytes": 32256`.
    pub fn full(&self) -> Range<usize> {
        self.key.as_ref().map_or(self.value.start, |k| k.start)..self.value.end
    }
}

/// Locates the value at `pointer` (`""` for the whole document, `/partitions/0/offset_bytes`)
/// in the JSON `text`. `None` when the pointer is malformed, names nothing, or the text on the
/// way is not JSON. Of duplicate keys, the first wins.
pub fn locate(text: &str, pointer: &str) -> Option<Span> {
    // A byte-order mark (PowerShell writes one) is not part of the document.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    locate_from(text, start, pointer)
}

/// Like [`locate`], with `pointer` relative to the value that starts at byte `start` (found by
/// an earlier call), so repeated look-ups in one document need not rescan it from the top.
pub fn locate_from(text: &str, start: usize, pointer: &str) -> Option<Span> {
    locate_in(Scanner { b: text.as_bytes(), pos: start, parsed: false }, pointer)
}

/// [`locate_from`] in a text already parsed as JSON (a loaded snapshot's): the values passed on
/// the way are skipped by their delimiters alone, unchecked. On text that is not JSON the result
/// is unspecified (but nothing panics).
pub(crate) fn locate_from_parsed(text: &str, start: usize, pointer: &str) -> Option<Span> {
    locate_in(Scanner { b: text.as_bytes(), pos: start, parsed: true }, pointer)
}

fn locate_in(mut s: Scanner<'_>, pointer: &str) -> Option<Span> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None;
    }
    s.ws();
    let mut key = None;
    let mut tokens = pointer.split('/').skip(1).peekable();
    while let Some(raw) = tokens.next() {
        let token = unescape_token(raw)?;
        key = match s.peek()? {
            b'{' => Some(s.find_member(&token)?),
            b'[' => {
                s.find_element(array_index(&token)?)?;
                None
            }
            _ => return None,
        };
        // Only the last token's key is reported.
        if tokens.peek().is_some() {
            key = None;
        }
    }
    let value = s.value()?;
    Some(Span { key, value })
}

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

const ONES: u64 = 0x0101_0101_0101_0101;

/// The top bit of each byte of `x` that is zero, and maybe of bytes above a zero byte (a borrow
/// runs up): the lowest bit set is always a true zero byte.
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & 0x8080_8080_8080_8080
}

/// The index of the first byte of `b` that `is` accepts, eight bytes at a time: `hits` marks
/// the top bit of such bytes in a little-endian word (its lowest mark must be exact).
fn first_byte(b: &[u8], hits: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    let mut n = 0;
    for word in &mut words {
        let hit = hits(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if hit != 0 {
            return Some(n + (hit.trailing_zeros() / 8) as usize);
        }
        n += 8;
    }
    words.remainder().iter().position(|&c| is(c)).map(|i| n + i)
}

/// The index of the first `"`, `\\` or control character in `b` (`b.len()` when there is none):
/// strings are most of a snapshot's text, and most of them are short.
pub fn first_special(b: &[u8]) -> usize {
    let hits = |x: u64| {
        // A control character has its top three bits clear.
        zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')))
            | zero_bytes(x & 0xe0e0_e0e0_e0e0_e0e0)
    };
    first_byte(b, hits, |c| c == b'"' || c == b'\\' || c < 0x20).unwrap_or(b.len())
}

/// The index of the first `"`, `{`, `}`, `[` or `]` in `b` (what lies between them, when
/// skipping a container of parsed text, is mostly plain bytes).
fn first_structural(b: &[u8]) -> Option<usize> {
    let hits = |x: u64| {
        // `[` `]` are `{` `}` without the 0x20 bit: set it, and two tests find all four.
        let folded = x | (ONES * 0x20);
        zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(folded ^ (ONES * u64::from(b'{')))
            | zero_bytes(folded ^ (ONES * u64::from(b'}')))
    };
    first_byte(b, hits, |c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
}

/// Decodes a pointer token: `~1` is `/`, `~0` is `~`; any other `~` makes the pointer invalid.
fn unescape_token(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !raw.contains('~') {
        return Some(raw.into());
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next()? {
                '0' => out.push('~'),
                '1' => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out.into())
}

/// An array index token: `0` or digits without a leading zero (`-`, past the end, is never there).
fn array_index(token: &str) -> Option<usize> {
    let b = token.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    token.parse().ok()
}

struct Scanner<'t> {
    b: &'t [u8],
    pos: usize,
    /// The text was parsed as JSON already: values are skipped by their delimiters, unchecked.
    parsed: bool,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn ws(&mut self) {
        // Indentation first, eight spaces at a time: it is about a third of a pretty-printed
        // snapshot.
        while let Some(word) = self.b.get(self.pos..self.pos + 8) {
            if word != b"        " {
                break;
            }
            self.pos += 8;
        }
        let rest = self.b.get(self.pos..).unwrap_or_default();
        self.pos +=
            rest.iter().position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(rest.len());
    }

    /// At `{` or `[` of text already parsed as JSON: moves past its closing bracket, looking
    /// only at brackets, quotes and escapes.
    fn skip_parsed(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            let rest = self.b.get(self.pos..)?;
            self.pos += first_structural(rest)?;
            match self.b[self.pos] {
                b'"' => {
                    self.pos += 1;
                    loop {
                        self.pos += first_special(self.b.get(self.pos..)?);
                        match self.peek()? {
                            b'"' => break,
                            b'\\' => self.pos += 2,
                            _ => self.pos += 1,
                        }
                    }
                }
                b'{' | b'[' => depth += 1,
                _ => depth = depth.checked_sub(1)?,
            }
            self.pos += 1;
            if depth == 0 {
                return Some(());
            }
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    /// At `{`: moves to the value of member `name` and returns its key's range.
    fn find_member(&mut self, name: &str) -> Option<Range<usize>> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            return None;
        }
        loop {
            let key = self.string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            if key_equals(&self.b[key.start + 1..key.end - 1], name) {
                return Some(key);
            }
            self.value()?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.ws();
                }
                _ => return None,
            }
        }
    }

    /// At `[`: moves to element `index`.
    fn find_element(&mut self, index: usize) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            return None;
        }
        for _ in 0..index {
            self.value()?;
            self.ws();
            self.eat(b',')?;
            self.ws();
        }
        Some(())
    }

    /// Skips one JSON value, checking its grammar, and returns its range. Iterative: nesting
    /// costs one byte of stack per level, on the heap.
    fn value(&mut self) -> Option<Range<usize>> {
        if self.parsed {
            self.ws();
            let start = self.pos;
            match self.peek()? {
                b'{' | b'[' => self.skip_parsed()?,
                c => self.scalar(c)?,
            }
            return Some(start..self.pos);
        }
        let start = self.pos;
        let mut open: Vec<u8> = Vec::new();
        loop {
            // Expecting a value.
            self.ws();
            match self.peek()? {
                b'{' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek()? == b'}' {
                        self.pos += 1;
                    } else {
                        open.push(b'{');
                        self.member_key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.pos += 1;
                    self.ws();
                    if self.peek()? == b']' {
                        self.pos += 1;
                    } else {
                        open.push(b'[');
                        continue;
                    }
                }
                c => self.scalar(c)?,
            }
            // A value ended: close what it ends, or move to the next one.
            loop {
                let Some(&top) = open.last() else { return Some(start..self.pos) };
                self.ws();
                match (self.peek()?, top) {
                    (b',', b'{') => {
                        self.pos += 1;
                        self.ws();
                        self.member_key()?;
                        break;
                    }
                    (b',', _) => {
                        self.pos += 1;
                        break;
                    }
                    (b'}', b'{') | (b']', b'[') => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// `"key" :` inside an object.
    /// Reads `"key":` and appends the key to `path` as a pointer token.
    /// At a member's key: moves past it and the colon, and returns the key's range (quotes
    /// included).
    fn member_key(&mut self) -> Option<Range<usize>> {
        let key = self.string()?;
        self.ws();
        self.eat(b':')?;
        Some(key)
    }

    /// A string, quotes included; checks escapes and refuses raw control characters.
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        self.eat(b'"')?;
        loop {
            // Skip the run of plain characters in one go: snapshots are mostly that.
            self.pos += first_special(self.b.get(self.pos..)?);
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(start..self.pos);
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            let hex = self.b.get(self.pos + 1..self.pos + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.pos += 5;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => self.pos += 1,
            }
        }
    }

    /// Steps over the string, literal or number that starts with `c`; `None` for anything else.
    fn scalar(&mut self, c: u8) -> Option<()> {
        if self.parsed && c != b'"' {
            // A number or literal ends where a delimiter or white space starts.
            let rest = self.b.get(self.pos..)?;
            let len = rest
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\t' | b'\r'))
                .unwrap_or(rest.len());
            self.pos += len;
            return (len > 0).then_some(());
        }
        match c {
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.pos..self.pos + word.len())? != word {
            return None;
        }
        self.pos += word.len();
        self.delimited()
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
        }
        self.delimited()
    }

    fn digits(&mut self) -> Option<()> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        (self.pos > start).then_some(())
    }

    /// A number or literal must not run into letters (`truex`, `12a`).
    fn delimited(&self) -> Option<()> {
        match self.peek() {
            Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => None,
            _ => Some(()),
        }
    }
}

/// Whether the raw contents of a JSON string (between its quotes, escapes undecoded) spell `name`.
fn key_equals(raw: &[u8], name: &str) -> bool {
    if !raw.contains(&b'\\') {
        return raw == name.as_bytes();
    }
    let mut want = name.chars();
    let mut it = DecodeChars { raw, pos: 0 };
    loop {
        match (it.next(), want.next()) {
            (None, None) => return true,
            (Some(Some(a)), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

/// The characters of a JSON string's raw contents; `Some(None)` for an undecodable escape (a
/// lone surrogate), which matches nothing.
struct DecodeChars<'a> {
    raw: &'a [u8],
    pos: usize,
}

impl DecodeChars<'_> {
    fn hex4(&self, at: usize) -> Option<u32> {
        let h = std::str::from_utf8(self.raw.get(at..at + 4)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    }
}

impl Iterator for DecodeChars<'_> {
    type Item = Option<char>;

    fn next(&mut self) -> Option<Option<char>> {
        let rest = self.raw.get(self.pos..)?;
        let &first = rest.first()?;
        if first != b'\\' {
            // `raw` came from a `&str` and we only stop on ASCII, so this is a char boundary.
            let c = std::str::from_utf8(&rest[..rest.len().min(4)])
                .or_else(|e| std::str::from_utf8(&rest[..e.valid_up_to()]))
                .ok()
                .and_then(|s| s.chars().next());
            let Some(c) = c else {
                self.pos = self.raw.len();
                return Some(None);
            };
            self.pos += c.len_utf8();
            return Some(Some(c));
        }
        let esc = rest.get(1).copied();
        self.pos += 2;
        let c = match esc {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let Some(hi) = self.hex4(self.pos) else {
                    self.pos = self.raw.len();
                    return Some(None);
                };
                self.pos += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = (self.raw.get(self.pos..self.pos + 2) == Some(b"\\u"))
                        .then(|| self.hex4(self.pos + 2))
                        .flatten()
                        .filter(|lo| (0xDC00..0xE000).contains(lo));
                    let Some(lo) = lo else { return Some(None) };
                    self.pos += 6;
                    return Some(char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)));
                }
                return Some(char::from_u32(hi));
            }
            _ => {
                self.pos = self.raw.len();
                return Some(None);
            }
        };
        Some(Some(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_special_finds_the_first_quote_backslash_or_control() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for len in [0, 5, 8, 13, 48] {
                for at in 0..len {
                    let mut b: Vec<u8> = "a\u{e9}\u{203a}b ~/0123456789abcdefghijklmnopqrstuvwxyz\x7f!#"
                        .bytes()
                        .cycle()
                        .take(len)
                        .collect();
                    b[at] = special;
                    // A second one later never hides the first.
                    if at + 3 < len {
                        b[at + 3] = b'"';
                    }
                    assert_eq!(first_special(&b), at, "{special:#x} at {at} of {len}");
                }
                let plain: Vec<u8> = b"abcdefgh\x7f\xff".iter().copied().cycle().take(len).collect();
                assert_eq!(first_special(&plain), len);
            }
        }
    }

    fn at<'t>(text: &'t str, pointer: &str) -> Option<&'t str> {
        locate(text, pointer).map(|s| &text[s.value])
    }

    fn key_at<'t>(text: &'t str, pointer: &str) -> Option<&'t str> {
        locate(text, pointer).and_then(|s| s.key).map(|k| &text[k])
    }

    const DOC: &str = r#" {
  "schema_version": 1,
  "host": { "name": "sql01" },
  "partitions": [
    { "id": "p1", "offset_bytes": 32256 },
    { "id": "p2", "offset_bytes": 1048576, "tags": [] }
  ],
  "a/b": { "m~n": [true, null, -1.5e3] },
  "\u0041sc\"ii": "x\ny",
  "": 0
}"#;

    #[test]
    fn first_structural_finds_the_first_quote_or_bracket() {
        for special in [b'"', b'{', b'}', b'[', b']'] {
            for len in [0, 5, 8, 13, 48] {
                for at in 0..len {
                    // Bytes one bit away from the brackets (`;` `=` `y` `_` DEL) are not them.
                    let mut b: Vec<u8> =
                        b";=y_\x7fa[".iter().copied().filter(|c| *c != b'[').cycle().take(len).collect();
                    b[at] = special;
                    if at + 2 < len {
                        b[at + 2] = b'{';
                    }
                    assert_eq!(first_structural(&b), Some(at), "{special:#x} at {at} of {len}");
                }
                let plain: Vec<u8> =
                    b";=y_\x7fa{".iter().copied().filter(|c| *c != b'{').cycle().take(len).collect();
                assert_eq!(first_structural(&plain), None);
            }
        }
    }

    #[test]
    fn containers_of_parsed_text_agree_with_the_checked_scan() {
        // Deeper than the index, with brackets, quotes and escapes inside strings.
        let deep = r#"{"a": [{"b": [{"c": {"d": [{"e": {"f": {"g": ["]}\"[{", {"h": "\\"}], "i": [[], {}]}}}, 7]}}]}], "z": {"y": "}"}}"#;
        for text in [DOC, deep] {
            serde_json::from_str::<serde_json::Value>(text).unwrap();
            assert_eq!(containers_of_parsed(text), containers(text));
        }
        assert!(containers(deep).unwrap().iter().any(|(p, _)| p == "/a/0/b/0/c/d"));
        let pointers = [
            "",
            "/schema_version",
            "/host/name",
            "/partitions/1/offset_bytes",
            "/partitions/1/tags",
            "/a~1b/m~0n/2",
            "/\u{41}sc\"ii",
            "/",
            "/partitions/2",
            "/nope",
            "/a/0/b/0/c/d/0/e/f/g/1/h",
            "/a/0/b/0/c/d/1",
            "/z/y",
            "/a/0/b/0/c/d/0/e/f/i/1",
        ];
        for text in [DOC, deep] {
            for p in pointers {
                assert_eq!(locate_from_parsed(text, 0, p), locate_from(text, 0, p), "{p}");
            }
        }
    }

    #[test]
    fn of_a_member_named_twice_only_the_first_is_indexed() {
        for (text, indexed) in [
            (r#"{"a": 1, "a": [2]}"#, vec![""]),
            (r#"{"a": [2], "a": {"b": []}}"#, vec!["", "/a"]),
            (
                r#"{"x": [{"b": {"c": []}, "c": 0, "b": {"d": []}}]}"#,
                vec!["", "/x", "/x/0", "/x/0/b", "/x/0/b/c"],
            ),
            (r#"{"a\u0062": [], "ab": [[]]}"#, vec!["", "/ab"]),
        ] {
            for index in [containers(text), containers_of_parsed(text)] {
                let index = index.unwrap();
                let pointers: Vec<&str> = index.iter().map(|(p, _)| p.as_str()).collect();
                assert_eq!(pointers, indexed, "{text}");
                for (p, at) in &index {
                    assert_eq!(locate(text, p).map(|s| s.value.start), Some(*at), "{p} in {text}");
                }
            }
        }
        // The same name in two objects, and in an object and its parent, is no repeat.
        let twice = r#"{"p": [{"offset_bytes": 1, "t": []}, {"offset_bytes": 2, "t": []}], "t": {"t": {}}}"#;
        let index = containers(twice).unwrap();
        for p in ["/p/0/t", "/p/1/t", "/t", "/t/t"] {
            assert!(index.iter().any(|(q, _)| q == p), "{p} in {index:?}");
        }
    }

    #[test]
    fn whole_document() {
        let s = locate(DOC, "").unwrap();
        assert_eq!(s.key, None);
        assert_eq!(s.value, 1..DOC.len());
    }

    #[test]
    fn members_and_elements() {
        assert_eq!(at(DOC, "/schema_version"), Some("1"));
        assert_eq!(key_at(DOC, "/schema_version"), Some("\"schema_version\""));
        assert_eq!(at(DOC, "/host"), Some(r#"{ "name": "sql01" }"#));
        assert_eq!(at(DOC, "/host/name"), Some("\"sql01\""));
        assert_eq!(at(DOC, "/partitions/0"), Some(r#"{ "id": "p1", "offset_bytes": 32256 }"#));
        assert_eq!(key_at(DOC, "/partitions/0"), None);
        assert_eq!(at(DOC, "/partitions/1/offset_bytes"), Some("1048576"));
        assert_eq!(key_at(DOC, "/partitions/1/offset_bytes"), Some("\"offset_bytes\""));
        assert_eq!(at(DOC, "/partitions/1/tags"), Some("[]"));
        let s = locate(DOC, "/partitions/0/offset_bytes").unwrap();
        assert_eq!(&DOC[s.full()], "\"offset_bytes\": 32256");
    }

    #[test]
    fn escapes_in_pointer_and_keys() {
        assert_eq!(at(DOC, "/a~1b/m~0n/2"), Some("-1.5e3"));
        assert_eq!(at(DOC, "/a~1b/m~0n/1"), Some("null"));
        assert_eq!(at(DOC, "/Asc\"ii"), Some(r#""x\ny""#));
        assert_eq!(at(DOC, "/"), Some("0"));
        assert_eq!(at(DOC, "/a~2b"), None);
        assert_eq!(at(DOC, "/a~"), None);
    }

    #[test]
    fn missing_and_invalid() {
        assert_eq!(at(DOC, "partitions"), None);
        assert_eq!(at(DOC, "/nope"), None);
        assert_eq!(at(DOC, "/partitions/2"), None);
        assert_eq!(at(DOC, "/partitions/01"), None);
        assert_eq!(at(DOC, "/partitions/-"), None);
        assert_eq!(at(DOC, "/partitions/99999999999999999999999"), None);
        assert_eq!(at(DOC, "/schema_version/0"), None);
        assert_eq!(at(DOC, "/partitions/1/tags/0"), None);
        assert_eq!(at("{}", "/a"), None);
        assert_eq!(at("", ""), None);
        assert_eq!(at("   ", ""), None);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let text = "\u{feff}{\"a\": 1}";
        assert_eq!(at(text, "/a"), Some("1"));
        assert_eq!(locate(text, "").unwrap().value, 3..text.len());
    }

    #[test]
    fn numeric_keys_in_objects() {
        assert_eq!(at(r#"{"0": 1, "01": 2}"#, "/01"), Some("2"));
        assert_eq!(at(r#"{"0": 1, "01": 2}"#, "/0"), Some("1"));
    }

    #[test]
    fn first_duplicate_wins() {
        assert_eq!(at(r#"{"a": 1, "a": 2}"#, "/a"), Some("1"));
    }

    #[test]
    fn surrogate_pairs_in_keys() {
        let text = r#"{"\ud83d\ude00": 1, "\ud83d": 2}"#;
        assert_eq!(at(text, "/😀"), Some("1"));
        assert_eq!(at(text, "/\u{fffd}"), None);
    }

    #[test]
    fn malformed_text() {
        for text in [
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\": 1,}",
            "{\"a\": [1, 2}",
            "[1 2]",
            "{\"a\": tru}",
            "{\"a\": truex}",
            "{\"a\": 01}",
            "{\"a\": 1.}",
            "{\"a\": \"\u{1}\"}",
            "{\"a\": \"\\x\"}",
            "{\"a\": \"\\u12\"}",
            "{a: 1}",
        ] {
            // The whole document and a member past the fault are refused.
            assert_eq!(locate(text, ""), None, "{text:?}");
            assert_eq!(locate(text, "/b"), None, "{text:?}");
            let _ = locate(text, "/a");
        }
        // The path is checked up to the value, not the rest of the file.
        assert_eq!(at("{\"a\": 1, oops", "/a"), Some("1"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 200_000;
        let text = format!("{{\"x\": {}{}, \"y\": 7}}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(at(&text, "/y"), Some("7"));
        let unclosed = format!("{{\"x\": {}, \"y\": 7}}", "[{\"a\":".repeat(depth));
        assert_eq!(at(&unclosed, "/y"), None);
        let pointer = "/0".repeat(depth - 1);
        assert_eq!(at(&text, &format!("/x{pointer}")), Some("[]"));
    }

    #[test]
    fn truncations_never_panic() {
        let pointers = ["", "/host/name", "/partitions/1/tags", "/a~1b/m~0n/2", "/Asc\"ii", "/"];
        for end in 0..=DOC.len() {
            if !DOC.is_char_boundary(end) {
                continue;
            }
            for p in pointers {
                if let Some(s) = locate(&DOC[..end], p) {
                    assert!(s.value.end <= end);
                }
            }
        }
    }
    /// A tiny deterministic generator (xorshift), so the test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const PIECES: &[&str] =
        &["a", "id", "/", "~", "~1", "é", "😀", "\"", "\\", "\n", "\t", " ", "0", "\u{1f}", "x y"];

    fn gen_string(rng: &mut Rng) -> String {
        (0..rng.below(4)).map(|_| PIECES[rng.below(PIECES.len() as u64) as usize]).collect()
    }

    fn gen_value(rng: &mut Rng, depth: u32) -> serde_json::Value {
        use serde_json::Value;
        let kind = if depth >= 5 { rng.below(4) } else { rng.below(7) };
        match kind {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 0),
            2 => match rng.below(3) {
                0 => Value::from(rng.below(1 << 40)),
                1 => Value::from(-(rng.below(1000) as i64)),
                _ => Value::from(rng.below(100_000) as f64 / 64.0 - 20.0),
            },
            3 => Value::String(gen_string(rng)),
            4 | 5 => {
                let mut m = serde_json::Map::new();
                for _ in 0..rng.below(5) {
                    m.insert(gen_string(rng), gen_value(rng, depth + 1));
                }
                Value::Object(m)
            }
            _ => Value::Array((0..rng.below(5)).map(|_| gen_value(rng, depth + 1)).collect()),
        }
    }

    fn gen_ws(rng: &mut Rng, out: &mut String) {
        for _ in 0..rng.below(3) {
            out.push([' ', '\n', '\t', '\r'][rng.below(4) as usize]);
        }
    }

    /// Writes a string with some characters escaped that need not be.
    fn write_string(rng: &mut Rng, s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '/' if rng.below(2) == 0 => out.push_str("\\/"),
                c if (c as u32) < 0x20 || rng.below(4) == 0 => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{:04x}", u));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    fn write_value(rng: &mut Rng, v: &serde_json::Value, out: &mut String) {
        use serde_json::Value;
        gen_ws(rng, out);
        match v {
            Value::String(s) => write_string(rng, s, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_value(rng, item, out);
                }
                gen_ws(rng, out);
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, item)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    gen_ws(rng, out);
                    write_string(rng, k, out);
                    gen_ws(rng, out);
                    out.push(':');
                    write_value(rng, item, out);
                }
                gen_ws(rng, out);
                out.push('}');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
        gen_ws(rng, out);
    }

    fn escape_token(t: &str) -> String {
        t.replace('~', "~0").replace('/', "~1")
    }

    fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<(String, Option<String>)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, item) in m {
                    let p = format!("{at}/{}", escape_token(k));
                    out.push((p.clone(), Some(k.clone())));
                    pointers(item, p, out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{at}/{i}");
                    out.push((p.clone(), None));
                    pointers(item, p, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_pointer_of_generated_documents_round_trips() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut checked = 0;
        for round in 0..300 {
            let doc = gen_value(&mut rng, 0);
            let text = match round % 3 {
                0 => serde_json::to_string(&doc).unwrap(),
                1 => serde_json::to_string_pretty(&doc).unwrap(),
                _ => {
                    let mut t = String::new();
                    write_value(&mut rng, &doc, &mut t);
                    t
                }
            };
            assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), doc);
            let mut all = vec![(String::new(), None)];
            pointers(&doc, String::new(), &mut all);
            for (pointer, key) in all {
                let span = locate(&text, &pointer).unwrap_or_else(|| panic!("{pointer:?} in {text}"));
                let value: serde_json::Value = serde_json::from_str(&text[span.value.clone()]).unwrap();
                assert_eq!(Some(&value), doc.pointer(&pointer), "{pointer:?} in {text}");
                let found_key = span.key.map(|k| serde_json::from_str::<String>(&text[k]).unwrap());
                assert_eq!(found_key, key, "{pointer:?} in {text}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "only {checked} pointers");
    }
}
