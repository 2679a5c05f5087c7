//! binary16 lanes of packed registers (HFMA2, HADD2, HMUL2).

/// binary16 bits to f32 (exact).
pub fn to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from(h >> 10 & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => return f32::from_bits(sign) + (m as f32) * 2f32.powi(-24) * if sign != 0 { -1.0 } else { 1.0 },
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// f64 to binary16, round to nearest even.
pub fn from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Scale so that the result's last mantissa bit has weight 1, round,
    // and rebuild: subnormals have a fixed weight of 2^-24.
    let e = if a < 2f64.powi(-14) { -14 } else { a.log2().floor() as i32 };
    let ulp = 2f64.powi(e - 10);
    let q = (a / ulp).round_ties_even() * ulp;
    if q == 0.0 {
        return sign;
    }
    let qe = if q < 2f64.powi(-14) { -15 } else { q.log2().floor() as i32 };
    if qe < -14 {
        return sign | (q / 2f64.powi(-24)) as u16;
    }
    let man = ((q / 2f64.powi(qe) - 1.0) * 1024.0) as u16;
    sign | (((qe + 15) as u16) << 10) | man
}

/// f64 to binary16, rounded toward zero: nearest is within one step, so a
/// result larger in magnitude than `x` steps back (overflow gives the
/// largest finite value, an infinite `x` stays infinite).
pub fn from_f64_rz(x: f64) -> u16 {
    let h = from_f64(x);
    if !x.is_nan() && f64::from(to_f32(h)).abs() > x.abs() { h - 1 } else { h }
}

/// binary32 bits to bfloat16, round to nearest even (NaN stays a NaN).
pub fn bf16_from_f32(x: u32) -> u16 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        return 0x7fff;
    }
    let rounded = x + 0x7fff + (x >> 16 & 1);
    (rounded >> 16) as u16
}

/// f64 to bfloat16, round to nearest even (NaN stays a NaN).
pub fn bf16_from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    // 8 significant bits; below 2^-126 the last bit weighs 2^-133.
    let e = a.log2().floor().max(-126.0) as i32;
    let ulp = 2f64.powi(e - 7);
    let q = (a / ulp).round_ties_even() * ulp;
    if q >= 2f64.powi(128) {
        return sign | 0x7f80;
    }
    sign | ((q as f32).to_bits() >> 16) as u16
}

/// One lane of `HMNMX2`: the minimum (`min`) or maximum of two lanes, a
/// NaN only when both are (binary16 or bfloat16 bits).
pub fn min_max(a: f64, b: f64, min: bool, bf16: bool) -> u16 {
    let pick = match (a.is_nan(), b.is_nan()) {
        (true, true) => return 0x7fff,
        (true, false) => b,
        (false, true) => a,
        _ if a == b => {
            if (a.is_sign_negative()) == min {
                a
            } else {
                b
            }
        }
        _ => {
            if (a < b) == min {
                a
            } else {
                b
            }
        }
    };
    if bf16 { bf16_from_f64(pick) } else { from_f64(pick) }
}

/// One lane of `HFMA2`: `a * b + c` with one rounding to binary16 (the
/// product and sum of binary16 values are exact in f64).
pub fn fma(a: u16, b: u16, c: u16) -> u16 {
    from_f64(f64::from(to_f32(a)) * f64::from(to_f32(b)) + f64::from(to_f32(c)))
}

/// An 8-bit float as binary16 (exact): E5M2 is binary16's high byte; E4M3
/// (bias 7, no infinities) is scaled into binary16's range. `None` for an
/// E4M3 NaN (`S.1111.111`), whose binary16 pattern on the GPU is unknown.
pub fn fp8_to_f16(b: u8, e4m3: bool) -> Option<u16> {
    if !e4m3 {
        return Some(u16::from(b) << 8);
    }
    let (sign, exp, man) = (b >> 7, (b >> 3) & 0xf, b & 7);
    if exp == 0xf && man == 7 {
        return None;
    }
    // Subnormals (exp 0) are man * 2^-9; normals (1 + man/8) * 2^(exp-7).
    let magnitude = if exp == 0 {
        f64::from(man) * 2f64.powi(-9)
    } else {
        (1.0 + f64::from(man) / 8.0) * 2f64.powi(i32::from(exp) - 7)
    };
    Some(from_f64(magnitude) | u16::from(sign) << 15)
}

/// The lanewise sum of two packed pairs of binary16 (or, with `bf16`,
/// bfloat16) values, rounded to nearest even without flushing subnormals:
/// `ATOMG`/`RED` `.ADD.F16x2.RN` / `.BF16x2.RN`.
pub fn add2(a: u32, b: u32, bf16: bool) -> u32 {
    let value = |h: u32| {
        let h = (h & 0xffff) as u16;
        if bf16 { f64::from(f32::from_bits(u32::from(h) << 16)) } else { f64::from(to_f32(h)) }
    };
    let lane = |k: u32| {
        let sum = value(a >> k) + value(b >> k);
        u32::from(if bf16 { bf16_from_f64(sum) } else { from_f64(sum) }) << k
    };
    lane(0) | lane(16)
}

#[cfg(test)]
mod tests {
    /// Lanewise sums of packed halves: rounding to even, subnormals kept,
    /// overflow to infinity, bfloat16 lanes.
    #[test]
    fn add2_rounds_each_lane() {
        // 1 + 2 = 3 (low lane), 2^-24 + 2^-24 = 2^-23 (high lane).
        assert_eq!(super::add2(0x0001_3c00, 0x0001_4000, false), 0x0002_4200);
        // 65504 + 65504 overflows; 1 + 2^-11 ties to 1.
        assert_eq!(super::add2(0x3c00_7bff, 0x1000_7bff, false), 0x3c00_7c00);
        // 1 + -1 = +0; bfloat16 1 + 1 = 2, 1 + 2^-8 ties to 1.
        assert_eq!(super::add2(0x3c00_3c00, 0x0000_bc00, false), 0x3c00_0000);
        assert_eq!(super::add2(0x3f80_3f80, 0x3b80_3f80, true), 0x3f80_4000);
    }

    use super::*;

    #[test]
    fn toward_zero() {
        assert_eq!(from_f64_rz(65519.0), 0x7bff);
        assert_eq!(from_f64_rz(1e9), 0x7bff);
        assert_eq!(from_f64_rz(f64::NEG_INFINITY), 0xfc00);
        assert_eq!(from_f64_rz(1.0 + 0.9 * 2f64.powi(-10)), 0x3c00);
        assert_eq!(from_f64_rz(-1.99999), 0xbfff);
        assert_eq!(from_f64_rz(-1e-8), 0x8000);
        assert_eq!(from_f64_rz(3.0), 0x4200);
    }

    #[test]
    fn round_trips() {
        for h in [0u16, 0x0004, 0x3c00, 0xbc00, 0x7bff, 0x0400, 0x03ff, 0x8001] {
            assert_eq!(from_f64(f64::from(to_f32(h))), h, "{h:#x}");
        }
        assert_eq!(fma(0x3c00, 0x4000, 0x3c00), 0x4200); // 1*2+1 = 3
        // bfloat16: ties to even, overflow to infinity, NaN.
        assert_eq!(bf16_from_f32(0x3f80_8000), 0x3f80);
        assert_eq!(bf16_from_f32(0x3f81_8000), 0x3f82);
        assert_eq!(bf16_from_f32(0x7f7f_ffff), 0x7f80);
        assert_eq!(bf16_from_f32(0xff80_0001), 0x7fff);
        for bits in [0x3f80_8000u32, 0x3f81_8000, 0xc080_0000, 0x0000_8001, 0x7f7f_ffff, 0x3eaa_aaab] {
            assert_eq!(bf16_from_f64(f64::from(f32::from_bits(bits))), bf16_from_f32(bits), "{bits:#x}");
        }
        assert_eq!(min_max(-4.0, 1.5, false, true), 0x3fc0);
    }

    #[test]
    fn fp8_values() {
        // E4M3: 1.0 (0x38), -448 (0xfe, the largest), the smallest subnormal 2^-9.
        assert_eq!(fp8_to_f16(0x38, true), Some(0x3c00));
        assert_eq!(fp8_to_f16(0xfe, true), Some(0xdf00));
        assert_eq!(fp8_to_f16(0x01, true), Some(0x1800));
        assert_eq!(fp8_to_f16(0x7f, true), None);
        // E5M2: binary16's high byte (infinity included).
        assert_eq!(fp8_to_f16(0x7c, false), Some(0x7c00));
    }
}
