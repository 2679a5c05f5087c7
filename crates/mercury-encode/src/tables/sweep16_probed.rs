//! Forms of session 16's PTX ISA sweep that no corpus cubin holds, from
//! NVIDIA's words for small PTX probes (ptxas 13.5 + cuobjdump, sm_90).
//!
//! - `min`/`max[.relu]` of `.u16x2`/`.s16x2`: `VIMNMX.S16x2 R12, R4, R5,
//!   PT` (`0x00000005040c7248`, `0x0000000003fe0300`), `VIMNMX.U16x2`
//!   (`0x...0200`), `.RELU` bit 76 (`VIMNMX.S16x2.RELU R15, R4, R5, !PT`
//!   is `0x00000005040f7248`, `0x0000000007fe1300`): the learned
//!   `VIMNMX R, R, R, P` (opcode `0x248`, bit 72 signed) with the lane
//!   type at 72..73; the predicate at 87..89, bit 90 `!`.
//!
//! The bits are NVIDIA's, with the guard (12..15) and the scheduling bits
//! left to the encoder.

use crate::form::{
    Atom,
    AtomKind::{P, R},
    Field, Form,
};

const DST: Atom = Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const A: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) };
const B: Atom = Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) };
const PICK: Atom = Atom { kind: P, fields: &[Field { pos: 87, len: 3, shift: 0 }], signed: false, reuse: None };

/// The learned `VIMNMX R, R, R, P` mask: all but the guard, the three
/// registers and the predicate.
const MASK_VIMNMX: u128 = 0x0000_01ff_fc7f_ffff_ffff_ff00_0000_0fff;

/// `VIMNMX.<lanes>[.RELU] d, a, b, [!]p` (`high`: bits 64.. with the
/// predicate field clear).
const fn vimnmx(mnemonic: &'static str, high: u128, not: bool) -> Form {
    Form {
        mnemonic,
        operands: if not { &["{R}", "{R}", "{R}", "!{P}"] } else { &["{R}", "{R}", "{R}", "{P}"] },
        atoms: &[DST, A, B, PICK],
        bits: (high | if not { 0x400_0000 } else { 0 }) << 64 | 0x0248,
        mask: MASK_VIMNMX,
        uniform_guard: false,
    }
}

/// The packed 16-bit minimum and maximum of sm_90.
pub(crate) static FORMS: &[Form] = &[
    vimnmx("VIMNMX.U16x2", 0x7e_0200, false),
    vimnmx("VIMNMX.U16x2", 0x7e_0200, true),
    vimnmx("VIMNMX.S16x2", 0x7e_0300, false),
    vimnmx("VIMNMX.S16x2", 0x7e_0300, true),
    vimnmx("VIMNMX.S16x2.RELU", 0x7e_1300, false),
    vimnmx("VIMNMX.S16x2.RELU", 0x7e_1300, true),
];

/// The forms of `sm`'s family (sm_90 only: sm_80 has `IMNMX`, without
/// packed lanes).
pub(crate) fn forms(sm: crate::Sm) -> &'static [Form] {
    match sm.base() {
        crate::Sm::Sm90 => FORMS,
        _ => &[],
    }
}
