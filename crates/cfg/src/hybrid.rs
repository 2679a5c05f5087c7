//! A set of small integers that costs what it holds: a sorted list while
//! it is small, a bitset over the whole universe once the list would take
//! more memory than the bitset.
//!
//! Liveness keeps one set per block edge. A dense bitset per block costs
//! blocks × registers bits, quadratic in a function made of many small
//! blocks, where each block's set holds a handful of registers; the list
//! keeps such sets (and cloning them for a walk) proportional to their
//! contents, and large sets keep the bitset's constant-time operations.
//! (rustc's `HybridBitSet` makes the same trade.)

use fixedbitset::FixedBitSet;

/// A set of integers below a fixed universe size.
#[derive(Debug)]
pub struct HybridBitSet {
    universe: usize,
    repr: Repr,
}

#[derive(Debug)]
enum Repr {
    /// Ascending, no duplicates, at most [`HybridBitSet::sparse_limit`].
    Sparse(Vec<u32>),
    Dense(FixedBitSet),
}

impl HybridBitSet {
    /// The empty set over `0..universe` (allocates nothing).
    pub fn new(universe: usize) -> HybridBitSet {
        HybridBitSet { universe, repr: Repr::Sparse(Vec::new()) }
    }

    /// Size of the universe.
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// Most elements a list holds before the bitset is smaller: 32 bits an
    /// element against one bit per integer of the universe.
    fn sparse_limit(&self) -> usize {
        self.universe / 32
    }

    /// True when `bit` is in the set.
    pub fn contains(&self, bit: usize) -> bool {
        match &self.repr {
            Repr::Sparse(list) => u32::try_from(bit).is_ok_and(|b| list.binary_search(&b).is_ok()),
            Repr::Dense(bits) => bits.contains(bit),
        }
    }

    /// Adds `bit`; true when it was not in the set. Bits outside the
    /// universe are ignored.
    pub fn insert(&mut self, bit: usize) -> bool {
        if bit >= self.universe {
            return false;
        }
        match &mut self.repr {
            Repr::Sparse(list) => {
                let Err(at) = list.binary_search(&(bit as u32)) else { return false };
                list.insert(at, bit as u32);
                self.densify_if_large();
                true
            }
            Repr::Dense(bits) => !bits.put(bit),
        }
    }

    /// Removes `bit`.
    pub fn remove(&mut self, bit: usize) {
        match &mut self.repr {
            Repr::Sparse(list) => {
                if let Some(at) = u32::try_from(bit).ok().and_then(|b| list.binary_search(&b).ok()) {
                    list.remove(at);
                }
            }
            Repr::Dense(bits) if bit < self.universe => bits.remove(bit),
            Repr::Dense(_) => {}
        }
    }

    /// Adds the bits of `range` (clipped to the universe).
    pub fn insert_range(&mut self, range: std::ops::Range<usize>) {
        for bit in range {
            self.insert(bit);
        }
    }

    /// Removes the bits of `range`.
    pub fn remove_range(&mut self, range: std::ops::Range<usize>) {
        match &mut self.repr {
            Repr::Sparse(list) => {
                let lo = list.partition_point(|&b| (b as usize) < range.start);
                let hi = list.partition_point(|&b| (b as usize) < range.end);
                list.drain(lo..hi);
            }
            Repr::Dense(bits) => bits.remove_range(range.start.min(self.universe)..range.end.min(self.universe)),
        }
    }

    /// Removes every element. A list keeps its storage; a bitset goes, so
    /// that a scratch set reused for small contents stays small (a bitset
    /// is only ever allocated for contents it does not outweigh).
    pub fn clear(&mut self) {
        match &mut self.repr {
            Repr::Sparse(list) => list.clear(),
            Repr::Dense(_) => self.repr = Repr::Sparse(Vec::new()),
        }
    }

    /// Adds every element of `other` (over the same universe).
    pub fn union_with(&mut self, other: &HybridBitSet) {
        match (&mut self.repr, &other.repr) {
            (_, Repr::Sparse(theirs)) if theirs.is_empty() => {}
            (Repr::Dense(mine), Repr::Dense(theirs)) => mine.union_with(theirs),
            (Repr::Dense(mine), Repr::Sparse(theirs)) => {
                for &b in theirs {
                    mine.insert(b as usize);
                }
            }
            (Repr::Sparse(mine), Repr::Dense(theirs)) => {
                let mut bits = theirs.clone();
                for &b in mine.iter() {
                    bits.insert(b as usize);
                }
                self.repr = Repr::Dense(bits);
            }
            (Repr::Sparse(mine), Repr::Sparse(theirs)) => {
                if mine.is_empty() {
                    mine.extend_from_slice(theirs);
                } else {
                    *mine = merge(mine, theirs);
                }
                self.densify_if_large();
            }
        }
    }

    /// Adds the elements to `out`, a plain bitset over the same universe.
    pub fn union_into(&self, out: &mut FixedBitSet) {
        match &self.repr {
            Repr::Sparse(list) => list.iter().for_each(|&b| out.insert(b as usize)),
            Repr::Dense(bits) => out.union_with(bits),
        }
    }

    /// Removes every element of `other`.
    pub fn difference_with(&mut self, other: &HybridBitSet) {
        match (&mut self.repr, &other.repr) {
            (Repr::Dense(mine), Repr::Dense(theirs)) => mine.difference_with(theirs),
            (Repr::Dense(mine), Repr::Sparse(theirs)) => {
                for &b in theirs {
                    mine.remove(b as usize);
                }
            }
            (Repr::Sparse(mine), _) => mine.retain(|&b| !other.contains(b as usize)),
        }
    }

    /// Keeps only the elements of `other`; true when that removed any.
    pub fn intersect_with(&mut self, other: &HybridBitSet) -> bool {
        let before = self.len();
        match (&mut self.repr, &other.repr) {
            (Repr::Dense(mine), Repr::Dense(theirs)) => mine.intersect_with(theirs),
            (Repr::Sparse(mine), _) => mine.retain(|&b| other.contains(b as usize)),
            (Repr::Dense(mine), Repr::Sparse(theirs)) => {
                let kept = theirs.iter().copied().filter(|&b| mine.contains(b as usize)).collect();
                self.repr = Repr::Sparse(kept);
            }
        }
        self.len() != before
    }

    /// The elements, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let (list, bits) = match &self.repr {
            Repr::Sparse(list) => (Some(list.iter().map(|&b| b as usize)), None),
            Repr::Dense(bits) => (None, Some(bits.ones())),
        };
        list.into_iter().flatten().chain(bits.into_iter().flatten())
    }

    /// Number of elements in `range`.
    pub fn count_range(&self, range: std::ops::Range<usize>) -> usize {
        match &self.repr {
            Repr::Sparse(list) => {
                list.partition_point(|&b| (b as usize) < range.end)
                    - list.partition_point(|&b| (b as usize) < range.start)
            }
            Repr::Dense(bits) => bits.count_ones(range.start.min(self.universe)..range.end.min(self.universe)),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(list) => list.len(),
            Repr::Dense(bits) => bits.count_ones(..),
        }
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Sparse(list) => list.is_empty(),
            Repr::Dense(bits) => bits.is_clear(),
        }
    }

    fn densify_if_large(&mut self) {
        if let Repr::Sparse(list) = &self.repr
            && list.len() > self.sparse_limit()
        {
            let mut bits = FixedBitSet::with_capacity(self.universe);
            for &b in list {
                bits.insert(b as usize);
            }
            self.repr = Repr::Dense(bits);
        }
    }
}

/// The ascending union of two ascending lists.
fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

impl Clone for HybridBitSet {
    fn clone(&self) -> HybridBitSet {
        let repr = match &self.repr {
            Repr::Sparse(list) => Repr::Sparse(list.clone()),
            Repr::Dense(bits) => Repr::Dense(bits.clone()),
        };
        HybridBitSet { universe: self.universe, repr }
    }

    /// Reuses `self`'s storage when both sides have the same
    /// representation, so scratch sets in a solver's loop allocate once.
    fn clone_from(&mut self, source: &HybridBitSet) {
        self.universe = source.universe;
        match (&mut self.repr, &source.repr) {
            (Repr::Sparse(mine), Repr::Sparse(theirs)) => mine.clone_from(theirs),
            (Repr::Dense(mine), Repr::Dense(theirs)) => mine.clone_from(theirs),
            _ => *self = source.clone(),
        }
    }
}

/// Equal when the elements are, whatever the representations.
impl PartialEq for HybridBitSet {
    fn eq(&self, other: &HybridBitSet) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Sparse(a), Repr::Sparse(b)) => a == b,
            (Repr::Dense(a), Repr::Dense(b)) => a == b,
            (Repr::Sparse(list), Repr::Dense(_)) => {
                list.len() == other.len() && list.iter().all(|&b| other.contains(b as usize))
            }
            (Repr::Dense(_), Repr::Sparse(_)) => other == self,
        }
    }
}

impl Eq for HybridBitSet {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies the same operations to a set and to a `BTreeSet` and
    /// compares, across the switch from list to bitset.
    #[test]
    fn behaves_as_a_set_in_both_representations() {
        use std::collections::BTreeSet;
        let universe = 320; // lists hold up to 10
        let mut set = HybridBitSet::new(universe);
        let mut model = BTreeSet::new();
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for step in 0..4000 {
            let bit = next() % (universe + 8);
            match next() % 7 {
                0 | 1 => assert_eq!(set.insert(bit), bit < universe && model.insert(bit), "step {step}"),
                2 => {
                    set.remove(bit);
                    model.remove(&bit);
                }
                3 => {
                    let mut other = HybridBitSet::new(universe);
                    let n = next() % 20;
                    for _ in 0..n {
                        let b = next() % universe;
                        other.insert(b);
                        model.insert(b);
                    }
                    set.union_with(&other);
                }
                4 => {
                    let mut other = HybridBitSet::new(universe);
                    for _ in 0..next() % 20 {
                        let b = next() % universe;
                        other.insert(b);
                        model.remove(&b);
                    }
                    set.difference_with(&other);
                }
                5 => {
                    let mut other = HybridBitSet::new(universe);
                    for _ in 0..next() % 200 {
                        other.insert(next() % universe);
                    }
                    let before = model.len();
                    model.retain(|&b| other.contains(b));
                    assert_eq!(set.intersect_with(&other), model.len() != before, "step {step}");
                }
                _ => {
                    let lo = next() % universe;
                    let hi = (lo + next() % 16).min(universe);
                    set.remove_range(lo..hi);
                    model.retain(|b| !(lo..hi).contains(b));
                }
            }
            assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>(), "step {step}");
            assert_eq!(set.len(), model.len());
            assert_eq!(set.count_range(100..200), model.range(100..200).count());
            let mut copy = HybridBitSet::new(universe);
            copy.insert_range(0..universe);
            copy.clone_from(&set);
            assert_eq!(copy, set);
        }
    }

    #[test]
    fn equal_sets_compare_equal_across_representations() {
        let mut small = HybridBitSet::new(64);
        small.insert(3);
        let mut big = HybridBitSet::new(64);
        big.insert_range(0..10);
        big.remove_range(0..10);
        big.insert(3);
        assert!(matches!(big.repr, Repr::Dense(_)) && matches!(small.repr, Repr::Sparse(_)));
        assert_eq!(small, big);
        big.insert(4);
        assert_ne!(small, big);
    }
}
