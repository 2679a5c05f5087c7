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
        self.guard.map(|g| g.pred).into_iter().chain(self.uses.iter().flat_map(Operand::regs))
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
