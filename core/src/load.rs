//! Reading snapshot files: every error names the file, line and column.

use std::fmt;

use serde::Deserialize;

use crate::facts::{SCHEMA_VERSION, Snapshot};
use crate::view::Document;

/// Why a snapshot could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub path: String,
    /// 1-based; 0 when the error is about the file as a whole.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for LoadError {}

/// Parses a snapshot. Checks the schema version before blaming any field, so a file from a newer
/// spindle says so instead of listing fields this build does not know.
pub fn parse_snapshot(path: &str, mut text: String) -> Result<Document, LoadError> {
    // PowerShell's Out-File and Set-Content write a byte-order mark; JSON parsers refuse it.
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    match serde_json::from_str::<Snapshot>(&text) {
        Ok(snapshot) if snapshot.schema_version == SCHEMA_VERSION => {
            Ok(Document { path: path.to_string(), text, snapshot })
        }
        Ok(snapshot) => Err(version_error(path, &text, snapshot.schema_version)),
        Err(e) => {
            #[derive(Deserialize)]
            struct VersionOnly {
                schema_version: u32,
            }
            if let Ok(v) = serde_json::from_str::<VersionOnly>(&text)
                && v.schema_version != SCHEMA_VERSION
            {
                return Err(version_error(path, &text, v.schema_version));
            }
            Err(LoadError {
                path: path.to_string(),
                line: e.line(),
                column: e.column(),
                message: e.to_string().replace(&format!(" at line {} column {}", e.line(), e.column()), ""),
            })
        }
    }
}

fn version_error(path: &str, text: &str, found: u32) -> LoadError {
    let (line, column) = text.find("\"schema_version\"").map(|i| line_col(text, i)).unwrap_or((0, 0));
    LoadError {
        path: path.to_string(),
        line,
        column,
        message: format!("unsupported schema_version {found}: this spindle reads version {SCHEMA_VERSION}"),
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
}
