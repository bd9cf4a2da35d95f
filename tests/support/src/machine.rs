//! What both benchmarks need to know about where they run: the spindle binary to time, and the
//! machine to name beside the figures.

use std::fs;
use std::path::{Path, PathBuf};

/// The `spindle` binary Cargo built for this bench (`built`: `option_env!("CARGO_BIN_EXE_spindle")`
/// in the bench): the release one under `cargo bench`, the debug one under `cargo test`. Else it
/// sits next to the directory of this executable (`target/release/deps/fleet-…` →
/// `target/release/spindle`).
pub fn find_spindle(built: Option<&str>) -> Result<PathBuf, String> {
    if let Some(p) = built.map(PathBuf::from).filter(|p| p.is_file()) {
        return Ok(p);
    }
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let p = me.parent().and_then(Path::parent).map(|d| d.join("spindle")).filter(|p| p.is_file());
    p.ok_or_else(|| {
        "the spindle binary is missing: run `cargo build --release` first (it is expected in \
         target/release/spindle)"
            .to_string()
    })
}

/// Logical CPUs and the CPU's model name, for the figures' caption.
pub fn machine() -> (usize, String) {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    (cpus, model)
}
