//! IEEE binary32/binary64 arithmetic as the SASS FP32/FP64 pipes do it.
//!
//! Assumptions (docs/ori-interp.md): results are rounded to nearest even
//! unless a directed mode is given; a NaN result is the canonical NaN
//! `0x7fffffff` (the hardware does not propagate payloads); `.FTZ` flushes
//! subnormal inputs and outputs to zero of the same sign.

/// The canonical NaN the FP32 pipe returns.
pub const NAN32: u32 = 0x7fff_ffff;
/// The canonical NaN of the FP64 pipe.
pub const NAN64: u64 = 0xffff_ffff_ffff_ffff >> 1;

/// A rounding mode (`.RN`, `.RZ`, `.RM`, `.RP`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Round {
    /// To nearest, ties to even.
    #[default]
    Nearest,
    /// Towards zero.
    Zero,
    /// Towards minus infinity.
    Down,
    /// Towards plus infinity.
    Up,
}

impl Round {
    /// The mode named by modifier `name`.
    pub fn from_name(name: &str) -> Option<Round> {
        Some(match name {
            "RN" => Round::Nearest,
            "RZ" | "TRUNC" => Round::Zero,
            "RM" | "FLOOR" => Round::Down,
            "RP" | "CEIL" => Round::Up,
            _ => return None,
        })
    }
}

/// Flushes a subnormal to zero of the same sign.
pub fn ftz(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x }
}

/// Applies `|x|` then `-x` to binary32 bits (sign-bit operations, as the
/// hardware's operand modifiers are).
pub fn modify(x: u32, abs: bool, neg: bool) -> u32 {
    let x = if abs { x & 0x7fff_ffff } else { x };
    if neg { x ^ 0x8000_0000 } else { x }
}

/// Rounds an f64 that holds an exactly representable intermediate (or the
/// correctly rounded result of a wider operation) to binary32 in `mode`.
pub fn round_to_f32(x: f64, mode: Round) -> f32 {
    let r = x as f32;
    let rd = f64::from(r);
    if mode == Round::Nearest || rd == x || x.is_nan() {
        return r;
    }
    let toward_up = match mode {
        Round::Up => true,
        Round::Down => false,
        Round::Zero => x < 0.0,
        Round::Nearest => unreachable!("handled above"),
    };
    match (toward_up, rd < x) {
        (true, true) => r.next_up(),
        (false, false) => r.next_down(),
        _ => r,
    }
}

fn finish(r: f32, flush: bool) -> u32 {
    if r.is_nan() {
        return NAN32;
    }
    if flush { ftz(r.to_bits()) } else { r.to_bits() }
}

fn inputs(a: u32, flush: bool) -> f32 {
    f32::from_bits(if flush { ftz(a) } else { a })
}

/// Rounds the exact sum `p + c` of two f64 values to binary32 in `mode`.
/// The f64 sum `s` lies in the same gap between binary32 values as the
/// exact sum unless it lands on one of them; then the exact error of the
/// f64 addition (TwoSum) says which way the exact value lies.
fn round_sum_to_f32(p: f64, c: f64, mode: Round) -> f32 {
    let s = p + c;
    let r = round_to_f32(s, mode);
    if !s.is_finite() || f64::from(r) != s {
        return r;
    }
    let bc = s - p;
    let err = (p - (s - bc)) + (c - bc);
    let up = match mode {
        Round::Nearest => return r,
        Round::Up => err > 0.0,
        Round::Down => return if err < 0.0 { r.next_down() } else { r },
        Round::Zero => s < 0.0 && err > 0.0,
    };
    if up {
        r.next_up()
    } else if mode == Round::Zero && s > 0.0 && err < 0.0 {
        r.next_down()
    } else {
        r
    }
}

/// `FADD`.
pub fn fadd(a: u32, b: u32, flush: bool, mode: Round) -> u32 {
    let (x, y) = (inputs(a, flush), inputs(b, flush));
    let r = if mode == Round::Nearest { x + y } else { round_sum_to_f32(f64::from(x), f64::from(y), mode) };
    finish(r, flush)
}

/// `FMUL` (the product of two binary32 values is exact in f64).
pub fn fmul(a: u32, b: u32, flush: bool, mode: Round) -> u32 {
    let (x, y) = (inputs(a, flush), inputs(b, flush));
    let r = if mode == Round::Nearest { x * y } else { round_to_f32(f64::from(x) * f64::from(y), mode) };
    finish(r, flush)
}

/// `FMUL.D8`..`.M8`: the product times `2^scale`, rounded once (the
/// product of two binary32 values and its scaling are exact in f64).
/// Scaling before the rounding is our reading; it only matters where the
/// result underflows or overflows.
pub fn fmul_scaled(a: u32, b: u32, scale: i8, flush: bool, mode: Round) -> u32 {
    let (x, y) = (inputs(a, flush), inputs(b, flush));
    let exact = f64::from(x) * f64::from(y) * 2f64.powi(i32::from(scale));
    finish(round_to_f32(exact, mode), flush)
}

/// `FFMA`: fused, one rounding (the product of two binary32 values is
/// exact in f64; directed modes round the exact sum).
pub fn ffma(a: u32, b: u32, c: u32, flush: bool, mode: Round) -> u32 {
    let (x, y, z) = (inputs(a, flush), inputs(b, flush), inputs(c, flush));
    let r = if mode == Round::Nearest {
        x.mul_add(y, z)
    } else {
        round_sum_to_f32(f64::from(x) * f64::from(y), f64::from(z), mode)
    };
    finish(r, flush)
}

/// `FMNMX`: a NaN operand yields the other; -0 is below +0.
pub fn fmnmx(a: u32, b: u32, min: bool, flush: bool) -> u32 {
    let (x, y) = (inputs(a, flush), inputs(b, flush));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => NAN32,
        (true, false) => y.to_bits(),
        (false, true) => x.to_bits(),
        _ => {
            let take_x = if x == y {
                // Equal values differ only in the sign of zero.
                (x.is_sign_negative()) == min
            } else {
                (x < y) == min
            };
            if take_x { x.to_bits() } else { y.to_bits() }
        }
    }
}

/// Ordering for `FSETP` (`None` when unordered).
pub fn fcmp(a: u32, b: u32, flush: bool) -> Option<std::cmp::Ordering> {
    inputs(a, flush).partial_cmp(&inputs(b, flush))
}

/// `I2F`/`I2FP` to binary32 from a 32- or 64-bit integer.
pub fn i2f(x: i128, mode: Round) -> u32 {
    // Below 2^53 the binary64 value is exact, and rounding it once is right.
    if x.unsigned_abs() < 1 << 53 { round_to_f32(x as f64, mode).to_bits() } else { wide_i2f(x, mode) }
}

/// `I2F.F16`: an integer to binary16 bits. Below 2^24 the binary32 value
/// is exact and `minifloat::convert` rounds it once; from 2^24 on every
/// mode gives the same overflow result for the value truncated to
/// binary32 as for the integer (binary16's largest finite is 65504).
pub fn i2h(x: i128, mode: Round) -> u16 {
    let f = f32::from_bits(i2f(x, Round::Zero));
    super::minifloat::convert(f, super::minifloat::F16, mode, false) as u16
}

/// The low `bits` bits of `v`, sign- or zero-extended (an integer
/// conversion's source).
pub fn extend(v: u64, bits: u8, signed: bool) -> i128 {
    let shift = 128 - u32::from(bits);
    let v = i128::from(v) << shift;
    if signed { v >> shift } else { ((v as u128) >> shift) as i128 }
}

/// An integer to binary64: exact up to 53 bits; wider ones round to
/// nearest, then step one ulp where a directed mode needs it.
pub fn i2d(x: i128, mode: Round) -> f64 {
    let r = x as f64;
    let back = r as i128;
    let up = match mode {
        Round::Nearest => return r,
        Round::Up => true,
        Round::Down => false,
        Round::Zero => x < 0,
    };
    match (up, back.cmp(&x)) {
        (true, std::cmp::Ordering::Less) => r.next_up(),
        (false, std::cmp::Ordering::Greater) => r.next_down(),
        _ => r,
    }
}

/// A 64-bit integer to binary32: round to nearest, then step one ulp
/// where a directed mode needs it (the comparison is exact in i128).
fn wide_i2f(x: i128, mode: Round) -> u32 {
    let r = x as f32;
    let back = r as i128;
    let up = match mode {
        Round::Nearest => return r.to_bits(),
        Round::Up => true,
        Round::Down => false,
        Round::Zero => x < 0,
    };
    let r = match (up, back.cmp(&x)) {
        (true, std::cmp::Ordering::Less) => r.next_up(),
        (false, std::cmp::Ordering::Greater) => r.next_down(),
        _ => r,
    };
    r.to_bits()
}

/// `F2I` from binary32: rounds in `mode`, saturates, NaN becomes 0.
pub fn f2i(a: u32, signed: bool, bits: u8, mode: Round, flush: bool) -> u64 {
    f64_to_int(f64::from(inputs(a, flush)), signed, bits, mode)
}

/// `F2I` from binary64 (and the common part of binary32's): rounds in
/// `mode`, saturates to the integer type, NaN becomes 0.
pub fn f64_to_int(x: f64, signed: bool, bits: u8, mode: Round) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = frnd(x, mode);
    match (signed, bits) {
        (true, 64) => (r as i64) as u64,
        (false, 64) => r as u64,
        // Narrow results are extended to the register: sign- or zero-.
        (true, _) => {
            let max = f64::from((1u32 << (bits - 1)) - 1);
            r.clamp(-max - 1.0, max) as i32 as u32 as u64
        }
        (false, _) => r.clamp(0.0, f64::from(u32::MAX >> (32 - u32::from(bits)))) as u32 as u64,
    }
}

/// `FRND` (and F2I's rounding): to an integral value in `mode`.
pub fn frnd(x: f64, mode: Round) -> f64 {
    match mode {
        Round::Nearest => x.round_ties_even(),
        Round::Zero => x.trunc(),
        Round::Down => x.floor(),
        Round::Up => x.ceil(),
    }
}

/// `.SAT`: clamps to [0, 1]; NaN becomes +0.
pub fn saturate(bits: u32, sat: bool) -> u32 {
    if !sat {
        return bits;
    }
    let x = f32::from_bits(bits);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        1f32.to_bits()
    } else {
        bits
    }
}

/// `FCHK.DIVIDE a, b`: true when the fast division sequence (reciprocal,
/// product, FFMA refinement) might not give the correctly rounded `a / b`,
/// so that ptxas's code takes its exact subroutine instead. The hardware's
/// exact criterion is not documented; this one is conservative: any
/// operand that is zero, subnormal, infinite or NaN, or exponents near the
/// range limits where the reciprocal, the quotient or the refinement's
/// residual (about `a * 2^-24`) could leave the normal range. A false
/// `true` only costs the slow (but exact) path.
pub fn fchk(a: u32, b: u32) -> bool {
    let exp = |x: u32| ((x >> 23) & 0xff) as i32 - 127;
    let normal = |x: u32| (1..0xff).contains(&((x >> 23) & 0xff));
    let (ea, eb) = (exp(a), exp(b));
    let safe = normal(a)
        && normal(b)
        && (-100..126).contains(&ea)
        && (-125..125).contains(&eb)
        && (-124..126).contains(&(ea - eb));
    !safe
}

/// `DADD`, `DMUL`, `DFMA` (round to nearest).
pub fn dfma(a: u64, b: u64, c: u64) -> u64 {
    canon64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)))
}

/// `DADD`.
pub fn dadd(a: u64, b: u64) -> u64 {
    canon64(f64::from_bits(a) + f64::from_bits(b))
}

/// `DMUL`.
pub fn dmul(a: u64, b: u64) -> u64 {
    canon64(f64::from_bits(a) * f64::from_bits(b))
}

fn canon64(r: f64) -> u64 {
    if r.is_nan() { NAN64 } else { r.to_bits() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IEEE binary16 results of integers: exact below 2048, ties to even
    /// and directed steps above, overflow at 65520 (nearest) but not
    /// toward zero.
    #[test]
    fn integers_to_binary16() {
        assert_eq!(i2h(1, Round::Nearest), 0x3c00);
        assert_eq!(i2h(-3, Round::Nearest), 0xc200);
        assert_eq!(i2h(2049, Round::Nearest), 0x6800);
        assert_eq!(i2h(2051, Round::Nearest), 0x6802);
        assert_eq!(i2h(2049, Round::Up), 0x6801);
        assert_eq!(i2h(-2049, Round::Down), 0xe801);
        assert_eq!(i2h(65504, Round::Nearest), 0x7bff);
        assert_eq!(i2h(65519, Round::Nearest), 0x7bff);
        assert_eq!(i2h(65520, Round::Nearest), 0x7c00);
        assert_eq!(i2h(1 << 40, Round::Zero), 0x7bff);
        assert_eq!(i2h(-(1 << 40), Round::Down), 0xfc00);
    }

    #[test]
    fn nan_and_zero_rules() {
        let nan = f32::NAN.to_bits();
        assert_eq!(fmnmx(nan, 1.0f32.to_bits(), true, false), 1.0f32.to_bits());
        assert_eq!(fmnmx(0.0f32.to_bits(), (-0.0f32).to_bits(), true, false), (-0.0f32).to_bits());
        assert_eq!(fadd(f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits(), false, Round::Nearest), NAN32);
        assert_eq!(fmul(1, 0x3f80_0000, true, Round::Nearest), 0);
    }

    #[test]
    fn directed_sums() {
        let (one, tiny) = (1f32.to_bits(), 1e-30f32.to_bits());
        assert_eq!(fadd(one, tiny, false, Round::Up), 1f32.next_up().to_bits());
        assert_eq!(fadd(one, tiny, false, Round::Down), one);
        assert_eq!(fadd(one, tiny | 1 << 31, false, Round::Zero), 1f32.next_down().to_bits());
        // The softmax range reduction: FFMA.RM x, log2e, 12582913.0.
        let r = ffma(0.3f32.to_bits(), std::f32::consts::LOG2_E.to_bits(), 12582913f32.to_bits(), false, Round::Down);
        assert_eq!(r, 12582913f32.to_bits());
        assert_eq!(ffma(one, one, tiny, false, Round::Up), 1f32.next_up().to_bits());
    }

    #[test]
    fn division_check() {
        assert!(!fchk(3f32.to_bits(), 7f32.to_bits()));
        assert!(fchk(3f32.to_bits(), 0));
        assert!(fchk(1e-38f32.to_bits(), 7f32.to_bits()));
        assert!(fchk(1e38f32.to_bits(), 1e-5f32.to_bits()));
    }

    #[test]
    fn conversions() {
        assert_eq!(i2f(16_777_217, Round::Up), 16_777_218f32.to_bits());
        assert_eq!(i2f(16_777_217, Round::Nearest), 16_777_216f32.to_bits());
        assert_eq!(i2f(u64::MAX.into(), Round::Zero), 0x5f7f_ffff);
        assert_eq!(i2f((1 << 40) + 1, Round::Up), ((1u64 << 40) as f32).next_up().to_bits());
        assert_eq!(i2d((1 << 60) + 1, Round::Up), ((1u64 << 60) as f64).next_up());
        assert_eq!(extend(0x1_ff80, 8, true), -128);
        assert_eq!(extend(0x1_ff80, 16, false), 0xff80);
        assert_eq!(f2i((-1.5f32).to_bits(), true, 32, Round::Zero, false), (-1i32) as u32 as u64);
        assert_eq!(f2i(300f32.to_bits(), false, 8, Round::Zero, false), 255);
        assert_eq!(f2i((-300f32).to_bits(), true, 16, Round::Zero, false), (-300i32) as u32 as u64);
        assert_eq!(f2i(f32::NAN.to_bits(), true, 32, Round::Zero, false), 0);
    }
}
