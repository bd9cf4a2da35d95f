//! The scanner: a cursor over JSON text that finds members and elements and skips (checking, or
//! for parsed text trusting) the values it passes.

use std::ops::Range;

use super::bytes::{first_special, first_structural};
use super::key::key_equals;

pub(super) struct Scanner<'t> {
    pub(super) b: &'t [u8],
    pub(super) pos: usize,
    /// The text was parsed as JSON already: values are skipped by their delimiters, unchecked.
    pub(super) parsed: bool,
}

impl Scanner<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    pub(super) fn ws(&mut self) {
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
    pub(super) fn find_member(&mut self, name: &str) -> Option<Range<usize>> {
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
    pub(super) fn find_element(&mut self, index: usize) -> Option<()> {
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
    pub(super) fn value(&mut self) -> Option<Range<usize>> {
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
    pub(super) fn member_key(&mut self) -> Option<Range<usize>> {
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
    pub(super) fn scalar(&mut self, c: u8) -> Option<()> {
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
