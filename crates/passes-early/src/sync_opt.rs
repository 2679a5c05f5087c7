//! `OptimizeSyncInstructions` (the seed's phase 71): deletes the
//! `WARPSYNC`s that reconverge a warp no branch can have split.
//!
//! Lowering puts a `WARPSYNC` before a warp-synchronous instruction (a
//! barrier, a shuffle) whenever a branch came before it in the PTX, since
//! the threads of a warp may have taken different sides. Once
//! `OriDoPredication` has turned those branches into predicated code the
//! warp never splits, and the `WARPSYNC` only costs an instruction
//! (reduce_smem had one before each of its ten barriers).
//!
//! A forward dataflow over the blocks: the warp is together at the entry
//! and after a `WARPSYNC`; a conditional branch may split it for both of
//! its successors, unless it only leads to an `EXIT`-only block (threads
//! that leave do not hold the others up); a block is together when all its
//! predecessors leave it so. A `WARPSYNC` reached together goes.

use cfg::{Cfg, splits_warp};
use ori_ir::{BlockId, Function, Opcode, OperandKind, Phase, PhaseContext, PhaseError, Property, PropertySet};

/// Deletes reconvergence instructions no divergent branch precedes.
pub struct OptimizeSyncInstructions;

impl Phase for OptimizeSyncInstructions {
    fn name(&self) -> &'static str {
        "OptimizeSyncInstructions"
    }

    fn description(&self) -> &'static str {
        "Deletes WARPSYNCs that no divergent branch precedes"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            return Ok(());
        }
        let together_in = solve(func, &cfg);
        rewrite(func, &together_in);
        Ok(())
    }
}

/// Deletes the redundant `WARPSYNC`s, given whether each block is entered
/// together.
fn rewrite(func: &mut Function, together_in: &[bool]) {
    for block in func.layout.clone() {
        let mut together = together_in[index(block)];
        let insts = std::mem::take(&mut func.blocks[block].insts);
        let mut keep = Vec::with_capacity(insts.len());
        for id in insts {
            let inst = &func.insts[id];
            if is_full_warpsync(inst) {
                if together {
                    continue;
                }
                together = true;
            } else if splits_warp(func, inst) {
                together = false;
            }
            keep.push(id);
        }
        func.blocks[block].insts = keep;
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// Whether each block (by arena index) is entered with the warp together.
fn solve(func: &Function, cfg: &Cfg) -> Vec<bool> {
    let n = func.blocks.len();
    // Optimistic start: together everywhere; the entry stays together.
    let mut together_in = vec![true; n];
    let mut changed = true;
    while changed {
        changed = false;
        for &block in cfg.rpo() {
            let mut together = together_in[index(block)];
            for &id in &func.blocks[block].insts {
                let inst = &func.insts[id];
                if is_full_warpsync(inst) {
                    together = true;
                } else if splits_warp(func, inst) {
                    // A branch mid-block splits its target and what
                    // follows it alike.
                    together = false;
                }
            }
            for &succ in cfg.succs(block) {
                let slot = &mut together_in[index(succ)];
                if *slot && !together {
                    *slot = false;
                    changed = true;
                }
            }
        }
    }
    together_in
}

/// `WARPSYNC.ALL` or `WARPSYNC 0xffffffff`, unguarded.
fn is_full_warpsync(inst: &ori_ir::Inst) -> bool {
    inst.op == Opcode::WARPSYNC
        && inst.guard.is_none()
        && (inst.has_mod("ALL")
            || matches!(inst.uses.as_slice(), [op] if matches!(op.kind, OperandKind::Imm(ori_ir::Imm::Int(m)) if m as u32 == u32::MAX)))
}
