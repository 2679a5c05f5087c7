//! Forms of NVIDIA's cubins for the unseen NVRTC kernels
//! (`tests/targets/unseen`) that no corpus cubin holds, so that the
//! decoder reads NVIDIA's words and the encoder writes them. Each word is
//! NVIDIA's, and every bit was flipped alone under nvdisasm 13.5 (`-b
//! SM75`, `SM80`, `SM86`, `SM89`); the masks fix every bit that is not an
//! operand field, so a flip the probe did not read as an operand never
//! decodes as these forms.
//!
//! - `HFMA2 R5, R2.H0_H0, R8.H0_H0, R5.H1_H1` (`0x0000000000060805`,
//!   `0x2000000802057231`; half_math sm_86/89): the halves skeleton of the
//!   families' `HFMA2_R` rows no learned form has. `d` 16..23, `a` 24..31
//!   with halves at 74..75 (2 `.H0_H0`, 3 `.H1_H1`, 0 none), `b` 32..39
//!   with halves at 60..61, `c` 64..71 with halves at 81..82 (3 `.H1_H1`,
//!   2 `.H0_H0`, 1 `.F32`); identical on SM80, SM86 and SM89 except bit 86
//!   (fixed 0), which SM86/SM89 print `b.INVALID6`.
//! - `HFMA2.BF16_V2 R3, R5, 1, 1, R6` (`0x0000000000200006`,
//!   `0x3f803f8005037831`; bf16_math sm_86/89): opcode 0x831, `a` 24..31
//!   without halves (bits 74..75 = 0; 75 makes it `.H0_H0`), the pair at
//!   48..63 (printed first) and 32..47, `c` 64..71; bit 85 `.BF16_V2` (clear:
//!   `HFMA2 R3, R5, 1.875, 1.875, R6`, the same bits read as binary16).
//! - `LEA.HI R17, P0, R10, R17, RZ, 0x1` (`0x00000000078108ff`,
//!   `0x000000110a117211`; int_divmod sm_75/86/89): the learned `LEA.HI R,
//!   P, R, -R, R, X` without bit 63 (`-b`); `d` 16..23, `P` 81..83, `a`
//!   24..31, `b` 32..39, `c` 64..71, the shift 75..79; identical on SM75,
//!   SM80, SM86 and SM89.
//! - sm_75 `I2F.F16 R7, R7` (`0x0000000000200c00`, `0x0000000700077306`;
//!   half_math sm_75): bit 75 the `F16` result (clear, or bit 76 set:
//!   nvdisasm rejects it), bit 74 signed (clear: `I2F.F16.U32`), bits
//!   84..85 the source size (2 = 32 bits; 0 `S8`), 78..79 the rounding;
//!   `d` 16..23, `b` 32..39 as in the learned `I2F R, R`.

use crate::Sm;
use crate::form::{
    Atom,
    AtomKind::{BF16, P, R, X},
    Field, Form,
};

const D16: Atom = Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const A24: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) };
const B32: Atom = Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: Some(1) };
const C64: Atom = Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) };
const BF16_HI: Atom = Atom { kind: BF16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None };
const BF16_LO: Atom = Atom { kind: BF16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None };
const P81: Atom = Atom { kind: P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None };
const SHIFT75: Atom = Atom { kind: X, fields: &[Field { pos: 75, len: 5, shift: 0 }], signed: false, reuse: None };

/// sm_80's family (sm_80, sm_86, sm_89).
static SM80: &[Form] = &[
    Form {
        mnemonic: "HFMA2",
        operands: &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H1_H1"],
        atoms: &[D16, A24, B32, C64],
        bits: 0x0000_0000_0006_0800_2000_0000_0000_0231,
        // As the learned `HFMA2 R, R.H0_H0, R, R`: all but the registers.
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "HFMA2.BF16_V2",
        operands: &["{R}", "{R}", "{F}", "{F}", "{R}"],
        atoms: &[D16, A24, BF16_HI, BF16_LO, C64],
        bits: 0x0000_0000_0020_0000_0000_0000_0000_0831,
        mask: 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff,
        uniform_guard: false,
    },
    LEA_HI,
];

/// `LEA.HI R, P, R, R, R, X`, sm_75 and sm_80's family alike.
const LEA_HI: Form = Form {
    mnemonic: "LEA.HI",
    operands: &["{R}", "{P}", "{R}", "{R}", "{R}", "{X}"],
    atoms: &[D16, P81, A24, B32, C64, SHIFT75],
    bits: 0x0000_0000_0781_0000_0000_0000_0000_0211,
    // The learned `LEA.HI R, P, R, -R, R, X`'s mask (bit 63 its `-b`).
    mask: 0x0000_0000_0801_0700_8000_0000_0000_0fff,
    uniform_guard: false,
};

/// sm_75's forms.
static SM75: &[Form] = &[
    LEA_HI,
    Form {
        mnemonic: "I2F.F16",
        operands: &["{R}", "{R}"],
        atoms: &[D16, B32],
        bits: 0x0000_0000_0020_0c00_0000_0000_0000_0306,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_ff00_0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "I2F.F16.U32",
        operands: &["{R}", "{R}"],
        atoms: &[D16, B32],
        bits: 0x0000_0000_0020_0800_0000_0000_0000_0306,
        mask: 0x0000_01ff_ffff_ffff_ffff_ff00_ff00_0fff,
        uniform_guard: false,
    },
];

/// The forms of `sm`'s family.
pub(crate) fn forms(sm: Sm) -> &'static [Form] {
    match sm.base() {
        Sm::Sm75 => SM75,
        Sm::Sm80 => SM80,
        _ => &[],
    }
}
