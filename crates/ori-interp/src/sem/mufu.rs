//! `MUFU`: the multi-function unit's transcendental approximations.
//!
//! The hardware's results are approximations (RCP/RSQ within 1 ulp, EX2
//! and LG2 within 2 ulp, SIN/COS with absolute error about 2^-21 on
//! [-pi, pi]); the interpreter returns the correctly rounded value of the
//! exact function instead, so results that depend on the last ulp of a
//! MUFU may differ from a GPU (docs/ori-interp.md). Inputs and outputs are
//! flushed to zero as the unit does.

use super::float::{NAN32, ftz};

/// `MUFU.RCP64H` / `.RSQ64H`: the high word of a binary64 reciprocal (or
/// reciprocal square root) from the high word `hi` of the operand, the seed
/// of ptxas's f64 division and square-root sequences (which refine it).
pub fn mufu64h(func: &str, hi: u32) -> Option<u32> {
    let x = f64::from_bits(u64::from(hi) << 32);
    let r = match func {
        "RCP64H" => 1.0 / x,
        "RSQ64H" => 1.0 / x.sqrt(),
        _ => return None,
    };
    Some((r.to_bits() >> 32) as u32)
}

/// Evaluates `MUFU.<func>` on binary32 bits; `None` for an unknown function.
pub fn mufu(func: &str, a: u32) -> Option<u32> {
    let r = exact(func, f64::from(f32::from_bits(ftz(a))))? as f32;
    Some(if r.is_nan() { NAN32 } else { ftz(r.to_bits()) })
}

/// `MUFU.<func>.F16` / `.BF16` (sm_80+, NVIDIA's code for `ex2.approx.f16`
/// and `tanh.approx.{f16,bf16}`): one binary16 or bfloat16 lane in (the
/// low half of the register, or the high one for `R.H1`), the result
/// rounded to nearest into the low half, zero above it (NVIDIA's code
/// never reads the high half: a pair is joined with `PRMT 0x5410`). Half
/// subnormals are kept (their binary32 value is normal); a NaN becomes
/// the canonical `0x7fff`.
pub fn mufu_half(func: &str, h: u16, bf16: bool) -> Option<u32> {
    let x = if bf16 { f64::from(f32::from_bits(u32::from(h) << 16)) } else { f64::from(super::half::to_f32(h)) };
    let r = exact(func, x)?;
    Some(u32::from(if bf16 { super::half::bf16_from_f64(r) } else { super::half::from_f64(r) }))
}

/// The exact value of `func` at `x` (the interpreter's model of every
/// approximation); `None` for an unknown function.
fn exact(func: &str, x: f64) -> Option<f64> {
    Some(match func {
        "RCP" => 1.0 / x,
        "RSQ" => 1.0 / x.sqrt(),
        "SQRT" => x.sqrt(),
        "EX2" => x.exp2(),
        "LG2" => x.log2(),
        // sm_70+ takes the angle in turns (ptxas multiplies by 1/2pi first).
        "SIN" => (x * std::f64::consts::TAU).sin(),
        "COS" => (x * std::f64::consts::TAU).cos(),
        "TANH" => x.tanh(),
        _ => return None,
    })
}
