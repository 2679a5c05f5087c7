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
    let x = f64::from(f32::from_bits(ftz(a)));
    let r = match func {
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
    };
    let r = r as f32;
    Some(if r.is_nan() { NAN32 } else { ftz(r.to_bits()) })
}
