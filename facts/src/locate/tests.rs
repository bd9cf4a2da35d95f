use super::bytes::first_structural;
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
