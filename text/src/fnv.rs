//! FNV-1a, 64 bits: finding fingerprints and shard assignment, which must be stable across
//! runs and versions. Never the hasher of a map keyed by a snapshot's text: unseeded, it lets a
//! hostile file choose keys that collide (those maps use `fast_hash`, seeded per process).

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fold(OFFSET, bytes)
}

fn fold(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    }
    h
}
