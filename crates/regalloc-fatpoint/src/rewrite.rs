//! Rewriting: virtual registers replaced by their physical registers, and
//! copies that the assignment made into `Rn = MOV Rn` removed.

use ori_ir::{Function, Inst, Reg};

use crate::driver::Allocation;
use crate::points::plain_mov;

/// Calls `f` on every register `inst` names (guard, results, sources,
/// and the registers inside addresses and bank references) and replaces
/// it with what `f` returns.
pub(crate) fn map_regs(inst: &mut Inst, mut f: impl FnMut(Reg) -> Reg) {
    if let Some(guard) = &mut inst.guard {
        guard.pred = f(guard.pred);
    }
    // `regs_mut` names every register an operand holds (addresses, bank
    // references, wgmma descriptors).
    for op in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
        for r in op.regs_mut() {
            *r = f(*r);
        }
    }
}

/// Applies `alloc` to `func`. Every virtual register of `func` must have a
/// register in `alloc` (the driver guarantees it).
pub(crate) fn rewrite(func: &mut Function, alloc: &Allocation) {
    for &block in &func.layout {
        let mut kept = Vec::with_capacity(func.blocks[block].insts.len());
        for &id in &func.blocks[block].insts {
            let inst = &mut func.insts[id];
            // Only copies the assignment made redundant go; a self-copy
            // written in the input is someone else's business.
            let was_virtual_copy = plain_mov(inst).is_some_and(|(d, s)| d.is_virtual || s.is_virtual);
            map_regs(inst, |r| alloc.physical(r).unwrap_or(r));
            // Physical registers have no parts, so no partial-write marks.
            for def in &mut inst.defs {
                def.flags.undef = false;
            }
            let vanished = was_virtual_copy && plain_mov(inst).is_some_and(|(d, s)| d == s);
            if !vanished {
                kept.push(id);
            }
        }
        func.blocks[block].insts = kept;
    }
}
