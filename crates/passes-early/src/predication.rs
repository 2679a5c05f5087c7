//! `OriDoPredication` (the seed's phase 63): short conditional regions
//! become predicated instructions.
//!
//! `if (tid < s) { a = sm[tid]; b = sm[tid + s]; sm[tid] = a + b; }`
//! lowers to a branch around four instructions; NVIDIA's code runs the
//! four under `@!P0` instead (reduce_smem), which saves the branch, keeps
//! the warp together (no reconvergence needed before the next barrier)
//! and lets the scheduler mix the region with what surrounds it.
//!
//! Two shapes, both laid out as the lowering leaves them:
//! - a triangle: `A: ... @P BRA C` / `B: ...` / `C:`, B entered only from A;
//!   B's instructions get the guard `!P`;
//! - a diamond: `A: ... @P BRA D` / `B: ... BRA E` / `D: ...` / `E:`, B and D
//!   entered only from A; B's instructions get `!P`, D's `P`, and B's
//!   branch goes.
//!
//! A region qualifies when each side has at most [`MAX_SIDE`] instructions
//! (both at most [`MAX_BOTH`]), none of them already guarded, branching,
//! calling, synchronising, fencing, on the uniform datapath, or atomic
//! (plain loads and stores are fine), and none
//! writes the branch predicate (later guards read it). A guarded write
//! keeps the old value when its guard is false, which is what the branch
//! did. Fixed-latency arithmetic whose results only its side writes stays
//! unguarded (speculated): its results start where it is instead of
//! living from the top of the function.

use std::collections::HashMap;

use cfg::Cfg;
use ori_ir::{
    BlockId, Function, Guard, Inst, Latency, OpFlags, Opcode, OperandKind, Phase, PhaseContext, PhaseError, Property,
    PropertySet, RegFile,
};

use crate::pure::is_pure;
use crate::write_counts;

/// Most instructions predicated on one side of a region.
pub const MAX_SIDE: usize = 8;
/// Most instructions predicated in one region.
pub const MAX_BOTH: usize = 12;

/// Turns short branch regions into predicated code.
pub struct OriDoPredication;

impl Phase for OriDoPredication {
    fn name(&self) -> &'static str {
        "OriDoPredication"
    }

    fn description(&self) -> &'static str {
        "If-conversion: short triangles and diamonds become predicated instructions"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        // Each round converts regions that do not overlap; an enclosing
        // region's side then holds guarded instructions and stays a branch.
        loop {
            let cfg = Cfg::compute(func);
            if cfg.has_unknown_targets() {
                return Ok(());
            }
            let writes = write_counts(func);
            let mut changed = false;
            let mut i = 0;
            while i < func.layout.len() {
                match region_at(func, &cfg, i) {
                    Some(region) => {
                        predicate(func, &region, &writes);
                        changed = true;
                        i += region.skip;
                    }
                    None => i += 1,
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }
}

/// A region found at a layout position.
struct Region {
    /// The block ending in the conditional branch.
    head: BlockId,
    /// The fall-through side and the taken side (empty for a triangle).
    sides: [(Option<BlockId>, bool); 2],
    /// Layout positions the region covers.
    skip: usize,
    guard: Guard,
}

/// The region whose branch ends block `layout[i]`, if it qualifies.
fn region_at(func: &Function, cfg: &Cfg, i: usize) -> Option<Region> {
    let at = |k: usize| func.layout.get(i + k).copied();
    let head = at(0)?;
    let branch = &func.insts[*func.blocks[head].insts.last()?];
    let guard = branch.guard?;
    let target = plain_branch_target(branch)?;
    let fall = at(1)?;
    let only_from_head = |b: BlockId| cfg.preds(b) == [head];
    if !only_from_head(fall) {
        return None;
    }
    let (fall_insts, fall_end) = body(func, fall);
    if target != at(2)? {
        return None;
    }
    if fall_end.is_none_or(|t| t == target) {
        // Triangle: the fall-through side runs into (or jumps to) the join.
        let ok = predicable(func, &fall_insts, guard, MAX_SIDE);
        return ok.then_some(Region { head, sides: [(Some(fall), true), (None, false)], skip: 2, guard });
    }
    // Diamond: the fall-through side jumps over the taken side to the join.
    let (taken, join) = (target, at(3)?);
    let (taken_insts, taken_end) = body(func, taken);
    let shape = fall_end == Some(join) && taken_end.is_none_or(|t| t == join);
    let ok = shape
        && fall_insts.len() + taken_insts.len() <= MAX_BOTH
        && only_from_head(taken)
        && predicable(func, &fall_insts, guard, MAX_SIDE)
        && predicable(func, &taken_insts, guard, MAX_SIDE);
    ok.then_some(Region { head, sides: [(Some(fall), true), (Some(taken), false)], skip: 3, guard })
}

/// The target of an unguarded-or-guarded plain `BRA label`.
fn plain_branch_target(inst: &Inst) -> Option<BlockId> {
    match (inst.op, inst.mods.is_empty(), inst.uses.as_slice()) {
        (Opcode::BRA, true, [op]) => match op.kind {
            OperandKind::Label(target) => Some(target),
            _ => None,
        },
        _ => None,
    }
}

/// A block's instructions without a final unconditional `BRA`, and that
/// branch's target.
fn body(func: &Function, block: BlockId) -> (Vec<ori_ir::InstId>, Option<BlockId>) {
    let mut insts = func.blocks[block].insts.clone();
    let last = insts.last().map(|&i| &func.insts[i]);
    match last.filter(|l| l.guard.is_none()).and_then(plain_branch_target) {
        Some(target) => {
            insts.pop();
            (insts, Some(target))
        }
        None => (insts, None),
    }
}

/// True when every instruction of `insts` may run under `guard` instead.
fn predicable(func: &Function, insts: &[ori_ir::InstId], guard: Guard, max: usize) -> bool {
    const EXCLUDED: [OpFlags; 5] = [
        OpFlags::BRANCH,
        OpFlags::TERMINATOR,
        OpFlags::CALL,
        OpFlags::WARP_SYNC,
        // Uniform instructions take uniform guards only.
        OpFlags::UNIFORM,
    ];
    insts.len() <= max
        && insts.iter().all(|&id| {
            let inst = &func.insts[id];
            let flags = inst.op.info().flags;
            let atomic =
                flags.contains(OpFlags::LOAD.union(OpFlags::STORE)) || matches!(inst.op, Opcode::RED | Opcode::REDG);
            // A store's effect is its write, which the guard controls;
            // other effects (fences, barriers, traps) stay branched around.
            let other_effect = flags.contains(OpFlags::SIDE_EFFECT) && !flags.contains(OpFlags::STORE);
            inst.guard.is_none()
                && !other_effect
                && !EXCLUDED.iter().any(|&f| flags.contains(f))
                && !atomic
                && !inst.written_regs().any(|r| r.file == guard.pred.file && r.num == guard.pred.num)
        })
}

/// Puts the region's sides under their guards and removes its branches.
/// A whole register written only here is marked `undef`: its old value is
/// undefined, so a guarded write need not keep it alive from the top of
/// the function down (its readers are under the same guard, or read an
/// undefined value as the branching code did).
fn predicate(func: &mut Function, region: &Region, writes: &crate::WriteCounts) {
    func.blocks[region.head].insts.pop();
    let replaced = replaced_on_both_sides(func, region);
    for (side, fall_through) in region.sides {
        let Some(block) = side else { continue };
        let (insts, ends_in_branch) = body(func, block);
        if ends_in_branch.is_some() {
            func.blocks[block].insts.pop();
        }
        let guard = Guard { pred: region.guard.pred, negated: region.guard.negated != fall_through };
        let mut in_side: HashMap<(RegFile, u32), u32> = HashMap::new();
        for &id in &insts {
            for r in func.insts[id].written_regs().filter(|r| r.is_virtual) {
                *in_side.entry((r.file, r.num)).or_insert(0) += 1;
            }
        }
        for id in insts {
            let inst = &mut func.insts[id];
            // Arithmetic whose results only this side writes runs
            // unguarded: wasted work when the guard is false, but its
            // results then start where it is (a guarded write keeps an
            // address pair built word by word alive from the top).
            let own = |r: ori_ir::Reg| !r.is_virtual || in_side.get(&(r.file, r.num)) == writes.get(&(r.file, r.num));
            if is_pure(inst) && inst.op.info().latency == Latency::Fixed && inst.written_regs().all(own) {
                continue;
            }
            inst.guard = Some(guard);
            for def in &mut inst.defs {
                def.flags.undef = def.as_reg().is_some_and(|r| {
                    let whole = r.is_virtual && r.word.is_none();
                    let only_write = writes.get(&(r.file, r.num)) == Some(&1);
                    whole && (only_write || (fall_through && replaced.contains(&(r.file, r.num))))
                });
            }
        }
    }
}

/// Whole registers a diamond writes once on each side without the taken
/// side reading them first: exactly one of the two writes happens, so the
/// value from before the region is dead at the first (the fall-through
/// side's, which comes first in the layout), which may end its life.
fn replaced_on_both_sides(func: &Function, region: &Region) -> Vec<(RegFile, u32)> {
    let [(Some(fall), _), (Some(taken), _)] = region.sides else { return Vec::new() };
    let once = |block: BlockId| -> Vec<(RegFile, u32)> {
        let mut seen: HashMap<(RegFile, u32), u32> = HashMap::new();
        for &id in &func.blocks[block].insts {
            for r in func.insts[id].written_regs().filter(|r| r.is_virtual && r.word.is_none()) {
                *seen.entry((r.file, r.num)).or_insert(0) += 1;
            }
        }
        seen.into_iter().filter(|&(_, n)| n == 1).map(|(k, _)| k).collect()
    };
    let in_taken = once(taken);
    once(fall)
        .into_iter()
        .filter(|k| in_taken.contains(k))
        .filter(|&(file, num)| {
            // No read of it in the taken side up to its write there.
            for &id in &func.blocks[taken].insts {
                let inst = &func.insts[id];
                if inst.read_regs().any(|r| r.file == file && r.num == num) {
                    return false;
                }
                if inst.written_regs().any(|r| r.file == file && r.num == num) {
                    return true;
                }
            }
            false
        })
        .collect()
}
