//! A fast, non-random hasher for the compiler's own tables (rustc's "Fx"
//! hash: one rotate, xor and multiply per word).
//!
//! The standard library's SipHash resists hash flooding, which a compiler
//! keying its tables by register numbers and opcodes does not need, and it
//! was about a twentieth of the compile time on the large modules. The hash is the
//! same on every run, so iteration order is deterministic too (output must
//! not depend on it all the same). The front end keeps its own copy
//! (`ptx-syntax/src/hash.rs`): it depends on no workspace crate.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FxHasher`].
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with [`FxHasher`].
pub type FxHashSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

/// The Fx hasher; see the module documentation.
#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

/// An odd constant with well-spread bits (from rustc's implementation).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(n.into());
    }

    fn write_u16(&mut self, n: u16) {
        self.add(n.into());
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_neighbours_differ() {
        let mut map: FxHashMap<(u8, u32), u32> = FxHashMap::default();
        for n in 0..10_000u32 {
            map.insert(((n % 7) as u8, n), n);
        }
        assert_eq!(map.len(), 10_000);
        assert!((0..10_000u32).all(|n| map[&((n % 7) as u8, n)] == n));
        let hash = |bytes: &[u8]| {
            let mut h = FxHasher::default();
            h.write(bytes);
            h.finish()
        };
        assert_ne!(hash(b"abcdefghi"), hash(b"abcdefghj"));
        let names: FxHashSet<String> = (0..1000).map(|i| format!("%r{i}")).collect();
        assert!(names.len() == 1000 && names.contains("%r999") && !names.contains("%r1000"));
        assert_ne!(hash(&[1]), hash(&[2]));
    }
}
