//! Each database file's I/O before and after, as a diff reports it.

use serde::Serialize;
use spindle_core::units::duration;

/// Fewest reads (or writes) for an average to be compared: the latency rules' `min_reads`
/// default. One slow I/O of `t` ms moves an average over `n` by `t / n`.
pub const MIN_IOS: u64 = 1000;

/// What a side's counters cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    /// A short window (an hour at most, when the counters do not say): the present.
    Sampled,
    /// Since the service started: a long window, or one not recorded.
    Cumulative,
}

/// One side's counters of one file, and the averages and rates they give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IoSide {
    pub window: WindowKind,
    /// `window` is what the snapshot recorded; `false`: guessed from `window_ms`.
    pub window_recorded: bool,
    /// `sample_ms`, when recorded.
    pub window_ms: Option<u64>,
    pub reads: u64,
    pub writes: u64,
    /// No reads: no average (no data, not 0 ms).
    pub avg_read_stall_ms: Option<f64>,
    pub avg_write_stall_ms: Option<f64>,
    /// Only with a known window.
    pub read_bytes_per_s: Option<f64>,
    pub write_bytes_per_s: Option<f64>,
}

impl IoSide {
    /// `cumulative over 21 days`, `sampled over 1 min`, `cumulative, window not recorded`.
    pub fn describe(&self) -> String {
        let kind = match self.window {
            WindowKind::Sampled => "sampled",
            WindowKind::Cumulative => "cumulative",
        };
        match self.window_ms {
            Some(ms) => format!("{kind} over {}", duration(ms)),
            None => format!("{kind}, window not recorded"),
        }
    }

    /// At least [`MIN_IOS`] reads or writes: enough to be worth listing.
    pub fn busy(&self) -> bool {
        self.reads >= MIN_IOS || self.writes >= MIN_IOS
    }
}

/// One measure of a file before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metric {
    /// `read_stall_ms`, `write_stall_ms` (average per I/O), `read_bytes_per_s`,
    /// `write_bytes_per_s`.
    pub name: &'static str,
    pub before: Option<f64>,
    pub after: Option<f64>,
    /// `(after − before) / before`, in percent; only when the two are comparable (same kind of
    /// window, and for an average at least [`MIN_IOS`] I/Os each side).
    pub change_percent: Option<f64>,
}

/// One database file's I/O before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileIo {
    /// `MSSQLSERVER › ERP_PROD › ERP_PROD_Data`.
    pub file: String,
    /// `rows` or `log` (as the snapshot has it).
    #[serde(rename = "type")]
    pub file_type: &'static str,
    pub before: Option<IoSide>,
    pub after: Option<IoSide>,
    /// Both sides have counters of the same kind of window.
    pub comparable: bool,
    /// Why the sides are not comparable, or what a reader must know of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub metrics: Vec<Metric>,
    /// Two cumulative readings without a restart between them: what the file did between the
    /// snapshots (AFTER's counters less BEFORE's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub between: Option<IoSide>,
}
