//! How long `parse_snapshot` takes on the fleet bench's generated snapshots (about 50 database
//! files and 8 volumes each). Not a pass/fail test: run it in release when the load path changes,
//! and compare with the figure before the change.
//!
//! ```text
//! cargo test -p spindle-core --release --test parse_speed -- --ignored --nocapture
//! ```

#[path = "../../benches/common/fleet_gen.rs"]
mod fleet_gen;

use std::hint::black_box;
use std::time::{Duration, Instant};

use spindle_core::facts::Snapshot;
use spindle_core::load::parse_snapshot;

const SNAPSHOTS: usize = 500;
const ROUNDS: usize = 15;

/// The best of `ROUNDS` passes over all the texts, per snapshot.
fn best(texts: &[String], mut parse: impl FnMut(&str)) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for t in texts {
            parse(t);
        }
        best = best.min(start.elapsed());
    }
    best / texts.len() as u32
}

#[test]
#[ignore = "a timing, not a test: run it in release with --ignored --nocapture"]
fn parse_time_per_snapshot() {
    let texts: Vec<String> =
        (0..SNAPSHOTS).map(|i| serde_json::to_string_pretty(&fleet_gen::snapshot(i)).unwrap()).collect();
    let bytes: usize = texts.iter().map(String::len).sum::<usize>() / texts.len();
    let serde_only = best(&texts, |t| {
        black_box(serde_json::from_str::<Snapshot>(t).unwrap());
    });
    let parse = best(&texts, |t| {
        black_box(parse_snapshot("s.json", t.to_string()).unwrap());
    });
    println!("snapshot: {bytes} bytes of JSON on average, {SNAPSHOTS} snapshots, best of {ROUNDS}");
    println!("serde_json::from_str::<Snapshot>: {serde_only:?} per snapshot");
    println!("parse_snapshot (incl. copying the text): {parse:?} per snapshot");
}
