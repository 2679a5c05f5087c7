//! Target facts: everything that differs between the SMs we compile for,
//! as data. One row per family (Turing, Ampere, Ada, Hopper, Blackwell),
//! composed per SM the way `elfw`'s `arch.rs` composes its rows, so that
//! no pass compares SM numbers: a pass asks [`Target`] for the fact it
//! needs (`target.isa.int_minmax`, `target.shared_window`).
//!
//! Every value was read off NVIDIA's ptxas 13.5 and nvdisasm (the tools
//! under `target/oracle`): a probe kernel compiled for each SM and its SASS
//! or cubin read back. `crates/ori-ir/tests/facts_oracle.rs` repeats those
//! probes and fails when a row says something NVIDIA's code does not; the
//! comment on each field names the probe. `docs/targets.md` has the table.

use crate::target::{Sm, Variant};
use crate::{Halves, Opcode};

/// A GPU family: the SMs that share a row of this table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// sm_75 (T4, RTX 20xx): ptxas's default target.
    Turing,
    /// sm_80 (A100), sm_86 (RTX 30xx), sm_87 (Orin), sm_88.
    Ampere,
    /// sm_89 (L4, L40S, RTX 40xx).
    Ada,
    /// sm_90, sm_90a (H100, H200).
    Hopper,
    /// sm_100, sm_103, sm_110, sm_120, sm_121 and their `a`/`f` variants.
    Blackwell,
}

impl Family {
    /// The family of SM `version` (`major * 10 + minor`).
    pub const fn of(version: u16) -> Family {
        match version {
            ..80 => Family::Turing,
            80..89 => Family::Ampere,
            89 => Family::Ada,
            90..100 => Family::Hopper,
            _ => Family::Blackwell,
        }
    }
}

/// How a `cvt.rn.f16.f32` is written (probe `convert`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HalfConvert {
    /// `F2F.F16.F32` (sm_75).
    F2f,
    /// `F2FP.PACK_AB d, RZ, a` (sm_80, sm_86).
    PackAb,
    /// `F2FP.F16.F32.PACK_AB d, RZ, a`, the types spelled out (sm_89+).
    TypedPackAb,
}

/// How `mma` with fp8 (`e4m3`/`e5m2`) operands runs (probe `fp8_mma`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fp8Mma {
    /// ptxas rejects it ("requires .target sm_89 or higher").
    Absent,
    /// One `QMMA.16832` (sm_89, sm_120).
    Qmma,
    /// Operands unpacked to f16 (`F2FP.F16.E4M3.UNPACK_B`), then `HMMA`
    /// (sm_90, sm_100).
    ViaF16,
}

/// How a register and an immediate are added where NVIDIA's code has no
/// other reason to pick (the kernel's stack-frame adjustment, probe
/// `frame`: `R1 = R1 - size`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ImmAdd {
    /// `IADD3 R1, R1, -0x130, RZ` (sm_75-89; sm_110 with its `PT`
    /// carry-outs).
    Iadd3,
    /// `VIADD R1, R1, 0xfffffed0` (sm_90, sm_100, sm_103).
    Viadd,
    /// Two-source `IADD R1, R1, -0x130` (sm_120, sm_121).
    Iadd,
}

/// The field a call's target address is relocated into (probe `calls`,
/// `-c`: the relocation against the callee).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// Bits 34..81: `R_CUDA_ABS47_34` (sm_75-sm_89).
    Abs47At34,
    /// Bits 16..32 and 34..73: `R_CUDA_ABS55_16_34` (sm_90+).
    Abs55At16And34,
}

/// The instruction choices of one SASS generation: which of equivalent
/// forms NVIDIA's code uses, measured on the generation's first SM. An
/// SM uses its generation's forms (sm_86-89 use sm_80's: our encoder has
/// only sm_80's tables for them; NVIDIA's sm_86+ code also uses `I2FP`,
/// sm_89's `F2FP.F16.F32.PACK_AB`, which those SMs take once their own
/// tables exist).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Isa {
    /// The generation, the key of per-generation tables (latencies, the
    /// IEEE templates, the encoder).
    pub generation: Family,
    /// The SM whose NVIDIA code ptx-lower's IEEE templates were made from
    /// (`ops/ieee/FORM.smNN.ori`): the generation's first SM, sm_120
    /// for sm_120/121, whose code adds with `IADD` where sm_100's has
    /// `VIADD`, and sm_110, which has neither.
    pub template_sm: u16,
    /// Constant-bank words are instruction operands (`IADD3 R0, R0,
    /// c[0x0][0x168]`, `MOV R2, c[0x0][0x160]`); without this they are
    /// loaded first with `LDC`/`ULDC` (`LDC R1, c[0x0][0x28]`) and `LDC`
    /// addresses a constant without a register (probe `params`).
    pub bank_operands: bool,
    /// A 64-bit kernel parameter stays in the bank until it is used, each
    /// word read where needed, rather than being loaded with `LDC.64`
    /// (probe `params`: `IMAD.MOV.U32 R2, RZ, RZ, c[0x0][0x160]` +
    /// `MOV R3, c[0x0][0x164]` on sm_80, `LDC.64 R2, c[0x0][0x210]` on
    /// sm_90).
    pub wide_params_in_bank: bool,
    /// 64-bit constants live in a literal pool in constant bank 2
    /// (`DMUL R2, R2, c[0x2][0x0]`); without one they are built in uniform
    /// registers (`UMOV` pairs) (probe `convert`).
    pub literal_pool: bool,
    /// The reduction without result: `RED` or `REDG` (probe `params`).
    pub global_red: Opcode,
    /// The uniform constant load: `ULDC` (a fixed-latency read) or
    /// Blackwell's `LDCU` (signalled on a scoreboard) (probe `params`: the
    /// global memory descriptor's `ULDC.64` / `LDCU.64`).
    pub uniform_const_load: Opcode,
    /// The integer minimum/maximum: `IMNMX` or `VIMNMX` (probe `misc`).
    pub int_minmax: Opcode,
    /// A signed `VIMNMX` spells its type, `VIMNMX.S32` (sm_120, sm_121;
    /// otherwise no word) (probe `misc`).
    pub minmax_s32: bool,
    /// `sad` is `VABSDIFF[.U32] d, a, b, c`; without it (sm_120, sm_121:
    /// no `VABSDIFF` at all) the maximum less the minimum, `VIMNMX` twice
    /// and `IADD3 d, PT, PT, max, c, -min` (probe `sad`).
    pub abs_diff: bool,
    /// `cvt.rn.f32.s32` is `I2FP.F32.S32` (otherwise `I2F`) (probe
    /// `convert`).
    pub i2fp: bool,
    /// How `cvt.rn.f16.f32` is written (probe `convert`).
    pub half_convert: HalfConvert,
    /// How the stack pointer is moved by an immediate (probe `frame`).
    pub imm_add: ImmAdd,
    /// `WARPSYNC.ALL` (otherwise `WARPSYNC 0xffffffff`) makes a split
    /// warp run together again before `BAR.SYNC`/`SHFL` (probe `sync`).
    pub warpsync_all: bool,
    /// `LEPC` takes the return label (`LEPC R20, ret`); without this the
    /// return address comes from `MOV`s (corpus: calls through bank 4 in
    /// device_calls on sm_80 and sm_90; not probed on sm_75 and sm_100).
    pub lepc_label: bool,
    /// `fma.rn.bf16x2` is `HFMA2.MMA.BF16_V2` (otherwise `HFMA2.BF16_V2`)
    /// (probe `sync`: sm_90 only).
    pub bf16x2_fma_mma: bool,
    /// How a call target is relocated (probe `calls`).
    pub call_target: CallTarget,
    /// Weak global and generic loads and stores spell their scope:
    /// `LDG.E.SYS`, `LDG.E.CONSTANT.SYS`, `LD.E.SYS`, `STG.E.SYS` (probe
    /// `spellings`; strong ones are the same everywhere).
    pub weak_sys: bool,
    /// Shared-memory loads are `LDS.U` (`LDS.U.128`, `LDS.U.S8`) (probe
    /// `spellings`).
    pub lds_u: bool,
    /// `BAR.SYNC` and `BAR.RED` carry `.DEFER_BLOCKING` (probe
    /// `spellings`).
    pub bar_defer_blocking: bool,
    /// `nanosleep` is `NANOSLEEP.WARP` (probe `spellings`).
    pub nanosleep_warp: bool,
    /// A shared-memory increment by 1 whose result is unread is
    /// `ATOMS.POPC.INC.32` (otherwise `ATOMS.ADD` of a register holding 1)
    /// (probe `spellings`).
    pub shared_popc_inc: bool,
    /// `BSSY Bn` is preceded by `BMOV.32.CLEAR RZ, Bn` (probe `misc`).
    pub bssy_clears: bool,
    /// `vote.all.pred` is `VOTE.ALL`; without it the ballot of the negated
    /// predicate compared with zero (`VOTE.ANY R, PT, !p`, probe
    /// `spellings`).
    pub vote_all: bool,
    /// `add`/`sub`/`mul`/`fma.f32x2` are one `FADD2`/`FMUL2`/`FFMA2` on
    /// register pairs; without it two f32 instructions, one a half
    /// (NVIDIA's code: pairs on sm_100 and sm_103, halves on sm_110,
    /// sm_120 and sm_121).
    pub packed_f32: bool,
    /// `min`/`max.f32` of three sources is one `FMNMX3` (NVIDIA's code on
    /// sm_100, sm_103 and sm_110); without it two `FMNMX` (sm_120 and
    /// sm_121, whose nvdisasm refuses FMNMX3's word; and every SM before
    /// Blackwell, whose PTX has no three-source form).
    pub minmax3_f32: bool,
    /// A kernel's `.debug_frame` FDE keeps the empty row at 0x10; without
    /// this ptxas drops it after laying out the section, 5 bytes the CIE
    /// pointers still count (probe `params`: FDE starts `04 04 00 00 00`
    /// on sm_75-89).
    pub fde_entry_row: bool,
    /// `ATOMS.CAST.SPIN` writes whether it stored to a predicate
    /// (`ATOMS.CAST.SPIN P1, [R0], R4, R5; @!P1 BRA`); without it to a
    /// register tested against 1 (`ATOMS.CAST.SPIN R5, ...; ISETP.EQ.U32`)
    /// (corpus spinlock_fence, sm_90a vs sm_100a/110a/120a).
    pub cas_spin_predicate: bool,
    /// The lane `HMUL2` reads of a broadcast pair `{h, h}` made by a
    /// conversion (`cvt.rn.f16.f32 h; mov.b32 r, {h, h}; mul.f16x2`): sm_75
    /// converts each into a register of its own and reads `.H0_H0`; sm_80+
    /// packs two such pairs into one register (`F2FP.PACK_AB R, hi, lo`),
    /// the `HMUL2` reading `.H1_H1` and the `HFMA2` `.H0_H0` (probe
    /// `halves`). Either lane holds `h`; NVIDIA's sm_75 tables have only
    /// the `.H0_H0` form.
    pub hmul2_broadcast_lane: Halves,
    /// `HMMA.16816` exists; without it (Turing) an m16n16k16 `wmma.mma`
    /// is four `HMMA.1688`, each half of the k range in turn (probe
    /// `wmma`: `HMMA.1688.F32 d0, a0..1, b0, c0; HMMA.1688.F32 d0, a2..3,
    /// b1, d0`, likewise d1 with b2, b3).
    pub hmma_k16: bool,
    /// `cvt.f32.f16` is `HADD2.F32 d, a.H0_H0, -RZ.H0_H0` (sm_75); without
    /// it `HADD2.F32 d, -RZ, a.H0_H0` (probe `halves`). NVIDIA's sm_75
    /// tables have only the first.
    pub f16_widen_zero_second: bool,
    /// `add.f16 h, a, b` then `cvt.f32.f16 f, h` is one `HADD2.F32 f,
    /// a.H0_H0, b.H0_H0` (NVIDIA's sm_75 code; sm_80+ adds in binary16,
    /// `HADD2`, then widens, `HADD2.F32 f, -RZ, h.H0_H0`) (probe `halves`).
    pub f16_add_widen_fused: bool,
}

/// Feature flags of an SM: what its PTX may use (ptxas rejects the
/// instruction on SMs without it) and what its hardware has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// Asynchronous global→shared copies (LDGSTS, `cp.async`), sm_80+.
    pub async_copy: bool,
    /// `redux.sync` (REDUX), sm_80+: sm_75's warp reductions are `SHFL`
    /// trees (probe `params`: the aggregated `red.add`).
    pub redux: bool,
    /// `mma` with bf16 and tf32 operands, sm_80+.
    pub bf16_tf32_mma: bool,
    /// `mma` with fp8 operands.
    pub fp8_mma: Fp8Mma,
    /// Thread-block clusters, distributed shared memory, TMA, SYNCS.
    pub clusters: bool,
    /// Warpgroup MMA (only with the `a` variant of sm_90).
    pub wgmma: bool,
    /// Fifth-generation tensor cores (`tcgen05`, sm_100a/sm_100f family).
    pub tcgen05: bool,
}

/// How NVIDIA's code gets `%nwarpid`, the warp slots of an SM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WarpSlots {
    /// A constant (`IMAD.MOV.U32 R, RZ, RZ, 0x40` on sm_80).
    Constant(u32),
    /// Bits 8..15 of `SR_VIRTCFG` (sm_90, sm_100, sm_120).
    VirtCfg,
    /// Not measured for this SM.
    Unmeasured,
}

/// Where NVIDIA's code finds the shared-memory sizes of a CTA besides
/// `SR_SMEMSZ` (ptxas 13.5 probes of `mov.u32 d, %total_smem_size` and
/// `%aggr_smem_size`): sm_80/sm_89 `IADD3 d, smem, -c[0x0][0x114], RZ`,
/// sm_90 the same through `LDC` and, for `%aggr_smem_size`, the unsigned
/// minimum of `SR_SMEMSZ` and `c[0x0][0x13c]`; sm_75 reads `SR_SMEMSZ`
/// alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SmemSizeBank {
    /// The driver's reserve, which `%total_smem_size` leaves out.
    pub reserved: Option<i32>,
    /// The bound `%aggr_smem_size` takes the minimum with, where the
    /// target has the register (sm_90+).
    pub aggr_limit: Option<i32>,
}

impl Family {
    /// Where the shared-memory sizes are, for the families measured.
    pub const fn smem_size_bank(self) -> Option<SmemSizeBank> {
        match self {
            Family::Turing => Some(SmemSizeBank { reserved: None, aggr_limit: None }),
            Family::Ampere | Family::Ada => Some(SmemSizeBank { reserved: Some(0x114), aggr_limit: None }),
            Family::Hopper => Some(SmemSizeBank { reserved: Some(0x114), aggr_limit: Some(0x13c) }),
            Family::Blackwell => None,
        }
    }
}

/// The generic window of a kernel's parameters as NVIDIA's
/// `isspacep.param` tests it (ptxas 13.5 probes; both ends included).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamWindow {
    /// sm_90: the ends are 64-bit words of bank 0 (`c[0x0][0x198]`,
    /// `c[0x0][0x1a0]`).
    Bounds {
        /// The first address.
        lo: i32,
        /// The last address.
        hi: i32,
    },
    /// sm_80: offsets from bank 0's 64-bit generic base (`c[0x0][0x40]`):
    /// the parameter base (`Target::param_base`) and the 32-bit word at
    /// `end` (`c[0x0][0x12c]`).
    FromBase {
        /// Where the base is.
        base: i32,
        /// Where the offset of the last address is.
        end: i32,
    },
}

impl Family {
    /// The parameter window, for the families measured.
    pub const fn param_window(self) -> Option<ParamWindow> {
        match self {
            Family::Ampere => Some(ParamWindow::FromBase { base: 0x40, end: 0x12c }),
            Family::Hopper => Some(ParamWindow::Bounds { lo: 0x198, hi: 0x1a0 }),
            _ => None,
        }
    }
}

/// Where the driver puts a launch's values in constant bank 0 (probe
/// `bank0`: `%ntid.x` is `c[0x0][0x0]` before sm_100, `c[0x0][0x360]`
/// after; `%dynamic_smem_size` and `%gridid` as NVIDIA's sm_75/80/90 and
/// sm_100 code reads them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LaunchBank {
    /// `%ntid.x`; `.y` and `.z` follow.
    pub ntid: i32,
    /// `%nctaid.x`; `.y` and `.z` follow.
    pub nctaid: i32,
    /// The 64-bit generic address of the local window (`cvta.local`).
    pub local_window: i32,
    /// `%nsmid`.
    pub nsmid: i32,
    /// `%dynamic_smem_size`: the launch's dynamic shared memory bytes.
    pub dynamic_smem: i32,
    /// `%gridid`, 64 bits.
    pub gridid: i32,
    /// The cluster registers, on targets with clusters where measured.
    pub cluster: Option<ClusterBank>,
}

/// Where the driver puts a launch's cluster shape in constant bank 0
/// (NVIDIA's sm_90 code for `mov.u32 d, %cluster_nctaid.x` and the
/// others: `LDC R, c[0x0][0x144]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClusterBank {
    /// `%cluster_nctaid.x`, CTAs per cluster; `.y` and `.z` follow.
    pub nctaid: i32,
    /// `%nclusterid.x`, clusters in the grid; `.y` and `.z` follow.
    pub nclusterid: i32,
    /// `%cluster_nctarank`, CTAs in a cluster.
    pub nctarank: i32,
    /// The word that is 1 for a launch with an explicit cluster shape
    /// (NVIDIA's `%is_explicit_cluster` is `c[0x0][0x140] == 1`).
    pub explicit: i32,
    /// The binary32 reciprocal of `%cluster_nctaid.y` (`.z` follows):
    /// NVIDIA's `%clusterid.y` is `%ctaid.y` times it, truncated
    /// (`.x` is a full division by `%cluster_nctaid.x`).
    pub rcp_nctaid_y: i32,
}

/// Everything a pass needs to know about the target.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `%nwarpid` (NVIDIA's code on sm_75 32, sm_80 64, sm_86/sm_89 48).
    pub warp_slots: WarpSlots,
    /// The architecture.
    pub sm: Sm,
    /// Its family.
    pub family: Family,
    /// Highest number of general registers a thread may use.
    pub max_regs: u32,
    /// Lower bound ptxas raises `--maxrregcount`/`.maxnreg` to.
    pub min_regs: u32,
    /// Registers ptxas adds to the highest one used when it reports a count.
    pub reserved_regs: u32,
    /// Number of uniform registers (URZ excluded).
    pub uniform_regs: u32,
    /// Byte offset of the first kernel parameter in constant bank 0
    /// (EIATTR_PARAM_CBANK of probe `params`: 0x160, 0x210, 0x380).
    pub param_base: u32,
    /// Offset in constant bank 0 of the stack top the prologue loads into
    /// R1 (probe `params`: `c[0x0][0x28]`, `c[0x0][0x37c]` on sm_100+).
    pub stack_top: i32,
    /// Offset in constant bank 0 of the 64-bit global memory descriptor
    /// that `LDG`/`STG` take as `desc[UR]` (probe `params`: `ULDC.64 UR4,
    /// c[0x0][0x118]`, `0x208`, `LDCU.64 .. 0x358`); sm_75's accesses take
    /// none (`LDG.E.SYS R0, [UR6]`).
    pub global_desc: Option<i32>,
    /// The rest of constant bank 0's layout the code reads.
    pub launch_bank: LaunchBank,
    /// Bytes at the start of every function's shared-memory section that
    /// ptxas keeps for itself: variables start after them, and `-v`'s
    /// `bytes smem` leaves them out (measured: reduce_smem's 1 KiB array
    /// makes a 0x400-byte section on sm_80-89 and 0x800 on sm_90-120, with
    /// `1024 bytes smem` on all; probe `convert`: `UMOV UR4, 0x400`).
    pub reserved_shared: u32,
    /// Shared addresses are offsets in the cluster's shared window: a
    /// variable's address is `ULEA(SR_CgaCtaId, offset, 0x18)`, and `-c`
    /// output relocates them (probe `convert`); otherwise a plain
    /// immediate.
    pub shared_window: bool,
    /// Kernels start with the barrier-reset prologue (`BMOV.32.CLEAR B1,
    /// B0` ... `B15`, guarded by `UR2`) (probe `params`, sm_87 only).
    pub barrier_reset_prologue: bool,
    /// Whether `-v` reports `bytes cmem[0]`.
    pub verbose_reports_cmem0: bool,
    /// Instruction choices of the SASS generation this SM uses.
    pub isa: Isa,
    /// Feature flags.
    pub features: Features,
}

const TURING_ISA: Isa = Isa {
    generation: Family::Turing,
    template_sm: 75,
    bank_operands: true,
    wide_params_in_bank: true,
    literal_pool: true,
    global_red: Opcode::RED,
    uniform_const_load: Opcode::ULDC,
    int_minmax: Opcode::IMNMX,
    minmax_s32: false,
    abs_diff: true,
    i2fp: false,
    half_convert: HalfConvert::F2f,
    imm_add: ImmAdd::Iadd3,
    warpsync_all: false,
    lepc_label: false,
    bf16x2_fma_mma: false,
    call_target: CallTarget::Abs47At34,
    fde_entry_row: true,
    cas_spin_predicate: false,
    weak_sys: true,
    lds_u: true,
    bar_defer_blocking: false,
    nanosleep_warp: true,
    shared_popc_inc: false,
    bssy_clears: true,
    vote_all: false,
    packed_f32: false,
    minmax3_f32: false,
    hmul2_broadcast_lane: Halves::H0H0,
    hmma_k16: false,
    f16_widen_zero_second: true,
    f16_add_widen_fused: true,
};

const AMPERE_ISA: Isa = Isa {
    generation: Family::Ampere,
    template_sm: 80,
    half_convert: HalfConvert::PackAb,
    weak_sys: false,
    lds_u: false,
    bar_defer_blocking: true,
    nanosleep_warp: false,
    shared_popc_inc: true,
    bssy_clears: false,
    vote_all: true,
    hmul2_broadcast_lane: Halves::H1H1,
    hmma_k16: true,
    f16_widen_zero_second: false,
    f16_add_widen_fused: false,
    ..TURING_ISA
};

const HOPPER_ISA: Isa = Isa {
    generation: Family::Hopper,
    template_sm: 90,
    bank_operands: false,
    wide_params_in_bank: false,
    literal_pool: false,
    global_red: Opcode::REDG,
    int_minmax: Opcode::VIMNMX,
    i2fp: true,
    half_convert: HalfConvert::TypedPackAb,
    imm_add: ImmAdd::Viadd,
    warpsync_all: true,
    lepc_label: true,
    bf16x2_fma_mma: true,
    call_target: CallTarget::Abs55At16And34,
    fde_entry_row: false,
    ..AMPERE_ISA
};

const BLACKWELL_ISA: Isa = Isa {
    generation: Family::Blackwell,
    template_sm: 100,
    bf16x2_fma_mma: false,
    uniform_const_load: Opcode::LDCU,
    cas_spin_predicate: true,
    packed_f32: true,
    minmax3_f32: true,
    ..HOPPER_ISA
};

const TURING: Target = Target {
    sm: Sm::new(75),
    warp_slots: WarpSlots::Constant(32),
    family: Family::Turing,
    max_regs: 255,
    min_regs: 24,
    reserved_regs: 2,
    uniform_regs: 63,
    param_base: 0x160,
    stack_top: 0x28,
    global_desc: None,
    launch_bank: LaunchBank {
        ntid: 0x0,
        nctaid: 0xc,
        local_window: 0x20,
        nsmid: 0x10c,
        dynamic_smem: 0x2c,
        gridid: 0x30,
        cluster: None,
    },
    reserved_shared: 0,
    shared_window: false,
    barrier_reset_prologue: false,
    verbose_reports_cmem0: true,
    isa: TURING_ISA,
    features: Features {
        async_copy: false,
        redux: false,
        bf16_tf32_mma: false,
        fp8_mma: Fp8Mma::Absent,
        clusters: false,
        wgmma: false,
        tcgen05: false,
    },
};

const AMPERE: Target = Target {
    family: Family::Ampere,
    warp_slots: WarpSlots::Constant(64),
    global_desc: Some(0x118),
    isa: AMPERE_ISA,
    features: Features { async_copy: true, redux: true, bf16_tf32_mma: true, ..TURING.features },
    ..TURING
};

const ADA: Target = Target {
    family: Family::Ada,
    warp_slots: WarpSlots::Constant(48),
    features: Features { fp8_mma: Fp8Mma::Qmma, ..AMPERE.features },
    ..AMPERE
};

const HOPPER: Target = Target {
    family: Family::Hopper,
    warp_slots: WarpSlots::VirtCfg,
    param_base: 0x210,
    global_desc: Some(0x208),
    reserved_shared: 0x400,
    shared_window: true,
    verbose_reports_cmem0: false,
    isa: HOPPER_ISA,
    features: Features { fp8_mma: Fp8Mma::ViaF16, clusters: true, ..ADA.features },
    launch_bank: LaunchBank {
        cluster: Some(ClusterBank {
            nctaid: 0x144,
            nclusterid: 0x15c,
            nctarank: 0x188,
            explicit: 0x140,
            rcp_nctaid_y: 0x154,
        }),
        ..ADA.launch_bank
    },
    ..ADA
};

const BLACKWELL: Target = Target {
    family: Family::Blackwell,
    param_base: 0x380,
    stack_top: 0x37c,
    global_desc: Some(0x358),
    launch_bank: LaunchBank {
        ntid: 0x360,
        nctaid: 0x370,
        local_window: 0x2f8,
        nsmid: 0x2d0,
        dynamic_smem: 0x16c,
        gridid: 0x140,
        cluster: None,
    },
    isa: BLACKWELL_ISA,
    ..HOPPER
};

/// The facts for `sm`: its family's row with what the SM changes.
pub const fn target(sm: Sm) -> Target {
    let v = sm.version;
    let specific = !matches!(sm.variant, Variant::Base);
    let row = match Family::of(v) {
        Family::Turing => TURING,
        Family::Ampere => AMPERE,
        Family::Ada => ADA,
        Family::Hopper => HOPPER,
        Family::Blackwell => BLACKWELL,
    };
    let mut t = Target { sm, ..row };
    // Per-SM differences within a family.
    t.barrier_reset_prologue = v == 87;
    if v == 86 {
        t.warp_slots = WarpSlots::Constant(48);
    } else if v == 87 || v == 88 {
        t.warp_slots = WarpSlots::Unmeasured;
    }
    if v == 120 || v == 121 {
        // Consumer Blackwell runs fp8 mma natively, as Ada does.
        t.features.fp8_mma = Fp8Mma::Qmma;
        t.isa.imm_add = ImmAdd::Iadd;
        t.isa.minmax_s32 = true;
        t.isa.abs_diff = false;
        t.isa.template_sm = 120;
        t.isa.packed_f32 = false;
        t.isa.minmax3_f32 = false;
    }
    if v == 110 {
        // Thor's code adds and compares as Ampere's does: its SASS lacks
        // sm_100's `VIADD` and `VIMNMX` (mercury-encode's `Sm::Sm110`).
        t.isa.imm_add = ImmAdd::Iadd3;
        t.isa.int_minmax = Opcode::IMNMX;
        t.isa.template_sm = 110;
        t.isa.packed_f32 = false;
    }
    if v == 107 {
        // sm_107's code adds and compares as sm_120's does (its encoding
        // is sm_120's: mercury-encode's `Sm::Sm107`), but keeps sm_100's
        // `FADD2` pairs, fp8 `mma` through f16 and tcgen05 (probes `frame`,
        // `misc`, `sad`, `fp8_mma`; `add.rn.f32x2`, `tcgen05.alloc`).
        t.isa.imm_add = ImmAdd::Iadd;
        t.isa.minmax_s32 = true;
        t.isa.abs_diff = false;
        t.isa.template_sm = 120;
    }
    t.features.wgmma = v == 90 && specific;
    t.features.tcgen05 = matches!(v, 100 | 103 | 107 | 110) && specific;
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_of_every_sm() {
        let families: Vec<(String, Family)> = Sm::all().map(|sm| (sm.to_string(), sm.target().family)).collect();
        assert_eq!(families[0], ("sm_75".to_string(), Family::Turing));
        for (sm, family) in &families {
            let v: u16 = sm[3..].trim_end_matches(['a', 'f']).parse().unwrap();
            let expected = match v {
                75 => Family::Turing,
                80 | 86 | 87 | 88 => Family::Ampere,
                89 => Family::Ada,
                90 => Family::Hopper,
                _ => Family::Blackwell,
            };
            assert_eq!(*family, expected, "{sm}");
        }
    }

    #[test]
    fn parameter_base_per_family() {
        assert_eq!(Sm::new(75).target().param_base, 0x160);
        assert_eq!(Sm::new(80).target().param_base, 0x160);
        assert_eq!(Sm::new(89).target().param_base, 0x160);
        assert_eq!("sm_90a".parse::<Sm>().unwrap().target().param_base, 0x210);
        assert_eq!(Sm::new(100).target().param_base, 0x380);
        assert_eq!(Sm::new(120).target().param_base, 0x380);
    }

    #[test]
    fn variant_features() {
        assert!("sm_90a".parse::<Sm>().unwrap().target().features.wgmma);
        assert!(!Sm::new(90).target().features.wgmma);
        assert!("sm_100f".parse::<Sm>().unwrap().target().features.tcgen05);
        assert!(!"sm_120a".parse::<Sm>().unwrap().target().features.tcgen05);
    }
}
