//! Sleeping bounded by the call's deadline.
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
use wasmtime_wasi::HostMonotonicClock;
use wasmtime_wasi::p2::{DynPollable, Pollable, subscribe};

use crate::state::State;

/// The WASI clocks interface wasmtime-wasi 48 defines (guests' 0.2.x imports resolve to it).
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";
/// A capped sleep ends this long after the deadline, so the epoch has surely passed it.
const SLACK: Duration = Duration::from_millis(20);

/// The call's monotonic clock: nanoseconds since the store was created.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallClock {
    pub start: Instant,
    pub deadline: Instant,
}

impl CallClock {
    pub fn new(timeout: Duration) -> Self {
        let start = Instant::now();
        CallClock { start, deadline: start + timeout }
    }

    fn capped(&self, until: Option<Instant>) -> Instant {
        let cap = self.deadline + SLACK;
        until.map_or(cap, |u| u.min(cap))
    }
}

impl HostMonotonicClock for CallClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_ends_soon_after_the_deadline() {
        let c = CallClock::new(Duration::from_millis(100));
        let cap = c.deadline + SLACK;
        assert_eq!(c.capped(Instant::now().checked_add(Duration::from_secs(3600))), cap);
        assert_eq!(c.capped(None), cap, "a sleep past the end of time");
        let soon = Instant::now() + Duration::from_millis(5);
        assert_eq!(c.capped(Some(soon)), soon, "a short sleep is kept");
        assert!(c.now() < 100_000_000);
    }
}
