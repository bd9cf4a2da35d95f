//! `spindle check`: packs → rules → each host's facts → findings → the chosen report.
//!
//! Facts come from snapshot files, from live SQL Servers (`--server`, `--inventory`), or both:
//! a live server's snapshot merges with the files of the host it was reached at, as the command
//! line or the inventory names it (never as the server names itself).

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::panic;

use spindle_core::date::Date;
use spindle_core::facts::Snapshot;
use spindle_core::gain::rank_of;
use spindle_core::load::oversized;
use spindle_core::rule::collector_reason;
use spindle_core::view::{Document, HostView};

use spindle_report::formats::Reader;
use spindle_report::sarif_split::SplitSarifWriter;
use spindle_report::shard::ShardRecorder;
use spindle_report::text::TextOptions;
use spindle_report::{HostContext, Order, Render, Rendered, ReportWriter, RuleInfo, RunProvenance, Summary};

use crate::baseline::Baseline;
use crate::connect::security_warnings;
use crate::engine::{Engine, clock, waiver_warnings};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::options::{CheckOptions, Colour, Exit, Require};
use crate::ordered;
use crate::output::Output;
use crate::packs::packs_to_apply;
use crate::sources::{
    Collected, Server, Snapshots, Source, claimed_elsewhere, collect_here, file_inputs, live_document,
    servers,
};
use crate::split::SplitDir;
use crate::verdict::{Causes, exit_code, summary_line};
use crate::writers::{ReportSpec, remove_stale_report, report_io, warn_on_stderr};

/// Runs a check as `options` say and writes its report. `Err` is bad input or usage (exit
/// status 2, nothing written); `Ok` says how the run went.
///
/// A run that fails — any error (a missing input, a bad pack or plugin, a full disk) or a panic
/// — leaves no report at `--output`: one from an earlier run is removed, as a pipeline would
/// otherwise read yesterday's verdict as today's. Only a run that ends in `Ok` writes one.
pub fn run(args: &CheckOptions) -> Result<Exit, UserError> {
    // Around the whole run rather than each step: an error may come from anywhere before the
    // report is published (packs load before the report file is even opened).
    removing_stale_report_on_failure(args, || run_to_report(args))
}

/// `run`, and when it fails or panics, [`remove_stale_report`].
fn removing_stale_report_on_failure<T>(
    args: &CheckOptions,
    run: impl FnOnce() -> Result<T, UserError>,
) -> Result<T, UserError> {
    match panic::catch_unwind(panic::AssertUnwindSafe(run)) {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(e)) => {
            remove_stale_report(args.output.as_deref(), &file_inputs(&args.sources));
            Err(e)
        }
        Err(payload) => {
            remove_stale_report(args.output.as_deref(), &file_inputs(&args.sources));
            // A panic is a bug: it stays one (the hook has printed it; exit status 101).
            panic::resume_unwind(payload)
        }
    }
}

fn run_to_report(args: &CheckOptions) -> Result<Exit, UserError> {
    check_sarif_options(args)?;
    // Before anything is written: a bad baseline is bad input.
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let (engines, live) = Engines::load(args)?;
    let (today, started_at) = clock()?;
    let provenance = provenance(started_at, &engines.default, &engines.others);
    // Snapshot files are read, checked and rendered on this many threads.
    let threads = threads(args);
    crate::output::warn_if_among_inputs(args.output.as_deref(), &file_inputs(&args.sources));
    let snapshots = Snapshots::open(&args.sources, threads)?;
    if let Some(dir) = &args.save_snapshots {
        std::fs::create_dir_all(dir)
            .map_err(|e| UserError::plain(format!("{}: cannot create: {e}", dir.display())))?;
    }
    let fleet = Fleet::of_shard(args, live);
    let here = collect_here(&args.sources, &args.connect, args.save_snapshots.as_deref())?;
    let how = HowChecked { today, require: &args.require, baseline: baseline.as_ref(), order: args.order };
    let run = Run { args, engines: &engines, how, threads };

    let split_dir = args.sarif.split_by.as_ref().map(|s| s.dir.as_path());
    let mut split = split_dir.map(SplitDir::new).transpose()?;
    let mut out = Output::new(args.output.as_deref())?;
    // Where a shard's report writer writes: only its renderer is used.
    let mut nowhere = std::io::sink();
    let written = open_writer(&run, out.writer(), split.as_mut(), &mut nowhere)
        .and_then(|writer| run.write_report(writer, &provenance, here, &fleet, snapshots));
    let (summary, causes) = match written {
        Ok(done) => done,
        Err(e) => {
            out.abort();
            return Err(e);
        }
    };
    out.commit()?;
    if let Some(split) = split {
        split.commit()?;
    }
    Ok(verdict(args, &summary, &causes, &engines, today))
}

/// Threads for the hosts of snapshot files: `--jobs`, else one per CPU.
fn threads(args: &CheckOptions) -> usize {
    args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1)
}

/// The engines a run checks with: the packs' own, and one per distinct pack list of the
/// inventory; the report lists every rule any of them runs.
struct Engines {
    default: Engine,
    others: Vec<Engine>,
    /// Per live server, by its place in the whole inventory: its engine among `others`, or
    /// `None` for the default.
    of_server: Vec<Option<usize>>,
}

impl Engines {
    /// The packs' engine, then the servers to collect (returned beside the engines), then their
    /// inventory's engines: in that order, so a bad pack is reported before a password is
    /// prompted for.
    fn load(args: &CheckOptions) -> Result<(Engines, Vec<Server>), UserError> {
        // Hosts are checked on `--jobs` threads, and servers collected `--concurrency` at a
        // time are checked as they come; plugins are loaded on this thread.
        let calls = threads(args).max(args.concurrency) + 1;
        let packs = packs_to_apply(&args.packs, args.discover_config);
        let default = Engine::load_with(&packs, &args.selection, calls)?;
        let live = servers(&args.sources, &args.connect)?;
        let mut others: Vec<Engine> = vec![];
        let mut by_packs: HashMap<&[String], usize> = HashMap::new();
        let mut of_server = Vec::with_capacity(live.len());
        for packs in live.iter().map(|s| s.packs.as_deref()) {
            of_server.push(match packs {
                None => None,
                Some(p) => Some(match by_packs.get(p) {
                    Some(&i) => i,
                    None => {
                        others.push(Engine::load_with(p, &args.selection, calls)?);
                        by_packs.insert(p, others.len() - 1);
                        others.len() - 1
                    }
                }),
            });
        }
        Ok((Engines { default, others, of_server }, live))
    }

    /// The engine the server at `place` in the whole inventory is checked with.
    fn of(&self, place: usize) -> &Engine {
        self.of_server[place].map_or(&self.default, |e| &self.others[e])
    }

    /// Every rule any engine runs, each once, the default engine's first.
    fn infos(&self) -> Vec<RuleInfo> {
        let mut infos = self.default.infos();
        for info in self.others.iter().flat_map(Engine::infos) {
            if !infos.iter().any(|i| i.code == info.code) {
                infos.push(info);
            }
        }
        infos
    }

    fn all(&self) -> Vec<&Engine> {
        std::iter::once(&self.default).chain(&self.others).collect()
    }
}

/// The live servers this run (or shard) collects, each with its place in the whole inventory.
struct Fleet {
    jobs: Vec<Job>,
    /// Per job, its place in the unsharded run: its position in the report and its engine.
    places: Vec<usize>,
    /// How many servers the whole inventory has: the snapshot files' hosts come after them.
    all: u64,
}

impl Fleet {
    /// The servers of `live` this shard holds (all of them, unsharded); their connections'
    /// security warnings are said once each, on stderr.
    fn of_shard(args: &CheckOptions, live: Vec<Server>) -> Fleet {
        let all = live.len() as u64;
        let (places, jobs): (Vec<usize>, Vec<Job>) = live
            .into_iter()
            .enumerate()
            .map(|(i, server)| (i, server.job))
            .filter(|(_, job)| args.shard.is_none_or(|s| s.holds(&job.target.host)))
            .unzip();
        let mut warnings: Vec<&str> = jobs.iter().filter_map(|j| security_warnings(&j.options)).collect();
        warnings.dedup();
        for w in warnings {
            eprintln!("{w}");
        }
        Fleet { jobs, places, all }
    }
}

/// What every host of a run is checked and written with.
struct Run<'a> {
    args: &'a CheckOptions,
    engines: &'a Engines,
    how: HowChecked<'a>,
    threads: usize,
}

/// The report being written: its writer, and the counts and causes of the hosts so far.
struct Tally<'w> {
    writer: Box<dyn ReportWriter + 'w>,
    summary: Summary,
    causes: Causes,
}

impl Tally<'_> {
    /// A server (or this machine's SQL Server) whose facts the run could not use.
    fn collection_error(&mut self, label: &str, why: &str) -> Result<(), UserError> {
        self.writer.collection_error(label, why).map_err(report_io)?;
        self.summary.collection_errors += 1;
        Ok(())
    }

    /// One host: checked with `engine`, written, counted.
    fn check(&mut self, engine: &Engine, docs: Vec<Document>, how: &HowChecked<'_>) -> Result<(), UserError> {
        let (rendered, counts, causes) = check_host_rendered(engine, docs, how, &*self.writer.renderer())?;
        self.append(&rendered, &counts, causes)
    }

    fn append(&mut self, rendered: &Rendered, counts: &Summary, causes: Causes) -> Result<(), UserError> {
        self.writer.append(rendered).map_err(report_io)?;
        self.summary.merge(counts);
        self.causes.merge(causes);
        Ok(())
    }
}

/// The writer of this run's report: the split SARIF logs, a shard file, or the report itself.
fn open_writer<'w>(
    run: &Run<'_>,
    w: &'w mut dyn Write,
    split: Option<&'w mut SplitDir>,
    nowhere: &'w mut std::io::Sink,
) -> Result<Box<dyn ReportWriter + 'w>, UserError> {
    let args = run.args;
    let version = env!("CARGO_PKG_VERSION");
    let sarif = &args.sarif;
    let spec = report_spec(args);
    Ok(match (args.shard, split) {
        (_, Some(dir)) => Box::new(
            SplitSarifWriter::new(dir, version, sarif.category.as_deref(), run.unreachable_allowed())
                .with_waived(sarif.waived)
                .with_limit_warnings(warn_on_stderr()),
        ),
        // The report's own writer renders the hosts; the shard file keeps them for a merge.
        (Some(shard), None) => Box::new(ShardRecorder::new(
            w,
            spec.writer(nowhere, warn_on_stderr()),
            (shard.index, shard.count),
            version,
            serde_json::to_value(&spec).map_err(|e| UserError::plain(e.to_string()))?,
        )),
        (None, None) => spec.writer(w, warn_on_stderr()),
    })
}

impl Run<'_> {
    /// `--require sql` asks for SQL Server's facts from every server, so it accepts no
    /// unreachable one.
    fn unreachable_allowed(&self) -> bool {
        self.args.allow_unreachable && !self.args.require.contains(&Require::Sql)
    }

    /// Whether this run answers for `host`: a shard for its own hosts, an unsharded run for all.
    fn holds(&self, host: &str) -> bool {
        self.args.shard.is_none_or(|s| s.holds(host))
    }

    /// The whole report, in order: this machine and its images, the live servers as they are
    /// collected, the snapshot files' hosts; then the baseline's findings no host answered.
    fn write_report(
        &self,
        writer: Box<dyn ReportWriter + '_>,
        provenance: &RunProvenance,
        here: Vec<Collected>,
        fleet: &Fleet,
        mut snapshots: Snapshots,
    ) -> Result<(Summary, Causes), UserError> {
        let mut tally = Tally { writer, summary: Summary::default(), causes: Causes::default() };
        tally.writer.provenance(provenance);
        tally.writer.begin(&self.engines.infos()).map_err(report_io)?;
        for Collected { docs, unreachable } in here {
            // First, as for --server: the SQL Server this check could not see.
            for (label, why) in unreachable {
                tally.collection_error(&label, &why)?;
                tally.causes.note_collection_error(&label, &why);
            }
            tally.check(&self.engines.default, docs, &self.how)?;
        }
        // A live server's snapshot merges with the files of the host it was reached at.
        let mut group_of_host = snapshots.take_host_index();
        self.check_fleet(fleet, &snapshots, &mut group_of_host, &mut tally)?;
        let mut remaining: Vec<u32> =
            group_of_host.into_iter().filter(|(host, _)| self.holds(host)).map(|(_, g)| g).collect();
        remaining.sort_unstable();
        self.check_files(&remaining, &snapshots, fleet.all, &mut tally)?;
        let Tally { mut writer, mut summary, causes } = tally;
        summary.unreachable_allowed = self.unreachable_allowed();
        if let Some(b) = self.how.baseline {
            // A shard answers for its own hosts' findings only: the others' are another
            // shard's to call fixed or not checked.
            let not_checked = b.not_checked(|host| self.holds(host));
            let counts = summary.baseline.get_or_insert_default();
            counts.fixed = b.fixed(|host| self.holds(host));
            counts.not_checked = not_checked.len();
            writer.not_checked(not_checked);
        }
        writer.finish(&summary).map_err(report_io)?;
        Ok((summary, causes))
    }

    /// The live servers, collected `--concurrency` at a time and checked as they come, each
    /// with the snapshot files of its host (taken out of `group_of_host`).
    fn check_fleet(
        &self,
        fleet: &Fleet,
        snapshots: &Snapshots,
        group_of_host: &mut HashMap<Box<str>, u32>,
        tally: &mut Tally<'_>,
    ) -> Result<(), UserError> {
        let args = self.args;
        // A machine format on stdout is read by a program; split logs leave stdout alone.
        let quiet = args.output.is_none()
            && args.sarif.split_by.is_none()
            && args.format.spec().reader != Reader::Terminal;
        let progress = std::io::stderr().is_terminal() && !quiet;
        // Printed once the progress bar is gone.
        let mut renamed: Vec<String> = vec![];
        fleet::run(&fleet.jobs, args.concurrency.max(1), progress, |i, outcome| -> Result<(), UserError> {
            let job = &fleet.jobs[i];
            let place = fleet.places[i];
            tally.writer.position(place as u64);
            let snapshot = match outcome {
                Ok(snapshot) => snapshot,
                Err(e) => {
                    tally.collection_error(&job.label, &e.0)?;
                    tally.causes.note_collection_error(&job.label, &e.0);
                    return Ok(());
                }
            };
            let docs = match self.live_docs(snapshot, job, snapshots, group_of_host, &mut renamed)? {
                Ok(docs) => docs,
                Err(why) => return tally.collection_error(&job.label, &why),
            };
            tally.check(self.engines.of(place), docs, &self.how)
        })?;
        for w in renamed {
            eprintln!("{w}");
        }
        Ok(())
    }

    /// A live server's documents: its snapshot (saved when asked) and its host's snapshot
    /// files. `Ok(Err(why))` is that server's failure, not the run's: facts a snapshot file
    /// would be refused for (a name of megabytes), a snapshot that cannot be saved (a full
    /// disk, a file in the way); the run goes on for the others, marked incomplete.
    fn live_docs(
        &self,
        mut snapshot: Snapshot,
        job: &Job,
        snapshots: &Snapshots,
        group_of_host: &mut HashMap<Box<str>, u32>,
        renamed: &mut Vec<String>,
    ) -> Result<Result<Vec<Document>, String>, UserError> {
        if let Some(o) = oversized(&snapshot) {
            return Ok(Err(format!("its facts are refused: {o}")));
        }
        let claimed = claimed_elsewhere(&mut snapshot, job);
        let live =
            match live_document(&snapshot, &job.target.file_stem(), self.args.save_snapshots.as_deref()) {
                Ok(doc) => doc,
                Err(e) => {
                    return Ok(Err(format!("collected, but the snapshot was not saved: {}", e.message)));
                }
            };
        let mut docs = match group_of_host.remove(job.target.host.to_lowercase().as_str()) {
            Some(g) => snapshots.load(g as usize)?,
            None => vec![],
        };
        if let Some(warning) = claimed {
            // The files of the host named by the user name the merged host, and their facts
            // win over the server's where both have one.
            docs.push(live);
            renamed.push(warning);
        } else {
            docs.insert(0, live);
        }
        Ok(Ok(docs))
    }

    /// The snapshot files' hosts (`groups`, in file order), after the `fleet_size` servers.
    /// Reading, parsing, checking and rendering a host need nothing of the others: they run on
    /// every core, and the writer appends the hosts in file order.
    fn check_files(
        &self,
        groups: &[u32],
        snapshots: &Snapshots,
        fleet_size: u64,
        tally: &mut Tally<'_>,
    ) -> Result<(), UserError> {
        let render = tally.writer.renderer();
        let engine = &self.engines.default;
        ordered::for_each_in_order(
            groups,
            self.threads,
            |&g| {
                let host = check_host_rendered(engine, snapshots.load(g as usize)?, &self.how, &*render);
                Ok::<_, UserError>((g, host?))
            },
            |host| {
                let (g, (rendered, counts, causes)) = host?;
                tally.writer.position(fleet_size + u64::from(g));
                tally.append(&rendered, &counts, causes)
            },
        )
    }
}

/// What the run says on stderr once its report is written, and its exit status. A shard's
/// verdict is the merge's: its exit status says the shard file is whole.
fn verdict(args: &CheckOptions, summary: &Summary, causes: &Causes, engines: &Engines, today: Date) -> Exit {
    for w in &causes.stale {
        eprintln!("{}", spindle_core::untrusted::message(w));
    }
    for w in waiver_warnings(&engines.all(), today) {
        eprintln!("{}", spindle_core::untrusted::message(&w));
    }
    if let Some(shard) = args.shard {
        let dest = args.output.as_deref().map_or("stdout".into(), |d| d.display().to_string());
        eprintln!(
            "spindle: shard {shard}: {} written to {dest}; `spindle merge` of all {} shards gives the run's report and verdict",
            spindle_core::units::plural(summary.hosts + summary.collection_errors, "host"),
            shard.count
        );
        return Exit::Clean;
    }
    let exit = exit_code(summary, args.fail_on);
    let split_dir = args.sarif.split_by.as_ref().map(|s| s.dir.as_path());
    // A pipeline's log shows why the run failed without anyone opening the report.
    if let Some(dest) = args.output.as_deref().filter(|d| d.as_os_str() != "-").or(split_dir) {
        eprintln!("{}", summary_line(summary, causes, exit, args.fail_on, dest));
    }
    exit
}

/// What `--sarif-category` and `--split-by` need: SARIF, a category that is one, a split by host.
fn check_sarif_options(args: &CheckOptions) -> Result<(), UserError> {
    let sarif = &args.sarif;
    if let Some(shard) = args.shard {
        if let Some(here) = args.sources.iter().find(|s| s.is_here()) {
            let alone = match here {
                Source::Image { path, .. } => format!("{} is one host's disk", path.display()),
                _ => "--local checks this machine alone".to_string(),
            };
            return Err(UserError::plain(format!(
                "--shard {shard} splits a fleet of snapshots or servers; {alone}"
            )));
        }
        if sarif.split_by.is_some() {
            return Err(UserError::plain(format!(
                "--shard {shard} writes a shard file for `spindle merge`; --split-by writes a log per host, which needs no merge: run each shard with --split-by and without --shard"
            )));
        }
    }
    if args.format.name() != "sarif" && (sarif.category.is_some() || sarif.split_by.is_some()) {
        return Err(UserError::plain("--sarif-category and --split-by apply to --format sarif"));
    }
    if sarif.category.as_deref().is_some_and(|c| c.trim_matches('/').is_empty()) {
        return Err(UserError::plain("--sarif-category: expected a name, such as `erp-fleet`"));
    }
    match &sarif.split_by {
        Some(s) if s.what != "host" => Err(UserError::plain(format!(
            "--split-by {}: logs can be split by `host` only (--split-by host DIR)",
            spindle_core::untrusted::name(&s.what)
        ))),
        Some(s) if args.output.is_some() => Err(UserError::plain(format!(
            "--split-by writes its logs into {}: it takes no --output",
            s.dir.display()
        ))),
        _ => Ok(()),
    }
}

/// What every host is checked with beyond its engine: the date waivers expire against, the
/// facts the run requires, the baseline its findings are marked against.
struct HowChecked<'a> {
    today: Date,
    require: &'a [Require],
    baseline: Option<&'a Baseline>,
    order: Order,
}

/// One host: its documents merged into a view, checked against the rules and what the run
/// requires, and rendered, with its counts; needs nothing of other hosts, so it runs on any
/// thread.
fn check_host_rendered(
    engine: &Engine,
    docs: Vec<Document>,
    how: &HowChecked<'_>,
    render: &dyn Render,
) -> Result<(Rendered, Summary, Causes), UserError> {
    let view = engine.view(docs);
    let mut report = engine.check(&view, how.today);
    report.not_judged.extend(how.require.iter().filter_map(|r| unmet(*r, &view)));
    let new_not_evaluated = how.baseline.map(|b| b.mark(&mut report, engine.active()));
    if how.order == Order::Gain {
        // Stable: the findings with no estimate keep the engine's order, after the others.
        report.findings.sort_by(|a, b| rank_of(b.gain.as_ref()).total_cmp(&rank_of(a.gain.as_ref())));
    }
    let mut counts = Summary::default();
    counts.add(&report);
    if let Some(n) = new_not_evaluated {
        counts.baseline.get_or_insert_default().new_not_evaluated = n;
    }
    let context = HostContext { packs: engine.packs(), order: how.order };
    Ok((render.render_in(&view, &report, &context).map_err(report_io)?, counts, Causes::of(&report, &view)))
}

/// Why `view` does not meet `--require what`, if it does not: the sections missing, with the
/// collector's reason when one recorded it.
fn unmet(what: Require, view: &HostView) -> Option<String> {
    let missing: Vec<&str> = match what {
        Require::Sql => match &view.instances {
            Some(i) if !i.is_empty() => vec![],
            _ => vec!["sql_instances"],
        },
        Require::Host => [
            ("disks", view.disks.is_some()),
            ("partitions", view.partitions.is_some()),
            ("volumes", view.volumes.is_some()),
        ]
        .into_iter()
        .filter_map(|(fact, present)| (!present).then_some(fact))
        .collect(),
    };
    if missing.is_empty() {
        return None;
    }
    let whose = match what {
        Require::Sql => "no SQL Server facts",
        Require::Host => "no host storage facts",
    };
    let reasons: Vec<String> = missing.iter().filter_map(|f| collector_reason(view, f)).collect();
    let mut why = format!("--require {}: {whose} ({} not collected", what.as_str(), missing.join(", "));
    if !reasons.is_empty() {
        why.push_str(&format!(": {}", reasons.join("; ")));
    }
    why.push(')');
    Some(why)
}

/// The report as this run writes it, and what fails it.
fn report_spec(args: &CheckOptions) -> ReportSpec {
    ReportSpec {
        format: args.format,
        text: text_options(args),
        sarif_category: args.sarif.category.clone(),
        waived: args.sarif.waived,
        fail_on: args.fail_on,
    }
}

/// The text report's layout: colour and width settled against the terminal and the environment.
fn text_options(args: &CheckOptions) -> TextOptions {
    let to_terminal =
        args.output.as_deref().is_none_or(|o| o.as_os_str() == "-") && std::io::stdout().is_terminal();
    let env = |name: &str| std::env::var(name).ok();
    TextOptions {
        colour: use_colour(args.text.colour, to_terminal, env),
        width: args.text.width.unwrap_or_else(|| report_width(to_terminal, env)),
        detail: args.text.detail,
        show_not_evaluated: args.text.show_not_evaluated,
    }
}

/// `--color`: `auto` colours a terminal, unless `NO_COLOR` is set (to anything but the empty
/// string, as https://no-color.org says); `FORCE_COLOR` or `CLICOLOR_FORCE` (set, and not `0`)
/// colour whatever the output, unless `NO_COLOR` is set.
fn use_colour(choice: Colour, to_terminal: bool, env: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    let forced = |name: &str| env(name).is_some_and(|v| !v.is_empty() && v != "0");
    match choice {
        Colour::Always => true,
        Colour::Never => false,
        Colour::Auto if set("NO_COLOR") => false,
        Colour::Auto => to_terminal || forced("FORCE_COLOR") || forced("CLICOLOR_FORCE"),
    }
}

/// Columns to wrap to: the terminal's width; elsewhere (a file, a pipe) `COLUMNS` if it is a
/// number, else 100.
fn report_width(to_terminal: bool, env: impl Fn(&str) -> Option<String>) -> usize {
    let terminal = to_terminal
        .then(|| terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0)))
        .flatten();
    terminal
        .or_else(|| env("COLUMNS").and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0))
        .unwrap_or(100)
}

/// The run's provenance: when it started, and the packs and parameters of its engines (the
/// default one first; an inventory's own pack lists after it, each pack and rule once, as the
/// rules table lists them).
fn provenance(started_at: String, default: &Engine, others: &[Engine]) -> RunProvenance {
    let mut run = RunProvenance { started_at, packs: vec![], rules: vec![] };
    for engine in std::iter::once(default).chain(others) {
        for pack in engine.packs() {
            if !run.packs.contains(pack) {
                run.packs.push(pack.clone());
            }
        }
        for params in engine.params() {
            if !run.rules.iter().any(|r| r.code == params.code) {
                run.rules.push(params);
            }
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use spindle_core::declare::Declarations;
    use spindle_core::load::parse_snapshot;

    use super::*;

    #[test]
    fn colour_and_width_from_the_flag_the_terminal_and_the_environment() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert!(use_colour(Colour::Auto, true, env(&[])));
        assert!(!use_colour(Colour::Auto, false, env(&[])));
        assert!(!use_colour(Colour::Auto, true, env(&[("NO_COLOR", "1")])));
        assert!(use_colour(Colour::Auto, true, env(&[("NO_COLOR", "")])), "an empty NO_COLOR is unset");
        assert!(use_colour(Colour::Auto, false, env(&[("FORCE_COLOR", "1")])));
        assert!(use_colour(Colour::Auto, false, env(&[("CLICOLOR_FORCE", "yes")])));
        assert!(!use_colour(Colour::Auto, false, env(&[("FORCE_COLOR", "0")])));
        assert!(!use_colour(Colour::Auto, false, env(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")])));
        assert!(use_colour(Colour::Always, false, env(&[("NO_COLOR", "1")])));
        assert!(!use_colour(Colour::Never, true, env(&[("FORCE_COLOR", "1")])));

        assert_eq!(report_width(false, env(&[])), 100);
        assert_eq!(report_width(false, env(&[("COLUMNS", "80")])), 80);
        assert_eq!(report_width(false, env(&[("COLUMNS", "wide")])), 100);
        assert_eq!(report_width(false, env(&[("COLUMNS", "0")])), 100);
    }

    fn with_output(out: &Path, inputs: &[PathBuf]) -> CheckOptions {
        CheckOptions {
            output: Some(out.to_path_buf()),
            sources: vec![Source::files(inputs.to_vec(), vec![])],
            ..Default::default()
        }
    }

    #[test]
    fn a_run_that_fails_or_panics_leaves_no_stale_report() {
        let dir = tempfile::TempDir::new().unwrap();
        let out = dir.path().join("report.sarif");
        let args = with_output(&out, &[]);

        fs::write(&out, "yesterday").unwrap();
        let r = removing_stale_report_on_failure(&args, || Ok(Exit::Clean));
        assert_eq!(r.unwrap(), Exit::Clean);
        assert!(out.exists(), "a run that succeeds published its own report there");

        let r: Result<(), _> = removing_stale_report_on_failure(&args, || Err(UserError::plain("bad pack")));
        assert_eq!(r.unwrap_err().message, "bad pack");
        assert!(!out.exists());

        fs::write(&out, "yesterday").unwrap();
        let hook = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        let caught = panic::catch_unwind(|| {
            removing_stale_report_on_failure(&args, || -> Result<(), UserError> { panic!("a bug") })
        });
        panic::set_hook(hook);
        let payload = caught.expect_err("the panic goes on: a bug stays a bug");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a bug"));
        assert!(!out.exists(), "removed on the way");
    }

    #[test]
    fn only_a_report_file_is_removed() {
        let dir = tempfile::TempDir::new().unwrap();
        let fail = |args: &CheckOptions| {
            let _: Result<(), _> = removing_stale_report_on_failure(args, || Err(UserError::plain("x")));
        };
        // A snapshot given as both input and output is the user's facts.
        let snapshot = dir.path().join("sql01.json");
        fs::write(&snapshot, "{}").unwrap();
        fail(&with_output(&snapshot, std::slice::from_ref(&snapshot)));
        assert!(snapshot.exists());
        // A directory, and a device, stay.
        fail(&with_output(dir.path(), &[]));
        assert!(dir.path().is_dir());
        fail(&with_output(Path::new("/dev/null"), &[]));
        assert!(Path::new("/dev/null").exists());
        // Through a link: the link goes, so no stale report is read through it, and the file it
        // points to stays, whatever it is (issue 24: a failed run deleted `keep.txt`).
        let target = dir.path().join("keep.txt");
        fs::write(&target, "not a report").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        fail(&with_output(&link, &[]));
        assert_eq!(fs::read_to_string(&target).unwrap(), "not a report");
        assert!(fs::symlink_metadata(&link).is_err());
    }

    fn view(json: &str) -> HostView {
        let doc = parse_snapshot("h.json", json.to_string()).unwrap();
        HostView::build(vec![doc], Declarations::default())
    }

    #[test]
    fn required_facts_name_what_is_missing_and_why() {
        let bare = view(
            r#"{"schema_version": 1, "host": {"name": "h"}, "collectors": [{"name": "linux",
                "not_collected": [{"fact": "sql_instances", "reason": "no SQL Server facts: localhost: cannot connect"}]}],
                "volumes": []}"#,
        );
        assert_eq!(
            unmet(Require::Sql, &bare).unwrap(),
            "--require sql: no SQL Server facts (sql_instances not collected: linux: no SQL Server facts: \
             localhost: cannot connect)"
        );
        assert_eq!(
            unmet(Require::Host, &bare).unwrap(),
            "--require host: no host storage facts (disks, partitions not collected)"
        );
        let no_instance = view(r#"{"schema_version": 1, "host": {"name": "h"}, "sql_instances": []}"#);
        assert!(unmet(Require::Sql, &no_instance).is_some(), "no instance is no SQL Server facts");
        let storage = view(
            r#"{"schema_version": 1, "host": {"name": "h"}, "disks": [], "partitions": [], "volumes": []}"#,
        );
        assert_eq!(unmet(Require::Host, &storage), None);
    }
}
