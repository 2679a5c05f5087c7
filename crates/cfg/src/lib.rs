//! Control-flow analyses over [`ori_ir::Function`], the facts every later
//! pass builds on:
//!
//! - [`Cfg`]: successors and predecessors from the block layout and the
//!   branch labels, with reverse post-order;
//! - [`DomTree`] and [`PostDomTree`]: dominators and post-dominators (the
//!   latter with a virtual exit), by the Cooper–Harvey–Kennedy algorithm;
//! - [`LoopNest`]: natural loops from back edges, nesting and depth;
//! - [`Liveness`]: live-in/live-out sets of virtual registers per block;
//! - [`DefUse`]: def-use chains from reaching definitions;
//! - [`splits_warp`] and [`divergent_branches`]: which branches may
//!   split a warp, by their form and by the values they test.
//!
//! Every analysis is a snapshot: a phase that changes the function
//! recomputes what it still needs. Blocks are named by [`BlockId`]
//! everywhere; tables inside are dense vectors indexed by the arena index,
//! so a block that is not in the layout simply has no facts.
//!
//! See `docs/cfg.md` for the semantics chosen (what is an edge, how
//! guarded definitions and unreachable blocks are treated).

mod blockset;
mod defuse;
mod divergence;
mod dom;
mod graph;
mod hybrid;
mod liveness;
mod loops;
mod regset;
mod varying;

pub use blockset::BlockSet;
pub use defuse::{Def, DefId, DefUse, Use, UseId};
pub use divergence::{splits_warp, targets_only_exits};
pub use dom::{DomTree, PostDomTree};
pub use graph::{Cfg, branch_targets};
pub use hybrid::HybridBitSet;
pub use liveness::Liveness;
pub use loops::{Loop, LoopId, LoopNest};
pub use regset::{RegSet, VReg, VRegSpace};
pub use varying::divergent_branches;

use ori_ir::BlockId;

/// Dense index of a block (its arena index).
fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// The block with dense index `index`.
fn block_at(index: usize) -> BlockId {
    // Indices come from `index` or from tables sized by the arena, which
    // la-arena caps at u32.
    BlockId::from_raw(la_arena::RawIdx::from(index as u32))
}

#[cfg(test)]
mod test_util;
