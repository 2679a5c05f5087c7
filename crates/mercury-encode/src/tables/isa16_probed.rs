//! Forms of session 16's PTX ISA sweep that no corpus cubin holds, from
//! NVIDIA's words for small PTX probes (ptxas 13.5 + cuobjdump), every bit
//! of 16..104 flipped alone under nvdisasm 13.5 (`-b SM75`, `SM80`,
//! `SM86`, `SM89`, `SM90`, `SM100`, `SM107`, `SM110`, `SM120`: the same
//! reading on all).
//!
//! - `cvt.sat.{u8,s8,u16,s16}.{s32,s64}` (the 64-bit source first
//!   clamped to 32 bits): `I2I.S8.S32.SAT R4, R0` (`0x0000000000047238`,
//!   `0x0000000000001000`). Opcode `0x238`, the destination at 16..23, the
//!   source at 32..39 (`.reuse` slot 1, bit 123 in NVIDIA's
//!   `I2I.S8.S32.SAT R4, R0.reuse`); bit 76 clear makes the result
//!   unsigned (`I2I.U8.S32.SAT`), bit 77 16 bits wide (`I2I.S16.S32.SAT`;
//!   both: `I2I.U16.S32.SAT`). No other bit of 16..104 changes the text
//!   (bits 24..31, 40..75 and 78..90 print the same; bit 91 makes a word
//!   nvdisasm refuses): the source type and `.SAT` are fixed. NVIDIA's
//!   code writes them without a scoreboard.
//!
//! The masks fix every bit that is not an operand field or the guard
//! (12..15, left to the encoder), so a word with any other bit set never
//! decodes as these forms.

use crate::Sm;
use crate::form::{Atom, AtomKind::R, Field, Form};

const DST16: Atom = Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const SRC32: Atom = Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) };

/// Bits 0..104 less the guard (12..15), the destination (16..23) and the
/// source (32..39).
const MASK_I2I: u128 = 0x0000_01ff_ffff_ffff_ffff_ff00_ff00_0fff;

/// `I2I.<to>.S32.SAT d, a`, `high` the word's bits 64..127.
const fn i2i(mnemonic: &'static str, high: u128) -> Form {
    Form {
        mnemonic,
        operands: &["{R}", "{R}"],
        atoms: &[DST16, SRC32],
        bits: high << 64 | 0x0238,
        mask: MASK_I2I,
        uniform_guard: false,
    }
}

/// The saturating integer narrowing forms, alike on every probed SM.
static FORMS: &[Form] = &[
    i2i("I2I.U8.S32.SAT", 0x0000),
    i2i("I2I.S8.S32.SAT", 0x1000),
    i2i("I2I.U16.S32.SAT", 0x2000),
    i2i("I2I.S16.S32.SAT", 0x3000),
];

/// The forms of `sm` (every family's nvdisasm reads them alike).
pub(crate) fn forms(_sm: Sm) -> &'static [Form] {
    FORMS
}
