//! sm_90a's integer warpgroup MMA, `IGMMA` (`wgmma.mma_async...s32.{s8,u8}.{s8,u8}`,
//! Triton's int8 `tl.dot`), so that the encoder writes it and the decoder
//! reads NVIDIA's words (session 16).
//!
//! NVIDIA's words (ptxas 13.5, `--gpu-name=sm_90a`): Triton's matmul_i8
//! `IGMMA.64x64x32.S8.S8 R24, gdesc[UR4], R24, gsb0`
//! (`0x000fe20008041018_01e00000041879f1`) and one-instruction probes of
//! every form below: `IGMMA.64x8x32.U8.S8 R24, gdesc[UR4], R24, gsb0`
//! (`0x08040018` in bits 64..95), `.S8.U8` (`0x08001018`), `.U8.U8`
//! (`0x08000018`), `.S8.S8.SAT` of `.satfinite` (`0x08041818`),
//! `R24, gdesc[UR4], RZ, !UPT` of scale-d 0 (`0x0c0410ff`), `R24,
//! gdesc[UR4], R24, UP0` of a run-time scale-d after `VOTEU.ANY`
//! (`0x0b841018`), and A in registers `IGMMA.64x8x32.S8.S8 R24, R28,
//! gdesc[UR4], R24, gsb0` (`0x000000041c187df1`, `0x08041018`).
//!
//! nvdisasm 13.5 (`-b SM90`) on the matmul word with each bit flipped
//! alone and each field run through its values: opcode 0x9f1 (0xdf1 with A
//! in registers, bit 10); `d` 16..23, the descriptors' uniform register
//! 24..29 (A in registers: A's fragment 24..31, the descriptor 32..37),
//! `c` 64..71; the shape at 53..58, `3 i` for the `i`-th N of 8, 16, 24,
//! 32, 48, 64, 80, .. 256 (the other values print `INVALIDn`); `.SAT` at
//! 75; A's type at 76..77 and B's at 82..83 (0 `U8`, 1 `S8`, 2 and 3
//! `INVALIDn`); the group scoreboard at 84..86 (`gsb0` is 0, 7 none);
//! the scale-d predicate at 87..89 stored complemented (`UPT` is 0), bit
//! 90 negates it; bit 91 must be set (clear: an illegal instruction);
//! bit 73 is `.SP` (sparse, another operand list: not used); bits 72 and
//! 63 (HGMMA's `.negA`/`.negB`) and 61..62 (its transposes) print
//! nothing: integer operands are K-major and not negated.

use crate::Sm;
use crate::families::{Family, INVALID, Slot, WordField};
use crate::form::{Atom, AtomKind, Field, Form};

const D16: Atom =
    Atom { kind: AtomKind::R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const DESC24: Atom =
    Atom { kind: AtomKind::U, fields: &[Field { pos: 24, len: 6, shift: 0 }], signed: false, reuse: None };
const A24: Atom =
    Atom { kind: AtomKind::R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) };
const DESC32: Atom =
    Atom { kind: AtomKind::U, fields: &[Field { pos: 32, len: 6, shift: 0 }], signed: false, reuse: None };
const C64: Atom =
    Atom { kind: AtomKind::R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) };
const SCALE_D: Atom =
    Atom { kind: AtomKind::InvUP, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None };

const DESC: &[Atom] = &[D16, DESC24, C64];
const DESC_P: &[Atom] = &[D16, DESC24, C64, SCALE_D];
const REG_A: &[Atom] = &[D16, A24, DESC32, C64];
const REG_A_P: &[Atom] = &[D16, A24, DESC32, C64, SCALE_D];

/// Every bit but the guard, the control bits and the operand fields.
const DESC_MASK: u128 = 0x0000_01ff_ffff_ff00_ffff_ffff_c000_0fff;
const DESC_P_MASK: u128 = 0x0000_01ff_fc7f_ff00_ffff_ffff_c000_0fff;
const REG_A_MASK: u128 = 0x0000_01ff_ffff_ff00_ffff_ffc0_0000_0fff;
const REG_A_P_MASK: u128 = 0x0000_01ff_fc7f_ff00_ffff_ffc0_0000_0fff;

/// The fixed bits of `IGMMA.64x8x32.S8.S8` (bits 91, 82 and 76) with A
/// behind a descriptor (0x9f1) and with no group scoreboard (84..86 = 7).
const BASE: u128 = 0x0000_0000_0874_1000_0000_0000_0000_09f1;
/// `gsb0` (84..86 = 0).
const GSB0: u128 = 0x0000_0000_0070_0000_0000_0000_0000_0000;
/// Bit 90: the scale-d predicate negated.
const NOT_P: u128 = 1 << 90;
/// Bit 10: A in registers (opcode 0xdf1).
const REG_A_BIT: u128 = 1 << 10;

const fn row(operands: &'static [&'static str], atoms: &'static [Atom], bits: u128, mask: u128) -> Form {
    Form { mnemonic: "IGMMA.64x8x32.S8.S8", operands, atoms, bits, mask, uniform_guard: false }
}

/// sm_90's forms; [`IGMMA_FAMILY`] gives the other shapes and types.
static SM90: &[Form] = &[
    row(&["{R}", "gdesc[{U}]", "{R}"], DESC, BASE, DESC_MASK),
    row(&["{R}", "gdesc[{U}]", "{R}", "gsb0"], DESC, BASE & !GSB0, DESC_MASK),
    row(&["{R}", "gdesc[{U}]", "{R}", "{UP}"], DESC_P, BASE, DESC_P_MASK),
    row(&["{R}", "gdesc[{U}]", "{R}", "{UP}", "gsb0"], DESC_P, BASE & !GSB0, DESC_P_MASK),
    row(&["{R}", "gdesc[{U}]", "{R}", "!{UP}"], DESC_P, BASE | NOT_P, DESC_P_MASK),
    row(&["{R}", "gdesc[{U}]", "{R}", "!{UP}", "gsb0"], DESC_P, (BASE | NOT_P) & !GSB0, DESC_P_MASK),
    row(&["{R}", "{R}", "gdesc[{U}]", "{R}"], REG_A, BASE | REG_A_BIT, REG_A_MASK),
    row(&["{R}", "{R}", "gdesc[{U}]", "{R}", "gsb0"], REG_A, (BASE | REG_A_BIT) & !GSB0, REG_A_MASK),
    row(&["{R}", "{R}", "gdesc[{U}]", "{R}", "{UP}"], REG_A_P, BASE | REG_A_BIT, REG_A_P_MASK),
    row(&["{R}", "{R}", "gdesc[{U}]", "{R}", "{UP}", "gsb0"], REG_A_P, (BASE | REG_A_BIT) & !GSB0, REG_A_P_MASK),
    row(&["{R}", "{R}", "gdesc[{U}]", "{R}", "!{UP}"], REG_A_P, BASE | REG_A_BIT | NOT_P, REG_A_P_MASK),
    row(
        &["{R}", "{R}", "gdesc[{U}]", "{R}", "!{UP}", "gsb0"],
        REG_A_P,
        (BASE | REG_A_BIT | NOT_P) & !GSB0,
        REG_A_P_MASK,
    ),
];

/// The forms of `sm`'s family (sm_90 only: wgmma is sm_90a's).
pub(crate) fn forms(sm: Sm) -> &'static [Form] {
    match sm.base() {
        Sm::Sm90 => SM90,
        _ => &[],
    }
}

/// The shape of IGMMA (bits 53..58): value `3 i` is the `i`-th N of
/// wgmma's integer shapes (8, 16, 24, then multiples of 16 to 256); K is
/// 32.
const IGMMA_SHAPE: Slot = Slot::Field(WordField {
    pos: 53,
    len: 6,
    words: &[
        "64x8x32",
        INVALID,
        INVALID,
        "64x16x32",
        INVALID,
        INVALID,
        "64x24x32",
        INVALID,
        INVALID,
        "64x32x32",
        INVALID,
        INVALID,
        "64x48x32",
        INVALID,
        INVALID,
        "64x64x32",
        INVALID,
        INVALID,
        "64x80x32",
        INVALID,
        INVALID,
        "64x96x32",
        INVALID,
        INVALID,
        "64x112x32",
        INVALID,
        INVALID,
        "64x128x32",
        INVALID,
        INVALID,
        "64x144x32",
        INVALID,
        INVALID,
        "64x160x32",
        INVALID,
        INVALID,
        "64x176x32",
        INVALID,
        INVALID,
        "64x192x32",
        INVALID,
        INVALID,
        "64x208x32",
        INVALID,
        INVALID,
        "64x224x32",
        INVALID,
        INVALID,
        "64x240x32",
        INVALID,
        INVALID,
        "64x256x32",
    ],
});
/// A's type (bits 76..77).
const IGMMA_A: Slot = Slot::Field(WordField { pos: 76, len: 2, words: &["U8", "S8"] });
/// B's type (bits 82..83).
const IGMMA_B: Slot = Slot::Field(WordField { pos: 82, len: 2, words: &["U8", "S8"] });
/// `.SAT` (bit 75, `.satfinite`).
const IGMMA_SAT: Slot = Slot::Field(WordField { pos: 75, len: 1, words: &["", "SAT"] });

/// IGMMA's modifier fields, in nvdisasm's order (`IGMMA.64x64x32.S8.U8.SAT`);
/// listed in [`crate::families::FAMILIES`].
pub(crate) const IGMMA_FAMILY: Family = Family {
    opcode: "IGMMA",
    forms: &[],
    sms: &[Sm::Sm90],
    slots: &[IGMMA_SHAPE, IGMMA_A, IGMMA_B, IGMMA_SAT],
    negate: None,
};
