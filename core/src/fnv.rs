//! FNV-1a, 64 bits: finding fingerprints (stable across runs and versions) and the hasher of
//! the per-file pointer index (short keys from the file itself, where SipHash cost more than
//! the look-ups it served).

use std::hash::{BuildHasherDefault, Hasher};

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

/// FNV-1a as a [`Hasher`], for maps keyed by the text's own strings.
pub(crate) struct FnvHasher(u64);

impl Default for FnvHasher {
    fn default() -> Self {
        FnvHasher(OFFSET)
    }
}

impl Hasher for FnvHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fold(self.0, bytes);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type BuildFnv = BuildHasherDefault<FnvHasher>;
