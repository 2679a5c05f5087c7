//! Uniform registers across divergent regions: a class of regions
//! ([`crate::divergence`]) counts as one point for the UR and UP files.
//!
//! While a warp runs split, its two halves may run their sides in any
//! interleaving, and both use the one copy of each uniform register. So
//! every uniform value live anywhere in a region must keep its register
//! over the whole region: its ranges are widened to cover all the region's
//! points, after which plain overlap of ranges is the right interference.
//! A value defined before a branch and read on one side then collides
//! with one defined and read only on the other side, as it must.
//!
//! This is a conservative reading of the hardware (the one NVIDIA's
//! scheduling model allows), not something measured on a GPU.

use ori_ir::{Function, OpFlags, RegFile};

use crate::divergence::DivergentRegions;
use crate::points::{LiveRanges, Range, normalize};

/// No class at this point.
const NONE: u32 = u32::MAX;

/// Widens the ranges of uniform virtual registers over the regions they
/// touch.
pub(crate) fn widen(func: &Function, regions: &DivergentRegions, lr: &mut LiveRanges) {
    if regions.classes() == 0 {
        return;
    }
    let (class_at, spans) = points_of(func, regions, lr.points);
    let mut touched: Vec<u32> = Vec::new();
    for (bit, info) in lr.vregs.iter_mut().enumerate() {
        if matches!(lr.space.vreg(bit).file, RegFile::UR | RegFile::UP) {
            widen_ranges(&mut info.ranges, &class_at, &spans, &mut touched);
        }
    }
}

/// Per point, the class it lies in (or [`NONE`]); per class, the points
/// its values are widened over, as sorted ranges. Points are numbered as
/// in [`LiveRanges`]: two per instruction in layout order.
///
/// The write point of a call is left out of the spans: there the callee
/// clobbers UR0-UR35, and a value widened over it would be pushed into
/// the callee-saved UR36 and up (which device functions cannot save yet)
/// though its own threads no longer need it. Calls keep plain liveness: a
/// callee run by one half of a warp may still clobber a caller-saved value
/// of the other half (a known gap). Physical uniform registers are not
/// widened for the same reason: before allocation, theirs are the calls'
/// clobbers.
fn points_of(func: &Function, regions: &DivergentRegions, points: u32) -> (Vec<u32>, Vec<Vec<Range>>) {
    let mut class_at = vec![NONE; points as usize];
    let mut spans: Vec<Vec<Range>> = vec![Vec::new(); regions.classes() as usize];
    let mut k: u32 = 0;
    for &block in &func.layout {
        let insts = &func.blocks[block].insts;
        let count = insts.len() as u32;
        if let Some((class, first)) = regions.member(block).filter(|_| count > 0) {
            // The region starts once the branch has been taken or not:
            // at the branch's write point.
            let mut start = if first == 0 { 2 * k } else { 2 * (k + first) + 1 };
            let end = 2 * (k + count) - 1;
            class_at[start as usize..=end as usize].fill(class);
            let span = &mut spans[class as usize];
            for (j, &id) in insts.iter().enumerate().skip(first as usize) {
                if func.insts[id].op.has(OpFlags::CALL) {
                    let write = 2 * (k + j as u32) + 1;
                    if start < write {
                        span.push(Range { start, end: write - 1 });
                    }
                    start = write + 1;
                }
            }
            if start <= end {
                span.push(Range { start, end });
            }
        }
        k += count;
    }
    (class_at, spans)
}

/// Adds to `ranges` the points of every class they touch.
fn widen_ranges(ranges: &mut Vec<Range>, class_at: &[u32], spans: &[Vec<Range>], touched: &mut Vec<u32>) {
    touched.clear();
    for r in ranges.iter() {
        for &class in &class_at[r.start as usize..=r.end as usize] {
            if class != NONE && !touched.contains(&class) {
                touched.push(class);
            }
        }
    }
    if touched.is_empty() {
        return;
    }
    for &class in touched.iter() {
        ranges.extend_from_slice(&spans[class as usize]);
    }
    normalize(ranges);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, allocate};
    use ori_ir::{Reg, Sm};

    /// A diamond: `%ur0` is defined before the branch and read only on
    /// the taken side, `%ur1` only lives on the other side, `%ur2` and
    /// `%ur3` live one on each side. Plain liveness lets all of them share
    /// one register.
    const DIAMOND: &str = "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %ur0 = ULDC c[0x0][0x210]
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb2
bb1:
    %ur1 = ULDC c[0x0][0x214]
    %r1 = IADD3 %r0, %ur1, RZ
    %ur2 = ULDC c[0x0][0x218]
    %r1 = IADD3 %r1, %ur2, RZ
    BRA bb3
bb2:
    %ur3 = ULDC c[0x0][0x21c]
    %r1 = IADD3 %r0, %ur3, RZ
    %r1 = IADD3 %r1, %ur0, RZ
bb3:
    %ur4 = ULDC c[0x0][0x220]
    %ur5 = ULDC c[0x0][0x224]
    %r1 = IADD3 %r1, %ur4, %ur5
    STG.E [%r4.64], %r1
    EXIT
}
";

    fn physical(alloc: &crate::Allocation, num: u32) -> u32 {
        alloc.physical(Reg::virt(RegFile::UR, num)).expect("allocated").num
    }

    #[test]
    fn uniform_values_on_opposite_sides_get_different_registers() {
        let mut func = ori_ir::text::parse_function(DIAMOND).unwrap();
        let alloc = allocate(&mut func, &Sm::new(90).target(), Options { limit: 255, no_spill_trials: 2 }).unwrap();
        let regs: Vec<u32> = (0..4).map(|n| physical(&alloc, n)).collect();
        for a in 0..4 {
            for b in a + 1..4 {
                assert_ne!(regs[a], regs[b], "%ur{a} and %ur{b} are live in one divergent region: {regs:?}");
            }
        }
        // After the join the warp is whole again: plain liveness applies,
        // and the region's registers are free for reuse.
        // (UR0-UR3 are never handed out, as with NVIDIA's ptxas.)
        assert_eq!(physical(&alloc, 4), 4, "{regs:?}");
        assert_eq!(alloc.used[RegFile::UR.index()], 8);
    }

    #[test]
    fn only_uniform_ranges_widen_and_only_over_the_region() {
        // `%r5` mirrors `%ur1`: defined and read in bb1 only.
        let text =
            DIAMOND.replace("%r1 = IADD3 %r0, %ur1, RZ", "%r5 = LDC c[0x0][0x214]\n    %r1 = IADD3 %r0, %ur1, %r5");
        let func = ori_ir::text::parse_function(&text).unwrap();
        let lr = LiveRanges::compute(&func);
        let of = |file, num| {
            let bit = lr.space.bit(cfg::VReg { file, num }).expect("named");
            lr.vregs[bit].ranges.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>()
        };
        // Points: bb0 0-7 (branch at 6/7), bb1 8-19, bb2 20-25, bb3 26-35.
        assert_eq!(of(RegFile::R, 5), [(11, 12)], "per-thread values keep plain liveness");
        assert_eq!(of(RegFile::UR, 1), [(7, 25)], "from the branch to the join");
        assert_eq!(of(RegFile::UR, 0), [(3, 25)], "live into the region: widened over it");
        assert_eq!(of(RegFile::UR, 4), [(27, 30)], "after the join: untouched");
    }

    #[test]
    fn a_call_in_a_region_keeps_plain_liveness() {
        let func = ori_ir::text::parse_function(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %ur0 = ULDC c[0x0][0x210]
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb2
bb1:
    %r1 = IADD3 %r0, %ur0, RZ
    CALL.REL.NOINC `(g)
    %ur1 = ULDC c[0x0][0x214]
    %r1 = IADD3 %r1, %ur1, RZ
    BRA bb3
bb2:
    %r1 = MOV %r0
bb3:
    STG.E [%r4.64], %r1
    EXIT
}
",
        )
        .unwrap();
        let lr = LiveRanges::compute(&func);
        let bit = lr.space.bit(cfg::VReg { file: RegFile::UR, num: 0 }).expect("named");
        let ranges: Vec<(u32, u32)> = lr.vregs[bit].ranges.iter().map(|r| (r.start, r.end)).collect();
        // Points: bb0 0-7, bb1 8-17 (the call writes at 11), bb2 18-19.
        assert_eq!(ranges, [(3, 10), (12, 19)], "widened over the region but for the callee's clobber");
    }
}
