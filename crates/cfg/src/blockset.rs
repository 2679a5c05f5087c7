//! Sets of blocks as bitsets.

use fixedbitset::FixedBitSet;
use ori_ir::{BlockId, Function};

use crate::{block_at, index};

/// A set of blocks of one function, one bit per block of its arena.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockSet(FixedBitSet);

impl BlockSet {
    /// An empty set sized for the blocks of `func`.
    pub fn for_function(func: &Function) -> BlockSet {
        BlockSet(FixedBitSet::with_capacity(func.blocks.len()))
    }

    /// Adds `block`; true when it was not there yet.
    pub fn insert(&mut self, block: BlockId) -> bool {
        let i = index(block);
        if i >= self.0.len() {
            self.0.grow(i + 1);
        }
        !self.0.put(i)
    }

    /// Removes `block`.
    pub fn remove(&mut self, block: BlockId) {
        if index(block) < self.0.len() {
            self.0.remove(index(block));
        }
    }

    /// True when `block` is in the set.
    pub fn contains(&self, block: BlockId) -> bool {
        self.0.contains(index(block))
    }

    /// The blocks, in arena order.
    pub fn iter(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.0.ones().map(block_at)
    }

    /// Number of blocks in the set.
    pub fn len(&self) -> usize {
        self.0.count_ones(..)
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_clear()
    }
}
