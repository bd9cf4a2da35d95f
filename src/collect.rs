//! `spindle collect`: one server's or one host's snapshot, saved as evidence or for a later check.

use std::path::Path;

use spindle_collectors::host;
use spindle_collectors::sql::target::Target;
use spindle_core::untrusted;

use crate::connect::{ConnectOptions, security_warnings};
use crate::errors::UserError;
use crate::fleet::{self, Job};
use crate::output::write_atomically;

/// `spindle collect sql`: one server's snapshot, saved to `output` (stdout when `None`).
pub fn sql(server: &str, connect: &ConnectOptions, output: Option<&Path>) -> Result<(), UserError> {
    let target = Target::parse(server).map_err(UserError::plain)?;
    let options = connect.options(&Default::default(), &mut Default::default()).map_err(UserError::plain)?;
    if let Some(w) = security_warnings(&options) {
        eprintln!("{w}");
    }
    let job = Job { label: server.to_owned(), target, options };
    let snapshot = fleet::collect_one(&job).map_err(|e| UserError::plain(format!("{server}: {e}")))?;
    save(&snapshot, output)
}

/// `spindle collect host`: this machine, or a disk image or raw device (`image`), saved to
/// `output` (stdout when `None`).
pub fn host(image: Option<&Path>, host_name: Option<&str>, output: Option<&Path>) -> Result<(), UserError> {
    let snapshot = match image {
        None => host::this_machine(),
        Some(path) => host::image(path, host_name),
    }
    .map_err(|e| UserError::plain(e.to_string()))?;
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
