//! Rematerialising predicates that find no P register: recomputing the
//! compare before each reader instead of keeping its result in a general
//! register ([`crate::spill`]'s predicate homes).
//!
//! NVIDIA's code repeats a loop-invariant compare inside the loop
//! (stencil3d: `ISETP.NE.AND P6, PT, R2, RZ, PT` in the loop body, where
//! we kept `tid != 0` and three others alive across it and moved four of
//! them to R registers). A compare can be made again wherever its sources
//! still hold the values it read: when each register source is written
//! once, unguarded, in a block outside every loop (so it takes one value
//! per thread and keeps it), and is live at every reader of the predicate
//! anyway (so its register still holds it there, and recomputing
//! lengthens no range), the copy reads exactly what the original read.

use std::collections::HashMap;

use cfg::{Cfg, DomTree, LoopNest, VReg};
use fixedbitset::FixedBitSet;
use ori_ir::{BlockId, Function, InstId, Opcode, Operand, RegFile};

use crate::points::{LiveRanges, Range};
use crate::rewrite::map_regs;

/// Compares whose only effect is their predicate result.
const COMPARES: &[Opcode] = &[Opcode::ISETP, Opcode::FSETP, Opcode::DSETP];

/// Rematerialises up to `count` predicates in place of the predicates
/// `failed` (which found no P register): among the predicates that
/// qualify and are live together with one of `failed` somewhere, those
/// with the fewest reads and writes per point first (the failed ones
/// themselves when they qualify: they are the cheapest). Every reader of a
/// chosen predicate gets its own copy of the compare just before it,
/// writing a fresh temporary, and the original compare goes. `lr` are the
/// ranges of `func` as it is now; `temps` the spill temporaries, never
/// chosen. Returns the temporaries created (to be added to `temps`); none
/// when nothing qualifies.
pub(crate) fn remat_predicates(
    func: &mut Function,
    lr: &LiveRanges,
    temps: &FixedBitSet,
    failed: &[VReg],
    count: usize,
) -> Vec<VReg> {
    let writers = single_writers(func);
    let cfg = Cfg::compute(func);
    let loops = LoopNest::compute(func, &cfg, &DomTree::compute(&cfg));
    let outside_loops = |s: &VReg| writers.get(s).is_some_and(|w| w.is_some_and(|(_, b)| loops.depth(b) == 0));
    let failed_ranges: Vec<&Range> =
        failed.iter().filter_map(|&v| lr.space.bit(v)).flat_map(|b| &lr.vregs[b].ranges).collect();
    let meets_failed = |bit: usize| {
        lr.vregs[bit].ranges.iter().any(|r| failed_ranges.iter().any(|f| f.start <= r.end && r.start <= f.end))
    };
    let density = |bit: usize| lr.vregs[bit].weight / lr.vregs[bit].size().max(1) as f64;
    let mut candidates: Vec<(usize, InstId)> = lr
        .space
        .file_bits(RegFile::P)
        .filter(|&bit| lr.vregs[bit].width > 0 && !temps.contains(bit) && meets_failed(bit))
        .filter_map(|bit| {
            let p = lr.space.vreg(bit);
            let d = writers.get(&p).copied().flatten()?.0;
            qualifies(func, lr, &outside_loops, p, d).then_some((bit, d))
        })
        .collect();
    candidates.sort_by(|a, b| density(a.0).total_cmp(&density(b.0)).then(a.0.cmp(&b.0)));
    let chosen: Vec<(VReg, InstId)> =
        candidates.into_iter().take(count).map(|(bit, d)| (lr.space.vreg(bit), d)).collect();
    let mut created = Vec::new();
    for &block in &func.layout.clone() {
        let old = std::mem::take(&mut func.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        for id in old {
            if chosen.iter().any(|&(_, d)| d == id) {
                continue;
            }
            for &(p, d) in &chosen {
                if !func.insts[id].read_regs().any(|r| VReg::of(r) == Some(p)) {
                    continue;
                }
                let temp = func.new_vreg(RegFile::P, 1);
                created.push(VReg::of(temp).expect("a new virtual register"));
                let mut copy = func.insts[d].clone();
                copy.ctrl = None;
                copy.encoding = None;
                map_regs(&mut copy, |r| if VReg::of(r) == Some(p) { temp } else { r });
                new.push(func.insts.alloc(copy));
                map_regs(&mut func.insts[id], |r| if VReg::of(r) == Some(p) { temp } else { r });
            }
            new.push(id);
        }
        func.blocks[block].insts = new;
    }
    created
}

/// Per virtual register, its writer and the writer's block when exactly
/// one instruction writes it, unguarded and whole; `None` when several do
/// or the write may keep part of an old value.
fn single_writers(func: &Function) -> HashMap<VReg, Option<(InstId, BlockId)>> {
    let mut writers = HashMap::new();
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            let inst = &func.insts[id];
            for reg in inst.written_regs() {
                let Some(v) = VReg::of(reg) else { continue };
                let whole = inst.killed_regs().any(|k| k == reg) && inst.guard.is_none() && reg.word.is_none();
                writers.entry(v).and_modify(|w| *w = None).or_insert(whole.then_some((id, block)));
            }
        }
    }
    writers
}

/// True when `p`'s writer `d` may be repeated before every reader of `p`.
fn qualifies(func: &Function, lr: &LiveRanges, stable: &dyn Fn(&VReg) -> bool, p: VReg, d: InstId) -> bool {
    let inst = &func.insts[d];
    let only_result = inst.written_regs().all(|r| VReg::of(r) == Some(p));
    if !COMPARES.contains(&inst.op) || !only_result || inst.read_regs().any(|r| r.is_virtual && r.file == RegFile::P) {
        return false;
    }
    let sources: Vec<VReg> = inst.uses.iter().flat_map(Operand::regs).filter_map(VReg::of).collect();
    if inst.uses.iter().flat_map(Operand::regs).any(|r| !r.is_virtual && !r.is_zero()) {
        return false;
    }
    if !sources.iter().all(stable) {
        return false;
    }
    // Every reader's read point must lie in every source's ranges.
    let mut k: u32 = 0;
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            let point = 2 * k;
            k += 1;
            if id == d || !func.insts[id].read_regs().any(|r| VReg::of(r) == Some(p)) {
                continue;
            }
            let live_there = |s: &VReg| {
                lr.space
                    .bit(*s)
                    .is_some_and(|bit| lr.vregs[bit].ranges.iter().any(|r| r.start <= point && point <= r.end))
            };
            if !sources.iter().all(live_there) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::text::{parse_function, print_function};

    /// `%p0 = ISETP %r{src}` read in a loop at its top and again after
    /// it; `%r0` is written once before the loop, `%r3` once inside it,
    /// and both are live at both readers.
    fn remat(src: u32) -> (Vec<VReg>, String) {
        let mut func = parse_function(&format!(
            "
.entry k {{
bb0:
    %r0 = S2R SR_TID.X
bb1:
    @%p0 STG.E [%r4.64], %r3
    %r3 = IADD3 %r0, 0x1, RZ
    %p0, PT = ISETP.GT.AND %r{src}, 0x10, PT
    %p1, PT = ISETP.LT.AND %r3, 0x40, PT
    @%p1 BRA bb1
bb2:
    @%p0 STG.E [%r4.64], %r0
    STG.E [%r4.64+0x4], %r3
    EXIT
}}
"
        ))
        .unwrap();
        let lr = LiveRanges::compute(&func);
        let p0 = VReg { file: RegFile::P, num: 0 };
        let temps = FixedBitSet::with_capacity(lr.vregs.len());
        let created = remat_predicates(&mut func, &lr, &temps, &[p0], 1);
        (created, print_function(&func))
    }

    #[test]
    fn a_compare_of_a_value_set_before_the_loop_is_made_at_each_reader() {
        let (created, text) = remat(0);
        assert_eq!(created.len(), 2, "{text}");
        assert_eq!(text.matches("ISETP.GT.AND %r0, 0x10").count(), 2, "{text}");
    }

    #[test]
    fn a_compare_of_a_value_that_changes_in_a_loop_stays() {
        // %r3 is written once, but the loop gives it a new value each
        // iteration: a copy at the loop's top would read the value the
        // next compare reads, not the one this one read.
        let (created, text) = remat(3);
        assert!(created.is_empty(), "{text}");
        assert_eq!(text.matches("ISETP.GT.AND %r3").count(), 1, "{text}");
    }
}
