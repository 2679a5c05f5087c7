//! Which branches may split a warp: the notion if-conversion's clean-up,
//! the allocator's uniform-register rule and the cubin writer share.

use ori_ir::{BlockId, Function, Inst, Opcode, OperandKind, RegFile};

/// A branch that may send the threads of a warp different ways: an
/// indirect `BRX`, or a `BRA`/`JMP` guarded by a per-thread predicate,
/// unless every target only exits (threads that leave run nothing in
/// between, like NVIDIA's `@P EXIT`). A guard in the UP file is the same
/// for the whole warp.
pub fn splits_warp(func: &Function, inst: &Inst) -> bool {
    let conditional = match inst.op {
        Opcode::BRX => true,
        Opcode::BRA | Opcode::JMP => inst.guard.is_some_and(|g| g.pred.file == RegFile::P && !g.pred.is_zero()),
        _ => false,
    };
    conditional && !targets_only_exits(func, inst)
}

/// True when every label `inst` names is a block holding one unguarded
/// `EXIT` (and it names one at least).
pub fn targets_only_exits(func: &Function, inst: &Inst) -> bool {
    let mut labels = inst.uses.iter().filter_map(|op| match op.kind {
        OperandKind::Label(target) => Some(target),
        _ => None,
    });
    let exits = |b: BlockId| matches!(func.blocks[b].insts.as_slice(), [id] if func.insts[*id].op == Opcode::EXIT && func.insts[*id].guard.is_none());
    labels.next().is_some_and(exits)
        && labels.all(exits)
        && inst.uses.iter().all(|op| matches!(op.kind, OperandKind::Label(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branches(text: &str) -> Vec<bool> {
        let func = ori_ir::text::parse_function(text).unwrap();
        let split = |id: &ori_ir::InstId| splits_warp(&func, &func.insts[*id]);
        func.layout.iter().flat_map(|&b| func.blocks[b].insts.iter().map(split).collect::<Vec<_>>()).collect()
    }

    #[test]
    fn guarded_branches_split_unless_they_only_exit() {
        let text = ".entry k {\nbb0:\n    @%p0 BRA bb2\nbb1:\n    @!%p1 BRA bb3\n    @%up0 BRA bb2\n    BRA bb2\n\
                    bb2:\n    EXIT\nbb3:\n    %r0 = S2R SR_TID.X\n    EXIT\n}\n";
        assert_eq!(branches(text), [false, true, false, false, false, false, false]);
    }
}
