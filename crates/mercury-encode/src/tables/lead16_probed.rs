//! Forms of NVIDIA's cubins for the session-16 unseen NVRTC kernels
//! (`tests/targets/unseen`: simd_video, float_rounding, warp_reduce_ops,
//! shared_atomics, small_ints, control_local) that no corpus cubin holds.
//! Each word is NVIDIA's, and every bit was flipped alone under nvdisasm
//! 13.5; the masks fix every bit that is not an operand field or the
//! guard.
//!
//! - sm_90 `WARPSYNC R7` (`0x0000000003800000`, `0x0000000007007348`;
//!   warp_reduce_ops, before a partial-mask `REDUX`): opcode 0x348 (as
//!   `WARPSYNC.ALL`'s 0x948 with bit 11 clear), the mask register at
//!   24..31; bits 87..90 an optional predicate (7, plain `PT`, as here),
//!   bit 85 `.EXCLUSIVE`, bit 86 `.COLLECTIVE` with a target. sm_75, sm_80's
//!   family and Blackwell's tables have the form already.
//! - sm_80-family `BRA.CONV UR4, 0x40` (`0x000000000b800000`,
//!   `0x0000003304007947`; warp_reduce_ops sm_80/87/88, the converged fast
//!   path of a partial-mask `REDUX`): the learned `BRA.DIV ~UR, L` with
//!   bits 32..33 = 3 (2 `.DIV`) and bit 30 clear (set: `~UR4`); `UR`
//!   24..29, the label 34..81 in words; identical on SM80, SM86 and SM89.
//! - sm_90 `DMUL R10, |R10|, UR6` (`0x0000000008000200`,
//!   `0x000000060a0a7c28`; float_rounding): the learned `DMUL R, R, UR`
//!   with bit 73 set (`|a|`; 72 `-a`, 62/63 `|b|`/`-b`, 78..79 the
//!   rounding); `d` 16..23, `a` 24..31, `UR` 32..37.

use crate::Sm;
use crate::form::{
    Atom,
    AtomKind::{L, R, U},
    Field, Form,
};

const R24: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: None };

const U24: Atom = Atom { kind: U, fields: &[Field { pos: 24, len: 6, shift: 0 }], signed: false, reuse: None };
const LABEL: Atom = Atom { kind: L, fields: &[Field { pos: 34, len: 48, shift: 2 }], signed: true, reuse: None };

/// sm_80's family (sm_80, sm_86, sm_87, sm_88, sm_89).
static SM80: &[Form] = &[Form {
    mnemonic: "BRA.CONV",
    operands: &["{U}", "{L}"],
    atoms: &[U24, LABEL],
    bits: 0x0000_0000_0b80_0000_0000_0003_0000_0947,
    // The learned `BRA.DIV ~UR, L`'s mask.
    mask: 0x0000_01ff_fffc_0000_0000_0003_c0ff_0fff,
    uniform_guard: false,
}];

const D16: Atom = Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const A24: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) };
const U32: Atom = Atom { kind: U, fields: &[Field { pos: 32, len: 6, shift: 0 }], signed: false, reuse: None };

/// sm_90's forms.
static SM90: &[Form] = &[
    Form {
        mnemonic: "DMUL",
        operands: &["{R}", "|{R}|", "{U}"],
        atoms: &[D16, A24, U32],
        bits: 0x0000_0000_0800_0200_0000_0000_0000_0c28,
        // The learned `DMUL R, R, UR`'s mask.
        mask: 0x0000_01ff_ffff_ffff_ffff_ffc0_0000_0fff,
        uniform_guard: false,
    },
    Form {
        mnemonic: "WARPSYNC",
        operands: &["{R}"],
        atoms: &[R24],
        bits: 0x0000_0000_0380_0000_0000_0000_0000_0348,
        mask: 0x0000_01ff_ffff_ffff_ffff_ffff_00ff_0fff,
        uniform_guard: false,
    },
];

/// The forms of `sm`'s family.
pub(crate) fn forms(sm: Sm) -> &'static [Form] {
    match sm.base() {
        Sm::Sm80 => SM80,
        Sm::Sm90 => SM90,
        _ => &[],
    }
}
