//! Plugins benchmark: what a wasm rule plugin costs next to the builtin rules, with the release
//! `spindle` binary and a warm compiled-code cache. Three figures, against the targets of the
//! plugin issue:
//!
//! 1. Per snapshot, on a generated fleet (the `fleet` bench's generator): builtin ALN001 and
//!    FMT001 against the same two rules compiled into the `parity` plugin (target: the plugin
//!    at most 3× its builtin twin), and the cost of the example company plugin `acme`.
//! 2. Where a plugin's time per snapshot goes, in-process (the plugin host of `src/plugin/`
//!    included as is), step by step.
//! 3. Start-up: `spindle check ONE.json` with `recommended` against the example pack
//!    `examples/packs/acme-plugins.toml` (recommended + the acme plugin), warm cache (target:
//!    at most 20 ms slower), the same with the plugin loaded but its rules ignored, and the
//!    first run with an empty cache.
//!
//! ```text
//! cargo bench --bench plugins
//! PLUGINS_SNAPSHOTS=2000 PLUGINS_RUNS=7 cargo bench --bench plugins
//! ```
//!
//! Environment: `PLUGINS_SNAPSHOTS` (default 1000), `PLUGINS_RUNS` (timed fleet runs per
//! variant, the best is kept; default 5), `PLUGINS_STARTS` (start-up runs of each; default 30),
//! `PLUGINS_COLD` (first runs with an empty cache; default 5), `PLUGINS_KEEP=1` (keep the fleet,
//! the packs and the cache, and print where). See `benches/README.md`.

use spindle_test_support::fleet_gen;
use spindle_test_support::machine;

use machine::{find_spindle, machine};
use spindle_plugin_host as plugin;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use spindle_core::date::Date;
use spindle_core::engine::check_host;
use spindle_core::load::parse_snapshot;
use spindle_core::pack::{Config, PackLoader, SourceText, resolve};
use spindle_core::rule::Rule;
use spindle_core::view::HostView;

use fleet_gen::generate;
use plugin::{Limits, Plugin, PluginHost};

/// Waiver expiry is relative to today; pin it so that runs are comparable.
const TODAY: &str = "2025-06-01";
/// The builtin rules the parity plugin exports unchanged.
const TWIN_RULES: [&str; 2] = ["ALN001", "FMT001"];
/// The smallest facts a plugin accepts: what a call costs before any facts are read.
const TINY_FACTS: &str = r#"{"schema_version": 1, "host": {"name": "h"}}"#;
/// Targets of the plugin issue.
const RATIO_TARGET: f64 = 3.0;
const STARTUP_TARGET_MS: f64 = 20.0;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file without it: then
    // every step runs once on a few snapshots (with the debug binary), to keep the bench working.
    let smoke = !args.iter().any(|a| a == "--bench");
    let settings = if smoke { Ok(Settings::smoke()) } else { Settings::from_env() };
    match settings.and_then(|s| bench(&s)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plugins bench{}: {e}", if smoke { " smoke test" } else { "" });
            ExitCode::FAILURE
        }
    }
}

struct Settings {
    smoke: bool,
    snapshots: usize,
    runs: usize,
    starts: usize,
    cold: usize,
    /// In-process: calls of each step per snapshot, the fastest kept.
    reps: usize,
    keep: bool,
}

impl Settings {
    fn smoke() -> Settings {
        // No cold run: a debug build takes seconds to compile a plugin.
        Settings { smoke: true, snapshots: 10, runs: 1, starts: 1, cold: 0, reps: 1, keep: false }
    }

    fn from_env() -> Result<Settings, String> {
        Ok(Settings {
            smoke: false,
            snapshots: env_usize("PLUGINS_SNAPSHOTS", 1000)?.max(1),
            runs: env_usize("PLUGINS_RUNS", 5)?.max(1),
            starts: env_usize("PLUGINS_STARTS", 30)?.max(1),
            cold: env_usize("PLUGINS_COLD", 5)?,
            reps: 3,
            keep: std::env::var_os("PLUGINS_KEEP").is_some_and(|v| !v.is_empty() && v != "0"),
        })
    }
}

fn env_usize(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().replace(['_', ','], "").parse().map_err(|_| format!("{name}={v}: not a number")),
        Err(_) => Ok(default),
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------------------------
// The binary and the plugins.

/// `examples/plugins/target/wasm32-wasip2/release/NAME_rules.wasm` for each name, built by
/// scripts/build-plugins.sh when one is missing. Existing files are used as they are: after
/// changing a plugin's source, run the script (or `cargo test`) before the bench.
fn plugin_files(names: &[&str]) -> Result<Vec<PathBuf>, String> {
    let dir = root().join("examples/plugins/target/wasm32-wasip2/release");
    let files: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}_rules.wasm"))).collect();
    if files.iter().any(|f| !f.is_file()) {
        eprintln!("plugins bench: building the plugins (scripts/build-plugins.sh)");
        let out = Command::new("bash")
            .arg(root().join("scripts/build-plugins.sh"))
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run scripts/build-plugins.sh: {e}"))?;
        if !out.status.success() {
            return Err(format!("scripts/build-plugins.sh failed ({})", out.status));
        }
    }
    match files.iter().find(|f| !f.is_file()) {
        Some(f) => Err(format!("{} is missing after scripts/build-plugins.sh", f.display())),
        None => Ok(files),
    }
}

// ---------------------------------------------------------------------------------------------
// Running the binary.

/// One way of running `spindle check` over the fleet: a pack of its own.
struct Variant {
    name: &'static str,
    what: &'static str,
    pack: PathBuf,
}

impl Variant {
    /// The baseline and the `-idle` variants select no rule.
    fn selects_none(&self) -> bool {
        self.name == "none" || self.name.ends_with("-idle")
    }
}

/// Runs `spindle ARGS` with the pinned date and `cache` as the compiled-code cache, its stdout
/// discarded; its wall time, spawn to reap. Fails unless it exits 0.
fn run<S: AsRef<OsStr>>(spindle: &Path, args: &[S], cache: &Path) -> Result<Duration, String> {
    spindle_cmd(spindle, args, cache, false, 0).map(|(wall, _)| wall)
}

/// The same, its stdout returned.
fn run_output<S: AsRef<OsStr>>(spindle: &Path, args: &[S], cache: &Path) -> Result<Vec<u8>, String> {
    spindle_cmd(spindle, args, cache, true, 0).map(|(_, out)| out)
}

fn spindle_cmd<S: AsRef<OsStr>>(
    spindle: &Path,
    args: &[S],
    cache: &Path,
    capture: bool,
    expected_status: i32,
) -> Result<(Duration, Vec<u8>), String> {
    let start = Instant::now();
    let out = Command::new(spindle)
        .args(args)
        .env("SPINDLE_TODAY", TODAY)
        .env("SPINDLE_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(if capture { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", spindle.display()))?;
    let wall = start.elapsed();
    if out.status.code() != Some(expected_status) {
        let line: Vec<String> = args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()).collect();
        return Err(format!(
            "`spindle {}` failed ({}):\n{}",
            line.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok((wall, out.stdout))
}

/// `spindle check FLEET --pack PACK --format json --output OUT --fail-on never`. A pack that
/// selects no rule leaves every host not judged, which makes the run incomplete: exit status 2,
/// the report still written (the warm-up checks that it says why).
fn run_fleet(
    spindle: &Path,
    fleet: &Path,
    v: &Variant,
    out: &Path,
    cache: &Path,
) -> Result<Duration, String> {
    let args = [
        "check".as_ref(),
        fleet.as_os_str(),
        "--pack".as_ref(),
        v.pack.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--fail-on".as_ref(),
        "never".as_ref(),
        "--output".as_ref(),
        out.as_os_str(),
    ];
    let status = if v.selects_none() { 2 } else { 0 };
    spindle_cmd(spindle, &args, cache, false, status).map(|(wall, _)| wall)
}

/// The summary of a JSON report, and its findings' codes with the plugin's namespace removed.
fn read_report(path: &Path) -> Result<(Value, Vec<String>), String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let r: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut codes: Vec<String> = r["hosts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|h| h["findings"].as_array().into_iter().flatten())
        .map(|f| {
            let code = f["code"].as_str().unwrap_or("");
            let bare = code.rsplit('/').next().unwrap_or(code);
            format!("{bare} {} {}", f["entity"]["key"], f["message"])
        })
        .collect();
    codes.sort();
    Ok((r["summary"].clone(), codes))
}

// ---------------------------------------------------------------------------------------------
// In-process: where a plugin's time per snapshot goes.

/// A pack given as text, for `resolve`.
struct OnePack(&'static str);

impl PackLoader for OnePack {
    fn load(&self, _reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
        Ok(SourceText { path: "bench.toml".into(), text: self.0.into() })
    }
}

/// One plugin's calls, per snapshot, summed over the fleet: the fastest of `reps` each.
#[derive(Default)]
struct Calls {
    /// `Plugin::check` on the smallest facts, no rule enabled: a fresh store and instance, the
    /// call, its teardown.
    tiny: Duration,
    /// The same on the host's facts: adds copying them in, the guest's `parse_snapshot` and
    /// `HostView::build`.
    facts: Duration,
    /// The same with the plugin's rules enabled: adds the rules and their findings.
    rules: Duration,
    findings: usize,
}

/// Per snapshot, summed over the fleet: the fastest of `reps` calls of each step.
#[derive(Default)]
struct Breakdown {
    /// `check_host` with builtin ALN001 and FMT001: the twin.
    builtin: Duration,
    builtin_findings: usize,
    /// Native `parse_snapshot` and `HostView::build` of the facts JSON a plugin gets: what the
    /// guest does there, outside wasm.
    native_parse: Duration,
    /// `HostView::to_snapshot` and `serde_json::to_string`: the facts the host hands a plugin.
    facts_json: Duration,
    facts_bytes: usize,
    parity: Calls,
    acme: Calls,
    /// `PluginHost::with_options` (engine, linker, epoch thread) and `PluginHost::load` of
    /// parity from the warm cache (read, sha256, deserialize, link, the `info` and `rules`
    /// calls): the first of each in this process.
    host_new: Duration,
    load: Duration,
}

/// The `config-json` src/plugin_rules.rs hands a plugin: its config (none here), each enabled
/// rule's parameters, the host's declarations (none here).
fn config_json(params: &[(String, Vec<(String, Value)>)]) -> String {
    let params: Map<String, Value> = params
        .iter()
        .map(|(code, values)| (code.clone(), Value::Object(values.iter().cloned().collect())))
        .collect();
    json!({"config": {}, "params": params, "declared": {"workload": null, "stripe_units": []}}).to_string()
}

fn best_of<T>(reps: usize, acc: &mut Duration, mut f: impl FnMut() -> T) -> T {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    *acc += best;
    out.expect("at least one call")
}

/// A plugin with every rule enabled at its defaults, as a pack selecting `NAME/` runs it.
struct Loaded {
    plugin: Plugin,
    enabled: Vec<String>,
    config: String,
}

impl Loaded {
    fn new(plugin: Plugin) -> Loaded {
        let params: Vec<(String, Vec<(String, Value)>)> = plugin
            .rules()
            .iter()
            .map(|r| {
                let values = r
                    .params
                    .iter()
                    .map(|p| {
                        let v = match &p.default {
                            plugin::ParamDefault::Num(n) => json!(n),
                            plugin::ParamDefault::Text(t) => json!(t),
                        };
                        (p.name.clone(), v)
                    })
                    .collect();
                (r.code.clone(), values)
            })
            .collect();
        let enabled = params.iter().map(|(code, _)| code.clone()).collect();
        Loaded { plugin, enabled, config: config_json(&params) }
    }

    fn calls(&self, facts: &str, reps: usize, c: &mut Calls) -> Result<(), String> {
        let none = config_json(&[]);
        let p = &self.plugin;
        best_of(reps, &mut c.tiny, || p.check(TINY_FACTS, &[], &none)).map_err(|e| e.to_string())?;
        best_of(reps, &mut c.facts, || p.check(facts, &[], &none)).map_err(|e| e.to_string())?;
        let out = best_of(reps, &mut c.rules, || p.check(facts, &self.enabled, &self.config))
            .map_err(|e| e.to_string())?;
        c.findings += out.findings.len();
        Ok(())
    }
}

fn breakdown(paths: &[PathBuf], wasm: &[PathBuf], cache: &Path, reps: usize) -> Result<Breakdown, String> {
    let mut b = Breakdown::default();
    let t = Instant::now();
    // As `spindle check` builds it when no pack sets a fuel limit: no fuel metering.
    let host = PluginHost::with_options(Some(cache.to_path_buf()), false).map_err(|e| e.to_string())?;
    b.host_new = t.elapsed();
    let mut plugins = vec![];
    for (i, (name, path)) in ["parity", "acme"].iter().zip(wasm).enumerate() {
        let t = Instant::now();
        let p = host.load(name, "bench.toml", path, None, Limits::default()).map_err(|e| e.to_string())?;
        if i == 0 {
            b.load = t.elapsed();
        }
        if !p.loaded_from_cache() {
            return Err(format!("the {name} plugin was compiled, not loaded from the warm cache"));
        }
        plugins.push(Loaded::new(p));
    }
    let (parity, acme) = (&plugins[0], &plugins[1]);
    if parity.enabled != TWIN_RULES {
        return Err(format!("the parity plugin's rules are {:?}, not {TWIN_RULES:?}", parity.enabled));
    }

    let all = spindle_rules::all();
    let catalogue: Vec<_> = all.iter().map(|r| (r.meta.code, &r.meta)).collect();
    let cfg: Config = resolve(&catalogue, &["bench"], &OnePack("select = [\"ALN001\", \"FMT001\"]\n"))
        .map_err(|e| format!("{e:?}"))?;
    let rules: Vec<&dyn Rule> = all.iter().map(|r| *r as &dyn Rule).collect();
    let active = cfg.active(&rules);
    let codes: Vec<&str> = active.iter().map(|a| a.code.as_str()).collect();
    if codes != TWIN_RULES {
        return Err(format!("the twin rules resolved to {codes:?}"));
    }
    let today = Date::parse(TODAY).ok_or("bad TODAY")?;

    for p in paths {
        let text = fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let doc = parse_snapshot(&p.display().to_string(), text).map_err(|e| e.to_string())?;
        let view = HostView::build(vec![doc], cfg.declarations.clone());
        let report = best_of(reps, &mut b.builtin, || check_host(&active, &view, &cfg.waivers, today));
        b.builtin_findings += report.findings.len();
        let facts = best_of(reps, &mut b.facts_json, || serde_json::to_string(&view.to_snapshot()))
            .map_err(|e| e.to_string())?;
        b.facts_bytes += facts.len();
        best_of(reps, &mut b.native_parse, || {
            parse_snapshot("facts-json", facts.clone())
                .map(|doc| HostView::build(vec![doc], cfg.declarations.clone()).host_name().len())
        })
        .map_err(|e| e.to_string())?;
        parity.calls(&facts, reps, &mut b.parity)?;
        acme.calls(&facts, reps, &mut b.acme)?;
    }
    if b.parity.findings != b.builtin_findings {
        return Err(format!(
            "in-process, the parity plugin found {} things and the builtin rules {}",
            b.parity.findings, b.builtin_findings
        ));
    }
    Ok(b)
}

// ---------------------------------------------------------------------------------------------
// The benchmark.

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(xs: &[Duration]) -> Duration {
    let mut v = xs.to_vec();
    v.sort();
    match v.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

fn min(xs: &[Duration]) -> Duration {
    xs.iter().copied().min().unwrap_or_default()
}

fn bench(s: &Settings) -> Result<(), String> {
    let spindle = find_spindle(option_env!("CARGO_BIN_EXE_spindle"))?;
    let wasm = plugin_files(&["parity", "acme"])?;
    let (parity_wasm, acme_wasm) = (&wasm[0], &wasm[1]);
    // The same parity rules built against contract 0.1.0 (facts as JSON), measured beside 0.2.0.
    let parity_v0_1_wasm = &plugin_files(&["parity_v0_1"])?[0];
    let acme_pack = root().join("examples/packs/acme-plugins.toml");
    let (cpus, model) = machine();
    if !s.smoke {
        println!(
            "plugins bench: {} snapshots, best of {}; start-up {} runs each, {} cold; {cpus} cores, {model}",
            s.snapshots, s.runs, s.starts, s.cold
        );
        println!("checker: {}", spindle.display());
        for w in &wasm {
            println!(
                "plugin:  {} ({:.0} KB)",
                w.display(),
                fs::metadata(w).map_or(0, |m| m.len()) as f64 / 1e3
            );
        }
    }

    let tmp = tempfile::Builder::new().prefix("spindle-plugins-").tempdir().map_err(|e| e.to_string())?;
    let dir = tmp.path();
    let fleet = dir.join(format!("fleet-{}", s.snapshots));
    generate(&fleet, s.snapshots)?;
    let mut paths: Vec<PathBuf> = fs::read_dir(&fleet)
        .map_err(|e| e.to_string())?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    paths.sort();
    let bytes: u64 = paths.iter().map(|p| fs::metadata(p).map_or(0, |m| m.len())).sum();
    // Under `cargo test` the cache the plugin tests use, so that the debug build compiles each
    // plugin once; for the bench, a cache of its own.
    let cache = if s.smoke {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plugin-cache")
    } else {
        dir.join("cache")
    };

    // The packs: each selects what it measures; `-idle` ones declare the plugin (so it is loaded
    // and instantiated for `info` and `rules`) but select none of its rules.
    let plugin_decl =
        |name: &str, wasm: &Path| format!("[plugins.{name}]\npath = {:?}\n", wasm.display().to_string());
    let packs: [(&str, &str, String); 7] = [
        ("none", "no rule (baseline)", "select = []\n".into()),
        ("builtin", "builtin ALN001, FMT001", "select = [\"ALN001\", \"FMT001\"]\n".into()),
        (
            "parity-idle",
            "parity loaded, no rule",
            format!("select = []\n{}", plugin_decl("parity", parity_wasm)),
        ),
        (
            "parity",
            "parity/ (ALN001, FMT001)",
            format!("select = [\"parity/\"]\n{}", plugin_decl("parity", parity_wasm)),
        ),
        (
            "parity-v0.1",
            "parity/, contract 0.1.0",
            format!("select = [\"parity/\"]\n{}", plugin_decl("parity", parity_v0_1_wasm)),
        ),
        ("acme-idle", "acme loaded, no rule", format!("select = []\n{}", plugin_decl("acme", acme_wasm))),
        ("acme", "acme/ (ACM001-003)", format!("select = [\"acme/\"]\n{}", plugin_decl("acme", acme_wasm))),
    ];
    let mut variants = vec![];
    for (name, what, text) in packs {
        let pack = dir.join(format!("{name}.toml"));
        fs::write(&pack, text).map_err(|e| format!("{}: {e}", pack.display()))?;
        variants.push(Variant { name, what, pack });
    }

    // Warm-up: fills the compiled-code cache and the page cache, and checks each run reports
    // what it should: no rule error, and the plugin twin's findings exactly the builtin's.
    let mut reports = vec![];
    for v in &variants {
        let out = dir.join(format!("report-{}.json", v.name));
        run_fleet(&spindle, &fleet, v, &out, &cache)?;
        let (summary, codes) = read_report(&out)?;
        let selects_none = v.selects_none();
        let not_judged = if selects_none { s.snapshots } else { 0 };
        if summary["rule_errors"] != 0
            || summary["hosts"] != s.snapshots
            || summary["hosts_not_judged"] != not_judged
        {
            return Err(format!("{}: the run is not what it measures: {summary}", v.name));
        }
        if selects_none && !codes.is_empty() {
            return Err(format!("{}: {} findings from a pack that selects no rule", v.name, codes.len()));
        }
        if !selects_none && codes.is_empty() {
            return Err(format!("{}: no finding on the whole fleet", v.name));
        }
        reports.push((v.name, codes));
    }
    let codes = |name: &str| &reports.iter().find(|(n, _)| *n == name).expect("variant").1;
    if codes("parity") != codes("builtin") || codes("parity-v0.1") != codes("builtin") {
        return Err(format!(
            "the parity plugin's findings ({}) differ from the builtin twin's ({})",
            codes("parity").len(),
            codes("builtin").len()
        ));
    }
    let twin_findings = codes("builtin").len();
    let acme_findings = codes("acme").len();

    // Timed runs, interleaved so that drift (thermal, neighbours) hits every variant alike.
    let mut best = vec![Duration::MAX; variants.len()];
    for round in 0..s.runs {
        let mut line = vec![];
        for (i, v) in variants.iter().enumerate() {
            let d = run_fleet(&spindle, &fleet, v, &dir.join(format!("report-{}.json", v.name)), &cache)?;
            line.push(format!("{} {:.3}", v.name, secs(d)));
            best[i] = best[i].min(d);
        }
        if !s.smoke {
            println!("  round {} (s): {}", round + 1, line.join(", "));
        }
    }
    let per = |name: &str| {
        let i = variants.iter().position(|v| v.name == name).expect("variant");
        secs(best[i]) * 1e6 / s.snapshots as f64
    };

    // In-process, on the same fleet.
    let b = breakdown(&paths, &wasm, &cache, s.reps)?;
    if b.acme.findings != acme_findings {
        return Err(format!(
            "in-process the acme plugin found {} things, through the binary {acme_findings}",
            b.acme.findings
        ));
    }

    // Start-up: one snapshot, `recommended` (the default) against the example company pack, and
    // that pack with the plugin's rules ignored (the plugin is loaded, its rules do not run).
    let one = paths[0].clone();
    let acme_off = dir.join("acme-loaded-only.toml");
    fs::write(
        &acme_off,
        format!("extends = [{:?}]\nignore = [\"acme/\"]\n", acme_pack.display().to_string()),
    )
    .map_err(|e| e.to_string())?;
    let start_args = |pack: Option<&Path>| -> Vec<OsString> {
        let mut a: Vec<OsString> = vec!["check".into(), one.clone().into()];
        if let Some(p) = pack {
            a.extend(["--pack".into(), p.into()]);
        }
        a.extend(["--fail-on".into(), "never".into()]);
        a
    };
    let starts = [
        ("recommended (the default)", start_args(None)),
        ("recommended + acme loaded, its rules ignored", start_args(Some(&acme_off))),
        ("examples/packs/acme-plugins.toml (+ acme)", start_args(Some(&acme_pack))),
    ];
    let mut findings = vec![];
    for (_, args) in &starts {
        let mut json_args = args.clone();
        json_args.extend(["--format".into(), "json".into()]);
        let r: Value = serde_json::from_slice(&run_output(&spindle, &json_args, &cache)?)
            .map_err(|e| format!("start-up report: {e}"))?;
        let sum = |k: &str| r["summary"][k].as_u64().unwrap_or(0);
        if sum("rule_errors") != 0 {
            return Err(format!("start-up run incomplete: {}", r["summary"]));
        }
        findings.push(sum("errors") + sum("warnings") + sum("notes") + sum("waived"));
        run(&spindle, args, &cache)?;
    }
    let mut times: Vec<Vec<Duration>> = vec![vec![]; starts.len()];
    for _ in 0..s.starts {
        for (i, (_, args)) in starts.iter().enumerate() {
            times[i].push(run(&spindle, args, &cache)?);
        }
    }
    // Cold: each run with a cache directory of its own, empty, so the plugin is compiled.
    let mut cold = vec![];
    for i in 0..s.cold {
        let empty = dir.join(format!("cold-cache-{i}"));
        cold.push(run(&spindle, &starts[2].1, &empty)?);
        if fs::read_dir(empty.join("wasm")).map_or(0, |d| d.count()) == 0 {
            return Err("the cold run left no compiled plugin in its cache".into());
        }
    }

    if s.smoke {
        println!(
            "plugins bench: {} snapshots, 7 packs, in-process steps, start-up ok (run the benchmark with \
             `cargo bench --bench plugins`)",
            s.snapshots
        );
        return Ok(());
    }

    // ------------------------------------------------------------------------------------------
    let n = s.snapshots as f64;
    println!(
        "\n== Per snapshot: {} snapshots ({:.1} MB, {:.1} KB each), warm compiled-code cache, best of {}\n",
        s.snapshots,
        bytes as f64 / 1e6,
        bytes as f64 / 1e3 / n,
        s.runs
    );
    println!(
        "| pack selects                | findings | s       | µs/snapshot | − its baseline, µs/snapshot |"
    );
    println!(
        "|-----------------------------|---------:|--------:|------------:|----------------------------:|"
    );
    let baseline = |name: &str| match name {
        "builtin" | "parity-idle" | "acme-idle" => Some("none"),
        "parity" | "parity-v0.1" => Some("parity-idle"),
        "acme" => Some("acme-idle"),
        _ => None,
    };
    for (i, v) in variants.iter().enumerate() {
        let minus =
            baseline(v.name).map_or(String::new(), |b| format!("{:+.1} (− {b})", per(v.name) - per(b)));
        println!(
            "| {:<27} | {:>8} | {:>7.3} | {:>11.1} | {:>27} |",
            v.what,
            codes(v.name).len(),
            secs(best[i]),
            per(v.name),
            minus
        );
    }
    let k = paths.len() as f64;
    let us = |d: Duration| secs(d) * 1e6 / k;
    let whole = (per("parity"), per("builtin"));
    let marginal = (per("parity") - per("parity-idle"), per("builtin") - per("none"));
    let marginal_v0_1 = (per("parity-v0.1") - per("parity-idle"), per("builtin") - per("none"));
    let alone = (us(b.facts_json) + us(b.parity.rules), us(b.builtin));
    let ratio = |(p, b): (f64, f64)| if b > 0.0 { format!("{:.1}×", p / b) } else { "n/a".to_string() };
    println!(
        "\nALN001 + FMT001 through the parity plugin against the builtin rules ({twin_findings} findings each, \
         identical):\n"
    );
    println!(
        "| measured as                                                   | plugin µs | builtin µs | plugin/builtin |"
    );
    println!(
        "|---------------------------------------------------------------|----------:|-----------:|---------------:|"
    );
    for (what, (p, bi)) in [
        ("whole run, per snapshot", whole),
        ("run − its baseline (both include writing the same findings)", marginal),
        ("the same, contract 0.1.0 (facts and configuration as JSON)", marginal_v0_1),
        ("the rules alone, in-process (facts JSON + call, check_host)", alone),
    ] {
        println!("| {what:<61} | {p:>9.1} | {bi:>10.1} | {:>14} |", ratio((p, bi)));
    }
    let met = marginal.1 > 0.0 && marginal.0 / marginal.1 <= RATIO_TARGET;
    println!(
        "\nTarget (plugin ≤ {RATIO_TARGET}× its builtin twin per snapshot, run − baseline): {} — {}; whole run {}, \
         the rules alone {}",
        ratio(marginal),
        if met { "MET" } else { "NOT MET" },
        ratio(whole),
        ratio(alone),
    );
    println!(
        "acme/ (ACM001-003, {acme_findings} findings): {:.1} µs per snapshot (acme − acme idle); the whole run \
         {:.1} µs per snapshot against {:.1} with no rule",
        per("acme") - per("acme-idle"),
        per("acme"),
        per("none"),
    );
    println!(
        "Loading a plugin (warm cache) once per run, amortised: parity idle − none {:+.1} µs, acme idle − none \
         {:+.1} µs per snapshot (within the runs' noise)",
        per("parity-idle") - per("none"),
        per("acme-idle") - per("none"),
    );

    println!(
        "\n== Where a plugin's time per snapshot goes: in-process, {} snapshots ({:.1} KB of facts JSON each), \
         fastest of {} calls per step and snapshot\n",
        paths.len(),
        b.facts_bytes as f64 / 1e3 / k,
        s.reps
    );
    println!("| step                                                             | parity µs | acme µs |");
    println!("|------------------------------------------------------------------|----------:|--------:|");
    let row = |name: &str, p: f64, a: f64| println!("| {name:<64} | {p:>9.1} | {a:>7.1} |");
    let (pc, ac) = (&b.parity, &b.acme);
    row("host: HostView::to_snapshot + serde_json::to_string", us(b.facts_json), us(b.facts_json));
    row("call: fresh store + instance, tiny facts, no rule", us(pc.tiny), us(ac.tiny));
    row(
        "call: + the host's facts (copy in, guest parse, HostView::build)",
        us(pc.facts) - us(pc.tiny),
        us(ac.facts) - us(ac.tiny),
    );
    row(
        "call: + the plugin's rules and their findings",
        us(pc.rules) - us(pc.facts),
        us(ac.rules) - us(ac.facts),
    );
    row(
        "total in-process (facts JSON + Plugin::check)",
        us(b.facts_json) + us(pc.rules),
        us(b.facts_json) + us(ac.rules),
    );
    row("the binary: run − its baseline", marginal.0, per("acme") - per("acme-idle"));
    println!("\nNative, for comparison (µs per snapshot):\n");
    println!(
        "- parse_snapshot + HostView::build of the same facts JSON: {:.1} (the guest's: {:.1}, {:.1}×)",
        us(b.native_parse),
        us(pc.facts) - us(pc.tiny),
        (us(pc.facts) - us(pc.tiny)) / us(b.native_parse).max(1e-3)
    );
    println!("- check_host, builtin ALN001 + FMT001: {:.2}", us(b.builtin));
    println!(
        "- writing their findings, estimated as (builtin − none) − check_host: {:.1}",
        marginal.1 - us(b.builtin)
    );
    println!(
        "\nIn this process, first of each: PluginHost::with_options {:.1} ms, PluginHost::load of parity from the \
         warm cache {:.1} ms.",
        ms(b.host_new),
        ms(b.load)
    );

    println!(
        "\n== Start-up: `spindle check ONE.json --fail-on never`, {} runs of each, interleaved\n",
        s.starts
    );
    println!(
        "| pack                                          | findings | median ms | min ms | − recommended, median |"
    );
    println!(
        "|-----------------------------------------------|---------:|----------:|-------:|----------------------:|"
    );
    let base = median(&times[0]);
    for (i, (name, _)) in starts.iter().enumerate() {
        let m = median(&times[i]);
        let d = if i == 0 { String::new() } else { format!("{:+.1} ms", ms(m) - ms(base)) };
        println!(
            "| {name:<45} | {:>8} | {:>9.1} | {:>6.1} | {d:>21} |",
            findings[i],
            ms(m),
            ms(min(&times[i])),
        );
    }
    if !cold.is_empty() {
        println!(
            "| {:<45} | {:>8} | {:>9.1} | {:>6.1} | {:>21} |",
            "the same, empty cache (compiles acme)",
            findings[2],
            ms(median(&cold)),
            ms(min(&cold)),
            format!("{:+.1} ms", ms(median(&cold)) - ms(base))
        );
    }
    let diff = ms(median(&times[2])) - ms(base);
    println!(
        "\nTarget (a warm-cache run with one plugin starts ≤ {STARTUP_TARGET_MS} ms slower): {diff:+.1} ms (median), \
         {:+.1} ms (min) — {}",
        ms(min(&times[2])) - ms(min(&times[0])),
        if diff <= STARTUP_TARGET_MS { "MET" } else { "NOT MET" }
    );
    println!(
        "Of which loading the plugin: {:+.1} ms (loaded, rules ignored − recommended); running it on the host and \
         writing its {} findings: {:+.1} ms.",
        ms(median(&times[1])) - ms(base),
        findings[2] - findings[1],
        ms(median(&times[2])) - ms(median(&times[1])),
    );

    if s.keep {
        let kept = tmp.keep();
        println!("\nkept: {} (fleet, packs, reports, cache)", kept.display());
    }
    Ok(())
}
