//! Live-collection benchmark: `spindle check` collecting over TDS from a fleet of Microsoft's
//! TDS mock servers (`mssql-mock-tds`) on loopback, started in this process. Compares the time
//! for a fleet collected `--concurrency` at a time with one server's time, and the checker's
//! peak memory at two fleet sizes. Twice: with a mock that answers at once, and with every login
//! and batch held back by a delay, as a real server's take milliseconds. See `benches/README.md`.
//!
//! ```text
//! cargo bench --bench live                              # 200 servers and 50, concurrency 16
//! LIVE_SERVERS=400 LIVE_DELAY_MS=50 cargo bench --bench live
//! ```
//!
//! Environment: `LIVE_SERVERS` (default 200), `LIVE_SMALL` (default 50), `LIVE_CONCURRENCY`
//! (default 16), `LIVE_DELAY_MS` (default 20), `LIVE_RUNS` (timed runs per measurement, the best
//! is kept; default 3).

use spindle_test_support::child;
use spindle_test_support::machine;
use spindle_test_support::mock_sql;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use child::{ChildRun, WRAPPER_FLAG, measure, self_cpu, wrapper_main};
use machine::{find_spindle, machine};
use mock_sql::{Peers, healthy};
use mssql_mock_tds::{LOGIN_DELAY_KEY, QueryResponse};

const PASSWORD: &str = "bench-Pa55word";
/// Waiver expiry is relative to today; pin it so that runs are comparable.
const TODAY: &str = "2025-06-01";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == WRAPPER_FLAG) {
        return wrapper_main(&args[2..]);
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file as a test
    // without it: then a tiny fleet, once, with the debug binary.
    let smoke = !args.iter().any(|a| a == "--bench");
    let plan = if smoke {
        Ok(Plan { servers: 3, small: 2, concurrency: 2, delay: Duration::from_millis(5), runs: 1 })
    } else {
        Plan::from_env()
    };
    match plan.and_then(|p| bench(&p, smoke)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("live bench{}: {e}", if smoke { " smoke test" } else { "" });
            ExitCode::FAILURE
        }
    }
}

struct Plan {
    servers: usize,
    small: usize,
    concurrency: usize,
    /// How long each mock server holds back its answer to the login and to every batch, in the
    /// delayed rounds.
    delay: Duration,
    runs: usize,
}

impl Plan {
    fn from_env() -> Result<Plan, String> {
        let servers = env_usize("LIVE_SERVERS", 200)?.max(2);
        Ok(Plan {
            servers,
            small: env_usize("LIVE_SMALL", 50)?.clamp(1, servers - 1),
            concurrency: env_usize("LIVE_CONCURRENCY", 16)?.max(1),
            delay: Duration::from_millis(env_usize("LIVE_DELAY_MS", 20)? as u64),
            runs: env_usize("LIVE_RUNS", 3)?.max(1),
        })
    }
}

fn env_usize(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().replace(['_', ','], "").parse().map_err(|_| format!("{name}={v}: not a number")),
        Err(_) => Ok(default),
    }
}

/// `n` mock SQL Servers, each a healthy SQL Server 2022 with its own host name (`SQL000`, …) and
/// port, answering every batch of the collector (and the login) after `delay`.
fn start_fleet(peers: &Peers, n: usize, delay: Duration) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut batches = healthy(&format!("SQL{i:03}"));
            if !delay.is_zero() {
                batches = batches.into_iter().map(|(q, r)| (q, r.with_delay(delay))).collect();
                batches.push((LOGIN_DELAY_KEY, QueryResponse::select_one().with_delay(delay)));
            }
            peers.sql(batches)
        })
        .collect()
}

fn write_inventory(path: &Path, targets: &[String]) -> Result<(), String> {
    let text: String = targets.iter().map(|t| format!("[[server]]\nname = \"{t}\"\n\n")).collect();
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// What one measurement runs: one server by `--server`, or an inventory.
enum Source {
    One(String),
    Inventory(PathBuf, usize),
}

impl Source {
    fn servers(&self) -> usize {
        match self {
            Source::One(_) => 1,
            Source::Inventory(_, n) => *n,
        }
    }
}

/// A run of the checker, and the CPU this process (the mock servers) spent meanwhile.
struct Run {
    child: ChildRun,
    mock_cpu: Duration,
}

/// `spindle check --server X | --inventory FILE --concurrency C --format json -o OUT` under the
/// measuring wrapper. Checks the report: every server collected, none in error.
fn run_check(spindle: &Path, source: &Source, concurrency: usize, out: &Path) -> Result<Run, String> {
    let mut args: Vec<OsString> = vec!["check".into()];
    match source {
        Source::One(target) => args.extend(["--server".into(), target.into()]),
        Source::Inventory(path, _) => args.extend(["--inventory".into(), path.into()]),
    }
    args.extend(["--concurrency".into(), concurrency.to_string().into()]);
    for a in ["--user", "spindle", "--encrypt", "off", "--format", "json", "--fail-on", "never", "-o"] {
        args.push(a.into());
    }
    args.push(out.into());
    let _ = fs::remove_file(out);
    let cpu_before = self_cpu();
    let child = measure(spindle, &args, &[("SPINDLE_SQL_PASSWORD", PASSWORD), ("SPINDLE_TODAY", TODAY)])?;
    let mock_cpu = self_cpu().saturating_sub(cpu_before);
    if child.status != 0 {
        return Err(format!("spindle check exited with {}:\n{}", child.status, child.stderr));
    }
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?)
            .map_err(|e| format!("{}: {e}", out.display()))?;
    let (hosts, errors) = (&report["summary"]["hosts"], &report["summary"]["collection_errors"]);
    if hosts.as_u64() != Some(source.servers() as u64) || errors.as_u64() != Some(0) {
        return Err(format!(
            "expected {} hosts and no collection error, the report has {hosts} and {errors}:\n{}",
            source.servers(),
            child.stderr
        ));
    }
    Ok(Run { child, mock_cpu })
}

/// The fastest of the runs (with the mock's CPU of that run), and the largest peak RSS of any:
/// memory is not best-of.
#[derive(Default)]
struct Best {
    runs: Vec<Run>,
}

impl Best {
    fn fastest(&self) -> &Run {
        self.runs.iter().min_by_key(|r| r.child.wall).expect("at least one run")
    }
    fn peak_kib(&self) -> u64 {
        self.runs.iter().map(|r| r.child.maxrss_kib).max().unwrap_or(0)
    }
    fn polled_kib(&self) -> u64 {
        self.runs.iter().map(|r| r.child.polled_hwm_kib).max().unwrap_or(0)
    }
    fn walls(&self) -> String {
        let all: Vec<String> = self.runs.iter().map(|r| format!("{:.3}", secs(r.child.wall))).collect();
        all.join(" / ")
    }
}

/// One round of measurements: a fleet of mock servers answering after `delay`.
struct Mode {
    delay: Duration,
    one: Best,
    small: Best,
    large: Best,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn bench(plan: &Plan, smoke: bool) -> Result<(), String> {
    let spindle = find_spindle(option_env!("CARGO_BIN_EXE_spindle"))?;
    let (cpus, model) = machine();
    let (n, small, c) = (plan.servers, plan.small, plan.concurrency);
    println!(
        "live bench: {n} servers (and {small}, and 1), concurrency {c}, mock answers at once and after {} ms; \
         best of {}; {cpus} cores, {model}",
        plan.delay.as_millis(),
        plan.runs
    );
    println!("checker: {}", spindle.display());
    let tmp = tempfile::Builder::new().prefix("spindle-live-").tempdir().map_err(|e| e.to_string())?;
    let out = tmp.path().join("report.json");

    // The mock servers: a runtime of 2 worker threads in this process, like the tests'.
    let peers = Peers::new();
    let mut modes = vec![];
    for delay in [Duration::ZERO, plan.delay] {
        let targets = start_fleet(&peers, n, delay);
        let tag =
            if delay.is_zero() { "instant".to_string() } else { format!("delay-{}ms", delay.as_millis()) };
        let large_inv = tmp.path().join(format!("{tag}-{n}.toml"));
        let small_inv = tmp.path().join(format!("{tag}-{small}.toml"));
        write_inventory(&large_inv, &targets)?;
        write_inventory(&small_inv, &targets[..small])?;
        let sources = [
            Source::One(targets[0].clone()),
            Source::Inventory(small_inv, small),
            Source::Inventory(large_inv, n),
        ];
        println!(
            "\n== mock answers {}",
            if delay.is_zero() { "at once".into() } else { format!("after {} ms", delay.as_millis()) }
        );
        // Warm the page cache and the mock's first connections alike for every size.
        for s in &sources {
            run_check(&spindle, s, c, &out)?;
        }
        let mut bests: [Best; 3] = Default::default();
        // Rounds interleave the sizes, so that drift (other work on the machine) hits them alike.
        for round in 1..=plan.runs {
            for (s, best) in sources.iter().zip(bests.iter_mut()) {
                let r = run_check(&spindle, s, c, &out)?;
                println!(
                    "  run {round}: {:>4} server(s): {:.3} s, spindle cpu {:.3} s, mock cpu {:.3} s, peak RSS {:.1} MiB \
                     (polled VmHWM {:.1}, wrapper {:.1})",
                    s.servers(),
                    secs(r.child.wall),
                    secs(r.child.cpu),
                    secs(r.mock_cpu),
                    mib(r.child.maxrss_kib),
                    mib(r.child.polled_hwm_kib),
                    mib(r.child.wrapper_kib),
                );
                best.runs.push(r);
            }
        }
        let [one, small_best, large_best] = bests;
        modes.push(Mode { delay, one, small: small_best, large: large_best });
    }

    println!(
        "\n== Results ({cpus} cores, {model}; mock servers in the bench process on 2 worker threads; \
         concurrency {c}; best of {})\n",
        plan.runs
    );
    println!(
        "| mock answers | servers | wall s | servers/s | ideal s | wall/ideal | spindle cpu s | mock cpu s | peak RSS MiB |"
    );
    println!(
        "|--------------|--------:|-------:|----------:|--------:|-----------:|--------------:|-----------:|-------------:|"
    );
    for m in &modes {
        let label = answers(m.delay);
        let one = secs(m.one.fastest().child.wall);
        for (servers, b) in [(1, &m.one), (small, &m.small), (n, &m.large)] {
            let r = b.fastest();
            let wall = secs(r.child.wall);
            // (servers / concurrency) × one server: each slot collects its share one by one.
            let ideal = servers as f64 / c.min(servers) as f64 * one;
            println!(
                "| {label:<12} | {servers:>7} | {wall:>6.3} | {:>9.1} | {ideal:>7.3} | {:>9.2}× | {:>13.3} | {:>10.3} | {:>12.1} |",
                servers as f64 / wall,
                wall / ideal,
                secs(r.child.cpu),
                secs(r.mock_cpu),
                mib(b.peak_kib()),
            );
        }
    }
    println!();
    for m in &modes {
        for (servers, b) in [(1, &m.one), (small, &m.small), (n, &m.large)] {
            println!(
                "  {} ms, {servers} server(s): runs {} s; peak RSS cross-check: polled VmHWM {:.1} MiB, wrapper's own {:.1} MiB",
                m.delay.as_millis(),
                b.walls(),
                mib(b.polled_kib()),
                mib(b.fastest().child.wrapper_kib),
            );
        }
    }

    println!();
    for m in &modes {
        let label = answers(m.delay);
        let one = secs(m.one.fastest().child.wall);
        let wall = secs(m.large.fastest().child.wall);
        let ideal = n as f64 / c as f64 * one;
        let ratio = wall / ideal;
        println!(
            "Speed target (≤ 1.5 × ({n}/{c}) × one server), mock answering {label}: {wall:.3} s against {ideal:.3} s \
             = {ratio:.2}× — {}",
            if ratio <= 1.5 { "MET" } else { "NOT MET" }
        );
        let (lo, hi) = (m.small.peak_kib(), m.large.peak_kib());
        let grow = hi as f64 / lo as f64 - 1.0;
        let per = (hi as f64 - lo as f64) * 1024.0 / (n - small) as f64;
        println!(
            "Memory target (flat in fleet size), mock answering {label}: {:.1} MiB at {small} → {:.1} MiB at {n} \
             ({:+.1}%, {per:.0} bytes per extra server) — {}",
            mib(lo),
            mib(hi),
            grow * 100.0,
            if smoke {
                "not judged (smoke test)"
            } else if grow <= 0.05 {
                "FLAT"
            } else {
                "NOT FLAT"
            }
        );
    }
    if smoke {
        println!("\nlive bench: smoke test ok (run the benchmark with `cargo bench --bench live`)");
    }
    Ok(())
}

/// How the mock answers, as the tables name it.
fn answers(delay: Duration) -> String {
    if delay.is_zero() { "at once".to_string() } else { format!("after {} ms", delay.as_millis()) }
}
