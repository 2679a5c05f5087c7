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
//! `.F32x2.HI_LO` at 0; `.F32` (one register read for both words) is
//! written here too: NVIDIA's `FADD2 R12, R12.F32x2.HI_LO, -R2.F32`
//! (`0x004fca00_00200000_80000002_0c0c724b`: bits 85 and 63), `FMUL2 R10,
//! R3.F32, R10.F32x2.HI_LO` (`0x...00040000_0000000a_030a724a`: bit 82),
//! `FFMA2 R14, R0.F32, R14.F32x2.HI_LO, R4.F32x2.HI_LO` (82; `b`'s is 88,
//! `c`'s 85). FMUL2 with an f32 immediate `b` is opcode `0x84a`, the
//! value at 32..63 (`FMUL2 R4, R4.F32x2.HI_LO, 4.6566125955216364218e-10`,
//! `0x000fe200_01000000_2fffffff_0404784a`); FADD2 has no immediate form
//! (nvdisasm refuses `0x84b`). Reuse bits: FFMA2 122..124 (`a`, `b`,
//! `c`), FMUL2 122..123 (the immediate form 122 alone); FADD2 has none
//! (nvdisasm ignores 122..124).
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
    AtomKind::{F32, R, U},
    Field, Form,
};

macro_rules! reg {
    ($pos:literal, $reuse:expr) => {
        Atom { kind: R, fields: &[Field { pos: $pos, len: 8, shift: 0 }], signed: false, reuse: $reuse }
    };
}

const D: Atom = reg!(16, None);
const ADD_AB: &[Atom] = &[D, reg!(24, None), reg!(32, None)];
const MUL_AB: &[Atom] = &[D, reg!(24, Some(0)), reg!(32, Some(1))];
const MUL_AI: &[Atom] = &[
    D,
    reg!(24, Some(0)),
    Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
];
const FMA_ABC: &[Atom] = &[D, reg!(24, Some(0)), reg!(32, Some(1)), reg!(64, Some(2))];

/// Fixed: everything but the guard (12..15), the register fields and the
/// control bits (105..127).
const MASK_AB: u128 = 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff;
const MASK_ABC: u128 = 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff;
/// FMUL2's immediate form: the f32 at 32..63 (its sign at 63, where the
/// register form negates `b`).
const MASK_AI: u128 = 0x0000_01ff_ffff_ffff_0000_0000_0000_0fff;

const NEG_A: u128 = 1 << 72;
const NEG_B: u128 = 1 << 63;
const NEG_C: u128 = 1 << 75;
/// `.F32`: one register for both words.
const ONE_A: u128 = 1 << 82;
const ADD_ONE_B: u128 = 1 << 85;
const MUL_ONE_B: u128 = 1 << 88;
const FMA_ONE_C: u128 = 1 << 85;

/// `bit` when the skeleton `operand` is negated.
const fn neg(operand: &str, bit: u128) -> u128 {
    if operand.as_bytes()[0] == b'-' { bit } else { 0 }
}

/// `bit` when the skeleton `operand` is one register for both words
/// (`{R}.F32`, where a pair ends in `.HI_LO`).
const fn one(operand: &str, bit: u128) -> u128 {
    let b = operand.as_bytes();
    if b[b.len() - 1] == b'2' { bit } else { 0 }
}

const P: &str = "{R}.F32x2.HI_LO";
const N: &str = "-{R}.F32x2.HI_LO";
const S: &str = "{R}.F32";
const M: &str = "-{R}.F32";

macro_rules! pair {
    ($mnemonic:literal, $opcode:literal, $atoms:ident, $one_b:ident, $a:ident, $b:ident) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", $a, $b],
            atoms: $atoms,
            bits: $opcode | neg($a, NEG_A) | neg($b, NEG_B) | one($a, ONE_A) | one($b, $one_b),
            mask: MASK_AB,
            uniform_guard: false,
        }
    };
    ($mnemonic:literal, $opcode:literal, $a:ident, $b:ident, $c:ident) => {
        Form {
            mnemonic: $mnemonic,
            operands: &["{R}", $a, $b, $c],
            atoms: FMA_ABC,
            bits: $opcode
                | neg($a, NEG_A)
                | neg($b, NEG_B)
                | neg($c, NEG_C)
                | one($a, ONE_A)
                | one($b, MUL_ONE_B)
                | one($c, FMA_ONE_C),
            mask: MASK_ABC,
            uniform_guard: false,
        }
    };
}

/// `FMUL2 d, a, imm`: opcode 0x84a; NVIDIA sets bit 88 (`b`'s `.F32`),
/// which nvdisasm ignores here as it does 84..90.
macro_rules! mul_imm {
    ($a:ident) => {
        Form {
            mnemonic: "FMUL2",
            operands: &["{R}", $a, "{F}"],
            atoms: MUL_AI,
            bits: 0x84a | MUL_ONE_B | neg($a, NEG_A) | one($a, ONE_A),
            mask: MASK_AI,
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

/// The forms: the pairs with each source a pair or one word, plain or
/// negated, FMUL2 with an immediate, the f32 reductions.
pub(crate) static FORMS: &[Form] = &[
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, P, P),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, P, N),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, P, S),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, P, M),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, N, P),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, N, N),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, N, S),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, N, M),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, S, P),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, S, N),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, S, S),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, S, M),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, M, P),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, M, N),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, M, S),
    pair!("FADD2", 0x24b, ADD_AB, ADD_ONE_B, M, M),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, P, P),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, P, N),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, P, S),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, P, M),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, N, P),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, N, N),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, N, S),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, N, M),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, S, P),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, S, N),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, S, S),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, S, M),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, M, P),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, M, N),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, M, S),
    pair!("FMUL2", 0x24a, MUL_AB, MUL_ONE_B, M, M),
    mul_imm!(P),
    mul_imm!(N),
    mul_imm!(S),
    mul_imm!(M),
    pair!("FFMA2", 0x249, P, P, P),
    pair!("FFMA2", 0x249, P, P, N),
    pair!("FFMA2", 0x249, P, P, S),
    pair!("FFMA2", 0x249, P, P, M),
    pair!("FFMA2", 0x249, P, N, P),
    pair!("FFMA2", 0x249, P, N, N),
    pair!("FFMA2", 0x249, P, N, S),
    pair!("FFMA2", 0x249, P, N, M),
    pair!("FFMA2", 0x249, P, S, P),
    pair!("FFMA2", 0x249, P, S, N),
    pair!("FFMA2", 0x249, P, S, S),
    pair!("FFMA2", 0x249, P, S, M),
    pair!("FFMA2", 0x249, P, M, P),
    pair!("FFMA2", 0x249, P, M, N),
    pair!("FFMA2", 0x249, P, M, S),
    pair!("FFMA2", 0x249, P, M, M),
    pair!("FFMA2", 0x249, N, P, P),
    pair!("FFMA2", 0x249, N, P, N),
    pair!("FFMA2", 0x249, N, P, S),
    pair!("FFMA2", 0x249, N, P, M),
    pair!("FFMA2", 0x249, N, N, P),
    pair!("FFMA2", 0x249, N, N, N),
    pair!("FFMA2", 0x249, N, N, S),
    pair!("FFMA2", 0x249, N, N, M),
    pair!("FFMA2", 0x249, N, S, P),
    pair!("FFMA2", 0x249, N, S, N),
    pair!("FFMA2", 0x249, N, S, S),
    pair!("FFMA2", 0x249, N, S, M),
    pair!("FFMA2", 0x249, N, M, P),
    pair!("FFMA2", 0x249, N, M, N),
    pair!("FFMA2", 0x249, N, M, S),
    pair!("FFMA2", 0x249, N, M, M),
    pair!("FFMA2", 0x249, S, P, P),
    pair!("FFMA2", 0x249, S, P, N),
    pair!("FFMA2", 0x249, S, P, S),
    pair!("FFMA2", 0x249, S, P, M),
    pair!("FFMA2", 0x249, S, N, P),
    pair!("FFMA2", 0x249, S, N, N),
    pair!("FFMA2", 0x249, S, N, S),
    pair!("FFMA2", 0x249, S, N, M),
    pair!("FFMA2", 0x249, S, S, P),
    pair!("FFMA2", 0x249, S, S, N),
    pair!("FFMA2", 0x249, S, S, S),
    pair!("FFMA2", 0x249, S, S, M),
    pair!("FFMA2", 0x249, S, M, P),
    pair!("FFMA2", 0x249, S, M, N),
    pair!("FFMA2", 0x249, S, M, S),
    pair!("FFMA2", 0x249, S, M, M),
    pair!("FFMA2", 0x249, M, P, P),
    pair!("FFMA2", 0x249, M, P, N),
    pair!("FFMA2", 0x249, M, P, S),
    pair!("FFMA2", 0x249, M, P, M),
    pair!("FFMA2", 0x249, M, N, P),
    pair!("FFMA2", 0x249, M, N, N),
    pair!("FFMA2", 0x249, M, N, S),
    pair!("FFMA2", 0x249, M, N, M),
    pair!("FFMA2", 0x249, M, S, P),
    pair!("FFMA2", 0x249, M, S, N),
    pair!("FFMA2", 0x249, M, S, S),
    pair!("FFMA2", 0x249, M, S, M),
    pair!("FFMA2", 0x249, M, M, P),
    pair!("FFMA2", 0x249, M, M, N),
    pair!("FFMA2", 0x249, M, M, S),
    pair!("FFMA2", 0x249, M, M, M),
    credux!("CREDUX.MAX.F32", 0, 0),
    credux!("CREDUX.MAXABS.F32", 1, 0),
    credux!("CREDUX.MIN.F32", 2, 0),
    credux!("CREDUX.MINABS.F32", 3, 0),
    credux!("CREDUX.MAX.F32.NAN", 0, 1),
    credux!("CREDUX.MAXABS.F32.NAN", 1, 1),
    credux!("CREDUX.MIN.F32.NAN", 2, 1),
    credux!("CREDUX.MINABS.F32.NAN", 3, 1),
];
