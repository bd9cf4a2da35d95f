//! The pooling instance allocator: every call gets a fresh instance (nothing crosses hosts), and
//! the pool makes that cheap. Slots are reserved when the host is made; a memory is reset to its
//! module's initial image by copy-on-write and kept resident between calls, so instantiating and
//! dropping costs a few microseconds instead of mapping and unmapping memory on each call.

use wasmtime::{Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::limits::MAX_MEMORY_BYTES;

/// How many plugin calls may run at once, and the most linear memory any of them may grow to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pool {
    /// One per thread that checks hosts, and one for the thread that loads plugins.
    pub concurrent_calls: u32,
    /// The largest `memory_bytes` of the plugins the host will load (each call's own limit is
    /// still enforced, with its own error text, by the store's limiter).
    pub max_memory_bytes: u64,
}

impl Default for Pool {
    /// Room for every thread of this machine twice over, and the largest memory limit a pack may
    /// set: for hosts made before the packs are known (tests, `plugin inspect`).
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Pool {
            concurrent_calls: u32::try_from(threads * 2 + 2).unwrap_or(u32::MAX),
            max_memory_bytes: MAX_MEMORY_BYTES,
        }
    }
}

/// Core instances, memories and tables one plugin component may hold: a Rust component has a
/// few core instances (its module and the canonical ABI's shims) and one memory; components
/// from other toolchains (an interpreter and its libraries) have more.
const CORE_INSTANCES_PER_CALL: u32 = 64;
const MEMORIES_PER_CALL: u32 = 8;
const TABLES_PER_CALL: u32 = 64;

/// What stays resident of a memory slot between calls: a call's working set (the facts and the
/// rules' data) is rarely more, so most calls touch no page that must be faulted in again.
const KEEP_RESIDENT_BYTES: usize = 8 << 20;

impl Pool {
    pub(crate) fn strategy(&self) -> InstanceAllocationStrategy {
        let calls = self.concurrent_calls.max(1);
        let mut p = PoolingAllocationConfig::new();
        p.total_component_instances(calls)
            .total_core_instances(calls.saturating_mul(CORE_INSTANCES_PER_CALL))
            .total_memories(calls.saturating_mul(MEMORIES_PER_CALL))
            .total_tables(calls.saturating_mul(TABLES_PER_CALL))
            .total_stacks(calls)
            .max_memories_per_component(MEMORIES_PER_CALL)
            .max_tables_per_component(TABLES_PER_CALL)
            .max_core_instances_per_component(CORE_INSTANCES_PER_CALL)
            .max_memory_size(
                usize::try_from(self.max_memory_bytes.min(MAX_MEMORY_BYTES)).unwrap_or(usize::MAX),
            )
            .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
            .table_keep_resident(64 << 10)
            .pagemap_scan(Enabled::Auto);
        InstanceAllocationStrategy::Pooling(p)
    }
}
