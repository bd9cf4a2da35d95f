//! Wide-host benchmark: one host with `n` disks, `n` partitions and `n` volumes
//! (`spindle_test_support::wide_host`), checked with the release `spindle` binary, once with every
//! partition at 1 MiB and once at sector 63 (32,256 bytes). The other way to be large: the fleet
//! bench has many small hosts. At sector 63 the alignment rules find every partition and write a
//! fix naming its volume, and that join was a walk over every volume's partitions for each
//! partition (issue 27: 12.3 s at 5,000 in a debug build, against 0.73 s aligned). The verdict
//! is that each layout's time per entity stays flat as the host grows. See `benches/README.md`.
//!
//! ```text
//! cargo bench --bench wide                             # 2,500, 5,000 and 10,000 of each
//! WIDE_SIZES=10000,40000 cargo bench --bench wide
//! ```
//!
//! Environment: `WIDE_SIZES` (comma-separated; default 2500,5000,10000), `WIDE_RUNS` (timed runs
//! per measurement, the fastest is kept; default 3).

use spindle_test_support::child;
use spindle_test_support::machine;
use spindle_test_support::wide_host::{ALIGNED, SECTOR_63, json_at};

use child::ChildRun;
use machine::{find_spindle, machine};

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::Path;
use std::process::ExitCode;

const DEFAULT_SIZES: [usize; 3] = [2_500, 5_000, 10_000];
/// Waiver expiry is relative to today; pin it so that runs are comparable.
const TODAY: &str = "2025-06-01";
/// Time per entity may grow this much from the smallest host to the largest: linear joins stay
/// near 1×, and one quadratic join makes it the ratio of the sizes (4× from 2,500 to 10,000).
const FLAT: f64 = 1.6;
const LAYOUTS: [(&str, u64); 2] = [("1 MiB", ALIGNED), ("sector 63", SECTOR_63)];

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == child::WRAPPER_FLAG) {
        return child::wrapper_main(&args[2..]);
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file as a test without
    // it: then check a small host of each layout with the debug binary, in a moment.
    let smoke = !args.iter().any(|a| a == "--bench");
    let run = if smoke { smoke_test() } else { bench() };
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wide bench{}: {e}", if smoke { " smoke test" } else { "" });
            ExitCode::FAILURE
        }
    }
}

/// Runs `spindle check FILE --format json --output OUT --fail-on never` under the wrapper.
fn run_check(spindle: &Path, file: &Path, out: &Path) -> Result<ChildRun, String> {
    let args: [&OsStr; 7] = [
        "check".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--output".as_ref(),
        out.as_os_str(),
        "--fail-on".as_ref(),
    ];
    let mut args = args.to_vec();
    args.push("never".as_ref());
    let run = child::measure(spindle, &args, &[("SPINDLE_TODAY", TODAY)])?;
    if run.status != 0 {
        return Err(format!("{} exited with {}: {}", file.display(), run.status, run.stderr));
    }
    Ok(run)
}

/// Without `--bench`: a host of 40 of each (past the length at which the view's joins switch from
/// walks to indexes), at sector 63, checks, and each partition's fix names the volume on it.
fn smoke_test() -> Result<(), String> {
    let spindle = find_spindle(option_env!("CARGO_BIN_EXE_spindle"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (file, out) = (dir.path().join("wide.json"), dir.path().join("r.json"));
    fs::write(&file, json_at("WIDE", 40, SECTOR_63)).map_err(|e| e.to_string())?;
    run_check(&spindle, &file, &out)?;
    let report = fs::read_to_string(&out).map_err(|e| e.to_string())?;
    for i in [0, 17, 39] {
        // The fix names the partition's volume (the label names its mount point either way).
        let fix =
            format!(r"Move the data off E:\\Mounts\\Lun{i:06}\\, then recreate partition 1 of disk {i} ");
        if !report.contains(&fix) {
            return Err(format!("no fix moves the data off volume {i}: {fix}"));
        }
    }
    println!("wide bench: sector-63 host ok (run the benchmark with `cargo bench --bench wide`)");
    Ok(())
}

fn env_usize(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().replace('_', "").parse().map_err(|_| format!("{name}={v}: not a number")),
        Err(_) => Ok(default),
    }
}

fn sizes() -> Result<Vec<usize>, String> {
    let Ok(v) = std::env::var("WIDE_SIZES") else { return Ok(DEFAULT_SIZES.to_vec()) };
    let mut sizes = v
        .split(',')
        .map(|s| {
            s.trim().replace('_', "").parse::<usize>().map_err(|_| format!("WIDE_SIZES={v}: not numbers"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    sizes.sort_unstable();
    sizes.dedup();
    sizes.retain(|&n| n > 0);
    if sizes.is_empty() {
        return Err(format!("WIDE_SIZES={v}: no size"));
    }
    Ok(sizes)
}

fn bench() -> Result<(), String> {
    let sizes = sizes()?;
    let runs = env_usize("WIDE_RUNS", 3)?.max(1);
    let spindle = find_spindle(option_env!("CARGO_BIN_EXE_spindle"))?;
    let (cpus, model) = machine();
    println!(
        "wide bench: one host of {sizes:?} disks, partitions and volumes, best of {runs}; {cpus} cores, {model}"
    );
    println!("checker: {}", spindle.display());
    let tmp = tempfile::Builder::new().prefix("spindle-wide-").tempdir().map_err(|e| e.to_string())?;
    let out = tmp.path().join("r.json");

    println!(
        "\n| partitions at | n of each | snapshot MB | wall s | cpu s | cpu µs per entity | peak RSS MiB | report MB |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|");
    let mut verdicts = vec![];
    for (layout, offset) in LAYOUTS {
        let mut per_entity = vec![];
        for &n in &sizes {
            let file = tmp.path().join(format!("wide-{n}-{offset}.json"));
            fs::write(&file, json_at("WIDE", n, offset)).map_err(|e| e.to_string())?;
            let bytes = fs::metadata(&file).map_or(0, |m| m.len());
            run_check(&spindle, &file, &out)?; // warm-up
            let mut best: Option<ChildRun> = None;
            for _ in 0..runs {
                let r = run_check(&spindle, &file, &out)?;
                if best.as_ref().is_none_or(|b| r.cpu < b.cpu) {
                    best = Some(r);
                }
            }
            let best = best.expect("at least one run");
            let report = fs::metadata(&out).map_or(0, |m| m.len());
            let us = best.cpu.as_secs_f64() * 1e6 / (3 * n) as f64;
            per_entity.push(us);
            println!(
                "| {layout} | {n} | {:.1} | {:.2} | {:.2} | {us:.1} | {:.0} | {:.1} |",
                bytes as f64 / 1e6,
                best.wall.as_secs_f64(),
                best.cpu.as_secs_f64(),
                best.maxrss_kib as f64 / 1024.0,
                report as f64 / 1e6,
            );
            fs::remove_file(&file).map_err(|e| e.to_string())?;
        }
        let (first, last) = (per_entity[0], per_entity[per_entity.len() - 1]);
        verdicts.push((layout, last / first));
    }
    println!();
    let (small, large) = (sizes[0], sizes[sizes.len() - 1]);
    for (layout, growth) in verdicts {
        let verdict = if sizes.len() < 2 {
            "not judged (one size)"
        } else if growth <= FLAT {
            "LINEAR"
        } else {
            "NOT LINEAR"
        };
        println!(
            "{layout}: CPU per entity {growth:.2}× from {small} to {large} of each (target ≤ {FLAT}×): {verdict}"
        );
    }
    Ok(())
}
