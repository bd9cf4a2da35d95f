//! How long `parse_snapshot` takes on the fleet bench's generated snapshots (about 50 database
//! files and 8 volumes each). Not a pass/fail test: run it in release when the load path changes,
//! and compare with the figure before the change.
//!
//! ```text
//! cargo test -p spindle-core --release --test parse_speed -- --ignored --nocapture
//! ```

use spindle_test_support::fleet_gen;

use std::hint::black_box;
use std::time::{Duration, Instant};

use spindle_core::facts::Snapshot;
use spindle_core::load::{parse_snapshot, parse_snapshot_tolerant};
use spindle_core::locate::locate;

const SNAPSHOTS: usize = 200;
const ROUNDS: usize = 40;

/// Each parse in turn over all the texts, `ROUNDS` times, interleaved so that a busy machine
/// slows them alike; the best pass of each, per snapshot.
/// A parse to time: its name, the texts it parses, and the parse.
type Timed<'a> = (&'a str, &'a [String], &'a mut dyn FnMut(&str));

fn best(parses: &mut [Timed<'_>]) {
    let mut best = vec![Duration::MAX; parses.len()];
    for _ in 0..ROUNDS {
        for ((_, texts, parse), best) in parses.iter_mut().zip(&mut best) {
            let start = Instant::now();
            for t in texts.iter() {
                parse(t);
            }
            *best = (*best).min(start.elapsed() / texts.len() as u32);
        }
    }
    for ((name, _, _), best) in parses.iter().zip(best) {
        println!("{name}: {best:?} per snapshot");
    }
}

#[test]
#[ignore = "a timing, not a test: run it in release with --ignored --nocapture"]
fn parse_time_per_snapshot() {
    let texts: Vec<String> =
        (0..SNAPSHOTS).map(|i| serde_json::to_string_pretty(&fleet_gen::snapshot(i)).unwrap()).collect();
    let bytes: usize = texts.iter().map(String::len).sum::<usize>() / texts.len();
    // What a plugin built before a field was added pays, for facts as spindle sends them (in the
    // types' order: volumes before the SQL Server instances, the bulk): a field it does not know
    // in every volume. And the worst case: one at the very end, found after a whole strict parse.
    let newer: Vec<String> = texts
        .iter()
        .map(|t| {
            let mut t = t.clone();
            let volumes = (0..).map_while(|i| locate(&t, &format!("/volumes/{i}"))).collect::<Vec<_>>();
            for v in volumes.iter().rev() {
                t.insert_str(v.value.start + 1, "\"fs_stripe_layout\": {\"unit_bytes\": 65536}, ");
            }
            t
        })
        .collect();
    let last: Vec<String> = texts
        .iter()
        .map(|t| {
            let end = t.rfind('}').unwrap();
            format!("{},\n  \"collector_build\": \"9.9\"\n}}", t[..end].trim_end())
        })
        .collect();
    println!("snapshot: {bytes} bytes of JSON on average, {SNAPSHOTS} snapshots, best of {ROUNDS}");
    best(&mut [
        ("serde_json::from_str::<Snapshot>", &texts, &mut |t| {
            black_box(serde_json::from_str::<Snapshot>(t).unwrap());
        }),
        ("parse_snapshot (copying the text in)", &texts, &mut |t| {
            black_box(parse_snapshot("s.json", t.to_string()).unwrap());
        }),
        ("parse_snapshot_tolerant, every field known", &texts, &mut |t| {
            black_box(parse_snapshot_tolerant("s.json", t.to_string()).unwrap());
        }),
        ("parse_snapshot_tolerant, an unknown field in every volume", &newer, &mut |t| {
            let t = parse_snapshot_tolerant("s.json", t.to_string()).unwrap();
            assert_eq!(t.ignored.len(), fleet_gen::VOLUMES.len());
            black_box(t);
        }),
        ("parse_snapshot_tolerant, an unknown field at the end", &last, &mut |t| {
            let t = parse_snapshot_tolerant("s.json", t.to_string()).unwrap();
            assert_eq!(t.ignored, ["/collector_build"]);
            black_box(t);
        }),
    ]);
}
