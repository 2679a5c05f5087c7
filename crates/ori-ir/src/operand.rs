//! Instruction operands.

use crate::function::BlockId;
use crate::reg::{Reg, SpecialReg};

/// An immediate value, typed so that it prints and folds as what it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Imm {
    /// An integer (sign-extended as the instruction reads it).
    Int(i64),
    /// An IEEE binary32 value, as bits (so NaN payloads survive).
    F32(u32),
    /// An IEEE binary64 value, as bits.
    F64(u64),
}

/// Where a constant-bank reference takes its bank from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bank {
    /// A fixed bank: `c[0x0]`.
    Fixed(u8),
    /// A bank index held in a uniform register: `cx[UR4]`.
    Indexed(Reg),
}

/// A constant-bank reference `c[bank][reg + offset]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CBank {
    /// The bank.
    pub bank: Bank,
    /// Optional register added to the offset.
    pub reg: Option<Reg>,
    /// Byte offset.
    pub offset: i32,
}

/// A memory address `desc[UR][base + ubase + offset]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Address {
    /// 64-bit memory descriptor held in a uniform register pair
    /// (`desc[UR4]`, global accesses on sm_80+).
    pub desc: Option<Reg>,
    /// `desc` is the access's own L2 cache policy (`.L2::cache_hint`),
    /// not the global memory descriptor: sm_80 marks such an address with
    /// a bit of its own, and only then does nvdisasm print its `desc[UR]`.
    pub policy: bool,
    /// Per-thread base register (a pair for 64-bit addresses).
    pub base: Option<Reg>,
    /// Uniform base register.
    pub ubase: Option<Reg>,
    /// Byte offset.
    pub offset: i64,
    /// Multiplier applied to `base` (`[R5.X4]`, shared-memory accesses).
    pub scale: Scale,
    /// `base` is one register zero-extended to 64 bits before the 64-bit
    /// uniform base is added (`[R8.U32+UR4]`, Turing's global accesses);
    /// without it a one-register global base stands for a pair.
    pub base_u32: bool,
}

/// Multiplier applied to an address's base register, spelled `.X4` etc.
/// after the register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scale {
    /// Unscaled.
    #[default]
    X1,
    /// Times 4.
    X4,
    /// Times 8.
    X8,
    /// Times 16.
    X16,
}

impl Scale {
    /// The suffix written after the base register (empty when unscaled).
    pub fn suffix(self) -> &'static str {
        match self {
            Scale::X1 => "",
            Scale::X4 => ".X4",
            Scale::X8 => ".X8",
            Scale::X16 => ".X16",
        }
    }
}

/// What an operand is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A register or register tuple.
    Reg(Reg),
    /// A special register (`SR_TID.X`).
    Special(SpecialReg),
    /// The whole predicate file as a bit mask (`PR` / `UPR`, for P2R/R2P).
    PredFile {
        /// `UPR` rather than `PR`.
        uniform: bool,
    },
    /// A scoreboard (`SB0`..`SB5`, for DEPBAR).
    Scoreboard(u8),
    /// An immediate.
    Imm(Imm),
    /// A constant-bank reference.
    CBank(CBank),
    /// A memory address.
    Mem(Address),
    /// A basic block of the same function (branch target).
    Label(BlockId),
    /// A function or global symbol, by name.
    Symbol(String),
    /// A wgmma matrix descriptor in a uniform register pair (`gdesc[UR4]`,
    /// sm_90a HGMMA).
    MatrixDesc(Reg),
    /// A warpgroup MMA scoreboard (`gsb0`, HGMMA and WARPGROUP.DEPBAR).
    GroupScoreboard(u8),
}

/// Source-operand modifiers as nvdisasm prints them, and one marker on
/// definitions ([`OperandFlags::undef`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct OperandFlags {
    /// Arithmetic negation `-x`.
    pub neg: bool,
    /// Absolute value `|x|`.
    pub abs: bool,
    /// Logical not of a predicate `!P0`.
    pub not: bool,
    /// Bitwise complement `~R0`.
    pub bitnot: bool,
    /// Keep the register in the operand reuse cache (`.reuse`).
    pub reuse: bool,
    /// Which 16-bit halves of a packed pair the operand supplies
    /// (`R5.H0_H0`); `None` takes the pair as it is.
    pub halves: Option<Halves>,
    /// The matrix layout of an `IMMA` input (`R12.ROW`, `R16.COL`).
    pub layout: Option<Layout>,
    /// On a definition of part of a virtual tuple (`undef %r5:0 = ...`):
    /// the words this instruction does not write hold nothing worth
    /// keeping, so the write starts a new value of the whole tuple and ends
    /// the old one's life (LLVM's read-undef). Without it a partial write
    /// keeps the rest of the tuple alive through it. On a guarded write of
    /// a whole register: nothing before it is read, so the write ends the
    /// old life though it may not happen ([`Inst::killed_regs`](crate::Inst::killed_regs)).
    pub undef: bool,
}

/// A selection of 16-bit halves of a packed register, or of the 32-bit
/// halves of a register pair, as nvdisasm spells it after the operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Halves {
    /// The low half in both lanes (`.H0_H0`).
    H0H0,
    /// The high half in both lanes (`.H1_H1`).
    H1H1,
    /// The high half alone (`.H1`: `F2FP...UNPACK_B` unpacks the two 8-bit
    /// values of the high half rather than the low one).
    H1,
    /// Blackwell's packed f32 pair as it is, each lane its own word
    /// (`FADD2 R12, R4.F32x2.HI_LO, R6.F32x2.HI_LO`).
    F32x2HiLo,
    /// One 32-bit register read for both words of a Blackwell packed f32
    /// pair (`FADD2 R12, R12.F32x2.HI_LO, -R2.F32`: `R2` is subtracted
    /// from each word); on a packed-half source, NVIDIA's `HADD2.F32 R0,
    /// -RZ, R2.F32` (an f32 operand of a half operation).
    F32,
}

impl Halves {
    /// Every selection, longer suffixes first (`.H1_H1` before `.H1`,
    /// `.F32x2.HI_LO` before `.F32`).
    pub const ALL: [Halves; 5] = [Halves::H0H0, Halves::H1H1, Halves::H1, Halves::F32x2HiLo, Halves::F32];

    /// The suffix written after the operand.
    pub fn suffix(self) -> &'static str {
        match self {
            Halves::H0H0 => ".H0_H0",
            Halves::H1H1 => ".H1_H1",
            Halves::H1 => ".H1",
            Halves::F32x2HiLo => ".F32x2.HI_LO",
            Halves::F32 => ".F32",
        }
    }
}

/// The layout marker nvdisasm prints after a matrix input: after an
/// `IMMA` input (after `.reuse`), A row-major or B column-major; after the
/// descriptors of a warpgroup MMA (`gdesc[UR4].tnspB`), which of its
/// shared-memory operands are stored transposed (MN-major; wgmma's
/// `imm-trans-a`/`imm-trans-b`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `.ROW`.
    Row,
    /// `.COL`.
    Col,
    /// `.tnspA.tnspB`: A and B transposed.
    TnspAB,
    /// `.tnspA`: A transposed.
    TnspA,
    /// `.tnspB`: B transposed.
    TnspB,
}

impl Layout {
    /// Every layout, longer suffixes before their prefixes and tails
    /// (`.tnspA.tnspB` before `.tnspA` and `.tnspB`), as parsers match.
    pub const ALL: [Layout; 5] = [Layout::Row, Layout::Col, Layout::TnspAB, Layout::TnspA, Layout::TnspB];

    /// The suffix written after the operand.
    pub fn suffix(self) -> &'static str {
        match self {
            Layout::Row => ".ROW",
            Layout::Col => ".COL",
            Layout::TnspAB => ".tnspA.tnspB",
            Layout::TnspA => ".tnspA",
            Layout::TnspB => ".tnspB",
        }
    }

    /// The warpgroup-MMA transposition of A and B, as a layout (`None`
    /// when neither operand is transposed).
    pub fn transposed(a: bool, b: bool) -> Option<Layout> {
        match (a, b) {
            (true, true) => Some(Layout::TnspAB),
            (true, false) => Some(Layout::TnspA),
            (false, true) => Some(Layout::TnspB),
            (false, false) => None,
        }
    }
}

/// An operand: what it is plus how it is modified.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The operand itself.
    pub kind: OperandKind,
    /// Its modifiers.
    pub flags: OperandFlags,
}

impl Operand {
    /// A register operand without modifiers.
    pub fn reg(reg: Reg) -> Operand {
        OperandKind::Reg(reg).into()
    }

    /// An integer immediate.
    pub fn int(value: i64) -> Operand {
        OperandKind::Imm(Imm::Int(value)).into()
    }

    /// A binary32 immediate.
    pub fn f32(value: f32) -> Operand {
        OperandKind::Imm(Imm::F32(value.to_bits())).into()
    }

    /// `c[bank][offset]`.
    pub fn cbank(bank: u8, offset: i32) -> Operand {
        OperandKind::CBank(CBank { bank: Bank::Fixed(bank), reg: None, offset }).into()
    }

    /// A branch target.
    pub fn label(block: BlockId) -> Operand {
        OperandKind::Label(block).into()
    }

    /// The register, if this operand is one.
    pub fn as_reg(&self) -> Option<Reg> {
        match self.kind {
            OperandKind::Reg(r) => Some(r),
            _ => None,
        }
    }

    /// Registers this operand reads when used as a source: the register
    /// itself, or the registers inside an address or bank reference.
    pub fn regs(&self) -> impl Iterator<Item = Reg> + '_ {
        self.reg_slots().into_iter().flatten()
    }

    /// The registers [`regs`](Self::regs) lists, in its order, as three
    /// slots (`None` where there is none): for walks that visit every
    /// operand of every instruction and cannot afford an iterator adapter
    /// per operand.
    pub fn reg_slots(&self) -> [Option<Reg>; 3] {
        match &self.kind {
            OperandKind::Reg(r) => [Some(*r), None, None],
            OperandKind::CBank(cb) => {
                let bank = match cb.bank {
                    Bank::Indexed(r) => Some(r),
                    Bank::Fixed(_) => None,
                };
                [bank, cb.reg, None]
            }
            OperandKind::Mem(addr) => [addr.desc, addr.base, addr.ubase],
            OperandKind::MatrixDesc(r) => [Some(*r), None, None],
            _ => [None, None, None],
        }
    }

    /// The registers [`regs`](Self::regs) lists, to rewrite them in place.
    pub fn regs_mut(&mut self) -> impl Iterator<Item = &mut Reg> + '_ {
        let (a, b, c) = match &mut self.kind {
            OperandKind::Reg(r) | OperandKind::MatrixDesc(r) => (Some(r), None, None),
            OperandKind::CBank(cb) => {
                let bank = match &mut cb.bank {
                    Bank::Indexed(r) => Some(r),
                    Bank::Fixed(_) => None,
                };
                (bank, cb.reg.as_mut(), None)
            }
            OperandKind::Mem(addr) => (addr.desc.as_mut(), addr.base.as_mut(), addr.ubase.as_mut()),
            _ => (None, None, None),
        };
        [a, b, c].into_iter().flatten()
    }

    /// Same operand, negated.
    pub fn negated(mut self) -> Operand {
        self.flags.neg = !self.flags.neg;
        self
    }

    /// Same operand, logically inverted (predicates).
    pub fn inverted(mut self) -> Operand {
        self.flags.not = !self.flags.not;
        self
    }

    /// Same definition, marked as starting a new value of its tuple
    /// ([`OperandFlags::undef`]).
    pub fn undef(mut self) -> Operand {
        self.flags.undef = true;
        self
    }
}

impl From<OperandKind> for Operand {
    fn from(kind: OperandKind) -> Operand {
        Operand { kind, flags: OperandFlags::default() }
    }
}

impl From<Reg> for Operand {
    fn from(reg: Reg) -> Operand {
        Operand::reg(reg)
    }
}
