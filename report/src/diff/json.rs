//! The diff for programs: every finding with its fingerprint, every change with its values.

use std::io::{self, Write};

use super::model::Diff;

pub(super) fn json(diff: &Diff, w: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, diff).map_err(io::Error::other)?;
    writeln!(w)
}
