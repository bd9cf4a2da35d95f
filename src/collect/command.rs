//! `spindle collect sql`: one server's snapshot, saved.

use std::path::Path;
use std::process::ExitCode;

use super::args::{ConnectArgs, security_warnings};
use super::fleet::{self, Job};
use super::sql::target::Target;
use crate::errors::UserError;
use crate::output::write_atomically;

pub fn sql(server: &str, connect: &ConnectArgs, output: Option<&Path>) -> Result<ExitCode, UserError> {
    let target = Target::parse(server).map_err(UserError::plain)?;
    let options = connect.options(&Default::default(), &mut Default::default()).map_err(UserError::plain)?;
    if let Some(w) = security_warnings(&options) {
        eprintln!("{w}");
    }
    let job = Job { label: server.to_owned(), target, options };
    let snapshot = fleet::collect_one(&job).map_err(|e| UserError::plain(format!("{server}: {e}")))?;
    save(&snapshot, output)
}

/// `spindle collect host`: this machine, a disk image or a raw device.
pub fn host(
    image: Option<&Path>,
    device: Option<&Path>,
    host_name: Option<&str>,
    output: Option<&Path>,
) -> Result<ExitCode, UserError> {
    let snapshot = match image.or(device) {
        None => super::host::this_machine()?,
        Some(path) => super::host::image(path, host_name)?,
    };
    let snapshot = match host_name {
        Some(name) => spindle_core::facts::Snapshot {
            host: spindle_core::facts::Host { name: name.to_owned(), ..snapshot.host },
            ..snapshot
        },
        None => snapshot,
    };
    save(&snapshot, output)
}

fn save(snapshot: &spindle_core::facts::Snapshot, output: Option<&Path>) -> Result<ExitCode, UserError> {
    let mut text = serde_json::to_string_pretty(snapshot)
        .map_err(|e| UserError::plain(format!("cannot serialize the snapshot: {e}")))?;
    text.push('\n');
    match output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    for n in snapshot.collectors.iter().flat_map(|c| &c.not_collected) {
        eprintln!("not collected: {}: {}", n.fact, n.reason);
    }
    Ok(ExitCode::SUCCESS)
}
