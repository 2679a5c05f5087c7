//! SASS-level opcodes and the facts every phase needs about them, kept as
//! one data table rather than as conditions spread over the passes.

use std::fmt;
use std::ops::RangeInclusive;

/// How long an instruction's result takes, as far as scheduling is
/// concerned.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Latency {
    /// Result ready after a fixed number of cycles; covered by stall counts.
    Fixed,
    /// Result ready at an unknown time (memory, MUFU, S2R, ...); the consumer
    /// must wait on a scoreboard set by the producer.
    Variable,
}

/// Properties of an opcode that passes ask about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct OpFlags(u16);

impl OpFlags {
    /// No flags.
    pub const NONE: OpFlags = OpFlags(0);
    /// Transfers control (may leave the straight-line path).
    pub const BRANCH: OpFlags = OpFlags(1 << 0);
    /// Never falls through to the next instruction when it executes
    /// unconditionally (EXIT, RET, BRA, BRX).
    pub const TERMINATOR: OpFlags = OpFlags(1 << 1);
    /// Calls a function.
    pub const CALL: OpFlags = OpFlags(1 << 2);
    /// Reads memory.
    pub const LOAD: OpFlags = OpFlags(1 << 3);
    /// Writes memory.
    pub const STORE: OpFlags = OpFlags(1 << 4);
    /// Has an effect beyond its register results (synchronisation, fences,
    /// traps, convergence bookkeeping): never deleted as dead code.
    pub const SIDE_EFFECT: OpFlags = OpFlags(1 << 5);
    /// Executes on the uniform datapath.
    pub const UNIFORM: OpFlags = OpFlags(1 << 6);
    /// Only takes effect with all threads of the warp converged (SHFL,
    /// VOTE, MATCH, REDUX, BAR, HMMA, ...).
    pub const WARP_SYNC: OpFlags = OpFlags(1 << 7);

    /// Union of two flag sets.
    pub const fn union(self, other: OpFlags) -> OpFlags {
        OpFlags(self.0 | other.0)
    }

    /// True when every flag of `other` is set.
    pub const fn contains(self, other: OpFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Static facts about one opcode.
#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The mnemonic as nvdisasm prints it.
    pub name: &'static str,
    /// Fixed or variable latency.
    pub latency: Latency,
    /// How many operands the instruction writes (registers and predicates).
    pub defs: RangeInclusive<u8>,
    /// How many operands it reads (the guard predicate not counted).
    pub uses: RangeInclusive<u8>,
    /// Behavioural flags.
    pub flags: OpFlags,
}

macro_rules! opcodes {
    ($($op:ident: $lat:ident, $defs:expr, $uses:expr, $flags:expr;)*) => {
        /// A SASS opcode (the mnemonic without modifiers).
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($op,)* }

        static OP_INFO: &[OpInfo] = &[
            $(OpInfo {
                name: stringify!($op),
                latency: Latency::$lat,
                defs: $defs,
                uses: $uses,
                flags: $flags,
            },)*
        ];

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$op,)*];

            /// Looks an opcode up by mnemonic.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name {
                    $(stringify!($op) => Some(Opcode::$op),)*
                    _ => None,
                }
            }
        }
    };
}

const NONE: OpFlags = OpFlags::NONE;
const BR: OpFlags = OpFlags::BRANCH;
const TERM: OpFlags = OpFlags::BRANCH.union(OpFlags::TERMINATOR);
const LD: OpFlags = OpFlags::LOAD;
const ST: OpFlags = OpFlags::STORE.union(OpFlags::SIDE_EFFECT);
const RMW: OpFlags = OpFlags::LOAD.union(ST);
const FX: OpFlags = OpFlags::SIDE_EFFECT;
const UNI: OpFlags = OpFlags::UNIFORM;
const WS: OpFlags = OpFlags::WARP_SYNC;
const WSFX: OpFlags = WS.union(FX);

// Operand counts follow nvdisasm's operand lists (destinations first, then
// sources, guard excluded); ranges cover the variants (carry-out
// predicates, `.X` carry-in, optional masks). Fixed/variable latency
// follows what NVIDIA's cubins show: variable-latency producers are the
// instructions that set a write scoreboard (oracle-facts §6; measured over
// the corpus by `crates/sched`, whose per-SM tables are authoritative: the
// double-precision ops are variable on sm_80 but fixed on sm_90, and are
// marked variable here, the conservative class).
opcodes! {
    // Integer arithmetic and logic.
    IMAD: Fixed, 1..=2, 3..=4, NONE;
    IDP: Fixed, 1..=1, 3..=3, NONE;
    IADD3: Fixed, 1..=3, 3..=5, NONE;
    // Blackwell's add of two or three sources (`IADD.64 R2, R6, 0x4`, sm_100's
    // `IADD R7, R6, 0x1, R7`), with a carry-out (`IADD RZ, P0, R7, R10`)
    // and, as `.X`, a carry-in (`IADD.X R4, P0, R29, R4, P0`).
    IADD: Fixed, 1..=2, 2..=4, NONE;
    VIADD: Fixed, 1..=1, 2..=2, NONE;
    IABS: Fixed, 1..=1, 1..=1, NONE;
    // sm_120's 64-bit form names two predicate outputs and a second
    // predicate source (`IMNMX.U64 PT, PT, R8, R4, R6, !PT, !PT`).
    IMNMX: Fixed, 1..=3, 3..=4, NONE;
    // sm_100 names two predicate outputs (`VIMNMX R8, PT, PT, R3, 0x1, !PT`).
    VIMNMX: Fixed, 1..=3, 3..=3, NONE;
    VIADDMNMX: Fixed, 1..=1, 4..=4, NONE;
    VABSDIFF: Fixed, 1..=1, 2..=3, NONE;
    VABSDIFF4: Fixed, 1..=1, 3..=3, NONE;
    LOP3: Fixed, 1..=2, 4..=5, NONE;
    SHF: Fixed, 1..=1, 3..=3, NONE;
    LEA: Fixed, 1..=2, 3..=5, NONE;
    PRMT: Fixed, 1..=1, 3..=3, NONE;
    SEL: Fixed, 1..=1, 3..=3, NONE;
    ISETP: Fixed, 2..=2, 3..=4, NONE;
    POPC: Variable, 1..=1, 1..=1, NONE;
    FLO: Variable, 1..=1, 1..=1, NONE;
    BREV: Variable, 1..=1, 1..=1, NONE;
    BMSK: Fixed, 1..=1, 2..=2, NONE;
    SGXT: Fixed, 1..=1, 2..=2, NONE;
    MOV: Fixed, 1..=1, 1..=2, NONE;
    P2R: Fixed, 1..=1, 3..=3, NONE;
    R2P: Fixed, 1..=1, 2..=2, NONE;
    PLOP3: Fixed, 2..=2, 5..=5, NONE;
    // Floating point.
    FADD: Fixed, 1..=1, 2..=2, NONE;
    FMUL: Fixed, 1..=1, 2..=2, NONE;
    FFMA: Fixed, 1..=1, 3..=3, NONE;
    // Blackwell's packed f32 pairs (sm_100: `FADD2 R12, R4.F32x2.HI_LO,
    // R6.F32x2.HI_LO`, each operand a register pair).
    FADD2: Fixed, 1..=1, 2..=2, NONE;
    FMUL2: Fixed, 1..=1, 2..=2, NONE;
    FFMA2: Fixed, 1..=1, 3..=3, NONE;
    FMNMX: Fixed, 1..=1, 3..=3, NONE;
    // Blackwell: min/max of three (`FMNMX3 R27, R12, R23, R25, !PT`).
    FMNMX3: Fixed, 1..=1, 4..=4, NONE;
    FSEL: Fixed, 1..=1, 3..=3, NONE;
    FSETP: Fixed, 2..=2, 3..=4, NONE;
    FCHK: Variable, 1..=1, 2..=2, NONE;
    FRND: Variable, 1..=1, 1..=1, NONE;
    MUFU: Variable, 1..=1, 1..=1, NONE;
    DADD: Variable, 1..=1, 2..=2, NONE;
    DMUL: Variable, 1..=1, 2..=2, NONE;
    DFMA: Variable, 1..=1, 3..=3, NONE;
    DSETP: Variable, 2..=2, 3..=4, NONE;
    // An immediate pair (`HADD2 R3, R0.H0_H0, 1, 1`) is two operands.
    HADD2: Fixed, 1..=1, 2..=3, NONE;
    HMUL2: Fixed, 1..=1, 2..=3, NONE;
    HFMA2: Fixed, 1..=1, 3..=4, NONE;
    HMNMX2: Fixed, 1..=1, 3..=4, NONE;
    HSETP2: Fixed, 2..=2, 3..=5, NONE;
    HSET2: Fixed, 1..=1, 3..=5, NONE;
    // Conversions.
    F2F: Variable, 1..=1, 1..=1, NONE;
    F2I: Variable, 1..=1, 1..=1, NONE;
    I2F: Variable, 1..=1, 1..=1, NONE;
    I2FP: Fixed, 1..=1, 1..=1, NONE;
    F2IP: Fixed, 1..=1, 3..=3, NONE;
    F2FP: Fixed, 1..=1, 1..=3, NONE;
    // Uniform datapath.
    UMOV: Fixed, 1..=1, 1..=1, UNI;
    ULDC: Fixed, 1..=1, 1..=1, UNI.union(LD);
    // Blackwell's uniform constant load.
    LDCU: Variable, 1..=1, 1..=1, UNI.union(LD);
    // Blackwell's uniform float and conversion datapath.
    UFFMA: Fixed, 1..=1, 3..=3, UNI;
    UI2F: Variable, 1..=1, 1..=1, UNI;
    UF2I: Variable, 1..=1, 1..=1, UNI;
    UI2FP: Fixed, 1..=1, 1..=1, UNI;
    UVIMNMX: Fixed, 1..=1, 3..=3, UNI;
    UIADD3: Fixed, 1..=3, 3..=5, UNI;
    UIMAD: Fixed, 1..=2, 3..=4, UNI;
    ULEA: Fixed, 1..=2, 3..=5, UNI;
    USHF: Fixed, 1..=1, 3..=3, UNI;
    USGXT: Fixed, 1..=1, 2..=2, UNI;
    ULOP3: Fixed, 1..=2, 4..=5, UNI;
    USEL: Fixed, 1..=1, 3..=3, UNI;
    UISETP: Fixed, 2..=2, 3..=4, UNI;
    UPLOP3: Fixed, 2..=2, 5..=5, UNI;
    UFLO: Fixed, 1..=1, 1..=1, UNI;
    UPOPC: Fixed, 1..=1, 1..=1, UNI;
    UBREV: Fixed, 1..=1, 1..=1, UNI;
    UPRMT: Fixed, 1..=1, 3..=3, UNI;
    R2UR: Fixed, 1..=1, 1..=1, NONE;
    S2UR: Variable, 1..=1, 1..=1, UNI;
    VOTEU: Fixed, 2..=2, 1..=1, UNI.union(WS);
    // System registers.
    S2R: Variable, 1..=1, 1..=1, NONE;
    CS2R: Fixed, 1..=1, 1..=1, NONE;
    // Memory.
    LDC: Variable, 1..=1, 1..=1, LD;
    LDG: Variable, 1..=1, 1..=1, LD;
    STG: Variable, 0..=0, 2..=2, ST;
    LDS: Variable, 1..=1, 1..=1, LD;
    STS: Variable, 0..=0, 2..=2, ST;
    LDL: Variable, 1..=1, 1..=1, LD;
    STL: Variable, 0..=0, 2..=2, ST;
    LD: Variable, 1..=1, 1..=1, LD;
    ST: Variable, 0..=0, 2..=2, ST;
    ATOM: Variable, 1..=2, 2..=3, RMW;
    ATOMG: Variable, 1..=2, 2..=3, RMW;
    ATOMS: Variable, 1..=1, 1..=3, RMW;
    RED: Variable, 0..=0, 2..=2, ST;
    REDG: Variable, 0..=0, 2..=2, ST;
    LDSM: Variable, 1..=1, 1..=1, LD.union(WS);
    // `stmatrix` (sm_90+): `STSM.16.M88.4 [R72+0x800], R56`.
    STSM: Variable, 0..=0, 2..=2, ST.union(WS);
    LDGSTS: Variable, 0..=0, 2..=3, RMW;
    LDGDEPBAR: Variable, 0..=0, 0..=0, FX;
    DEPBAR: Fixed, 0..=0, 1..=2, FX;
    CCTL: Variable, 0..=0, 0..=1, FX;
    MEMBAR: Variable, 0..=0, 0..=0, FX;
    FENCE: Variable, 0..=0, 0..=0, FX;
    ERRBAR: Fixed, 0..=0, 0..=0, FX;
    CGAERRBAR: Fixed, 0..=0, 0..=0, FX;
    // Warp-level.
    SHFL: Variable, 2..=2, 3..=3, WS;
    VOTE: Fixed, 1..=2, 1..=1, WS;
    MATCH: Variable, 1..=2, 1..=1, WS;
    REDUX: Variable, 1..=1, 1..=1, WS;
    // Blackwell: `CREDUX.MIN.S32 UR6, R10`.
    CREDUX: Variable, 1..=1, 1..=1, WS;
    ELECT: Fixed, 2..=2, 1..=1, WS;
    // Tensor cores.
    HMMA: Fixed, 1..=1, 3..=3, WS;
    IMMA: Fixed, 1..=1, 3..=3, WS;
    DMMA: Fixed, 1..=1, 3..=3, WS;
    // Control flow and convergence.
    BRA: Fixed, 0..=0, 1..=2, TERM;
    BRX: Fixed, 0..=0, 1..=2, TERM;
    JMP: Fixed, 0..=0, 1..=1, TERM;
    CALL: Fixed, 0..=0, 1..=2, BR.union(OpFlags::CALL).union(FX);
    RET: Fixed, 0..=0, 1..=2, TERM;
    EXIT: Fixed, 0..=0, 0..=0, TERM;
    BREAK: Fixed, 0..=0, 1..=2, FX;
    BSSY: Fixed, 1..=1, 1..=1, FX;
    BSYNC: Fixed, 0..=0, 1..=1, FX.union(WS);
    BMOV: Variable, 1..=1, 1..=1, FX;
    WARPSYNC: Fixed, 0..=0, 0..=1, WSFX;
    BAR: Fixed, 0..=0, 0..=3, WSFX;
    // The result of a `BAR.RED`, once the barrier releases (a side effect:
    // it must stay after its barrier).
    B2R: Variable, 1..=2, 0..=0, FX;
    NOP: Fixed, 0..=0, 0..=0, NONE;
    YIELD: Fixed, 0..=0, 0..=0, FX;
    NANOSLEEP: Fixed, 0..=0, 1..=1, FX;
    BPT: Fixed, 0..=0, 0..=1, FX;
    LEPC: Fixed, 1..=1, 0..=1, NONE;
    // sm_90 cluster, bulk copy and asynchronous proxy operations.
    SYNCS: Variable, 0..=2, 1..=3, RMW;
    UBLKCP: Variable, 0..=0, 2..=3, RMW.union(UNI);
    UTMALDG: Variable, 0..=0, 2..=3, RMW.union(UNI);
    UTMASTG: Variable, 0..=0, 2..=3, RMW.union(UNI);
    UTMACMDFLUSH: Fixed, 0..=0, 0..=0, FX.union(UNI);
    UCGABAR_ARV: Fixed, 0..=0, 0..=0, FX.union(UNI);
    UCGABAR_WAIT: Fixed, 0..=0, 0..=0, FX.union(UNI);
    ENDCOLLECTIVE: Fixed, 0..=0, 0..=0, FX;
    ACQBULK: Fixed, 0..=0, 0..=0, FX;
    HGMMA: Variable, 1..=1, 2..=5, WSFX;
    // fp8 warpgroup MMA: `QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24`.
    QGMMA: Variable, 1..=1, 2..=4, WSFX;
    // Integer warpgroup MMA (`wgmma...s32.s8.s8`): `IGMMA.64x64x32.S8.S8
    // R24, gdesc[UR4], R24`, s32 accumulators, A and B signed or unsigned bytes.
    IGMMA: Variable, 1..=1, 2..=5, WSFX;
    WARPGROUP: Fixed, 0..=0, 0..=2, WSFX;
    // Local-memory cache control (`prefetch.local.L1`: `CCTLL.PF1 [R1+0x4]`).
    CCTLL: Variable, 0..=0, 0..=1, FX;
    // The state space of a generic address (`isspacep`: `QSPC.E.S P0, RZ,
    // [R2]`): a predicate and a register (NVIDIA's code writes RZ).
    QSPC: Variable, 2..=2, 1..=1, NONE;
    // Integer narrowing with saturation (`cvt.sat.s8.s32`: `I2I.S8.S32.SAT
    // R4, R0`): to `U8`/`S8`/`U16`/`S16` from a signed 32-bit source. NVIDIA's
    // code gives it no scoreboard (stall 4 before a reader, ptxas 13.5 on
    // sm_75..sm_90).
    I2I: Fixed, 1..=1, 1..=1, NONE;
}

impl Opcode {
    /// Static facts about the opcode.
    pub fn info(self) -> &'static OpInfo {
        &OP_INFO[self as usize]
    }

    /// A 32-bit immediate word written the way the encoder reads this
    /// opcode's immediate field: unsigned for the bitwise and move
    /// instructions (`LOP3 ..., 0xffffffff`), sign-extended for the
    /// arithmetic ones (`IADD3 ..., -0x1`; the same word). Measured on the
    /// encoder's tables.
    pub fn immediate(self, word: u32) -> crate::Imm {
        use Opcode::*;
        let unsigned = matches!(self, MOV | UMOV | LOP3 | SEL | SHF | SGXT | WARPSYNC | VIADD | VABSDIFF);
        crate::Imm::Int(if unsigned { i64::from(word) } else { i64::from(word as i32) })
    }

    /// A warpgroup MMA (`HGMMA`, fp8 `QGMMA`, integer `IGMMA`): asynchronous, its
    /// accumulators one tuple of up to 128 registers, waited for by
    /// `WARPGROUP.DEPBAR` rather than a scoreboard.
    pub fn is_warpgroup_mma(self) -> bool {
        matches!(self, Opcode::HGMMA | Opcode::QGMMA | Opcode::IGMMA)
    }

    /// The mnemonic as nvdisasm prints it.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Shorthand for `self.info().flags.contains(flags)`.
    pub fn has(self, flags: OpFlags) -> bool {
        self.info().flags.contains(flags)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An instruction modifier (the `.WIDE` of `IMAD.WIDE`), interned in a
/// table of the modifier words nvdisasm prints. The encoder gives each
/// word its bits per opcode family; here a modifier is only a name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Modifier(u16);

impl Modifier {
    /// Looks a modifier word up (without the leading dot).
    pub fn from_name(name: &str) -> Option<Modifier> {
        MODIFIERS.binary_search(&name).ok().map(|i| Modifier(i as u16))
    }

    /// The modifier word, without the leading dot.
    pub fn name(self) -> &'static str {
        MODIFIERS[usize::from(self.0)]
    }

    /// Modifiers for a list of words known to be in the table (a
    /// convenience for code that builds instructions from constants).
    ///
    /// # Panics
    /// If a word is not in the table: that is a bug in the caller, caught
    /// by its tests.
    pub fn list(names: &[&str]) -> Vec<Modifier> {
        names.iter().map(|n| Modifier::from_name(n).unwrap_or_else(|| panic!("unknown SASS modifier `.{n}`"))).collect()
    }
}

impl fmt::Debug for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// Every modifier word, sorted (byte order) for binary search. Grown from
/// nvdisasm listings of NVIDIA's cubins; add words here as the encoder
/// learns new forms.
static MODIFIERS: &[&str] = &[
    "128",
    "16",
    "16816",
    "16832",
    "1688",
    "16x2",
    "2",
    "2A",
    "32",
    "4",
    "4A",
    "64",
    "64x104x16",
    "64x104x32",
    "64x104x8",
    "64x112x16",
    "64x112x32",
    "64x112x8",
    "64x120x16",
    "64x120x32",
    "64x120x8",
    "64x128x16",
    "64x128x32",
    "64x128x8",
    "64x136x16",
    "64x136x32",
    "64x136x8",
    "64x144x16",
    "64x144x32",
    "64x144x8",
    "64x152x16",
    "64x152x32",
    "64x152x8",
    "64x160x16",
    "64x160x32",
    "64x160x8",
    "64x168x16",
    "64x168x32",
    "64x168x8",
    "64x16x16",
    "64x16x32",
    "64x16x8",
    "64x176x16",
    "64x176x32",
    "64x176x8",
    "64x184x16",
    "64x184x32",
    "64x184x8",
    "64x192x16",
    "64x192x32",
    "64x192x8",
    "64x200x16",
    "64x200x32",
    "64x200x8",
    "64x208x16",
    "64x208x32",
    "64x208x8",
    "64x216x16",
    "64x216x32",
    "64x216x8",
    "64x224x16",
    "64x224x32",
    "64x224x8",
    "64x232x16",
    "64x232x32",
    "64x232x8",
    "64x240x16",
    "64x240x32",
    "64x240x8",
    "64x248x16",
    "64x248x32",
    "64x248x8",
    "64x24x16",
    "64x24x32",
    "64x24x8",
    "64x256x16",
    "64x256x32",
    "64x256x8",
    "64x32x16",
    "64x32x32",
    "64x32x8",
    "64x40x16",
    "64x40x32",
    "64x40x8",
    "64x48x16",
    "64x48x32",
    "64x48x8",
    "64x56x16",
    "64x56x32",
    "64x56x8",
    "64x64x16",
    "64x64x32",
    "64x64x8",
    "64x72x16",
    "64x72x32",
    "64x72x8",
    "64x80x16",
    "64x80x32",
    "64x80x8",
    "64x88x16",
    "64x88x32",
    "64x88x8",
    "64x8x16",
    "64x8x32",
    "64x8x8",
    "64x96x16",
    "64x96x32",
    "64x96x8",
    "8",
    "A1T0",
    "ABS",
    "ACC",
    "ADD",
    "ALL",
    "AND",
    "ANY",
    "ARRIVE",
    "ASYNC",
    "B4E",
    "BF",
    "BF16",
    "BF16_V2",
    "BF16x2",
    "BFLY",
    "BITSET",
    "BYPASS",
    "CAS",
    "CAST",
    "CEIL",
    "CLEAR",
    "COLLECTIVE",
    "CONSTANT",
    "CONV",
    "COS",
    "CTA",
    "D2",
    "D4",
    "D8",
    "DEC",
    "DEFER_BLOCKING",
    "DEPBAR",
    "DIV",
    "DOWN",
    "E",
    "E4M3",
    "E5M2",
    "ECL",
    "ECR",
    "EF",
    "EL",
    "EQ",
    "EQU",
    "EU",
    "EX",
    "EX2",
    "EXCH",
    "F",
    "F16",
    "F16_V2",
    "F16x2",
    "F32",
    "F4E",
    "F64",
    "FLOOR",
    "FMZ",
    "FTZ",
    "G",
    "GE",
    "GEU",
    "GPU",
    "GT",
    "GTU",
    "H0_H0",
    "H1_H1",
    "HI",
    "H_AND",
    "IADD",
    "IDX",
    "IL",
    "INC",
    "INV",
    "IS",
    "ISL",
    "IVALL",
    "L",
    "LE",
    "LEU",
    "LG2",
    "LO",
    "LT",
    "LTC128B",
    "LTC256B",
    "LTC64B",
    "LTU",
    "LU",
    "LUT",
    "M2",
    "M4",
    "M8",
    "M816",
    "M832",
    "M88",
    "MAX",
    "MAXABS",
    "MERGE_C",
    "MIN",
    "MINABS",
    "MMA",
    "MMIO",
    "MOV",
    "MT88",
    "NA",
    "NAN",
    "NE",
    "NEU",
    "NODEC",
    "NOINC",
    "NTZ",
    "NUM",
    "OR",
    "ORDERED",
    "PACK_AB",
    "PACK_AB_MERGE_C",
    "PAND",
    "PF1",
    "PF2",
    "PHASECHK",
    "PML2",
    "POPC",
    "PQUAD",
    "PRIVATE",
    "R",
    "RAND",
    "RC16",
    "RC8",
    "RCP",
    "RCP64H",
    "RECONVERGENT",
    "RED",
    "REL",
    "RELIABLE",
    "RELU",
    "RESULT",
    "RM",
    "RN",
    "RP",
    "RSQ",
    "RSQ64H",
    "RZ",
    "S",
    "S16",
    "S16x2",
    "S32",
    "S64",
    "S8",
    "SAT",
    "SATFINITE",
    "SC",
    "SH",
    "SHL",
    "SIN",
    "SM",
    "SPIN",
    "SQRT",
    "STRONG",
    "SUM",
    "SX32",
    "SYNC",
    "SYS",
    "T",
    "TANH",
    "TF32",
    "TRANS64",
    "TRAP",
    "TRUNC",
    "TRYWAIT",
    "U",
    "U16",
    "U16x2",
    "U32",
    "U64",
    "U8",
    "UNPACK_B",
    "UP",
    "VC",
    "VIEW",
    "W",
    "WARP",
    "WIDE",
    "X",
    "X16",
    "X2",
    "X4",
    "X8",
    "XOR",
    "XORSIGN",
    "ZFILL",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifier_table_is_sorted_and_unique() {
        assert!(MODIFIERS.windows(2).all(|w| w[0] < w[1]), "MODIFIERS must stay sorted for binary search");
    }

    #[test]
    fn opcode_names_are_unique_and_found() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
    }

    #[test]
    fn flags() {
        assert!(Opcode::EXIT.has(OpFlags::TERMINATOR));
        assert!(!Opcode::CALL.has(OpFlags::TERMINATOR));
        assert!(Opcode::STG.has(OpFlags::SIDE_EFFECT));
        assert_eq!(Opcode::LDG.info().latency, Latency::Variable);
        assert_eq!(Modifier::from_name("WIDE").map(Modifier::name), Some("WIDE"));
        assert_eq!(Modifier::from_name("NOPE"), None);
    }
}
