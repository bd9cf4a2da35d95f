//! A snapshot file's text, indexed for reports: line and column of a byte offset by binary
//! search, and every object and array by JSON pointer (one scan, on the first look-up), so
//! locating many facts in one file costs about one scan of it rather than one scan per fact.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::locate::{Span, containers, locate, locate_from};

#[derive(Debug)]
pub struct SourceDoc {
    pub path: String,
    pub text: String,
    /// Byte offset of the start of every line.
    lines: OnceLock<Vec<usize>>,
    /// Where each object and array starts, by JSON pointer; `None` inside when the text is not
    /// JSON (then every look-up scans from the top).
    containers: OnceLock<Option<HashMap<String, usize>>>,
}

impl Clone for SourceDoc {
    fn clone(&self) -> Self {
        SourceDoc::new(self.path.clone(), self.text.clone())
    }
}

impl SourceDoc {
    pub fn new(path: String, text: String) -> Self {
        SourceDoc { path, text, lines: OnceLock::new(), containers: OnceLock::new() }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        let lines = self.lines.get_or_init(|| {
            std::iter::once(0).chain(self.text.match_indices('\n').map(|(i, _)| i + 1)).collect()
        });
        let line = lines.partition_point(|&start| start <= byte);
        let start = lines[line - 1];
        let column = self.text.get(start..byte).map_or(byte - start, |s| s.chars().count());
        (line, column + 1)
    }

    /// The span of the value at `pointer`, as [`locate`] finds it.
    pub fn locate(&self, pointer: &str) -> Option<Span> {
        let containers =
            self.containers.get_or_init(|| containers(&self.text).map(|c| c.into_iter().collect()));
        let Some(containers) = containers else { return locate(&self.text, pointer) };
        let Some(cut) = pointer.rfind('/') else { return locate(&self.text, pointer) };
        let Some(&parent) = containers.get(&pointer[..cut]) else {
            // Deeper than the index: from the deepest indexed ancestor.
            let mut at = cut;
            while let Some(up) = pointer[..at].rfind('/') {
                if let Some(&start) = containers.get(&pointer[..up]) {
                    return locate_from(&self.text, start, &pointer[up..]);
                }
                at = up;
            }
            return locate(&self.text, pointer);
        };
        match containers.get(pointer) {
            // An element of an array has no key to report: go straight to it.
            Some(&start) if self.text.as_bytes()[parent] == b'[' => locate_from(&self.text, start, ""),
            // A member (its key is part of the span) or a scalar: look in what holds it.
            _ => locate_from(&self.text, parent, &pointer[cut..]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceDoc;
    use crate::load::line_col;
    use crate::locate::locate;

    const DOC: &str = "{\n  \"a\": [ {\"x\": 1, \"y\": \"é\"},\n    {\"x\": 2, \"y\": [3, 4]} ],\n  \"b\": {\"c\": true}\n}\n";

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
}
