//! nvdisasm's spelling of floating-point immediates.
//!
//! Established from NVIDIA's cubins and bit-flip probes (`tools/learn_probe.py`):
//! values print with 20 significant digits like C's `%.20g`, except that
//! magnitudes of 10^9 and above use `%.20e` (probed: 999000000 prints
//! plain, 1e9 as `1.00000000000000000000e+09`); infinities, NaNs and
//! negative zero print as `+INF `, `-QNAN `, `-0.0 ` with a trailing
//! space.

/// Formats the binary32 value `bits` as nvdisasm does.
pub fn format_f32(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        return nan(v.is_sign_negative(), bits & (1 << 22) != 0);
    }
    format_float(f64::from(v))
}

/// Formats the binary64 value `bits` as nvdisasm does.
pub fn format_f64(bits: u64) -> String {
    let v = f64::from_bits(bits);
    if v.is_nan() {
        return nan(v.is_sign_negative(), bits & (1 << 51) != 0);
    }
    format_float(v)
}

/// nvdisasm tells quiet from signalling NaNs (`+SNAN` for a clear quiet
/// bit, found by the generator test).
fn nan(negative: bool, quiet: bool) -> String {
    format!("{}{} ", if negative { '-' } else { '+' }, if quiet { "QNAN" } else { "SNAN" })
}

/// Formats a number that is not a NaN as nvdisasm does.
fn format_float(v: f64) -> String {
    if v.is_infinite() {
        return if v < 0.0 { "-INF ".into() } else { "+INF ".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0 ".into() } else { "0".into() };
    }
    if v.abs() >= 1e9 { sci(v, 20, false) } else { general(v) }
}

/// `%.{prec}e`, optionally with trailing zeros of the mantissa removed.
fn sci(v: f64, prec: usize, trim: bool) -> String {
    let s = format!("{v:.prec$e}");
    let (mantissa, exp) = s.split_once('e').expect("`{:e}` output has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let mantissa = if trim { trim_zeros(mantissa) } else { mantissa.to_string() };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// C's `%.20g`.
fn general(v: f64) -> String {
    const PREC: i32 = 20;
    let s = format!("{v:.19e}");
    let exp: i32 = s.split_once('e').and_then(|(_, e)| e.parse().ok()).expect("`{:e}` output has an exponent");
    if !(-4..PREC).contains(&exp) {
        return sci(v, 19, true);
    }
    let decimals = (PREC - 1 - exp).max(0) as usize;
    trim_zeros(&format!("{v:.decimals$}"))
}

fn trim_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// binary16 bits to the binary32 bits of the same value (NaN payloads
/// kept in the top fraction bits).
pub fn f16_to_f32_bits(bits: u16) -> u32 {
    let sign = u32::from(bits & 0x8000) << 16;
    let exp = u32::from((bits >> 10) & 0x1f);
    let frac = u32::from(bits & 0x3ff);
    match exp {
        0 if frac == 0 => sign,
        // Subnormal: exact in binary32.
        0 => sign | (frac as f32 * 2f32.powi(-24)).to_bits(),
        31 => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (frac << 13),
    }
}

/// The binary16 bits of the binary32 value `bits`, when it is exactly
/// representable (NaN payloads must fit the 10 fraction bits).
pub fn f32_bits_to_f16(bits: u32) -> Option<u16> {
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = (bits >> 23) & 0xff;
    let frac = bits & 0x7f_ffff;
    if exp == 0xff {
        return (frac & 0x1fff == 0).then_some(sign | 0x7c00 | (frac >> 13) as u16);
    }
    let v = f32::from_bits(bits & 0x7fff_ffff);
    if v == 0.0 {
        return Some(sign);
    }
    // Normal binary16: exponent -14..=15, 10 fraction bits.
    if (-14..=15).contains(&(exp as i32 - 127)) && frac & 0x1fff == 0 {
        return Some(sign | (((exp + 15 - 127) << 10) | (frac >> 13)) as u16);
    }
    // Subnormal binary16: multiples of 2^-24 below 2^-14.
    let scaled = v * 2f32.powi(24);
    (scaled.fract() == 0.0 && scaled < 1024.0).then_some(sign | scaled as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spellings seen in nvdisasm listings of NVIDIA's corpus cubins.
    #[test]
    fn nvdisasm_spellings() {
        let f32s: &[(f32, &str)] = &[
            (16777216.0, "16777216"),
            (0.5, "0.5"),
            (3.3, "3.2999999523162841797"),
            (0.159_154_94, "0.15915493667125701904"),
            (1.925_963e-8, "1.925963033500011079e-08"),
            (4.294_967_3e9, "4.29496729600000000000e+09"),
            (f32::INFINITY, "+INF "),
            (-1.0, "-1"),
        ];
        for &(v, text) in f32s {
            assert_eq!(format_f32(v.to_bits()), text);
        }
        assert_eq!(format_f64(2.2250738585072014e-308f64.to_bits()), "2.2250738585072013831e-308");
        assert_eq!(format_f64((-6.755399441055744e15f64).to_bits()), "-6.75539944105574400000e+15");
        assert_eq!(format_f32(f16_to_f32_bits(0x3a88)), "0.81640625");
        assert_eq!(format_f32(f16_to_f32_bits(0x3f50)), "1.828125");
        assert_eq!(format_f32(0xffc0_0000), "-QNAN ");
        assert_eq!(format_f32(0x7fab_117f), "+SNAN ");
    }

    #[test]
    fn binary16_round_trips_every_value() {
        for bits in 0..=u16::MAX {
            assert_eq!(f32_bits_to_f16(f16_to_f32_bits(bits)), Some(bits), "0x{bits:04x}");
        }
        assert_eq!(f32_bits_to_f16(1.0e-3f32.to_bits()), None);
    }
}
