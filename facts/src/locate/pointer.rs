//! The value at a JSON pointer: the pointer's tokens decoded, then followed by the scanner.

use std::ops::Range;

use super::scanner::Scanner;

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
