//! A whole diff as data: both sides, every host, and the counts. Working it out is the
//! library's (`spindle diff`); writing it is the renderers'.

use serde::Serialize;

use super::change::Change;
use super::findings::FindingDiff;
use super::io::FileIo;
#[cfg(doc)]
use super::io::MIN_IOS;

/// The version of the JSON document's layout, its `spindle_diff` key.
pub const JSON_VERSION: u32 = 1;

/// A whole diff: both sides, every host, and the counts.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub spindle_diff: u32,
    /// The spindle that wrote it.
    pub version: &'static str,
    pub before: String,
    pub after: String,
    /// The packs both sides were checked with, in the order applied.
    pub packs: Vec<String>,
    pub summary: DiffSummary,
    pub hosts: Vec<HostDiff>,
}

/// The counts of a diff, over every host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DiffSummary {
    /// Hosts on both sides.
    pub hosts_compared: usize,
    /// Hosts only AFTER has.
    pub hosts_added: usize,
    /// Hosts only BEFORE has.
    pub hosts_removed: usize,
    /// Findings only AFTER has (those of added hosts too).
    pub new: usize,
    /// Of `new`: those not waived, which `--fail-on-new` fails on.
    pub new_unwaived: usize,
    /// Findings BEFORE had that AFTER's check ran the rule for and no longer found.
    pub fixed: usize,
    pub unchanged: usize,
    /// Findings BEFORE had whose rule AFTER could not evaluate: neither fixed nor still there.
    pub not_evaluated_after: usize,
    pub layout_changes: usize,
    /// Files whose latency could be compared (both sides' counters of one kind).
    pub files_compared: usize,
    pub warnings: usize,
}

/// Whether a host is on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    Both,
    /// Only in AFTER.
    Added,
    /// Only in BEFORE.
    Removed,
}

/// One side of a host: its files and when they were collected.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SideInfo {
    pub snapshots: Vec<String>,
    pub collected_at: Vec<String>,
}

/// What changed on one host.
#[derive(Debug, Clone, Serialize)]
pub struct HostDiff {
    pub host: String,
    pub presence: Presence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<SideInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<SideInfo>,
    pub findings: FindingDiff,
    pub layout: Vec<Change>,
    pub io: Vec<FileIo>,
    /// Files with I/O counters too few on both sides (under [`MIN_IOS`] reads and writes) to
    /// be worth listing.
    pub io_quiet_files: usize,
    /// What a reader must know before trusting the comparison (counters reset by a restart,
    /// rules that failed or a host that could not be judged on one side).
    pub warnings: Vec<String>,
}
