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
//! predecessors leave it so; a call leaves it split too (its callee may
//! return its threads apart). A `WARPSYNC` reached together goes. A
//! `BSYNC` brings the warp back to how its `BSSY` found it
//! (`LateExpandSyncInstructions` brackets divergent regions with them).

use std::collections::HashMap;

use cfg::{Cfg, splits_warp};
use ori_ir::{
    BlockId, Function, Inst, OpFlags, Opcode, OperandKind, Phase, PhaseContext, PhaseError, Property, PropertySet, Reg,
};

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
        let mut armed = Armed::new();
        let together_in = solve(func, &cfg, &mut armed);
        rewrite(func, &together_in, &mut armed);
        Ok(())
    }
}

/// Deletes the redundant `WARPSYNC`s, given whether each block is entered
/// together.
fn rewrite(func: &mut Function, together_in: &[bool], armed: &mut Armed) {
    for block in func.layout.clone() {
        let mut together = together_in[index(block)];
        let mut insts = std::mem::take(&mut func.blocks[block].insts);
        insts.retain(|&id| !step(func, &func.insts[id], &mut together, armed));
        func.blocks[block].insts = insts;
    }
}

/// Whether the warp was together at each convergence barrier's `BSSY`
/// (on every visit so far).
type Armed = HashMap<Reg, bool>;

/// Moves the state over `inst`; true when `inst` is a `WARPSYNC` the
/// warp reaches together (redundant).
fn step(func: &Function, inst: &Inst, together: &mut bool, armed: &mut Armed) -> bool {
    if is_full_warpsync(inst) {
        return std::mem::replace(together, true);
    }
    let barrier = || inst.defs.iter().chain(&inst.uses).find_map(|o| o.as_reg());
    match (inst.op, barrier()) {
        (Opcode::BSSY, Some(b)) => {
            let was = armed.entry(b).or_insert(true);
            *was &= *together;
        }
        // The threads `BSSY` saw leave together; a guarded `BSYNC` may not
        // run, so it proves nothing.
        (Opcode::BSYNC, Some(b)) if inst.guard.is_none() => *together |= armed.get(&b).copied().unwrap_or(false),
        _ => {}
    }
    // A callee may branch apart and return its threads one group at a
    // time: the caller goes on split until something reconverges it.
    if splits_warp(func, inst) || inst.op.has(OpFlags::CALL) {
        *together = false;
    }
    false
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// Whether each block (by arena index) is entered with the warp together.
fn solve(func: &Function, cfg: &Cfg, armed: &mut Armed) -> Vec<bool> {
    let n = func.blocks.len();
    // Optimistic start: together everywhere; the entry stays together.
    let mut together_in = vec![true; n];
    let mut changed = true;
    while changed {
        changed = false;
        for &block in cfg.rpo() {
            let mut together = together_in[index(block)];
            let mut split = false;
            for &id in &func.blocks[block].insts {
                let inst = &func.insts[id];
                step(func, inst, &mut together, armed);
                split |= splits_warp(func, inst);
            }
            // A branch mid-block leaves split for its target even when a
            // WARPSYNC later in the block reconverges the fall-through.
            let out = together && !split;
            for &succ in cfg.succs(block) {
                let slot = &mut together_in[index(succ)];
                if *slot && !out {
                    *slot = false;
                    changed = true;
                }
            }
        }
    }
    together_in
}

/// `WARPSYNC.ALL` or `WARPSYNC 0xffffffff`, unguarded.
pub(crate) fn is_full_warpsync(inst: &Inst) -> bool {
    inst.op == Opcode::WARPSYNC
        && inst.guard.is_none()
        && (inst.has_mod("ALL")
            || matches!(inst.uses.as_slice(), [op] if matches!(op.kind, OperandKind::Imm(ori_ir::Imm::Int(m)) if m as u32 == u32::MAX)))
}
