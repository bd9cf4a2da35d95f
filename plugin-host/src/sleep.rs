//! Sleeping bounded by the call's deadline: WASI's `subscribe-duration` and `subscribe-instant`
//! replaced with pollables ready at [`CallClock::capped`](crate::clock::CallClock::capped).
//!
//! Epoch interruption stops wasm code, not a host call it is blocked in, and a WASI guest sleeps
//! in the host (`monotonic-clock.subscribe-*`, then `poll`): `std::thread::sleep(1 hour)` would
//! hold spindle for an hour. The host therefore replaces the two subscribe functions with ones
//! whose pollable is ready at the requested time or shortly after the call's deadline, whichever
//! comes first; back in wasm past its deadline, the guest is stopped by the epoch check. A guest
//! that returns from the sleep without reaching an epoch check (none on the way out, or the
//! ticker late on a busy machine) is still past its deadline when the call ends, and `call`
//! reports that as a timeout whatever the guest returned.

use std::time::{Duration, Instant};

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};

use crate::state::State;

/// The WASI clocks interface wasmtime-wasi 48 defines (guests' 0.2.x imports resolve to it).
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// A pollable ready at an instant.
struct SleepUntil(Instant);

#[wasmtime_wasi::async_trait]
impl Pollable for SleepUntil {
    async fn ready(&mut self) {
        tokio::time::sleep_until(self.0.into()).await;
    }
}

fn sleep(
    store: &mut StoreContextMut<'_, State>,
    until: Option<Instant>,
) -> wasmtime::Result<Resource<DynPollable>> {
    let state = store.data_mut();
    let until = state.clock.capped(until);
    let table = state.table();
    let sleep = table.push(SleepUntil(until))?;
    subscribe(table, sleep)
}

/// Replaces `subscribe-duration` and `subscribe-instant` in a linker that has WASI already.
pub(crate) fn add_to_linker(linker: &mut Linker<State>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut clock = linker.instance(MONOTONIC_CLOCK)?;
    clock.func_wrap("subscribe-duration", |mut store: StoreContextMut<'_, State>, (ns,): (u64,)| {
        let until = Instant::now().checked_add(Duration::from_nanos(ns));
        Ok((sleep(&mut store, until)?,))
    })?;
    clock.func_wrap("subscribe-instant", |mut store: StoreContextMut<'_, State>, (when,): (u64,)| {
        let start = store.data().clock.start;
        let until = start.checked_add(Duration::from_nanos(when));
        Ok((sleep(&mut store, until)?,))
    })?;
    linker.allow_shadowing(false);
    Ok(())
}
