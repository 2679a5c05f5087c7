//! Instructions.

use crate::opcode::{Modifier, Opcode};
use crate::operand::Operand;
use crate::reg::Reg;

/// The predicate guarding an instruction: `@P0` or `@!P0`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register (`P` or `UP` file).
    pub pred: Reg,
    /// Execute when the predicate is false.
    pub negated: bool,
}

/// The scheduling control word of sm_70+ SASS (bits 105..=125 of an
/// instruction, oracle-facts §6), set by the scheduler.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ctrl {
    /// Cycles to stall before issuing the next instruction (0..=15).
    pub stall: u8,
    /// Let the warp scheduler switch warps after this instruction.
    pub yield_: bool,
    /// Scoreboard (0..=5) signalled when the result is written.
    pub write_sb: Option<u8>,
    /// Scoreboard (0..=5) signalled when the sources have been read.
    pub read_sb: Option<u8>,
    /// Scoreboards to wait for before issuing (bit i = SB i).
    pub wait: u8,
}

impl Ctrl {
    /// Number of scoreboards the hardware has.
    pub const SCOREBOARDS: u8 = 6;
    /// Largest stall count.
    pub const MAX_STALL: u8 = 15;
}

/// Where an instruction came from, for the line tables of `-lineinfo`
/// (`.nv_debug_line_sass` maps code to PTX lines, `.debug_line` to the
/// source lines of the PTX's `.loc` directives).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    /// 1-based line of the PTX statement in its file.
    pub ptx_line: u32,
    /// PTX line of the `.loc` in force (0: none), a key of
    /// [`DebugInfo::locs`](crate::DebugInfo::locs).
    pub loc_line: u32,
}

/// One instruction: `@guard OPCODE.MODS defs, uses`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The opcode.
    pub op: Opcode,
    /// Modifiers in nvdisasm order.
    pub mods: Vec<Modifier>,
    /// Guard predicate; `None` means always executed.
    pub guard: Option<Guard>,
    /// Written operands (registers and predicates), first.
    pub defs: Vec<Operand>,
    /// Read operands.
    pub uses: Vec<Operand>,
    /// Control word, once scheduled.
    pub ctrl: Option<Ctrl>,
    /// The 128-bit machine word, once encoded (low 64 bits first).
    pub encoding: Option<[u64; 2]>,
    /// The PTX statement it was lowered from; `None` for code the
    /// compiler adds on its own (the line tables carry the previous
    /// instruction's line over it).
    pub loc: Option<SrcLoc>,
}

impl Inst {
    /// A new unguarded instruction without modifiers.
    pub fn new(op: Opcode, defs: Vec<Operand>, uses: Vec<Operand>) -> Inst {
        Inst { op, mods: Vec::new(), guard: None, defs, uses, ctrl: None, encoding: None, loc: None }
    }

    /// True when the instruction carries the modifier `name`.
    pub fn has_mod(&self, name: &str) -> bool {
        self.mods.iter().any(|m| m.name() == name)
    }

    /// Registers read by the instruction, the guard included.
    pub fn read_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        ReadRegs { guard: self.guard.map(|g| g.pred), uses: self.uses.iter(), slots: [None; 3], next: 3 }
    }

    /// Registers written by the instruction (zero registers excluded).
    pub fn written_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        self.defs.iter().filter_map(Operand::as_reg).filter(|r| !r.is_zero())
    }

    /// Registers whose previous value ends here because the instruction
    /// surely replaces all of it: unguarded writes of whole registers, and
    /// of parts marked [`OperandFlags::undef`](crate::OperandFlags::undef).
    /// A guarded write may not happen, and a plain partial write keeps the
    /// rest of its tuple, so neither ends anything. A guarded write of a
    /// whole register marked `undef` ends it too: the register holds
    /// nothing anyone reads before it (if-conversion marks the guarded
    /// write of a register written nowhere else, whose readers run under
    /// the same guard); a guarded partial write keeps its tuple either way.
    pub fn killed_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        let unguarded = self.guard.is_none();
        self.defs
            .iter()
            .filter(move |d| {
                d.as_reg().is_some_and(|r| match (unguarded, r.word) {
                    (true, None) => true,
                    (true, Some(_)) | (false, None) => d.flags.undef,
                    (false, Some(_)) => false,
                })
            })
            .filter_map(Operand::as_reg)
            .filter(|r| !r.is_zero())
    }
}

/// The iterator of [`Inst::read_regs`]: the guard, then each source's
/// [`Operand::reg_slots`]. Every liveness walk of every phase goes through
/// it, and the chain of `flat_map`s over three-slot arrays it replaces
/// cost about 25 machine instructions per register.
struct ReadRegs<'a> {
    guard: Option<Reg>,
    uses: std::slice::Iter<'a, Operand>,
    /// The current address or bank operand's registers, from `next` on.
    slots: [Option<Reg>; 3],
    next: usize,
}

impl Iterator for ReadRegs<'_> {
    type Item = Reg;

    #[inline]
    fn next(&mut self) -> Option<Reg> {
        if let Some(g) = self.guard.take() {
            return Some(g);
        }
        loop {
            while self.next < 3 {
                let slot = self.slots[self.next];
                self.next += 1;
                if slot.is_some() {
                    return slot;
                }
            }
            let op = self.uses.next()?;
            if let crate::operand::OperandKind::Reg(r) = op.kind {
                return Some(r);
            }
            self.slots = op.reg_slots();
            self.next = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::{Address, Bank, CBank, OperandKind};
    use crate::reg::RegFile;

    /// `read_regs` lists what the guard and each source's `regs` list, in
    /// that order.
    #[test]
    fn read_regs_is_the_guard_then_each_sources_regs() {
        let r = |n| Reg::virt(RegFile::R, n);
        let u = |n| Reg::virt(RegFile::UR, n);
        let mem = Address { desc: Some(u(1)), base: Some(r(2)), ubase: Some(u(3)), ..Address::default() };
        let bank = CBank { bank: Bank::Indexed(u(4)), reg: Some(r(5)), offset: 8 };
        let uses = vec![
            Operand::reg(r(6)),
            Operand::int(3),
            OperandKind::Mem(mem).into(),
            Operand::cbank(0, 0x160),
            OperandKind::CBank(bank).into(),
            OperandKind::Mem(Address { base: Some(r(7)), ..Address::default() }).into(),
            Operand::reg(r(8)),
        ];
        let mut inst = Inst::new(Opcode::IADD3, vec![Operand::reg(r(0))], uses);
        let expected: Vec<Reg> = inst.uses.iter().flat_map(Operand::regs).collect();
        assert_eq!(inst.read_regs().collect::<Vec<_>>(), expected);
        assert_eq!(expected, [r(6), u(1), r(2), u(3), u(4), r(5), r(7), r(8)]);
        inst.guard = Some(Guard { pred: Reg::virt(RegFile::P, 1), negated: true });
        let guarded: Vec<Reg> = inst.read_regs().collect();
        assert_eq!(guarded[0], Reg::virt(RegFile::P, 1));
        assert_eq!(guarded[1..], expected[..]);
        assert_eq!(Inst::new(Opcode::NOP, vec![], vec![]).read_regs().count(), 0);
    }
}
