//! What an instruction does, decided once from its opcode and modifiers.

use ori_ir::{Inst, Layout, Opcode, OperandKind};

use crate::sem::cmp::{BoolOp, Cmp};
use crate::sem::float::Round;
use crate::sem::int::PrmtMode;

/// A memory space.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Space {
    /// Global (LDG/STG/ATOMG/RED).
    Global,
    /// Generic (LD/ST/ATOM): local memory inside the local window
    /// ([`crate::LOCAL_WINDOW`]), global memory elsewhere.
    Generic,
    /// Shared (LDS/STS/ATOMS).
    Shared,
    /// Local (LDL/STL).
    Local,
}

/// An atomic operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    AddF32,
    /// `.ADD.F64.RN`: binary64 addition, rounded to nearest.
    AddF64,
    /// `.ADD.F16x2.RN` / `.ADD.BF16x2.RN`: lanewise addition of packed
    /// halves.
    AddHalf2 {
        bf16: bool,
    },
    Min {
        signed: bool,
    },
    Max {
        signed: bool,
    },
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// `ATOMS.CAST.SPIN d, [a], b, c`: compare-and-swap whose result is 1
    /// when it stored `c` (memory held `b`), else 0 (NVIDIA's loop for
    /// float addition on shared memory tests it against 1).
    CasSpin,
}

/// How IMAD forms its result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ImadMode {
    /// The low word of `a * b + c`.
    Lo,
    /// The 64-bit `a * b + c`.
    Wide { signed: bool },
    /// The high word of `a * b`, plus `c`.
    Hi { signed: bool },
}

/// The operation of a packed half-precision instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HalfOp {
    Add,
    Mul,
    Fma,
    MinMax,
}

/// Cross-lane shuffle modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

/// The operation of a packed f32 pair instruction ([`Kind::Fpair`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOp {
    Add,
    Mul,
    Fma,
}

/// The prepared operation.
#[derive(Clone, Debug)]
pub enum Kind {
    /// No effect on the state the interpreter models.
    Nop,
    /// `BSSY B, label`: arms a convergence barrier with the group's lanes.
    Bssy,
    /// `BSYNC B`: waits until every lane the barrier holds has arrived
    /// here (exited lanes and lanes waiting at a `BSYNC` aside), so the
    /// warp goes on as one group.
    Bsync,
    /// `BREAK B`: takes the active lanes out of the barrier.
    Break,
    /// `BMOV.32[.CLEAR]`: a barrier register to or from a general register
    /// (callees save the convergence barriers they use), or set from an
    /// immediate; `.CLEAR` zeroes the barrier register read.
    Bmov {
        clear: bool,
    },
    Bra,
    /// `BRA.DIV mask, target`: taken by the whole group when some lane of
    /// `mask` (Turing's `BRA.DIV target`: of the warp) is not in it (the
    /// warp has diverged).
    BraDiv,
    /// `BRA.CONV mask, target`: the converse of [`Kind::BraDiv`], taken
    /// by the whole group when every lane of `mask` is in it (sm_80's
    /// fast path of a partial-mask `REDUX` or `MATCH`).
    BraConv,
    /// `CALL.REL`: a jump; the return address is in a register already.
    Call,
    /// `RET.REL`: to the byte address each lane holds in a register.
    Ret,
    /// `CALL.ABS`: a call of the absolute address in a register pair; the
    /// interpreter runs [`crate::EXTERNALS`] itself.
    CallAbs,
    /// `LEPC`: the absolute code address of its label (of itself without
    /// one) into a register pair; code starts at address 0.
    Lepc,
    Exit,
    Bar,
    /// `BAR.RED.{POPC,AND,OR}`: a barrier that also counts the lanes
    /// whose predicate (the last source) holds; `and` tells `B2R`'s
    /// predicate which verdict to give.
    BarRed {
        and: bool,
    },
    /// `B2R.RESULT d[, p]`: the count (and the AND/OR verdict) of the
    /// CTA's last barrier reduction.
    B2r,
    Mov,
    /// `MOV.64`/`UMOV.64` (Blackwell): a register pair or 64-bit immediate.
    Mov64,
    S2r,
    Ldc,
    /// `VIADD.16x2 a, b`: two 16-bit adds, one per half (NVIDIA's sm_90
    /// code for `__vadd2`).
    Viadd16x2,
    /// `VIMNMX.{U16x2,S16x2}[.RELU] a, b, p`: the minimum (`p` true) or
    /// maximum of each 16-bit half apart; `.RELU` clamps each signed half
    /// at zero (NVIDIA's sm_90 `min`/`max[.relu]` of `.u16x2`/`.s16x2`).
    Vimnmx16x2 {
        signed: bool,
        relu: bool,
    },
    /// `VIMNMX[.U32].RELU a, b, p`: the 32-bit minimum or maximum, then
    /// negative results (read as signed) are zero (`min.relu.s32`).
    ImnmxRelu {
        signed: bool,
    },
    /// `QSPC.E.{G,S,L} p, RZ, [a]`: whether generic address `a` lies in
    /// that state space (`isspacep`).
    Qspc(Space),
    /// `VIADD a, b`: a two-input add.
    Viadd,
    /// `VIADDMNMX a, b, c, p`: `min(a + b, c)` (`p` true) or max.
    Viaddmnmx {
        signed: bool,
    },
    /// `IADD3` (three sources) and Blackwell's `IADD` (two or three): the sum,
    /// with carry-ins (`.X`) and carry-outs; `wide`: 64-bit lanes
    /// (`IADD.64`, `UIADD3.64`).
    Iadd {
        sources: usize,
        x: bool,
        wide: bool,
    },
    Imad {
        mode: ImadMode,
        x: bool,
    },
    Lop3,
    /// `PLOP3.LUT`: two truth tables over three predicates.
    Plop3,
    /// `P2R d, PR, a, mask`: predicates P0-P6 into byte `byte` of `a`.
    P2r {
        byte: u8,
    },
    /// `R2P PR, a, mask`: predicates P0-P6 from byte `byte` of `a`.
    R2p {
        byte: u8,
    },
    Shf {
        left: bool,
        signed: bool,
        wide: bool,
        high: bool,
        /// `.W`: the shift amount wraps (mod 32) instead of clamping.
        wrap: bool,
    },
    Lea {
        hi: bool,
        sx32: bool,
    },
    /// `PRMT[.mode]`: the default selector nibbles, or a mode
    /// (`sem::int::prmt_mode`).
    Prmt {
        mode: Option<PrmtMode>,
    },
    Imnmx {
        signed: bool,
        /// `.U64`/`.S64` (sm_120): register pairs.
        wide: bool,
    },
    Iabs,
    Brev,
    /// `VABSDIFF4.U8 d, a, b, c`: per byte `|a - b|`. `c` is PTX's merge
    /// operand, which the default all-bytes mask (the only form NVIDIA
    /// writes without a mask word) never reads.
    Vabsdiff4,
    /// `VABSDIFF4.U8.ACC d, a, b, c`: `c` plus the sum of the four byte
    /// differences `|a - b|` (PTX's `vabsdiff4.add`, CUDA's `__vsadu4`).
    Vabsdiff4Acc,
    /// `IDP.4A`/`IDP.2A.{LO,HI}` `d, a, b, c`: `c` plus the products of
    /// a's bytes (halves for `.2A`) and b's bytes (the low or high pair).
    Idp {
        two: bool,
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `SGXT[.U32][.W] d, a, n`: the low `n` bits of `a`, sign- or
    /// zero-extended; `.W` (PTX's `szext.wrap`) takes `n` modulo 32.
    Sgxt {
        signed: bool,
        wrap: bool,
    },
    /// `I2I.<to>.S32.SAT d, a`: the signed word `a` clamped to the range
    /// of `to` (`U8`, `S8`, `U16`, `S16`; `sem::int::i2i_sat`).
    I2iSat {
        signed: bool,
        bits: u8,
    },
    /// `BMSK[.W] d, pos, width` (`sem::int::bmsk`).
    Bmsk {
        wrap: bool,
    },
    /// `BPT.TRAP`: the kernel stops with an error.
    Trap,
    /// `VABSDIFF a, b, c`: `|a - b| + c`.
    Vabsdiff {
        signed: bool,
    },
    Popc,
    Flo {
        signed: bool,
        sh: bool,
    },
    Isetp {
        cmp: Cmp,
        op: BoolOp,
        signed: bool,
        /// `.U64`/`.S64` (sm_120): the sources are register pairs.
        wide: bool,
        ex: bool,
    },
    Fsetp {
        cmp: Cmp,
        op: BoolOp,
        ftz: bool,
    },
    /// `SEL`, `FSEL`; `SEL.64` (sm_120) picks a register pair.
    Sel {
        wide: bool,
    },
    Fadd {
        ftz: bool,
        rnd: Round,
        /// `.SAT`: clamp the result to [0, 1].
        sat: bool,
    },
    Fmul {
        ftz: bool,
        rnd: Round,
        /// `.SAT`: clamp the result to [0, 1].
        sat: bool,
        /// `.D8`..`.M8`: the power of two the product is scaled by (0 for none).
        scale: i8,
    },
    Ffma {
        ftz: bool,
        rnd: Round,
        /// `.SAT`: clamp the result to [0, 1].
        sat: bool,
    },
    /// sm_100's `FADD2`/`FMUL2`/`FFMA2`: the f32 operation on each word
    /// of register pairs (`.F32x2.HI_LO`, each word its own lane).
    Fpair {
        op: PairOp,
        ftz: bool,
        rnd: Round,
    },
    Fchk,
    Fmnmx {
        ftz: bool,
    },
    /// `FMNMX3 d, a, b, c, p` (Blackwell): the minimum (`p`) or maximum
    /// of three.
    Fmnmx3 {
        ftz: bool,
    },
    /// Packed half-precision lanes (binary16, or bfloat16 with
    /// `.BF16_V2`): `HADD2`, `HMUL2`, `HFMA2`, `HMNMX2` (the trailing
    /// predicate picks the minimum when true).
    Half2 {
        op: HalfOp,
        bf16: bool,
    },
    /// `HSETP2.CMP.BOOL p, q, a, b, c`: the low lanes' comparison into `p`,
    /// the high lanes' into `q`.
    Hsetp2 {
        cmp: Cmp,
        op: BoolOp,
        bf16: bool,
    },
    /// `HSET2.BF.CMP.BOOL d, a, b, c`: each lane's comparison as 1.0 or
    /// 0.0 in that lane of `d`.
    Hset2 {
        cmp: Cmp,
        op: BoolOp,
    },
    /// `F2F.F16.F64 d, a`: binary64 to binary16, round to nearest even.
    F2f16,
    /// `F2FP[.F16.F32|.BF16.F32].PACK_AB[.RZ] d, a, b`: two binary32 values
    /// rounded (to nearest, or toward zero) into the halves of `d` (`a`
    /// high, `b` low).
    F2fp {
        /// `.RZ`: rounded toward zero.
        rz: bool,
        bf16: bool,
        /// `.RELU`: negative results are +0, NaN the canonical NaN.
        relu: bool,
    },
    /// `F2F.{F16,BF16}.F32[.RM|.RP|...]`: binary32 to a binary16 or
    /// bfloat16 in the low half, to nearest even or in a directed rounding
    /// (Turing converts with `F2F.F16.F32`, later SMs with `F2FP`).
    F2fNarrow {
        bf16: bool,
        rnd: Round,
    },
    /// `F2FP[.F16.F32|.BF16.F32].MERGE_C d, a, c` (sm_86+): binary32 `a`
    /// rounded into `d`'s low half, `c`'s low half in the high half.
    /// NVIDIA's fp16_axpby packs `{alpha, beta}` so: `MERGE_C R3,
    /// c[beta], RZ`, then `MERGE_C R3, c[alpha], R3`, then reads beta as
    /// `R3.H1_H1` and alpha as `R3.H0_H0`.
    F2fpMerge {
        bf16: bool,
        rnd: Round,
    },
    /// `F2F.F64.F16`: binary16 to binary64 (exact).
    F2f64From16,
    /// `F2FP.SATFINITE[.RELU].{E4M3,E5M2}.F32.PACK_AB_MERGE_C d, a, b, c`:
    /// two binary32 values as saturated 8-bit floats in `d`'s low half
    /// (`a` high), `c`'s low half in the high half: NVIDIA's code for two
    /// packs stored as `v2.u16` merges the first pack's register as `c`
    /// into the second's, and stores the pair in PTX's order only so.
    Fp8Pack {
        e4m3: bool,
        relu: bool,
    },
    /// `F2FP.F16.{E4M3,E5M2}.UNPACK_B d, a[.H1]`: the two 8-bit floats of
    /// `a`'s low (or high) half as a binary16 pair (`sem::half::fp8_to_f16`).
    Fp8Unpack {
        e4m3: bool,
        /// `.RELU`: negative results are +0.
        relu: bool,
    },
    /// `HADD2.F32 d, a, b`: the sum of two binary16 lanes (each picked by
    /// `.H0_H0`/`.H1_H1`, low half by default) as one binary32.
    Hadd2F32,
    I2f {
        signed: bool,
        /// Source width in bits (8, 16, 32, 64).
        bits: u8,
        rnd: Round,
    },
    /// `I2F.F16`: an integer of `bits` bits to binary16 in the low half
    /// (`cvt.rn.f16.s32`). The high half is written 0; NVIDIA's code reads
    /// only the low half (`.H0_H0`, `PRMT ... 0x7610`, `STG.E.U16`), so
    /// what the hardware leaves there is not observed.
    I2f16 {
        signed: bool,
        /// Source width in bits (8, 16, 32, 64).
        bits: u8,
        rnd: Round,
    },
    F2i {
        signed: bool,
        /// The integer's width: 8, 16, 32 or 64.
        bits: u8,
        rnd: Round,
        ftz: bool,
        /// The source is binary64.
        from64: bool,
    },
    /// `F2IP.U8.F32[.TRUNC].NTZ d, RZ, a, RZ`: binary32 `a` to an unsigned
    /// byte (the packing operands, RZ in every NVIDIA word seen, are
    /// not modelled otherwise).
    F2ipU8 {
        rnd: Round,
    },
    /// `FRND`: round to an integral value in the same format.
    Frnd {
        rnd: Round,
        f64: bool,
    },
    /// `I2F.F64`: an integer of `bits` bits to binary64.
    I2f64 {
        signed: bool,
        bits: u8,
        rnd: Round,
    },
    Dsetp {
        cmp: Cmp,
        op: BoolOp,
    },
    /// `DSETP.MIN`/`.MAX p, q, a, b, c`: `p` when `a` is the minimum
    /// (maximum), `q` when both are NaN, each combined with `c`. Inferred
    /// from NVIDIA's `min.f64`/`max.f64` sequence (`SEL`/`FSEL` by `p`, then
    /// `@q` the quiet bit set on `b`'s high word), the only reading under
    /// which it computes PTX's result: a NaN loses to a number, `-0` is
    /// below `+0`, two NaNs give a quiet NaN. Not measured on hardware.
    DsetpMinMax {
        max: bool,
        op: BoolOp,
    },
    F2f64,
    F2f32 {
        rnd: Round,
    },
    Dadd {
        rnd: Round,
    },
    Dmul {
        rnd: Round,
    },
    Dfma {
        rnd: Round,
    },
    Mufu(&'static str),
    /// `MUFU.<func>.F16` / `.BF16`: one half-precision lane
    /// (`sem::mufu::mufu_half`).
    MufuHalf {
        func: &'static str,
        bf16: bool,
    },
    Ld {
        space: Space,
        bytes: u8,
        signed: bool,
    },
    St {
        space: Space,
        bytes: u8,
    },
    Atom {
        space: Space,
        op: AtomOp,
        bytes: u8,
        /// The aggregated `.POPC.INC` form, which adds 1 per lane.
        one: bool,
    },
    Shfl(ShflMode),
    Vote {
        any: bool,
        all: bool,
    },
    Redux(AtomOp),
    /// Blackwell's `CREDUX.{MIN,MAX}[ABS].F32[.NAN]`: the least or
    /// greatest (of the magnitudes with `ABS`) of the lanes' f32 values,
    /// +0 above -0; NaNs left out unless `.NAN`, which makes any NaN the
    /// result (`redux.sync...f32`).
    ReduxF32 {
        min: bool,
        abs: bool,
        nan: bool,
    },
    /// `MATCH.ANY`/`.ALL`: lanes holding the same value (64-bit with `.U64`).
    Match {
        all: bool,
        wide: bool,
    },
    /// `LDSM.16.M88[.2|.4]` / `.MT88` (transposed): `matrices` 8x8 b16
    /// matrices from shared memory, row addresses from the lanes
    /// (`sem::mma::ldsm_source`).
    Ldsm {
        matrices: u8,
        trans: bool,
    },
    /// `STSM.16.M88[.2|.4]` / `.MT88`: the mirror of [`Kind::Ldsm`], each
    /// lane's words stored where `LDSM` would have loaded them.
    Stsm {
        matrices: u8,
        trans: bool,
    },
    /// `HMMA.{16816,1688}.{F32,F16}[.BF16/.TF32]` (`sem::mma::hmma`).
    Hmma(crate::sem::mma::Hmma),
    /// `IMMA.{16832,16816}.{S8,U8}.{S8,U8}[.SAT]` (`sem::imma::imma`).
    Imma(crate::sem::imma::Imma),
    /// Warpgroup MMA (`sem/wgmma.rs`).
    Wgmma(WgmmaOp),
    /// `BRA.U.ANY`: the whole group branches when the guard holds in any
    /// of its lanes.
    BraAny,
    /// Asynchronous copies, mbarriers and clusters (`sem/async_mem.rs`).
    Async(AsyncOp),
    /// Not modelled: executing it is an error.
    Unsupported,
}

/// The warpgroup MMA operations of sm_90a, run by `sem/wgmma.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WgmmaOp {
    /// `WARPGROUP.ARRIVE` (`wgmma.fence`).
    Arrive,
    /// `HGMMA.64xNxK.F32[.BF16|.TF32] d, gdesc[UR], c[, scale-d][, gsb0]`
    /// and fp8 `QGMMA.64xNx32.F32.{E4M3,E5M2}.{E4M3,E5M2}`: A (of type
    /// `input`) from shared memory or, `a_in_regs`, from a four-register
    /// fragment before the descriptor (`HGMMA R24, R88, gdesc[UR8], R24`),
    /// B (`b_input`) from shared memory, each stored transposed (MN-major)
    /// where `tnsp` says (`.tnspA`, `.tnspB`); `closes` when it carries
    /// `gsb0` (`wgmma.commit_group`). Integer `IGMMA.64xNx32.{S8,U8}.{S8,U8}[.SAT]`
    /// the same way into s32 accumulators, `sat` clamping them
    /// (`.satfinite`) where they would wrap.
    Hgmma {
        n: u32,
        input: WgmmaInput,
        b_input: WgmmaInput,
        a_in_regs: bool,
        tnsp: (bool, bool),
        closes: bool,
        sat: bool,
    },
    /// `WARPGROUP.DEPBAR.LE gsb0, n` (`wgmma.wait_group n`).
    Depbar { keep: u32 },
}

/// The input type of an `HGMMA` (its K follows: 16 for the 16-bit types,
/// 8 for tf32).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WgmmaInput {
    /// binary16 (no type word).
    F16,
    /// bfloat16 (`.BF16`).
    Bf16,
    /// tf32 in 32-bit words (`.TF32`).
    Tf32,
    /// fp8 E4M3 (`QGMMA`'s `.E4M3`).
    E4m3,
    /// fp8 E5M2 (`.E5M2`).
    E5m2,
    /// Signed bytes (`IGMMA`'s `.S8`).
    S8,
    /// Unsigned bytes (`.U8`).
    U8,
}

impl WgmmaInput {
    /// Bytes per element in shared memory.
    pub fn bytes(self) -> usize {
        match self {
            WgmmaInput::E4m3 | WgmmaInput::E5m2 | WgmmaInput::S8 | WgmmaInput::U8 => 1,
            WgmmaInput::F16 | WgmmaInput::Bf16 => 2,
            WgmmaInput::Tf32 => 4,
        }
    }

    /// K of one HGMMA.
    pub fn k(self) -> usize {
        32 / self.bytes()
    }

    /// Whether the elements are integers (s32 accumulators).
    pub fn is_int(self) -> bool {
        matches!(self, WgmmaInput::S8 | WgmmaInput::U8)
    }
}

/// The asynchronous-copy, mbarrier and cluster operations (sm_80 LDGSTS,
/// sm_90 SYNCS/UBLKCP/UCGABAR), run by `sem/async_mem.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AsyncOp {
    /// `LDGSTS.E[.BYPASS][.LTCnB][.64/.128][.ZFILL] [smem], [gmem][, p]`:
    /// a copy of `bytes` queued in the lane's open group. A false `p`
    /// fills the destination with zeros without reading; with `zfill`
    /// the source's low address bits (below `bytes`) count the bytes at
    /// the end that are zeros rather than read (NVIDIA's `cp.async` with
    /// a source size adds `(bytes - size) % bytes` to the address).
    Ldgsts { bytes: u8, zfill: bool },
    /// `LDGDEPBAR`: closes the lane's open group of copies.
    LdgDepbar,
    /// `DEPBAR.LE SB0, n`: completes the lane's committed groups but the
    /// `n` most recent.
    DepbarSb0 { keep: u32 },
    /// `SYNCS.EXCH.64 d, [bar], v`: writes an mbarrier word (`mbarrier.init`).
    SyncsExch,
    /// `SYNCS.ARRIVE.TRANS64 d, [bar], tx`: expects `tx` bytes, then arrives
    /// (`[bar]` a uniform register or, per thread, `[R+URZ]`).
    SyncsArrive,
    /// `SYNCS.PHASECHK.TRANS64.TRYWAIT p, [bar], parity`.
    SyncsTryWait,
    /// `UBLKCP.S.G [smem, bar], [gmem], bytes` (global to shared, completing
    /// on the mbarrier) or `UBLKCP.G.S [gmem], [smem], bytes`.
    Ublkcp { to_shared: bool },
    /// `UCGABAR_ARV`: the warp arrives at the cluster barrier.
    ClusterArrive,
    /// `UCGABAR_WAIT`: waits until every warp of the cluster has arrived as
    /// often as this one.
    ClusterWait,
    /// `ELECT p, ur, q`: the lowest active lane with `q` gets `p`.
    Elect,
}

/// The form of an `HMMA` the interpreter models: a shape, an accumulator
/// type and at most an input type, nothing else.
fn hmma(inst: &Inst) -> Option<crate::sem::mma::Hmma> {
    use crate::sem::mma::{Hmma, MmaInput};
    let mods: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    let (k, f32_acc, input) = match mods.as_slice() {
        [shape, acc, rest @ ..] if rest.len() <= 1 => (*shape, *acc == "F32", rest.first().copied()),
        _ => return None,
    };
    let k = match k {
        "16816" => 16,
        "1688" => 8,
        _ => return None,
    };
    let input = match input {
        None => MmaInput::F16,
        Some("BF16") if f32_acc => MmaInput::Bf16,
        Some("TF32") if f32_acc && k == 8 => MmaInput::Tf32,
        _ => return None,
    };
    (f32_acc || mods[1] == "F16").then_some(Hmma { k, input, f32_acc })
}

/// The form of an `IMMA`: a shape, the signedness of A and B, `.SAT`.
fn imma(inst: &Inst) -> Option<crate::sem::imma::Imma> {
    let mods: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    let (shape, a, b, sat) = match mods.as_slice() {
        [shape, a, b] => (*shape, *a, *b, false),
        [shape, a, b, "SAT"] => (*shape, *a, *b, true),
        _ => return None,
    };
    let k = match shape {
        "16832" => 32,
        "16816" => 16,
        _ => return None,
    };
    let signed = |t: &str| match t {
        "S8" => Some(true),
        "U8" => Some(false),
        _ => None,
    };
    Some(crate::sem::imma::Imma { k, a_signed: signed(a)?, b_signed: signed(b)?, sat })
}

fn mem_bytes(inst: &Inst) -> (u8, bool) {
    let mods: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    for m in mods {
        match m {
            "U8" => return (1, false),
            "S8" => return (1, true),
            "U16" => return (2, false),
            "S16" => return (2, true),
            "64" => return (8, false),
            "128" => return (16, false),
            _ => {}
        }
    }
    (4, false)
}

fn atom_op(inst: &Inst) -> Option<AtomOp> {
    let signed = inst.has_mod("S32") || inst.has_mod("S64");
    Some(if inst.has_mod("ADD") {
        if inst.has_mod("F32") {
            AtomOp::AddF32
        } else if inst.has_mod("F64") {
            AtomOp::AddF64
        } else if inst.has_mod("F16x2") || inst.has_mod("BF16x2") {
            AtomOp::AddHalf2 { bf16: inst.has_mod("BF16x2") }
        } else {
            AtomOp::Add
        }
    } else if inst.has_mod("MIN") {
        AtomOp::Min { signed }
    } else if inst.has_mod("MAX") {
        AtomOp::Max { signed }
    } else if inst.has_mod("INC") {
        AtomOp::Inc
    } else if inst.has_mod("DEC") {
        AtomOp::Dec
    } else if inst.has_mod("AND") {
        AtomOp::And
    } else if inst.has_mod("OR") {
        AtomOp::Or
    } else if inst.has_mod("XOR") {
        AtomOp::Xor
    } else if inst.has_mod("EXCH") {
        AtomOp::Exch
    } else if inst.has_mod("CAST") && inst.has_mod("SPIN") {
        AtomOp::CasSpin
    } else if inst.has_mod("CAS") {
        AtomOp::Cas
    } else if inst.has_mod("SUM") {
        AtomOp::Add
    } else {
        return None;
    })
}

/// The byte a P2R/R2P works on (`.B1` .. `.B3`; byte 0 unprinted).
fn byte_sel(inst: &Inst) -> u8 {
    ["B1", "B2", "B3"].iter().position(|b| inst.has_mod(b)).map_or(0, |i| i as u8 + 1)
}

fn round(inst: &Inst) -> Round {
    inst.mods.iter().find_map(|m| Round::from_name(m.name())).unwrap_or_default()
}

fn cmp_op(inst: &Inst) -> Option<(Cmp, BoolOp)> {
    let cmp = inst.mods.iter().find_map(|m| Cmp::from_name(m.name()))?;
    let op = inst.mods.iter().find_map(|m| BoolOp::from_name(m.name()))?;
    Some((cmp, op))
}

/// `HGMMA.64xNxK.F32[.BF16|.TF32]` and `QGMMA.64xNx32.F32.A.B` (fp8) with
/// B behind a descriptor and A behind one too or in registers (a register
/// operand before `gdesc`), either stored transposed (f16 accumulators
/// and negated operands are not modelled).
fn hgmma(inst: &Inst) -> Option<WgmmaOp> {
    let fp8 = |m: &ori_ir::Modifier| match m.name() {
        "E4M3" => Some(WgmmaInput::E4m3),
        "E5M2" => Some(WgmmaInput::E5m2),
        _ => None,
    };
    let (shape, acc, input, b_input) = match (inst.op, &inst.mods[..]) {
        (Opcode::HGMMA, [shape, acc]) => (shape, acc, WgmmaInput::F16, WgmmaInput::F16),
        (Opcode::HGMMA, [shape, acc, ty]) => {
            let input = match ty.name() {
                "BF16" => WgmmaInput::Bf16,
                "TF32" => WgmmaInput::Tf32,
                _ => return None,
            };
            (shape, acc, input, input)
        }
        (Opcode::QGMMA, [shape, acc, a, b]) => (shape, acc, fp8(a)?, fp8(b)?),
        (Opcode::IGMMA, [shape, a, b, rest @ ..]) => {
            let int = |m: &ori_ir::Modifier| match m.name() {
                "S8" => Some(WgmmaInput::S8),
                "U8" => Some(WgmmaInput::U8),
                _ => None,
            };
            // s32 accumulators: no accumulator word; `.SAT` last.
            let sat = match rest {
                [] => false,
                [s] if s.name() == "SAT" => true,
                _ => return None,
            };
            let (n, k) = shape.name().strip_prefix("64x")?.split_once('x')?;
            let n: u32 = n.parse().ok()?;
            let shape_ok = k == "32" && (n % 16 == 0 || n <= 24) && n % 8 == 0 && (8..=256).contains(&n);
            let (input, b_input) = (int(a)?, int(b)?);
            let (a_in_regs, tnsp, closes) = wgmma_operands(inst)?;
            // Integer operands are K-major only.
            return (shape_ok && tnsp == (false, false)).then_some(WgmmaOp::Hgmma {
                n,
                input,
                b_input,
                a_in_regs,
                tnsp,
                closes,
                sat,
            });
        }
        _ => return None,
    };
    let (n, k) = shape.name().strip_prefix("64x")?.split_once('x')?;
    let n: u32 = n.parse().ok()?;
    let (a_in_regs, tnsp, closes) = wgmma_operands(inst)?;
    let shape_ok = k.parse::<usize>().ok() == Some(input.k()) && n % 8 == 0 && (8..=256).contains(&n);
    (acc.name() == "F32" && shape_ok).then_some(WgmmaOp::Hgmma {
        n,
        input,
        b_input,
        a_in_regs,
        tnsp,
        closes,
        sat: false,
    })
}

/// A warpgroup MMA's operands: whether A is in registers, which operands
/// are stored transposed, whether it closes its group (`gsb0`); `None`
/// for negated operands, which are not modelled.
fn wgmma_operands(inst: &Inst) -> Option<(bool, (bool, bool), bool)> {
    let a_in_regs = matches!(inst.uses.first()?.kind, OperandKind::Reg(r) if r.file == ori_ir::RegFile::R);
    let desc = inst.uses.get(usize::from(a_in_regs)).filter(|u| matches!(u.kind, OperandKind::MatrixDesc(_)))?;
    if inst.uses.iter().any(|u| u.flags.neg) {
        return None;
    }
    let tnsp = match desc.flags.layout {
        None => (false, false),
        Some(Layout::TnspA) => (true, false),
        Some(Layout::TnspB) => (false, true),
        Some(Layout::TnspAB) => (true, true),
        Some(Layout::Row | Layout::Col) => return None,
    };
    let closes = inst.uses.iter().any(|u| matches!(u.kind, OperandKind::GroupScoreboard(0)));
    Some((a_in_regs, tnsp, closes))
}

/// Whether source `i` of `inst` is `RZ`.
fn is_rz(inst: &Inst, i: usize) -> bool {
    matches!(inst.uses.get(i).map(|u| &u.kind), Some(OperandKind::Reg(r)) if *r == ori_ir::Reg::RZ)
}

/// The integer type a conversion names (`U8` .. `S64`; none is a signed
/// 32-bit integer): its signedness and width.
fn int_type(inst: &Inst) -> (bool, u8) {
    const TYPES: [(&str, bool, u8); 7] = [
        ("U8", false, 8),
        ("S8", true, 8),
        ("U16", false, 16),
        ("S16", true, 16),
        ("U32", false, 32),
        ("U64", false, 64),
        ("S64", true, 64),
    ];
    TYPES.iter().find(|t| inst.has_mod(t.0)).map_or((true, 32), |t| (t.1, t.2))
}

/// Modifiers of the packed half operations the interpreter has no model of.
const HALF_UNMODELLED: [&str; 6] = ["FTZ", "SAT", "FMZ", "NAN", "RELU", "XORSIGN"];

/// Decides what `inst` does; `Kind::Unsupported` when the interpreter has
/// no model of it.
pub fn decode_kind(inst: &Inst) -> Kind {
    let m = |s: &str| inst.has_mod(s);
    let ftz = m("FTZ");
    let name = inst.op.name();
    let base = name.strip_prefix('U').filter(|_| !matches!(name, "UFLO" | "UPOPC")).unwrap_or(name);
    match base {
        "DEPBAR" if m("LE") && matches!(inst.uses.first().map(|u| &u.kind), Some(OperandKind::Scoreboard(0))) => {
            match inst.uses.get(1).map(|u| &u.kind) {
                Some(OperandKind::Imm(ori_ir::Imm::Int(n))) => {
                    Kind::Async(AsyncOp::DepbarSb0 { keep: u32::try_from(*n).unwrap_or(u32::MAX) })
                }
                _ => Kind::Unsupported,
            }
        }
        // Bulk copies complete when issued (`sem/async_mem.rs`): nothing is
        // left in flight for `UTMACMDFLUSH` to push out.
        "NOP" | "WARPSYNC" | "YIELD" | "DEPBAR" | "MEMBAR" | "ERRBAR" | "CCTL" | "CCTLL" | "FENCE" | "CGAERRBAR"
        | "NANOSLEEP" | "TMACMDFLUSH" => Kind::Nop,
        "LDGSTS" => Kind::Async(AsyncOp::Ldgsts { bytes: mem_bytes(inst).0, zfill: m("ZFILL") }),
        "LDGDEPBAR" => Kind::Async(AsyncOp::LdgDepbar),
        "SYNCS" if m("EXCH") && m("64") => Kind::Async(AsyncOp::SyncsExch),
        "SYNCS" if m("ARRIVE") && m("TRANS64") && inst.mods.len() == 2 => Kind::Async(AsyncOp::SyncsArrive),
        "SYNCS" if m("PHASECHK") && m("TRANS64") && m("TRYWAIT") => Kind::Async(AsyncOp::SyncsTryWait),
        "BLKCP" if m("S") && m("G") => Kind::Async(AsyncOp::Ublkcp { to_shared: inst.mods[0].name() == "S" }),
        "CGABAR_ARV" => Kind::Async(AsyncOp::ClusterArrive),
        "CGABAR_WAIT" => Kind::Async(AsyncOp::ClusterWait),
        "ELECT" => Kind::Async(AsyncOp::Elect),
        "WARPGROUP" if m("ARRIVE") && inst.mods.len() == 1 => Kind::Wgmma(WgmmaOp::Arrive),
        "WARPGROUP" if m("DEPBAR") && m("LE") => match inst.uses.get(1).map(|u| &u.kind) {
            Some(OperandKind::Imm(ori_ir::Imm::Int(n))) => {
                Kind::Wgmma(WgmmaOp::Depbar { keep: u32::try_from(*n).unwrap_or(u32::MAX) })
            }
            _ => Kind::Unsupported,
        },
        "HGMMA" | "QGMMA" | "IGMMA" => hgmma(inst).map_or(Kind::Unsupported, Kind::Wgmma),
        "BSSY" => Kind::Bssy,
        "BSYNC" => Kind::Bsync,
        "BREAK" => Kind::Break,
        "BMOV" if m("32") => Kind::Bmov { clear: m("CLEAR") },
        "BRA" if m("DIV") => Kind::BraDiv,
        "BRA" if m("CONV") => Kind::BraConv,
        "BRA" if m("ANY") => Kind::BraAny,
        "BRA" => Kind::Bra,
        "CALL" if m("REL") => Kind::Call,
        "CALL" if m("ABS") => Kind::CallAbs,
        "LEPC" => Kind::Lepc,
        // `RET.ABS.NODEC R20 0x0` (linked `-c` code) returns to R20 too.
        "RET" if m("REL") || m("ABS") => Kind::Ret,
        "EXIT" => Kind::Exit,
        "BAR" if m("SYNC") => Kind::Bar,
        "BAR" if m("RED") => Kind::BarRed { and: m("AND") },
        "B2R" if m("RESULT") => Kind::B2r,
        // R2UR runs once per warp and takes the first active lane's value.
        "MOV" if m("64") => Kind::Mov64,
        "MOV" | "R2UR" => Kind::Mov,
        "S2R" | "S2UR" | "CS2R" => Kind::S2r,
        // `.IL`/`.IS`/`.ISL` index modes are not modelled.
        "LDC" | "LDC.64" | "LDCU" if !m("IL") && !m("IS") && !m("ISL") => Kind::Ldc,
        "IADD3" => Kind::Iadd { sources: 3, x: m("X"), wide: m("64") },
        // Blackwell's IADD adds two or three sources (`IADD R7, R6, 0x1, R7`).
        "IADD" => {
            let sources = inst.uses.iter().filter(|u| !u.as_reg().is_some_and(|r| r.file.is_predicate())).count();
            Kind::Iadd { sources, x: m("X"), wide: m("64") }
        }
        "VIADD" if m("16x2") => Kind::Viadd16x2,
        "QSPC" if m("E") && m("G") => Kind::Qspc(Space::Global),
        "QSPC" if m("E") && m("S") => Kind::Qspc(Space::Shared),
        "QSPC" if m("E") && m("L") => Kind::Qspc(Space::Local),
        "VIADD" => Kind::Viadd,
        "VIADDMNMX" => Kind::Viaddmnmx { signed: !m("U32") },
        "IMAD" => {
            let signed = !m("U32");
            let mode = if m("WIDE") {
                ImadMode::Wide { signed }
            } else if m("HI") {
                ImadMode::Hi { signed }
            } else {
                ImadMode::Lo
            };
            Kind::Imad { mode, x: m("X") }
        }
        // `.PAND` changes the predicate result: not modelled.
        "LOP3" if !m("PAND") => Kind::Lop3,
        "PLOP3" => Kind::Plop3,
        "P2R" => Kind::P2r { byte: byte_sel(inst) },
        "R2P" => Kind::R2p { byte: byte_sel(inst) },
        "SHF" => Kind::Shf {
            left: m("L"),
            signed: m("S32") || m("S64"),
            wide: m("U64") || m("S64"),
            high: m("HI"),
            wrap: m("W"),
        },
        "LEA" => Kind::Lea { hi: m("HI"), sx32: m("SX32") },
        "PRMT" => match inst.mods.as_slice() {
            [] => Kind::Prmt { mode: None },
            [mode] => {
                PrmtMode::from_word(mode.name()).map_or(Kind::Unsupported, |mode| Kind::Prmt { mode: Some(mode) })
            }
            _ => Kind::Unsupported,
        },
        "VIMNMX" if m("U16x2") || m("S16x2") => Kind::Vimnmx16x2 { signed: m("S16x2"), relu: m("RELU") },
        "IMNMX" | "VIMNMX" if m("RELU") && !m("U64") && !m("S64") => Kind::ImnmxRelu { signed: !m("U32") },
        "IMNMX" | "VIMNMX" => Kind::Imnmx { signed: !m("U32") && !m("U64"), wide: m("U64") || m("S64") },
        "IABS" => Kind::Iabs,
        "BREV" => Kind::Brev,
        "VABSDIFF4" if inst.mods.len() == 1 && m("U8") => Kind::Vabsdiff4,
        "VABSDIFF4" if inst.mods.len() == 2 && m("U8") && m("ACC") => Kind::Vabsdiff4Acc,
        "IDP" => {
            let types: Vec<&str> =
                inst.mods.iter().map(|x| x.name()).filter(|n| n.len() <= 3 && n[1..].parse::<u8>().is_ok()).collect();
            match types.as_slice() {
                [a, b] => {
                    Kind::Idp { two: m("2A"), hi: m("HI"), a_signed: a.starts_with('S'), b_signed: b.starts_with('S') }
                }
                _ => Kind::Unsupported,
            }
        }
        "SGXT" => Kind::Sgxt { signed: !m("U32"), wrap: m("W") },
        // The only I2I NVIDIA's ptxas writes (cvt.sat to 8/16 bits): a
        // signed 32-bit source, saturating.
        "I2I" if m("S32") && m("SAT") && inst.mods.len() == 3 => match int_type(inst) {
            (signed, bits @ (8 | 16)) => Kind::I2iSat { signed, bits },
            _ => Kind::Unsupported,
        },
        "BMSK" => Kind::Bmsk { wrap: m("W") },
        "BPT" if m("TRAP") => Kind::Trap,
        "VABSDIFF" => Kind::Vabsdiff { signed: !m("U32") },
        "POPC" | "UPOPC" => Kind::Popc,
        // nvdisasm prints the signed form as plain `FLO`.
        "FLO" | "UFLO" => Kind::Flo { signed: !m("U32"), sh: m("SH") },
        "ISETP" => match cmp_op(inst) {
            Some((cmp, op)) => {
                Kind::Isetp { cmp, op, signed: !m("U32") && !m("U64"), wide: m("U64") || m("S64"), ex: m("EX") }
            }
            None => Kind::Unsupported,
        },
        "FSETP" => match cmp_op(inst) {
            Some((cmp, op)) => Kind::Fsetp { cmp, op, ftz },
            None => Kind::Unsupported,
        },
        "SEL" | "FSEL" => Kind::Sel { wide: m("64") },
        "FADD" => Kind::Fadd { ftz, rnd: round(inst), sat: m("SAT") },
        // `.FMZ` (zero times anything is zero) is not modelled.
        "FFMA" | "FMUL" if m("FMZ") => Kind::Unsupported,
        "FMUL" => {
            let scale = [("D8", -3), ("D4", -2), ("D2", -1), ("M2", 1), ("M4", 2), ("M8", 3)];
            let scale = scale.iter().find(|(w, _)| m(w)).map_or(0, |s| s.1);
            Kind::Fmul { ftz, rnd: round(inst), sat: m("SAT"), scale }
        }
        "FFMA" => Kind::Ffma { ftz, rnd: round(inst), sat: m("SAT") },
        // `.FMZ` is not modelled; a source is the pair as it is or one
        // word for both (`.F32`, an immediate); `.F32x2.LO_HI` does not
        // decode.
        "FADD2" | "FMUL2" | "FFMA2" if m("FMZ") => Kind::Unsupported,
        "FADD2" => Kind::Fpair { op: PairOp::Add, ftz, rnd: round(inst) },
        "FMUL2" => Kind::Fpair { op: PairOp::Mul, ftz, rnd: round(inst) },
        "FFMA2" => Kind::Fpair { op: PairOp::Fma, ftz, rnd: round(inst) },
        "FRND" => Kind::Frnd { rnd: round(inst), f64: m("F64") },
        "I2F" if m("F64") && !m("F32") => {
            let (signed, bits) = int_type(inst);
            Kind::I2f64 { signed, bits, rnd: round(inst) }
        }
        "DSETP" => match (cmp_op(inst), inst.mods.iter().find_map(|m| BoolOp::from_name(m.name()))) {
            (Some((cmp, op)), _) => Kind::Dsetp { cmp, op },
            (None, Some(op)) if m("MIN") || m("MAX") => Kind::DsetpMinMax { max: m("MAX"), op },
            _ => Kind::Unsupported,
        },
        "FCHK" => Kind::Fchk,
        // `.NAN` (a NaN input gives NaN) and `.XORSIGN` are not modelled.
        "FMNMX" if !m("NAN") && !m("XORSIGN") => Kind::Fmnmx { ftz },
        // `.NAN` returns NaN when any input is one: not modelled.
        "FMNMX3" if !m("NAN") => Kind::Fmnmx3 { ftz },
        // The packed half operations model round-to-nearest without
        // flushing, saturation, `.RELU` or NaN-propagating min/max.
        "HFMA2" | "HMUL2" | "HADD2" | "HMNMX2" if HALF_UNMODELLED.iter().any(|w| m(w)) => Kind::Unsupported,
        "HFMA2" => Kind::Half2 { op: HalfOp::Fma, bf16: m("BF16_V2") },
        "HMUL2" => Kind::Half2 { op: HalfOp::Mul, bf16: m("BF16_V2") },
        "HADD2" if !m("F32") => Kind::Half2 { op: HalfOp::Add, bf16: m("BF16_V2") },
        "HMNMX2" => Kind::Half2 { op: HalfOp::MinMax, bf16: m("BF16_V2") },
        // `.H_AND` (both halves' results combined) is not modelled.
        "HSETP2" if !m("H_AND") => match cmp_op(inst) {
            Some((cmp, op)) => Kind::Hsetp2 { cmp, op, bf16: m("BF16_V2") },
            None => Kind::Unsupported,
        },
        "HSET2" if m("BF") && !m("BF16_V2") => match cmp_op(inst) {
            Some((cmp, op)) => Kind::Hset2 { cmp, op },
            None => Kind::Unsupported,
        },
        "F2FP" if m("PACK_AB") => Kind::F2fp { bf16: m("BF16"), rz: m("RZ"), relu: m("RELU") },
        "F2FP" if m("MERGE_C") && !m("PACK_AB_MERGE_C") && !m("RELU") && !m("SATFINITE") => {
            Kind::F2fpMerge { bf16: m("BF16"), rnd: round(inst) }
        }
        "F2FP" if m("UNPACK_B") && m("F16") && (m("E4M3") || m("E5M2")) => {
            Kind::Fp8Unpack { e4m3: m("E4M3"), relu: m("RELU") }
        }
        "F2FP" if m("PACK_AB_MERGE_C") && m("SATFINITE") && m("F32") => {
            Kind::Fp8Pack { e4m3: m("E4M3"), relu: m("RELU") }
        }
        "HADD2" if m("F32") => Kind::Hadd2F32,
        // The source type is the integer modifier (signed 32-bit when
        // none is printed).
        "I2F" if m("F16") && !m("F64") && !m("F32") => {
            let (signed, bits) = int_type(inst);
            Kind::I2f16 { signed, bits, rnd: round(inst) }
        }
        // `.BF16` (sm_90's bfloat16 result) is not modelled.
        "I2F" | "I2FP" if !m("F64") && !m("F16") && !m("BF16") => {
            let (signed, bits) = int_type(inst);
            Kind::I2f { signed, bits, rnd: round(inst) }
        }
        "F2IP" if m("U8") && m("F32") && [0, 2].iter().all(|&i| is_rz(inst, i)) => Kind::F2ipU8 { rnd: round(inst) },
        "F2I" => {
            let (signed, bits) = int_type(inst);
            Kind::F2i { signed, bits, rnd: round(inst), ftz, from64: m("F64") }
        }
        "F2F" => {
            let pos = |w: &str| inst.mods.iter().position(|x| x.name() == w);
            let narrow = pos("F16").or(pos("BF16"));
            match (pos("F64"), pos("F32"), narrow) {
                (Some(d), Some(s), _) if d < s => Kind::F2f64,
                (Some(_), Some(_), _) => Kind::F2f32 { rnd: round(inst) },
                (Some(d), None, Some(s)) if d < s && inst.mods.len() == 2 && m("F16") => Kind::F2f64From16,
                (Some(_), None, Some(_)) if inst.mods.len() == 2 && m("F16") => Kind::F2f16,
                (None, Some(s), Some(d))
                    if d < s
                        && inst.mods.iter().all(|x| {
                            matches!(x.name(), "F16" | "BF16" | "F32") || Round::from_name(x.name()).is_some()
                        }) =>
                {
                    Kind::F2fNarrow { bf16: m("BF16"), rnd: round(inst) }
                }
                _ => Kind::Unsupported,
            }
        }
        "DADD" => Kind::Dadd { rnd: round(inst) },
        "DMUL" => Kind::Dmul { rnd: round(inst) },
        "DFMA" => Kind::Dfma { rnd: round(inst) },
        "MUFU" if m("F16") || m("BF16") => inst
            .mods
            .first()
            .map(|f| f.name())
            .filter(|f| crate::sem::mufu::mufu_half(f, 0x3c00, false).is_some())
            .map_or(Kind::Unsupported, |func| Kind::MufuHalf { func, bf16: m("BF16") }),
        "MUFU" => inst
            .mods
            .first()
            .map(|f| f.name())
            .filter(|f| {
                crate::sem::mufu::mufu(f, 0x3f80_0000).is_some() || crate::sem::mufu::mufu64h(f, 0x3ff0_0000).is_some()
            })
            .map_or(Kind::Unsupported, Kind::Mufu),
        // Generic accesses (LD/ST) reach local memory through its window;
        // the interpreter keeps no shared window in the generic space.
        "LDG" | "LD" | "LDS" | "LDL" => {
            let space = match base {
                "LDG" => Space::Global,
                "LD" => Space::Generic,
                "LDS" => Space::Shared,
                _ => Space::Local,
            };
            let (bytes, signed) = mem_bytes(inst);
            Kind::Ld { space, bytes, signed }
        }
        "STG" | "ST" | "STS" | "STL" => {
            let space = match base {
                "STG" => Space::Global,
                "ST" => Space::Generic,
                "STS" => Space::Shared,
                _ => Space::Local,
            };
            Kind::St { space, bytes: mem_bytes(inst).0 }
        }
        "ATOMG" | "RED" | "REDG" | "ATOMS" | "ATOM" => {
            let space = match base {
                "ATOMS" => Space::Shared,
                "ATOM" => Space::Generic,
                _ => Space::Global,
            };
            // `.S64` and `.F64.RN` are 64-bit too.
            let bytes = if m("64") || m("S64") || m("F64") { 8 } else { 4 };
            if m("POPC") && m("INC") {
                return Kind::Atom { space, op: AtomOp::Add, bytes, one: true };
            }
            atom_op(inst).map_or(Kind::Unsupported, |op| Kind::Atom { space, op, bytes, one: false })
        }
        "SHFL" => Kind::Shfl(if m("UP") {
            ShflMode::Up
        } else if m("DOWN") {
            ShflMode::Down
        } else if m("BFLY") {
            ShflMode::Bfly
        } else {
            ShflMode::Idx
        }),
        "VOTE" | "VOTEU" => Kind::Vote { any: m("ANY"), all: m("ALL") },
        // nvdisasm prints the default `.AND` of REDUX as nothing.
        "MATCH" => Kind::Match { all: m("ALL"), wide: m("U64") },
        "REDUX" => Kind::Redux(atom_op(inst).unwrap_or(AtomOp::And)),
        "CREDUX" if m("F32") => {
            Kind::ReduxF32 { min: m("MIN") || m("MINABS"), abs: m("MAXABS") || m("MINABS"), nan: m("NAN") }
        }
        "CREDUX" => Kind::Redux(atom_op(inst).unwrap_or(AtomOp::And)),
        "LDSM" | "STSM" if m("16") && (m("M88") || m("MT88")) => {
            let matrices = if m("4") {
                4
            } else if m("2") {
                2
            } else {
                1
            };
            let trans = m("MT88");
            if name == "LDSM" { Kind::Ldsm { matrices, trans } } else { Kind::Stsm { matrices, trans } }
        }
        // The f16-accumulator and bf16/tf32 forms have other layouts.
        "HMMA" => hmma(inst).map_or(Kind::Unsupported, Kind::Hmma),
        "IMMA" => imma(inst).map_or(Kind::Unsupported, Kind::Imma),
        _ => Kind::Unsupported,
    }
}
