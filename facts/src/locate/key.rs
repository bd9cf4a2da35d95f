//! Comparing a JSON string's raw contents with a name, escapes decoded on the fly.

/// Whether the raw contents of a JSON string (between its quotes, escapes undecoded) spell `name`.
pub(super) fn key_equals(raw: &[u8], name: &str) -> bool {
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
