//! `spindle check --baseline FILE`: the findings a baseline recorded (see
//! [`spindle_report::baseline`] for the file), and each finding of a run marked new or
//! unchanged against them, once, where the host is checked, so that every writer reads the same
//! state from the finding itself.
//!
//! Only fingerprints are kept, sorted: memory is O(findings of the baseline), and nothing of any
//! host is kept after it is checked.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use miette::{NamedSource, SourceSpan};
use serde::Deserialize;
use spindle_core::engine::{ActiveRule, HostReport};
use spindle_core::finding::BaselineState;
use spindle_report::baseline::{BaselineEntry, VERSION};
use spindle_report::fingerprint_value;

use crate::errors::UserError;

/// A baseline file bigger than this is refused rather than read into memory: a fleet of 10,000
/// hosts with every rule failing on every partition stays far below it.
const MAX_BYTES: u64 = 512 << 20;

/// The findings of a baseline, by fingerprint, each with whether a run has found it again and
/// whether it looked for it at all.
#[derive(Debug)]
pub struct Baseline {
    /// Sorted by fingerprint, each once.
    recorded: Vec<Recorded>,
    /// Found again by a host of the run.
    seen: Vec<AtomicBool>,
    /// Its host was checked by this run, with its rule active and evaluated on it: only such a
    /// finding, not found again, is fixed. The others are "not checked": a one-host run against
    /// a fleet's baseline fixes nothing on the hosts it never read.
    looked: Vec<AtomicBool>,
    /// Indexes into `recorded`, by host.
    by_host: HashMap<Box<str>, Vec<usize>>,
    /// The checks the baseline recorded as not evaluated (a fact missing), sorted: under a
    /// baseline only a new one fails `--fail-on note`.
    not_evaluated: Vec<NotEvaluatedKey>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Recorded {
    fingerprint: u64,
    /// Recorded under a waiver.
    waived: bool,
    host: Box<str>,
    entity: Box<str>,
    code: Box<str>,
}

/// What identifies a check not evaluated across runs: host, rule, entity (empty for the host
/// as a whole) and the missing fact.
type NotEvaluatedKey = (Box<str>, Box<str>, Box<str>, Box<str>);

#[derive(Deserialize)]
struct File {
    #[serde(deserialize_with = "version")]
    #[allow(dead_code)]
    spindle_baseline: u32,
    findings: Vec<Entry>,
    /// Absent from baselines written before it was recorded: every check not evaluated is then
    /// new.
    #[serde(default)]
    not_evaluated: Vec<NotEvaluatedEntry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(deserialize_with = "hex_fingerprint")]
    fingerprint: u64,
    #[serde(default)]
    waived: bool,
    // For the reader, and to tell fixed from not checked: an entry without them is never
    // counted fixed.
    #[serde(default)]
    host: String,
    #[serde(default)]
    entity: String,
    #[serde(default)]
    code: String,
}

#[derive(Deserialize)]
struct NotEvaluatedEntry {
    host: String,
    code: String,
    #[serde(default)]
    entity: String,
    missing: String,
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
        // Opened without waiting and refused unless a regular file: a named pipe would hang the
        // run, and /dev/zero has no end. At most one byte over the cap is read.
        let bytes = spindle_files::read_regular(path, MAX_BYTES).map_err(|e| cannot(&e))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| cannot(&format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
        // As a Windows editor saves it; JSON has no byte order mark, so serde_json would refuse it.
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
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
        let mut recorded: Vec<Recorded> = file
            .findings
            .into_iter()
            .map(|e| Recorded {
                fingerprint: e.fingerprint,
                waived: e.waived,
                host: e.host.into(),
                entity: e.entity.into(),
                code: e.code.into(),
            })
            .collect();
        recorded.sort_unstable();
        recorded.dedup_by_key(|r| r.fingerprint);
        let seen = recorded.iter().map(|_| AtomicBool::new(false)).collect();
        let looked = recorded.iter().map(|_| AtomicBool::new(false)).collect();
        let mut by_host: HashMap<Box<str>, Vec<usize>> = HashMap::new();
        for (i, r) in recorded.iter().enumerate() {
            by_host.entry(r.host.clone()).or_default().push(i);
        }
        let mut not_evaluated: Vec<NotEvaluatedKey> = file
            .not_evaluated
            .into_iter()
            .map(|n| (n.host.into(), n.code.into(), n.entity.into(), n.missing.into()))
            .collect();
        not_evaluated.sort_unstable();
        not_evaluated.dedup();
        Ok(Baseline { recorded, seen, looked, by_host, not_evaluated })
    }

    /// Marks each finding of `report` new or unchanged, and notes which of the baseline's
    /// findings of its host this run looked for (`active`: the rules the host was checked with).
    /// A finding recorded under a waiver that no longer holds is new: the baseline does not take
    /// over an expired waiver. Returns how many of the host's checks not evaluated are new.
    pub fn mark(&self, report: &mut HostReport, active: &[ActiveRule<'_>]) -> usize {
        if let Some(indexes) = self.by_host.get(report.host.as_str()) {
            for &i in indexes {
                let r = &self.recorded[i];
                let evaluated = active.iter().any(|a| *a.code == *r.code)
                    && !report.errors.iter().any(|e| *e.code == *r.code)
                    && !report
                        .not_evaluated
                        .iter()
                        .any(|n| *n.code == *r.code && n.entity.as_ref().is_none_or(|e| *e.key == *r.entity));
                if evaluated && report.not_judged.is_empty() {
                    self.looked[i].store(true, Ordering::Relaxed);
                }
            }
        }
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
        report
            .not_evaluated
            .iter()
            .filter(|n| {
                let entity = n.entity.as_ref().map_or("", |e| e.key.as_str());
                let key = (report.host.as_str(), n.code.as_str(), entity, n.missing.as_str());
                self.not_evaluated.binary_search_by(|k| (&*k.0, &*k.1, &*k.2, &*k.3).cmp(&key)).is_err()
            })
            .count()
    }

    /// Findings of the baseline that a host of the run was checked for, with their rule, and
    /// did not have: fixed.
    /// Only the findings of hosts `mine` holds count (all, but in a shard).
    pub fn fixed(&self, mine: impl Fn(&str) -> bool) -> usize {
        self.absent()
            .filter(|&i| self.looked[i].load(Ordering::Relaxed) && mine(&self.recorded[i].host))
            .count()
    }

    /// Findings of the baseline not found because this run did not look for them (their host
    /// not in it, their rule not active or not evaluated on it): neither fixed nor still there.
    /// Only the findings of hosts `mine` holds count (all, but in a shard).
    pub fn not_checked(&self, mine: impl Fn(&str) -> bool) -> Vec<BaselineEntry> {
        self.absent()
            .filter(|&i| !self.looked[i].load(Ordering::Relaxed) && mine(&self.recorded[i].host))
            .map(|i| {
                let r = &self.recorded[i];
                BaselineEntry {
                    host: r.host.to_string(),
                    entity: r.entity.to_string(),
                    code: r.code.to_string(),
                    fingerprint: format!("{:016x}", r.fingerprint),
                    index: i,
                }
            })
            .collect()
    }

    fn absent(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.recorded.len()).filter(|&i| !self.seen[i].load(Ordering::Relaxed))
    }

    /// How many findings the baseline holds.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}
