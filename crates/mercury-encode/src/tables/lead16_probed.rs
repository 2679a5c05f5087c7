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

use crate::Sm;
use crate::form::{Atom, AtomKind::R, Field, Form};

const R24: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: None };

/// sm_90's forms.
static SM90: &[Form] = &[Form {
    mnemonic: "WARPSYNC",
    operands: &["{R}"],
    atoms: &[R24],
    bits: 0x0000_0000_0380_0000_0000_0000_0000_0348,
    mask: 0x0000_01ff_ffff_ffff_ffff_ffff_00ff_0fff,
    uniform_guard: false,
}];

/// The forms of `sm`'s family.
pub(crate) fn forms(sm: Sm) -> &'static [Form] {
    match sm.base() {
        Sm::Sm90 => SM90,
        _ => &[],
    }
}
