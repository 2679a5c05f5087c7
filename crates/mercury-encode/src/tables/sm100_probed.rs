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
//! Uniform-register and immediate sources (session 15): with bit 91 set,
//! `0xc4a` is FMUL2 and `0xc49` FFMA2 with a uniform `b` at 32..39
//! (NVIDIA's attention on sm_100a: `FMUL2 R4, R4.F32x2.HI_LO, UR17.F32`,
//! `0x004fe200_09000000_00000011_04047c4a`), `0xe49` FFMA2 with a uniform
//! `c` at 32..39 and the register `b` at 64..71 (each keeps the modifier
//! bits of its field: 63/62/88 for the operand at 32, 75/74/85 for the
//! one at 64); nvdisasm refuses all three without bit 91, and a uniform
//! operand has no reuse bit (123 for FMUL2's and 0xc49's `b`, 124 for
//! 0xe49's `c` are refused). `0x849` is FFMA2 with an f32 immediate `b`
//! at 32..63 (bit 88 ignored), `c` at 64..71.
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
/// A uniform register at 32..39 (no reuse bit).
const UR32: Atom = Atom { kind: U, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: None };
const F32_32: Atom = Atom { kind: F32, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None };
const MUL_AU: &[Atom] = &[D, reg!(24, Some(0)), UR32];
/// FFMA2 with a uniform `b` (0xc49) and with a uniform `c` (0xe49), whose
/// register `b` moves to 64..71 and keeps `b`'s reuse bit.
const FMA_AUC: &[Atom] = &[D, reg!(24, Some(0)), UR32, reg!(64, Some(2))];
const FMA_ABU: &[Atom] = &[D, reg!(24, Some(0)), reg!(64, Some(1)), UR32];
const FMA_AIC: &[Atom] = &[D, reg!(24, Some(0)), F32_32, reg!(64, Some(2))];

/// Fixed: everything but the guard (12..15), the register fields and the
/// control bits (105..127).
const MASK_AB: u128 = 0x0000_01ff_ffff_ffff_ffff_ff00_0000_0fff;
const MASK_ABC: u128 = 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff;
/// FMUL2's immediate form: the f32 at 32..63 (its sign at 63, where the
/// register form negates `b`).
const MASK_AI: u128 = 0x0000_01ff_ffff_ffff_0000_0000_0000_0fff;
/// FFMA2's immediate form: the f32 at 32..63, `c` at 64..71; bit 88 (`b`'s
/// `.F32` in the register form) is free, as nvdisasm ignores it here.
const MASK_AIC: u128 = 0x0000_01ff_feff_ff00_0000_0000_0000_0fff;
/// The uniform-register forms' bit: with it 0xc4a, 0xc49 and 0xe49 read a
/// uniform register at 32..39 (nvdisasm refuses them without it).
const UNIFORM: u128 = 1 << 91;

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
const UP: &str = "{U}.F32x2.HI_LO";
const UN: &str = "-{U}.F32x2.HI_LO";
const US: &str = "{U}.F32";
const UM: &str = "-{U}.F32";

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

/// FMUL2 with a uniform `b` (`FMUL2 R4, R4.F32x2.HI_LO, UR17.F32`,
/// NVIDIA's attention on sm_100a: `0x004fe200_09000000_00000011_04047c4a`,
/// bits 88 and 91): the register form's bits, the uniform register at
/// 32..39, no reuse bit for it.
macro_rules! mul_ur {
    ($a:ident, $b:ident) => {
        Form {
            mnemonic: "FMUL2",
            operands: &["{R}", $a, $b],
            atoms: MUL_AU,
            bits: 0xc4a | UNIFORM | neg($a, NEG_A) | neg($b, NEG_B) | one($a, ONE_A) | one($b, MUL_ONE_B),
            mask: MASK_AB,
            uniform_guard: false,
        }
    };
}

/// FFMA2 with a uniform register or an immediate: `b` uniform (0xc49,
/// bit 91), `c` uniform (0xe49, bit 91: the uniform register at 32..39
/// takes the modifier bits of the register form's `b`, negation 63 and
/// `.F32` 85 becoming `c`'s 63 and 85, the register `b` at 64..71 taking
/// 75 and 88), `b` an f32 immediate (0x849, at 32..63, its sign at 63).
macro_rules! fma_x {
    (ur_b, $a:ident, $b:ident, $c:ident) => {
        Form {
            mnemonic: "FFMA2",
            operands: &["{R}", $a, $b, $c],
            atoms: FMA_AUC,
            bits: 0xc49
                | UNIFORM
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
    (ur_c, $a:ident, $b:ident, $c:ident) => {
        Form {
            mnemonic: "FFMA2",
            operands: &["{R}", $a, $b, $c],
            atoms: FMA_ABU,
            bits: 0xe49
                | UNIFORM
                | neg($a, NEG_A)
                | neg($b, NEG_C)
                | neg($c, NEG_B)
                | one($a, ONE_A)
                | one($b, MUL_ONE_B)
                | one($c, FMA_ONE_C),
            mask: MASK_ABC,
            uniform_guard: false,
        }
    };
    (imm, $a:ident, $c:ident) => {
        Form {
            mnemonic: "FFMA2",
            operands: &["{R}", $a, "{F}", $c],
            atoms: FMA_AIC,
            bits: 0x849 | neg($a, NEG_A) | neg($c, NEG_C) | one($a, ONE_A) | one($c, FMA_ONE_C),
            mask: MASK_AIC,
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
/// negated, FMUL2 with an immediate or a uniform register, FFMA2 with a
/// uniform `b` or `c` or an immediate `b`, the f32 reductions.
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
    mul_ur!(P, UP),
    mul_ur!(P, UN),
    mul_ur!(P, US),
    mul_ur!(P, UM),
    mul_ur!(N, UP),
    mul_ur!(N, UN),
    mul_ur!(N, US),
    mul_ur!(N, UM),
    mul_ur!(S, UP),
    mul_ur!(S, UN),
    mul_ur!(S, US),
    mul_ur!(S, UM),
    mul_ur!(M, UP),
    mul_ur!(M, UN),
    mul_ur!(M, US),
    mul_ur!(M, UM),
    fma_x!(ur_b, P, UP, P),
    fma_x!(ur_b, P, UP, N),
    fma_x!(ur_b, P, UP, S),
    fma_x!(ur_b, P, UP, M),
    fma_x!(ur_b, P, UN, P),
    fma_x!(ur_b, P, UN, N),
    fma_x!(ur_b, P, UN, S),
    fma_x!(ur_b, P, UN, M),
    fma_x!(ur_b, P, US, P),
    fma_x!(ur_b, P, US, N),
    fma_x!(ur_b, P, US, S),
    fma_x!(ur_b, P, US, M),
    fma_x!(ur_b, P, UM, P),
    fma_x!(ur_b, P, UM, N),
    fma_x!(ur_b, P, UM, S),
    fma_x!(ur_b, P, UM, M),
    fma_x!(ur_b, N, UP, P),
    fma_x!(ur_b, N, UP, N),
    fma_x!(ur_b, N, UP, S),
    fma_x!(ur_b, N, UP, M),
    fma_x!(ur_b, N, UN, P),
    fma_x!(ur_b, N, UN, N),
    fma_x!(ur_b, N, UN, S),
    fma_x!(ur_b, N, UN, M),
    fma_x!(ur_b, N, US, P),
    fma_x!(ur_b, N, US, N),
    fma_x!(ur_b, N, US, S),
    fma_x!(ur_b, N, US, M),
    fma_x!(ur_b, N, UM, P),
    fma_x!(ur_b, N, UM, N),
    fma_x!(ur_b, N, UM, S),
    fma_x!(ur_b, N, UM, M),
    fma_x!(ur_b, S, UP, P),
    fma_x!(ur_b, S, UP, N),
    fma_x!(ur_b, S, UP, S),
    fma_x!(ur_b, S, UP, M),
    fma_x!(ur_b, S, UN, P),
    fma_x!(ur_b, S, UN, N),
    fma_x!(ur_b, S, UN, S),
    fma_x!(ur_b, S, UN, M),
    fma_x!(ur_b, S, US, P),
    fma_x!(ur_b, S, US, N),
    fma_x!(ur_b, S, US, S),
    fma_x!(ur_b, S, US, M),
    fma_x!(ur_b, S, UM, P),
    fma_x!(ur_b, S, UM, N),
    fma_x!(ur_b, S, UM, S),
    fma_x!(ur_b, S, UM, M),
    fma_x!(ur_b, M, UP, P),
    fma_x!(ur_b, M, UP, N),
    fma_x!(ur_b, M, UP, S),
    fma_x!(ur_b, M, UP, M),
    fma_x!(ur_b, M, UN, P),
    fma_x!(ur_b, M, UN, N),
    fma_x!(ur_b, M, UN, S),
    fma_x!(ur_b, M, UN, M),
    fma_x!(ur_b, M, US, P),
    fma_x!(ur_b, M, US, N),
    fma_x!(ur_b, M, US, S),
    fma_x!(ur_b, M, US, M),
    fma_x!(ur_b, M, UM, P),
    fma_x!(ur_b, M, UM, N),
    fma_x!(ur_b, M, UM, S),
    fma_x!(ur_b, M, UM, M),
    fma_x!(ur_c, P, P, UP),
    fma_x!(ur_c, P, P, UN),
    fma_x!(ur_c, P, P, US),
    fma_x!(ur_c, P, P, UM),
    fma_x!(ur_c, P, N, UP),
    fma_x!(ur_c, P, N, UN),
    fma_x!(ur_c, P, N, US),
    fma_x!(ur_c, P, N, UM),
    fma_x!(ur_c, P, S, UP),
    fma_x!(ur_c, P, S, UN),
    fma_x!(ur_c, P, S, US),
    fma_x!(ur_c, P, S, UM),
    fma_x!(ur_c, P, M, UP),
    fma_x!(ur_c, P, M, UN),
    fma_x!(ur_c, P, M, US),
    fma_x!(ur_c, P, M, UM),
    fma_x!(ur_c, N, P, UP),
    fma_x!(ur_c, N, P, UN),
    fma_x!(ur_c, N, P, US),
    fma_x!(ur_c, N, P, UM),
    fma_x!(ur_c, N, N, UP),
    fma_x!(ur_c, N, N, UN),
    fma_x!(ur_c, N, N, US),
    fma_x!(ur_c, N, N, UM),
    fma_x!(ur_c, N, S, UP),
    fma_x!(ur_c, N, S, UN),
    fma_x!(ur_c, N, S, US),
    fma_x!(ur_c, N, S, UM),
    fma_x!(ur_c, N, M, UP),
    fma_x!(ur_c, N, M, UN),
    fma_x!(ur_c, N, M, US),
    fma_x!(ur_c, N, M, UM),
    fma_x!(ur_c, S, P, UP),
    fma_x!(ur_c, S, P, UN),
    fma_x!(ur_c, S, P, US),
    fma_x!(ur_c, S, P, UM),
    fma_x!(ur_c, S, N, UP),
    fma_x!(ur_c, S, N, UN),
    fma_x!(ur_c, S, N, US),
    fma_x!(ur_c, S, N, UM),
    fma_x!(ur_c, S, S, UP),
    fma_x!(ur_c, S, S, UN),
    fma_x!(ur_c, S, S, US),
    fma_x!(ur_c, S, S, UM),
    fma_x!(ur_c, S, M, UP),
    fma_x!(ur_c, S, M, UN),
    fma_x!(ur_c, S, M, US),
    fma_x!(ur_c, S, M, UM),
    fma_x!(ur_c, M, P, UP),
    fma_x!(ur_c, M, P, UN),
    fma_x!(ur_c, M, P, US),
    fma_x!(ur_c, M, P, UM),
    fma_x!(ur_c, M, N, UP),
    fma_x!(ur_c, M, N, UN),
    fma_x!(ur_c, M, N, US),
    fma_x!(ur_c, M, N, UM),
    fma_x!(ur_c, M, S, UP),
    fma_x!(ur_c, M, S, UN),
    fma_x!(ur_c, M, S, US),
    fma_x!(ur_c, M, S, UM),
    fma_x!(ur_c, M, M, UP),
    fma_x!(ur_c, M, M, UN),
    fma_x!(ur_c, M, M, US),
    fma_x!(ur_c, M, M, UM),
    fma_x!(imm, P, P),
    fma_x!(imm, P, N),
    fma_x!(imm, P, S),
    fma_x!(imm, P, M),
    fma_x!(imm, N, P),
    fma_x!(imm, N, N),
    fma_x!(imm, N, S),
    fma_x!(imm, N, M),
    fma_x!(imm, S, P),
    fma_x!(imm, S, N),
    fma_x!(imm, S, S),
    fma_x!(imm, S, M),
    fma_x!(imm, M, P),
    fma_x!(imm, M, N),
    fma_x!(imm, M, S),
    fma_x!(imm, M, M),
    credux!("CREDUX.MAX.F32", 0, 0),
    credux!("CREDUX.MAXABS.F32", 1, 0),
    credux!("CREDUX.MIN.F32", 2, 0),
    credux!("CREDUX.MINABS.F32", 3, 0),
    credux!("CREDUX.MAX.F32.NAN", 0, 1),
    credux!("CREDUX.MAXABS.F32.NAN", 1, 1),
    credux!("CREDUX.MIN.F32.NAN", 2, 1),
    credux!("CREDUX.MINABS.F32.NAN", 3, 1),
];
