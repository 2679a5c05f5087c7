//! Forms of NVIDIA's words that the decoder could not read in session 16:
//! the unseen NVRTC kernels (`tests/targets/unseen`, UNSEEN_KNOWN) and
//! Triton's libm kernel (`tests/triton`, KNOWN). Each form is one word of
//! NVIDIA's cubin (ptxas 13.5, named beside it as `low, high`), every bit
//! 16..104 but the guard flipped alone and bits 122..125 set under
//! nvdisasm 13.5 (`-b SM75`, `SM80`/`SM86`/`SM89`, `SM90`, `SM100`,
//! `SM120`/`SM107`, which print the sm_80-family and sm_120 words alike):
//! a flip that changes one operand's register, predicate or number and
//! nothing else is that operand's field, every other bit is fixed by the
//! mask (so a word with any other modifier or mark never decodes as these
//! forms), and `.reuse` is the bit whose setting prints it on that operand.
//! Immediates (`+INF`, `0.693145751953125`) are binary32 at 32..63: the
//! flips of 32..62 change the value (`+SNAN` from a mantissa bit of
//! `+INF`) and of 63 its sign.
//!
//! - sm_75 half_math: `HADD2 R, R, [-]R`, `HMUL2 R, R, R`, `HFMA2 R, R, R,
//!   -R`, `HFMA2 R, R.H0_H0, R.H0_H0, R.H1_H1` and `HSET2.BF.GT.AND R, R,
//!   R, PT`: HADD2's `b` is read in the third operand slot (its `.reuse` is
//!   bit 124, as HSET2's `b`), `-b` is bit 63; int_divmod: `LEA.HI.X.SX32
//!   R, R, R, 0x1d, P0` (`b` 32..39, the shift 75..79, the carry-in
//!   87..89; bits 64..71 and the unprinted carry-out 81..83 are `RZ`/`PT`
//!   and fixed); `HADD2 R, -R, -R.H0_H0`, `HADD2.F32 R, -RZ, R.H0_H0`,
//!   `HFMA2 R, R, R, R` and `HFMA2 R, R.H0_H0, R.H0_H0, R.H0_H0`, the
//!   words our sm_75 half_math asks for (bits of the flips above, `-a` 72,
//!   `-b` 63, `b.H0_H0` 61, `.F32` 78, `-c` 84, `c.H1_H1` 81, set or
//!   cleared together and probed again).
//! - sm_80 family bf16_math: `HFMA2.BF16_V2 R, R, R, -RZ.H0_H0` (`c`
//!   64..71 with `-` at 84 and `.H0_H0` at 81..82 fixed; sm_80's nvdisasm
//!   reads bit 86 as nothing, SM86/SM89 as `b.H0_NH1`: fixed 0); half_math:
//!   `HADD2 R, R, [-]R` and `HSET2.BF.GT.AND R, R, R, PT` again, because the
//!   learned forms give their `b` the second reuse bit where nvdisasm reads
//!   the third (bit 124; SM80 reads bit 78 as `.F32`, SM86/SM89 reject it:
//!   fixed 0).
//! - Triton's libm, sm_80 and sm_90: `FFMA.FTZ R, |R|, R, imm` (opcode
//!   0x423: the register at 64..71 has `b`'s reuse bit), `FFMA.FTZ R, R,
//!   |R|, |R|`, `FFMA.FTZ R, -R, imm, R` (0x823) and `FSETP.GEU.OR P, P,
//!   R, -R, !P` (results 81..83 and 84..86, the combined predicate 87..89
//!   with `!` at 90 fixed); sm_100 and sm_120: `FMNMX.FTZ R, |R|, |R|,
//!   [!]P` and `FMUL.FTZ R, R, |R|`.

use crate::Sm;
use crate::form::{
    Atom,
    AtomKind::{F32, P, R, X},
    Field, Form,
};

/// sm_75's forms.
static SM75: &[Form] = &[
    // HADD2 R0, R2.reuse, R5.reuse (SM75: `0x0000000502007230, 0x144fe40000000000`)
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0000_0000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HADD2 R3, R2.reuse, -R5.reuse (SM75: `0x8000000502037230, 0x140fe40000000000`)
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}", "-{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0000_8000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HFMA2 R8, R2.reuse.H0_H0, R7.H0_H0, R5.reuse.H1_H1 (SM75: `0x2000000702087231, 0x141fe40000060805`)
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H1_H1"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0006_0800_2000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HSET2.BF.GT.AND R5, R2, R5, PT (SM75: `0x0000000502057233, 0x000fe40003804080`)
    Form {
        mnemonic: "HSET2.BF.GT.AND",
        operands: &["{R}", "{R}", "{R}", "{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0000_4080_0000_0000_0000_0233,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HMUL2 R0, R0, R3 (SM75: `0x0000000300007232, 0x000fe40000000000`)
    Form {
        mnemonic: "HMUL2",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
        ],
        bits: 0x0000_0000_0000_0000_0000_0000_0000_0232,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HFMA2 R0, R5, R0, -R3 (SM75: `0x0000000005007231, 0x000fe20000100003`)
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}", "{R}", "-{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0010_0000_0000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // LEA.HI.X.SX32 R14, R10, RZ, 0x1d, P0 (SM75: `0x000000ff0a0e7211, 0x000fe200000feeff`)
    Form {
        mnemonic: "LEA.HI.X.SX32",
        operands: &["{R}", "{R}", "{R}", "{X}", "{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: X, fields: &[Field { pos: 75, len: 5, shift: 0 }], signed: false, reuse: None },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_000f_06ff_0000_0000_0000_0211,
        mask: 0x0000_01ff_fc7f_07ff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HADD2 R0, -R2, -R5.H0_H0 (SM75: `0xa000000502007230, 0x000fe20000000100`)
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "-{R}", "-{R}.H0_H0"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0100_a000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HFMA2 R8, R2.H0_H0, R7.H0_H0, R5.H0_H0 (SM75: `0x2000000702087231, 0x000fe20000040805`)
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H0_H0"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0004_0800_2000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HFMA2 R0, R5, R0, R3 (SM75: `0x0000000005007231, 0x000fe20000000003`)
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}", "{R}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0000_0000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HADD2.F32 R5, -RZ, R5.H0_H0 (SM75: `0x20000005ff057230, 0x000fe20000004100`)
    Form {
        mnemonic: "HADD2.F32",
        operands: &["{R}", "-{R}", "{R}.H0_H0"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_4100_2000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
];

/// sm_80's family (sm_80, sm_86, sm_89).
static SM80: &[Form] = &[
    // HFMA2.BF16_V2 R5, R3, R5, -RZ.H0_H0 (SM86: `0x0000000503057231, 0x000fe200003400ff`)
    Form {
        mnemonic: "HFMA2.BF16_V2",
        operands: &["{R}", "{R}", "{R}", "-{R}.H0_H0"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0034_0000_0000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HADD2 R0, R2.reuse, R5.reuse (SM86: `0x0000000502007230, 0x144fe20000000000`)
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0000_0000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HADD2 R3, R2.reuse, -R5.reuse (SM86: `0x8000000502037230, 0x140fe40000000000`)
    Form {
        mnemonic: "HADD2",
        operands: &["{R}", "{R}", "-{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0000_0000_8000_0000_0000_0230,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // HSET2.BF.GT.AND R7, R2.reuse, R5.reuse, PT (SM86: `0x0000000502077233, 0x140fe20003804080`)
    Form {
        mnemonic: "HSET2.BF.GT.AND",
        operands: &["{R}", "{R}", "{R}", "{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0000_4080_0000_0000_0000_0233,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // @P3 FFMA.FTZ R0, |R23|, R16, +INF (SM80: `0x7f80000017003423, 0x000fe20000010210`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "|{R}|", "{R}", "{F}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0001_0200_0000_0000_0000_0423,
        mask: 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff,
        uniform_guard: false,
    },
    // FFMA.FTZ R57, R3, |R42|, |R42| (SM80: `0x4000002a03397223, 0x002fc8000001042a`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "{R}", "|{R}|", "|{R}|"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0001_0400_4000_0000_0000_0223,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FSETP.GEU.OR P2, PT, R57, -R56, !P1 (SM80: `0x800000383900720b, 0x000fd20004f4e400`)
    Form {
        mnemonic: "FSETP.GEU.OR",
        operands: &["{P}", "{P}", "{R}", "-{R}", "!{P}"],
        atoms: &[
            Atom { kind: P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: P, fields: &[Field { pos: 84, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0400_e400_8000_0000_0000_020b,
        mask: 0x0000_01ff_fc01_ffff_ffff_ff00_00ff_0fff,
        uniform_guard: false,
    },
    // FFMA.FTZ R46, -R57, 0.693145751953125, R60 (SM80: `0x3f317200392e7823, 0x000fe4000001013c`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "-{R}", "{F}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0001_0100_0000_0000_0000_0823,
        mask: 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff,
        uniform_guard: false,
    },
];

/// sm_90's forms.
static SM90: &[Form] = &[
    // @P2 FFMA.FTZ R0, |R14|, R21, +INF (SM90: `0x7f8000000e002423, 0x000fe20000010215`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "|{R}|", "{R}", "{F}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0001_0200_0000_0000_0000_0423,
        mask: 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff,
        uniform_guard: false,
    },
    // FFMA.FTZ R55, R0, |R11|, |R11| (SM90: `0x4000000b00377223, 0x001fc8000001040b`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "{R}", "|{R}|", "|{R}|"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0001_0400_4000_0000_0000_0223,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FSETP.GEU.OR P2, PT, R54, -R47, !P1 (SM90: `0x8000002f3600720b, 0x000fd20004f4e400`)
    Form {
        mnemonic: "FSETP.GEU.OR",
        operands: &["{P}", "{P}", "{R}", "-{R}", "!{P}"],
        atoms: &[
            Atom { kind: P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: P, fields: &[Field { pos: 84, len: 3, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0400_e400_8000_0000_0000_020b,
        mask: 0x0000_01ff_fc01_ffff_ffff_ff00_00ff_0fff,
        uniform_guard: false,
    },
    // FFMA.FTZ R60, -R61, 0.693145751953125, R54 (SM90: `0x3f3172003d3c7823, 0x000fe40000010136`)
    Form {
        mnemonic: "FFMA.FTZ",
        operands: &["{R}", "-{R}", "{F}", "{R}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) },
        ],
        bits: 0x0000_0000_0001_0100_0000_0000_0000_0823,
        mask: 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff,
        uniform_guard: false,
    },
];

/// sm_100's forms.
static SM100: &[Form] = &[
    // FMNMX.FTZ R7, |R14|.reuse, |R9|.reuse, !PT (SM100: `0x400000090e077209, 0x0c0fe20007810200`)
    Form {
        mnemonic: "FMNMX.FTZ",
        operands: &["{R}", "|{R}|", "|{R}|", "!{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0401_0200_4000_0000_0000_0209,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FMNMX.FTZ R0, |R14|, |R9|, PT (SM100: `0x400000090e007209, 0x000fe40003810200`)
    Form {
        mnemonic: "FMNMX.FTZ",
        operands: &["{R}", "|{R}|", "|{R}|", "{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0001_0200_4000_0000_0000_0209,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FMUL.FTZ R0, R0, |R9| (SM100: `0x4000000900007220, 0x020fcc0000410000`)
    Form {
        mnemonic: "FMUL.FTZ",
        operands: &["{R}", "{R}", "|{R}|"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
        ],
        bits: 0x0000_0000_0041_0000_4000_0000_0000_0220,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
];

/// sm_120's forms (sm_107's nvdisasm reads the words alike).
static SM120: &[Form] = &[
    // FMNMX.FTZ R29, |R11|.reuse, |R14|.reuse, !PT (SM120: `0x4000000e0b1d7209, 0x0c0fe20007810200`)
    Form {
        mnemonic: "FMNMX.FTZ",
        operands: &["{R}", "|{R}|", "|{R}|", "!{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0401_0200_4000_0000_0000_0209,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FMNMX.FTZ R0, |R11|, |R14|, PT (SM120: `0x4000000e0b007209, 0x000fe20003810200`)
    Form {
        mnemonic: "FMNMX.FTZ",
        operands: &["{R}", "|{R}|", "|{R}|", "{P}"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
            Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None },
        ],
        bits: 0x0000_0000_0001_0200_4000_0000_0000_0209,
        mask: 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    // FMUL.FTZ R0, R0, |R9| (SM120: `0x4000000900007220, 0x020fcc0000410000`)
    Form {
        mnemonic: "FMUL.FTZ",
        operands: &["{R}", "{R}", "|{R}|"],
        atoms: &[
            Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
            Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) },
            Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) },
        ],
        bits: 0x0000_0000_0041_0000_4000_0000_0000_0220,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
];

/// The forms of `sm`'s family.
pub(crate) fn forms(sm: Sm) -> &'static [Form] {
    match sm.base() {
        Sm::Sm75 => SM75,
        Sm::Sm80 => SM80,
        Sm::Sm90 => SM90,
        Sm::Sm100 => SM100,
        Sm::Sm120 => SM120,
        _ => &[],
    }
}
