//! nvdisasm's spelling of floating-point immediates.
//!
//! Established from NVIDIA's cubins and bit-flip probes (tools/learn.py):
//! values print with 20 significant digits like C's `%.20g`, except that
//! magnitudes of 10^9 and above use `%.20e` (probed: 999000000 prints
//! plain, 1e9 as `1.00000000000000000000e+09`); infinities, NaNs and
//! negative zero print as `+INF `, `-QNAN `, `-0.0 ` with a trailing
//! space.

/// Formats `v` as nvdisasm does.
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-QNAN ".into() } else { "+QNAN ".into() };
    }
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
    if exp < -4 || exp >= PREC {
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

/// binary16 bits to the value they hold.
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN.copysign(sign),
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// The binary16 bits of `v`, when `v` is exactly representable.
pub fn f64_to_f16(v: f64) -> Option<u16> {
    // binary16 has 65536 values: search the one half with the right sign.
    let sign = if v.is_sign_negative() { 0x8000u16 } else { 0 };
    if v.is_nan() {
        return Some(sign | 0x7e00);
    }
    (0..0x7c01u16).map(|b| b | sign).find(|&b| f16_to_f64(b) == v)
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
            assert_eq!(format_float(f64::from(v)), text);
        }
        assert_eq!(format_float(2.2250738585072014e-308), "2.2250738585072013831e-308");
        assert_eq!(format_float(-6.755399441055744e15), "-6.75539944105574400000e+15");
        assert_eq!(format_float(f16_to_f64(0x3a88)), "0.81640625");
        assert_eq!(f64_to_f16(806.5).map(f16_to_f64), Some(806.5));
    }
}
