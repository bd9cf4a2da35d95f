//! Where a run's facts come from: snapshot files, SQL Servers collected live (named on the
//! command line or listed in an inventory), this machine, a disk image. Every command that reads
//! facts names them as [`Source`]s and opens them here, and each yields documents that say where
//! they came from: the snapshot file, or the snapshot collected (saved under `--save-snapshots`,
//! else named for the server or machine).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use spindle_collectors::sql::target::Target;
use spindle_core::facts::{CollectorReport, NotCollected, Snapshot};
use spindle_core::load::parse_snapshot;
use spindle_core::view::Document;

use crate::connect::{ConnectOptions, Prompted};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::input::{self, Exclude, Files, Groups};
use crate::inventory;
use crate::output::write_atomically;

/// One place facts come from, as a command was asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Snapshot files, and folders of them walked for `.json` files (`exclude`: globs the walk
    /// leaves out, see [`Exclude`]); `-` is standard input. Files of one host merge into one view.
    Files { inputs: Vec<PathBuf>, exclude: Vec<String> },
    /// A SQL Server collected live: `host`, `host\instance` or `host,port`.
    Server(String),
    /// Every server of an inventory (TOML `[[server]]` entries) with one of `tags` (all of them
    /// when `tags` is empty), each with its own packs when its entry names them.
    Inventory { path: PathBuf, tags: Vec<String> },
    /// This machine's host facts, merged with those of its SQL Servers named in `sql`: an
    /// instance that cannot be read is recorded in the host facts as not collected.
    ThisMachine { sql: Vec<String> },
    /// A raw disk image, a fixed VHD or a block device, read from its bytes; `host_name` is the
    /// host to record (default: the file's name).
    Image { path: PathBuf, host_name: Option<String> },
}

impl Source {
    /// Snapshot files and folders, walked with `exclude`.
    pub fn files(inputs: Vec<PathBuf>, exclude: Vec<String>) -> Source {
        Source::Files { inputs, exclude }
    }

    /// Whether this source is collected on this machine, before the run checks anything.
    pub fn is_here(&self) -> bool {
        matches!(self, Source::ThisMachine { .. } | Source::Image { .. })
    }
}

/// The files and folders named among `sources`: what a report written over one of them would
/// destroy.
pub fn file_inputs(sources: &[Source]) -> Vec<&Path> {
    sources
        .iter()
        .flat_map(|s| match s {
            Source::Files { inputs, .. } => inputs.as_slice(),
            _ => &[],
        })
        .map(PathBuf::as_path)
        .collect()
}

/// The snapshot files of a run, listed and grouped by host: what its `Files` sources yield, one
/// host's documents at a time, so a fleet of any size is checked in memory bounded by its
/// largest host.
#[derive(Debug, Default)]
pub struct Snapshots {
    files: Files,
    groups: Groups,
}

impl Snapshots {
    /// Lists the snapshot files of every `Files` source among `sources`, in order (see
    /// [`input::discover_excluding`]), and groups them by host, the host names read on `threads`
    /// threads (see [`input::group_by_host`]). No `Files` source: no host.
    pub fn open(sources: &[Source], threads: usize) -> Result<Snapshots, UserError> {
        let sets: Vec<(&[PathBuf], Exclude)> = sources
            .iter()
            .filter_map(|s| match s {
                Source::Files { inputs, exclude } => Some((inputs.as_slice(), Exclude::new(exclude))),
                _ => None,
            })
            .collect();
        let files = input::discover_all(&sets)?;
        let groups = input::group_by_host(&files, threads)?;
        Ok(Snapshots { files, groups })
    }

    /// How many hosts the files describe.
    pub fn hosts(&self) -> usize {
        self.groups.count()
    }

    /// Reads and parses the files of host `g` (in order of first appearance): its documents,
    /// each named by its file.
    pub fn load(&self, g: usize) -> Result<Vec<Document>, UserError> {
        input::load_group(&self.files, &self.groups, g)
    }

    /// The hosts by lower-cased name, handed over: a run needs them only to pair hosts (a live
    /// server with its files, a diff's two sides), and then no more.
    pub fn take_host_index(&mut self) -> HashMap<Box<str>, u32> {
        self.groups.take_host_index()
    }
}

/// A SQL Server to collect: how to reach it, and its own packs when its inventory entry names
/// them.
pub struct Server {
    pub job: Job,
    pub packs: Option<Vec<String>>,
}

/// The servers to collect among `sources`, in order: each `Server`, then each `Inventory`'s
/// servers with the tags asked for. The connection options are settled once for all of them (a
/// password prompted for once). An inventory none of whose servers has the tags, with no server
/// before it, is an error.
pub fn servers(sources: &[Source], connect: &ConnectOptions) -> Result<Vec<Server>, UserError> {
    let mut out = vec![];
    let mut prompted = Prompted::default();
    for source in sources {
        match source {
            Source::Server(s) => {
                let target = Target::parse(s).map_err(UserError::plain)?;
                let options =
                    connect.options(&Default::default(), &mut prompted).map_err(UserError::plain)?;
                out.push(Server { job: Job { label: s.clone(), target, options }, packs: None });
            }
            Source::Inventory { path, tags } => {
                inventory_servers(path, tags, connect, &mut prompted, &mut out)?;
                if out.is_empty() {
                    return Err(UserError::plain(format!(
                        "{}: no server has the tags asked for",
                        path.display()
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The servers of the inventory at `path` with one of `tags` (any, when there are none), onto
/// `out`.
fn inventory_servers(
    path: &Path,
    tags: &[String],
    connect: &ConnectOptions,
    prompted: &mut Prompted,
    out: &mut Vec<Server>,
) -> Result<(), UserError> {
    for server in inventory::load(path)? {
        if !tags.is_empty() && !tags.iter().any(|t| server.tags.contains(t)) {
            continue;
        }
        let options = connect
            .options(&server.overrides, prompted)
            .map_err(|e| UserError::plain(format!("{}: server {}: {e}", path.display(), server.label)))?;
        let job = Job { label: server.label, target: server.target, options };
        out.push(Server { job, packs: server.packs });
    }
    Ok(())
}

/// One host collected on this machine before the run checks anything: its documents, and the
/// SQL Servers it could not read (as named, and why).
pub struct Collected {
    pub docs: Vec<Document>,
    pub unreachable: Vec<(String, String)>,
}

/// Collects every source among `sources` that is read on this machine ([`Source::is_here`]),
/// each one host, in order; collected snapshots are saved under `save` when given.
pub fn collect_here(
    sources: &[Source],
    connect: &ConnectOptions,
    save: Option<&Path>,
) -> Result<Vec<Collected>, UserError> {
    let mut out = vec![];
    for source in sources.iter().filter(|s| s.is_here()) {
        out.push(match source {
            Source::ThisMachine { sql } => this_machine(sql, connect, save)?,
            _ => {
                let snapshot = host_snapshot(source)?;
                let stem = format!("{}-host", snapshot.host.name);
                Collected { docs: vec![live_document(&snapshot, &stem, save)?], unreachable: vec![] }
            }
        });
    }
    Ok(out)
}

/// The host facts of a source read on this machine: this machine's storage, or a disk image's
/// (named `host_name`, else for the file); SQL Server's are not read here.
pub fn host_snapshot(source: &Source) -> Result<Snapshot, UserError> {
    match source {
        Source::ThisMachine { .. } => spindle_collectors::host::this_machine(),
        Source::Image { path, host_name } => spindle_collectors::host::image(path, host_name.as_deref()),
        _ => return Err(UserError::plain("only this machine and disk images are read on this machine")),
    }
    .map_err(|e| UserError::plain(e.to_string()))
}

/// This machine's host facts and, when an instance of `sql` answers, its SQL facts. An instance
/// that cannot be reached (refused, login failed, no password) is a collection error of the run,
/// as a server's would be, and is also recorded in the host facts as not collected, with the
/// reason, so the rules that need it say "not evaluated" rather than pass.
fn this_machine(
    sql: &[String],
    connect: &ConnectOptions,
    save: Option<&Path>,
) -> Result<Collected, UserError> {
    let mut host = spindle_collectors::host::this_machine().map_err(|e| UserError::plain(e.to_string()))?;
    let mut docs = vec![];
    let mut missing = vec![];
    let mut prompted = Prompted::default();
    for name in sql {
        let target = Target::parse(name).map_err(UserError::plain)?;
        let options = match connect.options(&Default::default(), &mut prompted) {
            Ok(o) => o,
            Err(e) => {
                missing.push((name.clone(), e));
                continue;
            }
        };
        let job = Job { label: name.clone(), target, options };
        match fleet::collect_one(&job) {
            Ok(snapshot) => {
                docs.push(live_document(&snapshot, &format!("{}-sql", job.target.file_stem()), save)?)
            }
            Err(e) => missing.push((name.clone(), e.0)),
        }
    }
    if let Some(report) = host.collectors.first_mut() {
        for (name, why) in &missing {
            report.not_collected.push(NotCollected {
                fact: "sql_instances".into(),
                reason: format!("no SQL Server facts: {name}: {why}"),
            });
        }
    }
    let stem = format!("{}-host", host.host.name);
    docs.insert(0, live_document(&host, &stem, save)?);
    Ok(Collected { docs, unreachable: missing })
}

/// When the server calls its machine something other than the host it was reached at: a note
/// in the snapshot (the collector's `host.name`) and the warning to print. The name is the
/// server's own word, and any server can claim any name: merging on it would let a server at
/// one address put its facts into the files of another host. So a live server merges only with
/// the files of the host the command line or the inventory names.
pub fn claimed_elsewhere(snapshot: &mut Snapshot, job: &Job) -> Option<String> {
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
