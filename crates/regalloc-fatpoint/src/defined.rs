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

use cfg::{Cfg, RegSet, VReg, VRegSpace};
use ori_ir::{BlockId, Function};

/// The registers that may have been written on some path from the entry
/// to the start of each block.
pub(crate) struct Defined {
    defined_in: Vec<RegSet>,
}

impl Defined {
    /// Solves the analysis (forward, union over predecessors). The entry
    /// starts with the registers nothing writes: hand-written code reads
    /// such a register as an input, live from the entry. A block's writes anywhere in it count at its
    /// end and so reach every successor, mid-block branch targets
    /// included: a wider set only keeps more of the liveness, never less.
    pub(crate) fn compute(func: &Function, cfg: &Cfg, space: VRegSpace) -> Defined {
        let empty = RegSet::new(space);
        let mut written = vec![empty.clone(); cfg.capacity()];
        for &block in &func.layout {
            let set = &mut written[index(block)];
            for &id in &func.blocks[block].insts {
                for v in func.insts[id].written_regs().filter_map(VReg::of) {
                    set.insert(v);
                }
            }
        }
        let mut inputs = empty.clone();
        for v in (0..space.len()).map(|bit| space.vreg(bit)) {
            inputs.insert(v);
        }
        for set in &written {
            for v in set.iter() {
                inputs.remove(v);
            }
        }
        let entry = cfg.entry();
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
        Defined { defined_in }
    }

    /// Registers that may hold a value at the start of `block`.
    pub(crate) fn defined_in(&self, block: BlockId) -> &RegSet {
        &self.defined_in[index(block)]
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}
