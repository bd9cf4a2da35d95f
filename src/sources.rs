//! Where a run's facts come from besides snapshot files: SQL Servers collected live (named on
//! the command line or listed in an inventory) and this machine, each collected snapshot made a
//! document the view can locate facts in.

use std::path::Path;

use spindle_collectors::sql::target::Target;
use spindle_core::facts::{CollectorReport, NotCollected, Snapshot};
use spindle_core::load::parse_snapshot;
use spindle_core::view::Document;

use crate::connect::Prompted;
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::inventory;
use crate::options::CheckOptions;
use crate::output::write_atomically;

/// What `--local` collected: this machine's documents, and the SQL Servers it could not read
/// (as named, and why).
pub struct Local {
    pub docs: Vec<Document>,
    pub unreachable: Vec<(String, String)>,
}

/// `--local`: this machine's host facts and, when an instance answers, its SQL facts. An instance
/// that cannot be reached (refused, login failed, no password) is a collection error of the run,
/// as a `--server` would be, and is also recorded in the host facts as not collected, with the
/// reason, so the rules that need it say "not evaluated" rather than pass.
pub fn local_documents(args: &CheckOptions) -> Result<Local, UserError> {
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
pub type PackList = Option<Vec<String>>;

/// The servers to collect, from `--server` and `--inventory` (filtered by `--tag`), each with
/// its own pack list when the inventory gives one.
pub fn live_jobs(args: &CheckOptions) -> Result<Vec<(Job, PackList)>, UserError> {
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
