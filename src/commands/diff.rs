//! `spindle diff BEFORE AFTER`: what changed between two snapshots of the same hosts, and what
//! it did. Both sides are read, grouped by host and checked exactly as `spindle check` reads and
//! checks its inputs (the same packs, selection and waivers); hosts pair by name (without case,
//! as `check` groups them). Per host the diff says which findings are new, fixed or unchanged (by
//! fingerprint, as `--baseline` compares them), what changed in the storage layout, and how
//! each database file's latency and throughput moved.
//!
//! The whole diff is worked out before anything is written: a bad file on either side is exit
//! status 2 with nothing written (and a stale `--output` removed), as for `check`.

mod findings;
mod io;
mod layout;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use spindle_core::date::Date;
use spindle_core::engine::HostReport;
use spindle_core::pack::Selection;
use spindle_core::view::HostView;

use crate::engine::Engine;
use crate::errors::UserError;
use crate::options::Exit;
use crate::output::Output;
use crate::sources::{Snapshots, Source};

pub use spindle_report::diff::{
    Change, ChangeKind, Diff, DiffFormat, DiffSummary, FileIo, FindingDiff, FindingEntry, HostDiff, IoSide,
    JSON_VERSION, Metric, Presence, SideInfo, WindowKind,
};

/// `spindle diff`: the two sides, the packs that judge both, and where the diff goes.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Snapshot file or directory of the host(s) before the change.
    pub before: PathBuf,
    /// Snapshot file or directory of the same host(s) after it.
    pub after: PathBuf,
    /// `--exclude`: globs a directory walk leaves out, as for `spindle check`.
    pub exclude: Vec<String>,
    /// Packs, as for `spindle check` (empty: the discovered spindle.toml, else `recommended`).
    pub packs: Vec<String>,
    /// With no `packs`, look for `spindle.toml` (or `.spindle.toml`) as `check` does.
    pub discover_config: bool,
    /// `--select`, `--extend-select`, `--ignore`, over the packs' choice of rules.
    pub selection: Selection,
    pub format: DiffFormat,
    /// Where the diff goes (atomically); `None` or `-`: standard output.
    pub output: Option<PathBuf>,
    /// Exit status 1 when a host has a new finding that is not waived.
    pub fail_on_new: bool,
    /// Hosts diffed at once; `None`: one per CPU.
    pub jobs: Option<usize>,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            before: PathBuf::new(),
            after: PathBuf::new(),
            exclude: vec![],
            packs: vec![],
            discover_config: false,
            selection: Selection::default(),
            format: DiffFormat::named("text").expect("the diff registry has text"),
            output: None,
            fail_on_new: false,
            jobs: None,
        }
    }
}

/// Runs a diff as `options` say and writes it. `Err` is bad input or usage (exit status 2,
/// nothing written, a stale `--output` removed); `Ok` is 0, or 1 with `fail_on_new` and a new
/// finding.
pub fn run(options: &DiffOptions) -> Result<Exit, UserError> {
    let result = diff_and_write(options);
    if result.is_err() {
        crate::writers::remove_stale_report(options.output.as_deref(), &[&options.before, &options.after]);
    }
    result
}

fn diff_and_write(options: &DiffOptions) -> Result<Exit, UserError> {
    let diff = diff(options)?;
    let mut out = Output::new(options.output.as_deref())?;
    let written = spindle_report::diff::write(&diff, options.format, out.writer())
        .map_err(|e| UserError::plain(format!("cannot write the diff: {e}")));
    if let Err(e) = written {
        out.abort();
        return Err(e);
    }
    out.commit()?;
    for h in &diff.hosts {
        for w in &h.warnings {
            eprintln!(
                "warning: {}: {}",
                spindle_core::untrusted::name(&h.host),
                spindle_core::untrusted::message(w)
            );
        }
    }
    if options.fail_on_new && diff.summary.new_unwaived > 0 { Ok(Exit::Findings) } else { Ok(Exit::Clean) }
}

/// One side's files, grouped by host.
struct Side {
    snapshots: Snapshots,
    /// Lower-cased host name and group, in order of first appearance.
    hosts: Vec<(Box<str>, u32)>,
    /// The same, by name: a fleet's hosts are paired without a walk per host.
    by_host: HashMap<Box<str>, u32>,
}

impl Side {
    fn read(path: &Path, threads: usize, exclude: &[String]) -> Result<Side, UserError> {
        let mut snapshots =
            Snapshots::open(&[Source::files(vec![path.to_path_buf()], exclude.to_vec())], threads)?;
        let by_host = snapshots.take_host_index();
        let mut hosts: Vec<(Box<str>, u32)> = by_host.iter().map(|(h, &g)| (h.clone(), g)).collect();
        hosts.sort_unstable_by_key(|&(_, g)| g);
        Ok(Side { snapshots, hosts, by_host })
    }

    fn group(&self, host: &str) -> Option<u32> {
        self.by_host.get(host).copied()
    }

    /// The host's view and its check.
    fn check(&self, g: u32, engine: &Engine, today: Date) -> Result<(HostView, HostReport), UserError> {
        let docs = self.snapshots.load(g as usize)?;
        let view = engine.view(docs);
        let report = engine.check(&view, today);
        Ok((view, report))
    }
}

/// Works the diff out: reads both sides, checks every host on each, compares.
pub fn diff(options: &DiffOptions) -> Result<Diff, UserError> {
    if options.before.as_os_str() == "-" && options.after.as_os_str() == "-" {
        return Err(UserError::plain(
            "BEFORE and AFTER cannot both be standard input (-): name a file for one",
        ));
    }
    let threads =
        options.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1);
    let packs = crate::packs::packs_to_apply(&options.packs, options.discover_config);
    let engine = Engine::load_with(&packs, &options.selection, threads + 1)?;
    let (today, _) = crate::engine::clock()?;
    crate::output::warn_if_among_inputs(options.output.as_deref(), &[&options.before, &options.after]);
    let before = Side::read(&options.before, threads, &options.exclude)?;
    let after = Side::read(&options.after, threads, &options.exclude)?;

    // BEFORE's hosts in its order, each with AFTER's of the same name; then AFTER's own.
    let mut pairs: Vec<(Option<u32>, Option<u32>)> =
        before.hosts.iter().map(|(h, g)| (Some(*g), after.group(h))).collect();
    pairs
        .extend(after.hosts.iter().filter(|(h, _)| before.group(h).is_none()).map(|&(_, g)| (None, Some(g))));

    let mut hosts = Vec::with_capacity(pairs.len());
    crate::ordered::for_each_in_order(
        &pairs,
        threads,
        |&(b, a)| -> Result<HostDiff, UserError> {
            let b = b.map(|g| before.check(g, &engine, today)).transpose()?;
            let a = a.map(|g| after.check(g, &engine, today)).transpose()?;
            Ok(host_diff(b.as_ref(), a.as_ref()))
        },
        |host| {
            hosts.push(host?);
            Ok::<(), UserError>(())
        },
    )?;
    let mut summary = DiffSummary::default();
    for h in &hosts {
        match h.presence {
            Presence::Both => summary.hosts_compared += 1,
            Presence::Added => summary.hosts_added += 1,
            Presence::Removed => summary.hosts_removed += 1,
        }
        summary.new += h.findings.new.len();
        summary.new_unwaived += h.findings.new.iter().filter(|f| !f.waived).count();
        summary.fixed += h.findings.fixed.len();
        summary.unchanged += h.findings.unchanged.len();
        summary.not_evaluated_after += h.findings.not_evaluated_after.len();
        summary.layout_changes += h.layout.len();
        summary.files_compared += h.io.iter().filter(|f| f.comparable).count();
        summary.warnings += h.warnings.len();
    }
    Ok(Diff {
        spindle_diff: JSON_VERSION,
        version: env!("CARGO_PKG_VERSION"),
        before: options.before.display().to_string(),
        after: options.after.display().to_string(),
        packs: engine.packs().to_vec(),
        summary,
        hosts,
    })
}

type Checked = (HostView, HostReport);

/// One host's diff; at least one side is there.
fn host_diff(before: Option<&Checked>, after: Option<&Checked>) -> HostDiff {
    let presence = match (before, after) {
        (Some(_), Some(_)) => Presence::Both,
        (None, _) => Presence::Added,
        (_, None) => Presence::Removed,
    };
    let host = after.or(before).map(|(v, _)| v.host_name().to_string()).unwrap_or_default();
    let mut warnings = vec![];
    for (side, checked) in [("BEFORE", before), ("AFTER", after)] {
        if let Some((_, report)) = checked {
            warnings.extend(report_gaps(side, report));
        }
    }
    let successors = match (before, after) {
        (Some((bv, _)), Some((av, _))) => layout::successors(bv, av),
        _ => Default::default(),
    };
    let (before_host, after_host) = (
        before.map(|(v, _)| v.host.key.as_str()).unwrap_or(""),
        after.map(|(v, _)| v.host.key.as_str()).unwrap_or(""),
    );
    let key_after = |key: &str| layout::successor_key(&successors, before_host, after_host, key);
    let findings = findings::compare(before.map(|(_, r)| r), after.map(|(_, r)| r), &key_after);
    let (layout, io, io_quiet_files) = match (before, after) {
        (Some((bv, _)), Some((av, _))) => {
            let io = io::compare(bv, av);
            warnings.extend(io.warnings);
            (layout::compare(bv, av), io.files, io.quiet_files)
        }
        _ => (vec![], vec![], 0),
    };
    HostDiff {
        host,
        presence,
        before: before.map(|(v, _)| side_info(v)),
        after: after.map(|(v, _)| side_info(v)),
        findings,
        layout,
        io,
        io_quiet_files,
        warnings,
    }
}

fn side_info(view: &HostView) -> SideInfo {
    SideInfo {
        snapshots: view.docs.iter().map(|d| d.path.clone()).collect(),
        collected_at: view.provenance.iter().filter_map(|p| p.collected_at.clone()).collect(),
    }
}

/// What makes one side's findings incomplete: a rule that failed, a host no rule could judge.
fn report_gaps(side: &str, report: &HostReport) -> Vec<String> {
    let mut out: Vec<String> = report
        .errors
        .iter()
        .map(|e| format!("{side}: rule {} failed, so its findings there are unknown: {}", e.code, e.message))
        .collect();
    out.extend(report.not_judged.iter().map(|why| format!("{side}: the host could not be judged: {why}")));
    out
}
