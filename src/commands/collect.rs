//! `spindle collect`: one server's or one host's snapshot, saved as evidence or for a later check.

use std::path::Path;

use spindle_core::untrusted;

use crate::connect::{ConnectOptions, security_warnings};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::output::write_atomically;
use crate::sources::{self, Source};

/// `spindle collect sql`: one server's snapshot, saved to `output` (stdout when `None`).
pub fn sql(server: &str, connect: &ConnectOptions, output: Option<&Path>) -> Result<(), UserError> {
    let found = sources::servers(&[Source::Server(server.to_owned())], connect)?;
    let job = &found.first().expect("a server source is one server").job;
    if let Some(w) = security_warnings(&job.options) {
        eprintln!("{w}");
    }
    let snapshot = fleet::collect_one(job).map_err(|e| UserError::plain(format!("{server}: {e}")))?;
    save(&snapshot, output)
}

/// `spindle collect host`: this machine, or a disk image or raw device (`image`), saved to
/// `output` (stdout when `None`).
pub fn host(image: Option<&Path>, host_name: Option<&str>, output: Option<&Path>) -> Result<(), UserError> {
    let source = match image {
        None => Source::ThisMachine { sql: vec![] },
        Some(path) => Source::Image { path: path.to_owned(), host_name: host_name.map(str::to_owned) },
    };
    let snapshot = sources::host_snapshot(&source)?;
    let snapshot = match host_name {
        Some(name) => spindle_core::facts::Snapshot {
            host: spindle_core::facts::Host { name: name.to_owned(), ..snapshot.host },
            ..snapshot
        },
        None => snapshot,
    };
    save(&snapshot, output)
}

fn save(snapshot: &spindle_core::facts::Snapshot, output: Option<&Path>) -> Result<(), UserError> {
    let mut text = serde_json::to_string_pretty(snapshot)
        .map_err(|e| UserError::plain(format!("cannot serialize the snapshot: {e}")))?;
    text.push('\n');
    match output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    for n in snapshot.collectors.iter().flat_map(|c| &c.not_collected) {
        // The reason may quote a device's or a server's own words.
        eprintln!("not collected: {}: {}", untrusted::name(&n.fact), untrusted::message(&n.reason));
    }
    Ok(())
}

/// `spindle collect inventory`: what to collect, and where the snapshots go.
#[derive(Debug, Clone)]
pub struct InventoryOptions {
    pub inventory: std::path::PathBuf,
    pub out_dir: std::path::PathBuf,
    /// Only the servers with one of these tags.
    pub tags: Vec<String>,
    /// Only this share of the servers, as `spindle check --shard` splits them.
    pub shard: Option<crate::shard::Shard>,
    pub concurrency: usize,
    /// A server not collected does not make the exit status 2.
    pub allow_unreachable: bool,
    pub connect: ConnectOptions,
}

/// `spindle collect inventory`: a snapshot per server of the inventory (or of its share) into
/// `out_dir`, named as `spindle check --save-snapshots` names them. Each server not collected
/// is said on stderr, with why.
pub fn inventory(opts: &InventoryOptions) -> Result<crate::Exit, UserError> {
    let inventory = Source::Inventory { path: opts.inventory.clone(), tags: opts.tags.clone() };
    let jobs: Vec<Job> = sources::servers(&[inventory], &opts.connect)?
        .into_iter()
        .map(|server| server.job)
        .filter(|job| opts.shard.is_none_or(|s| s.holds(&job.target.host)))
        .collect();
    let share = opts.shard.map_or(String::new(), |s| format!("shard {s}: "));
    if jobs.is_empty() {
        // Normal for a shard of a small inventory; the other shards hold the servers.
        eprintln!("spindle: {share}no server of {} falls in this share", opts.inventory.display());
        return Ok(crate::Exit::Clean);
    }
    let mut warnings: Vec<&str> = jobs.iter().filter_map(|j| security_warnings(&j.options)).collect();
    warnings.dedup();
    for w in warnings {
        eprintln!("{w}");
    }
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| UserError::plain(format!("{}: cannot create: {e}", opts.out_dir.display())))?;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let (mut collected, mut failed) = (0usize, vec![]);
    fleet::run(&jobs, opts.concurrency.max(1), progress, |i, outcome| -> Result<(), UserError> {
        let job = &jobs[i];
        let saved =
            outcome.map_err(|e| e.0).and_then(|snapshot| match spindle_core::load::oversized(&snapshot) {
                Some(o) => Err(format!("its facts are refused: {o}")),
                None => sources::live_document(&snapshot, &job.target.file_stem(), Some(&opts.out_dir))
                    .map(drop)
                    .map_err(|e| format!("collected, but the snapshot was not saved: {}", e.message)),
            });
        match saved {
            Ok(()) => collected += 1,
            Err(why) => failed.push((job.label.clone(), why)),
        }
        Ok(())
    })?;
    for (label, why) in &failed {
        // The reason may quote the server's own words.
        eprintln!("not collected: {}: {}", untrusted::name(label), untrusted::message(why));
    }
    eprintln!(
        "spindle: {share}{} collected into {}{}",
        spindle_core::units::plural(collected, "server"),
        opts.out_dir.display(),
        if failed.is_empty() { String::new() } else { format!(", {} not", failed.len()) }
    );
    Ok(if failed.is_empty() || opts.allow_unreachable { crate::Exit::Clean } else { crate::Exit::Incomplete })
}
