//! `spindle check --baseline FILE`: the findings a baseline recorded (see
//! [`spindle_report::baseline`] for the file), and each finding of a run marked new or
//! unchanged against them, once, where the host is checked, so that every writer reads the same
//! state from the finding itself.
//!
//! Only fingerprints are kept, sorted: memory is O(findings of the baseline), and nothing of any
//! host is kept after it is checked.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use miette::{NamedSource, SourceSpan};
use serde::Deserialize;
use spindle_core::engine::HostReport;
use spindle_core::finding::BaselineState;
use spindle_report::baseline::VERSION;
use spindle_report::fingerprint_value;

use crate::errors::UserError;

/// A baseline file bigger than this is refused rather than read into memory: a fleet of 10,000
/// hosts with every rule failing on every partition stays far below it.
const MAX_BYTES: u64 = 512 << 20;

/// The findings of a baseline, by fingerprint, each with whether a run has found it again.
#[derive(Debug)]
pub struct Baseline {
    /// Sorted by fingerprint, each once.
    recorded: Vec<Recorded>,
    seen: Vec<AtomicBool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Recorded {
    fingerprint: u64,
    /// Recorded under a waiver.
    waived: bool,
}

#[derive(Deserialize)]
struct File {
    #[serde(deserialize_with = "version")]
    #[allow(dead_code)]
    spindle_baseline: u32,
    findings: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(deserialize_with = "hex_fingerprint")]
    fingerprint: u64,
    #[serde(default)]
    waived: bool,
}

fn version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v != VERSION {
        return Err(serde::de::Error::custom(format!(
            "baseline version {v}: this spindle reads version {VERSION} (record the baseline again)"
        )));
    }
    Ok(v)
}

fn hex_fingerprint<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let s = String::deserialize(d)?;
    if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(serde::de::Error::custom(format!(
            "fingerprint {}: expected 16 hexadecimal digits",
            spindle_core::untrusted::name(&s)
        )));
    }
    u64::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
}

impl Baseline {
    /// Reads the baseline at `path`. A file that is not one is an error naming the file and
    /// the line and column.
    pub fn load(path: &Path) -> Result<Baseline, UserError> {
        let shown = path.display().to_string();
        let cannot =
            |e: &dyn std::fmt::Display| UserError::plain(format!("{shown}: cannot read the baseline: {e}"));
        let meta = fs::metadata(path).map_err(|e| cannot(&e))?;
        if meta.len() > MAX_BYTES {
            return Err(cannot(&format!(
                "{} bytes, more than the {MAX_BYTES} a baseline may have",
                meta.len()
            )));
        }
        let text = fs::read_to_string(path).map_err(|e| cannot(&e))?;
        Baseline::parse(&shown, text)
    }

    /// [`Baseline::load`] of `text`, read from `name`.
    pub fn parse(name: &str, text: String) -> Result<Baseline, UserError> {
        let file: File = match serde_json::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                let (line, column) = (e.line(), e.column());
                // serde_json's message ends with the position, which leads ours.
                let why = e.to_string();
                let why = why.strip_suffix(&format!(" at line {line} column {column}")).unwrap_or(&why);
                let message = format!("{name}:{line}:{column}: not a spindle baseline: {why}");
                let span = (line > 0).then(|| {
                    // serde_json counts columns in bytes; the span wants a byte offset.
                    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
                    let offset = (start + column.saturating_sub(1)).min(text.len());
                    let offset = (0..=offset).rev().find(|&o| text.is_char_boundary(o)).unwrap_or(0);
                    SourceSpan::from(offset..offset + text[offset..].chars().next().map_or(0, char::len_utf8))
                });
                return Err(UserError {
                    help: Some(
                        "a baseline is written by `spindle baseline -o FILE <inputs>`; record it again"
                            .into(),
                    ),
                    src: span.map(|_| NamedSource::new(name, text)),
                    span,
                    ..UserError::plain(message)
                });
            }
        };
        let mut recorded: Vec<Recorded> =
            file.findings.iter().map(|e| Recorded { fingerprint: e.fingerprint, waived: e.waived }).collect();
        recorded.sort_unstable();
        recorded.dedup_by_key(|r| r.fingerprint);
        let seen = recorded.iter().map(|_| AtomicBool::new(false)).collect();
        Ok(Baseline { recorded, seen })
    }

    /// Marks each finding of `report` new or unchanged. A finding recorded under a waiver that
    /// no longer holds is new: the baseline does not take over an expired waiver.
    pub fn mark(&self, report: &mut HostReport) {
        for f in &mut report.findings {
            let state = match self.recorded.binary_search_by_key(&fingerprint_value(f), |r| r.fingerprint) {
                Ok(i) => {
                    self.seen[i].store(true, Ordering::Relaxed);
                    if self.recorded[i].waived && !f.is_waived() {
                        BaselineState::New
                    } else {
                        BaselineState::Unchanged
                    }
                }
                Err(_) => BaselineState::New,
            };
            f.baseline = Some(state);
        }
    }

    /// Findings of the baseline no host of the run had: fixed (or their host was not checked).
    pub fn absent(&self) -> usize {
        self.seen.iter().filter(|s| !s.load(Ordering::Relaxed)).count()
    }

    /// How many findings the baseline holds.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}
