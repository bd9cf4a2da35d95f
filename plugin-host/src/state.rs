//! The data of one call's `Store`: a WASI context that grants nothing, the limiter, the captured
//! output.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::v0_1::{PluginImports, types as wit};
use crate::bindings::v0_2::facts::HostFacts;
use crate::capture::{LogSink, PIPE_TAIL_BYTES, TailPipe};
use crate::clock::CallClock;
use crate::limits::{Limiter, Limits};
use crate::types::Captured;

/// Host resources (streams, pollables) a call may hold at once; a plugin that leaks them in a
/// loop gets an error instead of the host's memory.
const MAX_HOST_RESOURCES: usize = 10_000;

/// What `wasi:random` returns, over and over: fixed, not zeros (a guest may loop until it draws a
/// non-zero seed).
const RANDOM_BYTES: [u8; 32] = [
    0x3a, 0x91, 0x5c, 0xe7, 0x12, 0x8f, 0x64, 0xd3, 0xa8, 0x2b, 0x70, 0xf5, 0x49, 0xc6, 0x1d, 0x86, 0x5e,
    0xb4, 0x07, 0x9a, 0xe1, 0x33, 0x68, 0xcf, 0x25, 0x7b, 0xd0, 0x4e, 0x97, 0x1a, 0xbc, 0x62,
];

/// `wasi:clocks/wall-clock`, stopped at 2000-01-01T00:00:00Z: a rule that read the date would
/// give findings that change from run to run.
struct FixedWallClock;

impl wasmtime_wasi::HostWallClock for FixedWallClock {
    fn resolution(&self) -> std::time::Duration {
        std::time::Duration::from_secs(1)
    }

    fn now(&self) -> std::time::Duration {
        std::time::Duration::from_secs(946_684_800)
    }
}

pub(crate) struct State {
    wasi: WasiCtx,
    table: ResourceTable,
    pub limiter: Limiter,
    pub log: LogSink,
    pub clock: CallClock,
    stdout: TailPipe,
    stderr: TailPipe,
    /// The host a 0.2.0 `check` is about, for its `facts.get`.
    pub facts: Option<Arc<HostFacts>>,
}

impl State {
    pub fn new(limits: &Limits) -> Self {
        let stdout = TailPipe::new(PIPE_TAIL_BYTES);
        let stderr = TailPipe::new(PIPE_TAIL_BYTES);
        let clock = CallClock::new(limits.timeout());
        // A fresh builder inherits nothing: no preopened directories, no environment, no
        // arguments, stdin empty. Sockets are refused (the builder's address check already
        // refuses every address; the switches say it again).
        let wasi = WasiCtx::builder()
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .monotonic_clock(clock)
            // Deterministic: the same facts give the same findings whatever the run, the thread
            // or the time of day. A plugin has no use for entropy or the date; a guest runtime
            // that seeds hash tables from them gets these fixed values.
            .wall_clock(FixedWallClock)
            .secure_random(wasmtime_wasi::Deterministic::new(RANDOM_BYTES.to_vec()))
            .insecure_random(wasmtime_wasi::Deterministic::new(RANDOM_BYTES.to_vec()))
            .insecure_random_seed(u128::from_le_bytes(RANDOM_BYTES[..16].try_into().unwrap_or_default()))
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        let mut table = ResourceTable::new();
        table.set_max_capacity(MAX_HOST_RESOURCES);
        State {
            wasi,
            table,
            limiter: Limiter::new(limits),
            log: LogSink::default(),
            clock,
            stdout,
            stderr,
            facts: None,
        }
    }

    pub fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
    }

    /// What the plugin wrote during the call.
    pub fn captured(&mut self) -> Captured {
        let (stderr, stderr_dropped) = self.stderr.contents();
        let (stdout, _) = self.stdout.contents();
        Captured {
            log: std::mem::take(&mut self.log.lines),
            log_dropped: self.log.dropped,
            stderr,
            stderr_dropped,
            stdout,
        }
    }
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl wit::Host for State {}

impl PluginImports for State {
    fn log(&mut self, level: wit::LogLevel, message: String) {
        self.log.push(level.into(), &message);
    }
}
