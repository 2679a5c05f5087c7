//! Program points and the live ranges over them: where each virtual
//! register and each pinned physical register holds a value.
//!
//! Instruction `k` of the layout (counting over all blocks) has two
//! points: `2k`, where it reads its operands, and `2k + 1`, where it
//! writes its results. A value read last by `k` ends at `2k`; a value
//! written by `k` starts at `2k + 1`, so the result may reuse a source's
//! register. A range is a closed interval of points; a register's ranges
//! are sorted and disjoint. Two registers interfere exactly when their
//! ranges share a point: this is the "fat point" view, where the pressure
//! at a point is the set of registers whose ranges contain it.
//!
//! Ranges come from a backward walk over each block starting at its
//! live-out set (`cfg::Liveness` for virtual registers, `PhysLiveness` for
//! physical ones), so they are exact at every point, mid-block branches and
//! guarded writes included (a guarded write keeps the old value alive, and
//! so does a plain write of part of a tuple), then cut to the points some
//! write reaches ([`crate::defined`]: a value only ever written under a
//! guard is not live above its first write). A tuple is one unit whose
//! width is that of the whole register, however its parts are named.
//!
//! Uniform registers (UR, UP) are then widened over the divergent regions
//! they touch ([`crate::uniform`]): one per warp, they must survive the
//! interleaved sides of a split warp.

use cfg::{Cfg, DomTree, Liveness, LoopNest, VReg, VRegSpace, branch_targets};
use fixedbitset::FixedBitSet;
use ori_ir::{Function, Inst, InstId, Opcode, OperandFlags, OperandKind, Reg, RegFile};

use crate::defined::Defined;
use crate::divergence::DivergentRegions;
use crate::phys_live::{PhysEffects, PhysLiveness};
use crate::uniform;
use crate::units::{UNIT_COUNT, Unit, units_of};

/// A closed interval of program points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Range {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// A register another one is copied from or to: the allocator tries to
/// give both the same register so that the copy disappears.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hint {
    /// A virtual register, by bit.
    VReg(usize),
    /// A physical register (its first unit).
    Unit(Unit),
}

/// What the allocator knows about one virtual register.
#[derive(Clone, Debug, Default)]
pub(crate) struct VRegInfo {
    /// Width in 32-bit words; 0 when the function never names it.
    pub(crate) width: u8,
    /// Where it is live, sorted and disjoint.
    pub(crate) ranges: Vec<Range>,
    /// Spill cost: its reads and writes, each weighted by the loop depth
    /// of its block.
    pub(crate) weight: f64,
    /// A copy partner.
    pub(crate) hint: Option<Hint>,
}

impl VRegInfo {
    /// Number of points covered.
    pub(crate) fn size(&self) -> u64 {
        self.ranges.iter().map(|r| u64::from(r.end - r.start) + 1).sum()
    }
}

/// Live ranges of a function's virtual registers and pinned units.
pub(crate) struct LiveRanges {
    /// The numbering of virtual registers.
    pub(crate) space: VRegSpace,
    /// Per virtual register, by its bit in `space`.
    pub(crate) vregs: Vec<VRegInfo>,
    /// Per unit: where a physical register named in the code holds a
    /// value (or is written).
    pub(crate) units: Vec<Vec<Range>>,
    /// Number of points.
    pub(crate) points: u32,
}

/// Relative cost of a spill instruction per loop level: a loop is taken
/// to run this many times (the seed weighs spill cost by loop frequency).
const LOOP_WEIGHT: f64 = 8.0;

/// Deeper loops weigh no more than this many levels.
const MAX_LOOP_DEPTH: u32 = 6;

impl LiveRanges {
    /// Computes the ranges of `func`.
    pub(crate) fn compute(func: &Function) -> LiveRanges {
        let cfg = Cfg::compute(func);
        let live = Liveness::compute(func, &cfg);
        let loops = LoopNest::compute(func, &cfg, &DomTree::compute(&cfg));
        let effects = PhysEffects::of(func);
        let phys = PhysLiveness::compute(func, &cfg, &effects);
        let space = live.space();
        let defined = Defined::compute(func, &cfg, &live);
        let mut b = Builder {
            widths: func.vreg_widths(),
            space,
            vregs: vec![VRegInfo::default(); space.len()],
            units: vec![Vec::new(); UNIT_COUNT],
            vreg_end: vec![0; space.len()],
            unit_end: vec![0; UNIT_COUNT],
            top_write: vec![(usize::MAX, 0); space.len()],
            block_seq: 0,
        };
        let mut k: u32 = 0;
        for (seq, &block) in func.layout.iter().enumerate() {
            b.block_seq = seq;
            let insts = &func.blocks[block].insts;
            let Some(count) = u32::try_from(insts.len()).ok().filter(|&n| n > 0) else { continue };
            let (first, last) = (2 * k, 2 * (k + count) - 1);
            let freq = LOOP_WEIGHT.powi(loops.depth(block).min(MAX_LOOP_DEPTH) as i32);
            let mut vlive = live.live_out(block).clone();
            let mut plive = phys.live_out(block).clone();
            for v in vlive.iter() {
                let bit = b.bit(v);
                b.vreg_end[bit] = last;
            }
            for u in plive.ones() {
                b.unit_end[u] = last;
            }
            // The read point of the nearest `WARPGROUP.DEPBAR` below.
            let mut wait_pt = None;
            for (j, &id) in insts.iter().enumerate().rev() {
                let inst = &func.insts[id];
                let (use_pt, def_pt) = (2 * (k + j as u32), 2 * (k + j as u32) + 1);
                if inst.op == Opcode::WARPGROUP && inst.has_mod("DEPBAR") {
                    wait_pt = Some(use_pt);
                }
                // Values live into a mid-block branch's targets are live
                // after it.
                for target in branch_targets(inst) {
                    for v in live.live_in(target).iter() {
                        if !vlive.contains(v) {
                            vlive.insert(v);
                            let bit = b.bit(v);
                            b.vreg_end[bit] = def_pt;
                        }
                    }
                    for u in phys.live_in(target).ones() {
                        if !plive.put(u) {
                            b.unit_end[u] = def_pt;
                        }
                    }
                }
                let at = Point { use_pt, def_pt, freq };
                b.defs(inst, &effects, &mut vlive, &mut plive, at);
                b.uses(id, inst, &effects, &mut vlive, &mut plive, at);
                if let Some(a) = register_a(inst) {
                    b.hold(a, wait_pt.unwrap_or(last));
                }
                b.hint(inst);
            }
            // A value live at the top of the block that no write reaches
            // there holds nothing until its first write in the block
            // (`defined`); with no write above the range's end, nowhere.
            for v in vlive.iter() {
                let bit = b.bit(v);
                let end = b.vreg_end[bit];
                let start = match b.top_write[bit] {
                    _ if defined.may_hold(block, v) => first,
                    (s, w) if s == seq && w <= end => w,
                    _ => continue,
                };
                b.vregs[bit].ranges.push(Range { start, end });
            }
            for u in plive.ones() {
                b.units[u].push(Range { start: first, end: b.unit_end[u] });
            }
            k += count;
        }
        for info in &mut b.vregs {
            normalize(&mut info.ranges);
        }
        for ranges in &mut b.units {
            normalize(ranges);
        }
        let mut lr = LiveRanges { space, vregs: b.vregs, units: b.units, points: 2 * k };
        uniform::widen(func, &DivergentRegions::compute(func, &cfg), &mut lr);
        lr
    }
}

/// Where an instruction sits in the backward walk: its read and write
/// points and how often it runs (the weight its registers gain).
#[derive(Clone, Copy)]
struct Point {
    use_pt: u32,
    def_pt: u32,
    freq: f64,
}

impl LiveRanges {
    /// The highest R pressure (words of virtual registers live) and the
    /// points where it occurs.
    pub(crate) fn r_peak(&self) -> (u32, Vec<u32>) {
        let lr = self;
        let mut diff = vec![0i64; lr.points as usize + 2];
        for bit in lr.space.file_bits(RegFile::R) {
            let info = &lr.vregs[bit];
            for r in &info.ranges {
                diff[r.start as usize] += i64::from(info.width);
                diff[r.end as usize + 1] -= i64::from(info.width);
            }
        }
        let mut pressure = Vec::with_capacity(lr.points as usize);
        let mut running = 0i64;
        for d in &diff[..lr.points as usize] {
            running += d;
            pressure.push(running);
        }
        let max = pressure.iter().copied().max().unwrap_or(0);
        let points = (0..lr.points).filter(|&p| pressure[p as usize] == max).collect();
        (u32::try_from(max).unwrap_or(u32::MAX), points)
    }
}

/// Accumulates ranges during the backward walk.
struct Builder {
    /// Width of each virtual register as a whole.
    widths: ori_ir::FxHashMap<(ori_ir::RegFile, u32), u8>,
    space: VRegSpace,
    vregs: Vec<VRegInfo>,
    units: Vec<Vec<Range>>,
    /// End point of the open range of each live virtual register.
    vreg_end: Vec<u32>,
    /// End point of the open range of each live unit.
    unit_end: Vec<u32>,
    /// Per virtual register, the block (its position in the layout) and
    /// point of the topmost write seen so far in the backward walk.
    top_write: Vec<(usize, u32)>,
    /// Position in the layout of the block being walked.
    block_seq: usize,
}

impl Builder {
    fn bit(&self, v: VReg) -> usize {
        // Every register of the function has a bit: the space is sized from
        // the registers the instructions name.
        self.space.bit(v).expect("register of the function")
    }

    /// Closes or records the ranges of what `inst` writes. An unguarded
    /// write ends the value that was live above it; a guarded one does
    /// not (the old value survives when the guard is false). A write that
    /// nothing reads still occupies its register at the write.
    fn defs(
        &mut self,
        inst: &Inst,
        effects: &PhysEffects,
        vlive: &mut cfg::RegSet,
        plive: &mut FixedBitSet,
        at: Point,
    ) {
        let Point { use_pt, def_pt, freq } = at;
        let unguarded = inst.guard.is_none();
        for reg in inst.written_regs() {
            let kills = inst.killed_regs().any(|k| k == reg);
            if let Some(v) = VReg::of(reg) {
                // A virtual result starts at its write, matrix results
                // too: the sources they must avoid reach the write point
                // instead (`clobbered_source`), so that the accumulator
                // they may share does not conflict with them.
                let start = def_pt;
                let bit = self.bit(v);
                self.top_write[bit] = (self.block_seq, def_pt);
                let width = self.widths[&(v.file, v.num)];
                let info = &mut self.vregs[bit];
                info.width = width;
                info.weight += freq;
                if !vlive.contains(v) {
                    info.ranges.push(Range { start, end: def_pt });
                } else if kills {
                    info.ranges.push(Range { start, end: self.vreg_end[bit] });
                    vlive.remove(v);
                }
            } else {
                let start = if early_clobber(inst, reg) { use_pt } else { def_pt };
                for u in units_of(reg) {
                    self.def_unit(u, plive, start, def_pt, kills);
                }
            }
        }
        effects.implicit_defs(inst, |u| self.def_unit(u, plive, def_pt, def_pt, unguarded));
    }

    fn def_unit(&mut self, u: Unit, plive: &mut FixedBitSet, start: u32, def_pt: u32, kills: bool) {
        if !plive.contains(u) {
            self.units[u].push(Range { start, end: def_pt });
        } else if kills {
            self.units[u].push(Range { start, end: self.unit_end[u] });
            plive.remove(u);
        }
    }

    /// Opens ranges for what `inst` reads.
    fn uses(
        &mut self,
        id: InstId,
        inst: &Inst,
        effects: &PhysEffects,
        vlive: &mut cfg::RegSet,
        plive: &mut FixedBitSet,
        at: Point,
    ) {
        let Point { use_pt, freq, .. } = at;
        for reg in inst.read_regs() {
            if let Some(v) = VReg::of(reg) {
                let bit = self.bit(v);
                let width = self.widths[&(v.file, v.num)];
                let info = &mut self.vregs[bit];
                info.width = width;
                info.weight += freq;
                if !vlive.contains(v) {
                    vlive.insert(v);
                    self.vreg_end[bit] = if clobbered_source(inst, reg) { use_pt + 1 } else { use_pt };
                }
            }
        }
        effects.uses(id, inst, |u| {
            if !plive.put(u) {
                self.unit_end[u] = use_pt;
            }
        });
    }

    /// Keeps virtual register `reg`, read here, live down to point `end`.
    fn hold(&mut self, reg: Reg, end: u32) {
        if let Some(v) = VReg::of(reg) {
            let bit = self.bit(v);
            self.vreg_end[bit] = self.vreg_end[bit].max(end);
        }
    }

    /// Records a copy between registers of the same file and width, or a
    /// matrix result and its accumulator (in place, as NVIDIA's code
    /// updates it: `HMMA.16816.F32 R4, R12, R20, R4`).
    fn hint(&mut self, inst: &Inst) {
        let Some((dst, src)) = plain_copy(inst).or_else(|| self.accumulator(inst)) else { return };
        match (VReg::of(dst), VReg::of(src)) {
            (Some(d), Some(s)) => {
                let (d, s) = (self.bit(d), self.bit(s));
                self.vregs[d].hint.get_or_insert(Hint::VReg(s));
                self.vregs[s].hint.get_or_insert(Hint::VReg(d));
            }
            (Some(d), None) => {
                let bit = self.bit(d);
                self.vregs[bit].hint.get_or_insert(Hint::Unit(units_of(src).start));
            }
            (None, Some(s)) => {
                let bit = self.bit(s);
                self.vregs[bit].hint.get_or_insert(Hint::Unit(units_of(dst).start));
            }
            (None, None) => {}
        }
    }
}

impl Builder {
    /// The result and the accumulator (last source) of a matrix
    /// instruction, when each is a whole virtual register of the same
    /// width.
    fn accumulator(&self, inst: &Inst) -> Option<(Reg, Reg)> {
        if !matches!(inst.op, Opcode::HMMA | Opcode::IMMA | Opcode::DMMA) || inst.guard.is_some() {
            return None;
        }
        let dst = inst.defs.first()?.as_reg()?;
        let src = inst.uses.last()?.as_reg()?;
        let whole =
            |r: Reg| r.is_virtual && r.words().start == 0 && self.widths.get(&(r.file, r.num)) == Some(&r.width);
        (whole(dst) && whole(src) && dst.file == src.file && dst.width == src.width).then_some((dst, src))
    }
}

/// `dst = MOV src` between two whole registers: a copy the allocator can
/// make vanish by giving both the same register (a part of a tuple would
/// need the tuple placed around it, which a hint does not say).
pub(crate) fn plain_copy(inst: &Inst) -> Option<(Reg, Reg)> {
    plain_mov(inst).filter(|(d, s)| d.word.is_none() && s.word.is_none())
}

/// `dst = MOV src`, unguarded, unmodified, between two non-zero registers
/// of the same file and width.
pub(crate) fn plain_mov(inst: &Inst) -> Option<(Reg, Reg)> {
    if inst.op != Opcode::MOV || inst.guard.is_some() || !inst.mods.is_empty() || inst.uses.len() != 1 {
        return None;
    }
    let dst = inst.defs.first()?.as_reg()?;
    let src = &inst.uses[0];
    let OperandKind::Reg(src_reg) = src.kind else { return None };
    let same_shape = dst.file == src_reg.file && dst.width == src_reg.width;
    (src.flags == OperandFlags::default() && same_shape && !dst.is_zero() && !src_reg.is_zero())
        .then_some((dst, src_reg))
}

/// True when the result `def` of `inst` must not share a register with
/// the sources of `inst` of another width (it then starts at the read
/// point). Ordinary instructions read every source before writing: NVIDIA's
/// own code writes `IMAD.WIDE R10, R11, 0x8, R12` and `LDG R3, [R2.64]`.
/// Matrix instructions read their operands over several cycles; there the
/// allocator keeps the result off sources it only partly overlaps (an
/// accumulator of the same shape may still be updated in place).
pub(crate) fn early_clobber(inst: &Inst, def: Reg) -> bool {
    matches!(inst.op, Opcode::HMMA | Opcode::IMMA | Opcode::DMMA | Opcode::HGMMA)
        && inst.uses.iter().flat_map(|op| op.regs()).any(|r| r.file == def.file && !r.is_zero() && r.width != def.width)
}

/// The A fragment of a warpgroup MMA that reads A from registers
/// (`HGMMA R24, R88, gdesc[UR8], R24`). The MMA reads it asynchronously,
/// until the `WARPGROUP.DEPBAR` that waits for it (PTX ISA: wgmma's
/// register operands must not be modified before the wait), so it stays
/// live down to the next one in its block (to the block's end when that
/// has none).
fn register_a(inst: &Inst) -> Option<Reg> {
    if !inst.op.is_warpgroup_mma() {
        return None;
    }
    inst.uses.first().and_then(ori_ir::Operand::as_reg).filter(|r| r.file == RegFile::R && !r.is_zero())
}

/// True when source `src` of `inst` must stay clear of a result of
/// `inst`: a source of a matrix instruction of another shape than a result
/// ([`early_clobber`]). Its range then reaches the write point, so that
/// the result avoids it while an accumulator of the result's shape, dying
/// at the read point, may still share the result's register (NVIDIA's
/// `HMMA.16816.F32 R4, R12, R20, R4`).
fn clobbered_source(inst: &Inst, src: Reg) -> bool {
    !src.is_zero() && inst.written_regs().any(|d| early_clobber(inst, d) && d.file == src.file && d.width != src.width)
}

/// Sorts ranges and merges those that touch.
pub(crate) fn normalize(ranges: &mut Vec<Range>) {
    ranges.sort_unstable();
    let mut out: Vec<Range> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match out.last_mut() {
            Some(last) if r.start <= last.end + 1 => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    *ranges = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::RegFile;

    fn ranges(text: &str) -> (Function, LiveRanges) {
        let func = ori_ir::text::parse_function(text).unwrap();
        let lr = LiveRanges::compute(&func);
        (func, lr)
    }

    fn of(lr: &LiveRanges, file: RegFile, num: u32) -> Vec<(u32, u32)> {
        let bit = lr.space.bit(VReg { file, num }).unwrap();
        lr.vregs[bit].ranges.iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn straight_line_ranges_end_at_the_last_read() {
        let (_, lr) = ranges(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %r1 = IADD3 %r0, 0x1, RZ
    %r2 = IADD3 %r0, %r1, RZ
    STG.E [%r4.64], %r2
    EXIT
}
",
        );
        assert_eq!(lr.points, 10);
        assert_eq!(of(&lr, RegFile::R, 0), [(1, 4)]);
        assert_eq!(of(&lr, RegFile::R, 1), [(3, 4)]);
        assert_eq!(of(&lr, RegFile::R, 2), [(5, 6)]);
        assert_eq!(of(&lr, RegFile::R, 4), [(0, 6)], "read but never written: live from the entry");
    }

    #[test]
    fn loop_carried_values_cover_the_whole_loop() {
        let (_, lr) = ranges(
            "
.entry k {
bb0:
    %r0 = MOV 0x0
bb1:
    %r0 = IADD3 %r0, 0x1, RZ
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb1
bb2:
    STG.E [%r4.64], %r0
    EXIT
}
",
        );
        assert_eq!(of(&lr, RegFile::R, 0), [(1, 8)]);
        assert_eq!(of(&lr, RegFile::P, 0), [(5, 6)]);
        let bit = lr.space.bit(VReg { file: RegFile::R, num: 0 }).unwrap();
        assert_eq!(lr.vregs[bit].weight, 1.0 + 3.0 * 8.0 + 1.0, "reads and writes inside the loop weigh 8");
    }

    #[test]
    fn dead_and_guarded_writes() {
        let (_, lr) = ranges(
            "
.entry k {
bb0:
    %r0 = MOV 0x1
    @%p0 %r0 = MOV 0x2
    %r1 = MOV 0x3
    STG.E [%r4.64], %r0
    EXIT
}
",
        );
        assert_eq!(of(&lr, RegFile::R, 0), [(1, 6)], "the guarded write does not end the first value");
        assert_eq!(of(&lr, RegFile::R, 1), [(5, 5)], "a dead write still takes its register at the write");
    }

    #[test]
    fn only_matrix_results_avoid_partly_overlapping_sources() {
        let (_, lr) = ranges(
            "
.entry k {
bb0:
    %r2.64 = LDC.64 c[0x0][0x210]
    %r0 = LDG.E [%r2.64]
    %r4.64 = IMAD.WIDE %r0, 0x4, %r2.64
    %r16.128 = HMMA.16816.F32 %r12.64, %r0, %r8.128
    STG.E.128 [%r4.64], %r16.128
    EXIT
}
",
        );
        assert_eq!(of(&lr, RegFile::R, 0), [(3, 7)], "a source of another shape reaches the HMMA's write");
        assert_eq!(of(&lr, RegFile::R, 12), [(0, 7)], "so does the B fragment");
        assert_eq!(of(&lr, RegFile::R, 8), [(0, 6)], "the accumulator of the result's shape ends at the read");
        assert_eq!(of(&lr, RegFile::R, 4), [(5, 8)], "IMAD.WIDE may write over its sources");
        assert_eq!(of(&lr, RegFile::R, 16), [(7, 8)], "an HMMA result starts at its write point");
    }

    #[test]
    fn pinned_registers_and_calls() {
        let (_, lr) = ranges(
            "
.func f {
bb0:
    %r0 = S2R SR_TID.X
    R4 = MOV %r0
    CALL.REL.NOINC `(g)
    %r1 = MOV R4
    STG.E [%r2.64], %r0
    RET.REL.NODEC R20.64
}
",
        );
        // RET reads only what its block writes after the call: R4 is free
        // once the result is copied out.
        assert_eq!(lr.units[4], [Range { start: 3, end: 6 }], "argument, then result");
        assert_eq!(lr.units[0], [Range { start: 5, end: 5 }], "R0 is clobbered by the call");
        assert_eq!(of(&lr, RegFile::R, 0), [(1, 8)], "so %r0, live across it, cannot take R0");
        let bit = lr.space.bit(VReg { file: RegFile::R, num: 1 }).unwrap();
        assert_eq!(lr.vregs[bit].hint, Some(Hint::Unit(4)));
    }
}
