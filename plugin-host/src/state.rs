//! The data of one call's `Store`: a WASI context that grants nothing, the limiter, the captured
//! output.

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::{PluginImports, types as wit};
use crate::capture::{LogSink, PIPE_TAIL_BYTES, TailPipe};
use crate::clock::CallClock;
use crate::limits::{Limiter, Limits};
use crate::types::Captured;

/// Host resources (streams, pollables) a call may hold at once; a plugin that leaks them in a
/// loop gets an error instead of the host's memory.
const MAX_HOST_RESOURCES: usize = 10_000;

pub(crate) struct State {
    wasi: WasiCtx,
    table: ResourceTable,
    pub limiter: Limiter,
    pub log: LogSink,
    pub clock: CallClock,
    stdout: TailPipe,
    stderr: TailPipe,
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
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        let mut table = ResourceTable::new();
        table.set_max_capacity(MAX_HOST_RESOURCES);
        State { wasi, table, limiter: Limiter::new(limits), log: LogSink::default(), clock, stdout, stderr }
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
