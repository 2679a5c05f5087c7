//! Where a virtual register may hold a value at all: a forward "maybe
//! defined" analysis, used to cut liveness down to the points some write
//! reaches.
//!
//! Backward liveness alone makes a register that is only ever written
//! under a guard (or part by part) live from the function's entry down to
//! that write: the guarded write "keeps the old value", and there is
//! none. If-converted code does exactly this (math_double's `pow`: a
//! pair written as `@!P undef %r:0 = ...; @!P %r:1 = ...` held a register
//! pair through the whole kernel before it). Where no write reaches, the
//! register's contents are undefined whatever else lives there, so a value
//! needs a register only where it is both live and maybe defined. The
//! allocator's ranges ([`crate::points`]) and the checker
//! ([`crate::check_allocation`]) apply the same cut.

use cfg::{Cfg, Liveness, VReg};
use fixedbitset::FixedBitSet;
use ori_ir::{BlockId, Function, FxHashMap};

/// The registers that may have been written on some path from the entry
/// to the start of each block, for the registers where that can matter.
///
/// A register live at the start of a reachable block where no write
/// reaches is live at the entry too: no write on the path from the entry
/// means nothing killed it there. So the analysis only tracks the
/// registers live at the entry, and any other register live somewhere is
/// maybe-defined there. That keeps the sets as small as the entry's
/// live-in rather than blocks × registers.
pub(crate) struct Defined {
    /// Index of each tracked register in the sets below.
    tracked: FxHashMap<VReg, usize>,
    /// Per block (arena index), the tracked registers maybe defined at its
    /// start.
    defined_in: Vec<FixedBitSet>,
    /// Blocks the entry reaches (arena index): no write reaches the others.
    reachable: Vec<bool>,
}

impl Defined {
    /// Solves the analysis (forward, union over predecessors). The entry
    /// starts with the registers nothing writes: hand-written code reads
    /// such a register as an input, live from the entry. A block's writes anywhere in it count at its
    /// end and so reach every successor, mid-block branch targets
    /// included: a wider set only keeps more of the liveness, never less.
    pub(crate) fn compute(func: &Function, cfg: &Cfg, live: &Liveness) -> Defined {
        let entry = cfg.entry();
        let tracked: FxHashMap<VReg, usize> =
            entry.into_iter().flat_map(|e| live.live_in(e).iter()).enumerate().map(|(i, v)| (v, i)).collect();
        let empty = FixedBitSet::with_capacity(tracked.len());
        let mut written = vec![empty.clone(); cfg.capacity()];
        let mut inputs = empty.clone();
        inputs.insert_range(..);
        for &block in &func.layout {
            let set = &mut written[index(block)];
            for &id in &func.blocks[block].insts {
                for v in func.insts[id].written_regs().filter_map(VReg::of) {
                    if let Some(&i) = tracked.get(&v) {
                        set.insert(i);
                        inputs.remove(i);
                    }
                }
            }
        }
        let mut defined_in = vec![empty.clone(); cfg.capacity()];
        // Blocks no path from the entry reaches keep the empty set: nothing
        // flows into them, and their own writes still count from the write.
        let order = cfg.rpo();
        let mut changed = true;
        while changed {
            changed = false;
            for &block in order {
                let mut set = if Some(block) == entry { inputs.clone() } else { empty.clone() };
                for &pred in cfg.preds(block) {
                    set.union_with(&defined_in[index(pred)]);
                    set.union_with(&written[index(pred)]);
                }
                if set != defined_in[index(block)] {
                    defined_in[index(block)] = set;
                    changed = true;
                }
            }
        }
        let mut reachable = vec![false; cfg.capacity()];
        for &block in order {
            reachable[index(block)] = true;
        }
        Defined { tracked, defined_in, reachable }
    }

    /// True when `v` may hold a value at the start of `block`, for a `v`
    /// live there (the answer for other registers is meaningless).
    pub(crate) fn may_hold(&self, block: BlockId, v: VReg) -> bool {
        self.reachable[index(block)] && self.tracked.get(&v).is_none_or(|&i| self.defined_in[index(block)].contains(i))
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}
