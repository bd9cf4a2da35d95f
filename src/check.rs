//! `spindle check`: packs → rules → each host's facts → findings → the chosen report.
//!
//! Facts come from snapshot files, from live SQL Servers (`--server`, `--inventory`), or both:
//! a live server's snapshot merges with the files of the host it was reached at, as the command
//! line or the inventory names it (never as the server names itself).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;

use spindle_core::date::Date;
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::facts::{CollectorReport, NotCollected, Snapshot};
use spindle_core::load::{oversized, parse_snapshot};
use spindle_core::pack::{Config, load_packs};
use spindle_core::rule::{Rule, RuleMeta};
use spindle_core::view::{Document, HostView};

use spindle_collectors::sql::target::Target;
use spindle_plugin_host::{PluginHost, PluginRule, default_cache_dir, load_rules};
use spindle_report::json::JsonWriter;
use spindle_report::sarif::SarifWriter;
use spindle_report::text::TextWriter;
use spindle_report::{Render, Rendered, ReportWriter, RuleInfo, Summary};

use crate::connect::{Prompted, security_warnings};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::input;
use crate::inventory;
use crate::options::{CheckOptions, Exit, FailOn, Format};
use crate::ordered;
use crate::output::{Output, write_atomically};
use crate::packs::Loader;

/// The rules and settings of one pack list, with the plugins it loaded: what judges a host.
pub struct Engine {
    // Kept alive for the plugin rules, which call into it.
    _host: Option<PluginHost>,
    cfg: Config,
    /// The enabled rules with their settings, resolved once for every host.
    active: Vec<ActiveRule<'static>>,
}

impl Engine {
    /// Loads `packs` (builtin names or TOML files; empty: `recommended`) and the plugins they
    /// declare, and resolves the rules once for every host.
    pub fn load(packs: &[String]) -> Result<Engine, UserError> {
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
            Some(
                PluginHost::with_options(default_cache_dir(), fuel)
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
            stack.resolve(&cat)?
        };
        let active = cfg.active(&rules);
        Ok(Engine { _host: host, cfg, active })
    }

    /// The active rules as a report's rule table lists them.
    pub fn infos(&self) -> Vec<RuleInfo> {
        self.active.iter().map(|a| RuleInfo::from_meta(&a.code, a.rule.meta(), a.severity)).collect()
    }

    /// One host's view, built from its documents with the packs' declarations.
    pub fn view(&self, docs: Vec<Document>) -> HostView {
        HostView::build(docs, self.cfg.declarations.clone())
    }

    /// Runs every active rule on one host and applies the waivers (`today` decides which have
    /// expired).
    pub fn check(&self, view: &HostView, today: Date) -> spindle_core::engine::HostReport {
        check_host(&self.active, view, &self.cfg.waivers, today)
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
pub fn run(args: &CheckOptions) -> Result<Exit, UserError> {
    let default_engine = Engine::load(&args.packs)?;
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
                    engines.push(Engine::load(p)?);
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

    // Snapshot files are read, checked and rendered on this many threads.
    let threads =
        args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1);
    let files = if args.inputs.is_empty() { input::Files::default() } else { input::discover(&args.inputs)? };
    let mut groups = input::group_by_host(&files, threads)?;
    let today = today()?;
    if let Some(dir) = &args.save_snapshots {
        std::fs::create_dir_all(dir)
            .map_err(|e| UserError::plain(format!("{}: cannot create: {e}", dir.display())))?;
    }
    let jobs: Vec<Job> = live.into_iter().map(|(job, _)| job).collect();
    let mut warnings: Vec<&str> = jobs.iter().filter_map(|j| security_warnings(&j.options)).collect();
    warnings.dedup();
    for w in warnings {
        eprintln!("{w}");
    }

    let mut local_docs = if args.local { Some(local_documents(args)?) } else { None };

    let mut out = Output::new(args.output.as_deref())?;
    let result = (|| -> Result<Summary, UserError> {
        let w = out.writer();
        let mut writer: Box<dyn ReportWriter + '_> = match args.format {
            Format::Text => Box::new(TextWriter::new(w, use_colour(args))),
            Format::Json => Box::new(JsonWriter::new(w, env!("CARGO_PKG_VERSION"))),
            Format::Sarif => Box::new(SarifWriter::new(w, env!("CARGO_PKG_VERSION"))),
        };
        writer.begin(&infos).map_err(report_io)?;
        let mut summary = Summary::default();
        if let Some(docs) = local_docs.take() {
            check_and_write(&default_engine, docs, today, &mut writer, &mut summary)?;
        }
        // A live server's snapshot merges with the files of the host it was reached at.
        let mut group_of_host = groups.take_host_index();
        let quiet = args.output.is_none() && args.format != Format::Text;
        let progress = std::io::stderr().is_terminal() && !quiet;
        // Printed once the progress bar is gone.
        let mut renamed: Vec<String> = vec![];
        fleet::run(&jobs, args.concurrency.max(1), progress, |i, outcome| -> Result<(), UserError> {
            let job = &jobs[i];
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
                    check_and_write(engine, docs, today, &mut writer, &mut summary)?;
                }
                Err(e) => {
                    writer.collection_error(&job.label, &e.0).map_err(report_io)?;
                    summary.collection_errors += 1;
                }
            }
            Ok(())
        })?;
        for w in renamed {
            eprintln!("{w}");
        }
        let mut remaining: Vec<u32> = group_of_host.into_values().collect();
        remaining.sort_unstable();
        let render = writer.renderer();
        // Reading, parsing, checking and rendering a host need nothing of the others: they run
        // on every core, and the writer appends the hosts in file order.
        ordered::for_each_in_order(
            &remaining,
            threads,
            |&g| {
                check_host_rendered(
                    &default_engine,
                    input::load_group(&files, &groups, g as usize)?,
                    today,
                    &*render,
                )
            },
            |host| {
                let (rendered, counts) = host?;
                writer.append(&rendered).map_err(report_io)?;
                summary.merge(&counts);
                Ok::<(), UserError>(())
            },
        )?;
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
    Ok(exit_code(&summary, args.fail_on, args.allow_unreachable))
}

/// One host: its documents merged into a view, checked, written, counted.
fn check_and_write(
    engine: &Engine,
    docs: Vec<Document>,
    today: Date,
    writer: &mut dyn ReportWriter,
    summary: &mut Summary,
) -> Result<(), UserError> {
    let (rendered, counts) = check_host_rendered(engine, docs, today, &*writer.renderer())?;
    writer.append(&rendered).map_err(report_io)?;
    summary.merge(&counts);
    Ok(())
}

/// One host: its documents merged into a view, checked and rendered, with its counts; needs
/// nothing of other hosts, so it runs on any thread.
fn check_host_rendered(
    engine: &Engine,
    docs: Vec<Document>,
    today: Date,
    render: &dyn Render,
) -> Result<(Rendered, Summary), UserError> {
    let view = engine.view(docs);
    let report = engine.check(&view, today);
    let mut counts = Summary::default();
    counts.add(&report);
    Ok((render.render(&view, &report).map_err(report_io)?, counts))
}

fn report_io(e: std::io::Error) -> UserError {
    UserError::plain(format!("cannot write the report: {e}"))
}

/// `--local`: this machine's host facts and, when an instance answers, its SQL facts. An instance
/// that cannot be reached is recorded in the host facts as not collected, with the reason, so
/// the rules that need it say "not evaluated" rather than pass.
fn local_documents(args: &CheckOptions) -> Result<Vec<Document>, UserError> {
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
                missing.push(format!("{name}: {e}"));
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
            Err(e) => missing.push(format!("{name}: {e}")),
        }
    }
    if let Some(report) = host.collectors.first_mut() {
        for reason in missing {
            report.not_collected.push(spindle_core::facts::NotCollected {
                fact: "sql_instances".into(),
                reason: format!("no SQL Server facts: {reason}"),
            });
        }
    }
    let stem = format!("{}-host", host.host.name);
    docs.insert(0, live_document(&host, &stem, args.save_snapshots.as_deref())?);
    Ok(docs)
}

/// A server's own packs, when its inventory entry names them.
type PackList = Option<Vec<String>>;

/// The servers to collect, from `--server` and `--inventory` (filtered by `--tag`), each with
/// its own pack list when the inventory gives one.
fn live_jobs(args: &CheckOptions) -> Result<Vec<(Job, PackList)>, UserError> {
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

/// 2 when the run is incomplete (a rule failed, or a server gave no facts and
/// `--allow-unreachable` was not given), 1 when a finding at or above `--fail-on` is not waived,
/// else 0. A rule not evaluated for lack of facts counts as a note.
fn exit_code(s: &Summary, fail_on: FailOn, allow_unreachable: bool) -> Exit {
    if s.rule_errors > 0 || (s.collection_errors > 0 && !allow_unreachable) {
        return Exit::Incomplete;
    }
    let failing = match fail_on {
        FailOn::Error => s.errors,
        FailOn::Warning => s.errors + s.warnings,
        FailOn::Note => s.errors + s.warnings + s.notes + s.not_evaluated,
        FailOn::Never => 0,
    };
    if failing > 0 { Exit::Findings } else { Exit::Clean }
}

/// Colour only on a terminal, never with `NO_COLOR` set or when writing to a file.
fn use_colour(args: &CheckOptions) -> bool {
    args.output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
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
