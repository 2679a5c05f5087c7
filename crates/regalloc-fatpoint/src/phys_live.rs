//! Liveness of physical registers that are in the code before allocation
//! (ABI registers around calls, parameters of a `.func`, registers a
//! hand-written test pins), per unit, so that virtual registers are kept
//! off them exactly where they hold a value.
//!
//! `cfg::Liveness` tracks virtual registers only; this is the same
//! backward problem over [`Unit`]s, with the effects the operand lists do
//! not show: a `CALL` reads the physical registers written before it in
//! its block since the block's start or the previous call (its arguments
//! and return address, which the lowering sets up there) and clobbers the
//! caller-saved ones; a `RET` likewise reads those written before it in its
//! block (the results). `PR`/`UPR` operands read or write the whole
//! predicate file. The stack pointer is reserved everywhere and not
//! tracked.

use std::collections::HashMap;

use cfg::{Cfg, branch_targets};
use fixedbitset::FixedBitSet;
use ori_ir::{BlockId, Function, Inst, InstId, OpFlags, Opcode, OperandKind, RegFile};

use crate::units::{STACK_POINTER, UNIT_COUNT, Unit, clobbered_by_call, file_start, units_of};

/// What instructions do to physical units, explicitly and implicitly.
pub(crate) struct PhysEffects {
    /// Units some instruction names explicitly.
    mentioned: FixedBitSet,
    /// What each `CALL` and `RET` reads besides its operands: the units
    /// written before it in its block since the start or the last call.
    passed: HashMap<InstId, FixedBitSet>,
}

impl PhysEffects {
    /// The effects in `func`.
    pub(crate) fn of(func: &Function) -> PhysEffects {
        let mut mentioned = FixedBitSet::with_capacity(UNIT_COUNT);
        let mut passed = HashMap::new();
        for &block in &func.layout {
            let mut written = FixedBitSet::with_capacity(UNIT_COUNT);
            for &id in &func.blocks[block].insts {
                let inst = &func.insts[id];
                for reg in inst.read_regs().chain(inst.written_regs()) {
                    if reg != STACK_POINTER {
                        mentioned.insert_range(units_of(reg));
                    }
                }
                if inst.op.has(OpFlags::CALL) || inst.op == Opcode::RET {
                    passed.insert(id, std::mem::replace(&mut written, FixedBitSet::with_capacity(UNIT_COUNT)));
                }
                for reg in inst.written_regs().filter(|&r| r != STACK_POINTER) {
                    written.insert_range(units_of(reg));
                }
            }
        }
        PhysEffects { mentioned, passed }
    }

    /// True when the function names no physical register (besides the
    /// stack pointer and zero registers).
    pub(crate) fn is_empty(&self) -> bool {
        self.mentioned.is_clear()
    }

    /// Calls `f` with every unit `inst` writes.
    pub(crate) fn defs(&self, inst: &Inst, mut f: impl FnMut(Unit)) {
        for reg in inst.written_regs().filter(|&r| r != STACK_POINTER) {
            units_of(reg).for_each(&mut f);
        }
        self.implicit_defs(inst, f);
    }

    /// Calls `f` with every unit `inst` writes that its operand list does
    /// not name register by register: a call's clobbers, `PR` writes.
    pub(crate) fn implicit_defs(&self, inst: &Inst, mut f: impl FnMut(Unit)) {
        for def in &inst.defs {
            if let OperandKind::PredFile { uniform } = def.kind {
                predicate_file(uniform).for_each(&mut f);
            }
        }
        if inst.op.has(OpFlags::CALL) {
            (0..UNIT_COUNT).filter(|&u| clobbered_by_call(u)).for_each(f);
        }
    }

    /// Calls `f` with every unit instruction `id` (`inst`) reads.
    pub(crate) fn uses(&self, id: InstId, inst: &Inst, mut f: impl FnMut(Unit)) {
        for reg in inst.read_regs().filter(|&r| r != STACK_POINTER) {
            units_of(reg).for_each(&mut f);
        }
        for op in &inst.uses {
            if let OperandKind::PredFile { uniform } = op.kind {
                predicate_file(uniform).for_each(&mut f);
            }
        }
        if let Some(passed) = self.passed.get(&id) {
            passed.ones().for_each(f);
        }
    }
}

/// The units of `P0..P6` (or `UP0..UP6`).
fn predicate_file(uniform: bool) -> std::ops::Range<Unit> {
    let start = file_start(if uniform { RegFile::UP } else { RegFile::P });
    start..start + 7
}

/// Live-in and live-out units of every block.
pub(crate) struct PhysLiveness {
    live_in: Vec<FixedBitSet>,
    live_out: Vec<FixedBitSet>,
}

impl PhysLiveness {
    /// Solves the problem for `func`, with the edge semantics of
    /// `cfg::Liveness` (mid-block branches included).
    pub(crate) fn compute(func: &Function, cfg: &Cfg, effects: &PhysEffects) -> PhysLiveness {
        let empty = FixedBitSet::with_capacity(UNIT_COUNT);
        let mut live = PhysLiveness {
            live_in: vec![empty.clone(); cfg.capacity()],
            live_out: vec![empty.clone(); cfg.capacity()],
        };
        if effects.is_empty() {
            return live;
        }
        let order = cfg.backward_order(func);
        let mut changed = true;
        while changed {
            changed = false;
            for &block in &order {
                let mut set = empty.clone();
                for next in cfg.end_successors(func, block) {
                    set.union_with(live.live_in(next));
                }
                live.live_out[index(block)] = set.clone();
                for &i in func.blocks[block].insts.iter().rev() {
                    live.transfer(i, &func.insts[i], effects, &mut set);
                }
                if set != live.live_in[index(block)] {
                    live.live_in[index(block)] = set;
                    changed = true;
                }
            }
        }
        live
    }

    /// Units live at the start of `block`.
    pub(crate) fn live_in(&self, block: BlockId) -> &FixedBitSet {
        &self.live_in[index(block)]
    }

    /// Units live at the end of `block`.
    pub(crate) fn live_out(&self, block: BlockId) -> &FixedBitSet {
        &self.live_out[index(block)]
    }

    /// Steps backward over `inst`, as `cfg::Liveness::transfer` does.
    pub(crate) fn transfer(&self, id: InstId, inst: &Inst, effects: &PhysEffects, live: &mut FixedBitSet) {
        for target in branch_targets(inst) {
            live.union_with(self.live_in(target));
        }
        if inst.guard.is_none() {
            effects.defs(inst, |u| live.remove(u));
        }
        effects.uses(id, inst, |u| live.insert(u));
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live_ins(text: &str) -> Vec<Vec<Unit>> {
        let func = ori_ir::text::parse_function(text).unwrap();
        let cfg = Cfg::compute(&func);
        let effects = PhysEffects::of(&func);
        let live = PhysLiveness::compute(&func, &cfg, &effects);
        func.layout.iter().map(|&b| live.live_in(b).ones().collect()).collect()
    }

    #[test]
    fn arguments_live_until_the_call_results_from_it() {
        let text = "
.func f {
bb0:
    R4 = MOV %r0
    R5 = MOV 0x1
    CALL.REL.NOINC `(g)
    %r1 = MOV R4
    @%p0 BRA bb0
bb1:
    RET.REL.NODEC R20.64
}
";
        // R4/R5 are written before the call in bb0, so nothing is live into
        // it but the return address RET reads; RET reads no result written
        // in its block, so R4 and R5 are dead after the call.
        assert_eq!(live_ins(text), vec![vec![20, 21], vec![20, 21]]);
    }

    #[test]
    fn guarded_writes_do_not_kill_and_the_stack_pointer_is_not_tracked() {
        let text = "
.entry k {
bb0:
    @%p0 R2 = MOV 0x1
    R1 = IADD3 R1, -0x8, RZ
    STG.E [%r0.64], R2
    EXIT
}
";
        assert_eq!(live_ins(text), vec![vec![2]]);
    }
}
