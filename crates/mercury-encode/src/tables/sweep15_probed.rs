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
//! - Not added (the ISA solver's random sm_80 words then decode family
//!   siblings nvdisasm calls `INVALID`): `tanh`/`ex2.approx` of
//!   `f16x2`/`bf16x2`, the high lane as
//!   `MUFU.TANH.F16 R5, R0.H1` (`0x1000000000057308`): bit 60 reads the
//!   high half. The format differs by family: sm_80 `.F16` is bit 73
//!   (`MUFU.EX2.F16` `0x...0a00`, `.TANH.F16` `0x...2600`), sm_90 `.F16`
//!   bit 72 (`0x...0900`, `0x...2500`) and `.BF16` bit 73 (`0x...0a00`,
//!   `0x...2600`); the destination at 16..23, the source at 32..39 as in
//!   the learned `MUFU.EX2 R, R`.
//! - `neg`/`abs` of `bf16`/`bf16x2`: `HFMA2.BF16_V2 R5, -RZ.H0_H0,
//!   RZ.H0_H0, -R4.H0_H0` (`0x200000ffff057231`, `0x0000000000340904`,
//!   the same on sm_80 and sm_90): `a` at 24..31 with `-` and `.H0_H0`
//!   (bit 61 and the halves fields), `b` at 32..39, `c` at 64..71; bit 84
//!   `-c`, 83 `|c|`, 82 `c.H0_H0` (a pair's `-R0` is `0x...300900`, `|R0|`
//!   `0x...280900`, `|R4|.H0_H0` `0x...2c0904`).
//! - `fma.rn.{f16,bf16}` with one constant: `HFMA2 R4, R0.H0_H0,
//!   R5.H0_H0, -2.3125, -2.3125` (`0xc0a0c0a000047431`,
//!   `0x0000000000040805`: opcode `0x431`, the pair at 48..63 and 32..47,
//!   `b` at 64..71) and `HFMA2 R0, R0.H0_H0, -2.3125, -2.3125, R5.H0_H0`
//!   (`0x...7831`, `c` at 64..71); `.BF16_V2` sets bit 85 (`0x...240805`);
//!   bit 81 makes `b` `.H1_H1` (`HFMA2.BF16_V2 R4, R0.H0_H0, R0.H1_H1, 2,
//!   2` is `0x...260800`, NVIDIA's constant in a register's high half).
//!
//! nvdisasm prints the address pairs of `CCTL.E` and `QSPC.E` without
//! `.64`, as the skeletons here do; `widths.rs` widens them (liveness and
//! the interpreter read both words). The bits are NVIDIA's,
//! with the guard (12..15, `PT` in the words above) left to the encoder.

use crate::form::{
    Atom,
    AtomKind::{BF16, F16, P, R, X},
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
        operands: if offset { &["[{R}+{X}]"] } else { &["[{R}]"] },
        atoms: if offset { &[REG24, OFF32] } else { &[REG24] },
        bits: high << 64 | 0x098f,
        mask: if offset { MASK_OFF32 } else { MASK_REG },
        uniform_guard: false,
    }
}

const fn cctll(mnemonic: &'static str, high: u128, offset: bool) -> Form {
    Form {
        mnemonic,
        operands: if offset { &["[{R}+{X}]"] } else { &["[{R}]"] },
        atoms: if offset { &[REG24, OFF40] } else { &[REG24] },
        bits: high << 64 | 0x0990,
        mask: if offset { MASK_OFF40 } else { MASK_REG },
        uniform_guard: false,
    }
}

const fn qspc(mnemonic: &'static str, high: u128) -> Form {
    Form {
        mnemonic,
        operands: &["{P}", "{R}", "[{R}]"],
        atoms: &[PRED81, REG16, REG24],
        bits: high << 64 | 0x03aa,
        mask: MASK_QSPC,
        uniform_guard: false,
    }
}

const REG32: Atom = Atom { kind: R, fields: &[Field { pos: 32, len: 8, shift: 0 }], signed: false, reuse: None };
const REG64C: Atom = Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(2) };
const REG24A: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: None };

const fn hfma2_sign(operands: &'static [&'static str], high: u128) -> Form {
    Form {
        mnemonic: "HFMA2.BF16_V2",
        operands,
        atoms: &[REG16, REG24A, REG32, REG64C],
        bits: high << 64 | 0x2000_0000_0000_0231,
        mask: 0x0000_01ff_ffff_ff00_ffff_ff00_0000_0fff,
        uniform_guard: false,
    }
}

const F16_HI: Atom = Atom { kind: F16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None };
const F16_LO: Atom = Atom { kind: F16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None };
const BF16_HI: Atom = Atom { kind: BF16, fields: &[Field { pos: 48, len: 16, shift: 0 }], signed: false, reuse: None };
const BF16_LO: Atom = Atom { kind: BF16, fields: &[Field { pos: 32, len: 16, shift: 0 }], signed: false, reuse: None };

const REG24R: Atom = Atom { kind: R, fields: &[Field { pos: 24, len: 8, shift: 0 }], signed: false, reuse: Some(0) };
const REG64B: Atom = Atom { kind: R, fields: &[Field { pos: 64, len: 8, shift: 0 }], signed: false, reuse: Some(1) };
const MASK_HFMA2_IMM: u128 = 0x0000_01ff_ffff_ff00_0000_0000_0000_0fff;

/// `HFMA2[.BF16_V2] d, a.H0_H0, b.H0_H0, imm, imm` (`c_imm`) or `d,
/// a.H0_H0, imm, imm, c.H0_H0`.
const fn hfma2_imm(mnemonic: &'static str, bf16: bool, high: u128, c_imm: bool) -> Form {
    Form {
        mnemonic,
        operands: if c_imm && high & 0x2_0000 != 0 {
            &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{F}", "{F}"]
        } else if c_imm {
            &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{F}", "{F}"]
        } else {
            &["{R}", "{R}.H0_H0", "{F}", "{F}", "{R}.H0_H0"]
        },
        atoms: match (c_imm, bf16) {
            (true, true) => &[REG16, REG24R, REG64B, BF16_HI, BF16_LO],
            (true, false) => &[REG16, REG24R, REG64B, F16_HI, F16_LO],
            (false, true) => &[REG16, REG24R, BF16_HI, BF16_LO, REG64C],
            (false, false) => &[REG16, REG24R, F16_HI, F16_LO, REG64C],
        },
        bits: high << 64 | if c_imm { 0x0431 } else { 0x0831 },
        mask: MASK_HFMA2_IMM,
        uniform_guard: false,
    }
}

/// The cache-control, state-space and bfloat16 sign forms, for sm_80 and
/// sm_90 alike.
pub(crate) static FORMS: &[Form] = &[
    hfma2_sign(&["{R}", "-{R}.H0_H0", "{R}.H0_H0", "-{R}.H0_H0"], 0x34_0900),
    hfma2_sign(&["{R}", "-{R}.H0_H0", "{R}.H0_H0", "|{R}|.H0_H0"], 0x2c_0900),
    hfma2_sign(&["{R}", "-{R}.H0_H0", "{R}.H0_H0", "-{R}"], 0x30_0900),
    hfma2_sign(&["{R}", "-{R}.H0_H0", "{R}.H0_H0", "|{R}|"], 0x28_0900),
    hfma2_imm("HFMA2", false, 0x04_0800, true),
    hfma2_imm("HFMA2", false, 0x04_0800, false),
    hfma2_imm("HFMA2.BF16_V2", true, 0x24_0800, true),
    hfma2_imm("HFMA2.BF16_V2", true, 0x24_0800, false),
    hfma2_imm("HFMA2", false, 0x06_0800, true),
    hfma2_imm("HFMA2.BF16_V2", true, 0x26_0800, true),
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
pub(crate) fn forms(sm: crate::Sm) -> Vec<Form> {
    match sm.base() {
        crate::Sm::Sm80 | crate::Sm::Sm90 => FORMS.to_vec(),
        _ => Vec::new(),
    }
}
