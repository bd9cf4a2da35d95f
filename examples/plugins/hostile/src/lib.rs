//! A plugin that misbehaves on request, to test spindle's sandbox and limits. Never use it in a
//! real pack.
//!
//! Its one rule, HST001, does what the pack's `config.mode` says:
//!
//! | mode | behaviour | what the host should do |
//! |---|---|---|
//! | `ok` (default) | one finding on the host entity | report it |
//! | `loop` | loops forever | stop it (fuel or epoch deadline), report the plugin failed |
//! | `alloc` | allocates and touches 1 GiB | refuse the memory (limit), report failed |
//! | `recurse` | recurses without end | trap on stack overflow, report failed |
//! | `panic` | panics | trap, report failed with the panic message if it has one |
//! | `file` | reads `/etc/passwd`; a finding with its first line if that worked | no finding: no preopened directory |
//! | `env` | reads the environment; a finding naming the variables if there are any | no finding: empty environment |
//! | `socket` | connects to 127.0.0.1:9; a finding if that worked | no finding: no network |
//! | `undeclared` | a finding with code XXX999 | refuse the finding (or the plugin's output) |
//! | `flood` | 1,000 findings with 100 MB of message text (`config.flood_bytes`) | bound what it accepts, report failed |
//! | `bad-entity` | a finding on an entity key the facts do not have | refuse the finding |
//! | `log` | 10,000 log lines of 10,000 characters, then the `ok` finding | bound the log, keep the finding |
//! | `sleep` | sleeps `config.sleep_ms` (10 s) in one host call, then returns no finding | a timeout once past the deadline, even though it returned |
//! | `long-field` | a finding whose `field` has `config.field_segments` (200,000) segments | refuse the field, fast |
//! | `big-error` | a `bad-config` check-error of `config.error_bytes` (50 MB) | report it truncated |
//! | `entropy` | a finding with the wall clock and a hash seeded from `wasi:random` | the same finding every call: a fixed clock and random stream |
//!
//! Failures to escape the sandbox are logged (`warn`), so a test can see the attempt was made.

use serde::Deserialize;
use spindle_plugin_sdk::{
    BuiltinRule, Ctx, NoParams, RulePack, config, declare_rule, export_pack, log, serde_json,
};

/// The modes `config.mode` accepts.
pub const MODES: &[&str] = &[
    "ok",
    "loop",
    "alloc",
    "recurse",
    "panic",
    "file",
    "env",
    "socket",
    "undeclared",
    "flood",
    "bad-entity",
    "log",
    "sleep",
    "long-field",
    "big-error",
    "entropy",
];

#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct HostileConfig {
    mode: String,
    /// `flood`: bytes of message text in all (100 MB by default); lower it to stay under the
    /// memory limit and reach the host's bound on output instead.
    flood_bytes: u64,
    /// `sleep`: how long the one sleep lasts.
    sleep_ms: u64,
    /// `long-field`: segments of the finding's field pointer.
    field_segments: u64,
    /// `big-error`: bytes of the check-error's text.
    error_bytes: u64,
}

impl Default for HostileConfig {
    fn default() -> Self {
        HostileConfig {
            mode: "ok".into(),
            flood_bytes: 100_000_000,
            sleep_ms: 10_000,
            field_segments: 200_000,
            error_bytes: 50_000_000,
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// Nothing: it misbehaves as the pack's `config.mode` says (`ok`, `loop`, `alloc`, `recurse`,
    /// `panic`, `file`, `env`, `socket`, `undeclared`, `flood`, `bad-entity`, `log`, `sleep`,
    /// `long-field`, `big-error`).
    ///
    /// ## Why it matters
    /// spindle runs plugins it did not write: their misbehaviour must cost a bounded amount of
    /// time, memory and output, and they must see nothing of the machine but the facts.
    ///
    /// ## How to fix
    /// Remove the hostile plugin from the pack.
    ///
    /// ## References
    /// - spindle's plugin contract, `plugins-sdk/wit/0.1.0/plugin.wit`.
    pub static HOSTILE = {
        code: "HST001",
        name: "hostile",
        severity: Warning,
        summary: "Misbehaves as configured, to test the plugin sandbox",
        needs: [],
        params: [],
        check: check,
    }
}

pub struct Hostile;

impl RulePack for Hostile {
    const ID: &'static str = "hostile";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn rules() -> Vec<&'static BuiltinRule> {
        vec![&HOSTILE]
    }

    fn validate_config(c: &serde_json::Value) -> Result<(), String> {
        let c: HostileConfig = config::parse_value(c)?;
        if c.mode == "big-error" {
            // A check-error is the one text a plugin hands over that no finding bounds: the
            // config's refusal is the way the SDK returns one.
            return Err("E".repeat(c.error_bytes as usize));
        }
        if MODES.contains(&c.mode.as_str()) {
            Ok(())
        } else {
            Err(format!("mode \"{}\" is not one of {}", c.mode, MODES.join(", ")))
        }
    }
}

export_pack!(Hostile);

fn check(cx: &mut Ctx<'_, NoParams>) {
    let HostileConfig { mode, flood_bytes, sleep_ms, field_segments, .. } =
        config::parse().expect("validated");
    let host = &cx.view.host;
    match mode.as_str() {
        "ok" => {
            cx.report(host, "", "the hostile plugin behaved");
        }
        "loop" => {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        "alloc" => {
            let mut v: Vec<u8> = Vec::new();
            // Grow page by page so the memory is really asked for, not lazily zeroed.
            for _ in 0..(1usize << 30) / 65536 {
                v.extend(std::iter::repeat_n(1u8, 65536));
            }
            let touched = v.iter().step_by(4096).map(|&b| b as u64).sum::<u64>();
            cx.report(host, "", format!("allocated and touched 1 GiB ({touched} pages)"));
        }
        "recurse" => {
            let depth = recurse(std::hint::black_box(0));
            cx.report(host, "", format!("recursion returned at depth {depth}"));
        }
        "panic" => panic!("hostile plugin panics on purpose (mode \"panic\")"),
        "file" => match std::fs::read_to_string("/etc/passwd") {
            Ok(text) => {
                let first = text.lines().next().unwrap_or("").to_string();
                cx.report(host, "", format!("read /etc/passwd: {first}"));
            }
            Err(e) => log::warn(format!("file: reading /etc/passwd failed: {e}")),
        },
        "env" => {
            let vars: Vec<String> = std::env::vars().map(|(k, _)| k).collect();
            if vars.is_empty() {
                log::warn("env: the environment is empty");
            } else {
                cx.report(
                    host,
                    "",
                    format!("read {} environment variables: {}", vars.len(), vars.join(", ")),
                );
            }
        }
        "socket" => match std::net::TcpStream::connect("127.0.0.1:9") {
            Ok(_) => {
                cx.report(host, "", "connected to 127.0.0.1:9");
            }
            Err(e) => log::warn(format!("socket: connecting to 127.0.0.1:9 failed: {e}")),
        },
        "undeclared" => {
            cx.report(host, "", "a finding with a code the plugin never declared").code = "XXX999".into();
        }
        "flood" => {
            // 1,000 findings sharing `flood_bytes` of text (100,000 characters each by default).
            let text = "flood ".repeat((flood_bytes / 1000 / 6) as usize);
            for i in 0..1000 {
                cx.report(host, "", format!("{i:04} {text}"));
            }
        }
        "bad-entity" => {
            let key = format!("{}/disk:no-such-disk", host.key);
            cx.report(host, "", "a finding on an entity the facts do not have").entity.key = key;
        }
        "log" => {
            let line = "x".repeat(10_000);
            for i in 0..10_000 {
                log::info(format!("{i:05} {line}"));
            }
            cx.report(host, "", "the hostile plugin logged 10,000 lines");
        }
        "sleep" => {
            // One sleep and straight back: no loop for an epoch check to stop.
            std::thread::sleep(std::time::Duration::from_millis(sleep_ms));
        }
        "entropy" => {
            // What a plugin would read to make its findings differ from run to run.
            use std::hash::BuildHasher;
            let secs =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            let hashed = std::collections::hash_map::RandomState::new().hash_one("spindle");
            cx.report(host, "", format!("wall clock {secs} s, hash seed {hashed:016x}"));
        }
        "long-field" => {
            let field = vec!["x"; field_segments as usize].join("/");
            cx.report(host, &field, "a finding whose field is a very long pointer");
        }
        other => unreachable!("mode {other} passed validate_config"),
    }
}

/// Recurses until the stack runs out; the frame holds an array so it cannot become a loop.
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 32]);
    if std::hint::black_box(depth) == u64::MAX {
        return 0;
    }
    recurse(depth + 1).wrapping_add(frame[(depth % 32) as usize])
}

#[cfg(test)]
mod tests {
    use spindle_plugin_sdk::serde_json::json;
    use spindle_plugin_sdk::testing::{problems, run};
    use spindle_plugin_sdk::wit;

    use super::Hostile;

    const FACTS: &str = r#"{"schema_version": 1, "host": {"name": "h"}}"#;

    #[test]
    fn pack_is_well_formed() {
        assert_eq!(problems::<Hostile>(), Vec::<String>::new());
    }

    /// The modes that end by themselves natively (no sandbox here: `file` and `env` may well
    /// succeed outside the component).
    #[test]
    fn harmless_modes() {
        let out = run::<Hostile>(FACTS, json!(null)).unwrap();
        assert_eq!((out.findings[0].code.as_str(), out.findings[0].entity.as_str()), ("HST001", "h"));
        let out = run::<Hostile>(FACTS, json!({"mode": "undeclared"})).unwrap();
        assert_eq!(out.findings[0].code, "XXX999");
        let out = run::<Hostile>(FACTS, json!({"mode": "bad-entity"})).unwrap();
        assert_eq!(out.findings[0].entity, "h/disk:no-such-disk");
        let out = run::<Hostile>(FACTS, json!({"mode": "long-field", "field_segments": 3})).unwrap();
        assert_eq!(out.findings[0].field.as_deref(), Some("x/x/x"));
        let out = run::<Hostile>(FACTS, json!({"mode": "sleep", "sleep_ms": 1})).unwrap();
        assert!(out.findings.is_empty());
        match run::<Hostile>(FACTS, json!({"mode": "big-error", "error_bytes": 5})) {
            Err(wit::CheckError::BadConfig(m)) => assert!(m.ends_with(": EEEEE"), "{m}"),
            other => panic!("{other:?}"),
        }
        match run::<Hostile>(FACTS, json!({"mode": "lop"})) {
            Err(wit::CheckError::BadConfig(m)) => {
                assert!(m.contains("mode \"lop\" is not one of ok, loop"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }

    /// Natively the engine contains the panic and `check` says `failed` with its message; in the
    /// component the panic aborts (traps) and spindle reports the same message from stderr.
    #[test]
    fn a_panic_fails_the_check_with_its_message() {
        match run::<Hostile>(FACTS, json!({"mode": "panic"})) {
            Err(wit::CheckError::Failed(m)) => {
                assert!(m.contains("hostile plugin panics on purpose (mode \"panic\")"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
