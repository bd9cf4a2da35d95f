//! Writing pretty-printed JSON by hand, byte for byte as serde_json's pretty printer nested by
//! [`super::write_indented`] lays it out. The JSON report writes a few hundred strings per host,
//! and serde_json escapes them a byte at a time through its serializer; this finds the bytes to
//! escape eight at a time. The report's tests check the two agree on every host they write.

use spindle_core::locate::first_special;

/// A JSON document being written into `out`, every line after the first indented by `base`.
pub(crate) struct Emit<'o> {
    out: &'o mut Vec<u8>,
    base: &'static [u8],
    depth: usize,
    /// Whether the open object or array has a member or element yet.
    has_value: bool,
}

impl<'o> Emit<'o> {
    /// `base`: the indentation of the lines after the first, spaces only.
    pub fn new(out: &'o mut Vec<u8>, base: &'static str) -> Self {
        debug_assert!(base.bytes().all(|b| b == b' '), "an indentation of spaces");
        Emit { out, base: base.as_bytes(), depth: 0, has_value: false }
    }

    fn newline(&mut self) {
        // The base is spaces, so a line's indentation is one run of them.
        const SPACES: &[u8; 64] = &[b' '; 64];
        self.out.push(b'\n');
        let mut width = self.base.len() + 2 * self.depth;
        while width > 0 {
            let run = width.min(SPACES.len());
            self.out.extend_from_slice(&SPACES[..run]);
            width -= run;
        }
    }

    pub fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.has_value = false;
    }

    pub fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if self.has_value {
            self.newline();
        }
        self.out.push(bracket);
        self.has_value = true;
    }

    /// Starts the next member of the open object: `"name": `.
    pub fn key(&mut self, name: &str) {
        self.item();
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    /// Starts the next element of the open array.
    pub fn item(&mut self) {
        if self.has_value {
            self.out.push(b',');
        }
        self.newline();
        // Set here rather than after the value: a value that is an object resets it on opening
        // and sets it again on closing.
        self.has_value = true;
    }

    pub fn str(&mut self, s: &str) {
        let out = &mut *self.out;
        out.reserve(s.len() + 2);
        out.push(b'"');
        let mut rest = s.as_bytes();
        loop {
            let plain = first_special(rest);
            out.extend_from_slice(&rest[..plain]);
            let Some(&c) = rest.get(plain) else { break };
            match c {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                c => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[usize::from(c >> 4)]);
                    out.push(HEX[usize::from(c & 0xf)]);
                }
            }
            rest = &rest[plain + 1..];
        }
        out.push(b'"');
    }

    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    pub fn num(&mut self, n: usize) {
        let mut buf = [0u8; 20];
        self.out.extend_from_slice(spindle_core::units::decimal(n as u64, &mut buf));
    }

    /// `"name": [...]`, each item written by `each`.
    pub fn array_member<T>(&mut self, name: &str, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.key(name);
        self.open(b'[');
        for item in items {
            self.item();
            each(self, item);
        }
        self.close(b']');
    }

    /// `"name": "value"`.
    pub fn str_member(&mut self, name: &str, value: &str) {
        self.key(name);
        self.str(value);
    }

    /// `"name": "value"` or `"name": null`.
    pub fn opt_str_member(&mut self, name: &str, value: Option<&str>) {
        self.key(name);
        self.opt_str(value);
    }

    /// A quantity as [`number_value`] writes it: a whole number without a fraction.
    pub fn number(&mut self, n: f64) {
        if is_whole(n) {
            self.num(n as usize);
        } else {
            // Infallible into a Vec; a NaN or infinity (no rule measures one) becomes `null`.
            let _ = serde_json::to_writer(&mut *self.out, &number_value(n));
        }
    }

    pub fn bool(&mut self, b: bool) {
        self.out.extend_from_slice(if b { b"true" } else { b"false" });
    }

    pub fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }
}

fn is_whole(n: f64) -> bool {
    n.fract() == 0.0 && (0.0..9.0e15).contains(&n)
}

/// A quantity as JSON: whole numbers (bytes, counts, most milliseconds) without a fraction
/// (`32256`, not `32256.0`), others as they are (`149.4`).
pub(crate) fn number_value(n: f64) -> serde_json::Value {
    if is_whole(n) { serde_json::Value::from(n as u64) } else { serde_json::Value::from(n) }
}
