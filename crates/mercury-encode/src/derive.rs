//! Forms derived from the learned ones: the operand shapes NVIDIA's ptxas
//! happened not to emit for the corpus. The rules run in a test, which
//! writes their result to `tables/sm*_derived.rs` (deriving at start-up
//! cost most of a small kernel's compile time).
//!
//! Two rules, both checked word by word against nvdisasm by
//! `tests/derived_nvdisasm.rs`:
//!
//! * **Address offsets.** A memory operand without an immediate offset is
//!   the same instruction with offset 0 (`[R2.64]` = `[R2.64+0x0]`, which
//!   nvdisasm prints without the offset). [`ADDRESS_OFFSETS`] gives, per
//!   opcode (bits 0..11), where the offset lives; from each learned form
//!   the sibling with the offset present or absent is derived. The table
//!   was established with nvdisasm probes (an offset bit set in a corpus
//!   word, both SMs) and agrees with every learned offset atom (unit test
//!   below). Learned forms whose offset atom has a fixed bit (the learner
//!   fixes a bit whose flip makes the probed offset 0, since the text then
//!   loses its `+0x..`) also get a copy without that restriction, so that
//!   every offset encodes and decodes.
//! * **Operand edits by analogy.** When two forms `C` and `B` of one
//!   mnemonic differ in one source operand only (`IADD3 R, R, R, R` and
//!   `IADD3 R, R, 0x1, R`: the operand kind; `IADD3 R, R, R, R` and
//!   `IADD3 R, R, R, -R`: a mark) and a form `A` of the same opcode has
//!   `C`'s operand at the same source index (sources counted after the
//!   destinations and carry-outs) and the same other sources with the same
//!   fields, then `A` with `B`'s operand is `A`'s bits changed like `C`'s
//!   into `B`'s, with `B`'s fields for the sources both have and `A`'s for
//!   the rest (`SHF.R.S64 R, R, R, R` from `SHF.R.S64 R, R, 0x1, R` and
//!   the `SHF.R.U64` pair; `IADD3.X R, R, 0x1, R, P, !P` from an `IADD3`
//!   pair). Two rounds, so that edits combine. Only for
//!   [`ANALOGY_OPCODES`]; marks only from `A`'s own mnemonic; never from
//!   forms whose operand bits are pinned (aliases like `IMAD.MOV`) nor for
//!   the edits of [`NO_ANALOGY`] nvdisasm rejects.
//!
//! * **Address scales.** A shared-memory address `[R.X4+...]` is the same
//!   instruction as `[R+...]` with the index scale field ([`ADDRESS_SCALE`],
//!   bits 78..79: 0 none, 1 `.X4`, 2 `.X8`, 3 `.X16`) changed; for the
//!   opcodes of [`SCALED_OPCODES`] the siblings at the other scales are
//!   derived (Triton's `LDS.128 R8, [R4.X16]` on sm_80; sm_80's only
//!   `ATOMS.POPC.INC` form is `[R2.X4+URZ]`; nvdisasm
//!   prints `[R2+URZ]` with bit 78 cleared, on both SMs; NVIDIA's shared
//!   atomics use `ATOMS.ADD R8, [R7.X4], R0`).
//!
//! * **Source marks.** A negated or absolute source is one bit
//!   ([`SOURCE_MARKS`], from nvdisasm probes on both SMs): `F2I` reads `|R|`
//!   with bit 62 set (NVIDIA's corpus has `F2I.U32.NTZ R15, |R10|` and
//!   `F2I.U64.F64.TRUNC R10, |R2|` only because their sources were `fabsf`
//!   results), `DFMA R, R, R, R` negates its sources with bits 72, 63 and
//!   75 (NVIDIA's `div.rn.f64` has `DFMA R12, -R6, R10, R4`). Siblings with
//!   a mark added or removed are derived, twice, so that marks combine.
//!
//! * **Probed forms** ([`PROBED`]): forms NVIDIA's corpus cubins lack
//!   altogether, written from NVIDIA's words for small PTX probes and
//!   read back with nvdisasm (both SMs print them alike): `ATOMS.ADD R5,
//!   [R4], R7` (`0x38c`, the operation at bits 87..90, a family in
//!   `families.rs`) and `ATOMS.CAS R9, [R4], R6, R7` (`0x38d`; NVIDIA's
//!   shared atomics with results, e.g. `atomicAdd` on `__shared__` ints),
//!   `ATOMS.CAS.64` and `ATOMS.CAST.SPIN.64` (bit 74; 64-bit shared
//!   atomics), `LEA.HI R6, R5, -R6, RZ, 0x8` (`div.rz.ftz.f32`),
//!   `FMNMX R0, R0, -1, !PT` (`0x809`, an immediate bound) and `BREAK
//!   !P2, B2` (a predicate operand); sm_90 only ([`PROBED_SM90`]):
//!   `SYNCS.ARRIVE.TRANS64` and `SYNCS.PHASECHK.TRANS64.TRYWAIT` with a
//!   per-thread address `[R0+URZ]`; `CALL.ABS.NOINC 0x0` and
//!   `RET.ABS.NODEC R20 0x0` with an absolute code address (`-c` calls;
//!   sm_80's in [`PROBED_SM80`], its address field elsewhere); both SMs
//!   ([`PROBED_IMMA`]): every
//!   `IMMA` of mma.sync's 8-bit integer forms; sm_90 also
//!   `F2FP.F16.{E4M3,E5M2}.UNPACK_B` (fp8 `mma`). Atomics: generic
//!   `ATOM.E.ADD`/`ATOM.E.CAS`, `ATOMG.E.CAS` at other strengths, `ATOMS`
//!   with a uniform base, `REDUX.XOR`; sm_90's float `ATOMG`/`REDG`
//!   (opcodes 0x9a3/0x9a6, which the integer families do not cover).
//!   `LDGSTS.E` with both address offsets (`cp.async.ca`; the corpus has
//!   only `.BYPASS.128` without offsets) and with the predicate operand of
//!   `cp.async`'s source size; the family of `families.rs` gives its
//!   other sizes, cache operators and `.ZFILL`.
//!   The bit forms of `bmsk`, `bfe`/`bfi` with run-time operands,
//!   `mul24` and `bfind` (both SMs): `BMSK[.W]`, signed `SGXT` and
//!   `SGXT[.U32]` by a register, signed `FLO[.SH]`, `FLO.U32[.SH]` of
//!   `~R`, `SHF.R.U32` by a register.
//!   Uniform forms of NVIDIA's Triton cubins ([`PROBED_UNIFORM`], both
//!   SMs): `USGXT[.U32]`, `ULOP3.LUT` of four registers, `ULEA.HI[.X]` of
//!   registers, `USHF.L.U64.HI` of an immediate, `ULEA.HI.SX32` of an immediate, and on sm_80 `ULEA.HI.X.SX32` without a carry-out
//!   ([`PROBED_SM80`]). sm_90 also
//!   `STSM` (stmatrix) and the fp8 `QGMMA` beside `HGMMA`.
//!   The other rules apply to them as to learned forms.
//!
//! Learned forms always come first, so derived forms only answer where no
//! learned form does, and the corpus figures do not move.

// Ordered maps: the derived tables are generated source and must not
// change from run to run.
use std::collections::{BTreeMap, HashSet};

use crate::Sm;
use crate::form::{Atom, AtomKind, Field, Form};

/// Where the immediate address offset lives, per opcode (bits 0..11 of
/// the word, which also select the address kind) and per presence of a
/// memory descriptor (`desc[UR4]`, bit 76 of global and generic accesses):
/// bits 40..63, signed, after a descriptor and for local and shared
/// accesses; bits 32..63 for a generic access without one, where bits
/// 32..39 would hold the descriptor. Identical on SM80 and SM90: nvdisasm
/// prints `desc[UR0][R0.64+0x10]` for bit 44 of a corpus word of each
/// opcode, `+-0x10` for 0xfffff0 at bit 40, and `LD.E R0, [R0+0x1]` for
/// bit 32 of `LD.E R0, [R0]`.
pub static ADDRESS_OFFSETS: &[AddressOffset] = &[
    AddressOffset { opcode: 0x980, desc: true, field: OFFSET_40 }, // LD
    AddressOffset { opcode: 0x980, desc: false, field: OFFSET_32 }, // LD
    AddressOffset { opcode: 0x981, desc: true, field: OFFSET_40 }, // LDG
    AddressOffset { opcode: 0x983, desc: false, field: OFFSET_40 }, // LDL
    AddressOffset { opcode: 0x984, desc: false, field: OFFSET_40 }, // LDS (register and uniform base)
    AddressOffset { opcode: 0x985, desc: true, field: OFFSET_40 }, // ST
    AddressOffset { opcode: 0x986, desc: true, field: OFFSET_40 }, // STG
    AddressOffset { opcode: 0x387, desc: false, field: OFFSET_40 }, // STL
    AddressOffset { opcode: 0x388, desc: false, field: OFFSET_40 }, // STS (register base)
    AddressOffset { opcode: 0x988, desc: false, field: OFFSET_40 }, // STS (uniform base)
    AddressOffset { opcode: 0x3a9, desc: false, field: OFFSET_40 }, // ATOMG.CAS (bits 32..39: a register)
    AddressOffset { opcode: 0x9a8, desc: true, field: OFFSET_40 }, // ATOMG
    AddressOffset { opcode: 0x98e, desc: true, field: OFFSET_40 }, // RED
    AddressOffset { opcode: 0x98a, desc: true, field: OFFSET_40 }, // ATOM (generic)
    AddressOffset { opcode: 0x38b, desc: false, field: OFFSET_40 }, // ATOM.CAS (generic)
    AddressOffset { opcode: 0x9a3, desc: true, field: OFFSET_40 }, // sm_90 ATOMG of floats
    AddressOffset { opcode: 0x9a6, desc: true, field: OFFSET_40 }, // sm_90 REDG of floats
    AddressOffset { opcode: 0x38d, desc: false, field: OFFSET_40 }, // ATOMS.CAST (bits 32..39: a register)
    AddressOffset { opcode: 0x38c, desc: false, field: OFFSET_40 }, // ATOMS.OP (register address)
    AddressOffset { opcode: 0x83b, desc: false, field: OFFSET_40 }, // LDSM
    AddressOffset { opcode: 0x844, desc: false, field: OFFSET_40 }, // STSM (sm_90)
    AddressOffset { opcode: 0xfae, desc: false, field: LDGSTS_SHARED }, // LDGSTS's shared destination
    AddressOffset { opcode: 0xfae, desc: true, field: LDGSTS_GLOBAL }, // LDGSTS's global source
];

/// An address offset field.
#[derive(Debug)]
pub struct AddressOffset {
    /// Opcode bits 0..11.
    pub opcode: u16,
    /// The address has a memory descriptor.
    pub desc: bool,
    /// The offset's bits (signed).
    pub field: Field,
}

/// The opcodes whose operand edits are derived by analogy: those whose
/// derived forms `tests/derived_nvdisasm.rs` checks. Conversions, MUFU
/// and the like are left out: their immediates change type with the
/// modifiers (`MUFU.RCP64H` takes a binary64 high word, `MUFU.RCP` a
/// binary32), and sm_80 `I2F.S16` prints `c[0xd] [0x5598]`.
pub static ANALOGY_OPCODES: &[&str] = &[
    "IADD3", "IMAD", "ISETP", "SHF", "SEL", "LOP3", "MOV", "LEA", "IABS", "IMNMX", "VIMNMX", "POPC", "FLO", "BREV",
    "PRMT", "FADD", "FMUL", "FFMA", "FSETP", "FMNMX", "FSEL", "DADD", "DMUL", "DFMA", "DSETP", "UIADD3", "ULOP3",
    "USHF", "USEL", "UMOV", "UISETP", "UPRMT",
];

/// The index scale field of shared-memory addresses (`.X4` = 1, `.X8` = 2,
/// `.X16` = 3), found by flipping bits 78 and 79 of corpus `LDS`, `STS`
/// and `ATOMS` words under nvdisasm (SM80 and SM90; every width of `LDS`
/// and `STS` prints all four).
pub const ADDRESS_SCALE: Field = Field { pos: 78, len: 2, shift: 0 };

/// Opcodes (bits 0..11) whose addresses have [`ADDRESS_SCALE`]: `LDS`,
/// `STS` (register base), `ATOMS.POPC.INC`, `ATOMS.OP`, `ATOMS.CAS`.
pub static SCALED_OPCODES: &[u16] = &[0x984, 0x388, 0xf8c, 0x38c, 0x38d];

/// A general register at bits `$pos..$pos+8`, read as source `$reuse`.
macro_rules! reg_at {
    ($pos:literal, $reuse:expr) => {
        Atom { kind: AtomKind::R, fields: &[Field { pos: $pos, len: 8, shift: 0 }], signed: false, reuse: $reuse }
    };
}

/// A global atomic with a result, `OP PT, R, desc[UR][R.64], R`, from
/// NVIDIA's word: `$opcode` (bits 0..11), `$hi` its bits 64..95 without
/// the registers and predicate, and `$sem` the ordering and scope field
/// (bits 77..80, the stores' words: 5 `STRONG.SM`, 7 `STRONG.GPU`, 10
/// `STRONG.SYS`), which NVIDIA's words for `atom.{cta,gpu,sys}` vary.
macro_rules! atomic_with_result {
    ($mnemonic:literal, $opcode:literal, $hi:literal, $sem:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{P}", "{R}", "desc[{U}][{R}.64]", "{R}"],
            atoms: &[
                Atom { kind: AtomKind::P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
                reg_at!(16, None),
                Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
                reg_at!(24, Some(0)),
                reg_at!(32, Some(1)),
            ],
            bits: (($hi & !0x1e000 | $sem << 13) as u128) << 64 | $opcode,
            mask: 0x000001fffff1ffc0ffffff0000000fff,
            uniform_guard: false,
        }
    };
}

/// A global reduction, `REDG desc[UR][R.64], R`, as [`atomic_with_result!`].
macro_rules! reduction {
    ($mnemonic:literal, $opcode:literal, $hi:literal, $sem:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["desc[{U}][{R}.64]", "{R}"],
            atoms: &[
                Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
                reg_at!(24, Some(0)),
                reg_at!(32, Some(1)),
            ],
            bits: (($hi & !0x1e000 | $sem << 13) as u128) << 64 | $opcode,
            mask: 0x000001ffffffffc0ffffff0000ff0fff,
            uniform_guard: false,
        }
    };
}

/// A compare-and-swap, `OP PT, R, [R], R, R` (a 64-bit address without
/// descriptor; the swapped value at bits 64..71), as
/// [`atomic_with_result!`].
macro_rules! compare_and_swap {
    ($mnemonic:literal, $opcode:literal, $hi:literal, $sem:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{P}", "{R}", "[{R}]", "{R}", "{R}"],
            atoms: &[
                Atom { kind: AtomKind::P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
                reg_at!(16, None),
                reg_at!(24, Some(0)),
                reg_at!(32, Some(1)),
                reg_at!(64, Some(2)),
            ],
            bits: (($hi & !0x1e000 | $sem << 13) as u128) << 64 | $opcode,
            mask: 0x000001fffff1ff00ffffff0000000fff,
            uniform_guard: false,
        }
    };
}

/// Forms established by probes rather than learned from the corpus (see
/// the module comment), identical on SM80 and SM90.
pub static PROBED: &[Form] = &[
    // LDSM.16.M88 R52, [R68+UR4]: NVIDIA's 0x000e620008000000_000000044434783b
    // with the count cleared (Triton's matmuls: `.4` on sm_80, `[UR4]` on
    // sm_90a). nvdisasm's flips, SM80 and SM90 alike: the uniform register
    // at 32..37, bit 91 clear drops it; the LDSM family's fields, 79
    // `.M816`; the offset at 40..63 (the offset rule adds it).
    Form {
        mnemonic: "LDSM.16.M88",
        operands: &["{R}", "[{R}+{U}]"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 32, len: 6, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000008000000000000000000083b,
        mask: 0x000000000800ff00ffffff0000000fff,
        uniform_guard: false,
    },
    // ATOM.E.ADD.STRONG.GPU PT, RZ, [R6.64+0x30], R23: NVIDIA's
    // 0x000fe800081ee1c4_0000301706ff098a on sm_80 (0x081ee1c6 on sm_90,
    // `desc[UR6]`): `atom.add.u32` on a generic address; the family of
    // `families.rs` gives the other operations, types and scopes.
    atomic_with_result!("ATOM.E.ADD.STRONG.GPU", 0x98a, 0x0810e1c0, 7),
    // ATOMG.E.CAS.STRONG.SYS PT, R16, [R6+0x3c], R4, R5: NVIDIA's
    // 0x000f2800001f4105_00003c04061073a9 (both SMs; `.64` is bit 74), and
    // on a generic address ATOM.E.CAS.STRONG.GPU PT, R15, [R2+0x8], R12,
    // R13 = 0x..00001ee10d_0000080c020f738b (`atom{.global,}.SCOPE.cas`).
    compare_and_swap!("ATOMG.E.CAS.STRONG.SM", 0x3a9, 0x0010e100, 5),
    compare_and_swap!("ATOMG.E.CAS.STRONG.SYS", 0x3a9, 0x0010e100, 10),
    compare_and_swap!("ATOMG.E.CAS.64.STRONG.SM", 0x3a9, 0x0010e500, 5),
    compare_and_swap!("ATOMG.E.CAS.64.STRONG.SYS", 0x3a9, 0x0010e500, 10),
    compare_and_swap!("ATOM.E.CAS.STRONG.SM", 0x38b, 0x0010e100, 5),
    compare_and_swap!("ATOM.E.CAS.STRONG.GPU", 0x38b, 0x0010e100, 7),
    compare_and_swap!("ATOM.E.CAS.STRONG.SYS", 0x38b, 0x0010e100, 10),
    // ATOMS.MAX.S32 RZ, [R23+UR10], R6: NVIDIA's
    // 0x0003e4000900020a_0000000617ff798c (`atomicMax` on a `__shared__`
    // array indexed from a register, the window's base in a uniform
    // register): opcode 0x98c, bit 91 set; the ATOMS family of
    // `families.rs` gives the other operations.
    Form {
        mnemonic: "ATOMS.ADD",
        operands: &["{R}", "[{R}+{U}]", "{R}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(32, Some(1)),
        ],
        bits: 0x0000000008000000000000000000098c,
        mask: 0x000001ffffffffc0ffffff0000000fff,
        uniform_guard: false,
    },
    // REDUX.XOR UR13, R6: NVIDIA's 0x000e620000008000_00000000060d73c4
    // (its warp-aggregated `atomicXor`; the corpus has `REDUX`, `.OR` and
    // `.SUM`): the operation at bits 78..80, XOR = 2.
    Form {
        mnemonic: "REDUX.XOR",
        operands: &["{U}", "{R}"],
        atoms: &[
            Atom { kind: AtomKind::U, fields: &[Field { pos: 16, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
        ],
        bits: 0x000000000000800000000000000003c4,
        mask: 0x000001ffffffffffffffffff00c00fff,
        uniform_guard: false,
    },
    // ATOMS.ADD R5, [R4], R7: NVIDIA's 0x004e680000000000_000000070405738c.
    Form {
        mnemonic: "ATOMS.ADD",
        operands: &["{R}", "[{R}]", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000000000000000000038c,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // FMNMX R0, R0, -1, !PT: NVIDIA's 0x000fe40007800000_bf80000000007809
    // (large_many_funcs; a binary32 immediate at bits 32..63).
    Form {
        mnemonic: "FMNMX",
        operands: &["{R}", "{R}", "{F}", "!{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040000000000000000000809,
        mask: 0x000001fffc7fffff0000000000000fff,
        uniform_guard: false,
    },
    // BREAK !P2, B2 / BREAK P2, B2: NVIDIA's 0x000fea0005000000_0000000000028942
    // (div.rn.ftz.f32's slow path; the predicate at bits 87..89, its
    // negation bit 90; `PT` unnegated prints `BREAK B2`, the learned form).
    Form {
        mnemonic: "BREAK",
        operands: &["!{P}", "{B}"],
        atoms: &[
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::B, fields: &[Field { pos: 16, len: 4, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040000000000000000000942,
        mask: 0x000001fffc7ffffffffffffffff00fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BREAK",
        operands: &["{P}", "{B}"],
        atoms: &[
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::B, fields: &[Field { pos: 16, len: 4, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000000000000000000000942,
        mask: 0x000001fffc7ffffffffffffffff00fff,
        uniform_guard: false,
    },
    // LDGSTS.E [R13+0x10], desc[UR6][R2.64+0x20]: NVIDIA's
    // 0x000fe2000b921846_00010020020d7fae (cp.async.ca 4 bytes; the
    // corpus has only `.BYPASS.128` without offsets).
    Form {
        mnemonic: "LDGSTS.E",
        operands: &["[{R}+{X}]", "desc[{U}][{R}.64+{X}]"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::X, fields: &[LDGSTS_SHARED], signed: true, reuse: None },
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::X, fields: &[LDGSTS_GLOBAL], signed: true, reuse: None },
        ],
        bits: 0x000000000b9218400000000000000fae,
        mask: 0x000001ffffffffc00000000000000fff,
        uniform_guard: false,
    },
    // LDGSTS.E.ZFILL [R13+0x90], desc[UR6][R4.64+0x90], P0: NVIDIA's
    // 0x000fe80008161846_00090090040d7fae (cp.async.ca with a source
    // size; `.ZFILL` is a family field, the predicate at bits 87..89).
    Form {
        mnemonic: "LDGSTS.E",
        operands: &["[{R}+{X}]", "desc[{U}][{R}.64+{X}]", "{P}"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::X, fields: &[LDGSTS_SHARED], signed: true, reuse: None },
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::X, fields: &[LDGSTS_GLOBAL], signed: true, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000081218400000000000000fae,
        mask: 0x000001fffc7fffc00000000000000fff,
        uniform_guard: false,
    },
    // Both without offsets (the rule for offsets removes one at a time);
    // the plain one decodes `PT` words, which nvdisasm prints without the
    // predicate.
    Form {
        mnemonic: "LDGSTS.E",
        operands: &["[{R}]", "desc[{U}][{R}.64]"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
        ],
        bits: 0x000000000b9218400000000000000fae,
        mask: 0x000001ffffffffc0ffffffff00000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "LDGSTS.E",
        operands: &["[{R}]", "desc[{U}][{R}.64]", "{P}"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000081218400000000000000fae,
        mask: 0x000001fffc7fffc0ffffffff00000fff,
        uniform_guard: false,
    },
    // ATOMS.CAS R9, [R4], R6, R7: NVIDIA's 0x002e680000000007_000000060409738d.
    Form {
        mnemonic: "ATOMS.CAS",
        operands: &["{R}", "[{R}]", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x0000000000000000000000000000038d,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // LEA.HI R6, R5, -R6, RZ, 0x8: NVIDIA's 0x000fc600078f40ff8000000605067211
    // (`div.rz.ftz.f32`; bit 63 negates the addend here, but is `~` on
    // `LEA.HI.X`, so it is no source-mark rule).
    Form {
        mnemonic: "LEA.HI",
        operands: &["{R}", "{R}", "-{R}", "{R}", "{X}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            reg_at!(32, Some(1)),
            reg_at!(64, Some(2)),
            Atom { kind: AtomKind::X, fields: &[Field { pos: 75, len: 5, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000078f00008000000000000211,
        mask: 0x000001ffffff0700ffffff0000000fff,
        uniform_guard: false,
    },
    // ATOMS.CAS.64 R2, [R9], R4, R6: NVIDIA's 0x000e280000000406_000000040902738d
    // (`atom.shared.cas.b64`; bit 74 is `.64`, which the ATOMS family of
    // `0x38c` does not cover for `0x38d`).
    Form {
        mnemonic: "ATOMS.CAS.64",
        operands: &["{R}", "[{R}]", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x0000000000000400000000000000038d,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // ATOMS.CAST.SPIN.64 R6, [R9], R4, R6: NVIDIA's
    // 0x000e640001800406_000000040906738d (`atom.shared.add.u64`'s loop).
    Form {
        mnemonic: "ATOMS.CAST.SPIN.64",
        operands: &["{R}", "[{R}]", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x0000000001800400000000000000038d,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // SGXT.U32 R9, R9, 0x7: NVIDIA's 0x000fe40000000000_000000070909781a on
    // both SMs (`%warpid`: the warp's bits 8..14 of SR_VIRTID).
    Form {
        mnemonic: "SGXT.U32",
        operands: &["{R}", "{R}", "{X}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::X, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000000000000000000000081a,
        mask: 0x000001ffffffffff0000000000000fff,
        uniform_guard: false,
    },
    // CS2R.32 R13, SR_CLOCKLO: NVIDIA's 0x000fe20000005000_00000000000d7805
    // on both SMs (`%clock`); the 64-bit `CS2R` has bit 80 set.
    Form {
        mnemonic: "CS2R.32",
        operands: &["{R}", "{SR}"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::SR, fields: &[Field { pos: 72, len: 8, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000000000000000000000805,
        mask: 0x000001ffffff00ffffffffffff000fff,
        uniform_guard: false,
    },
    // BPT.TRAP 0x1: NVIDIA's 0x003fe20000300000_000000040000795c on both
    // SMs (`trap`); nvdisasm reads the operand from bits 34..36.
    Form {
        mnemonic: "BPT.TRAP",
        operands: &["{X}"],
        atoms: &[Atom {
            kind: AtomKind::X,
            fields: &[Field { pos: 34, len: 3, shift: 0 }],
            signed: false,
            reuse: None,
        }],
        bits: 0x0000000000300000000000000000095c,
        mask: 0x000001ffffffffffffffffe3ffff0fff,
        uniform_guard: false,
    },
    // SHFL.IDX PT, R7, R2, 0x3, 0x1f: NVIDIA's 0x00092200000e0000_00601f0002077f89
    // (`__shfl_sync(m, x, 3)`; the corpus has only register lanes for
    // IDX): the BFLY immediate form with mode 0 at bits 58..59.
    Form {
        mnemonic: "SHFL.IDX",
        operands: &["{P}", "{R}", "{R}", "{X}", "{X}"],
        atoms: &[
            Atom { kind: AtomKind::P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::X, fields: &[Field { pos: 53, len: 5, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 40, len: 13, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000000000000000000000f89,
        mask: 0x000001fffff1fffffc0000ff00000fff,
        uniform_guard: false,
    },
    // REDUX.SUM.S32 UR5, R2: NVIDIA's 0x020e62000000c200_00000000020573c4
    // (`redux.sync.add.s32`; the corpus has the unsigned `REDUX.SUM`):
    // `.S32` is bit 73, as in `REDUX.MIN.S32`.
    Form {
        mnemonic: "REDUX.SUM.S32",
        operands: &["{U}", "{R}"],
        atoms: &[
            Atom { kind: AtomKind::U, fields: &[Field { pos: 16, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
        ],
        bits: 0x000000000000c20000000000000003c4,
        mask: 0x000001ffffffffffffffffff00c00fff,
        uniform_guard: false,
    },
    // REDUX.MIN UR6, R0 and REDUX.MAX UR7, R0: NVIDIA's
    // 0x004e300000010000_00000000000673c4 and 0x000e620000014000_00000000000773c4
    // on both SMs (`redux.sync.{min,max}.u32`): `.S32`'s forms without bit 73.
    Form {
        mnemonic: "REDUX.MIN",
        operands: &["{U}", "{R}"],
        atoms: &[
            Atom { kind: AtomKind::U, fields: &[Field { pos: 16, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
        ],
        bits: 0x000000000001000000000000000003c4,
        mask: 0x000001ffffffffffffffffff00c00fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "REDUX.MAX",
        operands: &["{U}", "{R}"],
        atoms: &[
            Atom { kind: AtomKind::U, fields: &[Field { pos: 16, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
        ],
        bits: 0x000000000001400000000000000003c4,
        mask: 0x000001ffffffffffffffffff00c00fff,
        uniform_guard: false,
    },
    // HSET2.BF.EQ.AND R0, R4.H0_H0, 0.0073, 0.0073, PT: NVIDIA's
    // 0x041fe40003802880_1f791f7904007433 on both SMs (`set.eq.f16.f16`
    // with a constant; CUDA's hexp): the pair as HMUL2's, high lane at
    // bits 48..63; the selector of `a` at bits 74..75 (2: H0_H0).
    Form {
        mnemonic: "HSET2.BF.EQ.AND",
        operands: &["{R}", "{R}.H0_H0", "{F}", "{F}", "{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000028800000000000000433,
        mask: 0x000001fffc7fffff0000000000000fff,
        uniform_guard: false,
    },
    // HSET2.BF.EQ.AND R4, R4.H0_H0, R5.H0_H0, PT: NVIDIA's
    // 0x000fc60003802880_3000000404047233 has `R4.H1_H1`, the selector of
    // `b` at bits 60..61 (3: H1_H1, 2: H0_H0 as in HSETP2's learned form).
    Form {
        mnemonic: "HSET2.BF.EQ.AND",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000028802000000000000233,
        mask: 0x000001fffc7fffffffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "HSET2.BF.EQ.AND",
        operands: &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000028803000000000000233,
        mask: 0x000001fffc7fffffffffff0000000fff,
        uniform_guard: false,
    },
    // HFMA2 R0, R0.H0_H0, R5.H0_H0, R4.H0_H0: NVIDIA's
    // 0x004fe20000040804_2000000500007231 on both SMs (`fma.rn.f16` of three
    // registers): selectors at bits 74..75 (a), 60..61 (b), 81..82 (c).
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000408002000000000000231,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // f16 arithmetic on two scalar registers (`add/sub/mul.rn.f16`), on both
    // SMs: the selectors of a (bits 74..75) and b (60..61) H0_H0, b's
    // negation bit 63.
    // HADD2 R3, R0.H0_H0, R5.H0_H0: NVIDIA's 0x144fe40000000800_2000000500037230
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000008002000000000000230,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // HADD2 R0, R0.H0_H0, -R5.H0_H0: NVIDIA's 0x000fe20000000800_a000000500007230
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}.H0_H0", "-{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000800a000000000000230,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // HMUL2 R6, R0.H0_H0, R5.H0_H0: NVIDIA's 0x040fe40000000800_2000000500067232
    Form {
        mnemonic: "HMUL2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000008002000000000000232,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // HMNMX2 R4, R2.H0_H0, 1, 1, !PT: NVIDIA's 0x001fc60007800800_3c003c0002047840
    // (`min.f16` with a constant, math on sm_80): the BF16_V2 form's layout
    // without bit 85, a's selector at bits 74..75.
    Form {
        mnemonic: "HMNMX2",
        operands: &["{R}", "{R}.H0_H0", "{F}", "{F}", "!{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040008000000000000000840,
        mask: 0x000001fffc7fffff0000000000000fff,
        uniform_guard: false,
    },
    // HMNMX2 R13, R0.H0_H0, 1, 1, PT (`min.f16`): NVIDIA's
    // 0x008fc40003800800_3c003c00000d7840, without the negation bit 90.
    Form {
        mnemonic: "HMNMX2",
        operands: &["{R}", "{R}.H0_H0", "{F}", "{F}", "{P}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::F16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000008000000000000000840,
        mask: 0x000001fffc7fffff0000000000000fff,
        uniform_guard: false,
    },
    // HFMA2.BF16_V2 R0, R0.H0_H0, R5.H0_H0, R4.H0_H0: NVIDIA's
    // 0x004fe20000240804_2000000500007231 on both SMs (`fma.rn.bf16`): the
    // f16 form above with bit 85.
    Form {
        mnemonic: "HFMA2.BF16_V2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000002408002000000000000231,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // F2F.F16.F64 R5, R4: NVIDIA's 0x004e620000300800_0000000400057310 on
    // both SMs (`cvt.rn.f16.f64`): F2F.F32.F64's layout, the destination
    // type at bits 75..76.
    Form {
        mnemonic: "F2F.F16.F64",
        operands: &["{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
        bits: 0x00000000003008000000000000000310,
        mask: 0x000001ffffffffffffffff00ff000fff,
        uniform_guard: false,
    },
    // PRMT R6, R8, R10, R9: NVIDIA's 0x040fe20000000009_0000000a08067216 on
    // both SMs (`prmt.b32` with the selector in a register).
    Form {
        mnemonic: "PRMT",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000000000000000000000216,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // VABSDIFF R5, R8, R9, R10: NVIDIA's 0x1c0fe200000e020a_0000000908057214
    // on both SMs (`sad.s32`; signed without `.U32`).
    Form {
        mnemonic: "VABSDIFF",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000e02000000000000000214,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // VABSDIFF R9, R10, R8, 0x7: NVIDIA's 0x000fc600000e0208_000000070a097414
    // (`sad.s32` with a constant addend, at bits 32..63 as in `.U32`'s form).
    Form {
        mnemonic: "VABSDIFF",
        operands: &["{R}", "{R}", "{R}", "{X}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            reg_at!(64, Some(2)),
            Atom { kind: AtomKind::X, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000e02000000000000000414,
        mask: 0x000001ffffffff000000000000000fff,
        uniform_guard: false,
    },
    // Integer dot products (`dp4a`, `dp2a`), the same words on both SMs:
    // bit 73 a signed, 74 b signed, 76 two-way (`.2A`), 77 the high bytes of b.
    // IDP.4A.S8.S8 R, R, R, R: NVIDIA's 0x1c4fe4000000060a_00000009080c7226.
    Form {
        mnemonic: "IDP.4A.S8.S8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000006000000000000000226,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // IDP.4A.U8.U8 R, R, R, R: NVIDIA's 0x1c0fe4000000000a_00000009080d7226.
    Form {
        mnemonic: "IDP.4A.U8.U8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000000000000000000000226,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // IDP.4A.S8.U8 R, R, R, R: NVIDIA's 0x1c0fe4000000020a_00000009080e7226.
    Form {
        mnemonic: "IDP.4A.S8.U8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000002000000000000000226,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // IDP.2A.LO.S16.S8 R, R, R, R: NVIDIA's 0x000fc4000000160a_00000009080f7226.
    Form {
        mnemonic: "IDP.2A.LO.S16.S8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000016000000000000000226,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // IDP.2A.HI.U16.U8 R, R, R, R: NVIDIA's 0x000fc6000000300a_0000000908097226.
    Form {
        mnemonic: "IDP.2A.HI.U16.U8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000030000000000000000226,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // VABSDIFF4.U8 R4, R8, R9, R10: NVIDIA's 0x000fe400000e000a_0000000908047215
    // on both SMs (`vabsdiff4.u32.u32.u32`, CUDA's __vabsdiffu4).
    Form {
        mnemonic: "VABSDIFF4.U8",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000e00000000000000000215,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    // BMSK R7, R2, R3 / BMSK.W: NVIDIA's 0x004fca0000000000_000000030207721b
    // on both SMs (`bmsk.clamp.b32` / `bmsk.wrap.b32`: `.W` is bit 75).
    Form {
        mnemonic: "BMSK",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000000000000000000021b,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BMSK.W",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000800000000000000021b,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // SGXT R7, R0, R7: NVIDIA's 0x000fca0000000200_000000070007721a on both
    // SMs (`bfe.s32` with register operands; bit 73 is the sign, clear for
    // `.U32`), and SGXT R7, R2, 0x18 = 0x..0000000200_000000180207781a
    // (`mul24.lo.s32`, the width at bits 32..63).
    Form {
        mnemonic: "SGXT",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000200000000000000021a,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "SGXT.U32",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000000000000000000000021a,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "SGXT",
        operands: &["{R}", "{R}", "{X}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::X, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000000200000000000000081a,
        mask: 0x000001ffffffffff0000000000000fff,
        uniform_guard: false,
    },
    // FLO R7, R2 / FLO.SH R7, R2: NVIDIA's 0x004e2600000e0200_0000000200077300
    // (`bfind.s32`; bit 73 signed, bit 74 `.SH`), both SMs.
    Form {
        mnemonic: "FLO",
        operands: &["{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
        bits: 0x00000000000e02000000000000000300,
        mask: 0x000001ffffffffffffffff00ff000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "FLO.SH",
        operands: &["{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
        bits: 0x00000000000e06000000000000000300,
        mask: 0x000001ffffffffffffffff00ff000fff,
        uniform_guard: false,
    },
    // FLO.U32 R8, ~R4: NVIDIA's 0x00052400000e0000_8000000400087300 on
    // both SMs (`bfind.s64` of a negative value; `~` is bit 63).
    Form {
        mnemonic: "FLO.U32",
        operands: &["{R}", "~{R}"],
        atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
        bits: 0x00000000000e00008000000000000300,
        mask: 0x000001ffffffffffffffff00ff000fff,
        uniform_guard: false,
    },
    // FLO.U32.SH R0, ~R4: 0x00002400000e0400_8000000400007300
    // (`bfind.shiftamt.s64`).
    Form {
        mnemonic: "FLO.U32.SH",
        operands: &["{R}", "~{R}"],
        atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
        bits: 0x00000000000e04008000000000000300,
        mask: 0x000001ffffffffffffffff00ff000fff,
        uniform_guard: false,
    },
    // BAR.RED.{POPC,AND,OR}.DEFER_BLOCKING and B2R.RESULT (`bar.red`):
    // NVIDIA's words on both SMs, e.g. BAR.RED.POPC.DEFER_BLOCKING 0x3,
    // 0x40, P1 = 0x000fec0000814000_00c1000000007b1d (the barrier at bits
    // 54..57, a thread count at 42..53, the operation at 74..75 (none,
    // AND, OR), the predicate at 87..89 and its negation bit 90; opcode
    // 0x51d takes the barrier in a register at 32..39) and B2R.RESULT R7 =
    // 0x000e2200000e4000_000000000007731c (a predicate result at 81..83,
    // PT when none).
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000140000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000140000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{R}", "{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000014000000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040140000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040140000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.POPC.DEFER_BLOCKING",
        operands: &["{R}", "!{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000004014000000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000144000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000144000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{R}", "{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000014400000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040144000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040144000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.AND.DEFER_BLOCKING",
        operands: &["{R}", "!{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000004014400000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000148000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000000148000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{R}", "{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000014800000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040148000000000000000b1d,
        mask: 0x000001fffc7ffffffc3fffffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{X}", "{X}", "!{P}"],
        atoms: &[
            Atom { kind: AtomKind::X, fields: &[Field { pos: 54, len: 4, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::X, fields: &[Field { pos: 42, len: 12, shift: 0 }], signed: false, reuse: None },
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x00000000040148000000000000000b1d,
        mask: 0x000001fffc7ffffffc0003ffffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "BAR.RED.OR.DEFER_BLOCKING",
        operands: &["{R}", "!{P}"],
        atoms: &[
            reg_at!(32, Some(1)),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000004014800000000000000051d,
        mask: 0x000001fffc7fffffffffff00ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "B2R.RESULT",
        operands: &["{R}"],
        atoms: &[reg_at!(16, None)],
        bits: 0x00000000000e4000000000000000031c,
        mask: 0x000001ffffffffffffffffffff000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "B2R.RESULT",
        operands: &["{R}", "{P}"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000000000004000000000000000031c,
        mask: 0x000001fffff1ffffffffffffff000fff,
        uniform_guard: false,
    },
    // SHF.R.U32 R9, R8, R10, R9: NVIDIA's 0x004fca0000001609_0000000a08097219
    // on both SMs (`shf.r.clamp.b32` with a register amount: the learned
    // `.HI` form without bit 80).
    Form {
        mnemonic: "SHF.R.U32",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000016000000000000000219,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
];

/// A conversion `OP d, a` between integers and floats (`F2I` 0x305 from
/// binary32 to at most 32 bits, 0x311 with a 64-bit side; `I2F` 0x306 /
/// 0x312 likewise; sm_90's `I2FP.F32` 0x245), the destination at bits
/// 16..23 and the source at 32..39; `$hi` is bits 64..104 of NVIDIA's
/// word for a kernel of every `cvt` between them (fields, identical on
/// SM80 and SM90: F2I's bit 72 signed, 75..76 the integer width `8 16
/// 32 64`, 77 `.NTZ`, 78..79 the rounding, 84..85 the float width; I2F's
/// bit 74 signed, 75..76 `F32 F64`, 78..79 the rounding, 84..85 the
/// integer width `8 16 32 64`).
macro_rules! convert {
    ($mnemonic:literal, $opcode:literal, $hi:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", "{R}"],
            atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
            bits: ($hi as u128) << 64 | $opcode,
            mask: 0x000001ffffffffffffffff00ff000fff,
            uniform_guard: false,
        }
    };
}

/// `F2FP...PACK_AB[.RZ] d, a, b` (opcode 0x23e; two binary32 values
/// rounded into a binary16 or bfloat16 pair), from NVIDIA's words for
/// `cvt.{rn,rz}[.relu].{f16x2,bf16x2}.f32` on each SM: bit 75 `.RELU`, bit
/// 76 `BF16`, bit 80 `.RZ`; `$hi` is bits 64..104 (bits 64..71 hold `RZ`).
macro_rules! pack_ab {
    ($mnemonic:literal, $hi:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", "{R}", "{R}"],
            atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
            bits: ($hi as u128) << 64 | 0x23e,
            mask: 0x000001ffffffffffffffff0000000fff,
            uniform_guard: false,
        }
    };
}

/// `F2FP.SATFINITE[.RELU].{E4M3,E5M2}.F32.PACK_AB_MERGE_C d, a, b, c`
/// (sm_90, `cvt.rn.satfinite[.relu].{e4m3x2,e5m2x2}.f32`; NVIDIA's
/// `F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C R8, R4, R5, RZ` =
/// 0x0c4fe400048070ff_000000050408723e: bit 75 `.RELU`, bit 76 E4M3, `c`
/// at bits 64..71).
macro_rules! pack_fp8 {
    ($mnemonic:literal, $hi:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", "{R}", "{R}", "{R}"],
            atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
            bits: ($hi as u128) << 64 | 0x23e,
            mask: 0x000001ffffffff00ffffff0000000fff,
            uniform_guard: false,
        }
    };
}

/// Every conversion between integers and floats NVIDIA's ptxas emits for
/// `cvt` (see [`convert!`]), on both SMs.
pub static PROBED_CONVERT: &[Form] = &[
    // F2F.{F16,BF16}.F32.{RM,RP} (opcode 0x304; bit 77 BF16, bits 78..79
    // the rounding) and F2F.F64.F16 (0x310): `cvt.{rm,rp}.{f16,bf16}.f32`,
    // `cvt.f64.f16`.
    convert!("F2F.F16.F32.RM", 0x304, 0x204800),
    convert!("F2F.F16.F32.RP", 0x304, 0x208800),
    convert!("F2F.BF16.F32.RM", 0x304, 0x206000),
    convert!("F2F.BF16.F32.RP", 0x304, 0x20a000),
    convert!("F2F.F64.F16", 0x310, 0x101800),
    convert!("F2I.CEIL.NTZ", 0x305, 0x20b100),
    convert!("F2I.F64", 0x311, 0x301100),
    convert!("F2I.F64.CEIL", 0x311, 0x309100),
    convert!("F2I.F64.FLOOR", 0x311, 0x305100),
    convert!("F2I.F64.TRUNC", 0x311, 0x30d100),
    convert!("F2I.FLOOR.NTZ", 0x305, 0x207100),
    convert!("F2I.NTZ", 0x305, 0x203100),
    convert!("F2I.S16.CEIL.NTZ", 0x305, 0x20a900),
    convert!("F2I.S16.F64", 0x311, 0x300900),
    convert!("F2I.S16.F64.CEIL", 0x311, 0x308900),
    convert!("F2I.S16.F64.FLOOR", 0x311, 0x304900),
    convert!("F2I.S16.F64.TRUNC", 0x311, 0x30c900),
    convert!("F2I.S16.FLOOR.NTZ", 0x305, 0x206900),
    convert!("F2I.S16.NTZ", 0x305, 0x202900),
    convert!("F2I.S16.TRUNC.NTZ", 0x305, 0x20e900),
    convert!("F2I.S64", 0x311, 0x201900),
    convert!("F2I.S64.CEIL", 0x311, 0x209900),
    convert!("F2I.S64.F64", 0x311, 0x301900),
    convert!("F2I.S64.F64.CEIL", 0x311, 0x309900),
    convert!("F2I.S64.F64.FLOOR", 0x311, 0x305900),
    convert!("F2I.S64.F64.TRUNC", 0x311, 0x30d900),
    convert!("F2I.S64.FLOOR", 0x311, 0x205900),
    convert!("F2I.S64.TRUNC", 0x311, 0x20d900),
    convert!("F2I.S8.CEIL.NTZ", 0x305, 0x20a100),
    convert!("F2I.S8.F64", 0x311, 0x300100),
    convert!("F2I.S8.F64.CEIL", 0x311, 0x308100),
    convert!("F2I.S8.F64.FLOOR", 0x311, 0x304100),
    convert!("F2I.S8.F64.TRUNC", 0x311, 0x30c100),
    convert!("F2I.S8.FLOOR.NTZ", 0x305, 0x206100),
    convert!("F2I.S8.NTZ", 0x305, 0x202100),
    convert!("F2I.S8.TRUNC.NTZ", 0x305, 0x20e100),
    convert!("F2I.TRUNC.NTZ", 0x305, 0x20f100),
    convert!("F2I.U16.CEIL.NTZ", 0x305, 0x20a800),
    convert!("F2I.U16.F64", 0x311, 0x300800),
    convert!("F2I.U16.F64.CEIL", 0x311, 0x308800),
    convert!("F2I.U16.F64.FLOOR", 0x311, 0x304800),
    convert!("F2I.U16.F64.TRUNC", 0x311, 0x30c800),
    convert!("F2I.U16.FLOOR.NTZ", 0x305, 0x206800),
    convert!("F2I.U16.NTZ", 0x305, 0x202800),
    convert!("F2I.U16.TRUNC.NTZ", 0x305, 0x20e800),
    convert!("F2I.U32.CEIL.NTZ", 0x305, 0x20b000),
    // `F2I.U32.CEIL.NTZ R2, 13` with a binary32 immediate (opcode 0x905):
    // NVIDIA's sm_80 and sm_90 words for `createpolicy.range` with a
    // constant total size (0x000e22000020b000_4150000000027905).
    Form {
        mnemonic: "F2I.U32.CEIL.NTZ",
        operands: &["{R}", "{F}"],
        atoms: &[
            reg_at!(16, None),
            Atom { kind: AtomKind::F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x20b000u128 << 64 | 0x905,
        mask: 0x000001ffffffffff00000000ff000fff,
        uniform_guard: false,
    },
    convert!("F2I.U32.F64", 0x311, 0x301000),
    convert!("F2I.U32.F64.CEIL", 0x311, 0x309000),
    convert!("F2I.U32.F64.FLOOR", 0x311, 0x305000),
    convert!("F2I.U32.F64.TRUNC", 0x311, 0x30d000),
    convert!("F2I.U32.FLOOR.NTZ", 0x305, 0x207000),
    convert!("F2I.U32.NTZ", 0x305, 0x203000),
    convert!("F2I.U32.TRUNC.NTZ", 0x305, 0x20f000),
    convert!("F2I.U64", 0x311, 0x201800),
    convert!("F2I.U64.CEIL", 0x311, 0x209800),
    convert!("F2I.U64.F64", 0x311, 0x301800),
    convert!("F2I.U64.F64.CEIL", 0x311, 0x309800),
    convert!("F2I.U64.F64.FLOOR", 0x311, 0x305800),
    convert!("F2I.U64.F64.TRUNC", 0x311, 0x30d800),
    convert!("F2I.U64.FLOOR", 0x311, 0x205800),
    convert!("F2I.U64.TRUNC", 0x311, 0x20d800),
    convert!("F2I.U8.CEIL.NTZ", 0x305, 0x20a000),
    convert!("F2I.U8.F64", 0x311, 0x300000),
    convert!("F2I.U8.F64.CEIL", 0x311, 0x308000),
    convert!("F2I.U8.F64.FLOOR", 0x311, 0x304000),
    convert!("F2I.U8.F64.TRUNC", 0x311, 0x30c000),
    convert!("F2I.U8.FLOOR.NTZ", 0x305, 0x206000),
    convert!("F2I.U8.NTZ", 0x305, 0x202000),
    convert!("F2I.U8.TRUNC.NTZ", 0x305, 0x20e000),
    convert!("I2F.F64", 0x312, 0x201c00),
    convert!("I2F.F64.RM", 0x312, 0x205c00),
    convert!("I2F.F64.RP", 0x312, 0x209c00),
    convert!("I2F.F64.RZ", 0x312, 0x20dc00),
    convert!("I2F.F64.S16", 0x312, 0x101c00),
    convert!("I2F.F64.S16.RM", 0x312, 0x105c00),
    convert!("I2F.F64.S16.RP", 0x312, 0x109c00),
    convert!("I2F.F64.S16.RZ", 0x312, 0x10dc00),
    convert!("I2F.F64.S64", 0x312, 0x301c00),
    convert!("I2F.F64.S64.RM", 0x312, 0x305c00),
    convert!("I2F.F64.S64.RP", 0x312, 0x309c00),
    convert!("I2F.F64.S64.RZ", 0x312, 0x30dc00),
    convert!("I2F.F64.S8", 0x312, 0x1c00),
    convert!("I2F.F64.S8.RM", 0x312, 0x5c00),
    convert!("I2F.F64.S8.RP", 0x312, 0x9c00),
    convert!("I2F.F64.S8.RZ", 0x312, 0xdc00),
    convert!("I2F.F64.U16", 0x312, 0x101800),
    convert!("I2F.F64.U16.RM", 0x312, 0x105800),
    convert!("I2F.F64.U16.RP", 0x312, 0x109800),
    convert!("I2F.F64.U16.RZ", 0x312, 0x10d800),
    convert!("I2F.F64.U32", 0x312, 0x201800),
    convert!("I2F.F64.U32.RM", 0x312, 0x205800),
    convert!("I2F.F64.U32.RP", 0x312, 0x209800),
    convert!("I2F.F64.U32.RZ", 0x312, 0x20d800),
    convert!("I2F.F64.U64", 0x312, 0x301800),
    convert!("I2F.F64.U64.RM", 0x312, 0x305800),
    convert!("I2F.F64.U64.RP", 0x312, 0x309800),
    convert!("I2F.F64.U64.RZ", 0x312, 0x30d800),
    convert!("I2F.F64.U8", 0x312, 0x1800),
    convert!("I2F.F64.U8.RM", 0x312, 0x5800),
    convert!("I2F.F64.U8.RP", 0x312, 0x9800),
    convert!("I2F.F64.U8.RZ", 0x312, 0xd800),
    convert!("I2F.RM", 0x306, 0x205400),
    convert!("I2F.RP", 0x306, 0x209400),
    convert!("I2F.S16", 0x306, 0x101400),
    convert!("I2F.S16.RM", 0x306, 0x105400),
    convert!("I2F.S16.RP", 0x306, 0x109400),
    convert!("I2F.S16.RZ", 0x306, 0x10d400),
    convert!("I2F.S64", 0x312, 0x301400),
    convert!("I2F.S64.RM", 0x312, 0x305400),
    convert!("I2F.S64.RP", 0x312, 0x309400),
    convert!("I2F.S64.RZ", 0x312, 0x30d400),
    convert!("I2F.S8", 0x306, 0x1400),
    convert!("I2F.S8.RM", 0x306, 0x5400),
    convert!("I2F.S8.RP", 0x306, 0x9400),
    convert!("I2F.S8.RZ", 0x306, 0xd400),
    convert!("I2F.U16", 0x306, 0x101000),
    convert!("I2F.U16.RM", 0x306, 0x105000),
    convert!("I2F.U16.RP", 0x306, 0x109000),
    convert!("I2F.U16.RZ", 0x306, 0x10d000),
    convert!("I2F.U32.RM", 0x306, 0x205000),
    convert!("I2F.U32.RP", 0x306, 0x209000),
    convert!("I2F.U64", 0x312, 0x301000),
    convert!("I2F.U64.RM", 0x312, 0x305000),
    convert!("I2F.U64.RP", 0x312, 0x309000),
    convert!("I2F.U64.RZ", 0x312, 0x30d000),
    convert!("I2F.U8", 0x306, 0x1000),
    convert!("I2F.U8.RM", 0x306, 0x5000),
    convert!("I2F.U8.RP", 0x306, 0x9000),
    convert!("I2F.U8.RZ", 0x306, 0xd000),
];

/// The sm_80 conversions of 32-bit integers to binary32 (`I2F`; sm_90
/// uses `I2FP.F32`).
pub static PROBED_CONVERT_SM80: &[Form] = &[
    pack_ab!("F2FP.RELU.PACK_AB", 0x8ff),
    pack_ab!("F2FP.RELU.BF16.PACK_AB", 0x18ff),
    pack_ab!("F2FP.RELU.PACK_AB.RZ", 0x188ff),
    pack_ab!("F2FP.RELU.BF16.PACK_AB.RZ", 0x198ff),
    pack_ab!("F2FP.BF16.PACK_AB.RZ", 0x190ff),
    convert!("I2F", 0x306, 0x201400),
    convert!("I2F.RZ", 0x306, 0x20d400),
    convert!("I2F.U32", 0x306, 0x201000),
    convert!("I2F.U32.RZ", 0x306, 0x20d000),
];

/// sm_90's `I2FP.F32` of 32-bit integers, and its `F2IP.U8.F32` (NVIDIA's
/// `cvt.{rni,rzi}.u8.f32`: `F2IP.U8.F32.NTZ R10, RZ, R12, RZ` =
/// 0x001fc600000004ff_0000000cff0a7243, bits 78..79 the rounding).
pub static PROBED_CONVERT_SM90: &[Form] = &[
    pack_ab!("F2FP.RELU.F16.F32.PACK_AB", 0x8ff),
    pack_ab!("F2FP.RELU.BF16.F32.PACK_AB", 0x18ff),
    pack_ab!("F2FP.RELU.F16.F32.PACK_AB.RZ", 0x188ff),
    pack_ab!("F2FP.RELU.BF16.F32.PACK_AB.RZ", 0x198ff),
    pack_ab!("F2FP.BF16.F32.PACK_AB.RZ", 0x190ff),
    pack_fp8!("F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C", 0x4807000),
    pack_fp8!("F2FP.SATFINITE.E5M2.F32.PACK_AB_MERGE_C", 0x4806000),
    pack_fp8!("F2FP.SATFINITE.RELU.E4M3.F32.PACK_AB_MERGE_C", 0x4807800),
    pack_fp8!("F2FP.SATFINITE.RELU.E5M2.F32.PACK_AB_MERGE_C", 0x4806800),
    Form {
        mnemonic: "F2IP.U8.F32.NTZ",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x00000000000004000000000000000243,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "F2IP.U8.F32.TRUNC.NTZ",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
        bits: 0x000000000000c4000000000000000243,
        mask: 0x000001ffffffff00ffffff0000000fff,
        uniform_guard: false,
    },
    convert!("I2FP.F32.S32", 0x245, 0x201400),
    convert!("I2FP.F32.S32.RZ", 0x245, 0x20d400),
    convert!("I2FP.F32.U32", 0x245, 0x201000),
    convert!("I2FP.F32.U32.RZ", 0x245, 0x20d000),
];

/// `IMMA d, a.ROW, b.COL, c` (mma.sync with 8-bit integer inputs),
/// opcode 0x237 on sm_80 and sm_90 alike, from NVIDIA's words for every
/// shape, type and `.satfinite` combination (e.g. `IMMA.16832.S8.S8 R8,
/// R12.ROW, R16.COL, R8` = 0x000fe20000405c08_000000100c087237): bit 75 the
/// k = 32 shape, 76 a signed A, 78 a signed B, 82 `.SAT`; bits 74 and 86
/// always set. `$hi` is bits 64..95 of the fixed part.
macro_rules! imma {
    ($mnemonic:literal, $hi:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", "{R}.ROW", "{R}.COL", "{R}"],
            atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1)), reg_at!(64, Some(2))],
            bits: ($hi as u128) << 64 | 0x237,
            mask: 0x000001ffffffff00ffffff0000000fff,
            uniform_guard: false,
        }
    };
}

/// The IMMA forms (see [`imma!`]), on both SMs.
pub static PROBED_IMMA: &[Form] = &[
    imma!("IMMA.16832.S8.S8", 0x405c00),
    imma!("IMMA.16832.S8.S8.SAT", 0x445c00),
    imma!("IMMA.16832.S8.U8", 0x401c00),
    imma!("IMMA.16832.S8.U8.SAT", 0x441c00),
    imma!("IMMA.16832.U8.S8", 0x404c00),
    imma!("IMMA.16832.U8.S8.SAT", 0x444c00),
    imma!("IMMA.16832.U8.U8", 0x400c00),
    imma!("IMMA.16832.U8.U8.SAT", 0x440c00),
    imma!("IMMA.16816.S8.S8", 0x405400),
    imma!("IMMA.16816.S8.S8.SAT", 0x445400),
    imma!("IMMA.16816.S8.U8", 0x401400),
    imma!("IMMA.16816.S8.U8.SAT", 0x441400),
    imma!("IMMA.16816.U8.S8", 0x404400),
    imma!("IMMA.16816.U8.S8.SAT", 0x444400),
    imma!("IMMA.16816.U8.U8", 0x400400),
    imma!("IMMA.16816.U8.U8.SAT", 0x440400),
];

/// `F2FP.F16.{E4M3,E5M2}.UNPACK_B d, a[.H1]` (opcode 0x23e; NVIDIA's
/// sm_90 code for mma.sync with fp8 inputs, which it runs as HMMA on
/// unpacked binary16 pairs): two 8-bit floats of the low (or, with `.H1`,
/// the high) half of `a` as a binary16 pair. NVIDIA's words, e.g.
/// `F2FP.F16.E4M3.UNPACK_B R16, R4` = 0x004fe400020006ff_00000004ff10723e:
/// bit 73 E4M3 (else E5M2), bit 88 `.H1`; `$hi` is bits 64..95.
macro_rules! unpack_fp8 {
    ($mnemonic:literal, $source:literal, $hi:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", $source],
            atoms: &[reg_at!(16, None), reg_at!(32, Some(1))],
            bits: ($hi as u128) << 64 | 0xff00_023e,
            mask: 0x000001ffffffffffffffff00ff000fff,
            uniform_guard: false,
        }
    };
}

/// Probed forms of instructions only sm_90 has: the mbarrier operations
/// with a per-thread address `[R+URZ]` (NVIDIA's code for
/// `mbarrier.arrive.expect_tx` / `mbarrier.try_wait.parity` on an address
/// that differs between threads; the corpus has only `[UR]`). The register
/// sits at bits 24..31, where the `[UR]` forms hold `RZ`.
pub static PROBED_SM90: &[Form] = &[
    // `stmatrix`: STSM.16.M88 [R5], R8, NVIDIA's 0x000fe20000000000_0000000805007844
    // (sm_90; ptxas refuses stmatrix below sm_90). nvdisasm's flips: the
    // address register at 24..31, the stored registers at 32..39, the
    // offset at 40..63 (signed), the count at 72..73 and `.MT88` at 78
    // (the LDSM family's fields), bit 75 `???1` (`.16` is 0), bit 91 adds
    // a uniform register at 64..69 (`[R5+UR0]`); bits 74, 76..90 and
    // 92..104 print nothing, and no reuse bit prints `.reuse`.
    Form {
        mnemonic: "STSM.16.M88",
        operands: &["[{R}]", "{R}"],
        atoms: &[reg_at!(24, None), reg_at!(32, None)],
        bits: 0x00000000000000000000000000000844,
        mask: 0x0000000008004b00ffffff0000000fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "STSM.16.M88",
        operands: &["[{R}+{U}]", "{R}"],
        atoms: &[
            reg_at!(24, None),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(32, None),
        ],
        bits: 0x00000000080000000000000000000844,
        mask: 0x0000000008004b00ffffff0000000fff,
        uniform_guard: false,
    },
    // F2FP.F16.F32.PACK_AB.RZ R3, RZ, R0: NVIDIA's 0x008fce00000180ff_00000000ff03723e.
    Form {
        mnemonic: "F2FP.F16.F32.PACK_AB.RZ",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000180ff000000000000023e,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // Scalar bfloat16 add/sub/mul (sm_90 only in PTX): the f16 forms of
    // PROBED with bit 85.
    // HADD2.BF16_V2 R3, R0.H0_H0, R7.H0_H0: NVIDIA's 0x004fc40000200800_2000000700037230
    Form {
        mnemonic: "HADD2.BF16_V2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000002008002000000000000230,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // HADD2.BF16_V2 R0, R0.H0_H0, -R7.H0_H0: NVIDIA's 0x000fc60000200800_a000000700007230
    Form {
        mnemonic: "HADD2.BF16_V2",
        operands: &["{R}", "{R}.H0_H0", "-{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x0000000000200800a000000000000230,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // HMUL2.BF16_V2 R8, R0.H0_H0, R7.H0_H0: NVIDIA's 0x0c0fe40000200800_2000000700087232
    Form {
        mnemonic: "HMUL2.BF16_V2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000002008002000000000000232,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // F2FP.BF16.F32.PACK_AB R9, R0, R7: NVIDIA's 0x004fc400000010ff_000000070009723e.
    Form {
        mnemonic: "F2FP.BF16.F32.PACK_AB",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000010ff000000000000023e,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // Float atomics, other opcodes than the integer ones on sm_90 (`ATOMG`
    // 0x9a3, `REDG` 0x9a6; bits 73..75 are 1 for F32, 7 for F64). NVIDIA's
    // words: `ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, R27, desc[UR6][R12.64+0x34],
    // R27` = 0x..00081ef3c6_0000341b0c1b79a3, `.F64.RN` 0x..00081effc6,
    // `REDG.E.ADD.F32.FTZ.RN.STRONG.SYS desc[UR6][R6.64+0x18], R15` =
    // 0x..000c115386_0000180f060079a6, `REDG.E.ADD.F64.RN.STRONG.GPU`
    // 0x..000c10ff86 (atom.global.{cta,gpu,sys}.add.{f32,f64}).
    atomic_with_result!("ATOMG.E.ADD.F32.FTZ.RN.STRONG.SM", 0x9a3, 0x0810f3c0, 5),
    atomic_with_result!("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", 0x9a3, 0x0810f3c0, 7),
    atomic_with_result!("ATOMG.E.ADD.F32.FTZ.RN.STRONG.SYS", 0x9a3, 0x0810f3c0, 10),
    atomic_with_result!("ATOMG.E.ADD.F64.RN.STRONG.SM", 0x9a3, 0x0810ffc0, 5),
    atomic_with_result!("ATOMG.E.ADD.F64.RN.STRONG.GPU", 0x9a3, 0x0810ffc0, 7),
    atomic_with_result!("ATOMG.E.ADD.F64.RN.STRONG.SYS", 0x9a3, 0x0810ffc0, 10),
    reduction!("REDG.E.ADD.F32.FTZ.RN.STRONG.SM", 0x9a6, 0x0c10f380, 5),
    reduction!("REDG.E.ADD.F32.FTZ.RN.STRONG.SYS", 0x9a6, 0x0c10f380, 10),
    reduction!("REDG.E.ADD.F64.RN.STRONG.SM", 0x9a6, 0x0c10ff80, 5),
    reduction!("REDG.E.ADD.F64.RN.STRONG.GPU", 0x9a6, 0x0c10ff80, 7),
    reduction!("REDG.E.ADD.F64.RN.STRONG.SYS", 0x9a6, 0x0c10ff80, 10),
    // Packed halves (bits 73..75: 0 F16x2, 3 BF16x2): NVIDIA's
    // `ATOMG.E.ADD.F16x2.RN.STRONG.GPU PT, R8, desc[UR4][R12.64], R9` =
    // 0x..00081ee1c4_000000090c0879a3, `.BF16x2.RN` 0x..00081ee7c4,
    // `REDG.E.ADD.F16x2.RN.STRONG.GPU` 0x..000c10e184, `.BF16x2.RN`
    // 0x..000c10e784 (atom/red.global.add.noftz.{f16x2,bf16x2}).
    atomic_with_result!("ATOMG.E.ADD.F16x2.RN.STRONG.SM", 0x9a3, 0x0810e1c0, 5),
    atomic_with_result!("ATOMG.E.ADD.F16x2.RN.STRONG.GPU", 0x9a3, 0x0810e1c0, 7),
    atomic_with_result!("ATOMG.E.ADD.F16x2.RN.STRONG.SYS", 0x9a3, 0x0810e1c0, 10),
    atomic_with_result!("ATOMG.E.ADD.BF16x2.RN.STRONG.SM", 0x9a3, 0x0810e7c0, 5),
    atomic_with_result!("ATOMG.E.ADD.BF16x2.RN.STRONG.GPU", 0x9a3, 0x0810e7c0, 7),
    atomic_with_result!("ATOMG.E.ADD.BF16x2.RN.STRONG.SYS", 0x9a3, 0x0810e7c0, 10),
    reduction!("REDG.E.ADD.F16x2.RN.STRONG.SM", 0x9a6, 0x0c10e180, 5),
    reduction!("REDG.E.ADD.F16x2.RN.STRONG.GPU", 0x9a6, 0x0c10e180, 7),
    reduction!("REDG.E.ADD.F16x2.RN.STRONG.SYS", 0x9a6, 0x0c10e180, 10),
    reduction!("REDG.E.ADD.BF16x2.RN.STRONG.SM", 0x9a6, 0x0c10e780, 5),
    reduction!("REDG.E.ADD.BF16x2.RN.STRONG.GPU", 0x9a6, 0x0c10e780, 7),
    reduction!("REDG.E.ADD.BF16x2.RN.STRONG.SYS", 0x9a6, 0x0c10e780, 10),
    unpack_fp8!("F2FP.F16.E4M3.UNPACK_B", "{R}", 0x020006ff),
    unpack_fp8!("F2FP.F16.E4M3.UNPACK_B", "{R}.H1", 0x030006ff),
    unpack_fp8!("F2FP.F16.E5M2.UNPACK_B", "{R}", 0x020004ff),
    unpack_fp8!("F2FP.F16.E5M2.UNPACK_B", "{R}.H1", 0x030004ff),
    // NVIDIA's `F2FP.RELU.F16.E4M3.UNPACK_B R11, R14` =
    // 0x000fc40002000eff_0000000eff0b723e (bit 75 `.RELU`).
    unpack_fp8!("F2FP.RELU.F16.E4M3.UNPACK_B", "{R}", 0x02000eff),
    unpack_fp8!("F2FP.RELU.F16.E5M2.UNPACK_B", "{R}", 0x02000cff),
    // SYNCS.ARRIVE.TRANS64 RZ, [R0+URZ], R3: NVIDIA's
    // 0x0003e6000800003f_0000000300ff79a7.
    Form {
        mnemonic: "SYNCS.ARRIVE.TRANS64",
        operands: &["{R}", "[{R}+{U}]", "{R}"],
        atoms: &[
            reg_at!(16, None),
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(32, Some(1)),
        ],
        bits: 0x000000000800000000000000000009a7,
        mask: 0x000001ffffffffc0ffffff0000000fff,
        uniform_guard: false,
    },
    // SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R0+URZ], R5: NVIDIA's
    // 0x000e64000800017f_00000005000075a7.
    Form {
        mnemonic: "SYNCS.PHASECHK.TRANS64.TRYWAIT",
        operands: &["{P}", "[{R}+{U}]", "{R}"],
        atoms: &[
            Atom { kind: AtomKind::P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
            reg_at!(24, Some(0)),
            Atom { kind: AtomKind::U, fields: &[Field { pos: 64, len: 6, shift: 0 }], signed: false, reuse: None },
            reg_at!(32, Some(1)),
        ],
        bits: 0x000000000800014000000000000005a7,
        mask: 0x000001fffff1ffc0ffffff0000ff0fff,
        uniform_guard: false,
    },
    // CALL.ABS.NOINC 0x0: NVIDIA's 0x000fea0003c00000_0000000000007943
    // (`-c` calls of another function, the target an R_CUDA_ABS55_16_34
    // relocation). nvdisasm probes: address bits 2..9 at bits 16..23,
    // bits 10..56 at bits 34..80.
    Form {
        mnemonic: "CALL.ABS.NOINC",
        operands: &["{X}"],
        atoms: &[CODE_ADDRESS],
        bits: 0x0000000003c000000000000000000943,
        mask: 0x000001fffffe000000000003ff000fff,
        uniform_guard: false,
    },
    // RET.ABS.NODEC R20 0x0: NVIDIA's 0x000fec0003e00000_0000000014007950
    // (`-c` device functions return to the absolute address in R20:R21);
    // the address fields as CALL.ABS's.
    Form {
        mnemonic: "RET.ABS.NODEC",
        operands: &["{R}", "{X}"],
        atoms: &[reg_at!(24, Some(0)), CODE_ADDRESS],
        bits: 0x0000000003e000000000000000000950,
        mask: 0x000001fffffe00000000000300000fff,
        uniform_guard: false,
    },
];

/// `HGMMA.64x8x16.F32 R24, gdesc[UR4]$layout, R24[, gsb0]`: NVIDIA's
/// learned word (with `gsb0`) and what nvdisasm 13.5 (`-b SM90a`) prints
/// for its bits flipped one at a time: bit 61 `.tnspA`, bit 62 `.tnspB`
/// (both: `.tnspA.tnspB`), bits 84..86 the group scoreboard (0 `gsb0`, 7
/// none, as NVIDIA's words of Triton's matmuls have between a group's
/// HGMMAs). The shape and types are the `HGMMA` family's fields
/// (`families.rs`), derived from these.
macro_rules! hgmma {
    ($operands:expr, $bits:literal) => {
        hgmma!("HGMMA.64x8x16.F32", $operands, $bits)
    };
    ($mnemonic:literal, $operands:expr, $bits:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: $operands,
            atoms: &[
                reg_at!(16, None),
                Atom { kind: AtomKind::U, fields: &[Field { pos: 24, len: 6, shift: 0 }], signed: false, reuse: None },
                Atom {
                    kind: AtomKind::R,
                    fields: &[Field { pos: 64, len: 8, shift: 0 }],
                    signed: false,
                    reuse: Some(2),
                },
            ],
            bits: $bits,
            mask: 0x000001ffffffff00ffffffffc0000fff,
            uniform_guard: false,
        }
    };
}

/// A uniform-register atom at `pos` (6 bits).
macro_rules! ureg_at {
    ($pos:literal) => {
        Atom { kind: AtomKind::U, fields: &[Field { pos: $pos, len: 6, shift: 0 }], signed: false, reuse: None }
    };
}

/// An unsigned immediate atom of `len` bits at `pos`.
macro_rules! imm_at {
    ($pos:literal, $len:literal) => {
        Atom { kind: AtomKind::X, fields: &[Field { pos: $pos, len: $len, shift: 0 }], signed: false, reuse: None }
    };
}

/// A uniform predicate atom at `pos` (3 bits).
macro_rules! upred_at {
    ($pos:literal) => {
        Atom { kind: AtomKind::UP, fields: &[Field { pos: $pos, len: 3, shift: 0 }], signed: false, reuse: None }
    };
}

/// Uniform-datapath forms of NVIDIA's Triton cubins that neither the
/// corpus nor the solver's seeds have (the seeds of these opcodes all
/// carry an explicit carry-out predicate, and the solver fixed the bit
/// that turns it into the hidden `UPT`), both SMs, from nvdisasm's flips
/// of NVIDIA's words (SM80 and SM90 print them alike); the bits nvdisasm
/// ignores hold NVIDIA's values:
///
/// * `USGXT.U32 UR4, UR5, 0xf` (`tl.make_block_ptr` strides on sm_90a),
///   NVIDIA's 0x000fe20008000000_0000000f0504789a: opcode 0x89a with an
///   immediate at 32..63, 0x29a with a register at 32..37; bit 73 clear
///   is `.U32` (set: signed), 75 `.W`, 91 set (clear is rejected).
/// * `ULOP3.LUT UR5, UR6, UR5, URZ, 0x3c, !UPT` (dropout on sm_90a),
///   0x000fe4000f8e3c3f_0000000506057292: sources at 24, 32 and 64, the
///   table at 72..79, bit 80 `.PAND`, 81..83 a predicate result (7: `UPT`,
///   not printed), the predicate source at 87..89 negated by 90.
/// * `ULEA.HI.SX32 UR6, UR8, 0xbb67ae85, 0x1` (dropout on sm_90a),
///   0x000fe4000f8f0a3f_bb67ae8508067891: the immediate at 32..63, the
///   shift at 75..79, bit 72 `-` on the source, 73 `.HI`, 74 `.X`, 81..83
///   the carry-out (7 hidden); 80 set (clear is rejected).
///
/// sm_80 also has `ULEA.HI.X.SX32 UR5, UR5, UR7, 0x2, UP0` (histogram),
/// in [`PROBED_SM80`] (sm_90's solver form of it, with `~` on the
/// source, decodes it there).
pub static PROBED_UNIFORM: &[Form] = &[
    Form {
        mnemonic: "USGXT.U32",
        operands: &["{U}", "{U}", "{X}"],
        atoms: &[ureg_at!(16), ureg_at!(24), imm_at!(32, 32)],
        bits: 0x0000000008000000000000000000089a,
        mask: 0x0000000008000a000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "USGXT",
        operands: &["{U}", "{U}", "{X}"],
        atoms: &[ureg_at!(16), ureg_at!(24), imm_at!(32, 32)],
        bits: 0x0000000008000200000000000000089a,
        mask: 0x0000000008000a000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "USGXT.U32",
        operands: &["{U}", "{U}", "{U}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32)],
        bits: 0x0000000008000000000000000000029a,
        mask: 0x0000000008000a000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "USGXT",
        operands: &["{U}", "{U}", "{U}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32)],
        bits: 0x0000000008000200000000000000029a,
        mask: 0x0000000008000a000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "ULOP3.LUT",
        operands: &["{U}", "{U}", "{U}", "{U}", "{X}", "!{UP}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), ureg_at!(64), imm_at!(72, 8), upred_at!(87)],
        bits: 0x000000000c0e00000000000000000292,
        mask: 0x000000000c0f00000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "ULOP3.LUT",
        operands: &["{U}", "{U}", "{U}", "{U}", "{X}", "{UP}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), ureg_at!(64), imm_at!(72, 8), upred_at!(87)],
        bits: 0x00000000080e00000000000000000292,
        mask: 0x000000000c0f00000000000000000fff,
        uniform_guard: true,
    },
    // USHF.R.U32 UR4, UR4, 0x4, URZ: NVIDIA's 0x000fe2000800163f_0000000404047899
    // (sm_90's `createpolicy.fractional`), the learned `USHF.L.U32` form
    // with bit 76 (`.R`) set; nvdisasm prints it alike on SM80 and SM90.
    Form {
        mnemonic: "USHF.R.U32",
        operands: &["{U}", "{U}", "{X}", "{U}"],
        atoms: &[ureg_at!(16), ureg_at!(24), imm_at!(32, 32), ureg_at!(64)],
        bits: 0x00000000080016000000000000000899,
        mask: 0x000001ffffffffc000000000c0c00fff,
        uniform_guard: true,
    },
    // ULEA.HI UR5, UR5, UR4, URZ, 0x5 (Triton 3.6's f16 matmuls on
    // sm_90a): NVIDIA's 0x000fe2000f8f283f_0000000405057291; nvdisasm's
    // flips: bit 80 `.HI` (clear: `ULEA`, no high source), 73 `.SX32`
    // (which drops the high source), 74 `.X`, 72 `-` on the first source,
    // the high source at 64, the shift at 75..79, 81..83 a carry-out (7
    // hidden).
    Form {
        mnemonic: "ULEA.HI",
        operands: &["{U}", "{U}", "{U}", "{U}", "{X}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), ureg_at!(64), imm_at!(75, 5)],
        bits: 0x000000000f8f003f0000000000000291,
        mask: 0x00000000080f07000000000000000fff,
        uniform_guard: true,
    },
    // ULEA.HI.X UR22, UR26, UR9, UR6, 0x2, UP0 (the same kernels):
    // 0x000fe200080f1406_000000091a167291, the form above with bit 74
    // `.X` and the carry-in at 87..89, negated by 90 (SM80 and SM90 alike).
    Form {
        mnemonic: "ULEA.HI.X",
        operands: &["{U}", "{U}", "{U}", "{U}", "{X}", "{UP}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), ureg_at!(64), imm_at!(75, 5), upred_at!(87)],
        bits: 0x00000000080f04000000000000000291,
        mask: 0x000000000c0f07000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "ULEA.HI.X",
        operands: &["{U}", "{U}", "{U}", "{U}", "{X}", "!{UP}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), ureg_at!(64), imm_at!(75, 5), upred_at!(87)],
        bits: 0x000000000c0f04000000000000000291,
        mask: 0x000000000c0f07000000000000000fff,
        uniform_guard: true,
    },
    // USHF.L.U64.HI UR23, UR26, 0x1, UR6 (the same kernels):
    // 0x000fe40008010206_000000011a177899, the learned `USHF.L.U32` form
    // with other type and `.HI` bits; nvdisasm's flips (SM80 and SM90
    // alike): 73..74 the type (1 `.U64`, 0 `.S64`, 3 `.U32`), 75 `.W`, 76
    // `.R`, 80 `.HI`.
    Form {
        mnemonic: "USHF.L.U64.HI",
        operands: &["{U}", "{U}", "{X}", "{U}"],
        atoms: &[ureg_at!(16), ureg_at!(24), imm_at!(32, 32), ureg_at!(64)],
        bits: 0x00000000080102000000000000000899,
        mask: 0x000001ffffffffc000000000c0c00fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "ULEA.HI.SX32",
        operands: &["{U}", "{U}", "{X}", "{X}"],
        atoms: &[ureg_at!(16), ureg_at!(24), imm_at!(32, 32), imm_at!(75, 5)],
        bits: 0x000000000f8f023f0000000000000891,
        mask: 0x00000000080f07000000000000000fff,
        uniform_guard: true,
    },
];

/// Probed forms of the sm_90a warpgroup MMA (see [`hgmma`]). The fp8
/// `QGMMA` (opcode 0x9f3; NVIDIA's `QGMMA.64x8x32.F32.E4M3.E4M3 R24,
/// gdesc[UR4], R24, UP0` for `wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3`
/// with a run-time scale-d) has HGMMA's operand fields; nvdisasm's flips
/// of the word with `gsb0` and no predicate: N / 8 - 1 at bits 53..57
/// (bit 58 `INVALID32`), `.negA` 72, `.negB` 63, `.SP` 73, `F16`/`F32`
/// at 75, A's type at 76 and B's at 77 (`E4M3`, `E5M2`), the group
/// scoreboard at 84..86, the scale-d predicate at 87..90; bits 61..62
/// (HGMMA's transposes) print nothing: fp8 operands are K-major only.
pub static PROBED_HGMMA: &[Form] = &[
    hgmma!("QGMMA.64x8x32.F32.E4M3.E4M3", &["{R}", "gdesc[{U}]", "{R}"], 0x000000000870080000000000000009f3),
    hgmma!("QGMMA.64x8x32.F32.E4M3.E4M3", &["{R}", "gdesc[{U}]", "{R}", "gsb0"], 0x000000000800080000000000000009f3),
    hgmma!(&["{R}", "gdesc[{U}]", "{R}"], 0x000000000870080000000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspA", "{R}"], 0x000000000870080020000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspB", "{R}"], 0x000000000870080040000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspA.tnspB", "{R}"], 0x000000000870080060000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspA", "{R}", "gsb0"], 0x000000000800080020000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspB", "{R}", "gsb0"], 0x000000000800080040000000000009f0),
    hgmma!(&["{R}", "gdesc[{U}].tnspA.tnspB", "{R}", "gsb0"], 0x000000000800080060000000000009f0),
];

/// `HGMMA` with a scale-d predicate and with A in registers, from
/// NVIDIA's words for `wgmma.mma_async` with an immediate 0 or a run-time
/// scale-d and with a register fragment for A (ptxas 13.5, sm_90a):
/// `HGMMA.64x8x16.F32 R24, gdesc[UR4], RZ, !UPT` (0x000fe8000c7008ff_00000000041879f0),
/// `HGMMA.64x8x16.F32 R24, gdesc[UR4].tnspB, R24, UP0` (0x000fe8000bf00818_40000000041879f0),
/// `HGMMA.64x8x16.F32 R24, R28, gdesc[UR8].tnspB, R24, UP0` (0x000fe2000bf00818_400000081c187df0):
/// the predicate at 87..89 stored complemented (`UPT` is 0), bit 90
/// negates it; with A in registers the opcode is 0xdf0, A's fragment at
/// 24..31 and the descriptor (B's) at 32..37. The other fields as in
/// [`hgmma`]'s forms; the shape and types the family's.
macro_rules! gmma {
    ($operands:expr, $atoms:expr, $bits:literal, $mask:expr) => {
        Form {
            mnemonic: "HGMMA.64x8x16.F32",
            operands: $operands,
            atoms: $atoms,
            bits: $bits,
            mask: $mask,
            uniform_guard: false,
        }
    };
}

const GMMA_D: Atom = reg_at!(16, None);
const GMMA_C: Atom =
    Atom { kind: AtomKind::R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) };
const GMMA_SCALE_D: Atom =
    Atom { kind: AtomKind::InvUP, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None };
const DESC_P: &[Atom] = &[GMMA_D, ureg_at!(24), GMMA_C, GMMA_SCALE_D];
const REG_A: &[Atom] = &[GMMA_D, reg_at!(24, Some(0)), ureg_at!(32), GMMA_C];
const REG_A_P: &[Atom] = &[GMMA_D, reg_at!(24, Some(0)), ureg_at!(32), GMMA_C, GMMA_SCALE_D];
/// [`hgmma`]'s mask without the predicate field.
const DESC_P_MASK: u128 = 0x000001fffc7fff00ffffffffc0000fff;
const REG_A_MASK: u128 = 0x000001ffffffff00ffffffc000000fff;
const REG_A_P_MASK: u128 = 0x000001fffc7fff00ffffffc000000fff;

/// The forms of [`gmma`].
pub static PROBED_GMMA_OPERANDS: &[Form] = &[
    gmma!(&["{R}", "gdesc[{U}]", "{R}", "{UP}"], DESC_P, 0x000000000870080000000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}]", "{R}", "{UP}", "gsb0"], DESC_P, 0x000000000800080000000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}]", "{R}", "!{UP}"], DESC_P, 0x000000000c70080000000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}]", "{R}", "!{UP}", "gsb0"], DESC_P, 0x000000000c00080000000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}].tnspA", "{R}", "{UP}"], DESC_P, 0x000000000870080020000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}].tnspA", "{R}", "{UP}", "gsb0"], DESC_P, 0x000000000800080020000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}].tnspA", "{R}", "!{UP}"], DESC_P, 0x000000000c70080020000000000009f0, DESC_P_MASK),
    gmma!(
        &["{R}", "gdesc[{U}].tnspA", "{R}", "!{UP}", "gsb0"],
        DESC_P,
        0x000000000c00080020000000000009f0,
        DESC_P_MASK
    ),
    gmma!(&["{R}", "gdesc[{U}].tnspB", "{R}", "{UP}"], DESC_P, 0x000000000870080040000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}].tnspB", "{R}", "{UP}", "gsb0"], DESC_P, 0x000000000800080040000000000009f0, DESC_P_MASK),
    gmma!(&["{R}", "gdesc[{U}].tnspB", "{R}", "!{UP}"], DESC_P, 0x000000000c70080040000000000009f0, DESC_P_MASK),
    gmma!(
        &["{R}", "gdesc[{U}].tnspB", "{R}", "!{UP}", "gsb0"],
        DESC_P,
        0x000000000c00080040000000000009f0,
        DESC_P_MASK
    ),
    gmma!(&["{R}", "gdesc[{U}].tnspA.tnspB", "{R}", "{UP}"], DESC_P, 0x000000000870080060000000000009f0, DESC_P_MASK),
    gmma!(
        &["{R}", "gdesc[{U}].tnspA.tnspB", "{R}", "{UP}", "gsb0"],
        DESC_P,
        0x000000000800080060000000000009f0,
        DESC_P_MASK
    ),
    gmma!(&["{R}", "gdesc[{U}].tnspA.tnspB", "{R}", "!{UP}"], DESC_P, 0x000000000c70080060000000000009f0, DESC_P_MASK),
    gmma!(
        &["{R}", "gdesc[{U}].tnspA.tnspB", "{R}", "!{UP}", "gsb0"],
        DESC_P,
        0x000000000c00080060000000000009f0,
        DESC_P_MASK
    ),
    gmma!(&["{R}", "{R}", "gdesc[{U}]", "{R}"], REG_A, 0x00000000087008000000000000000df0, REG_A_MASK),
    gmma!(&["{R}", "{R}", "gdesc[{U}]", "{R}", "gsb0"], REG_A, 0x00000000080008000000000000000df0, REG_A_MASK),
    gmma!(&["{R}", "{R}", "gdesc[{U}]", "{R}", "{UP}"], REG_A_P, 0x00000000087008000000000000000df0, REG_A_P_MASK),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}]", "{R}", "{UP}", "gsb0"],
        REG_A_P,
        0x00000000080008000000000000000df0,
        REG_A_P_MASK
    ),
    gmma!(&["{R}", "{R}", "gdesc[{U}]", "{R}", "!{UP}"], REG_A_P, 0x000000000c7008000000000000000df0, REG_A_P_MASK),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}]", "{R}", "!{UP}", "gsb0"],
        REG_A_P,
        0x000000000c0008000000000000000df0,
        REG_A_P_MASK
    ),
    gmma!(&["{R}", "{R}", "gdesc[{U}].tnspB", "{R}"], REG_A, 0x00000000087008004000000000000df0, REG_A_MASK),
    gmma!(&["{R}", "{R}", "gdesc[{U}].tnspB", "{R}", "gsb0"], REG_A, 0x00000000080008004000000000000df0, REG_A_MASK),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}].tnspB", "{R}", "{UP}"],
        REG_A_P,
        0x00000000087008004000000000000df0,
        REG_A_P_MASK
    ),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}].tnspB", "{R}", "{UP}", "gsb0"],
        REG_A_P,
        0x00000000080008004000000000000df0,
        REG_A_P_MASK
    ),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}].tnspB", "{R}", "!{UP}"],
        REG_A_P,
        0x000000000c7008004000000000000df0,
        REG_A_P_MASK
    ),
    gmma!(
        &["{R}", "{R}", "gdesc[{U}].tnspB", "{R}", "!{UP}", "gsb0"],
        REG_A_P,
        0x000000000c0008004000000000000df0,
        REG_A_P_MASK
    ),
];

/// Probed forms of sm_80 only: `CALL.ABS.NOINC 0x0` and `RET.ABS.NODEC R20
/// 0x0` (NVIDIA's `-c` calls, the same words as sm_90's) with sm_80's
/// address field: bits 34..80 hold address bits 2..48 (nvdisasm probes;
/// bits 16..23 print nothing), the R_CUDA_ABS47_34 relocation's field;
/// and forms whose mnemonic nvdisasm spells differently on sm_80:
/// `F2FP.BF16.PACK_AB R9, R0, R7`, NVIDIA's 0x0c4fe400000010ff_000000070009723e
/// (`cvt.rn.bf16x2.f32`; sm_90's `F2FP.BF16.F32.PACK_AB` is the same word).
pub static PROBED_SM80: &[Form] = &[
    // ULEA.HI.X.SX32 UR5, UR5, UR7, 0x2, UP0 (Triton's histogram):
    // NVIDIA's 0x000fe400080f163f_0000000705057291; nvdisasm's flips (SM80
    // and SM90 alike): the carry-in at 87..89 (90 negates it), bit 72 `~`
    // on the first source, 73 `.HI`, 74 `.X`, the shift at 75..79, 81..83
    // a carry-out (7 hidden); the other fields as in `ULEA`'s register form.
    Form {
        mnemonic: "ULEA.HI.X.SX32",
        operands: &["{U}", "{U}", "{U}", "{X}", "{UP}"],
        atoms: &[ureg_at!(16), ureg_at!(24), ureg_at!(32), imm_at!(75, 5), upred_at!(87)],
        bits: 0x00000000080f063f0000000000000291,
        mask: 0x000000000c0f07000000000000000fff,
        uniform_guard: true,
    },
    Form {
        mnemonic: "CALL.ABS.NOINC",
        operands: &["{X}"],
        atoms: &[CODE_ADDRESS_SM80],
        bits: 0x0000000003c000000000000000000943,
        mask: 0x000001fffffe000000000003ffff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "RET.ABS.NODEC",
        operands: &["{R}", "{X}"],
        atoms: &[reg_at!(24, Some(0)), CODE_ADDRESS_SM80],
        bits: 0x0000000003e000000000000000000950,
        mask: 0x000001fffffe00000000000300ff0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "F2FP.BF16.PACK_AB",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000010ff000000000000023e,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
    // F2FP.PACK_AB.RZ R3, RZ, R0: NVIDIA's 0x008fce00000180ff_00000000ff03723e
    // (`cvt.rz.f16.f32`; sm_90 prints `F2FP.F16.F32.PACK_AB.RZ`).
    Form {
        mnemonic: "F2FP.PACK_AB.RZ",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[reg_at!(16, None), reg_at!(24, Some(0)), reg_at!(32, Some(1))],
        bits: 0x00000000000180ff000000000000023e,
        mask: 0x000001ffffffffffffffff0000000fff,
        uniform_guard: false,
    },
];

/// sm_80's absolute code address of `CALL.ABS`/`RET.ABS`.
const CODE_ADDRESS_SM80: Atom =
    Atom { kind: AtomKind::X, fields: &[Field { pos: 34, len: 47, shift: 2 }], signed: false, reuse: None };

/// An absolute code address of `CALL.ABS`/`RET.ABS` (probed with nvdisasm
/// on sm_90: bits 16..23 hold address bits 2..9, bits 34..80 bits 10..56).
const CODE_ADDRESS: Atom = Atom {
    kind: AtomKind::X,
    fields: &[Field { pos: 16, len: 8, shift: 2 }, Field { pos: 34, len: 47, shift: 10 }],
    signed: false,
    reuse: None,
};

/// A mark on a register source, toggled by one bit: (opcode bits 0..11,
/// operand index in the text, the mark as printed around `{R}`, the bit).
/// `F2I` of binary32 (`0x305`) and binary64 (`0x311`): `|R|`; `DFMA` of
/// three registers (`0x22b`): `-R` for each source; `FMNMX` of two
/// registers (`0x209`): `-R` and `|R|` for both (NVIDIA's `FMNMX R4, -RZ,
/// R4, !PT` in large_many_funcs).
pub static SOURCE_MARKS: &[(u16, usize, (&str, &str), u8)] = &[
    (0x305, 1, ("|", "|"), 62),
    (0x311, 1, ("|", "|"), 62),
    (0x22b, 1, ("-", ""), 72),
    (0x22b, 2, ("-", ""), 63),
    (0x22b, 3, ("-", ""), 75),
    (0x209, 1, ("-", ""), 72),
    (0x209, 1, ("|", "|"), 73),
    (0x209, 2, ("-", ""), 63),
    (0x209, 2, ("|", "|"), 62),
];

const OFFSET_40: Field = Field { pos: 40, len: 24, shift: 0 };
/// LDGSTS's two offsets (NVIDIA's `LDGSTS.E [R13+0x7ff0],
/// desc[UR6][R2.64+-0x10]` is `0x07ff0ff0` in bits 32..63): the shared
/// one at bits 44..63, the global one at 32..43 (ptxas adds larger global
/// offsets to the address first).
const LDGSTS_SHARED: Field = Field { pos: 44, len: 20, shift: 0 };
const LDGSTS_GLOBAL: Field = Field { pos: 32, len: 12, shift: 0 };
const OFFSET_32: Field = Field { pos: 32, len: 32, shift: 0 };

/// How many rounds of analogies build on derived forms.
const ROUNDS: usize = 2;

/// The derived forms of one SM family, given its learned forms.
fn derive(sm: Sm, learned: &'static [Form]) -> Vec<Form> {
    let mut known: HashSet<String> = learned.iter().map(text).collect();
    // The probed rows are NVIDIA's sm_80 and sm_90 words: sm_75 gets the
    // rules only.
    let (shared, own, convert): (&[&[Form]], &[Form], &[Form]) = match sm.base() {
        // Blackwell has no derived forms (Tables::new).
        Sm::Sm75 | Sm::Sm100 | Sm::Sm107 | Sm::Sm110 | Sm::Sm120 => (&[], &[], &[]),
        Sm::Sm80 | Sm::Sm86 | Sm::Sm89 => {
            (&[PROBED, PROBED_IMMA, PROBED_CONVERT, PROBED_UNIFORM], PROBED_SM80, PROBED_CONVERT_SM80)
        }
        Sm::Sm90 => (&[PROBED, PROBED_IMMA, PROBED_CONVERT, PROBED_UNIFORM], PROBED_SM90, PROBED_CONVERT_SM90),
    };
    let hgmma: &[&[Form]] = if sm == Sm::Sm90 { &[PROBED_HGMMA, PROBED_GMMA_OPERANDS] } else { &[] };
    let probed = shared.iter().copied().flatten().chain(own).chain(convert).chain(hgmma.iter().copied().flatten());
    let mut out: Vec<Form> = probed.filter(|f| known.insert(text(f))).copied().collect();
    let bases: Vec<Form> = learned.iter().chain(&out).copied().collect();
    for form in &bases {
        for d in scale_siblings(form) {
            if known.insert(text(&d)) {
                out.push(d);
            }
        }
    }
    let mut marked: Vec<Form> = learned.iter().chain(&out).copied().collect();
    for _ in 0..2 {
        let mut new = Vec::new();
        for form in &marked {
            new.extend(mark_siblings(form).into_iter().filter(|d| known.insert(text(d))));
        }
        out.extend(&new);
        marked = new;
    }
    let bases: Vec<Form> = learned.iter().chain(&out).copied().collect();
    for form in &bases {
        for d in offset_siblings(form) {
            let t = text(&d);
            // The unpinned copy has the learned text on purpose.
            if known.insert(t) || d.operands == form.operands {
                out.push(d);
            }
        }
    }
    for _ in 0..ROUNDS {
        let new = analogies(learned.iter().chain(&out), &known);
        if new.is_empty() {
            break;
        }
        for d in new {
            if known.insert(text(&d)) {
                out.push(d);
            }
        }
    }
    out
}

fn text(form: &Form) -> String {
    let mut s = form.mnemonic.to_string();
    for op in form.operands {
        s.push(' ');
        s.push_str(op);
    }
    s
}

fn field_mask(f: &Field) -> u128 {
    ((1u128 << f.len) - 1) << f.pos
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// The copy of `form` whose offsets take any value, and the siblings with
/// the address offset present or absent.
fn offset_siblings(form: &Form) -> Vec<Form> {
    let mut out = Vec::new();
    // Offsets, of memory and constant-bank operands, with fixed bits.
    let pinned: u128 = form
        .operands
        .iter()
        .enumerate()
        .filter(|(_, op)| op.ends_with("+{X}]"))
        .flat_map(|(k, _)| form.atoms[form.operand_atoms(k).end - 1].fields)
        .fold(0, |m, f| m | (field_mask(f) & form.mask));
    if pinned != 0 {
        out.push(Form { mask: form.mask & !pinned, bits: form.bits & !pinned, ..*form });
    }
    // The siblings below take any offset, like the unpinned copy.
    let base = out.first().copied().unwrap_or(*form);
    let form = &base;
    for (k, op) in form.operands.iter().enumerate() {
        // `[R]`, `desc[UR][R.64]`, `[R+UR]`; not constant banks, not a
        // lone offset (whose base register is RZ, left out of the text).
        let Some(field) = offset_field(form, op) else { continue };
        let addr = op.strip_prefix("desc[{U}]").unwrap_or(op);
        let fm = field_mask(&field);
        let range = form.operand_atoms(k);
        if let Some(base) = addr.strip_suffix("+{X}]") {
            let offset = &form.atoms[range.end - 1];
            if offset.fields != [field] || !offset.signed {
                continue;
            }
            let mut operands = form.operands.to_vec();
            operands[k] = leak_str(format!("{}{base}]", &op[..op.len() - addr.len()]));
            let mut atoms = form.atoms.to_vec();
            atoms.remove(range.end - 1);
            out.push(Form {
                operands: leak(operands),
                atoms: leak(atoms),
                bits: form.bits & !fm,
                mask: form.mask | fm,
                ..*form
            });
        } else if form.bits & fm == 0 && form.atom_bits() & fm == 0 {
            let mut operands = form.operands.to_vec();
            operands[k] = leak_str(format!("{}+{{X}}]", &op[..op.len() - 1]));
            let mut atoms = form.atoms.to_vec();
            atoms.insert(range.end, Atom { kind: AtomKind::X, fields: leak(vec![field]), signed: true, reuse: None });
            out.push(Form { operands: leak(operands), atoms: leak(atoms), mask: form.mask & !fm, ..*form });
        }
    }
    out
}

/// `form` with its shared-memory address at the other index scales
/// (`[R...]`, `[R.X4...]`, `[R.X8...]`, `[R.X16...]`), for
/// [`SCALED_OPCODES`].
fn scale_siblings(form: &Form) -> Vec<Form> {
    let opcode = form.bits as u16 & 0xfff;
    let fm = field_mask(&ADDRESS_SCALE);
    let Some(k) = form.operands.iter().position(|op| op.starts_with("[{R}")) else { return Vec::new() };
    if !SCALED_OPCODES.contains(&opcode) || form.mask & fm != fm {
        return Vec::new();
    }
    let current = (form.bits & fm) >> ADDRESS_SCALE.pos;
    let Some(&own) = SCALES.get(current as usize) else { return Vec::new() };
    let base = format!("{{R}}{own}");
    if !form.operands[k][1..].starts_with(&base) || (own.is_empty() && form.operands[k].starts_with("[{R}.")) {
        return Vec::new();
    }
    (0..SCALES.len() as u128)
        .filter(|&v| v != current)
        .map(|v| {
            let mut operands = form.operands.to_vec();
            operands[k] = leak_str(form.operands[k].replacen(&base, &format!("{{R}}{}", SCALES[v as usize]), 1));
            Form { operands: leak(operands), bits: form.bits & !fm | v << ADDRESS_SCALE.pos, ..*form }
        })
        .collect()
}

/// The spelling of each value of [`ADDRESS_SCALE`].
const SCALES: [&str; 4] = ["", ".X4", ".X8", ".X16"];

/// `form` with one mark of [`SOURCE_MARKS`] added or removed.
fn mark_siblings(form: &Form) -> Vec<Form> {
    let opcode = form.bits as u16 & 0xfff;
    let mut out = Vec::new();
    for &(_, k, (open, close), bit) in SOURCE_MARKS.iter().filter(|m| m.0 == opcode) {
        let b = 1u128 << bit;
        let Some(op) = form.operands.get(k) else { continue };
        if form.mask & b == 0 {
            continue;
        }
        let marked = format!("{open}{{R}}{close}");
        let (operand, bits) = match (*op == "{R}", *op == marked, form.bits & b != 0) {
            (true, _, false) => (marked, form.bits | b),
            (_, true, true) => ("{R}".to_string(), form.bits & !b),
            _ => continue,
        };
        let mut operands = form.operands.to_vec();
        operands[k] = leak_str(operand);
        out.push(Form { operands: leak(operands), bits, ..*form });
    }
    out
}

/// The offset field of the address operand `op` of `form`, when the table
/// has one.
fn offset_field(form: &Form, op: &str) -> Option<Field> {
    let desc = op.starts_with("desc[{U}][{");
    if !desc && !op.starts_with("[{") {
        return None;
    }
    let opcode = form.bits as u16 & 0xfff;
    ADDRESS_OFFSETS.iter().find(|a| a.opcode == opcode && a.desc == desc).map(|a| a.field)
}

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// One operand edit shown by a pair of forms of one mnemonic.
struct Edit<'a> {
    /// The form with the old operand.
    from: &'a Form,
    /// The form with the new operand.
    to: &'a Form,
    /// The operand's index in both.
    slot: usize,
}

/// Edits nvdisasm rejects although a sibling mnemonic shows them:
/// (mnemonic prefix, source index, new operand). `IMAD.WIDE` and
/// `IMAD.HI` have no immediate `c` (a register pair there; nvdisasm
/// rejects opcodes 0x425 and 0x427).
pub static NO_ANALOGY: &[(&str, usize, &str)] = &[("IMAD.WIDE", 2, "{X}"), ("IMAD.HI", 2, "{X}")];

/// How many leading operands are destinations: the first (unless it is
/// an address: stores), a register after a predicate destination
/// (`LOP3.LUT P0, R2, ...`), then predicate carry-outs, as nvdisasm lists
/// them; trailing predicates are sources.
fn def_count(form: &Form) -> usize {
    let ops = form.operands;
    if ops.first().is_none_or(|o| o.contains('[')) {
        return 0;
    }
    let mut n = if ops[0] == "{P}" && ops.get(1) == Some(&"{R}") { 2 } else { 1 };
    while n + 1 < ops.len() && ops[n] == "{P}" {
        n += 1;
    }
    n
}

/// An operand's negation, complement and absolute-value marks.
fn marks(op: &str) -> String {
    op.chars().filter(|c| matches!(c, '-' | '~' | '!' | '|')).collect()
}

/// The forms `A` with one source operand edited as some pair shows.
fn analogies<'a>(forms: impl Iterator<Item = &'a Form> + Clone, known: &HashSet<String>) -> Vec<Form> {
    let usable = |f: &&Form| {
        let mut words = f.mnemonic.split('.');
        let opcode = words.next().unwrap_or_default();
        // IMAD's alias spellings stand for operand values (alias.rs).
        let alias = opcode == "IMAD" && words.any(|w| crate::alias::ALIASES.contains(&w));
        f.mask & f.atom_bits() == 0 && ANALOGY_OPCODES.contains(&opcode) && !alias
    };
    let mut groups: BTreeMap<&str, Vec<&Form>> = BTreeMap::new();
    for f in forms.filter(usable) {
        groups.entry(f.mnemonic.split('.').next().unwrap_or_default()).or_default().push(f);
    }
    let mut out = Vec::new();
    let mut made: HashSet<String> = HashSet::new();
    for group in groups.values() {
        // Edits keyed by (source index, old operand), from pairs of forms of
        // one spelling (grouped first: comparing across spellings would be
        // quadratic in the whole opcode's forms, paid at every start-up).
        let mut edits: BTreeMap<(usize, &str), Vec<Edit>> = BTreeMap::new();
        let mut spellings: BTreeMap<(&str, usize, usize), Vec<&Form>> = BTreeMap::new();
        for f in group {
            spellings.entry((f.mnemonic, f.operands.len(), def_count(f))).or_default().push(f);
        }
        for same in spellings.values() {
            for c in same {
                for b in same {
                    let mut differ = (0..c.operands.len()).filter(|&i| c.operands[i] != b.operands[i]);
                    if let (Some(slot), None) = (differ.next(), differ.next())
                        && slot >= def_count(c)
                    {
                        let key = (slot - def_count(c), c.operands[slot]);
                        edits.entry(key).or_default().push(Edit { from: c, to: b, slot });
                    }
                }
            }
        }
        for a in group {
            let defs = def_count(a);
            for i in defs..a.operands.len() {
                let Some(list) = edits.get(&(i - defs, a.operands[i])) else { continue };
                for e in list {
                    let new = e.to.operands[e.slot];
                    if NO_ANALOGY.iter().any(|(m, s, o)| a.mnemonic.starts_with(m) && *s == i - defs && *o == new) {
                        continue;
                    }
                    let Some(d) = apply(a, i, e) else { continue };
                    let t = text(&d);
                    if !known.contains(&t) && made.insert(t) {
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// `a` with source operand `i` edited as `e` shows, or `None` when the
/// other sources differ in kind or fields, or the fields would collide.
///
/// The sources of `a` and of the pair's old form `c` are lined up from the
/// first source; those both have must be the same operands (marks
/// included: DFMA's `-a` and `-b` are one bit) with the same fields. The result has `a`'s destinations, the new form
/// `b`'s fields for the shared sources, and `a`'s for sources `c` lacks
/// (the carry-in predicates of `IADD3.X` when the pair is two `IADD3`s).
fn apply(a: &Form, i: usize, e: &Edit) -> Option<Form> {
    let (c, b, j) = (e.from, e.to, e.slot);
    let (da, dc) = (def_count(a), def_count(c));
    let shared = (a.operands.len() - da).min(c.operands.len() - dc);
    let a_src = &a.operands[da..da + shared];
    let c_src = &c.operands[dc..dc + shared];
    if a_src.iter().zip(c_src).enumerate().any(|(k, (x, y))| k + da != i && x != y) {
        return None;
    }
    // A mark's spelling depends on the mnemonic (`-R` of IADD3 is `~R` of
    // IADD3.X), so marks are only taken from pairs of `a`'s own mnemonic.
    if marks(c.operands[j]) != marks(b.operands[j]) && a.mnemonic != c.mnemonic {
        return None;
    }
    let a_atoms = a.operand_atoms(da).start..a.operand_atoms(da + shared - 1).end;
    let c_atoms = c.operand_atoms(dc).start..c.operand_atoms(dc + shared - 1).end;
    let b_atoms = b.operand_atoms(dc).start..b.operand_atoms(dc + shared - 1).end;
    // Apart from the edited operand, the shared sources sit where `c`'s do.
    let ai = a.operand_atoms(i);
    let ci = c.operand_atoms(j);
    let skip = |r: &std::ops::Range<usize>, x: &std::ops::Range<usize>| {
        r.clone().filter(|k| !x.contains(k)).collect::<Vec<_>>()
    };
    let a_rest: Vec<&Atom> = skip(&a_atoms, &ai).into_iter().map(|k| &a.atoms[k]).collect();
    let c_rest: Vec<&Atom> = skip(&c_atoms, &ci).into_iter().map(|k| &c.atoms[k]).collect();
    if a_rest != c_rest {
        return None;
    }
    let mut atoms = a.atoms[..a_atoms.start].to_vec();
    atoms.extend_from_slice(&b.atoms[b_atoms]);
    atoms.extend_from_slice(&a.atoms[a_atoms.end..]);
    let fields = |x: &[Atom]| x.iter().flat_map(|x| x.fields).fold(0u128, |m, f| m | field_mask(f));
    let kept = fields(&a.atoms[..a_atoms.start]) | fields(&a.atoms[a_atoms.end..]);
    let moved = fields(&b.atoms[b.operand_atoms(dc).start..b.operand_atoms(dc + shared - 1).end]);
    let delta = b.bits ^ c.bits;
    let mask = a.mask ^ b.mask ^ c.mask;
    if kept & moved != 0 || delta & kept != 0 || mask & (kept | moved) != 0 {
        return None;
    }
    let mut operands = a.operands.to_vec();
    operands[i] = b.operands[j];
    Some(Form {
        mnemonic: a.mnemonic,
        operands: leak(operands),
        atoms: leak(atoms),
        bits: (a.bits ^ delta) & mask,
        mask,
        uniform_guard: a.uniform_guard,
    })
}

/// Rust source of a table of `forms`, in the learned tables' layout.
fn render_table(sm: &str, forms: &[Form]) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "//! {sm} derived forms. GENERATED by the `derived_tables_are_current` test\n\
         //! in `derive.rs` from the learned table and the rules there; do not edit by\n\
         //! hand (the test rewrites this file when the rules or the learned forms\n\
         //! change).\n\n\
         use crate::form::{{Atom, AtomKind::*, Field, Form}};\n\n\
         /// The derived forms, in derivation order.\n\
         pub(crate) static FORMS: &[Form] = &[\n"
    );
    for f in forms {
        let ops: Vec<String> = f.operands.iter().map(|o| format!("{o:?}")).collect();
        let _ =
            writeln!(s, "    Form {{\n        mnemonic: {:?},\n        operands: &[{}],", f.mnemonic, ops.join(", "));
        if f.atoms.is_empty() {
            s.push_str("        atoms: &[],\n");
        } else {
            s.push_str("        atoms: &[\n");
            for a in f.atoms {
                let fields: Vec<String> = a
                    .fields
                    .iter()
                    .map(|x| format!("Field {{ pos: {}, len: {}, shift: {} }}", x.pos, x.len, x.shift))
                    .collect();
                let _ = writeln!(
                    s,
                    "            Atom {{ kind: {:?}, fields: &[{}], signed: {}, reuse: {:?} }},",
                    a.kind,
                    fields.join(", "),
                    a.signed,
                    a.reuse
                );
            }
            s.push_str("        ],\n");
        }
        let _ = writeln!(
            s,
            "        bits: {:#034x},\n        mask: {:#034x},\n        uniform_guard: {},\n    }},",
            f.bits, f.mask, f.uniform_guard
        );
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sm;
    use crate::form::Tables;

    /// The checked-in derived tables are what the rules make of the learned
    /// forms. Deriving at start-up cost most of a small kernel's compile
    /// time, so the result is generated source; when it is stale this test
    /// rewrites it and fails, and a rerun passes.
    #[test]
    fn derived_tables_are_current() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tables");
        let mut stale = Vec::new();
        for (sm, file, learned) in [
            (Sm::Sm75, "sm75_derived.rs", crate::tables::sm75::FORMS),
            (Sm::Sm80, "sm80_derived.rs", crate::tables::sm80::FORMS),
            (Sm::Sm90, "sm90_derived.rs", crate::tables::sm90::FORMS),
        ] {
            let want = render_table(sm.nvdisasm_name(), &derive(sm, learned));
            let path = dir.join(file);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
                std::fs::write(&path, want).expect("write the derived table");
                stale.push(file);
            }
        }
        assert!(stale.is_empty(), "{stale:?} were stale and have been rewritten: rebuild and rerun");
    }

    /// Every learned offset atom of an opcode in the table sits where the
    /// table says.
    #[test]
    fn learned_offsets_agree_with_the_table() {
        let mut checked = 0;
        // The table was probed before Blackwell.
        for sm in Sm::ALL.into_iter().filter(|sm| !sm.is_blackwell()) {
            for form in Tables::get(sm).learned() {
                for (k, op) in form.operands.iter().enumerate() {
                    let Some(field) = offset_field(form, op) else { continue };
                    if op.ends_with("+{X}]") {
                        let atom = &form.atoms[form.operand_atoms(k).end - 1];
                        assert_eq!(atom.fields, [field], "{sm:?} {}", form.mnemonic);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 20, "only {checked} learned offsets");
    }

    #[test]
    fn derives_the_missing_shapes() {
        let t90 = Tables::full(Sm::Sm90);
        let has = |m: &str, ops: &[&str]| t90.forms_for_text(m, ops.iter().copied()).next().is_some();
        assert!(has("LDG.E.64", &["{R}", "desc[{U}][{R}.64+{X}]"]));
        assert!(has("SHF.R.S64", &["{R}", "{R}", "{R}", "{R}"]));
        assert!(has("ST.E", &["desc[{U}][{R}.64+{X}]", "{R}"]));
        assert!(has("LDS", &["{R}", "[{R}+{U}+{X}]"]));
    }
}
