//! sm_120 forms no learned table holds, from nvdisasm (`-b SM120`) of
//! NVIDIA's words flipped bit by bit.
//!
//! `ULEA.HI.SX32 UR6, UR8, 0xbb67ae85, 0x1` (Triton's dropout on
//! sm_120a: Philox keys from the seed), NVIDIA's
//! `0x000fe200_0f8f0aff_bb67ae85_08067891`: opcode 0x891 (a uniform LEA
//! with an immediate), the destination at 16..23, the source at 24..31,
//! the immediate at 32..63, the shift at 75..79; bit 72 `-` on the
//! source, 73 `.SX32` (clear: `ULEA.HI UR6, UR8, imm, URZ, 0x1`, the high
//! source at 64..71, which `.SX32` leaves unread and nvdisasm ignores), 74
//! `.X` (with a carry-in), 81..83 a carry-out (7: none, not printed), 80
//! `.HI` and 91 set (clear is refused). sm_90's probed form
//! (`derive::PROBED_UNIFORM`) has the same bits; sm_121's nvdisasm
//! prints the word alike.

use crate::form::{
    Atom,
    AtomKind::{U, X},
    Field, Form,
};

/// The forms.
pub(crate) static FORMS: &[Form] = &[Form {
    mnemonic: "ULEA.HI.SX32",
    operands: &["{U}", "{U}", "{X}", "{X}"],
    atoms: &[
        Atom { kind: U, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None },
        Atom { kind: U, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: None },
        Atom { kind: X, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: false, reuse: None },
        Atom { kind: X, fields: &[Field { pos: 75, len: 5, shift: 0 }], signed: false, reuse: None },
    ],
    bits: 0x0000_0000_0f8f_0200_0000_0000_0000_0891,
    mask: 0x0000_0000_080f_0700_0000_0000_0000_0fff,
    uniform_guard: true,
}];
