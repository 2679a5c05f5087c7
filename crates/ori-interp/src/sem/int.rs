//! Integer arithmetic and logic: IADD3, IMAD, LOP3, SHF, LEA, PRMT, min/max.

/// Two's complement of `x` as an IADD3 input: `(!x + 1)` taken as a 33-bit
/// quantity, so that `-0` carries out as the hardware's adder does.
pub fn negated(x: u32) -> u64 {
    u64::from(!x) + 1
}

/// Three-input add of 33-bit addends plus carry-ins: the low word and the
/// number of carries out of bit 31 (0..=3; IADD3 reports the first two as
/// predicates).
pub fn iadd3(a: u64, b: u64, c: u64, carry_in: u64) -> (u32, u64) {
    let sum = a + b + c + carry_in;
    (sum as u32, sum >> 32)
}

/// `LOP3.LUT`: bit i of the result is `lut[(a_i << 2) | (b_i << 1) | c_i]`.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0;
    for k in 0..8u32 {
        if lut >> k & 1 == 1 {
            let sa = if k & 4 != 0 { a } else { !a };
            let sb = if k & 2 != 0 { b } else { !b };
            let sc = if k & 1 != 0 { c } else { !c };
            r |= sa & sb & sc;
        }
    }
    r
}

/// A funnel shift of the 64-bit `hi:lo`: left or right, logical or
/// arithmetic (`signed` for `.S32`/`.S64`), returning the low or high word.
/// The shift amount is clamped to the width (`wide` = the `.U64`/`.S64`
/// forms), as the hardware clamps rather than wraps.
pub fn shf(lo: u32, hi: u32, amount: u32, left: bool, signed: bool, wide: bool, high: bool) -> u32 {
    let v = (u64::from(hi) << 32) | u64::from(lo);
    let s = amount.min(if wide { 64 } else { 32 });
    let r = if left {
        if s >= 64 { 0 } else { v << s }
    } else if signed {
        ((v as i64) >> s.min(63)) as u64
    } else if s >= 64 {
        0
    } else {
        v >> s
    };
    if high { (r >> 32) as u32 } else { r as u32 }
}

/// `LEA d, a, b, s`: `(a << s) + b` and the carry out.
pub fn lea(a: u32, b: u32, shift: u32, carry_in: u32) -> (u32, bool) {
    let shifted = u64::from(a) << (shift & 31);
    let sum = (shifted & 0xffff_ffff) + u64::from(b) + u64::from(carry_in);
    (sum as u32, sum >> 32 != 0)
}

/// `LEA.HI d, a, b, c, s`: the high word of `(c:a) << s`, plus `b` and the
/// carry (the second half of a 64-bit scaled add).
pub fn lea_hi(a: u32, b: u32, c: u32, shift: u32, carry_in: u32) -> u32 {
    let v = (u64::from(c) << 32) | u64::from(a);
    let hi = ((v << (shift & 31)) >> 32) as u32;
    hi.wrapping_add(b).wrapping_add(carry_in)
}

/// The modes of `PRMT` other than the default (PTX's `prmt.b32.mode`;
/// ptxas writes `prmt.b32.f4e d, a, b, c` as `PRMT.F4E d, a, c, b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrmtMode {
    /// Forward 4 extract: bytes `c`, `c+1`, .. of `b:a`.
    F4e,
    /// Backward 4 extract: bytes `c`, `c-1`, .. (mod 8).
    B4e,
    /// Replicate byte `c`.
    Rc8,
    /// Edge clamp left: byte `max(i, c)` in place `i`.
    Ecl,
    /// Edge clamp right: byte `min(i, c)` in place `i`.
    Ecr,
    /// Replicate the 16-bit half `c & 1`.
    Rc16,
}

impl PrmtMode {
    /// The mode a SASS modifier word names.
    pub fn from_word(word: &str) -> Option<PrmtMode> {
        Some(match word {
            "F4E" => PrmtMode::F4e,
            "B4E" => PrmtMode::B4e,
            "RC8" => PrmtMode::Rc8,
            "ECL" => PrmtMode::Ecl,
            "ECR" => PrmtMode::Ecr,
            "RC16" => PrmtMode::Rc16,
            _ => return None,
        })
    }
}

/// `PRMT.mode d, a, sel, b`: the PTX ISA's table of `prmt`'s modes, which
/// read the two low bits of `sel` only.
pub fn prmt_mode(a: u32, sel: u32, b: u32, mode: PrmtMode) -> u32 {
    let bytes = ((u64::from(b) << 32) | u64::from(a)).to_le_bytes();
    let c = sel & 3;
    (0..4u32).fold(0, |r, i| {
        let pick = match mode {
            PrmtMode::F4e => (c + i) & 7,
            PrmtMode::B4e => c.wrapping_sub(i) & 7,
            PrmtMode::Rc8 => c,
            PrmtMode::Ecl => i.max(c),
            PrmtMode::Ecr => i.min(c),
            PrmtMode::Rc16 => 2 * (c & 1) + (i & 1),
        };
        r | u32::from(bytes[pick as usize]) << (8 * i)
    })
}

/// `PRMT d, a, sel, b` (default mode): each selector nibble picks a byte of
/// `b:a` (0-3 from `a`, 4-7 from `b`); bit 3 replicates its sign bit.
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let bytes = ((u64::from(b) << 32) | u64::from(a)).to_le_bytes();
    let mut r = 0u32;
    for i in 0..4 {
        let nib = (sel >> (4 * i)) & 0xf;
        let byte = bytes[(nib & 7) as usize];
        let byte = if nib & 8 != 0 { if byte & 0x80 != 0 { 0xff } else { 0 } } else { byte };
        r |= u32::from(byte) << (8 * i);
    }
    r
}

/// Integer min (`min` true) or max, signed or unsigned.
pub fn imnmx(a: u64, b: u64, min: bool, signed: bool, wide: bool) -> u64 {
    let less = match (signed, wide) {
        (true, false) => (a as i32) < (b as i32),
        (false, false) => (a as u32) < (b as u32),
        (true, true) => (a as i64) < (b as i64),
        (false, true) => a < b,
    };
    if less == min { a } else { b }
}

/// `IMAD.WIDE`: the 64-bit `a * b + c`, signed or unsigned 32-bit factors.
pub fn imad_wide(a: u32, b: u32, c: u64, signed: bool) -> u64 {
    let p = if signed { (i64::from(a as i32) * i64::from(b as i32)) as u64 } else { u64::from(a) * u64::from(b) };
    p.wrapping_add(c)
}

/// `FLO`: the bit position of the most significant one (or of the most
/// significant bit differing from the sign for signed input); `!0` if none.
pub fn flo(x: u32, signed: bool, shift_amount: bool) -> u32 {
    let v = if signed && (x as i32) < 0 { !x } else { x };
    if v == 0 {
        return u32::MAX;
    }
    let pos = 31 - v.leading_zeros();
    if shift_amount { 31 - pos } else { pos }
}

/// `SGXT[.U32]`: the low `bits` bits of `a`, sign-extended from the top
/// one unless `signed` is false; a width of 0 gives 0 and one of 32 or
/// more keeps `a`. NVIDIA's `szext.clamp.{s32,u32} d, a, b` is `SGXT[.U32]
/// d, a, b` of the whole 32-bit `b`, which the PTX ISA defines so (and its
/// `bfe.{u32,s32}` is `SHF.R` by the position then `SGXT` by the length
/// byte, PTX's `bfe` under the same rule).
pub fn sgxt(a: u32, bits: u32, signed: bool) -> u32 {
    match bits {
        0 => 0,
        1..=31 if signed => ((a << (32 - bits)) as i32 >> (32 - bits)) as u32,
        1..=31 => a & ((1 << bits) - 1),
        _ => a,
    }
}

/// `I2I.<to>.S32.SAT d, a` (`to` `U8`, `S8`, `U16` or `S16`): the signed
/// word `a` clamped to the range of `to` (NVIDIA's `cvt.sat.TO.s32`).
/// Above the low `bits` bits the result is the clamped value's extension
/// (zero for unsigned `to`, the sign for signed): NVIDIA's code reads an
/// unsigned result whole (`cvt.sat.u8.s32` stores `I2I.U8.S32.SAT` as a
/// 32-bit word), but never the upper bits of a signed one without
/// `PRMT 0x8880`/`0x9910` or `LOP3 & 0xffff` first (ptxas 13.5, sm_75 ..
/// sm_90), so those bits are not measured.
pub fn i2i_sat(a: u32, signed: bool, bits: u8) -> u32 {
    let bits = u32::from(bits.clamp(1, 31));
    let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    i64::from(a as i32).clamp(lo, hi) as i32 as u32
}

/// `BMSK[.W] d, pos, width`: PTX's `bmsk.{clamp,wrap}.b32` (one `BMSK` in
/// NVIDIA's code): `width` ones from bit `pos`; `.W` takes both modulo 32,
/// the clamping form gives no bits from a position of 32 or more and all
/// bits above `pos` for a width of 32 or more.
pub fn bmsk(pos: u32, width: u32, wrap: bool) -> u32 {
    let (p, w) = (pos & 31, width & 31);
    let clamp_pos = !wrap && pos >= 32;
    let clamp_width = !wrap && width >= 32;
    let low = if clamp_pos { 0 } else { u32::MAX << p };
    let high = if p + w >= 32 || clamp_pos || clamp_width {
        0
    } else if w == 0 {
        u32::MAX
    } else {
        u32::MAX << (p + w)
    };
    low & !high
}

/// `IDP.4A` / `IDP.2A.{LO,HI}` (PTX `dp4a`, `dp2a`): `c` plus the products
/// of a's four bytes with b's (`.2A`: a's two halves with b's low or high
/// byte pair), each extended by its signedness, modulo 2^32.
pub fn idp(a: u32, b: u32, c: u32, two: bool, hi: bool, a_signed: bool, b_signed: bool) -> u32 {
    let ext = |v: u32, bits: u32, signed: bool| -> i64 {
        let v = v & ((1u32 << bits) - 1);
        if signed && v >> (bits - 1) != 0 { i64::from(v) - (1i64 << bits) } else { i64::from(v) }
    };
    let (lanes, a_bits) = if two { (2, 16) } else { (4, 8) };
    let b_from = if two && hi { 2 } else { 0 };
    let sum: i64 =
        (0..lanes).map(|i| ext(a >> (a_bits * i), a_bits, a_signed) * ext(b >> (8 * (i + b_from)), 8, b_signed)).sum();
    (i64::from(c) + sum) as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn dot_products() {
        assert_eq!(super::idp(0x0102_0304, 0x0101_0101, 10, false, false, false, false), 20);
        assert_eq!(super::idp(0xff, 0x02, 0, false, false, true, true), 0xffff_fffe);
        assert_eq!(super::idp(0xff, 0x02, 0, false, false, false, true), 510);
        assert_eq!(super::idp(0x0003_fffe, 0x0706_0504, 1, true, false, true, true), 8);
        assert_eq!(super::idp(0x0003_fffe, 0x0706_0504, 0, true, true, true, true), 9);
    }

    #[test]
    fn i2i_clamps_a_signed_word() {
        assert_eq!(super::i2i_sat(0x8000_0000, true, 8), 0xffff_ff80);
        assert_eq!(super::i2i_sat(0x7fff_ffff, true, 8), 0x7f);
        assert_eq!(super::i2i_sat(0xffff_ff85, true, 8), 0xffff_ff85);
        assert_eq!(super::i2i_sat(0xffff_ffff, false, 8), 0);
        assert_eq!(super::i2i_sat(0x100, false, 8), 0xff);
        assert_eq!(super::i2i_sat(0x1_0000, false, 16), 0xffff);
        assert_eq!(super::i2i_sat(0xffff_0000, true, 16), 0xffff_8000);
        assert_eq!(super::i2i_sat(0x1234, true, 16), 0x1234);
    }

    #[test]
    fn sgxt_extends_the_low_bits() {
        assert_eq!(super::sgxt(0x1234_56ff, 7, false), 0x7f);
        assert_eq!(super::sgxt(0x40, 7, true), 0xffff_ffc0);
        assert_eq!(super::sgxt(0x3f, 7, true), 0x3f);
        assert_eq!(super::sgxt(5, 0, false), 0);
        assert_eq!(super::sgxt(0x8000_0001, 40, true), 0x8000_0001);
        assert_eq!(super::sgxt(5, 256, false), 5);
        assert_eq!(super::sgxt(0x8000_0001, u32::MAX, true), 0x8000_0001);
    }

    #[test]
    fn prmt_modes_follow_the_ptx_table() {
        use super::{PrmtMode::*, prmt_mode};
        // b:a = bytes 7..0 = 0x77..0x00, so each result byte names its source.
        let (a, b) = (0x3322_1100, 0x7766_5544);
        assert_eq!(prmt_mode(a, 1, b, F4e), 0x4433_2211);
        assert_eq!(prmt_mode(a, 0, b, B4e), 0x5566_7700);
        assert_eq!(prmt_mode(a, 3, b, B4e), 0x0011_2233);
        assert_eq!(prmt_mode(a, 2, b, Rc8), 0x2222_2222);
        assert_eq!(prmt_mode(a, 1, b, Ecl), 0x3322_1111);
        assert_eq!(prmt_mode(a, 2, b, Ecr), 0x2222_1100);
        assert_eq!(prmt_mode(a, 1, b, Rc16), 0x3322_3322);
        assert_eq!(prmt_mode(a, 0x7, b, F4e), prmt_mode(a, 3, b, F4e));
    }

    #[test]
    fn bmsk_follows_the_ptx_semantics() {
        assert_eq!(super::bmsk(1, 2, true), 6);
        assert_eq!(super::bmsk(4, 0, false), 0);
        assert_eq!(super::bmsk(28, 8, false), 0xf000_0000);
        assert_eq!(super::bmsk(4, 40, false), 0xffff_fff0);
        assert_eq!(super::bmsk(4, 40, true), 0xff0);
        assert_eq!(super::bmsk(33, 3, false), 0);
        assert_eq!(super::bmsk(33, 3, true), 0xe);
    }

    use super::*;

    #[test]
    fn lop3_tables() {
        assert_eq!(lop3(0b1100, 0b1010, 0, 0xc0), 0b1000); // a & b
        assert_eq!(lop3(0b1100, 0b1010, 0, 0xfc), 0b1110); // a | b
        assert_eq!(lop3(0, 0x0f, 0, 0x33), !0x0f); // ~b
        assert_eq!(lop3(0b1100, 0b1010, 0, 0x3c), 0b0110); // a ^ b
    }

    #[test]
    fn shifts_and_lea() {
        assert_eq!(shf(0, 0x80, 5, false, false, false, true), 4);
        assert_eq!(shf(0, 0x8000_0000, 4, false, true, false, true), 0xf800_0000);
        assert_eq!(lea(3, 0x400, 2, 0), (0x40c, false));
        assert_eq!(lea_hi(0xffff_fffe, 7, 0xffff_ffff, 1, 1), 7); // sign part -1, + 7 + carry
        assert_eq!(prmt(0x4433_2211, 0x7610, 0x8877_6655), 0x8877_2211);
    }

    #[test]
    fn wide_products() {
        assert_eq!(imad_wide(0xffff_ffff, 4, 0x1000, true), 0xffc);
        assert_eq!(iadd3(negated(0), 5, 0, 0), (5, 1));
    }
}
