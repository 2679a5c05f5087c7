//! `vprintf`, the one external function CUDA code calls: formats its
//! output as the device runtime does, one string per call and thread.
//!
//! The call passes a generic pointer to the format string (global memory)
//! and one to the argument buffer (usually the thread's local memory),
//! where each argument sits at the next multiple of its size: 4 bytes for
//! `%d`/`%u`/`%x`/`%c` without a length, 8 for `%ll..`/`%l..`, doubles
//! (`%f`/`%e`/`%g`, floats are promoted), `%s` and `%p`.

/// Formats `format` with arguments read by `arg(offset, bytes)` and `%s`
/// strings by `string(address)`. `None` when an argument cannot be read.
pub fn format(
    format: &[u8],
    mut arg: impl FnMut(u64, usize) -> Option<u64>,
    mut string: impl FnMut(u64) -> Option<Vec<u8>>,
) -> Option<String> {
    let mut out = String::new();
    let mut at = 0u64;
    let mut next = |bytes: usize, at: &mut u64| {
        *at = at.next_multiple_of(bytes as u64);
        let v = arg(*at, bytes);
        *at += bytes as u64;
        v
    };
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        i += 1;
        if c != b'%' {
            out.push(char::from(c));
            continue;
        }
        let start = i;
        while i < format.len() && b"-+ #0".contains(&format[i]) {
            i += 1;
        }
        let flags = std::str::from_utf8(&format[start..i]).ok()?.to_string();
        let width = digits(format, &mut i);
        let precision = if format.get(i) == Some(&b'.') {
            i += 1;
            Some(digits(format, &mut i).unwrap_or(0))
        } else {
            None
        };
        let mut long = false;
        while i < format.len() && b"hlLqjzt".contains(&format[i]) {
            long |= matches!(format[i], b'l' | b'L' | b'q' | b'j' | b'z' | b't');
            i += 1;
        }
        let Some(&conv) = format.get(i) else { break };
        i += 1;
        let int_bytes = if long { 8 } else { 4 };
        let body = match conv {
            b'%' => "%".to_string(),
            b'd' | b'i' => {
                let v = next(int_bytes, &mut at)?;
                let v = if long { v as i64 } else { i64::from(v as u32 as i32) };
                v.to_string()
            }
            b'u' => next(int_bytes, &mut at)?.to_string(),
            b'x' => format!("{:x}", next(int_bytes, &mut at)?),
            b'X' => format!("{:X}", next(int_bytes, &mut at)?),
            b'o' => format!("{:o}", next(int_bytes, &mut at)?),
            b'c' => char::from(next(4, &mut at)? as u8).to_string(),
            b'p' => format!("0x{:x}", next(8, &mut at)?),
            b's' => String::from_utf8_lossy(&string(next(8, &mut at)?)?).into_owned(),
            b'f' | b'F' => format!("{:.*}", precision.unwrap_or(6), f64::from_bits(next(8, &mut at)?)),
            b'e' | b'E' => {
                let text = exponent(f64::from_bits(next(8, &mut at)?), precision.unwrap_or(6));
                if conv == b'E' { text.to_uppercase() } else { text }
            }
            _ => return None,
        };
        out.push_str(&pad(body, &flags, width));
    }
    Some(out)
}

fn digits(format: &[u8], i: &mut usize) -> Option<usize> {
    let start = *i;
    while *i < format.len() && format[*i].is_ascii_digit() {
        *i += 1;
    }
    std::str::from_utf8(&format[start..*i]).ok()?.parse().ok()
}

/// C's `%e`: one digit, the fraction, `e`, a sign and at least two exponent
/// digits.
fn exponent(v: f64, precision: usize) -> String {
    let text = format!("{v:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = exp.strip_prefix('-').map_or(("+", exp), |d| ("-", d));
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

/// Pads to `width` as the flags say (`-` left, `0` zeros after any sign).
fn pad(body: String, flags: &str, width: Option<usize>) -> String {
    let width = width.unwrap_or(0);
    if body.len() >= width {
        return body;
    }
    let fill = width - body.len();
    if flags.contains('-') {
        format!("{body}{}", " ".repeat(fill))
    } else if flags.contains('0') {
        let (sign, digits) = body.strip_prefix('-').map_or(("", body.as_str()), |d| ("-", d));
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_device_runtime() {
        // "%d %u %f %08x %lld %s|%-3c|" with args at 0, 4, 8, 16, 24, 32, 40.
        let mut buf = [0u8; 48];
        buf[0..4].copy_from_slice(&(-7i32).to_le_bytes());
        buf[4..8].copy_from_slice(&3u32.to_le_bytes());
        buf[8..16].copy_from_slice(&1.5f64.to_bits().to_le_bytes());
        buf[16..20].copy_from_slice(&0xbeefu32.to_le_bytes());
        buf[24..32].copy_from_slice(&(-5i64).to_le_bytes());
        buf[32..40].copy_from_slice(&0x1000u64.to_le_bytes());
        buf[40..44].copy_from_slice(&u32::from(b'z').to_le_bytes());
        let arg = |at: u64, n: usize| {
            let b = buf.get(at as usize..at as usize + n)?;
            Some(b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
        };
        let string = |a: u64| (a == 0x1000).then(|| b"hi".to_vec());
        let got = format(b"%d %u %f %08x %lld %s|%-3c|%e", arg, string);
        assert_eq!(got, None, "the %e has no argument left");
        let got = format(b"%d %u %f %08x %lld %s|%-3c|", arg, string);
        assert_eq!(got.as_deref(), Some("-7 3 1.500000 0000beef -5 hi|z  |"));
        assert_eq!(exponent(123.456, 3), "1.235e+02");
    }
}
