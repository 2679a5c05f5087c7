//! sm_100 forms no learned table holds, from nvdisasm (`-b SM100`) of
//! NVIDIA's words flipped bit by bit.
//!
//! The packed f32 pairs NVIDIA's ptxas 13.5 emits for `add`/`sub`/`mul`/
//! `fma.f32x2` on sm_100a: `FADD2 R12, R4.F32x2.HI_LO, R6.F32x2.HI_LO`
//! (`0x004fc800_00000000_00000006_040c724b`), `FMUL2.FTZ R8,
//! R12.F32x2.HI_LO, R8.F32x2.HI_LO` (`0x...0000_000000080c08724a`),
//! `FFMA2 R10, R8.F32x2.HI_LO, R10.F32x2.HI_LO, R4.F32x2.HI_LO`
//! (`0x000fe200_00000004_0000000a_080a7249`), `FADD2.RZ R14,
//! R10.F32x2.HI_LO, -R6.F32x2.HI_LO` (bit 63). Opcodes `0x24b` FADD2,
//! `0x24a` FMUL2, `0x249` FFMA2; the destination at 16..23, `a` at
//! 24..31, `b` at 32..39, FFMA2's `c` at 64..71, each a register pair.
//! Negation and absolute value: `a` 72 and 73, `b` 63 and 62, `c` 75 and
//! 74. The modifiers (the `families.rs` family): `.FTZ` 80, rounding
//! 78..79 (`RM RP RZ`, FADD's), `.FMZ` 76 (FMUL2, FFMA2). Each source's
//! pair selection (`a` 81..83: `.F32x2.LO_HI`, `.F32`, `.NP`; `b`
//! 84..86 on FADD2, 87..88 on FMUL2 and FFMA2, whose `c` has 84..86) is
//! `.F32x2.HI_LO` at 0, the only one written here. Only FFMA2 names
//! reuse bits (122..124 for `a`, `b`, `c`).
//!
//! The f32 warp reductions of `redux.sync.{min,max}{.abs}{.NaN}.f32`:
//! NVIDIA's `CREDUX.MAX.F32 UR6, R0` (`0x044fe400_00000400_00000000_000672cc`),
//! `CREDUX.MINABS.F32` (`0x...c400`), `CREDUX.MAX.F32.NAN` (`0x...2400`).
//! The type at bits 73..74 (`.S32` 1, `.F32` 2, 0 the unsigned integer
//! forms of the learned table), the f32 operation at 78..79 (`MAX MAXABS
//! MIN MINABS`), `.NAN` 77; the uniform destination at 16..23, the source
//! at 24..31 (reuse bit 122).

use crate::form::{
    Atom,
    AtomKind::{R, U},
    Field, Form,
};

macro_rules! reg {
    ($pos:literal, $reuse:expr) => {
        Atom { kind: R, fields: &[Field { pos: $pos, len: 8, shift: 0 }], signed: false, reuse: $reuse }
    };
}

const D: Atom = reg!(16, None);
const ADD_AB: &[Atom] = &[D, reg!(24, None), reg!(32, None)];
const FMA_ABC: &[Atom] = &[D, reg!(24, Some(0)), reg!(32, Some(1)), reg!(64, Some(2))];

/// Fixed: everything but the guard (12..15), the register fields and the
/// control bits (105..127).
const MASK_AB: u128 = 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff;
const MASK_ABC: u128 = 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff;

const NEG_A: u128 = 1 << 72;
const NEG_B: u128 = 1 << 63;
const NEG_C: u128 = 1 << 75;

/// `bit` when the skeleton `operand` is negated.
const fn neg(operand: &str, bit: u128) -> u128 {
    if operand.as_bytes()[0] == b'-' { bit } else { 0 }
}

const P: &str = "{R}.F32x2.HI_LO";
const N: &str = "-{R}.F32x2.HI_LO";

macro_rules! pair {
    ($mnemonic:literal, $opcode:literal, $a:ident, $b:ident) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", $a, $b],
            atoms: ADD_AB,
            bits: $opcode | neg($a, NEG_A) | neg($b, NEG_B),
            mask: MASK_AB,
            uniform_guard: false,
        }
    };
    ($mnemonic:literal, $opcode:literal, $a:ident, $b:ident, $c:ident) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", $a, $b, $c],
            atoms: FMA_ABC,
            bits: $opcode | neg($a, NEG_A) | neg($b, NEG_B) | neg($c, NEG_C),
            mask: MASK_ABC,
            uniform_guard: false,
        }
    };
}

macro_rules! credux {
    ($mnemonic:literal, $op:literal, $nan:literal) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{U}", "{R}"],
            atoms: &[
                Atom { kind: U, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
                reg!(24, Some(0)),
            ],
            bits: 0x2cc | 2 << 73 | $op << 78 | $nan << 77,
            mask: 0x0000_01ff_ffff_ffff_ffff_ffff_0000_0fff,
            uniform_guard: false,
        }
    };
}

/// The forms: the pairs with each source plain or negated, the f32
/// reductions.
pub(crate) static FORMS: &[Form] = &[
    pair!("FADD2", 0x24b, P, P),
    pair!("FADD2", 0x24b, P, N),
    pair!("FADD2", 0x24b, N, P),
    pair!("FADD2", 0x24b, N, N),
    pair!("FMUL2", 0x24a, P, P),
    pair!("FMUL2", 0x24a, P, N),
    pair!("FMUL2", 0x24a, N, P),
    pair!("FMUL2", 0x24a, N, N),
    pair!("FFMA2", 0x249, P, P, P),
    pair!("FFMA2", 0x249, P, P, N),
    pair!("FFMA2", 0x249, P, N, P),
    pair!("FFMA2", 0x249, P, N, N),
    pair!("FFMA2", 0x249, N, P, P),
    pair!("FFMA2", 0x249, N, P, N),
    pair!("FFMA2", 0x249, N, N, P),
    pair!("FFMA2", 0x249, N, N, N),
    credux!("CREDUX.MAX.F32", 0, 0),
    credux!("CREDUX.MAXABS.F32", 1, 0),
    credux!("CREDUX.MIN.F32", 2, 0),
    credux!("CREDUX.MINABS.F32", 3, 0),
    credux!("CREDUX.MAX.F32.NAN", 0, 1),
    credux!("CREDUX.MAXABS.F32.NAN", 1, 1),
    credux!("CREDUX.MIN.F32.NAN", 2, 1),
    credux!("CREDUX.MINABS.F32.NAN", 3, 1),
];
