//! Conversions of binary32 values to the narrow float formats (binary16,
//! bfloat16, E4M3, E5M2) in any rounding: `F2F.{F16,BF16}.F32.RM/RP`,
//! `F2FP...PACK_AB[.RZ]` with `.RELU`, and the saturating 8-bit packs
//! `F2FP.SATFINITE[.RELU].{E4M3,E5M2}.F32.PACK_AB_MERGE_C`.

use super::float::Round;

/// A narrow binary format.
#[derive(Copy, Clone, Debug)]
pub struct Format {
    /// Exponent bits.
    pub exp: u32,
    /// Mantissa bits.
    pub man: u32,
    /// The bit pattern of a NaN the hardware produces (sign clear).
    pub nan: u32,
    /// Whether the all-ones exponent holds infinities (E4M3's holds
    /// values; only `S.1111.111` is NaN).
    pub ieee: bool,
}

/// binary16.
pub const F16: Format = Format { exp: 5, man: 10, nan: 0x7fff, ieee: true };
/// bfloat16.
pub const BF16: Format = Format { exp: 8, man: 7, nan: 0x7fff, ieee: true };
/// E4M3 (bias 7, largest 448).
pub const E4M3: Format = Format { exp: 4, man: 3, nan: 0x7f, ieee: false };
/// E5M2 (bias 15, largest 57344).
pub const E5M2: Format = Format { exp: 5, man: 2, nan: 0x7f, ieee: true };

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }

    /// The largest finite value's bits.
    fn max_bits(self) -> u32 {
        let all = (1 << (self.exp + self.man)) - 1;
        if self.ieee { all - (1 << self.man) } else { all - 1 }
    }

    fn infinity(self) -> u32 {
        ((1 << self.exp) - 1) << self.man
    }

    fn value(self, bits: u32) -> f64 {
        let (e, m) = ((bits >> self.man) as i32, bits & ((1 << self.man) - 1));
        let (scale, lead) = if e == 0 { (1 - self.bias(), 0.0) } else { (e - self.bias(), 1.0) };
        (lead + f64::from(m) / f64::from(1u32 << self.man)) * 2f64.powi(scale)
    }
}

/// `x` in `format`, rounded in `mode`; `satfinite` clamps infinite and
/// overflowing results to the largest finite value. NaN gives the
/// format's NaN.
pub fn convert(x: f32, format: Format, mode: Round, satfinite: bool) -> u32 {
    if x.is_nan() {
        return format.nan;
    }
    let sign = u32::from(x.is_sign_negative()) << (format.exp + format.man);
    let a = f64::from(x).abs();
    let magnitude = if a.is_infinite() {
        if satfinite { format.max_bits() } else { format.infinity() }
    } else {
        // The exponent from the bits (exact), at least the smallest normal's.
        let e = if a == 0.0 { 0 } else { ((a.to_bits() >> 52) as i32 - 1023).max(1 - format.bias()) };
        let ulp = 2f64.powi(e - format.man as i32);
        let s = a / ulp;
        // Directed modes round the signed value.
        let away = match mode {
            Round::Nearest => None,
            Round::Zero => Some(false),
            Round::Down => Some(x.is_sign_negative()),
            Round::Up => Some(!x.is_sign_negative()),
        };
        let q = match away {
            None => s.round_ties_even(),
            Some(true) => s.ceil(),
            Some(false) => s.floor(),
        } * ulp;
        encode(q, format).unwrap_or_else(|| {
            // Overflow: infinity unless the rounding goes toward zero.
            if satfinite || away == Some(false) { format.max_bits() } else { format.infinity() }
        })
    };
    sign | magnitude
}

/// The bits of a non-negative value exactly representable in `format`,
/// `None` past its largest finite value.
fn encode(q: f64, format: Format) -> Option<u32> {
    if q == 0.0 {
        return Some(0);
    }
    if q > format.value(format.max_bits()) {
        return None;
    }
    let e = (q.to_bits() >> 52) as i32 - 1023;
    let bias = format.bias();
    let bits = if e < 1 - bias {
        (q / 2f64.powi(1 - bias - format.man as i32)) as u32
    } else {
        ((e + bias) as u32) << format.man | ((q / 2f64.powi(e) - 1.0) * f64::from(1u32 << format.man)) as u32
    };
    Some(bits)
}

/// `.RELU` on a converted value: negative results become +0, NaN the
/// format's NaN.
pub fn relu(bits: u32, format: Format, x: f32) -> u32 {
    if x.is_nan() {
        format.nan
    } else if bits >> (format.exp + format.man) != 0 {
        0
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_into_each_format() {
        assert_eq!(convert(1.0, F16, Round::Nearest, false), 0x3c00);
        assert_eq!(convert(-65520.0, F16, Round::Nearest, false), 0xfc00);
        assert_eq!(convert(65520.0, F16, Round::Zero, false), 0x7bff);
        assert_eq!(convert(1.0 + 1e-4, F16, Round::Up, false), 0x3c01);
        assert_eq!(convert(-(1.0 + 1e-4), F16, Round::Up, false), 0xbc00);
        assert_eq!(convert(1e-10, F16, Round::Up, false), 0x0001);
        assert_eq!(convert(1.0 + 1e-3, BF16, Round::Down, false), 0x3f80);
        assert_eq!(convert(500.0, E4M3, Round::Nearest, true), 0x7e);
        assert_eq!(convert(f32::NEG_INFINITY, E5M2, Round::Nearest, true), 0xfb);
        assert_eq!(convert(0.1, E4M3, Round::Nearest, true), 0x1d);
        assert_eq!(relu(convert(-2.0, E4M3, Round::Nearest, true), E4M3, -2.0), 0);
    }
}
