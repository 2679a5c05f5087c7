//! `OriBranchOpt`: branch simplification.
//!
//! Lowering emits a block per PTX label and a `BRA` per PTX branch, and
//! the early phases leave branches to blocks that only branch on; every
//! such jump costs an issue slot and splits straight-line code that later
//! phases would rather see whole. Repeated until nothing changes:
//!
//! 1. A `BRA` guarded by `PT` always jumps: its guard goes, and the rest of
//!    its block with it (never executed). One guarded by `!PT` never
//!    jumps and goes.
//! 2. Branches to a block that only forwards control (holds nothing but an
//!    unguarded `BRA`, or nothing at all and falls through) are retargeted
//!    to where it forwards to, along chains; a cycle of such blocks is left
//!    alone.
//! 3. A `BRA` that ends a block and targets the next block of the layout
//!    goes (guarded or not, control gets there either way).
//! 4. Empty blocks that no instruction names go; their predecessor now
//!    falls through to what they fell through to.
//! 5. Blocks that control cannot reach from the entry go.
//! 6. A block that only its layout predecessor reaches, by falling through
//!    (no branch, exit or call in the predecessor), and that no label
//!    names joins the predecessor. Triton puts a `$L__tmpN:` label before
//!    each inlined call site for its line tables, and lowering starts a
//!    block at every label: dropout's Philox rounds, its loads and its
//!    stores were four blocks, which the scheduler before allocation (and
//!    after) orders one by one.
//!
//! Only plain branches (`BRA label`, no modifier) are rewritten: `BRA.DIV`
//! and friends test more than their guard. A block named by a label that
//! is not a branch target (the reconvergence point of a `BSSY`) is kept
//! and never bypassed, even when unreachable, so that every label stays in
//! the layout. Functions with indirect branches to unlisted targets are
//! left alone.
//!
//! Deleting instructions shifts addresses and issue slots, so the phase
//! invalidates `Scheduled` and `Encoded`.

use cfg::{BlockSet, Cfg, branch_targets};
use ori_ir::{
    BlockId, Function, Inst, OpFlags, Opcode, OperandKind, Phase, PhaseContext, PhaseError, Property, PropertySet,
};

/// Folds, threads and removes branches, and removes unreachable blocks.
pub struct OriBranchOpt;

impl Phase for OriBranchOpt {
    fn name(&self) -> &'static str {
        "OriBranchOpt"
    }

    fn description(&self) -> &'static str {
        "Branch simplification: constant guards, branch threading, jumps to the next block, unreachable blocks"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if Cfg::compute(func).has_unknown_targets() {
            return Ok(());
        }
        loop {
            let mut changed = fold_constant_guards(func);
            changed |= thread_branches(func);
            changed |= drop_jumps_to_next(func);
            changed |= drop_empty_blocks(func);
            changed |= drop_unreachable(func);
            changed |= merge_straight_blocks(func);
            if !changed {
                return Ok(());
            }
        }
    }
}

/// The target of a plain `BRA label`.
fn plain_bra(inst: &Inst) -> Option<BlockId> {
    match (inst.op, inst.mods.is_empty(), &inst.uses[..]) {
        (Opcode::BRA, true, [op]) => match op.kind {
            OperandKind::Label(target) => Some(target),
            _ => None,
        },
        _ => None,
    }
}

/// Blocks named by labels that are not branch targets (`BSSY`).
fn pinned(func: &Function) -> BlockSet {
    let mut set = BlockSet::for_function(func);
    for (_, _, inst) in func.insts_in_order().filter(|(_, _, i)| !i.op.has(OpFlags::BRANCH)) {
        for op in &inst.uses {
            if let OperandKind::Label(block) = op.kind {
                set.insert(block);
            }
        }
    }
    set
}

fn fold_constant_guards(func: &mut Function) -> bool {
    let mut changed = false;
    for &block in &func.layout {
        let insts = &mut func.blocks[block].insts;
        let mut k = 0;
        while k < insts.len() {
            let inst = &mut func.insts[insts[k]];
            match inst.guard {
                Some(g) if g.pred.is_zero() && plain_bra(inst).is_some() => {
                    changed = true;
                    if g.negated {
                        insts.remove(k);
                        continue;
                    }
                    inst.guard = None;
                    insts.truncate(k + 1);
                }
                _ => {}
            }
            k += 1;
        }
    }
    changed
}

/// Where a block sends control when it does nothing else.
fn forwards_to(func: &Function, pos: usize, pinned: &BlockSet) -> Option<BlockId> {
    let block = func.layout[pos];
    if pinned.contains(block) {
        return None;
    }
    match &func.blocks[block].insts[..] {
        [] => func.layout.get(pos + 1).copied(),
        [only] => {
            let inst = &func.insts[*only];
            plain_bra(inst).filter(|_| inst.guard.is_none())
        }
        _ => None,
    }
}

fn thread_branches(func: &mut Function) -> bool {
    let pinned = pinned(func);
    let mut forward = vec![None; func.blocks.len()];
    for pos in 0..func.layout.len() {
        forward[index(func.layout[pos])] = forwards_to(func, pos, &pinned);
    }
    // Following more links than there are blocks means a cycle.
    let limit = func.layout.len();
    let resolve = |start: BlockId| {
        let mut cur = start;
        for _ in 0..=limit {
            match forward[index(cur)] {
                Some(next) => cur = next,
                None => return cur,
            }
        }
        start
    };
    let mut changed = false;
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            let inst = &mut func.insts[id];
            if !inst.op.has(OpFlags::BRANCH) {
                continue;
            }
            for op in &mut inst.uses {
                if let OperandKind::Label(target) = &mut op.kind {
                    let end = resolve(*target);
                    if end != *target {
                        *target = end;
                        changed = true;
                    }
                }
            }
        }
    }
    changed
}

fn drop_jumps_to_next(func: &mut Function) -> bool {
    let mut changed = false;
    for pos in 0..func.layout.len().saturating_sub(1) {
        let (block, next) = (func.layout[pos], func.layout[pos + 1]);
        let insts = &mut func.blocks[block].insts;
        if insts.last().is_some_and(|&i| plain_bra(&func.insts[i]) == Some(next)) {
            insts.pop();
            changed = true;
        }
    }
    changed
}

fn drop_empty_blocks(func: &mut Function) -> bool {
    let mut named = pinned(func);
    for (_, _, inst) in func.insts_in_order() {
        for target in branch_targets(inst) {
            named.insert(target);
        }
    }
    let last = func.layout.len().saturating_sub(1);
    let before = func.layout.len();
    let entry = func.layout.first().copied();
    let mut pos = 0;
    func.layout.retain(|&b| {
        pos += 1;
        // The entry stays the entry, and the last block must end the
        // function, so neither is dropped.
        !(func.blocks[b].insts.is_empty() && !named.contains(b) && Some(b) != entry && pos - 1 != last)
    });
    func.layout.len() != before
}

/// Drops blocks neither reachable from the entry nor named by a kept
/// instruction's non-branch label.
fn drop_unreachable(func: &mut Function) -> bool {
    let cfg = Cfg::compute(func);
    let Some(entry) = cfg.entry() else { return false };
    let mut kept = BlockSet::for_function(func);
    let mut work = vec![entry];
    while let Some(block) = work.pop() {
        if !kept.insert(block) {
            continue;
        }
        work.extend(cfg.succs(block));
        for &id in &func.blocks[block].insts {
            let inst = &func.insts[id];
            if !inst.op.has(OpFlags::BRANCH) {
                work.extend(inst.uses.iter().filter_map(|op| match op.kind {
                    OperandKind::Label(b) => Some(b),
                    _ => None,
                }));
            }
        }
    }
    let before = func.layout.len();
    func.layout.retain(|&b| kept.contains(b));
    func.layout.len() != before
}

/// Appends each block that only its layout predecessor falls through to,
/// and that no label names, to that predecessor (rule 6).
fn merge_straight_blocks(func: &mut Function) -> bool {
    let cfg = Cfg::compute(func);
    let mut named = pinned(func);
    for (_, _, inst) in func.insts_in_order() {
        for target in branch_targets(inst) {
            named.insert(target);
        }
    }
    let layout = func.layout.clone();
    // The block each block's instructions are in now.
    let mut holder: Vec<Option<BlockId>> = vec![None; func.blocks.len()];
    let mut kept = Vec::with_capacity(layout.len());
    for (pos, &block) in layout.iter().enumerate() {
        let prev = pos.checked_sub(1).map(|p| layout[p]);
        let joins = prev.filter(|&prev| {
            !named.contains(block)
                && cfg.preds(block) == [prev]
                && cfg.succs(prev) == [block]
                && !func.blocks[prev].insts.iter().any(|&i| func.insts[i].op.has(OpFlags::BRANCH))
        });
        match joins {
            Some(prev) => {
                let into = holder[index(prev)].unwrap_or(prev);
                holder[index(block)] = Some(into);
                let moved = std::mem::take(&mut func.blocks[block].insts);
                func.blocks[into].insts.extend(moved);
            }
            None => kept.push(block),
        }
    }
    let changed = kept.len() != layout.len();
    func.layout = kept;
    changed
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::text::parse_function;

    const BLOCKS: &str = "
.entry k {
bb0:
    %b0 = BSSY bb4
    @%p0 BRA.DIV bb3
bb1:
bb2:
    BRA bb3
bb3:
    @%p0 BRA bb2
    EXIT
bb4:
    BRA bb3
bb5:
    EXIT
}
";

    #[test]
    fn only_plain_branches_and_unpinned_blocks_forward() {
        let f = parse_function(BLOCKS).unwrap();
        let pinned = pinned(&f);
        let forwards: Vec<Option<usize>> =
            (0..f.layout.len()).map(|pos| forwards_to(&f, pos, &pinned).and_then(|b| f.layout_index(b))).collect();
        assert_eq!(forwards, [None, Some(2), Some(3), None, None, None]);
        let first = |pos: usize| &f.insts[f.blocks[f.layout[pos]].insts[0]];
        assert_eq!(plain_bra(first(0)), None, "BSSY is no branch");
        assert_eq!(plain_bra(&f.insts[f.blocks[f.layout[0]].insts[1]]), None, "BRA.DIV tests more than its guard");
        assert_eq!(plain_bra(first(3)), Some(f.layout[2]), "a guarded BRA is still plain");
        assert!(pinned.contains(f.layout[4]) && pinned.len() == 1);
    }
}
