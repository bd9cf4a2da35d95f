//! `Plugin`: a loaded, checked plugin, and its calls: each in a fresh store and instance, under
//! the limits, with its failures turned into a [`PluginError`] that says what happened.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Store, Trap};

use crate::bindings::v0_1::types as wit;
use crate::bindings::{v0_1, v0_2};
use crate::capture::escape_bounded;
use crate::error::{PluginError, PluginErrorKind as Kind};
use crate::limits::{EPOCH_TICK, LimitHit, Limits};
use crate::state::State;
use crate::types::{Captured, CheckOutput, PackInfo, RuleMeta};
use crate::validate::{self, MAX_TEXT_BYTES, text};

/// A plugin's linked component, ready to instantiate, by the contract version it was built
/// against.
pub(crate) enum Pre {
    V0_1(v0_1::PluginPre<State>),
    V0_2(v0_2::PluginPre<State>),
}

impl Pre {
    fn engine(&self) -> &wasmtime::Engine {
        match self {
            Pre::V0_1(p) => p.engine(),
            Pre::V0_2(p) => p.engine(),
        }
    }
}

/// A plugin ready to check hosts. Cheap to call from several threads at once: every call gets
/// its own store and instance (an instance that trapped is never reused).
pub struct Plugin {
    name: String,
    pack: String,
    path: PathBuf,
    pre: Pre,
    limits: Limits,
    wit_version: String,
    sha256: String,
    from_cache: bool,
    info: PackInfo,
    rules: Vec<RuleMeta>,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("name", &self.name)
            .field("pack", &self.pack)
            .field("path", &self.path)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Plugin {
    /// Calls `info` and `rules` and checks them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start(
        name: &str,
        pack: &str,
        path: &Path,
        pre: Pre,
        limits: Limits,
        wit_version: String,
        sha256: String,
        from_cache: bool,
    ) -> Result<Plugin, PluginError> {
        let mut plugin = Plugin {
            name: name.to_string(),
            pack: pack.to_string(),
            path: path.to_path_buf(),
            pre,
            limits,
            wit_version,
            sha256,
            from_cache,
            info: PackInfo { id: String::new(), version: String::new(), facts_schema_version: 0 },
            rules: Vec::new(),
        };
        let (info, captured, _) = plugin.call("info", |pre, s| match pre {
            Pre::V0_1(p) => p.instantiate(&mut *s)?.call_info(s),
            Pre::V0_2(p) => p.instantiate(&mut *s)?.call_info(s).map(crate::v0_2::pack_info),
        })?;
        plugin.info = validate::info(info).map_err(|m| plugin.error(Kind::Contract, m, captured))?;
        let ((rules, needs), captured, _) = plugin.call("rules", |pre, s| match pre {
            Pre::V0_1(p) => p.instantiate(&mut *s)?.call_rules(s).map(|r| (r, vec![])),
            Pre::V0_2(p) => p.instantiate(&mut *s)?.call_rules(s).map(crate::v0_2::rule_metas),
        })?;
        plugin.rules = validate::rules(rules).map_err(|m| plugin.error(Kind::Contract, m, captured))?;
        for (rule, needs) in plugin.rules.iter_mut().zip(needs) {
            rule.needs = needs;
        }
        Ok(plugin)
    }

    /// The plugin's name in its pack.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pack(&self) -> &str {
        &self.pack
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn info(&self) -> &PackInfo {
        &self.info
    }

    /// The rules the plugin declares, checked against the contract.
    pub fn rules(&self) -> &[RuleMeta] {
        &self.rules
    }

    /// The contract version the plugin was built against (`0.1.0`).
    pub fn wit_version(&self) -> &str {
        &self.wit_version
    }

    /// The sha256 of the plugin file, as 64 lowercase hex digits.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Whether the compiled code came from the cache.
    pub fn loaded_from_cache(&self) -> bool {
        self.from_cache
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Checks one host through contract 0.1.0: `facts_json` is its merged snapshot, `enabled` the
    /// codes to run (each one the plugin declared), `config_json` the `{"config", "params",
    /// "declared"}` object of the contract. The output is checked: only enabled codes, at most
    /// [`MAX_FINDINGS`](crate::MAX_FINDINGS) findings and [`MAX_OUTPUT_TEXT`](crate::MAX_OUTPUT_TEXT)
    /// bytes of text, control characters escaped. Entity keys are not checked against the facts.
    ///
    /// A 0.2.0 plugin gets the same facts and configuration as typed records (the facts read as
    /// the snapshot of one host).
    pub fn check(
        &self,
        facts_json: &str,
        enabled: &[String],
        config_json: &str,
    ) -> Result<CheckOutput, PluginError> {
        self.check_enabled(enabled)?;
        let pre = match &self.pre {
            Pre::V0_1(pre) => pre,
            Pre::V0_2(_) => {
                let (facts, config) = crate::v0_2::from_json(facts_json, enabled, config_json)
                    .map_err(|m| self.error(Kind::Host, m, Captured::default()))?;
                return self.check_v0_2(Arc::new(facts), &config);
            }
        };
        let (result, captured, elapsed) = self.call("check", |_, s| {
            pre.instantiate(&mut *s)?.call_check(s, facts_json, enabled, config_json)
        })?;
        self.checked(result.map(|o| (o, vec![])), enabled, captured, elapsed)
    }

    /// Checks one host through contract 0.2.0: `facts` are its facts (encoded once per host and
    /// shared by its plugins), `config` the typed configuration, whose rules are the codes to
    /// run. The output is checked as [`Plugin::check`]'s, and its quantities too.
    pub(crate) fn check_v0_2(
        &self,
        facts: Arc<v0_2::facts::HostFacts>,
        config: &v0_2::types::CheckConfig,
    ) -> Result<CheckOutput, PluginError> {
        let enabled: Vec<String> = config.rules.iter().map(|r| r.code.clone()).collect();
        self.check_enabled(&enabled)?;
        let Pre::V0_2(pre) = &self.pre else {
            return Err(self.wrong_contract("0.2.0"));
        };
        let (result, captured, elapsed) = self.call("check", |_, s| {
            s.data_mut().facts = Some(facts);
            pre.instantiate(&mut *s)?.call_check(s, config)
        })?;
        let result = match result {
            Ok(out) => match crate::v0_2::output(out) {
                Ok(converted) => Ok(converted),
                Err(m) => return Err(self.error(Kind::BadOutput, m, captured)),
            },
            Err(e) => Err(crate::v0_2::check_error(e)),
        };
        self.checked(result, &enabled, captured, elapsed)
    }

    fn check_enabled(&self, enabled: &[String]) -> Result<(), PluginError> {
        if let Some(bad) = enabled.iter().find(|c| !self.rules.iter().any(|r| &r.code == *c)) {
            return Err(self.error(
                Kind::Host,
                format!("spindle asked it to run `{bad}`, a rule it does not declare (a bug in spindle)"),
                Captured::default(),
            ));
        }
        Ok(())
    }

    fn wrong_contract(&self, asked: &str) -> PluginError {
        self.error(
            Kind::Host,
            format!(
                "spindle called it through contract {asked}, but it was built against {} (a bug in spindle)",
                self.wit_version
            ),
            Captured::default(),
        )
    }

    /// A `check`'s result, checked and converted.
    fn checked(
        &self,
        result: Result<(wit::CheckOutput, crate::v0_2::Quantities), wit::CheckError>,
        enabled: &[String],
        captured: Captured,
        elapsed: Duration,
    ) -> Result<CheckOutput, PluginError> {
        let (output, quantities) = match result {
            Ok(output) => output,
            Err(e) => {
                // The error goes into the report of every host: cut, not quoted whole.
                let message = match e {
                    wit::CheckError::BadFacts(m) => format!("it could not read the facts: {}", text(&m)),
                    wit::CheckError::BadConfig(m) => {
                        format!("it does not accept its configuration: {}", text(&m))
                    }
                    wit::CheckError::Failed(m) => format!("its check failed: {}", text(&m)),
                };
                return Err(self.error(Kind::CheckError, message, captured));
            }
        };
        let (mut findings, not_evaluated) = validate::output(output, &self.rules, enabled)
            .map_err(|m| self.error(Kind::BadOutput, m, captured.clone()))?;
        for (f, (measured, expected)) in findings.iter_mut().zip(quantities) {
            f.measured_quantity = measured;
            f.expected_quantity = expected;
        }
        Ok(CheckOutput { findings, not_evaluated, captured, elapsed })
    }

    /// Asks the plugin whether it accepts `config_json` (the pack's config table; for 0.1.0, the
    /// `{"config", "params", "declared"}` object of the contract), once, before any host: a
    /// `check` of a host with no facts and no rule enabled, which a plugin built with the SDK
    /// answers by validating its configuration and nothing else. `Err` is the plugin's
    /// `bad-config` message; any other outcome (a plugin not built with the SDK may well fail on
    /// such a host) is left to the checks of hosts.
    pub fn check_config(&self, config_json: &str) -> Result<(), String> {
        const NO_FACTS: &str = r#"{"schema_version": 1, "host": {"name": "spindle-config-check"}}"#;
        let answer = match &self.pre {
            Pre::V0_1(pre) => self
                .call("check", |_, s| pre.instantiate(&mut *s)?.call_check(s, NO_FACTS, &[], config_json))
                .ok()
                .map(|(r, _, _)| r.err()),
            Pre::V0_2(pre) => {
                let facts = Arc::new(crate::v0_2::facts::empty("spindle-config-check"));
                let config = crate::v0_2::check_config(vec![], None, vec![], config_json.to_string());
                self.call("check", |_, s| {
                    s.data_mut().facts = Some(facts);
                    pre.instantiate(&mut *s)?.call_check(s, &config)
                })
                .ok()
                .map(|(r, _, _)| r.err().map(crate::v0_2::check_error))
            }
        };
        match answer {
            Some(Some(wit::CheckError::BadConfig(m))) => Err(text(&m)),
            _ => Ok(()),
        }
    }

    pub(crate) fn error(&self, kind: Kind, message: String, captured: Captured) -> PluginError {
        PluginError::new(kind, &self.name, &self.pack, &self.path, message).with_captured(captured)
    }

    /// Runs `f` on a fresh instance in a fresh store with the plugin's limits.
    fn call<R>(
        &self,
        what: &str,
        f: impl FnOnce(&Pre, &mut Store<State>) -> wasmtime::Result<R>,
    ) -> Result<(R, Captured, Duration), PluginError> {
        let start = Instant::now();
        let mut store = Store::new(self.pre.engine(), State::new(&self.limits));
        store.limiter(|s| &mut s.limiter);
        // get_fuel fails when the engine meters no fuel: then there is none to set.
        if store.get_fuel().is_ok() {
            store.set_fuel(self.limits.fuel.unwrap_or(u64::MAX)).map_err(|e| {
                self.error(Kind::Host, format!("cannot set fuel: {}", error_text(&e)), Captured::default())
            })?;
        }
        store.set_epoch_deadline(self.limits.timeout_ms.div_ceil(EPOCH_TICK.as_millis() as u64).max(1));
        store.epoch_deadline_trap();
        let result = f(&self.pre, &mut store);
        let captured = store.data_mut().captured();
        let elapsed = start.elapsed();
        match result {
            // Epochs stop wasm code, not a guest that sleeps in the host until just past its
            // deadline and returns without running another check: what it returns that late is
            // not trusted, whatever it is.
            Ok(_) if elapsed > self.limits.timeout() => Err(self.error(
                Kind::Timeout,
                format!(
                    "`{what}` timed out: it ran past the {} ms limit (it returned after {} ms)",
                    self.limits.timeout_ms,
                    elapsed.as_millis()
                ),
                captured,
            )),
            Ok(r) => Ok((r, captured, elapsed)),
            Err(e) => {
                let (kind, message) = self.describe_failure(what, &e, store.data().limiter.hit, &captured);
                Err(self.error(kind, message, captured))
            }
        }
    }

    /// What a failed call did, in plain words.
    fn describe_failure(
        &self,
        what: &str,
        e: &wasmtime::Error,
        hit: Option<LimitHit>,
        captured: &Captured,
    ) -> (Kind, String) {
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        match hit {
            Some(LimitHit::Memory { desired }) => {
                return (
                    Kind::Memory,
                    format!(
                        "`{what}` exceeded the plugin's memory limit of {:.0} MiB (it tried to grow \
                         its memory to {:.1} MiB)",
                        mib(self.limits.memory_bytes),
                        mib(desired as u64)
                    ),
                );
            }
            Some(LimitHit::Table { desired }) => {
                return (Kind::Memory, format!("`{what}` tried to grow a table to {desired} elements"));
            }
            None => {}
        }
        if let Some(trap) = e.downcast_ref::<Trap>() {
            return match trap {
                Trap::Interrupt => (
                    Kind::Timeout,
                    format!("`{what}` timed out: it ran past the {} ms limit", self.limits.timeout_ms),
                ),
                Trap::OutOfFuel => (
                    Kind::OutOfFuel,
                    format!(
                        "`{what}` ran out of fuel: it used all {} units",
                        self.limits.fuel.unwrap_or(u64::MAX)
                    ),
                ),
                Trap::StackOverflow => {
                    (Kind::Trap, format!("`{what}` overflowed its stack (unbounded recursion?)"))
                }
                // Rust keeps its stack in linear memory, below the data: overflowing it is an
                // access out of bounds more often than a wasm stack overflow.
                Trap::MemoryOutOfBounds => (
                    Kind::Trap,
                    format!(
                        "`{what}` trapped on an out-of-bounds memory access (what a Rust plugin does \
                         when it overflows its stack: unbounded recursion?)"
                    ),
                ),
                Trap::UnreachableCodeReached if captured.stderr.contains("panicked") => {
                    (Kind::Trap, format!("`{what}` panicked (its message is in its stderr below)"))
                }
                t => (Kind::Trap, format!("`{what}` trapped: {t}")),
            };
        }
        if let Some(exit) = e.downcast_ref::<wasmtime_wasi::I32Exit>() {
            return (
                Kind::Trap,
                format!("`{what}` called exit({}); a plugin returns a check-error instead", exit.0),
            );
        }
        (Kind::Trap, format!("`{what}` failed: {}", error_text(e)))
    }
}

/// A wasmtime error as one line: its causes joined with `: `, without the wasm backtrace.
pub(crate) fn error_text(e: &wasmtime::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        let first = s.lines().next().unwrap_or("").trim().to_string();
        if first.is_empty() || first.starts_with("error while executing at wasm backtrace") {
            continue;
        }
        if !parts.iter().any(|p| p == &first) {
            parts.push(first);
        }
    }
    // Some causes quote the guest (a trap's message, an exit code's context).
    escape_bounded(&parts.join(": "), MAX_TEXT_BYTES)
}
