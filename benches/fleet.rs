//! Fleet benchmark: generates a fleet of realistic snapshots (one host per file, about 50
//! database files and 8 volumes each), checks it with the release `spindle` binary, and compares
//! that with the floor: reading and `serde_json`-parsing the same files in-process. Reports
//! snapshots per second and the checker's peak memory for two fleet sizes, to show that memory
//! stays flat as the fleet grows. See `benches/README.md`.
//!
//! ```text
//! cargo bench --bench fleet                          # 10,000 snapshots, and 1,000
//! FLEET_SNAPSHOTS=2000 cargo bench --bench fleet     # 2,000, and 1,000
//! ```
//!
//! Environment: `FLEET_SNAPSHOTS` (default 10000), `FLEET_RUNS` (timed runs per measurement, the
//! best is kept; default 3), `FLEET_KEEP=1` (keep the generated fleets and print where).

use spindle_test_support::child;
use spindle_test_support::fleet_gen;
use spindle_test_support::machine;

use child::ChildRun;
use machine::{find_spindle, machine};

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use spindle::engine::Engine;
use spindle::input;
use spindle_core::date::Date;
use spindle_core::engine::check_host;
use spindle_core::facts::Snapshot;
use spindle_core::load::parse_snapshot;
use spindle_core::view::{EntityRef, HostView};
use spindle_report::{JsonWriter, ReportWriter};

use fleet_gen::{FILES_PER_HOST, MIB, VOLUMES, generate, snapshot};

const DEFAULT_SNAPSHOTS: usize = 10_000;
/// The smaller fleet, checked too so that peak memory can be compared across sizes.
const SMALL_FLEET: usize = 1_000;
/// First argument of the bench executable when it runs as the measuring wrapper.
/// Waiver expiry is relative to today; pin it so that runs are comparable.
const TODAY: &str = "2025-06-01";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == child::WRAPPER_FLAG) {
        return child::wrapper_main(&args[2..]);
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file as a test
    // without it: then only check that the generator's snapshots load, in a moment.
    if !args.iter().any(|a| a == "--bench") {
        return match smoke() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fleet bench smoke test: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match bench() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fleet bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Without `--bench`: a few generated snapshots must load as spindle loads them, round-trip, and
/// have the advertised shape.
fn smoke() -> Result<(), String> {
    for i in 0..20 {
        let s = snapshot(i);
        let text = serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?;
        let doc = parse_snapshot("smoke.json", text).map_err(|e| e.to_string())?;
        if doc.snapshot != s {
            return Err(format!("snapshot {i} does not round-trip"));
        }
        let files: usize = s
            .sql_instances
            .iter()
            .flatten()
            .flat_map(|i| i.databases.iter().flatten())
            .map(|d| d.files.as_ref().map_or(0, Vec::len))
            .sum();
        let volumes = s.volumes.as_ref().map_or(0, Vec::len);
        if files != FILES_PER_HOST || volumes != VOLUMES.len() {
            return Err(format!("snapshot {i}: {files} files and {volumes} volumes"));
        }
    }
    println!("fleet bench: generator ok (run the benchmark with `cargo bench --bench fleet`)");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Measuring the spindle binary: under the shared wrapper (common/child.rs), which reaps it with
// `wait4` so its peak RSS is its own.

/// Flushes dirty pages to disk before a measured run. Otherwise the kernel writes back the
/// fleet just generated, or the previous run's half-gigabyte report, during the next run, on
/// the same two cores: measured here, the first check runs after generating took 35 % more
/// CPU time than the later ones.
fn settle() {
    rustix::fs::sync();
}

/// Runs `spindle check DIR --format FORMAT --output OUT --fail-on never` under the wrapper.
/// `jobs`: `--jobs` (`None`: spindle's default, one thread per core).
fn run_check(
    spindle: &Path,
    dir: &Path,
    format: &str,
    out: &Path,
    jobs: Option<&str>,
) -> Result<ChildRun, String> {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("check"),
        dir.as_os_str(),
        OsStr::new("--format"),
        OsStr::new(format),
        OsStr::new("--fail-on"),
        OsStr::new("never"),
        OsStr::new("--output"),
        out.as_os_str(),
    ];
    if let Some(jobs) = jobs {
        args.extend([OsStr::new("--jobs"), OsStr::new(jobs)]);
    }
    // Replacing the previous run's report would make this run free its half-gigabyte of page
    // cache when it renames the new one into place: not checking work, and the floor has none.
    let _ = fs::remove_file(out);
    settle();
    let run = child::measure(spindle, &args, &[("SPINDLE_TODAY", TODAY)])?;
    if run.status != 0 {
        return Err(format!("spindle check exited with {}: {}", run.status, run.stderr));
    }
    Ok(run)
}

// ---------------------------------------------------------------------------------------------
// The floor, and the in-process phase breakdown.

fn snapshot_paths(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    paths.sort();
    Ok(paths)
}

/// Read every file and parse it into a `Snapshot`, one at a time: the least any checker must do.
fn floor(paths: &[PathBuf]) -> Result<Duration, String> {
    let start = Instant::now();
    for p in paths {
        let text = fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let s: Snapshot = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        std::hint::black_box(&s);
    }
    Ok(start.elapsed())
}

#[derive(Default)]
struct Phases {
    discover: Duration,
    group: Duration,
    load: Duration,
    view: Duration,
    rules: Duration,
    /// Per active rule, in catalogue order: code and time. Measured in a separate pass (each
    /// rule alone through `check_host`), not part of `rules`.
    per_rule: Vec<(String, Duration)>,
    render: Duration,
    append: Duration,
    /// Measured in a separate pass, not part of `render`: the two halves of locating every
    /// finding's fact, as `report::locate_entity` does them.
    locate: Duration,
    line_col: Duration,
    located: usize,
    findings: usize,
    not_evaluated: usize,
    report_bytes: u64,
}

fn timed<T>(acc: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let v = f();
    *acc += t.elapsed();
    v
}

/// `spindle check DIR --format json --jobs 1` through the library's own steps (the ones
/// `spindle::commands::check::run` calls for snapshot files), each timed: where the time above the floor
/// goes. Nothing here re-implements the pipeline; the only extra work is the two separate
/// passes (per-rule times, locating facts), which are kept out of the totals.
fn phases(dir: &Path, out: &Path) -> Result<Phases, String> {
    let e = |e: spindle::UserError| e.message;
    let mut ph = Phases::default();
    let engine = Engine::load(&[]).map_err(e)?;
    let today = Date::parse(TODAY).ok_or("bad TODAY")?;
    ph.per_rule = engine.active().iter().map(|a| (a.code.clone(), Duration::ZERO)).collect();

    let files = timed(&mut ph.discover, || input::discover(&[dir.to_path_buf()]).map_err(e))?;
    let groups = timed(&mut ph.group, || input::group_by_host(&files, 1).map_err(e))?;
    let file = fs::File::create(out).map_err(|e| e.to_string())?;
    let mut w = BufWriter::with_capacity(256 << 10, file);
    let mut writer = JsonWriter::new(&mut w, "bench");
    writer.begin(&engine.infos()).map_err(|e| e.to_string())?;
    let render = writer.renderer();
    for g in 0..groups.count() {
        let docs = timed(&mut ph.load, || input::load_group(&files, &groups, g).map_err(e))?;
        let view = timed(&mut ph.view, || engine.view(docs));
        let report = timed(&mut ph.rules, || engine.check(&view, today));
        let rendered = timed(&mut ph.render, || render.render(&view, &report)).map_err(|e| e.to_string())?;
        timed(&mut ph.append, || writer.append(&rendered)).map_err(|e| e.to_string())?;
        ph.findings += report.findings.len();
        ph.not_evaluated += report.not_evaluated.len();

        for (i, rule) in engine.active().iter().enumerate() {
            let t = Instant::now();
            std::hint::black_box(check_host(std::slice::from_ref(rule), &view, engine.waivers(), today));
            ph.per_rule[i].1 += t.elapsed();
        }
        for f in &report.findings {
            locate_cost(&view, &f.entity, f.field.as_deref(), &mut ph);
        }
        for n in &report.not_evaluated {
            match &n.entity {
                Some(e) => locate_cost(&view, e, Some(&n.missing), &mut ph),
                None => locate_cost(&view, &view.host.entity(), None, &mut ph),
            }
        }
    }
    drop(writer);
    w.flush().map_err(|e| e.to_string())?;
    drop(w);
    ph.report_bytes = fs::metadata(out).map_or(0, |m| m.len());
    Ok(ph)
}

/// `report::locate_entity` replayed with its two costs timed apart: finding the JSON pointer in
/// the text (`SourceDoc::locate`, from the nearest prefix already found), then turning the
/// span's two ends into lines and columns (`SourceDoc::line_col`, a binary search).
fn locate_cost(view: &HostView, entity: &EntityRef, field: Option<&str>, ph: &mut Phases) {
    let field = field.filter(|f| !f.is_empty());
    let find = |pointer: &str, doc: usize, ph: &mut Phases| {
        let source = view.docs.get(doc)?;
        timed(&mut ph.locate, || source.locate(pointer)).map(|s| (doc, s.full()))
    };
    let mut found = None;
    if let Some(field) = field {
        for o in &entity.origins {
            let pointer = format!("{}/{}", o.pointer, field.trim_start_matches('/'));
            if let Some(f) = find(&pointer, o.doc, ph) {
                found = Some(f);
                break;
            }
        }
    }
    if found.is_none() {
        for o in &entity.origins {
            if let Some(f) = find(&o.pointer, o.doc, ph) {
                found = Some(f);
                break;
            }
        }
    }
    if let Some((doc, span)) = found {
        let source = &view.docs[doc];
        timed(&mut ph.line_col, || {
            std::hint::black_box((source.line_col(span.start), source.line_col(span.end)))
        });
        ph.located += 1;
    }
}

// ---------------------------------------------------------------------------------------------
// The benchmark.

struct SizeResult {
    snapshots: usize,
    bytes: u64,
    floor: Duration,
    check: ChildRun,
    check_runs: Vec<Duration>,
    /// The lowest peak RSS of the timed runs (`check.maxrss_kib` holds the highest).
    least_peak_kib: u64,
    sarif: ChildRun,
    /// The best `--jobs 1` run.
    one: ChildRun,
    report_bytes: u64,
}

fn env_usize(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().replace(['_', ','], "").parse().map_err(|_| format!("{name}={v}: not a number")),
        Err(_) => Ok(default),
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn bench() -> Result<(), String> {
    let n = env_usize("FLEET_SNAPSHOTS", DEFAULT_SNAPSHOTS)?.max(1);
    let runs = env_usize("FLEET_RUNS", 3)?.max(1);
    let small = if n > SMALL_FLEET { SMALL_FLEET } else { (n / 10).max(1) };
    let mut sizes = vec![small, n];
    sizes.dedup();
    let spindle = find_spindle(option_env!("CARGO_BIN_EXE_spindle"))?;
    let (cpus, model) = machine();
    println!("fleet bench: {n} snapshots (and {small}), best of {runs}; {cpus} cores, {model}");
    println!("checker: {}", spindle.display());

    let tmp = tempfile::Builder::new().prefix("spindle-fleet-").tempdir().map_err(|e| e.to_string())?;
    let root = tmp.path().to_path_buf();
    let big = root.join(format!("fleet-{n}"));
    let t = Instant::now();
    generate(&big, n)?;
    let big_paths = snapshot_paths(&big)?;
    let big_bytes: u64 = big_paths.iter().map(|p| fs::metadata(p).map_or(0, |m| m.len())).sum();
    println!(
        "generated {n} snapshots, {:.1} MB ({:.1} KB each) in {:.1} s: {}",
        big_bytes as f64 / 1e6,
        big_bytes as f64 / 1e3 / n as f64,
        secs(t.elapsed()),
        big.display()
    );

    let mut results = vec![];
    for &size in &sizes {
        // The small fleet is the first hosts of the large one (hard links: same bytes, no copy).
        let (dir, paths) = if size == n {
            (big.clone(), big_paths.clone())
        } else {
            let dir = root.join(format!("fleet-{size}"));
            fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            for p in &big_paths[..size] {
                let to = dir.join(p.file_name().unwrap());
                fs::hard_link(p, &to).or_else(|_| fs::copy(p, &to).map(|_| ())).map_err(|e| e.to_string())?;
            }
            (dir.clone(), snapshot_paths(&dir)?)
        };
        let bytes: u64 = paths.iter().map(|p| fs::metadata(p).map_or(0, |m| m.len())).sum();
        println!("\n== {size} snapshots ({:.1} MB)", bytes as f64 / 1e6);
        // Warm the page cache for both contenders alike, with nothing left to write back.
        settle();
        floor(&paths)?;
        let mut best_floor = Duration::MAX;
        for i in 0..runs {
            let d = floor(&paths)?;
            println!(
                "  floor  run {}: {:.3} s  ({:.0} snapshots/s, {:.0} MB/s)",
                i + 1,
                secs(d),
                size as f64 / secs(d),
                bytes as f64 / 1e6 / secs(d)
            );
            best_floor = best_floor.min(d);
        }
        let out = root.join(format!("report-{size}.json"));
        let mut best: Option<ChildRun> = None;
        let mut check_runs = vec![];
        let mut least_peak_kib = u64::MAX;
        for i in 0..runs {
            let c = run_check(&spindle, &dir, "json", &out, None)?;
            println!(
                "  check  run {}: {:.3} s  ({:.0} snapshots/s), cpu {:.3} s, peak RSS {:.1} MiB (polled VmHWM {:.1}, wrapper {:.1}), exit {}",
                i + 1,
                secs(c.wall),
                size as f64 / secs(c.wall),
                secs(c.cpu),
                mib(c.maxrss_kib),
                mib(c.polled_hwm_kib),
                mib(c.wrapper_kib),
                c.status
            );
            if c.maxrss_kib <= c.wrapper_kib {
                println!(
                    "  (peak RSS not above the wrapper's own: it may be the wrapper's; trust the polled VmHWM)"
                );
            }
            check_runs.push(c.wall);
            least_peak_kib = least_peak_kib.min(c.maxrss_kib);
            // Fastest run's time; the largest peak of any run (memory is not best-of).
            let peak = best.as_ref().map_or(0, |b| b.maxrss_kib).max(c.maxrss_kib);
            let polled = best.as_ref().map_or(0, |b| b.polled_hwm_kib).max(c.polled_hwm_kib);
            let mut keep = match best.take() {
                Some(b) if b.wall <= c.wall => b,
                _ => c,
            };
            keep.maxrss_kib = peak;
            keep.polled_hwm_kib = polled;
            best = Some(keep);
        }
        let check = best.unwrap();
        let report_bytes = fs::metadata(&out).map_or(0, |m| m.len());
        let sarif_out = root.join(format!("report-{size}.sarif"));
        let sarif = run_check(&spindle, &dir, "sarif", &sarif_out, None)?;
        // The same check on one thread: what the work costs, apart from spreading it over cores.
        let one = (0..runs).map(|_| run_check(&spindle, &dir, "json", &out, Some("1"))).try_fold(
            None::<ChildRun>,
            |best, run| -> Result<_, String> {
                let run = run?;
                Ok(Some(match best {
                    Some(b) if b.wall <= run.wall => b,
                    _ => run,
                }))
            },
        )?;
        let one = one.expect("at least one run");
        println!(
            "  --jobs 1    : {:.3} s  ({:.0} snapshots/s), cpu {:.3} s, peak RSS {:.1} MiB",
            secs(one.wall),
            size as f64 / secs(one.wall),
            secs(one.cpu),
            mib(one.maxrss_kib)
        );
        println!(
            "  sarif  once : {:.3} s  ({:.0} snapshots/s), peak RSS {:.1} MiB, {:.1} MB written",
            secs(sarif.wall),
            size as f64 / secs(sarif.wall),
            mib(sarif.maxrss_kib),
            fs::metadata(&sarif_out).map_or(0, |m| m.len()) as f64 / 1e6
        );
        results.push(SizeResult {
            snapshots: size,
            bytes,
            floor: best_floor,
            check,
            check_runs,
            least_peak_kib,
            sarif,
            one,
            report_bytes,
        });
    }

    // Where the time goes: the same pipeline in-process, phase by phase, on the large fleet.
    let ph = phases(&big, &root.join("phases-report.json"))?;

    println!("\n== Results ({cpus} cores, {model}; page cache warm; best of {runs})\n");
    println!(
        "| snapshots | MB    | floor s | floor snap/s | floor MB/s | check s | check snap/s | check/floor | peak RSS MiB | sarif s | sarif RSS MiB |"
    );
    println!(
        "|----------:|------:|--------:|-------------:|-----------:|--------:|-------------:|------------:|-------------:|--------:|--------------:|"
    );
    for r in &results {
        println!(
            "| {:>9} | {:>5.0} | {:>7.3} | {:>12.0} | {:>10.0} | {:>7.3} | {:>12.0} | {:>10.2}× | {:>12.1} | {:>7.3} | {:>13.1} |",
            r.snapshots,
            r.bytes as f64 / 1e6,
            secs(r.floor),
            r.snapshots as f64 / secs(r.floor),
            r.bytes as f64 / 1e6 / secs(r.floor),
            secs(r.check.wall),
            r.snapshots as f64 / secs(r.check.wall),
            secs(r.check.wall) / secs(r.floor),
            mib(r.check.maxrss_kib),
            secs(r.sarif.wall),
            mib(r.sarif.maxrss_kib),
        );
    }
    println!(
        "\n| snapshots | check cpu s | cpu/floor | --jobs 1 s | --jobs 1/floor |\n|----------:|------------:|----------:|-----------:|---------------:|"
    );
    for r in &results {
        println!(
            "| {:>9} | {:>11.3} | {:>8.2}× | {:>10.3} | {:>13.2}× |",
            r.snapshots,
            secs(r.check.cpu),
            secs(r.check.cpu) / secs(r.floor),
            secs(r.one.wall),
            secs(r.one.wall) / secs(r.floor),
        );
    }
    for r in &results {
        let all: Vec<String> = r.check_runs.iter().map(|d| format!("{:.3}", secs(*d))).collect();
        println!(
            "  {} snapshots: check runs {} s; JSON report {:.1} MB; peak RSS cross-check: polled VmHWM {:.1} MiB, wrapper's own peak {:.1} MiB",
            r.snapshots,
            all.join(" / "),
            r.report_bytes as f64 / 1e6,
            mib(r.check.polled_hwm_kib),
            mib(r.check.wrapper_kib)
        );
    }

    let large = results.last().unwrap();
    let ratio = secs(large.check.wall) / secs(large.floor);
    println!(
        "\nSpeed target (check ≤ 2× floor) at {} snapshots: {:.2}× — {} (wall clock, {} threads against the one-thread floor; on one thread {:.2}×, CPU time {:.2}×)",
        large.snapshots,
        ratio,
        if ratio <= 2.0 { "MET" } else { "NOT MET" },
        cpus,
        secs(large.one.wall) / secs(large.floor),
        secs(large.check.cpu) / secs(large.floor),
    );
    if results.len() > 1 {
        let small = &results[0];
        // Judged on the one-thread runs: their peak does not depend on how the scheduler
        // interleaves threads. On several threads each thread's allocator arena adds a few MiB
        // that vary from run to run (28.4 to 36.5 MiB at the same size), which would hide or
        // fake a slope; their range is printed beside the verdict.
        let (s_kib, l_kib) = (small.one.maxrss_kib, large.one.maxrss_kib);
        let grow = l_kib as f64 / s_kib as f64;
        let per = (l_kib as f64 - s_kib as f64) * 1024.0 / (large.snapshots - small.snapshots) as f64;
        let mean_snapshot = large.bytes as f64 / large.snapshots as f64;
        // Flat: within 5 % (allocator noise). Streamed: what stays per snapshot is a sliver of
        // the snapshot (its file name), not the snapshot. Else the fleet is held.
        let verdict = if large.snapshots < 2 * SMALL_FLEET {
            format!(
                "not judged: too few snapshots to tell a slope from noise (use at least {})",
                2 * SMALL_FLEET
            )
        } else if grow <= 1.05 {
            "FLAT".to_string()
        } else if per < mean_snapshot * 0.02 {
            format!(
                "STREAMED but NOT FLAT: no snapshot is held, yet {per:.0} bytes per snapshot ({:.2}% of one) \
                 stay for the run; at 1,000,000 snapshots that is about {:.0} MiB",
                per / mean_snapshot * 100.0,
                (l_kib as f64 * 1024.0 + per * (1e6 - large.snapshots as f64)) / MIB as f64
            )
        } else {
            "NOT FLAT: memory grows like the fleet".to_string()
        };
        println!(
            "Memory target (flat in the number of snapshots), one thread: {:.1} MiB at {} → {:.1} MiB at {} ({:+.1}%, {:.0} bytes \
             per extra snapshot) — {verdict}. On {cpus} threads, peak RSS over the runs: {:.1}–{:.1} MiB at {}, {:.1}–{:.1} MiB at {}.",
            mib(s_kib),
            small.snapshots,
            mib(l_kib),
            large.snapshots,
            (grow - 1.0) * 100.0,
            per,
            mib(small.least_peak_kib),
            mib(small.check.maxrss_kib),
            small.snapshots,
            mib(large.least_peak_kib),
            mib(large.check.maxrss_kib),
            large.snapshots,
        );
    }

    let total = ph.discover + ph.group + ph.load + ph.view + ph.rules + ph.render + ph.append;
    println!(
        "\n== Where the time goes: the check pipeline in-process, {} snapshots ({} findings, {} not evaluated, {:.1} MB JSON report)\n",
        large.snapshots,
        ph.findings,
        ph.not_evaluated,
        ph.report_bytes as f64 / 1e6
    );
    println!("| phase                                   | s       | µs/snapshot | × floor | share |");
    println!("|-----------------------------------------|--------:|------------:|--------:|------:|");
    let row = |name: &str, d: Duration| {
        println!(
            "| {name:<39} | {:>7.3} | {:>11.1} | {:>7.2} | {:>4.0}% |",
            secs(d),
            secs(d) * 1e6 / large.snapshots as f64,
            secs(d) / secs(large.floor),
            secs(d) / secs(total) * 100.0
        );
    };
    row("input::discover (directory walk)", ph.discover);
    row("input::group_by_host (file heads)", ph.group);
    row("input::load_group (read + parse)", ph.load);
    row("Engine::view (HostView::build)", ph.view);
    row("Engine::check (rules, waivers)", ph.rules);
    row("Render::render (JSON: locate, write)", ph.render);
    row("ReportWriter::append", ph.append);
    row("total in-process, one thread", total);
    println!("\nInside the JSON writer ({} facts located; measured in a separate pass):\n", ph.located);
    println!("| part                                    | s       | µs/snapshot | × floor | µs/fact |");
    println!("|-----------------------------------------|--------:|------------:|--------:|--------:|");
    let part = |name: &str, d: Duration| {
        println!(
            "| {name:<39} | {:>7.3} | {:>11.1} | {:>7.2} | {:>7.2} |",
            secs(d),
            secs(d) * 1e6 / large.snapshots as f64,
            secs(d) / secs(large.floor),
            secs(d) * 1e6 / ph.located.max(1) as f64
        );
    };
    part("SourceDoc::locate", ph.locate);
    part("SourceDoc::line_col ×2", ph.line_col);
    part("rest (serialize, fingerprint, write)", ph.render.saturating_sub(ph.locate + ph.line_col));
    let mut by_cost = ph.per_rule.clone();
    by_cost.sort_by_key(|r| std::cmp::Reverse(r.1));
    println!("\nInside Engine::check, the costliest rules (each alone, in a separate pass):\n");
    println!("| rule   | s       | µs/snapshot | × floor |");
    println!("|--------|--------:|------------:|--------:|");
    for (code, d) in by_cost.iter().take(10) {
        println!(
            "| {code:<6} | {:>7.3} | {:>11.1} | {:>7.2} |",
            secs(*d),
            secs(*d) * 1e6 / large.snapshots as f64,
            secs(*d) / secs(large.floor)
        );
    }
    println!(
        "\n(In-process on one thread the pipeline totals {:.3} s = {:.2}× the floor; the binary's best on one \
         thread took {:.3} s = {:.2}×, which adds start-up, the threads' hand-over and the page cache's state.)",
        secs(total),
        secs(total) / secs(large.floor),
        secs(large.one.wall),
        secs(large.one.wall) / secs(large.floor)
    );

    if std::env::var_os("FLEET_KEEP").is_some_and(|v| !v.is_empty() && v != "0") {
        let kept = tmp.keep();
        println!("\nkept: {}", kept.display());
    }
    Ok(())
}
