//! `spindle check`: packs → rules → each host's facts → findings → the chosen report.
//!
//! Facts come from snapshot files, from live SQL Servers (`--server`, `--inventory`), or both:
//! a live server's snapshot merges with the files of the host it was reached at, as the command
//! line or the inventory names it (never as the server names itself).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::{fs, panic};

use spindle_core::date::Date;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::facts::{CollectorReport, NotCollected, Snapshot};
use spindle_core::gain::rank_of;
use spindle_core::load::{oversized, parse_snapshot};
use spindle_core::pack::{Config, Selection, UnknownSelector, load_packs};
use spindle_core::rule::{Rule, RuleMeta, collector_reason};
use spindle_core::view::{Document, HostView};

use spindle_collectors::sql::target::Target;
use spindle_plugin_host::{Limits, PluginHost, PluginRule, Pool, default_cache_dir, load_rules};
use spindle_report::formats::Reader;
use spindle_report::sarif_split::SplitSarifWriter;
use spindle_report::shard::ShardRecorder;
use spindle_report::text::TextOptions;
use spindle_report::{
    HostContext, Order, Render, Rendered, ReportWriter, RuleInfo, RuleParams, RunProvenance, Summary,
};

use crate::baseline::Baseline;
use crate::connect::{Prompted, security_warnings};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::input;
use crate::inventory;
use crate::options::{CheckOptions, Colour, Exit, FailOn, Require};
use crate::ordered;
use crate::output::{Output, write_atomically};
use crate::packs::Loader;
use crate::split::SplitDir;
use crate::writers::{ReportSpec, warn_on_stderr};

/// The rules and settings of one pack list, with the plugins it loaded: what judges a host.
pub struct Engine {
    // Kept alive for the plugin rules, which call into it.
    _host: Option<PluginHost>,
    cfg: Config,
    /// Every rule the packs were resolved against: builtin, then plugin rules.
    rules: Vec<&'static dyn Rule>,
    /// The packs' plugins: name, and the pack that declares it.
    plugins: Vec<(String, String)>,
    /// The enabled rules with their settings, resolved once for every host.
    active: Vec<ActiveRule<'static>>,
    /// Per waiver of the packs: whether it matched a finding on any host checked so far. Hosts
    /// are checked on several threads.
    waiver_used: Vec<AtomicBool>,
    hosts_checked: AtomicUsize,
}

impl Engine {
    /// Loads `packs` (builtin names or TOML files; empty: `recommended`) and the plugins they
    /// declare, and resolves the rules once for every host.
    pub fn load(packs: &[String]) -> Result<Engine, UserError> {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Engine::load_with(packs, &Selection::default(), threads + 1)
    }

    /// [`Engine::load`], then the command line's `--select`, `--extend-select` and `--ignore`
    /// over the packs' selection; at most `concurrent_calls` plugin calls run at once (the
    /// plugin host reserves that many instance slots).
    pub fn load_with(
        packs: &[String],
        selection: &Selection,
        concurrent_calls: usize,
    ) -> Result<Engine, UserError> {
        let refs: Vec<&str> =
            if packs.is_empty() { vec!["recommended"] } else { packs.iter().map(String::as_str).collect() };
        let stack = load_packs(&refs, &Loader)?;
        let decls = stack.plugins()?;
        // The engine and its compiled-code cache only when a pack asks for a plugin.
        let host = if decls.is_empty() {
            None
        } else {
            // Fuel metering costs every call; compile it in only when a pack sets a fuel limit.
            let fuel = decls.iter().any(|d| d.fuel.is_some());
            let pool = Pool {
                concurrent_calls: u32::try_from(concurrent_calls).unwrap_or(u32::MAX),
                // Each call's own limit is the store limiter's; the slots fit the largest.
                max_memory_bytes: decls
                    .iter()
                    .map(|d| d.memory_bytes.unwrap_or(Limits::default().memory_bytes))
                    .max()
                    .unwrap_or(Limits::default().memory_bytes),
            };
            Some(
                PluginHost::with_pool(default_cache_dir(), fuel, pool)
                    .map_err(|e| UserError::plain(e.to_string()))?,
            )
        };
        let plugin_rules = match &host {
            Some(host) => load_rules(host, &decls)?,
            None => vec![],
        };
        // A run loads each pack list once and uses its rules to the end, like the builtin rules,
        // which are statics.
        let plugin_rules: &'static [PluginRule] = Box::leak(plugin_rules.into_boxed_slice());
        let rules: Vec<&'static dyn Rule> = spindle_rules::all()
            .iter()
            .map(|r| *r as &dyn Rule)
            .chain(plugin_rules.iter().map(|r| r as &dyn Rule))
            .collect();
        let cfg = {
            let cat: Vec<(&str, &RuleMeta)> = rules.iter().map(|r| (r.meta().code, r.meta())).collect();
            let mut cfg = stack.resolve(&cat)?;
            cfg.apply_selection(&cat, selection).map_err(unknown_selectors)?;
            cfg
        };
        let active = cfg.active(&rules);
        let waiver_used = cfg.waivers.iter().map(|_| AtomicBool::new(false)).collect();
        let plugins = decls.iter().map(|d| (d.name.clone(), d.pack.path.clone())).collect();
        Ok(Engine {
            _host: host,
            cfg,
            rules,
            plugins,
            active,
            waiver_used,
            hosts_checked: AtomicUsize::new(0),
        })
    }

    /// Every rule the packs were resolved against (builtin, then the plugins'), enabled or not.
    pub fn catalogue(&self) -> Vec<(&'static str, &'static RuleMeta)> {
        self.rules.iter().map(|r| (r.meta().code, r.meta())).collect()
    }

    /// For a plugin's rule (`acme/ACM001`): the plugin's name and the pack that declares it.
    pub fn plugin_of(&self, code: &str) -> Option<(&str, &str)> {
        let (ns, _) = code.split_once('/')?;
        self.plugins.iter().find(|(name, _)| name == ns).map(|(n, p)| (n.as_str(), p.as_str()))
    }

    /// The resolved packs: which rules are enabled, at what severity, the files applied.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The active rules as a report's rule table lists them.
    pub fn infos(&self) -> Vec<RuleInfo> {
        self.active.iter().map(|a| RuleInfo::from_meta(&a.code, a.rule.meta(), a.severity)).collect()
    }

    /// The pack files applied, in order.
    pub fn packs(&self) -> &[String] {
        &self.cfg.packs
    }

    /// The parameters of the active rules that have any, as the packs left them.
    pub fn params(&self) -> Vec<RuleParams> {
        self.active.iter().filter_map(RuleParams::from_active).collect()
    }

    /// One host's view, built from its documents with the packs' declarations.
    pub fn view(&self, docs: Vec<Document>) -> HostView {
        HostView::build(docs, self.cfg.declarations.clone())
    }

    /// Runs every active rule on one host and applies the waivers (`today` decides which have
    /// expired).
    pub fn check(&self, view: &HostView, today: Date) -> HostReport {
        let report = check_host(&self.active, view, &self.cfg.waivers, today);
        self.hosts_checked.fetch_add(1, Ordering::Relaxed);
        // The engine applies the first waiver that matches; so is it counted here.
        for f in &report.findings {
            if let Some(i) = self.cfg.waivers.iter().position(|w| w.matches(f)) {
                self.waiver_used[i].store(true, Ordering::Relaxed);
            }
        }
        report
    }

    /// The packs' waivers, each with where it is written (`pack.toml:12:11`) and whether it
    /// matched a finding on a host this engine checked.
    fn waiver_states(&self) -> impl Iterator<Item = (String, &spindle_core::engine::Waiver, bool)> {
        self.cfg.waivers.iter().enumerate().map(|(i, w)| {
            let at = match self.cfg.waiver_at.get(i).copied().flatten() {
                Some((line, col)) => format!("{}:{line}:{col}", w.source),
                None => w.source.clone(),
            };
            (at, w, self.waiver_used[i].load(Ordering::Relaxed))
        })
    }

    /// The active rules, in catalogue order.
    pub fn active(&self) -> &[ActiveRule<'static>] {
        &self.active
    }

    /// The waivers of the packs.
    pub fn waivers(&self) -> &[spindle_core::engine::Waiver] {
        &self.cfg.waivers
    }
}

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
            remove_stale_report(args.output.as_deref(), &args.inputs);
            Err(e)
        }
        Err(payload) => {
            remove_stale_report(args.output.as_deref(), &args.inputs);
            // A panic is a bug: it stays one (the hook has printed it; exit status 101).
            panic::resume_unwind(payload)
        }
    }
}

/// Removes the report an earlier run left at `--output`, after this run failed. Only a regular
/// file: a device or pipe (`/dev/null`, a named pipe) is written into, never replaced, and a
/// directory is the user's mistake, reported as such. Through a link, only the link goes: what
/// it points to may be anything, and a failed run destroys nothing. A snapshot given as input
/// and as output is the user's facts, not a report, and stays.
pub(crate) fn remove_stale_report<P: AsRef<Path>>(output: Option<&Path>, inputs: &[P]) {
    let Some(path) = output else { return };
    if path.as_os_str() == "-" || path.starts_with("/dev") || path.starts_with("/proc") {
        return;
    }
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if inputs.iter().any(|i| fs::canonicalize(i).is_ok_and(|i| i == target)) {
        return;
    }
    crate::output::remove_stale(path);
}

pub(crate) use crate::packs::packs_to_apply;

fn run_to_report(args: &CheckOptions) -> Result<Exit, UserError> {
    check_sarif_options(args)?;
    // Before anything is written: a bad baseline is bad input.
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    // Hosts are checked on `--jobs` threads, and servers collected `--concurrency` at a time are
    // checked as they come; plugins are loaded on this thread.
    let calls = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
        .max(args.concurrency)
        + 1;
    let default_engine =
        Engine::load_with(&packs_to_apply(&args.packs, args.discover_config), &args.selection, calls)?;
    let live = live_jobs(args)?;
    // One engine per distinct pack list of the inventory; the report lists every rule any ran.
    let mut engines: Vec<Engine> = vec![];
    let mut engine_of: Vec<Option<usize>> = vec![];
    let mut by_packs: HashMap<Vec<String>, usize> = HashMap::new();
    for (_, packs) in &live {
        engine_of.push(match packs {
            None => None,
            Some(p) => Some(match by_packs.get(p) {
                Some(&i) => i,
                None => {
                    engines.push(Engine::load_with(p, &args.selection, calls)?);
                    by_packs.insert(p.clone(), engines.len() - 1);
                    engines.len() - 1
                }
            }),
        });
    }
    let mut infos = default_engine.infos();
    for e in &engines {
        for info in e.infos() {
            if !infos.iter().any(|i| i.code == info.code) {
                infos.push(info);
            }
        }
    }
    let (today, started_at) = clock()?;
    let provenance = provenance(started_at, &default_engine, &engines);

    // Snapshot files are read, checked and rendered on this many threads.
    let threads =
        args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1);
    crate::output::warn_if_among_inputs(args.output.as_deref(), &args.inputs);
    let files = if args.inputs.is_empty() {
        input::Files::default()
    } else {
        input::discover_excluding(&args.inputs, &input::Exclude::new(&args.exclude))?
    };
    let mut groups = input::group_by_host(&files, threads)?;
    if let Some(dir) = &args.save_snapshots {
        std::fs::create_dir_all(dir)
            .map_err(|e| UserError::plain(format!("{}: cannot create: {e}", dir.display())))?;
    }
    // Every server's position in the unsharded run, and the engine it is checked with, go by
    // its place in the whole inventory; a shard collects only its own.
    let all_jobs = live.len() as u64;
    let (places, jobs): (Vec<usize>, Vec<Job>) = live
        .into_iter()
        .enumerate()
        .map(|(i, (job, _))| (i, job))
        .filter(|(_, job)| args.shard.is_none_or(|s| s.holds(&job.target.host)))
        .unzip();
    let mut warnings: Vec<&str> = jobs.iter().filter_map(|j| security_warnings(&j.options)).collect();
    warnings.dedup();
    for w in warnings {
        eprintln!("{w}");
    }

    let mut local = if args.local { Some(local_documents(args)?) } else { None };
    let require = args.require.as_slice();
    let how = HowChecked { today, require, baseline: baseline.as_ref(), order: args.order };

    // `--require sql` asks for SQL Server's facts from every server, so it accepts no
    // unreachable one.
    let unreachable_allowed = args.allow_unreachable && !require.contains(&Require::Sql);
    let split_dir = args.sarif.split_by.as_ref().map(|s| s.dir.as_path());
    let mut split = split_dir.map(SplitDir::new).transpose()?;
    let mut out = Output::new(args.output.as_deref())?;
    let spec = report_spec(args);
    // Where a shard's report writer writes: only its renderer is used.
    let mut nowhere = std::io::sink();
    let mut causes = Causes::default();
    let result = (|| -> Result<Summary, UserError> {
        let w = out.writer();
        let version = env!("CARGO_PKG_VERSION");
        let sarif = &args.sarif;
        let mut writer: Box<dyn ReportWriter + '_> = match (args.shard, split.as_mut()) {
            (_, Some(dir)) => Box::new(
                SplitSarifWriter::new(dir, version, sarif.category.as_deref(), unreachable_allowed)
                    .with_waived(sarif.waived)
                    .with_limit_warnings(warn_on_stderr()),
            ),
            // The report's own writer renders the hosts; the shard file keeps them for a merge.
            (Some(shard), None) => Box::new(ShardRecorder::new(
                w,
                spec.writer(&mut nowhere, warn_on_stderr()),
                (shard.index, shard.count),
                version,
                serde_json::to_value(&spec).map_err(|e| UserError::plain(e.to_string()))?,
            )),
            (None, None) => spec.writer(w, warn_on_stderr()),
        };
        writer.provenance(&provenance);
        writer.begin(&infos).map_err(report_io)?;
        let mut summary = Summary::default();
        if let Some(Local { docs, unreachable }) = local.take() {
            // First, as for --server: the SQL Server this check could not see.
            for (label, why) in unreachable {
                writer.collection_error(&label, &why).map_err(report_io)?;
                summary.collection_errors += 1;
                causes.note_collection_error(&label, &why);
            }
            check_and_write(&default_engine, docs, &how, &mut writer, &mut summary, &mut causes)?;
        }
        // A live server's snapshot merges with the files of the host it was reached at.
        let mut group_of_host = groups.take_host_index();
        // A machine format on stdout is read by a program; split logs leave stdout alone.
        let quiet =
            args.output.is_none() && split_dir.is_none() && args.format.spec().reader != Reader::Terminal;
        let progress = std::io::stderr().is_terminal() && !quiet;
        // Printed once the progress bar is gone.
        let mut renamed: Vec<String> = vec![];
        fleet::run(&jobs, args.concurrency.max(1), progress, |i, outcome| -> Result<(), UserError> {
            let job = &jobs[i];
            let i = places[i];
            writer.position(i as u64);
            match outcome {
                Ok(mut snapshot) => {
                    // What a snapshot file would be refused for (a name of megabytes) is that
                    // server's failure, not the run's.
                    if let Some(o) = oversized(&snapshot) {
                        let message = format!("its facts are refused: {o}");
                        writer.collection_error(&job.label, &message).map_err(report_io)?;
                        summary.collection_errors += 1;
                        return Ok(());
                    }
                    let claimed = claimed_elsewhere(&mut snapshot, job);
                    let saved =
                        live_document(&snapshot, &job.target.file_stem(), args.save_snapshots.as_deref());
                    // A snapshot that cannot be saved (a full disk, a file in the way) is that
                    // server's error, as a collection that failed: the run goes on for the
                    // others, marked incomplete.
                    let live = match saved {
                        Ok(doc) => doc,
                        Err(e) => {
                            let why = format!("collected, but the snapshot was not saved: {}", e.message);
                            writer.collection_error(&job.label, &why).map_err(report_io)?;
                            summary.collection_errors += 1;
                            return Ok(());
                        }
                    };
                    let mut docs = match group_of_host.remove(job.target.host.to_lowercase().as_str()) {
                        Some(g) => input::load_group(&files, &groups, g as usize)?,
                        None => vec![],
                    };
                    if let Some(warning) = claimed {
                        // The files of the host named by the user name the merged host, and
                        // their facts win over the server's where both have one.
                        docs.push(live);
                        renamed.push(warning);
                    } else {
                        docs.insert(0, live);
                    }
                    let engine = engine_of[i].map_or(&default_engine, |e| &engines[e]);
                    check_and_write(engine, docs, &how, &mut writer, &mut summary, &mut causes)?;
                }
                Err(e) => {
                    writer.collection_error(&job.label, &e.0).map_err(report_io)?;
                    summary.collection_errors += 1;
                    causes.note_collection_error(&job.label, &e.0);
                }
            }
            Ok(())
        })?;
        for w in renamed {
            eprintln!("{w}");
        }
        let mut remaining: Vec<u32> = group_of_host
            .into_iter()
            .filter(|(host, _)| args.shard.is_none_or(|s| s.holds(host)))
            .map(|(_, g)| g)
            .collect();
        remaining.sort_unstable();
        let render = writer.renderer();
        // Reading, parsing, checking and rendering a host need nothing of the others: they run
        // on every core, and the writer appends the hosts in file order.
        ordered::for_each_in_order(
            &remaining,
            threads,
            |&g| {
                let host = check_host_rendered(
                    &default_engine,
                    input::load_group(&files, &groups, g as usize)?,
                    &how,
                    &*render,
                );
                Ok::<_, UserError>((g, host?))
            },
            |host| {
                let (g, (rendered, counts, host_causes)) = host?;
                writer.position(all_jobs + u64::from(g));
                writer.append(&rendered).map_err(report_io)?;
                summary.merge(&counts);
                causes.merge(host_causes);
                Ok::<(), UserError>(())
            },
        )?;
        summary.unreachable_allowed = unreachable_allowed;
        if let Some(b) = &baseline {
            // A shard answers for its own hosts' findings only: the others' are another
            // shard's to call fixed or not checked.
            let mine = |host: &str| args.shard.is_none_or(|s| s.holds(host));
            let not_checked = b.not_checked(mine);
            let counts = summary.baseline.get_or_insert_default();
            counts.fixed = b.fixed(mine);
            counts.not_checked = not_checked.len();
            writer.not_checked(not_checked);
        }
        writer.finish(&summary).map_err(report_io)?;
        Ok(summary)
    })();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            out.abort();
            return Err(e);
        }
    };
    out.commit()?;
    if let Some(split) = split {
        split.commit()?;
    }
    for w in &causes.stale {
        eprintln!("{}", spindle_core::untrusted::message(w));
    }
    let all: Vec<&Engine> = std::iter::once(&default_engine).chain(&engines).collect();
    for w in waiver_warnings(&all, today) {
        eprintln!("{}", spindle_core::untrusted::message(&w));
    }
    if let Some(shard) = args.shard {
        // A shard's verdict is the merge's: its exit status says the shard file is whole.
        let dest = args.output.as_deref().map_or("stdout".into(), |d| d.display().to_string());
        eprintln!(
            "spindle: shard {shard}: {} written to {dest}; `spindle merge` of all {} shards gives the run's report and verdict",
            spindle_core::units::plural(summary.hosts + summary.collection_errors, "host"),
            shard.count
        );
        return Ok(Exit::Clean);
    }
    let exit = exit_code(&summary, args.fail_on);
    // A pipeline's log shows why the run failed without anyone opening the report.
    if let Some(dest) = args.output.as_deref().filter(|d| d.as_os_str() != "-").or(split_dir) {
        eprintln!("{}", summary_line(&summary, &causes, exit, args.fail_on, dest));
    }
    Ok(exit)
}

/// What `--sarif-category` and `--split-by` need: SARIF, a category that is one, a split by host.
fn check_sarif_options(args: &CheckOptions) -> Result<(), UserError> {
    let sarif = &args.sarif;
    if let Some(shard) = args.shard {
        if args.local {
            return Err(UserError::plain(format!(
                "--shard {shard} splits a fleet of snapshots or servers; --local checks this machine alone"
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

/// The first cause of each way a run can be incomplete, for the one-line summary.
#[derive(Debug, Default)]
pub(crate) struct Causes {
    collection_error: Option<String>,
    not_judged: Option<String>,
    rule_error: Option<String>,
    /// Every host's stale-facts warning ([`spindle_core::view::StaleFacts`]), in report order: said on stderr.
    stale: Vec<String>,
}

impl Causes {
    fn note_collection_error(&mut self, label: &str, why: &str) {
        self.collection_error.get_or_insert_with(|| format!("{label}: {}", first_line(why)));
    }

    /// `host`'s causes, from its report and its view.
    fn of(report: &HostReport, view: &HostView) -> Causes {
        Causes {
            stale: view.stale.iter().map(|s| format!("warning: {}", s.message(&report.host))).collect(),
            collection_error: None,
            not_judged: (!report.not_judged.is_empty())
                .then(|| format!("{}: {}", report.host, first_line(&report.not_judged.join("; ")))),
            rule_error: report.errors.first().map(|e| format!("{}: {}", report.host, e.code)),
        }
    }

    /// Keeps the first cause of each kind: hosts are merged in report order.
    fn merge(&mut self, other: Causes) {
        self.collection_error = self.collection_error.take().or(other.collection_error);
        self.not_judged = self.not_judged.take().or(other.not_judged);
        self.rule_error = self.rule_error.take().or(other.rule_error);
        self.stale.extend(other.stale);
    }
}

/// The first line of `text`, cut to a length a log line can carry.
fn first_line(text: &str) -> String {
    const MAX: usize = 160;
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= MAX {
        return line.to_string();
    }
    line.chars().take(MAX).collect::<String>() + "…"
}

/// The run in one line, as ruff and tflint print one: the counts, then why it failed if it did,
/// naming the first cause of each kind, then where the report went.
/// `spindle: 3 hosts, 2 errors, 5 warnings, 0 notes, 1 not evaluated; incomplete: 1 collection
/// error (sql01: login failed) → report.sarif`
pub(crate) fn summary_line(s: &Summary, causes: &Causes, exit: Exit, fail_on: FailOn, dest: &Path) -> String {
    use spindle_core::units::plural;
    let mut line = format!(
        "spindle: {}, {}, {}, {}, {} not evaluated",
        plural(s.hosts, "host"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notes, "note"),
        s.not_evaluated
    );
    if s.not_applicable > 0 {
        line.push_str(&format!(", {} not applicable", s.not_applicable));
    }
    if s.waived > 0 {
        line.push_str(&format!(", {} waived", s.waived));
    }
    if let Some(b) = &s.baseline {
        line.push_str(&format!("; baseline: {}", b.line()));
    }
    let with = |what: String, cause: &Option<String>| match cause {
        Some(c) => format!("{what} ({c})"),
        None => what,
    };
    let mut gaps = vec![];
    if s.collection_errors > 0 {
        gaps.push(with(plural(s.collection_errors, "collection error"), &causes.collection_error));
    }
    if s.hosts_not_judged > 0 {
        gaps.push(with(format!("{} not judged", plural(s.hosts_not_judged, "host")), &causes.not_judged));
    }
    if s.rule_errors > 0 {
        gaps.push(with(plural(s.rule_errors, "rule error"), &causes.rule_error));
    }
    match exit {
        Exit::Incomplete => line.push_str(&format!("; incomplete: {}", gaps.join(", "))),
        Exit::Findings => {
            let level = match fail_on {
                FailOn::Error => "error",
                FailOn::Warning => "warning",
                FailOn::Note => "note",
                FailOn::Never => "never",
            };
            let which = if s.baseline.is_some() { "new findings" } else { "findings" };
            line.push_str(&format!("; failed: {which} at or above --fail-on {level}"));
            if !gaps.is_empty() {
                line.push_str(&format!("; allowed: {}", gaps.join(", ")));
            }
        }
        Exit::Clean if !gaps.is_empty() => line.push_str(&format!("; allowed: {}", gaps.join(", "))),
        Exit::Clean => {}
    }
    line.push_str(&format!(" → {}", dest.display()));
    line
}

/// What every host is checked with beyond its engine: the date waivers expire against, the
/// facts the run requires, the baseline its findings are marked against.
struct HowChecked<'a> {
    today: Date,
    require: &'a [Require],
    baseline: Option<&'a Baseline>,
    order: Order,
}

/// One host: its documents merged into a view, checked, written, counted.
fn check_and_write(
    engine: &Engine,
    docs: Vec<Document>,
    how: &HowChecked<'_>,
    writer: &mut dyn ReportWriter,
    summary: &mut Summary,
    causes: &mut Causes,
) -> Result<(), UserError> {
    let (rendered, counts, host_causes) = check_host_rendered(engine, docs, how, &*writer.renderer())?;
    writer.append(&rendered).map_err(report_io)?;
    summary.merge(&counts);
    causes.merge(host_causes);
    Ok(())
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

/// What a run says about the packs' waivers, on stderr: one that expires within the packs'
/// `waiver_warn_days` of `today` (or has expired), and one that matched no finding on any host
/// checked with it. Engines may share a pack (the inventory's pack lists extend the same one):
/// a waiver is one waiver wherever it is written, matched if any engine matched it.
fn waiver_warnings(engines: &[&Engine], today: Date) -> Vec<String> {
    // Per waiver, by where it is written: its first engine's view, whether any matched it, and
    // whether any that hold it checked a host.
    let mut seen: Vec<(String, &spindle_core::engine::Waiver, u32, bool, bool)> = vec![];
    for engine in engines {
        let checked = engine.hosts_checked.load(Ordering::Relaxed) > 0;
        for (at, w, used) in engine.waiver_states() {
            match seen.iter_mut().find(|s| s.0 == at) {
                Some(s) => {
                    s.3 |= used;
                    s.4 |= checked;
                }
                None => seen.push((at, w, engine.cfg.waiver_warn_days(), used, checked)),
            }
        }
    }
    let mut out = vec![];
    for (at, w, warn_days, used, checked) in seen {
        let what = format!("waiver for {} on `{}`", w.rules.join(", "), w.entity.as_str());
        if let Some(expires) = w.expires {
            let days = expires.days_since_epoch() - today.days_since_epoch();
            let when = match days {
                0 => "today".to_string(),
                1 => "tomorrow".to_string(),
                n => format!("in {n} days"),
            };
            if days < 0 {
                out.push(format!("warning: {at}: {what} expired on {expires}: its findings count again"));
            } else if days <= i64::from(warn_days) && warn_days > 0 {
                out.push(format!(
                    "warning: {at}: {what} expires on {expires}, {when}: renew it or fix what it waives \
                     (pack setting waiver_warn_days = {warn_days})"
                ));
            }
        }
        if checked && !used {
            out.push(format!(
                "warning: {at}: {what} matched no finding: remove it, or correct its rules or entity"
            ));
        }
    }
    out
}

/// `--select`, `--extend-select` and `--ignore` selectors that match no rule, all in one error.
fn unknown_selectors(unknown: Vec<UnknownSelector>) -> UserError {
    let mut message = match unknown.len() {
        1 => "a rule selector on the command line matches no rule:".to_string(),
        n => format!("{n} rule selectors on the command line match no rule:"),
    };
    for u in &unknown {
        message.push_str(&format!("\n  {} {}", u.flag, u.selector));
        if let Some(help) = &u.help {
            message.push_str(&format!(": {help}"));
        }
    }
    UserError {
        help: Some("selectors are codes (ALN001), code prefixes (ALN, acme/) or rule names; `spindle rules` lists them".into()),
        ..UserError::plain(message)
    }
}

pub(crate) fn report_io(e: std::io::Error) -> UserError {
    UserError::plain(format!("cannot write the report: {e}"))
}

/// What `--local` collected: this machine's documents, and the SQL Servers it could not read
/// (as named, and why).
struct Local {
    docs: Vec<Document>,
    unreachable: Vec<(String, String)>,
}

/// `--local`: this machine's host facts and, when an instance answers, its SQL facts. An instance
/// that cannot be reached (refused, login failed, no password) is a collection error of the run,
/// as a `--server` would be, and is also recorded in the host facts as not collected, with the
/// reason, so the rules that need it say "not evaluated" rather than pass.
fn local_documents(args: &CheckOptions) -> Result<Local, UserError> {
    let mut host = spindle_collectors::host::this_machine().map_err(|e| UserError::plain(e.to_string()))?;
    let names = if args.servers.is_empty() { vec!["localhost".to_string()] } else { args.servers.clone() };
    let mut docs = vec![];
    let mut missing = vec![];
    let mut prompted = Prompted::default();
    for name in names {
        let target = Target::parse(&name).map_err(UserError::plain)?;
        let options = match args.connect.options(&Default::default(), &mut prompted) {
            Ok(o) => o,
            Err(e) => {
                missing.push((name, e));
                continue;
            }
        };
        let job = Job { label: name.clone(), target, options };
        match fleet::collect_one(&job) {
            Ok(snapshot) => docs.push(live_document(
                &snapshot,
                &format!("{}-sql", job.target.file_stem()),
                args.save_snapshots.as_deref(),
            )?),
            Err(e) => missing.push((name, e.0)),
        }
    }
    if let Some(report) = host.collectors.first_mut() {
        for (name, why) in &missing {
            report.not_collected.push(spindle_core::facts::NotCollected {
                fact: "sql_instances".into(),
                reason: format!("no SQL Server facts: {name}: {why}"),
            });
        }
    }
    let stem = format!("{}-host", host.host.name);
    docs.insert(0, live_document(&host, &stem, args.save_snapshots.as_deref())?);
    Ok(Local { docs, unreachable: missing })
}

/// A server's own packs, when its inventory entry names them.
type PackList = Option<Vec<String>>;

/// The servers to collect, from `--server` and `--inventory` (filtered by `--tag`), each with
/// its own pack list when the inventory gives one.
pub(crate) fn live_jobs(args: &CheckOptions) -> Result<Vec<(Job, PackList)>, UserError> {
    let mut out = vec![];
    let mut prompted = Prompted::default();
    // With --local, --server names the local instance instead.
    for s in args.servers.iter().filter(|_| !args.local) {
        let target = Target::parse(s).map_err(UserError::plain)?;
        let options = args.connect.options(&Default::default(), &mut prompted).map_err(UserError::plain)?;
        out.push((Job { label: s.clone(), target, options }, None));
    }
    if let Some(path) = &args.inventory {
        for server in inventory::load(path)? {
            if !args.tags.is_empty() && !args.tags.iter().any(|t| server.tags.contains(t)) {
                continue;
            }
            let options = args
                .connect
                .options(&server.overrides, &mut prompted)
                .map_err(|e| UserError::plain(format!("{}: server {}: {e}", path.display(), server.label)))?;
            out.push((Job { label: server.label, target: server.target, options }, server.packs));
        }
        if out.is_empty() {
            return Err(UserError::plain(format!("{}: no server has the tags asked for", path.display())));
        }
    }
    Ok(out)
}

/// When the server calls its machine something other than the host it was reached at: a note
/// in the snapshot (the collector's `host.name`) and the warning to print. The name is the
/// server's own word, and any server can claim any name: merging on it would let a server at
/// one address put its facts into the files of another host. So a live server merges only with
/// the files of the host the command line or the inventory names.
fn claimed_elsewhere(snapshot: &mut Snapshot, job: &Job) -> Option<String> {
    let claimed = &snapshot.host.name;
    let reached = &job.target.host;
    if claimed.to_lowercase() == reached.to_lowercase() {
        return None;
    }
    let reason = format!(
        "the server reached at {reached} calls its machine {claimed}: its facts are merged only with \
         snapshot files of {reached}, never with those of {claimed} (name the server as its machine \
         is named for them to merge)"
    );
    // The snapshot keeps the server's words as data; the terminal gets them escaped.
    let warning = format!(
        "warning: {}: {}",
        spindle_core::untrusted::name(&job.label),
        spindle_core::untrusted::message(&reason)
    );
    let note = NotCollected { fact: "host.name".into(), reason };
    match snapshot.collectors.iter_mut().find(|c| c.name == "sql") {
        Some(c) => c.not_collected.push(note),
        None => snapshot.collectors.push(CollectorReport {
            name: "sql".into(),
            version: None,
            not_collected: vec![note],
        }),
    }
    Some(warning)
}

/// A collected snapshot as a document the view can locate facts in: saved under `dir` when
/// asked (reports then point into the saved file), else named for the server.
pub fn live_document(snapshot: &Snapshot, stem: &str, dir: Option<&Path>) -> Result<Document, UserError> {
    let mut text = serde_json::to_string_pretty(snapshot)
        .map_err(|e| UserError::plain(format!("cannot serialize the snapshot: {e}")))?;
    text.push('\n');
    let name = format!("{stem}.json");
    let path = match dir {
        Some(dir) => {
            let path = dir.join(&name);
            write_atomically(&path, text.as_bytes())?;
            path.display().to_string()
        }
        None => name,
    };
    parse_snapshot(&path, text).map_err(|e| UserError::plain(format!("collected snapshot: {e}")))
}

/// 2 when the run is incomplete (see [`Summary::incomplete`]: a rule failed, a host could not
/// be judged, or a server gave no facts and that was not allowed), 1 when a finding at or above
/// `--fail-on` is not waived, else 0. A check not evaluated for lack of a fact counts as a note;
/// one not applicable counts as nothing.
pub(crate) fn exit_code(s: &Summary, fail_on: FailOn) -> Exit {
    if s.incomplete() {
        return Exit::Incomplete;
    }
    // With a baseline, only new findings and new checks not evaluated count.
    let (errors, warnings, notes, not_evaluated) = match &s.baseline {
        Some(b) => (b.new_errors, b.new_warnings, b.new_notes, b.new_not_evaluated),
        None => (s.errors, s.warnings, s.notes, s.not_evaluated),
    };
    let failing = match fail_on {
        FailOn::Error => errors,
        FailOn::Warning => errors + warnings,
        FailOn::Note => errors + warnings + notes + not_evaluated,
        FailOn::Never => 0,
    };
    if failing > 0 { Exit::Findings } else { Exit::Clean }
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

/// Today's date (for waiver expiry) and the run's start time (RFC 3339, UTC, whole seconds).
/// `SPINDLE_TODAY=YYYY-MM-DD` pins both, the time to midnight UTC, so that reports are
/// reproducible.
pub fn clock() -> Result<(Date, String), UserError> {
    if std::env::var_os("SPINDLE_TODAY").is_some() {
        let today = today()?;
        return Ok((today, format!("{today}T00:00:00Z")));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| UserError::plain("the system clock is before 1970"))?
        .as_secs();
    Ok((Date::from_days_since_epoch((secs / 86_400) as i64), spindle_core::date::rfc3339_utc(secs)))
}

/// Today's date, for waiver expiry. `SPINDLE_TODAY=YYYY-MM-DD` pins it (reproducible CI runs).
pub fn today() -> Result<Date, UserError> {
    if let Ok(s) = std::env::var("SPINDLE_TODAY") {
        return Date::parse(&s)
            .ok_or_else(|| UserError::plain(format!("SPINDLE_TODAY={s}: expected YYYY-MM-DD")));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| UserError::plain("the system clock is before 1970"))?
        .as_secs();
    Ok(Date::from_days_since_epoch((secs / 86_400) as i64))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use spindle_core::declare::Declarations;

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
        CheckOptions { output: Some(out.to_path_buf()), inputs: inputs.to_vec(), ..Default::default() }
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

    #[test]
    fn the_summary_line_says_why_a_run_failed() {
        let out = Path::new("report.sarif");
        let s = Summary {
            hosts: 3,
            errors: 2,
            warnings: 5,
            notes: 1,
            not_evaluated: 1,
            collection_errors: 1,
            ..Default::default()
        };
        let causes = Causes { collection_error: Some("sql01: login failed".into()), ..Default::default() };
        assert_eq!(
            summary_line(&s, &causes, exit_code(&s, FailOn::Error), FailOn::Error, out),
            "spindle: 3 hosts, 2 errors, 5 warnings, 1 note, 1 not evaluated; incomplete: 1 collection \
             error (sql01: login failed) → report.sarif"
        );
        let allowed = Summary { unreachable_allowed: true, not_applicable: 4, ..s };
        assert_eq!(
            summary_line(&allowed, &causes, exit_code(&allowed, FailOn::Error), FailOn::Error, out),
            "spindle: 3 hosts, 2 errors, 5 warnings, 1 note, 1 not evaluated, 4 not applicable; failed: \
             findings at or above --fail-on error; allowed: 1 collection error (sql01: login failed) → \
             report.sarif"
        );
        let bare = Summary { hosts: 1, hosts_not_judged: 1, rule_errors: 2, ..Default::default() };
        let causes = Causes {
            not_judged: Some("bare: none of the 25 active rules could be evaluated".into()),
            rule_error: Some("sql02: acme/*".into()),
            ..Default::default()
        };
        assert_eq!(
            summary_line(&bare, &causes, exit_code(&bare, FailOn::Never), FailOn::Never, out),
            "spindle: 1 host, 0 errors, 0 warnings, 0 notes, 0 not evaluated; incomplete: 1 host not judged \
             (bare: none of the 25 active rules could be evaluated), 2 rule errors (sql02: acme/*) → \
             report.sarif"
        );
        let clean = Summary { hosts: 1, waived: 2, ..Default::default() };
        assert_eq!(
            summary_line(&clean, &Causes::default(), Exit::Clean, FailOn::Error, out),
            "spindle: 1 host, 0 errors, 0 warnings, 0 notes, 0 not evaluated, 2 waived → report.sarif"
        );
        assert_eq!(first_line(&format!("{}\nsecond", "x".repeat(200))), format!("{}…", "x".repeat(160)));
    }

    #[test]
    fn with_a_baseline_only_new_findings_fail_and_an_incomplete_run_stays_incomplete() {
        use spindle_report::BaselineCounts;
        let known = Summary {
            hosts: 1,
            errors: 4,
            warnings: 9,
            baseline: Some(BaselineCounts::default()),
            ..Default::default()
        };
        assert_eq!(exit_code(&known, FailOn::Error), Exit::Clean);
        assert_eq!(exit_code(&Summary { baseline: None, ..known }, FailOn::Error), Exit::Findings);
        let new_note = BaselineCounts { new: 1, new_notes: 1, ..Default::default() };
        let s = Summary { baseline: Some(new_note), ..known };
        assert_eq!(exit_code(&s, FailOn::Warning), Exit::Clean);
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Findings);
        assert_eq!(exit_code(&Summary { rule_errors: 1, ..known }, FailOn::Never), Exit::Incomplete);
        let line = summary_line(&s, &Causes::default(), Exit::Findings, FailOn::Note, Path::new("r.json"));
        assert!(
            line.contains(
                "; baseline: 1 new, 0 fixed, 0 unchanged; failed: new findings at or above --fail-on note"
            ),
            "{line}"
        );
    }

    #[test]
    fn not_applicable_never_fails_a_run_and_not_evaluated_is_a_note() {
        let s = Summary { hosts: 1, not_applicable: 5, ..Default::default() };
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Clean);
        let s = Summary { not_evaluated: 1, ..s };
        assert_eq!(exit_code(&s, FailOn::Note), Exit::Findings);
        assert_eq!(exit_code(&s, FailOn::Warning), Exit::Clean);
    }
}
