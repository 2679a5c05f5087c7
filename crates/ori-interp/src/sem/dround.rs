//! `DADD`, `DMUL`, `DFMA` with directed rounding (`.RZ`, `.RM`, `.RP`), as
//! ptxas's f64 division and square-root sequences use them. The host only
//! rounds to nearest, so the exact result is compared with the nearest one
//! in wide integer arithmetic (every binary64 product and sum fits 4,480
//! bits) and the result moved by one unit where the direction requires it.

use std::cmp::Ordering;

use super::float::{NAN64, Round};

/// Limbs of the exact accumulator.
const LIMBS: usize = 70;
/// Bit `i` of the accumulator weighs 2^(i - BIAS): the smallest product of
/// two subnormals, 2^-2148, lands on bit 52.
const BIAS: i32 = 2200;

/// A nonnegative value, `sum(limb[k] << 64k) * 2^-BIAS`.
type Big = [u64; LIMBS];

/// Adds `m * 2^e` to `acc`.
fn add(acc: &mut Big, m: u128, e: i32) {
    let at = (e + BIAS) as u32;
    let (limb, bit) = ((at / 64) as usize, at % 64);
    // m << bit spans at most three limbs.
    let lo = (m << bit) as u64;
    let mid = ((m << bit) >> 64) as u64;
    let hi = if bit == 0 { 0 } else { (m >> (128 - bit)) as u64 };
    let mut carry = 0u64;
    for (k, word) in [lo, mid, hi].into_iter().enumerate().chain((3..).map(|k| (k, 0))) {
        let i = limb + k;
        if i >= LIMBS || (k >= 3 && carry == 0) {
            break;
        }
        let (s, c1) = acc[i].overflowing_add(word);
        let (s, c2) = s.overflowing_add(carry);
        acc[i] = s;
        carry = u64::from(c1) + u64::from(c2);
    }
}

fn compare(a: &Big, b: &Big) -> Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// A finite binary64 as (negative, m, e) with value `m * 2^e`.
fn split(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
    (bits >> 63 == 1, m, e)
}

/// The neighbour of finite `x` towards +infinity (`up`) or -infinity.
fn step(x: f64, up: bool) -> f64 {
    if x == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let away = (x > 0.0) == up;
    f64::from_bits(if away { x.to_bits() + 1 } else { x.to_bits() - 1 })
}

/// `a * b + c` (`a * b` when `c` is `None`) rounded as `mode` says.
pub fn dfma_rounded(a: u64, b: u64, c: Option<u64>, mode: Round) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), c.map(f64::from_bits));
    let nearest = match z {
        Some(z) => x.mul_add(y, z),
        None => x * y,
    };
    if nearest.is_nan() {
        return NAN64;
    }
    let finite = x.is_finite() && y.is_finite() && z.is_none_or(f64::is_finite);
    if mode == Round::Nearest || !finite {
        return nearest.to_bits();
    }
    // The exact a*b + c and the nearest result, as sums of positive and of
    // negative terms.
    let (mut pos, mut neg) = ([0u64; LIMBS], [0u64; LIMBS]);
    let (sx, mx, ex) = split(x);
    let (sy, my, ey) = split(y);
    let product_negative = sx != sy;
    let mut terms = vec![(product_negative, u128::from(mx) * u128::from(my), ex + ey)];
    if let Some(z) = z {
        let (sz, mz, ez) = split(z);
        terms.push((sz, u128::from(mz), ez));
    }
    for &(negative, m, e) in &terms {
        add(if negative { &mut neg } else { &mut pos }, m, e);
    }
    let exact = compare(&pos, &neg);
    if exact == Ordering::Equal {
        // An exact zero: the operands' sign when they agree, else -0 when
        // rounding down and +0 otherwise (IEEE 754 6.3).
        let signs_agree = z.is_none_or(|z| z.is_sign_negative() == product_negative);
        let negative = if signs_agree { product_negative } else { mode == Round::Down };
        return if negative { (-0.0f64).to_bits() } else { 0 };
    }
    if nearest.is_infinite() {
        // Overflow: the largest finite value where the direction stops short.
        let positive = nearest > 0.0;
        let keep = match mode {
            Round::Up => positive,
            Round::Down => !positive,
            _ => false,
        };
        return if keep { nearest.to_bits() } else { f64::MAX.copysign(nearest).to_bits() };
    }
    let (sr, mr, er) = split(nearest);
    if mr != 0 {
        // exact - nearest: the nearest value joins the other side.
        add(if sr { &mut pos } else { &mut neg }, u128::from(mr), er);
    }
    let residual = compare(&pos, &neg);
    let r = match (residual, mode) {
        (Ordering::Equal, _) => nearest,
        (Ordering::Greater, Round::Up) => step(nearest, true),
        (Ordering::Less, Round::Down) => step(nearest, false),
        (Ordering::Greater, Round::Zero) if nearest < 0.0 || (nearest == 0.0 && exact == Ordering::Less) => {
            step(nearest, true)
        }
        (Ordering::Less, Round::Zero) if nearest > 0.0 || (nearest == 0.0 && exact == Ordering::Greater) => {
            step(nearest, false)
        }
        _ => nearest,
    };
    // Rounding a nonzero value towards zero may reach zero: keep its sign.
    if r == 0.0 { (if exact == Ordering::Less { -0.0f64 } else { 0.0f64 }).to_bits() } else { r.to_bits() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn directed_roundings_bracket_the_exact_value() {
        let third = dfma_rounded(f(1.0), f(1.0 / 3.0), None, Round::Nearest);
        assert_eq!(third, f(1.0 / 3.0));
        // 1/3 is below the exact third in binary64 (…5555 rounds down).
        let x = f(1.0 / 3.0);
        let three = f(3.0);
        // 3 * (1/3 rounded) = 1 - 2^-54: below one.
        assert_eq!(dfma_rounded(x, three, None, Round::Nearest), f(1.0));
        assert_eq!(dfma_rounded(x, three, None, Round::Down), f(1.0 - f64::EPSILON / 2.0));
        assert_eq!(dfma_rounded(x, three, None, Round::Zero), f(1.0 - f64::EPSILON / 2.0));
        assert_eq!(dfma_rounded(x, three, None, Round::Up), f(1.0));
        let minus = f(-3.0);
        assert_eq!(dfma_rounded(x, minus, None, Round::Up), f(-1.0 + f64::EPSILON / 2.0));
        assert_eq!(dfma_rounded(x, minus, None, Round::Down), f(-1.0));
        // Exact zeros: -0 only when rounding down.
        assert_eq!(dfma_rounded(f(1.0), f(2.0), Some(f(-2.0)), Round::Down), f(-0.0));
        assert_eq!(dfma_rounded(f(1.0), f(2.0), Some(f(-2.0)), Round::Zero), f(0.0));
        // Overflow and underflow.
        assert_eq!(dfma_rounded(f(f64::MAX), f(2.0), None, Round::Zero), f(f64::MAX));
        assert_eq!(dfma_rounded(f(f64::MAX), f(2.0), None, Round::Up), f(f64::INFINITY));
        assert_eq!(dfma_rounded(f(-f64::MAX), f(2.0), None, Round::Up), f(-f64::MAX));
        let tiny = f(f64::from_bits(1));
        assert_eq!(dfma_rounded(tiny, f(0.5), None, Round::Up), tiny);
        assert_eq!(dfma_rounded(tiny, f(0.5), None, Round::Zero), f(0.0));
        assert_eq!(dfma_rounded(tiny, f(-0.5), None, Round::Zero), f(-0.0));
        assert_eq!(dfma_rounded(tiny, f(-0.5), None, Round::Down), f(-f64::from_bits(1)));
        // A tiny addend decides the direction of a large sum.
        assert_eq!(dfma_rounded(f(1.0), f(1.0), Some(tiny), Round::Up), f(1.0 + f64::EPSILON));
        assert_eq!(dfma_rounded(f(1.0), f(1.0), Some(f(-f64::from_bits(1))), Round::Zero), f(1.0 - f64::EPSILON / 2.0));
    }
}
