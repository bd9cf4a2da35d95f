//! A snapshot file's text, indexed for reports: line and column of a byte offset by binary
//! search, and every object and array by JSON pointer (one scan, on the first look-up), so
//! locating many facts in one file costs about one scan of it rather than one scan per fact.

use std::sync::OnceLock;

use crate::locate::{MAX_INDEXED_DEPTH, Span, containers_of_parsed, locate, locate_from_parsed};
use spindle_text::fast_hash::FastMap;

#[derive(Debug)]
pub struct SourceDoc {
    pub path: String,
    pub text: String,
    /// Byte offset of the start of every line.
    lines: OnceLock<Vec<usize>>,
    /// Characters before each [`MARK_BYTES`] boundary, for columns far into a long line.
    marks: OnceLock<Vec<usize>>,
    /// Where each object and array starts, by JSON pointer; `None` inside when the text is not
    /// JSON (then every look-up scans from the top).
    /// Seeded per process: the pointers are made of the snapshot's member names, and a hostile
    /// file must not be able to choose keys that collide.
    containers: OnceLock<Option<FastMap<String, usize>>>,
}

impl Clone for SourceDoc {
    fn clone(&self) -> Self {
        SourceDoc::new(self.path.clone(), self.text.clone())
    }
}

impl SourceDoc {
    pub fn new(path: String, text: String) -> Self {
        SourceDoc { path, text, lines: OnceLock::new(), marks: OnceLock::new(), containers: OnceLock::new() }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        let lines = self.lines.get_or_init(|| line_starts(self.text.as_bytes()));
        let line = lines.partition_point(|&start| start <= byte);
        let start = lines[line - 1];
        let column = if byte - start <= MARK_BYTES {
            self.text.get(start..byte).map_or(byte - start, |s| s.chars().count())
        } else {
            // Far into a long line (a minified snapshot is one line): counted from the marks,
            // not from the line's start, so locating every finding of a large file stays linear.
            self.chars_before(byte) - self.chars_before(start)
        };
        (line, column + 1)
    }

    /// Characters in the text before `byte`: those before the mark below it, plus the bytes from
    /// there that start a character (UTF-8 continuation bytes are `10xxxxxx`).
    fn chars_before(&self, byte: usize) -> usize {
        let marks = self.marks.get_or_init(|| {
            let mut count = 0;
            let mut out = vec![0];
            for block in self.text.as_bytes().chunks(MARK_BYTES) {
                count += starts_of_chars(block);
                out.push(count);
            }
            out
        });
        let mark = byte / MARK_BYTES;
        marks[mark] + starts_of_chars(&self.text.as_bytes()[mark * MARK_BYTES..byte])
    }

    /// The span of the value at `pointer`, as [`locate`] finds it.
    pub fn locate(&self, pointer: &str) -> Option<Span> {
        let containers =
            self.containers.get_or_init(|| containers_of_parsed(&self.text).map(|c| c.into_iter().collect()));
        let Some(containers) = containers else { return locate(&self.text, pointer) };
        let Some(cut) = pointer.rfind('/') else { return locate(&self.text, pointer) };
        let Some(&parent) = containers.get(&pointer[..cut]) else {
            // Deeper than the index: from the deepest indexed ancestor. Only an ancestor of at
            // most MAX_INDEXED_DEPTH tokens can be indexed; looking up every ancestor would hash
            // each of them, which for a pointer of n tokens costs n² (a plugin's field of 200,000
            // segments took 83 s).
            let ends: Vec<usize> =
                pointer.match_indices('/').map(|(i, _)| i).take(MAX_INDEXED_DEPTH + 1).collect();
            for &up in ends.iter().rev().filter(|&&up| up < cut) {
                if let Some(&start) = containers.get(&pointer[..up]) {
                    return locate_from_parsed(&self.text, start, &pointer[up..]);
                }
            }
            return locate(&self.text, pointer);
        };
        match containers.get(pointer) {
            // An element of an array has no key to report: go straight to it.
            Some(&start) if self.text.as_bytes()[parent] == b'[' => locate_from_parsed(&self.text, start, ""),
            // A member (its key is part of the span) or a scalar: look in what holds it.
            _ => locate_from_parsed(&self.text, parent, &pointer[cut..]),
        }
    }
}

/// The spacing of [`SourceDoc`]'s character marks, and the longest stretch of a line counted
/// character by character.
const MARK_BYTES: usize = 512;

fn starts_of_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Byte offset of the start of every line: 0, then one past each `\n`. Eight bytes at a time:
/// a snapshot is mostly short lines, and a search per line costs more than its line.
fn line_starts(text: &[u8]) -> Vec<usize> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut out = Vec::with_capacity(text.len() / 32 + 1);
    out.push(0);
    let mut words = text.chunks_exact(8);
    let mut base = 0;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ 0x0a0a_0a0a_0a0a_0a0a;
        // The top bit of each byte of `x` that is zero (a `\n` in the text), exactly: the sum
        // sets it for any non-zero low seven bits, without carrying into the next byte.
        let mut newlines = !(((x & LOW7) + LOW7) | x | LOW7);
        while newlines != 0 {
            out.push(base + (newlines.trailing_zeros() / 8) as usize + 1);
            newlines &= newlines - 1;
        }
        base += 8;
    }
    out.extend(words.remainder().iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| base + i + 1));
    out
}

#[cfg(test)]
mod tests {
    use super::{SourceDoc, line_starts};
    use crate::load::line_col;
    use crate::locate::locate;

    const DOC: &str = "{\n  \"a\": [ {\"x\": 1, \"y\": \"é\"},\n    {\"x\": 2, \"y\": [3, 4]} ],\n  \"b\": {\"c\": true}\n}\n";

    #[test]
    fn line_starts_follow_every_newline() {
        // Newlines at every position of a word, runs of them, and a tail shorter than a word.
        let text = "\n\nab\ncdefgh\u{e9}\n\n\n\n\n\n\n\nxyz\n1234567\n12345678\n\u{203a}\r\n\n";
        let expect: Vec<usize> =
            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        for cut in 0..=text.len() {
            let t = &text.as_bytes()[..cut];
            assert_eq!(
                line_starts(t),
                expect.iter().copied().filter(|&s| s == 0 || s <= cut).collect::<Vec<_>>(),
                "{cut}"
            );
        }
    }

    #[test]
    fn columns_far_into_a_long_line_are_counted_in_characters() {
        // One line, longer than several marks, with characters of 1 to 4 bytes straddling them.
        let mut text = String::from("[");
        while text.len() < 5 * super::MARK_BYTES {
            text.push_str("\"a\u{e9}\u{203a}\u{1f4be}\", ");
        }
        text.push_str("\"end\"]\n[\"second\", \"line\"]");
        let doc = SourceDoc::new("long.json".into(), text.clone());
        let bytes = text.char_indices().map(|(i, _)| i).step_by(7).chain([text.len()]);
        for byte in bytes {
            let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
            let expect = (text[..byte].matches('\n').count() + 1, text[line_start..byte].chars().count() + 1);
            assert_eq!(doc.line_col(byte), expect, "byte {byte}");
        }
    }

    #[test]
    fn agrees_with_locate_and_line_col_in_any_order() {
        let doc = SourceDoc::new("d.json".into(), DOC.into());
        let pointers =
            ["/a/1/y/1", "/a/0/y", "/a/1/x", "/b/c", "/a/0/x", "/a", "/b", "", "/a/2", "/a/1/z", "/b/c/d"];
        for p in pointers.iter().chain(pointers.iter().rev()) {
            assert_eq!(doc.locate(p), locate(DOC, p), "{p}");
        }
        for byte in 0..=DOC.len() {
            if DOC.is_char_boundary(byte) {
                assert_eq!(doc.line_col(byte), line_col(DOC, byte), "{byte}");
            }
        }
    }

    /// A member named twice (the first a number, the second the array it should have been):
    /// the index must not send a look-up to the second while `locate` reads the first.
    #[test]
    fn agrees_with_locate_when_a_member_is_named_twice() {
        let texts = [
            r#"{"databases": 16, "x": 1, "databases": [{"files": [{"id": 1}]}]}"#,
            r#"{"databases": [{"files": [{"id": 1}, {"id": 2}]}], "databases": [{"files": []}]}"#,
            r#"{"d": {"databases": [{"id": 1}], "databases": 3}}"#,
            r#"{"databases": [{"id": 1}], "datab\u0061ses": [{"id": 2}, {"id": 3}]}"#,
        ];
        let pointers = [
            "/databases",
            "/databases/0",
            "/databases/0/files/1",
            "/databases/0/files/0/id",
            "/d/databases/0/id",
        ];
        for text in texts {
            let doc = SourceDoc::new("dup.json".into(), text.into());
            for p in pointers {
                assert_eq!(doc.locate(p), locate(text, p), "{p} in {text}");
            }
        }
    }

    /// A plugin names the field of a finding: a pointer of any length reaches the locator.
    #[test]
    fn a_long_pointer_costs_its_length_not_its_square() {
        let doc = SourceDoc::new("d.json".into(), DOC.into());
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(40), "]".repeat(40));
        let deep_doc = SourceDoc::new("deep.json".into(), deep.clone());
        let inside = format!("/a{}", "/0".repeat(40));
        assert_eq!(deep_doc.locate(&inside), locate(&deep, &inside), "below the index, found from it");
        assert_eq!(deep_doc.locate(&inside).map(|s| &deep[s.value]), Some("1"));
        for (d, text, pointer) in [
            (&doc, DOC, format!("/a/1/y{}", "/0".repeat(50_000))),
            (&deep_doc, deep.as_str(), format!("/a{}", "/0".repeat(50_000))),
            (&doc, DOC, format!("/b{}", "/x~1y".repeat(50_000))),
        ] {
            let start = std::time::Instant::now();
            assert_eq!(d.locate(&pointer), None);
            assert_eq!(locate(text, &pointer), None);
            // Linear: microseconds. Quadratic, the first took 5 s in a debug build.
            let took = start.elapsed();
            assert!(took < std::time::Duration::from_secs(1), "{took:?} for {} bytes", pointer.len());
        }
    }
}
