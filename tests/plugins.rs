//! The plugin host against real guest components (examples/plugins/, built by
//! scripts/build-plugins.sh on first use): the hostile plugin's every mode fails cleanly and the
//! process goes on, the compiled-code cache is used, and `spindle plugin inspect` shows a plugin.

use spindle_plugin_host as plugin;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use plugin::{CheckOutput, Limits, LogLevel, Plugin, PluginError, PluginErrorKind as Kind, PluginHost};
use serde_json::{Value, json};

use built_plugins::wasm;
use spindle_test_support::plugins as built_plugins;

const FACTS: &str = r#"{"schema_version": 1, "host": {"name": "h"}}"#;

/// The cache the tests share: each plugin is compiled once per build of the tests.
fn test_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-cache")
}

/// One host for the tests, as spindle has one per process.
fn host() -> &'static PluginHost {
    static HOST: OnceLock<PluginHost> = OnceLock::new();
    HOST.get_or_init(|| PluginHost::with_cache_dir(Some(test_cache())).unwrap())
}

/// Loads a plugin; the first load compiles it, so loads go one at a time and the rest hit the
/// cache.
fn load(name: &str, limits: Limits) -> Plugin {
    let _serial = load_lock();
    host().load(name, "packs/test.toml", wasm(name), None, limits).unwrap_or_else(|e| panic!("{e}"))
}

/// Serializes what may compile a plugin into the shared cache.
fn load_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn hostile() -> Plugin {
    load("hostile", Limits { timeout_ms: 1000, ..Limits::default() })
}

fn config(mode: &str) -> String {
    json!({"config": {"mode": mode}, "params": {"HST001": {}}, "declared": {"workload": null, "stripe_units": []}})
        .to_string()
}

fn run(p: &Plugin, mode: &str) -> Result<CheckOutput, PluginError> {
    p.check(FACTS, &["HST001".to_string()], &config(mode))
}

fn fails(p: &Plugin, mode: &str, kind: Kind) -> PluginError {
    match run(p, mode) {
        Ok(out) => panic!("mode {mode} succeeded: {out:?}"),
        Err(e) => {
            assert_eq!(e.kind, kind, "mode {mode}: {e}");
            let text = e.to_string();
            assert!(
                text.starts_with("plugin `hostile` of pack `packs/test.toml` (")
                    && text.contains("hostile_rules.wasm"),
                "mode {mode}: the error names the plugin, its pack and file: {text}"
            );
            e
        }
    }
}

/// The plugin still works after a failure: the next call gets a fresh instance.
fn still_ok(p: &Plugin) {
    let out = run(p, "ok").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.findings.len(), 1);
}

fn warned(out: &CheckOutput, text: &str) -> bool {
    out.captured.log.iter().any(|l| l.level == LogLevel::Warn && l.message.contains(text))
}

#[test]
fn ok_reports_its_finding() {
    let out = run(&hostile(), "ok").unwrap();
    assert_eq!(out.findings.len(), 1);
    let f = &out.findings[0];
    assert_eq!(
        (f.code.as_str(), f.entity.as_str(), f.message.as_str()),
        ("HST001", "h", "the hostile plugin behaved")
    );
    assert!(out.not_evaluated.is_empty());
}

#[test]
fn loop_times_out() {
    let p = hostile();
    let start = Instant::now();
    let e = fails(&p, "loop", Kind::Timeout);
    let took = start.elapsed();
    assert!(e.message.contains("`check` timed out: it ran past the 1000 ms limit"), "{e}");
    assert!(took >= Duration::from_millis(990) && took < Duration::from_secs(5), "stopped after {took:?}");
    still_ok(&p);
}

#[test]
fn loop_runs_out_of_fuel() {
    let p = load("hostile", Limits { fuel: Some(50_000_000), ..Limits::default() });
    let e = fails(&p, "loop", Kind::OutOfFuel);
    assert!(e.message.contains("ran out of fuel: it used all 50000000 units"), "{e}");
    // A fuel limit leaves room for an honest call.
    still_ok(&p);
}

#[test]
fn alloc_hits_the_memory_limit() {
    let p = hostile();
    let e = fails(&p, "alloc", Kind::Memory);
    assert!(e.message.contains("exceeded the plugin's memory limit of 64 MiB"), "{e}");
    still_ok(&p);
}

#[test]
fn recurse_overflows_the_stack() {
    let p = hostile();
    let e = fails(&p, "recurse", Kind::Trap);
    // Rust's stack is in linear memory: running off its end is an out-of-bounds access.
    assert!(
        e.message.contains("out-of-bounds memory access") && e.message.contains("overflows its stack"),
        "{e}"
    );
    still_ok(&p);
}

#[test]
fn panic_shows_the_panic_message() {
    let p = hostile();
    let e = fails(&p, "panic", Kind::Trap);
    assert!(e.message.contains("`check` panicked"), "{e}");
    assert!(e.captured.stderr.contains("hostile plugin panics on purpose"), "{:?}", e.captured);
    let text = e.to_string();
    assert!(
        text.contains("plugin stderr") && text.contains("| ") && text.contains("panics on purpose"),
        "{text}"
    );
    still_ok(&p);
}

#[test]
fn file_sees_no_file() {
    let out = run(&hostile(), "file").unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert!(warned(&out, "file: reading /etc/passwd failed"), "{:?}", out.captured.log);
}

#[test]
fn env_sees_no_environment() {
    assert!(std::env::var_os("PATH").is_some(), "the test process has an environment to leak");
    let out = run(&hostile(), "env").unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert!(warned(&out, "env: the environment is empty"), "{:?}", out.captured.log);
}

#[test]
fn socket_gets_no_network() {
    let out = run(&hostile(), "socket").unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert!(warned(&out, "socket: connecting to 127.0.0.1:9 failed"), "{:?}", out.captured.log);
}

#[test]
fn undeclared_codes_are_refused() {
    let e = fails(&hostile(), "undeclared", Kind::BadOutput);
    assert!(e.message.contains("a finding for `XXX999`, a code it did not declare"), "{e}");
}

#[test]
fn flood_is_bounded() {
    // Within the default memory limit the plugin cannot even build 100 MB of findings.
    let e = fails(&hostile(), "flood", Kind::Memory);
    assert!(e.message.contains("memory limit of 64 MiB"), "{e}");
    // Given the memory, it returns them, and the host refuses that much text.
    let roomy = load("hostile", Limits { memory_bytes: 1 << 30, timeout_ms: 20_000, fuel: None });
    let e = fails(&roomy, "flood", Kind::BadOutput);
    assert!(e.message.contains("MiB of text, more than 16 MiB"), "{e}");
}

#[test]
fn bad_entities_pass_the_host_for_the_engine_to_judge() {
    // The host checks an entity key's form, not that the facts have it: that is the engine's
    // job, which knows the host's entities.
    let out = run(&hostile(), "bad-entity").unwrap();
    assert_eq!(out.findings[0].entity, "h/disk:no-such-disk");
}

#[test]
fn log_is_bounded() {
    let out = run(&hostile(), "log").unwrap();
    assert_eq!(out.findings.len(), 1, "the finding after the flood of log lines is kept");
    let log = &out.captured;
    assert!(!log.log.is_empty() && log.log.len() <= plugin::LOG_MAX_LINES);
    assert!(log.log.iter().map(|l| l.message.len()).sum::<usize>() <= plugin::LOG_MAX_BYTES);
    assert_eq!(log.log.len() + log.log_dropped, 10_000, "every line counted");
    assert!(log.log[0].message.starts_with("00000 xxx"));
}

#[test]
fn a_bad_config_is_a_check_error() {
    let e = fails(&hostile(), "lop", Kind::CheckError);
    assert!(
        e.message.contains("does not accept its configuration: ")
            && e.message.contains("mode \"lop\" is not one of"),
        "{e}"
    );
}

#[test]
fn a_code_the_plugin_does_not_declare_is_not_run() {
    let e = hostile().check(FACTS, &["ZZZ001".to_string()], &config("ok")).unwrap_err();
    assert_eq!(e.kind, Kind::Host);
}

#[test]
fn every_mode_in_one_plugin_in_a_row() {
    // One plugin, every mode in turn: no failure leaks into the next call.
    let p = hostile();
    for mode in ["loop", "alloc", "recurse", "panic", "undeclared", "file", "env", "socket", "log", "ok"] {
        let _ = run(&p, mode);
    }
    still_ok(&p);
}

#[test]
fn acme_checks_with_its_params() {
    let acme = load("acme", Limits::default());
    let codes: Vec<&str> = acme.rules().iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, ["ACM001", "ACM002", "ACM003"]);
    assert_eq!(acme.info().id, "acme");
    assert_eq!(acme.wit_version(), "0.2.0");
}

/// A plugin built against contract 0.1.0 (facts as JSON) still runs, beside 0.2.0 ones.
#[test]
fn a_0_1_0_plugin_still_runs() {
    let old = load("parity_v0_1", Limits::default());
    assert_eq!(old.wit_version(), "0.1.0");
    let new = load("parity", Limits::default());
    assert_eq!(new.wit_version(), "0.2.0");
    let facts = r#"{"schema_version": 1, "host": {"name": "h"},
        "partitions": [{"id": "p1", "disk_id": "d1", "number": 1, "offset_bytes": 32256}]}"#;
    let enabled = vec!["ALN001".to_string()];
    let a = old.check(facts, &enabled, "{}").unwrap();
    let b = new.check(facts, &enabled, "{}").unwrap();
    let shown = |o: &CheckOutput| -> Vec<(String, String, String)> {
        o.findings.iter().map(|f| (f.code.clone(), f.entity.clone(), f.message.clone())).collect()
    };
    assert_eq!(shown(&a).len(), 1, "{:?}", a.findings);
    assert_eq!(shown(&a), shown(&b));
    assert_eq!(a.findings[0].measured_quantity, None, "0.1.0 carries no quantities");
    assert!(b.findings[0].measured_quantity.is_some(), "0.2.0 does");
}

#[test]
fn the_second_load_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = wasm("parity");
    let first = PluginHost::with_cache_dir(Some(dir.path().to_path_buf())).unwrap();
    let start = Instant::now();
    let p = first.load("parity", "p", path, None, Limits::default()).unwrap();
    let cold = start.elapsed();
    assert!(!p.loaded_from_cache());
    assert_eq!(first.compiled_count(), 1);
    let digest: [u8; 32] = hex_digest(p.sha256());
    let entry = first.cache_entry(&digest).unwrap();
    assert!(entry.exists(), "{} was written", entry.display());

    // A new host (a new spindle process) finds it.
    let second = PluginHost::with_cache_dir(Some(dir.path().to_path_buf())).unwrap();
    let start = Instant::now();
    let p = second.load("parity", "p", path, Some(p.sha256()), Limits::default()).unwrap();
    let warm = start.elapsed();
    assert!(p.loaded_from_cache());
    assert_eq!(second.compiled_count(), 0);
    assert!(warm < cold, "cached load {warm:?} is faster than compiling {cold:?}");
    eprintln!("parity: compiled in {cold:?}, loaded from the cache in {warm:?}");

    // A corrupt entry is compiled again, not trusted.
    let mut bytes = std::fs::read(&entry).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&entry, bytes).unwrap();
    let third = PluginHost::with_cache_dir(Some(dir.path().to_path_buf())).unwrap();
    let p = third.load("parity", "p", path, None, Limits::default()).unwrap();
    assert!(!p.loaded_from_cache());
    assert_eq!(third.compiled_count(), 1);
    assert!(!p.rules().is_empty());
}

fn hex_digest(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// Every call gets a fresh instance: twenty calls after a trap answer exactly as the first
/// call did. (What a call costs is the plugins benchmark's business, not a test's.)
#[test]
fn calls_share_no_state() {
    let p = hostile();
    let first = format!("{:?}", run(&p, "ok").unwrap().findings);
    assert!(run(&p, "alloc").is_err(), "the alloc mode hits the memory limit");
    for _ in 0..20 {
        assert_eq!(format!("{:?}", run(&p, "ok").unwrap().findings), first);
    }
}

/// The hostile plugin with every `from` in its bytes replaced by its `to` (of the same length),
/// written to a temporary file.
fn patched_hostile(pairs: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let mut bytes = std::fs::read(wasm("hostile")).unwrap();
    for (from, to) in pairs {
        assert_eq!(from.len(), to.len());
        let (from, to) = (from.as_bytes(), to.as_bytes());
        let mut n = 0;
        let mut i = 0;
        while let Some(at) = bytes[i..].windows(from.len()).position(|w| w == from) {
            bytes[i + at..i + at + from.len()].copy_from_slice(to);
            i += at + from.len();
            n += 1;
        }
        assert!(n > 0, "the component names {}", String::from_utf8_lossy(from));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("patched.wasm");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

#[test]
fn another_contract_version_is_refused() {
    let (_dir, path) = patched_hostile(&[
        ("spindle:plugin/types@0.2.0", "spindle:plugin/types@0.9.0"),
        ("spindle:plugin/facts@0.2.0", "spindle:plugin/facts@0.9.0"),
    ]);
    let e = {
        let _serial = load_lock();
        host().load("future", "p", &path, None, Limits::default()).unwrap_err()
    };
    assert_eq!(e.kind, Kind::Contract, "{e}");
    assert!(
        e.message.contains("built against the plugin contract spindle:plugin@0.9.0")
            && e.message.contains("runs plugins of contract 0.1.0, 0.2.0"),
        "{e}"
    );
}

#[test]
fn an_import_spindle_does_not_provide_is_refused() {
    let (_dir, path) = patched_hostile(&[("wasi:cli/exit@", "wasi:cli/exiz@")]);
    let e = {
        let _serial = load_lock();
        host().load("greedy", "p", &path, None, Limits::default()).unwrap_err()
    };
    assert_eq!(e.kind, Kind::Contract, "{e}");
    assert!(e.message.contains("cannot be linked") && e.message.contains("wasi:cli/exiz@"), "{e}");
}

/// stderr with miette's frame and line wrapping undone.
fn stderr_text(out: &Output) -> String {
    let s = String::from_utf8_lossy(&out.stderr);
    s.split_whitespace().filter(|w| !matches!(*w, "×" | "│")).collect::<Vec<_>>().join(" ")
}

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_CACHE_DIR", test_cache())
        .env("NO_COLOR", "1")
        .output()
        .expect("spindle runs")
}

#[test]
fn inspect_shows_the_acme_plugin() {
    let path = wasm("acme").to_str().unwrap();
    let out = {
        let _serial = load_lock();
        spindle(&["plugin", "inspect", path])
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("acme 0.1.0\n"), "{stdout}");
    assert!(
        stdout.contains("contract:      spindle:plugin@0.2.0 (this spindle runs 0.1.0, 0.2.0)"),
        "{stdout}"
    );
    assert!(stdout.contains("ACM003  production-free-space"), "{stdout}");
    assert!(stdout.contains("param min_free_percent (percent, default 30)"), "{stdout}");

    let out = spindle(&["plugin", "inspect", "--format", "json", path]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["wit_version"], "0.2.0");
    assert_eq!(v["contracts_accepted"], json!(["0.1.0", "0.2.0"]));
    assert_eq!(v["pack"]["id"], "acme");
    assert_eq!(v["rules"][2]["code"], "ACM003");
    assert_eq!(
        v["rules"][2]["params"][0],
        json!({
            "name": "min_free_percent", "kind": "percent", "default": 30.0,
            "doc": v["rules"][2]["params"][0]["doc"].clone()
        })
    );
}

/// A plugin cannot make its findings differ from call to call, run to run or day to day: the wall
/// clock is stopped at 2000-01-01 and `wasi:random` gives the same bytes.
#[test]
fn clock_and_randomness_are_fixed() {
    let p = hostile();
    let message = || run(&p, "entropy").unwrap().findings[0].message.clone();
    let first = message();
    assert!(first.starts_with("wall clock 946684800 s, hash seed "), "{first}");
    assert_eq!(message(), first);
    let again = load("hostile", Limits { timeout_ms: 1000, ..Limits::default() });
    assert_eq!(run(&again, "entropy").unwrap().findings[0].message, first);
}

#[test]
fn the_version_names_the_commit_the_target_and_the_plugin_contracts() {
    let out = spindle(&["--version"]);
    assert!(out.status.success());
    let commit = option_env!("SPINDLE_COMMIT").filter(|c| !c.is_empty()).unwrap_or("unknown");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        format!(
            "spindle {} (commit {commit}, {}; plugin contracts spindle:plugin@0.1.0, 0.2.0)",
            env!("CARGO_PKG_VERSION"),
            env!("SPINDLE_TARGET")
        )
    );
    assert!(env!("SPINDLE_TARGET").starts_with(std::env::consts::ARCH), "the target this test was built for");
}

#[test]
fn inspect_refuses_a_bad_file_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.wasm");
    std::fs::write(&text, "not wasm").unwrap();
    let out = spindle(&["plugin", "inspect", text.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_text(&out);
    assert!(stderr.contains("plugin `notes`") && stderr.contains("not a WebAssembly file"), "{stderr}");

    let bytes = std::fs::read(wasm("acme")).unwrap();
    let cut = dir.path().join("cut.wasm");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = spindle(&["plugin", "inspect", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_text(&out);
    assert!(stderr.contains("truncated or corrupt WebAssembly component"), "{stderr}");

    let out = spindle(&["plugin", "inspect", dir.path().join("missing.wasm").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_text(&out).contains("cannot read the plugin file"), "{}", stderr_text(&out));
}

#[test]
fn a_host_without_fuel_metering_runs_plugins_and_refuses_fuel_limits() {
    let _guard = load_lock();
    let host = PluginHost::with_options(Some(test_cache()), false).unwrap();
    let p = host.load("hostile", "test pack", wasm("hostile"), None, Limits::default()).unwrap();
    let out = p.check(FACTS, &["HST001".to_string()], &config("ok")).unwrap();
    assert_eq!(out.findings.len(), 1);
    let limits = Limits { fuel: Some(1_000), ..Limits::default() };
    let e = host.load("hostile", "test pack", wasm("hostile"), None, limits).unwrap_err();
    assert_eq!(e.kind, Kind::Host, "{e}");
}
