//! Reading snapshot files: every error names the file, line and column.

use std::fmt;

use serde::Deserialize;

use crate::facts::{SCHEMA_VERSION, Snapshot};
use crate::locate::locate;
use crate::names::did_you_mean;
use crate::tolerant::{self, Unknown};
use crate::view::Document;

/// Why a snapshot could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub path: String,
    /// 1-based; 0 when the error is about the file as a whole.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// A hint, such as "did you mean `cpu_count`?" for a misspelt field.
    pub help: Option<String>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)?;
        } else {
            write!(f, "{}: {}", self.path, self.message)?;
        }
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Parses a snapshot file, strictly: a field this build does not know is an error naming its
/// line, column and JSON pointer (a typo, or a file for another spindle). Checks the schema
/// version before blaming any field, so a file from a newer spindle says so instead of listing
/// fields this build does not know.
pub fn parse_snapshot(path: &str, text: String) -> Result<Document, LoadError> {
    parse(path, text, false).map(|t| t.document)
}

/// A snapshot read by [`parse_snapshot_tolerant`], and the members it skipped.
#[derive(Debug, Clone)]
pub struct Tolerated {
    pub document: Document,
    /// JSON pointers of the object members this build does not know, in document order
    /// (`/volumes/0/fs_stripe_unit_bytes`). Their values were skipped.
    pub ignored: Vec<String>,
}

/// Parses facts from a spindle that may be newer than this build (what a plugin receives):
/// object members this build does not know are skipped and listed instead of refused. Anything
/// else that [`parse_snapshot`] refuses is still refused, the schema version first.
///
/// Costs what [`parse_snapshot`] costs when every field is known; otherwise a second, tolerant
/// parse follows the strict one.
pub fn parse_snapshot_tolerant(path: &str, text: String) -> Result<Tolerated, LoadError> {
    parse(path, text, true)
}

fn parse(path: &str, mut text: String, tolerate: bool) -> Result<Tolerated, LoadError> {
    // PowerShell's Out-File and Set-Content write a byte-order mark; JSON parsers refuse it.
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    // The strict parse first: the facts types deny unknown fields, so this is the one parse
    // when every field is known, in either mode.
    let e = match serde_json::from_str::<Snapshot>(&text) {
        Ok(snapshot) => return accept(path, text, snapshot, vec![]),
        Err(e) => e,
    };
    // Only for an unknown field: the tolerant parse walks the text in the same order, so the
    // first member it skips is the one the strict parse stopped at.
    let mut unknown: Vec<Unknown> = vec![];
    if e.to_string().starts_with("unknown field `") {
        let tolerant = tolerant::from_str::<Snapshot>(&text, |u| unknown.push(u));
        if tolerate && let Ok(snapshot) = tolerant {
            let ignored = unknown.into_iter().map(|u| u.pointer).collect();
            return accept(path, text, snapshot, ignored);
        }
    }
    #[derive(Deserialize)]
    struct VersionOnly {
        schema_version: u32,
    }
    if let Ok(v) = serde_json::from_str::<VersionOnly>(&text)
        && v.schema_version != SCHEMA_VERSION
    {
        return Err(version_error(path, &text, v.schema_version));
    }
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = e.to_string().replace(&position, "");
    match unknown.into_iter().next() {
        Some(u) => Err(unknown_field_error(path, &text, &e, message, u)),
        None => {
            Err(LoadError { path: path.to_string(), line: e.line(), column: e.column(), message, help: None })
        }
    }
}

fn accept(
    path: &str,
    text: String,
    snapshot: Snapshot,
    ignored: Vec<String>,
) -> Result<Tolerated, LoadError> {
    if snapshot.schema_version != SCHEMA_VERSION {
        return Err(version_error(path, &text, snapshot.schema_version));
    }
    Ok(Tolerated { document: Document { path: path.to_string(), text, snapshot }, ignored })
}

/// serde's "unknown field `cpus`, expected one of ..." with the member's pointer, positioned at
/// its key (serde_json's position is after it), and the closest known field as a hint.
fn unknown_field_error(
    path: &str,
    text: &str,
    e: &serde_json::Error,
    message: String,
    u: Unknown,
) -> LoadError {
    let (line, column) = locate(text, &u.pointer)
        .and_then(|span| span.key)
        .map_or((e.line(), e.column()), |key| line_col(text, key.start));
    let named = format!("unknown field `{}`", u.key);
    let message = match message.strip_prefix(&named) {
        Some(rest) => format!("{named} at {}{rest}", u.pointer),
        None => format!("{message} (at {})", u.pointer),
    };
    LoadError {
        path: path.to_string(),
        line,
        column,
        message,
        help: did_you_mean(&u.key, u.fields.iter().copied()),
    }
}

fn version_error(path: &str, text: &str, found: u32) -> LoadError {
    let (line, column) = text.find("\"schema_version\"").map(|i| line_col(text, i)).unwrap_or((0, 0));
    LoadError {
        path: path.to_string(),
        line,
        column,
        message: format!("unsupported schema_version {found}: this spindle reads version {SCHEMA_VERSION}"),
        help: None,
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_position_of_bad_field() {
        let text =
            "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\", \"cpu_count\": -4}\n}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert_eq!((e.line, e.path.as_str()), (3, "f.json"));
        assert!(e.message.contains("-4"), "{e}");
    }

    #[test]
    fn newer_version_is_named() {
        let text = "{\"schema_version\": 7, \"host\": {\"name\": \"a\"}, \"future\": 1}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(e.message.contains("unsupported schema_version 7"), "{e}");
    }

    #[test]
    fn byte_order_mark_is_accepted() {
        let text = "\u{feff}{\"schema_version\": 1, \"host\": {\"name\": \"a\"}}".to_string();
        assert_eq!(parse_snapshot("f.json", text).unwrap().snapshot.host.name, "a");
    }

    #[test]
    fn unknown_field_is_an_error() {
        let text = "{\"schema_version\": 1, \"host\": {\"name\": \"a\", \"cpus\": 4}}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(e.message.contains("unknown field `cpus`"), "{e}");
    }

    /// A snapshot with a field this build does not know at the top level and in a volume (after
    /// one that is fine), and the same without them.
    const NEWER: &str = "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\"},\n  \"volumes\": [\n    {\"id\": \"v0\"},\n    {\"id\": \"v1\", \"fs_stripe_unit\": 65536}\n  ],\n  \"collector_build\": \"9.9\"\n}";
    const KNOWN: &str = "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\"},\n  \"volumes\": [\n    {\"id\": \"v0\"},\n    {\"id\": \"v1\"}\n  ]\n}";

    #[test]
    fn unknown_field_names_its_key_position_pointer_and_closest_field() {
        let e = parse_snapshot("f.json", NEWER.to_string()).unwrap_err();
        // Line 6, at the key's opening quote.
        assert_eq!((e.line, e.column), (6, 18), "{e}");
        assert!(
            e.message.starts_with(
                "unknown field `fs_stripe_unit` at /volumes/1/fs_stripe_unit, expected one of `id`"
            ),
            "{e}"
        );
        assert_eq!(e.help.as_deref(), Some("did you mean `fs_stripe_unit_bytes`?"));
        assert!(e.to_string().starts_with("f.json:6:18: unknown field `fs_stripe_unit` at "), "{e}");
        assert!(e.to_string().ends_with(" (did you mean `fs_stripe_unit_bytes`?)"), "{e}");

        // Nothing close: no hint. Escaped keys are found too.
        let text = "{\"schema_version\": 1, \"host\": {\"name\": \"a\", \"zz\\u0031\": 4}}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert_eq!((e.line, e.column, e.help), (1, 45, None), "{}", e.message);
        assert!(e.message.starts_with("unknown field `zz1` at /host/zz1, expected one of"), "{}", e.message);
    }

    #[test]
    fn tolerant_parse_skips_and_lists_unknown_fields() {
        let t = parse_snapshot_tolerant("facts-json", NEWER.to_string()).unwrap();
        assert_eq!(t.ignored, ["/volumes/1/fs_stripe_unit", "/collector_build"]);
        let known = parse_snapshot("facts-json", KNOWN.to_string()).unwrap();
        assert_eq!(t.document.snapshot, known.snapshot);
        // The text is kept as given, for locating facts in reports.
        assert_eq!(t.document.text, NEWER);

        let t = parse_snapshot_tolerant("facts-json", KNOWN.to_string()).unwrap();
        assert!(t.ignored.is_empty());
    }

    #[test]
    fn tolerant_parse_refuses_what_is_not_an_unknown_field() {
        let newer_version = NEWER.replace("\"schema_version\": 1", "\"schema_version\": 2");
        let e = parse_snapshot_tolerant("facts-json", newer_version).unwrap_err();
        assert!(e.message.contains("unsupported schema_version 2"), "{e}");
        assert_eq!(e.line, 2);

        let bad_value = NEWER.replace("\"v0\"}", "\"v0\", \"size_bytes\": -1}");
        let e = parse_snapshot_tolerant("facts-json", bad_value).unwrap_err();
        assert!(e.message.contains("-1"), "{e}");
        assert_eq!(e.line, 5);
    }
}
