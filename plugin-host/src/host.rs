//! `PluginHost`: the engine, the linker, the epoch ticker and the compiled-code cache, one per
//! process; `load` turns a plugin file into a checked, ready-to-call [`Plugin`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, OptLevel};

use crate::bindings::{v0_1, v0_2};
use crate::cache::{self, CodeCache};
use crate::call::{Plugin, Pre, error_text};
use crate::error::{PluginError, PluginErrorKind as Kind};
use crate::limits::EPOCH_TICK;
use crate::limits::Limits;
use crate::pool::Pool;
use crate::state::State;
use crate::wasm_file::{self, FileError};
use crate::{WIT_PACKAGE, WIT_VERSIONS, sleep};

/// Runs wasm rule plugins. Create one per process (it owns a compiler and a ticker thread) and
/// load every plugin through it.
pub struct PluginHost {
    engine: Engine,
    linker: Linker<State>,
    cache: CodeCache,
    fingerprint: [u8; 32],
    compiled: AtomicUsize,
    /// Fuel metering is compiled in.
    fuel: bool,
    _ticker: Ticker,
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until dropped.
struct Ticker {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new().name("spindle-plugin-epoch".into()).spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EPOCH_TICK) {
                engine.increment_epoch();
            }
        })?;
        Ok(Ticker { stop: Some(stop), thread: Some(thread) })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl PluginHost {
    /// A host caching compiled plugins in the default directory (see [`cache::default_dir`]).
    pub fn new() -> Result<Self, PluginError> {
        Self::with_cache_dir(cache::default_dir())
    }

    /// A host caching compiled plugins in `dir`; `None`: no cache, compile on every load. Fuel
    /// metering is on, so packs may set a fuel limit.
    pub fn with_cache_dir(dir: Option<PathBuf>) -> Result<Self, PluginError> {
        Self::with_options(dir, true)
    }

    /// Like [`PluginHost::with_cache_dir`]; `fuel: false` leaves fuel metering out of the
    /// compiled code (about a tenth of a plugin's run time), for runs where no pack sets a fuel
    /// limit. Compiled code differs with and without it: each has its own cache entry.
    pub fn with_options(dir: Option<PathBuf>, fuel: bool) -> Result<Self, PluginError> {
        Self::with_pool(dir, fuel, Pool::default())
    }

    /// Like [`PluginHost::with_options`], with the instance pool sized for `pool`: as many calls
    /// at once as the run has threads, and memory slots as large as its plugins' largest limit.
    pub fn with_pool(dir: Option<PathBuf>, fuel: bool, pool: Pool) -> Result<Self, PluginError> {
        let fail = |what: &str, e: wasmtime::Error| {
            PluginError::new(Kind::Host, "", "", "", format!("{what}: {}", error_text(&e)))
        };
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(true);
        // With fuel on, a call without a limit gets u64::MAX fuel.
        config.consume_fuel(fuel);
        config.cranelift_opt_level(OptLevel::Speed);
        config.parallel_compilation(true);
        config.allocation_strategy(pool.strategy());
        let engine = Engine::new(&config).map_err(|e| fail("cannot create the wasm engine", e))?;

        let mut linker = Linker::<State>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|e| fail("cannot link WASI", e))?;
        sleep::add_to_linker(&mut linker).map_err(|e| fail("cannot link the bounded clock", e))?;
        v0_1::Plugin::add_to_linker::<State, wasmtime::component::HasSelf<State>>(&mut linker, |s| s)
            .map_err(|e| fail("cannot link the plugin imports", e))?;
        crate::v0_2::add_to_linker(&mut linker)
            .map_err(|e| fail("cannot link the 0.2.0 plugin imports", e))?;

        let ticker = Ticker::start(engine.clone()).map_err(|e| {
            PluginError::new(Kind::Host, "", "", "", format!("cannot start the plugin timer thread: {e}"))
        })?;
        let fingerprint = cache::engine_fingerprint(&engine);
        Ok(PluginHost {
            engine,
            linker,
            cache: CodeCache::new(dir),
            fingerprint,
            compiled: AtomicUsize::new(0),
            fuel,
            _ticker: ticker,
        })
    }

    /// Where compiled plugins are cached, if anywhere.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache.dir()
    }

    /// How many plugins this host compiled (rather than loaded from the cache).
    pub fn compiled_count(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// The cache file a wasm file with this sha256 compiles to (it may not exist).
    pub fn cache_entry(&self, wasm_sha256: &[u8; 32]) -> Option<PathBuf> {
        self.cache.entry_path(&cache::key(wasm_sha256, &self.fingerprint))
    }

    /// Loads the plugin `name` of pack `pack` from `path`: refuses a file over the size cap, one
    /// whose sha256 is not `sha256` (when given), one that is not a component of an accepted
    /// contract version; compiles it (or loads it from the cache); calls `info` and `rules`
    /// under `limits` and checks them. The plugin's later calls run under the same limits.
    pub fn load(
        &self,
        name: &str,
        pack: &str,
        path: &Path,
        sha256: Option<&str>,
        limits: Limits,
    ) -> Result<Plugin, PluginError> {
        let err = |kind: Kind, message: String| PluginError::new(kind, name, pack, path, message);
        if let Some((_, why)) = limits.over_cap() {
            return Err(err(Kind::Host, why));
        }
        if limits.fuel.is_some() && !self.fuel {
            return Err(err(Kind::Host, "a fuel limit needs a plugin host with fuel metering".into()));
        }
        let file_err = |e: FileError| match e {
            FileError::Read(m) => err(Kind::Read, m),
            FileError::Digest(m) => err(Kind::Digest, m),
            FileError::NotWasm(m) => err(Kind::NotWasm, m),
        };
        let bytes = wasm_file::read(path).map_err(file_err)?;
        let digest = wasm_file::sha256(&bytes);
        if let Some(expected) = sha256 {
            wasm_file::check_digest(&digest, expected).map_err(file_err)?;
        }
        wasm_file::check_header(&bytes).map_err(file_err)?;

        let (component, from_cache) = self.compile(&bytes, &digest).map_err(|m| err(Kind::NotWasm, m))?;
        let wit_version = contract_version(&component, &self.engine).map_err(|m| err(Kind::Contract, m))?;
        let instance_pre = self.linker.instantiate_pre(&component).map_err(|e| {
            err(
                Kind::Contract,
                format!(
                    "it cannot be linked: {}. A plugin may import WASI 0.2 (it gets no files, \
                     environment or network) and spindle's `log`, nothing else",
                    error_text(&e)
                ),
            )
        })?;
        let not_exported = |e: wasmtime::Error| {
            err(
                Kind::Contract,
                format!(
                    "it does not export the functions of {WIT_PACKAGE}@{wit_version} (info, rules, \
                     check) with the contract's types: {}",
                    error_text(&e)
                ),
            )
        };
        let pre = match wit_version.as_str() {
            "0.1.0" => Pre::V0_1(v0_1::PluginPre::new(instance_pre).map_err(not_exported)?),
            _ => Pre::V0_2(v0_2::PluginPre::new(instance_pre).map_err(not_exported)?),
        };
        Plugin::start(name, pack, path, pre, limits, wit_version, cache::hex(&digest), from_cache)
    }

    /// The compiled component, from the cache or compiled now (and cached).
    fn compile(&self, bytes: &[u8], digest: &[u8; 32]) -> Result<(Component, bool), String> {
        let key = cache::key(digest, &self.fingerprint);
        if let Some(c) = self.cache.load(&self.engine, &key, digest) {
            return Ok((c, true));
        }
        let component = Component::from_binary(&self.engine, bytes)
            .map_err(|e| wasm_file::describe_compile_error(bytes, &error_text(&e)))?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Ok(serialized) = component.serialize() {
            // Best effort: a cache that cannot be written only costs the next run a compile.
            let _ = self.cache.store(&key, digest, &serialized);
        }
        Ok((component, false))
    }

    /// For tests of the cache's defences only: compiles `wasm` and caches it as the code of the
    /// plugin file whose sha256 is `claimed`, signed with the key of this host's cache directory
    /// (made if need be): the entry a user who owns that directory could plant. Returns the
    /// entry's path.
    #[doc(hidden)]
    pub fn plant_cache_entry(&self, claimed: &[u8; 32], wasm: &[u8]) -> Result<PathBuf, String> {
        let key = cache::key(claimed, &self.fingerprint);
        let component = Component::from_binary(&self.engine, wasm).map_err(|e| error_text(&e))?;
        let serialized = component.serialize().map_err(|e| error_text(&e))?;
        self.cache.store(&key, claimed, &serialized).map_err(|e| e.to_string())?;
        self.cache.entry_path(&key).ok_or_else(|| "this host has no cache directory".to_string())
    }
}

/// The contract version the component was built against, from the versions in its
/// `spindle:plugin/...@X` import and export names; an error unless it is one this host accepts.
pub(crate) fn contract_version(component: &Component, engine: &Engine) -> Result<String, String> {
    let ty = component.component_type();
    let prefix = format!("{WIT_PACKAGE}/");
    let mut versions = BTreeSet::new();
    let mut exports = Vec::new();
    for (name, _) in ty.exports(engine) {
        exports.push(name.to_string());
        if let Some(rest) = name.strip_prefix(&prefix) {
            versions.insert(rest.split_once('@').map_or("(no version)", |(_, v)| v).to_string());
        }
    }
    for (name, _) in ty.imports(engine) {
        if let Some(rest) = name.strip_prefix(&prefix) {
            versions.insert(rest.split_once('@').map_or("(no version)", |(_, v)| v).to_string());
        }
    }
    let accepted = WIT_VERSIONS.join(", ");
    match versions.len() {
        0 => Err(format!(
            "it is a WebAssembly component but not a spindle plugin: it uses no {WIT_PACKAGE} \
             interface (it exports: {})",
            if exports.is_empty() { "nothing".to_string() } else { exports.join(", ") }
        )),
        1 => {
            let v = versions.pop_first().unwrap_or_default();
            if WIT_VERSIONS.contains(&v.as_str()) {
                Ok(v)
            } else {
                Err(format!(
                    "it was built against the plugin contract {WIT_PACKAGE}@{v}; this spindle \
                     runs plugins of contract {accepted} (rebuild the plugin with a matching SDK, \
                     or use a spindle that accepts {v})"
                ))
            }
        }
        _ => Err(format!(
            "it mixes plugin contract versions ({}); this spindle runs plugins of contract {accepted}",
            versions.into_iter().collect::<Vec<_>>().join(", ")
        )),
    }
}

#[allow(dead_code)]
fn assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<PluginHost>();
    is::<Plugin>();
}
