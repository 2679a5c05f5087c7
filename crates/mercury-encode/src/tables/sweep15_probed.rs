//! Forms of session 15's PTX ISA sweep that no corpus cubin holds, from
//! NVIDIA's words for small PTX probes (ptxas 13.5 + cuobjdump; the low
//! 105 bits are the same on sm_80 and sm_90).
//!
//! - `prefetch{,.global}.{L1,L2}`, `prefetchu.L1` and
//!   `prefetch.global.L2::evict_last`: `CCTL.E.PF1 [R2]`
//!   (`0x000000000200798f`, `0x0000000000000100`), `.PF2` (bit 87) and
//!   `.PML2` (bits 87, 90); the address pair at 24..31, a signed 32-bit
//!   offset at 32..63 (`[R2+0x12345688]` is `0x123456880200798f`,
//!   `[R2+-0x7ffff0]` `0xff8000100200798f`).
//! - `prefetch.local.{L1,L2}`: `CCTLL.PF1 [R1+0x4]`
//!   (`0x0000040001007990`, `0x0000000000000000`), `.PF2` bit 87; the
//!   address at 24..31, a signed 24-bit offset at 40..63
//!   (`[R0+-0x4]` is `0xfffffc0000007990`).
//! - `isspacep.{global,shared,local}`: `QSPC.E.G P1, RZ, [R2]`
//!   (`0x0000000002ff73aa`, `0x0000000000020100`); the predicate at
//!   81..83, the register result at 16..23, the address pair at 24..31,
//!   the space at 73..74 (G 0, L 1, S 2: `.S` is `0x...0500`, `.L`
//!   `0x...0300`).
//!
//! nvdisasm prints the address registers of `CCTL.E` and `QSPC.E` without
//! `.64`; the skeletons here say `.64` because the register is a pair
//! (liveness and the interpreter read both words). The bits are NVIDIA's.

use crate::form::{
    Atom,
    AtomKind::{P, R, X},
    Field, Form,
};

const REG16: Atom = Atom { kind: R, fields: &[Field { pos: 16, len: 8, shift: 0 }], signed: false, reuse: None };
const REG24: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: None };
const OFF32: Atom = Atom { kind: X, fields: &[Field { pos: 32, len: 32, shift: 0 }], signed: true, reuse: None };
const OFF40: Atom = Atom { kind: X, fields: &[Field { pos: 40, len: 24, shift: 0 }], signed: true, reuse: None };
const PRED81: Atom = Atom { kind: P, fields: &[Field { pos: 81, len: 3, shift: 0 }], signed: false, reuse: None };

/// Every bit below the scheduling bits except the guard (12..15) and the
/// address register (24..31).
const MASK_REG: u128 = 0x0000_01ff_ffff_ffff_ffff_ffff_00ff_0fff;
/// [`MASK_REG`] less a 32-bit offset at 32..63.
const MASK_OFF32: u128 = 0x0000_01ff_ffff_ffff_0000_0000_00ff_0fff;
/// [`MASK_REG`] less a 24-bit offset at 40..63.
const MASK_OFF40: u128 = 0x0000_01ff_ffff_ffff_0000_00ff_00ff_0fff;
/// [`MASK_REG`] less the register result (16..23) and the predicate
/// (81..83).
const MASK_QSPC: u128 = 0x0000_01ff_fff1_ffff_ffff_ffff_0000_0fff;

const fn cctl(mnemonic: &'static str, high: u128, offset: bool) -> Form {
    Form {
        mnemonic,
        operands: if offset { &["[{R}.64+{X}]"] } else { &["[{R}.64]"] },
        atoms: if offset { &[REG24, OFF32] } else { &[REG24] },
        bits: high << 64 | 0x798f,
        mask: if offset { MASK_OFF32 } else { MASK_REG },
        uniform_guard: false,
    }
}

const fn cctll(mnemonic: &'static str, high: u128, offset: bool) -> Form {
    Form {
        mnemonic,
        operands: if offset { &["[{R}+{X}]"] } else { &["[{R}]"] },
        atoms: if offset { &[REG24, OFF40] } else { &[REG24] },
        bits: high << 64 | 0x7990,
        mask: if offset { MASK_OFF40 } else { MASK_REG },
        uniform_guard: false,
    }
}

const fn qspc(mnemonic: &'static str, high: u128) -> Form {
    Form {
        mnemonic,
        operands: &["{P}", "{R}", "[{R}.64]"],
        atoms: &[PRED81, REG16, REG24],
        bits: high << 64 | 0x73aa,
        mask: MASK_QSPC,
        uniform_guard: false,
    }
}

/// The forms, for sm_80 and sm_90 alike.
pub(crate) static FORMS: &[Form] = &[
    cctl("CCTL.E.PF1", 0x100, false),
    cctl("CCTL.E.PF1", 0x100, true),
    cctl("CCTL.E.PF2", 0x80_0100, false),
    cctl("CCTL.E.PF2", 0x80_0100, true),
    cctl("CCTL.E.PML2", 0x480_0100, false),
    cctl("CCTL.E.PML2", 0x480_0100, true),
    cctll("CCTLL.PF1", 0, false),
    cctll("CCTLL.PF1", 0, true),
    cctll("CCTLL.PF2", 0x80_0000, false),
    cctll("CCTLL.PF2", 0x80_0000, true),
    qspc("QSPC.E.G", 0x100),
    qspc("QSPC.E.L", 0x300),
    qspc("QSPC.E.S", 0x500),
];

/// The forms of `sm`'s family: sm_80's (sm_86, sm_89) and sm_90's.
pub(crate) fn forms(sm: crate::Sm) -> &'static [Form] {
    match sm.base() {
        crate::Sm::Sm80 | crate::Sm::Sm90 => FORMS,
        _ => &[],
    }
}
