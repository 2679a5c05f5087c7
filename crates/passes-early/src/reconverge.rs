//! `LateExpandSyncInstructions` (the seed's phase 72): reconvergence
//! regions. Around each branch that may split a warp, `BSSY Bn, after`
//! arms convergence barrier `Bn` with the threads present, and the
//! `BSYNC Bn` where the paths meet again waits until all of them (less
//! those that exited) have arrived; from there the warp runs as one.
//! Without it, threads that took different sides stay split until a
//! `WARPSYNC`: the code after the join runs once per group, and uniform
//! registers written there are shared by groups that run interleaved.
//!
//! NVIDIA's shape, which this follows (corpus SASS, sm_80 and sm_90):
//! - the join is the branch block's immediate post-dominator; a branch
//!   whose paths only meet at the exit, or at a lone `EXIT`, gets no
//!   region (its threads never run together again), nor one whose join
//!   starts with the `WARPSYNC` of a block barrier (which reconverges
//!   them already: reduce_shfl's `if (lane == 0)` at -O0);
//! - `BSSY` goes in the nearest dominator of the branch that the region
//!   can start from: one outside every cycle the join is not on. A loop's
//!   divergent exit is armed before the loop (copy_vec), since a `BSSY`
//!   run again by the threads still looping would forget those that left;
//! - the `BSYNC` sits in a block of its own in front of the join, which
//!   only the region's edges enter, so paths from outside the region do
//!   not wait; `BSSY`'s label names the join, where control goes after the
//!   `BSYNC`. A region inside another that ends at the same join gets no
//!   barrier of its own: the outer `BSYNC` reconverges its threads at the
//!   same place (copy_vec's main loop; NVIDIA does nest such regions in
//!   recursion, `BSYNC B1; BSYNC B0`, for no gain we can see).
//!
//! Only kernels get regions, and only regions without calls: NVIDIA's
//! callees keep B6 and above callee-saved (`BMOV` spills), a convention we
//! do not implement, so a callee must not find a live barrier it could
//! clobber, nor use one. Those keep reconverging with `WARPSYNC` only.
//! A call of this module's code (`CALL.REL`) gets a region of its own,
//! `BSSY B; CALL; BSYNC B`, as NVIDIA brackets calls (device_calls,
//! multi_entry): the callee may return its threads one group at a time,
//! and ours never touch a barrier register. Calls through `CALL.ABS`
//! (`vprintf`, other modules) may reach NVIDIA's code, which may use
//! B0-B5, so they get none.

use std::collections::{HashMap, HashSet};

use cfg::{Cfg, DomTree, PostDomTree, divergent_branches};
use ori_ir::{
    BlockId, Function, FunctionKind, FxHashMap, FxHashSet, Inst, InstId, OpFlags, Opcode, Operand, OperandKind, Phase,
    PhaseContext, PhaseError, Property, PropertySet, RegFile,
};

/// Barrier registers the hardware has: deeper nesting keeps the inner
/// regions without barriers.
const BARRIERS: usize = 16;

/// Brackets divergent regions of kernels with `BSSY`/`BSYNC`.
pub struct LateExpandSyncInstructions;

impl Phase for LateExpandSyncInstructions {
    fn name(&self) -> &'static str {
        "LateExpandSyncInstructions"
    }

    fn description(&self) -> &'static str {
        "Brackets divergent regions with BSSY/BSYNC convergence barriers"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if func.kind != FunctionKind::Entry {
            return Ok(());
        }
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            return Ok(());
        }
        let regions = find_regions(func, &cfg);
        if !regions.is_empty() {
            materialise(func, &cfg, regions);
        }
        bracket_calls(func);
        Ok(())
    }
}

/// A region: the threads entering `entry` meet again at `join`.
struct Region {
    /// Where `BSSY` goes: it dominates every block of the region.
    entry: BlockId,
    /// The join: the first block after the region on every path.
    join: BlockId,
    /// The blocks from `entry` up to (without) `join`, by arena index: a
    /// list rather than a bitset over the function, so that many small
    /// regions cost their size.
    blocks: Vec<BlockId>,
    /// How many blocks: a region nested in another is smaller.
    size: usize,
}

/// The regions of the divergent branches, outermost first.
fn find_regions(func: &Function, cfg: &Cfg) -> Vec<Region> {
    let divergent = divergent_branches(func);
    if divergent.is_empty() {
        return Vec::new();
    }
    let dom = DomTree::compute(cfg);
    let pdom = PostDomTree::compute(cfg);
    let mut seen: HashSet<(BlockId, BlockId)> = HashSet::new();
    let mut regions = Vec::new();
    for &block in cfg.rpo() {
        if !func.blocks[block].insts.iter().any(|i| divergent.contains(i)) {
            continue;
        }
        let Some(join) = pdom.ipdom(block) else { continue };
        if needs_no_region(func, join) {
            continue;
        }
        let Some((entry, blocks)) = region_entry(cfg, &dom, &pdom, block, join) else { continue };
        if !seen.insert((entry, join)) || blocks.iter().any(|&b| has_call(func, b)) {
            continue;
        }
        regions.push(Region { entry, join, size: blocks.len(), blocks });
    }
    regions.sort_by_key(|r| std::cmp::Reverse(r.size));
    // Outermost first: a region is dropped when one already kept ends at
    // the same join and holds its entry, or when nesting would need more
    // barriers than the file has.
    let mut depth = vec![0usize; cfg.capacity()];
    let mut kept: Vec<Region> = Vec::new();
    let mut kept_at_join: FxHashMap<BlockId, Vec<usize>> = FxHashMap::default();
    for r in regions {
        let at_join = kept_at_join.get(&r.join).map_or(&[][..], Vec::as_slice);
        let covered = at_join.iter().any(|&k| kept[k].contains(r.entry));
        if covered || r.blocks.iter().any(|&b| depth[index(b)] >= BARRIERS) {
            continue;
        }
        r.blocks.iter().for_each(|&b| depth[index(b)] += 1);
        kept_at_join.entry(r.join).or_default().push(kept.len());
        kept.push(r);
    }
    kept
}

impl Region {
    fn contains(&self, block: BlockId) -> bool {
        self.blocks.binary_search_by_key(&index(block), |&b| index(b)).is_ok()
    }
}

/// True when reconverging at `block` is pointless or done already: it
/// starts with a `BSYNC` (a region ends here), with the full `WARPSYNC` in
/// front of a block barrier, or it only exits.
fn needs_no_region(func: &Function, block: BlockId) -> bool {
    let insts: Vec<&Inst> = func.blocks[block].insts.iter().map(|&i| &func.insts[i]).collect();
    let unguarded = |k: usize| insts.get(k).filter(|i| i.guard.is_none()).copied();
    match (unguarded(0), unguarded(1)) {
        (Some(first), _) if first.op == Opcode::BSYNC => true,
        (Some(first), Some(second)) if crate::sync_opt::is_full_warpsync(first) => second.op == Opcode::BAR,
        (Some(first), None) => first.op == Opcode::EXIT && insts.len() == 1,
        _ => false,
    }
}

fn has_call(func: &Function, block: BlockId) -> bool {
    func.blocks[block].insts.iter().any(|&i| func.insts[i].op.has(OpFlags::CALL))
}

/// The nearest dominator of `branch` that starts a well-formed region
/// ending at `join`, with the region's blocks.
fn region_entry(
    cfg: &Cfg,
    dom: &DomTree,
    pdom: &PostDomTree,
    branch: BlockId,
    join: BlockId,
) -> Option<(BlockId, Vec<BlockId>)> {
    let mut entry = branch;
    loop {
        if let Some(blocks) = closed_region(cfg, entry, join)
            && blocks.contains(&branch)
        {
            return Some((entry, blocks));
        }
        entry = dom.idom(entry)?;
        if !pdom.post_dominates(join, entry) {
            return None;
        }
    }
}

/// The blocks from `entry` up to `join` (ascending arena index), if
/// threads can only come in through `entry`, and only once before reaching
/// `join`: no block of the region but `entry` has a predecessor outside
/// it, and `entry` has none inside it.
fn closed_region(cfg: &Cfg, entry: BlockId, join: BlockId) -> Option<Vec<BlockId>> {
    let mut seen = FxHashSet::default();
    let mut blocks = vec![entry];
    seen.insert(entry);
    let mut next = 0;
    while let Some(&b) = blocks.get(next) {
        next += 1;
        for &s in cfg.succs(b) {
            if s != join && seen.insert(s) {
                blocks.push(s);
            }
        }
    }
    let reachable_preds = |b: BlockId| cfg.preds(b).iter().copied().filter(|&p| cfg.is_reachable(p));
    let closed = blocks.iter().all(|&b| {
        if b == entry {
            reachable_preds(b).all(|p| !seen.contains(&p))
        } else {
            reachable_preds(b).all(|p| seen.contains(&p))
        }
    });
    blocks.sort_unstable_by_key(|&b| index(b));
    closed.then_some(blocks)
}

/// Writes the regions: `BSSY` in each entry, a `BSYNC` block in front of
/// each join, the region's edges into the join sent to it.
fn materialise(func: &mut Function, cfg: &Cfg, regions: Vec<Region>) {
    // Where each block falls through to now; a block whose fall-through
    // target changes gets a branch to the one it must reach.
    let mut falls_to: HashMap<BlockId, BlockId> =
        func.layout.iter().filter_map(|&b| cfg.fallthrough(b).map(|f| (b, f))).collect();
    let mut syncs_before: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for region in &regions {
        let barrier = func.new_vreg(RegFile::B, 1);
        let bssy = Inst::new(Opcode::BSSY, vec![Operand::reg(barrier)], vec![Operand::label(region.join)]);
        insert_before_branches(func, region.entry, bssy);
        let sync = func.blocks.alloc(Default::default());
        let bsync = func.insts.alloc(Inst::new(Opcode::BSYNC, vec![], vec![Operand::reg(barrier)]));
        func.blocks[sync].insts.push(bsync);
        falls_to.insert(sync, region.join);
        syncs_before.entry(region.join).or_default().push(sync);
        for &pred in cfg.preds(region.join) {
            if region.contains(pred) {
                retarget(func, pred, region.join, sync);
                if falls_to.get(&pred) == Some(&region.join) {
                    falls_to.insert(pred, sync);
                }
            }
        }
    }
    let mut layout = Vec::with_capacity(func.layout.len() + regions.len());
    for &b in &func.layout {
        if let Some(syncs) = syncs_before.get(&b) {
            layout.extend_from_slice(syncs);
        }
        layout.push(b);
    }
    func.layout = layout;
    keep_fallthroughs(func, &falls_to);
}

/// Brackets every `CALL.REL` not bracketed yet: `BSSY` before it, the
/// `BSYNC` in a block of its own after it, the rest of its block in
/// another (the `BSSY`'s label).
fn bracket_calls(func: &mut Function) {
    let mut k = 0;
    while k < func.layout.len() {
        let block = func.layout[k];
        let insts = &func.blocks[block].insts;
        let call = insts.iter().position(|&i| {
            let inst = &func.insts[i];
            inst.op == Opcode::CALL && inst.has_mod("REL")
        });
        let Some(at) = call else {
            k += 1;
            continue;
        };
        let bracketed = at + 1 == insts.len()
            && func.layout.get(k + 1).is_some_and(|&next| {
                func.blocks[next].insts.first().is_some_and(|&i| func.insts[i].op == Opcode::BSYNC)
            });
        if bracketed {
            // Go on with the block after the BSYNC's.
            k += 3;
            continue;
        }
        let rest = func.blocks[block].insts.split_off(at + 1);
        let sync = func.blocks.alloc(Default::default());
        let after = func.blocks.alloc(Default::default());
        func.blocks[after].insts = rest;
        let barrier = func.new_vreg(RegFile::B, 1);
        let bssy = func.insts.alloc(Inst::new(Opcode::BSSY, vec![Operand::reg(barrier)], vec![Operand::label(after)]));
        func.blocks[block].insts.insert(at, bssy);
        let bsync = func.insts.alloc(Inst::new(Opcode::BSYNC, vec![], vec![Operand::reg(barrier)]));
        func.blocks[sync].insts.push(bsync);
        func.layout.splice(k + 1..k + 1, [sync, after]);
        k += 2;
    }
}

/// Puts `inst` in `block` before its first branch (or at its end), so that
/// it runs before the warp can split.
fn insert_before_branches(func: &mut Function, block: BlockId, inst: Inst) {
    let id = func.insts.alloc(inst);
    let insts = &func.blocks[block].insts;
    let at = insts.iter().position(|&i| is_jump(&func.insts[i])).unwrap_or(insts.len());
    func.blocks[block].insts.insert(at, id);
}

/// A transfer of control within the function (calls return).
fn is_jump(inst: &Inst) -> bool {
    inst.op.has(OpFlags::BRANCH) && !inst.op.has(OpFlags::CALL)
}

/// Makes the branches of `block` that name `from` name `to`.
fn retarget(func: &mut Function, block: BlockId, from: BlockId, to: BlockId) {
    let ids: Vec<InstId> = func.blocks[block].insts.clone();
    for id in ids {
        if !is_jump(&func.insts[id]) {
            continue;
        }
        for op in &mut func.insts[id].uses {
            if matches!(op.kind, OperandKind::Label(target) if target == from) {
                *op = Operand::label(to);
            }
        }
    }
}

/// Adds a branch at the end of every block whose layout successor is no
/// longer the block it falls through to.
fn keep_fallthroughs(func: &mut Function, falls_to: &HashMap<BlockId, BlockId>) {
    for k in 0..func.layout.len() {
        let block = func.layout[k];
        let Some(&target) = falls_to.get(&block) else { continue };
        if func.layout.get(k + 1) != Some(&target) {
            let bra = func.insts.alloc(Inst::new(Opcode::BRA, vec![], vec![Operand::label(target)]));
            func.blocks[block].insts.push(bra);
        }
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(text: &str) -> Vec<(usize, usize)> {
        let func = ori_ir::text::parse_function(text).unwrap();
        let cfg = Cfg::compute(&func);
        let at = |b: BlockId| func.layout_index(b).unwrap();
        find_regions(&func, &cfg).iter().map(|r| (at(r.entry), at(r.join))).collect()
    }

    #[test]
    fn a_loop_exit_is_armed_before_the_loop() {
        let text = ".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n    %r1 = MOV 0x0\n\
                    bb1:\n    %r1 = IADD3 %r1, 0x1, RZ\n    %p0, PT = ISETP.LT.AND %r1, %r0, PT\n    @%p0 BRA bb1\n\
                    bb2:\n    %r2 = MOV 0x1\n    EXIT\n}\n";
        assert_eq!(regions(text), [(0, 2)]);
    }

    #[test]
    fn uniform_branches_and_joins_at_the_exit_get_no_region() {
        let uniform = ".entry k {\nbb0:\n    %r0 = S2R SR_CTAID.X\n    %p0, PT = ISETP.LT.AND %r0, 0x4, PT\n    @%p0 BRA bb2\n\
                       bb1:\n    %r1 = MOV 0x0\nbb2:\n    %r2 = MOV 0x1\n    EXIT\n}\n";
        assert_eq!(regions(uniform), []);
        let apart = ".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n    %p0, PT = ISETP.LT.AND %r0, 0x4, PT\n    @%p0 BRA bb2\n\
                     bb1:\n    %r1 = MOV 0x0\n    EXIT\nbb2:\n    %r2 = MOV 0x1\n    EXIT\n}\n";
        assert_eq!(regions(apart), []);
    }
}
