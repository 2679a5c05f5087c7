//! Register units: the grain at which dependencies are tracked.
//!
//! A 64-bit pair `R4.64` is two units (`R4`, `R5`), a predicate is one
//! unit, and the zero registers (`RZ`, `URZ`, `PT`, `UPT`) are none: they
//! are never written and reading them depends on nothing. One unit is not
//! a register: [`Unit::FENCE`], the completion of a proxy fence.

use std::fmt;

use ori_ir::{Inst, Opcode, OperandKind, Reg, RegFile};

/// One 32-bit register, predicate or convergence barrier register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit(u16);

/// First unit of each file, in [`RegFile::ALL`] order, and the end.
const BASE: [u16; 6] = [0, 256, 320, 328, 336, 352];

/// Predicates `P0..P6` / `UP0..UP6` that `PR` / `UPR` stand for.
const PRED_FILE_WIDTH: u32 = 7;

impl Unit {
    /// Number of distinct units.
    pub const COUNT: usize = BASE[5] as usize + 1;

    /// The completion of a proxy fence (`FENCE.VIEW.ASYNC`), tracked like
    /// a register so that the scoreboard machinery orders it: the fence
    /// "writes" it with variable latency, the memory barrier before it
    /// "reads" it late (the fence must wait for the barrier to complete),
    /// and the instructions that hand shared memory to the async proxy
    /// "read" it (they wait for the fence). That is NVIDIA's code exactly:
    /// `MEMBAR.ALL.CTA` sets a read scoreboard, `FENCE.VIEW.ASYNC.S` waits
    /// on it and sets a write scoreboard, and the next `BAR.SYNC` (or
    /// `WARPGROUP.ARRIVE`) waits on that. Ours issued the `BAR` 1 cycle
    /// after the fence with no wait; doing as NVIDIA does did not change
    /// the wrong results of Triton's wgmma matmuls on an H200, so that
    /// cause is elsewhere. Its [`Unit::parts`] are `B16`, past the last
    /// barrier register, so no file test matches it.
    pub const FENCE: Unit = Unit(BASE[5]);

    /// The unit of physical register `num` of `file`; `None` for the zero
    /// registers and numbers outside the file.
    pub fn new(file: RegFile, num: u32) -> Option<Unit> {
        let reg = Reg::phys(file, num);
        (num < file.physical_count() && !reg.is_zero()).then(|| Unit(BASE[file.index()] + num as u16))
    }

    /// Every unit of a physical register or tuple (none for virtual ones,
    /// which carry no hardware timing).
    pub fn of_reg(reg: Reg) -> impl Iterator<Item = Unit> {
        let phys = !reg.is_virtual;
        (0..u32::from(reg.width)).filter_map(move |k| if phys { Unit::new(reg.file, reg.num + k) } else { None })
    }

    /// Dense index, below [`Unit::COUNT`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The register file and number.
    pub fn parts(self) -> (RegFile, u32) {
        let file = (0..5).rev().find(|&f| self.0 >= BASE[f]).unwrap_or(0);
        (RegFile::ALL[file], u32::from(self.0 - BASE[file]))
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Unit::FENCE {
            return f.write_str("fence");
        }
        let (file, num) = self.parts();
        write!(f, "{}{num}", file.physical_prefix())
    }
}

/// Appends [`Unit::of_reg`]'s units of `reg` to `out` (a loop, not the
/// iterator: the scheduler and the scoreboards ask this of every operand).
fn push_units(out: &mut Vec<Unit>, reg: Reg) {
    if reg.is_virtual {
        return;
    }
    for k in 0..u32::from(reg.width) {
        if let Some(u) = Unit::new(reg.file, reg.num + k) {
            out.push(u);
        }
    }
}

/// Units an operand stands for when it is the predicate file (`PR`/`UPR`).
fn pred_file(uniform: bool) -> impl Iterator<Item = Unit> {
    let file = if uniform { RegFile::UP } else { RegFile::P };
    (0..PRED_FILE_WIDTH).filter_map(move |n| Unit::new(file, n))
}

/// Units an instruction reads: guard, sources, address and bank registers,
/// and the predicate file for `P2R`.
pub fn reads(inst: &Inst) -> Vec<Unit> {
    let mut out = Vec::with_capacity(8);
    inst.read_regs().for_each(|r| push_units(&mut out, r));
    if awaits_fence(inst) {
        out.push(Unit::FENCE);
    }
    for op in &inst.uses {
        if let OperandKind::PredFile { uniform } = op.kind {
            out.extend(pred_file(uniform));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Units an instruction writes, the predicate file for `R2P` included.
pub fn writes(inst: &Inst) -> Vec<Unit> {
    let mut out = Vec::with_capacity(4);
    inst.written_regs().for_each(|r| push_units(&mut out, r));
    if inst.op == Opcode::FENCE {
        out.push(Unit::FENCE);
    }
    for op in &inst.defs {
        if let OperandKind::PredFile { uniform } = op.kind {
            out.extend(pred_file(uniform));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Instructions that read [`Unit::FENCE`]: the memory barrier a fence
/// follows, and what hands shared memory to the async proxy after it (CTA
/// barriers, `WARPGROUP.ARRIVE` before `HGMMA`, bulk and tensor copies).
fn awaits_fence(inst: &Inst) -> bool {
    matches!(
        inst.op,
        Opcode::MEMBAR
            | Opcode::BAR
            | Opcode::WARPGROUP
            | Opcode::UBLKCP
            | Opcode::UTMALDG
            | Opcode::UTMASTG
            | Opcode::UTMACMDFLUSH
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_expand_and_zero_registers_vanish() {
        let pair: Vec<_> = Unit::of_reg(Reg::phys(RegFile::R, 4).wide(2)).map(|u| u.to_string()).collect();
        assert_eq!(pair, ["R4", "R5"]);
        assert_eq!(Unit::of_reg(Reg::RZ).count(), 0);
        assert_eq!(Unit::of_reg(Reg::PT).count(), 0);
        assert_eq!(Unit::of_reg(Reg::virt(RegFile::R, 3)).count(), 0);
        assert_eq!(Unit::new(RegFile::UP, 2).map(|u| u.to_string()), Some("UP2".into()));
        assert_eq!(Unit::new(RegFile::B, 15).map(|u| u.index()), Some(Unit::FENCE.index() - 1));
        assert_eq!(Unit::FENCE.index(), Unit::COUNT - 1);
    }
}
