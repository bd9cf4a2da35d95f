//! The call's monotonic clock, and the deadline a sleep is capped at.
//!
//! Epoch interruption stops wasm code, not a host call it is blocked in, and a WASI guest sleeps
//! in the host (`monotonic-clock.subscribe-*`, then `poll`): `std::thread::sleep(1 hour)` would
//! hold spindle for an hour. So every sleep ends at the requested time or shortly after the
//! call's deadline, whichever comes first ([`CallClock::capped`]); `sleep` puts that in the
//! guest's clock interface.

use std::time::{Duration, Instant};

use wasmtime_wasi::HostMonotonicClock;

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

    /// When a sleep until `until` (`None`: past the end of time) ends.
    pub fn capped(&self, until: Option<Instant>) -> Instant {
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
