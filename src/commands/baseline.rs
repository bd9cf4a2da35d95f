//! `spindle baseline`: today's findings recorded by fingerprint, so that `spindle check
//! --baseline FILE` fails only on new ones. It is a check whose report is the baseline file: the
//! same inputs, packs and requirements, read and judged as `check` reads and judges them.

use std::path::PathBuf;

use crate::errors::UserError;
use crate::options::{CheckOptions, Exit, FailOn, Format, Require, RuleChoice};
use crate::sources::Source;

/// What `spindle baseline` was asked for.
#[derive(Debug, Clone)]
pub struct BaselineOptions {
    /// Where the facts come from, as for `spindle check` (the command line: snapshot files).
    pub sources: Vec<Source>,
    /// Where the baseline goes (atomically).
    pub output: PathBuf,
    pub rules: RuleChoice,
    /// Facts every host must have, as for `spindle check`.
    pub require: Vec<Require>,
    /// Hosts checked at once; `None`: one per CPU.
    pub jobs: Option<usize>,
}

/// Writes the baseline. Exit status 0 when written; [`Exit::Incomplete`] when a host could not
/// be fully checked (the baseline is written, without what could not be checked).
pub fn run(o: &BaselineOptions) -> Result<Exit, UserError> {
    crate::commands::check::run(&CheckOptions {
        sources: o.sources.clone(),
        packs: o.rules.packs.clone(),
        discover_config: o.rules.discover_config,
        selection: o.rules.selection.clone(),
        format: Format::named("baseline").expect("baseline is a format"),
        output: Some(o.output.clone()),
        fail_on: FailOn::Never,
        require: o.require.clone(),
        jobs: o.jobs,
        ..CheckOptions::default()
    })
}
