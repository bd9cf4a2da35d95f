//! `spindle merge`: the shard files of a sharded check (`spindle check --shard I/N`) into the
//! report the unsharded run would have written, byte for byte, and the run's exit status.
//!
//! Each shard kept its hosts as the report's own writer rendered them, with their place in the
//! whole run; the merge checks that the files are every shard of one run, each once and
//! complete, then replays their hosts in that order into the same writer (see
//! `spindle_report::shard`). A shard that is missing, repeated, unfinished or from another run
//! is refused, with nothing written: a merge never passes a fleet it only partly saw.

use std::fs::{self, File};
use std::io::BufReader;
use std::path::{Path, PathBuf};

use spindle_report::shard::{self, MergeError, ShardReader};

use crate::errors::UserError;
use crate::options::Exit;
use crate::output::Output;
use crate::verdict::{Causes, exit_code, summary_line};
use crate::writers::{ReportSpec, report_io, warn_on_stderr};

/// Merges the shard files `inputs` (files, or directories standing for every file under them)
/// into `output` (stdout when `None` or `-`).
pub fn run(inputs: &[PathBuf], output: Option<&Path>) -> Result<Exit, UserError> {
    let files = shard_files(inputs)?;
    let mut shards = vec![];
    let mut errors = vec![];
    for path in &files {
        let name = path.display().to_string();
        let opened = File::open(path)
            .map_err(|e| format!("{name}: cannot open: {e}"))
            .and_then(|f| ShardReader::open(&name, BufReader::with_capacity(1 << 20, f)));
        match opened {
            Ok(s) => shards.push(s),
            Err(e) => errors.push(UserError::plain(e)),
        }
    }
    if let Some(e) = UserError::all("spindle merge", errors) {
        return Err(e);
    }
    let spec = one_run(&shards)?;
    let mut out = Output::new(output)?;
    let merged = {
        let mut writer = spec.writer(out.writer(), warn_on_stderr());
        shard::merge(shards, &mut *writer)
    };
    let summary = match merged {
        Ok(s) => s,
        Err(e) => {
            out.abort();
            return Err(match e {
                MergeError::Shard(m) => UserError::plain(m),
                MergeError::Write(e) => report_io(e),
            });
        }
    };
    out.commit()?;
    let exit = exit_code(&summary, spec.fail_on);
    if let Some(dest) = output.filter(|d| d.as_os_str() != "-") {
        eprintln!("{}", summary_line(&summary, &Causes::default(), exit, spec.fail_on, dest));
    }
    Ok(exit)
}

/// The files given, with each directory replaced by the files under it (sorted: the order of
/// the shards does not change the report, but the order of the errors should not move).
fn shard_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, UserError> {
    let mut files = vec![];
    for input in inputs {
        let meta = fs::metadata(input).map_err(|e| UserError::plain(format!("{}: {e}", input.display())))?;
        if !meta.is_dir() {
            files.push(input.clone());
            continue;
        }
        let mut stack = vec![input.clone()];
        let mut found = vec![];
        while let Some(dir) = stack.pop() {
            let entries =
                fs::read_dir(&dir).map_err(|e| UserError::plain(format!("{}: {e}", dir.display())))?;
            for entry in entries {
                let entry = entry.map_err(|e| UserError::plain(format!("{}: {e}", dir.display())))?;
                let kind =
                    entry.file_type().map_err(|e| UserError::plain(format!("{}: {e}", dir.display())))?;
                if kind.is_dir() {
                    stack.push(entry.path());
                } else if kind.is_file() {
                    found.push(entry.path());
                }
            }
        }
        if found.is_empty() {
            return Err(UserError::plain(format!("{}: no shard file in this directory", input.display())));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Checks that `shards` are every shard of one run, each once, and returns how its report is
/// written.
fn one_run<R: std::io::BufRead>(shards: &[ShardReader<R>]) -> Result<ReportSpec, UserError> {
    let first = &shards[0].header;
    if let Some(other) = shards.iter().find(|s| !s.header.same_run(first)) {
        return Err(UserError::plain(format!(
            "{} is shard {}/{} of another run than {} ({}/{}): the shards of one merge come from one `spindle check` command line and one spindle",
            other.name(),
            other.header.index,
            other.header.count,
            shards[0].name(),
            first.index,
            first.count
        )));
    }
    let count = first.count;
    let mut seen: Vec<Option<&str>> = vec![None; count as usize];
    for s in shards {
        let slot = &mut seen[s.header.index as usize - 1];
        if let Some(earlier) = slot {
            return Err(UserError::plain(format!(
                "{} and {} are both shard {}/{count}",
                earlier,
                s.name(),
                s.header.index
            )));
        }
        *slot = Some(s.name());
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{}/{count}", i + 1))
        .collect();
    if !missing.is_empty() {
        return Err(UserError::plain(format!(
            "shard{} {} missing: a merge of part of the fleet would pass hosts nobody checked",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )));
    }
    serde_json::from_value(first.writer.clone())
        .map_err(|e| UserError::plain(format!("{}:1: the report's description: {e}", shards[0].name())))
}
