//! Hostile plugins: see main.rs. The hostile plugin (examples/plugins/hostile) misbehaves as its
//! pack's `config.mode` says; these cases run it through packs and `spindle check`.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use spindle_plugin_host::PluginHost;
use spindle_test_support::plugins::{repo_root, wasm};
use tempfile::TempDir;

/// The compiled-code cache the plugin tests share (each plugin compiles once per build).
fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-cache")
}

fn example(name: &str) -> String {
    repo_root().join("examples").join(name).display().to_string()
}

fn sha256_of(path: &Path) -> String {
    fs::read_to_string(format!("{}.sha256", path.display())).unwrap().trim().to_string()
}

/// A pack of the hostile plugin alone, with `extra` lines in its `[plugins.hostile]` table.
fn hostile_pack(dir: &Path, extra: &str) -> String {
    let p = dir.join("pack.toml");
    fs::write(
        &p,
        format!(
            "select = [\"hostile/\"]\n[plugins.hostile]\npath = \"{}\"\nsha256 = \"{}\"\n{extra}\n",
            wasm("hostile").display(),
            sha256_of(wasm("hostile")),
        ),
    )
    .unwrap();
    p.display().to_string()
}

/// Runs spindle with the compiled-code cache in `cache`; kills it and fails the test if it runs
/// longer than `limit` (a hang is what several of these cases are about).
fn spindle_within(args: &[&str], cache: &Path, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .env("SPINDLE_CACHE_DIR", cache)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spindle runs");
    // Drained as it comes, so that a large report cannot block spindle on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = vec![];
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("spindle {args:?} was still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// stderr with miette's frame and line wrapping undone.
fn stderr_text(o: &Output) -> String {
    let s = String::from_utf8_lossy(&o.stderr);
    s.split_whitespace().filter(|w| !matches!(*w, "×" | "│" | "·")).collect::<Vec<_>>().join(" ")
}

/// The message of the one plugin error of each host of a JSON report.
fn host_errors(report: &Value) -> Vec<String> {
    report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let errors = h["errors"].as_array().unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            errors[0]["message"].as_str().unwrap().to_string()
        })
        .collect()
}

/// What the finding of the `ok` mode says; a component compiled from other code says otherwise.
const HONEST: &str = "the hostile plugin behaved";
const PLANTED: &str = "planted code, not the pin!";

/// The hostile plugin with its `ok` message replaced: another component, of the same contract.
fn planted_component() -> Vec<u8> {
    assert_eq!(HONEST.len(), PLANTED.len());
    let mut bytes = fs::read(wasm("hostile")).unwrap();
    let at = bytes
        .windows(HONEST.len())
        .position(|w| w == HONEST.as_bytes())
        .expect("the message is in the component");
    bytes[at..at + PLANTED.len()].copy_from_slice(PLANTED.as_bytes());
    bytes
}

/// The `ok` finding's message when spindle checks with the pinned hostile plugin and its cache
/// in `cache`.
fn ok_message(pack: &str, cache: &Path) -> String {
    let o = spindle_within(
        &["check", &example("win2003-sector63"), "--pack", pack, "--format", "json", "--fail-on", "never"],
        cache,
        Duration::from_secs(120),
    );
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let r = json(&o);
    let f = r["hosts"][0]["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:?}");
    f[0]["message"].as_str().unwrap().to_string()
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Gives `paths` to `uid` (and its group), as `chown` does.
fn give(paths: &[&Path], uid: u32) {
    for p in paths {
        std::os::unix::fs::chown(p, Some(uid), Some(uid))
            .unwrap_or_else(|e| panic!("chown {}: {e}", p.display()));
    }
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Item 1. A user who can write a cache directory that spindle reads (another user's, set in
/// SPINDLE_CACHE_DIR) plants there, under the pinned plugin's key, code compiled from another
/// component, signed with a key of their own, as a spindle of theirs would have written it.
/// spindle must compile the pinned plugin instead, never run the planted code, and leave their
/// files alone. Needs root (to give files to uid 65534, `nobody`); without it, the check against
/// group- and world-writable directories runs, then the cross-user cases are skipped, or fail in
/// CI (`spindle_test_support::tier`).
#[test]
fn item01_cache_entry_of_another_user_is_never_loaded() {
    let nobody = 65534;
    let tmp = TempDir::new().unwrap();
    let cache = tmp.path().join("cache");
    let pack = hostile_pack(tmp.path(), "");
    let pinned: [u8; 32] = {
        let hex = sha256_of(wasm("hostile"));
        std::array::from_fn(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
    };
    // spindle's engine for a pack without fuel (the entry's key depends on it).
    let host = PluginHost::with_options(Some(cache.clone()), false).unwrap();
    let entry = host.plant_cache_entry(&pinned, &planted_component()).unwrap();
    let key_file = cache.join("hmac-key");
    assert!(key_file.exists(), "the planter's key is at {}", key_file.display());
    let planted = fs::read(&entry).unwrap();

    // The control: while the owner of the files is spindle's own user, the entry is sound and
    // runs. So what follows fails for the owner alone, not for a bad key or layout.
    assert_eq!(ok_message(&pack, &cache), PLANTED, "the planted entry is the pinned plugin's, well formed");

    let wasm_dir = cache.join("wasm");
    // The setup of the issue: directories 0755, entry 0644, key 0600, all another user's.
    chmod(&cache, 0o755);
    chmod(&wasm_dir, 0o755);
    chmod(&entry, 0o644);
    if euid() != 0 {
        // What can be tried without a second user: the same files, writable by others.
        for d in [&cache, &wasm_dir] {
            chmod(d, 0o777);
            assert_eq!(ok_message(&pack, &cache), HONEST, "{} writable by others", d.display());
            chmod(d, 0o755);
        }
        spindle_test_support::tier::unavailable(
            &format!(
                "item01's cross-user cases need root to give the cache to another user (uid {nobody}); \
                 the checks against directories others can write passed (CI runs as root)"
            ),
            &[],
        );
        return;
    }
    // Each of the entry, its directories and the key in another user's hands, then all of them,
    // then a directory above the cache (they could swap the whole tree).
    let all: Vec<&Path> = vec![&cache, &wasm_dir, &entry, &key_file];
    let cases: Vec<(&str, Vec<&Path>)> = vec![
        ("the whole cache", all.clone()),
        ("the cache directory", vec![&cache]),
        ("the entries' directory", vec![&wasm_dir]),
        ("the key", vec![&key_file]),
        ("the entry", vec![&entry]),
        ("the directory above the cache", vec![tmp.path()]),
    ];
    for (what, theirs) in cases {
        give(&all, 0);
        give(&[tmp.path()], 0);
        fs::write(&entry, &planted).unwrap();
        give(&theirs, nobody);
        assert_eq!(ok_message(&pack, &cache), HONEST, "{what} owned by uid {nobody}: the pinned plugin runs");
        if what != "the entry" {
            // In a cache spindle cannot trust, it writes nothing either. (An entry of another
            // user's in its own directory it may replace with its own.)
            assert_eq!(fs::read(&entry).unwrap(), planted, "{what}: another user's files are left alone");
        }
    }
    // The control again: the planted entry was a valid one all along.
    give(&all, 0);
    give(&[tmp.path()], 0);
    fs::write(&entry, &planted).unwrap();
    assert_eq!(ok_message(&pack, &cache), PLANTED, "the control, after");
}

/// Item 8. A plugin that sleeps in one host call until past its deadline and returns without
/// reaching an epoch check is stopped by nothing: what it returns that late is a timeout, not a
/// silent pass. The sleep ends 20 ms after the deadline; the epoch ticker, which counts 10 ms
/// ticks that each run a little long, is then still short of the deadline once the timeout is
/// a few seconds (about 60 µs a tick: 60 ms behind at 10 s), so the guest returns unstopped.
#[test]
fn item08_sleep_past_deadline_is_a_timeout() {
    let tmp = TempDir::new().unwrap();
    let pack =
        hostile_pack(tmp.path(), "timeout_ms = 10000\nconfig = { mode = \"sleep\", sleep_ms = 1000000 }");
    let start = Instant::now();
    let o = spindle_within(
        &["check", &example("win2003-sector63"), "--pack", &pack, "--format", "json"],
        &shared_cache(),
        Duration::from_secs(120),
    );
    let took = start.elapsed();
    assert_eq!(
        o.status.code(),
        Some(2),
        "a timeout is an incomplete run: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let errors = host_errors(&json(&o));
    assert!(
        errors[0].contains("plugin `hostile`")
            && errors[0].contains("`check` timed out: it ran past the 10000 ms limit"),
        "{errors:?}"
    );
    // Capped at the deadline, not the 1,000 s it asked for.
    assert!(took < Duration::from_secs(60), "{took:?}");
}

/// Item 11. A finding whose `field` is a pointer of 200,000 segments is refused by the host as
/// soon as the call returns, naming the plugin, instead of costing the report quadratic time
/// to locate (83 s).
#[test]
fn item11_a_pointer_of_200k_segments_is_refused_at_once() {
    let tmp = TempDir::new().unwrap();
    let pack = hostile_pack(tmp.path(), "config = { mode = \"long-field\", field_segments = 200000 }");
    let start = Instant::now();
    let o = spindle_within(
        &["check", &example("win2003-sector63"), "--pack", &pack, "--format", "json"],
        &shared_cache(),
        Duration::from_secs(60),
    );
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let r = json(&o);
    let errors = host_errors(&r);
    assert!(
        errors[0].contains("plugin `hostile`")
            && errors[0].contains("its output breaks the plugin contract")
            && errors[0].contains("has a `field` 399999 bytes long, more than 4096"),
        "{errors:?}"
    );
    assert!(errors[0].len() < 2000, "the pointer is not quoted: {} bytes", errors[0].len());
    assert!(r["hosts"][0]["findings"].as_array().unwrap().is_empty());
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// Item 12. A plugin's check-error of 50 MB is reported for every host, so it is cut to a
/// bound (with how much was cut) rather than quoted whole three times.
#[test]
fn item12_a_50mb_check_error_is_cut_for_every_host() {
    let tmp = TempDir::new().unwrap();
    let pack = hostile_pack(
        tmp.path(),
        "memory_bytes = 536870912\ntimeout_ms = 30000\nconfig = { mode = \"big-error\", error_bytes = 50000000 }",
    );
    let hosts = ["win2003-sector63", "win2003-aligned", "linux-xfs-md"].map(example);
    let mut args = vec!["check"];
    args.extend(hosts.iter().map(String::as_str));
    args.extend(["--pack", &pack, "--format", "json"]);
    let o = spindle_within(&args, &shared_cache(), Duration::from_secs(300));
    let shown = String::from_utf8_lossy(&o.stderr[..o.stderr.len().min(4000)]).into_owned();
    // The plugin refuses its config (a `bad-config` check-error): since configs are validated
    // when the pack loads, that is one error at the config's place in the pack, before any host
    // is checked, and its 50 MB message is cut there as it was in each host's report.
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(o.stdout.is_empty(), "a report of {} bytes", o.stdout.len());
    assert!(o.stderr.len() < 64 << 10, "{} bytes on stderr", o.stderr.len());
    let err = stderr_text(&o);
    assert!(
        err.contains("pack.toml:") && err.contains("plugin `hostile` does not accept its config"),
        "{shown}"
    );
    assert!(
        err.contains("EEEE… (") && err.contains(" more bytes)"),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
}

/// Item 18. A pack's `timeout_ms`, `memory_bytes` and `fuel` have caps; over them is an error at
/// the value in the pack, before anything runs (a `timeout_ms` of i64::MAX with a
/// sleeping plugin hung the run).
#[test]
fn item18_pack_limits_over_their_caps_are_refused() {
    for (extra, field, cap, at) in [
        ("timeout_ms = 9223372036854775807", "timeout_ms", "60000 ms", "pack.toml:5:14:"),
        ("memory_bytes = 4294967297", "memory_bytes", "4294967296 bytes", "pack.toml:5:16:"),
        ("fuel = 1000000000001", "fuel", "1000000000000 units", "pack.toml:5:8:"),
    ] {
        let tmp = TempDir::new().unwrap();
        let pack = hostile_pack(
            tmp.path(),
            &format!("{extra}\nconfig = {{ mode = \"sleep\", sleep_ms = 1000000000000 }}"),
        );
        let o = spindle_within(
            &["check", &example("win2003-sector63"), "--pack", &pack],
            &shared_cache(),
            Duration::from_secs(60),
        );
        assert_eq!(o.status.code(), Some(2), "{field}: {}", String::from_utf8_lossy(&o.stderr));
        let err = stderr_text(&o);
        assert!(err.contains(at), "{field}: at its value in the pack: {err}");
        assert!(
            err.contains(&format!("plugin `hostile`: `{field}` ="))
                && err.contains(&format!("over spindle's cap of {cap}")),
            "{field}: {err}"
        );
        assert!(o.stdout.is_empty(), "{field}: no report");
    }
    // At the caps, a pack is fine (and the sleeping plugin is stopped at its deadline).
    let tmp = TempDir::new().unwrap();
    let pack = hostile_pack(
        tmp.path(),
        "timeout_ms = 500\nmemory_bytes = 4294967296\nconfig = { mode = \"sleep\", sleep_ms = 1000000000000 }",
    );
    let o = spindle_within(
        &["check", &example("win2003-sector63"), "--pack", &pack],
        &shared_cache(),
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stderr_text(&o).contains("timed out") || String::from_utf8_lossy(&o.stdout).contains("timed out")
    );
}
