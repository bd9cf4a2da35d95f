//! Per-call limits on a plugin: memory, wall time, fuel, each with a cap; and the store's
//! resource limiter.

use std::time::Duration;

use wasmtime::ResourceLimiter;

/// How often the engine's epoch advances: a call's timeout is honoured within this.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// A plugin's linear memory, unless the pack says otherwise.
pub const DEFAULT_MEMORY_BYTES: u64 = 64 << 20;
/// A plugin call's wall time, instantiation included, unless the pack says otherwise.
pub const DEFAULT_TIMEOUT_MS: u64 = 2000;

/// The longest wall time a pack may give a call: a plugin checks one host's facts, which takes
/// milliseconds; a minute is room for a slow machine, and anything longer is a hang in a nightly
/// run (or a fleet's: one call per host).
pub const MAX_TIMEOUT_MS: u64 = 60_000;
/// The most memory a pack may give a plugin: 4 GiB, all a 32-bit wasm memory can address.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;
/// The most fuel a pack may give a call: about 10^12 wasm instructions, several times what a
/// call can execute within [`MAX_TIMEOUT_MS`], so the cap never binds before the timeout does.
pub const MAX_FUEL: u64 = 1_000_000_000_000;

/// Elements of one table; Rust guests' tables hold a few thousand function pointers.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;
/// Core instances, tables and memories per store; a WASI component has a handful of each.
const MAX_INSTANCES: usize = 1000;
const MAX_TABLES: usize = 1000;
const MAX_MEMORIES: usize = 100;

/// What one plugin call may use. Every call (including `info` and `rules` at load) gets a fresh
/// instance with these limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Linear memory, in bytes: growing a memory past it traps the call. The bound is per memory;
    /// a Rust plugin has one (a component may have a few, at most 100).
    pub memory_bytes: u64,
    /// Wall time of a call, in milliseconds (measured by epochs: within 10 ms).
    pub timeout_ms: u64,
    /// Fuel (about one unit per wasm instruction); `None`: no fuel limit.
    pub fuel: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { memory_bytes: DEFAULT_MEMORY_BYTES, timeout_ms: DEFAULT_TIMEOUT_MS, fuel: None }
    }
}

/// One of the [`Limits`], named as a pack names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitField {
    MemoryBytes,
    TimeoutMs,
    Fuel,
}

impl LimitField {
    /// The pack's key (`timeout_ms`).
    pub fn as_str(self) -> &'static str {
        match self {
            LimitField::MemoryBytes => "memory_bytes",
            LimitField::TimeoutMs => "timeout_ms",
            LimitField::Fuel => "fuel",
        }
    }
}

impl Limits {
    /// The wall time of a call.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// The first limit over its cap ([`MAX_MEMORY_BYTES`], [`MAX_TIMEOUT_MS`], [`MAX_FUEL`]),
    /// with a sentence saying so.
    pub fn over_cap(&self) -> Option<(LimitField, String)> {
        let over = |field: LimitField, value: u64, cap: u64, unit: &str| {
            (value > cap).then(|| {
                (
                    field,
                    format!(
                        "`{}` = {value} is over spindle's cap of {cap}{unit} per plugin call",
                        field.as_str()
                    ),
                )
            })
        };
        over(LimitField::TimeoutMs, self.timeout_ms, MAX_TIMEOUT_MS, " ms")
            .or_else(|| over(LimitField::MemoryBytes, self.memory_bytes, MAX_MEMORY_BYTES, " bytes (4 GiB)"))
            .or_else(|| self.fuel.and_then(|f| over(LimitField::Fuel, f, MAX_FUEL, " units")))
    }
}

/// Which limit a call hit, recorded by the limiter so the error can say so plainly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitHit {
    Memory { desired: usize },
    Table { desired: usize },
}

/// The store's resource limiter. Like `StoreLimits` with `trap_on_grow_failure`, but it records
/// which limit was hit instead of leaving the caller to parse the trap's text.
#[derive(Debug)]
pub(crate) struct Limiter {
    memory_bytes: usize,
    pub hit: Option<LimitHit>,
}

impl Limiter {
    pub fn new(limits: &Limits) -> Self {
        Limiter { memory_bytes: usize::try_from(limits.memory_bytes).unwrap_or(usize::MAX), hit: None }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.hit = Some(LimitHit::Memory { desired });
            wasmtime::bail!("memory limit: growing to {desired} bytes, over {} bytes", self.memory_bytes);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.hit = Some(LimitHit::Table { desired });
            wasmtime::bail!("table limit: growing to {desired} elements, over {MAX_TABLE_ELEMENTS}");
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }
}
