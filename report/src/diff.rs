//! A diff of two snapshots of the same hosts (`spindle diff`) as data, and its formats. The
//! library works the diff out (reads both sides, checks them, compares); this module holds
//! what it found and writes it for people (text, Markdown) and programs (JSON). For people, each
//! host reads most important first: new findings, fixed ones, what changed in the layout, then
//! the latency; unchanged findings are only counted. Every name and message from a snapshot is
//! escaped before it reaches a terminal (and, in Markdown, before Markdown can act on it).

mod change;
mod findings;
mod formats;
mod io;
mod json;
mod markdown;
mod model;
mod people;
mod text;

use std::io::Write;

pub use change::{Change, ChangeKind};
pub use findings::{FindingDiff, FindingEntry};
pub use formats::{DIFF_FORMATS, DiffFormat, DiffFormatSpec};
pub use io::{FileIo, IoSide, MIN_IOS, Metric, WindowKind};
pub use model::{Diff, DiffSummary, HostDiff, JSON_VERSION, Presence, SideInfo};

/// Writes `diff` in `format`.
pub fn write(diff: &Diff, format: DiffFormat, w: &mut dyn Write) -> std::io::Result<()> {
    (format.spec().render)(diff, w)
}
