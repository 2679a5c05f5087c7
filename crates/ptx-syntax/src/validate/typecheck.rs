//! Register type against instruction type: the PTX ISA's type-checking
//! rules as ptxas 13.5 applies them (measured: every register type in every
//! operand position of `add`, `and`, `mov`, `ld`, `st` and `cvt`, and every
//! special register read by `mov` and `cvt` at each width).

use crate::ast::{FloatLit, ScalarType};

/// How closely a register must match its instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Same size (most instructions).
    Exact,
    /// At least as wide: `ld`, `st` and `cvt` extend and truncate.
    AtLeast,
}

/// The answer for one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The operand fits.
    Fits,
    /// `Arguments mismatch for instruction '…'`.
    Mismatch,
    /// `Special register argument not allowed for instruction '…'`.
    SpecialNotAllowed,
}

impl From<bool> for Verdict {
    fn from(fits: bool) -> Self {
        if fits { Verdict::Fits } else { Verdict::Mismatch }
    }
}

/// Whether a register of type `reg` may be an operand of type `ty`.
///
/// `.bN` takes any register of its size; `.uN`/`.sN` take `.b`, `.u` and
/// `.s` registers; a float type takes its own type or a `.b` register
/// (`.f16x2` and `.bf16x2` take only `.b32`). Predicates only pair with
/// predicates. With [`Fit::AtLeast`] the register may be wider, except a
/// float register, whose size must still match.
pub fn register_fits(reg: ScalarType, ty: ScalarType, fit: Fit) -> bool {
    if (reg == ScalarType::Pred) != (ty == ScalarType::Pred) {
        return false;
    }
    let sized = |exact_only: bool| match fit {
        Fit::Exact => reg.bits() == ty.bits(),
        Fit::AtLeast if exact_only => reg.bits() == ty.bits(),
        Fit::AtLeast => reg.bits() >= ty.bits(),
    };
    match (kind(reg), kind(ty)) {
        (_, Kind::Bits) | (Kind::Bits | Kind::Int, Kind::Int) | (Kind::Bits, Kind::Float) => sized(false),
        (Kind::Float, Kind::Float) => reg == ty && sized(true),
        (Kind::Pred, Kind::Pred) => true,
        _ => false,
    }
}

/// Whether float literal `lit` may be an operand of type `ty`: `f32`,
/// `f64` and the other float formats take any float literal (ptxas
/// converts it); a `0fXXXXXXXX` literal
/// is also a `.b32` word and a `0dXXXXXXXXXXXXXXXX` literal a `.b64` one
/// (`mov.b32 %r1, 0f3F800000`), but not a `.u32`/`.s32` or other width's
/// (measured on `mov`, `and`, `setp`, `selp`, `st`, `atom`, `shfl`, `prmt`).
///
/// Half-precision types take no float literal at all (`add.f16 %h, %h,
/// 1.0` and `setp.eq.bf16 %p, %h, 0f3F800000` are argument mismatches for
/// ptxas 13.5).
pub fn float_fits(lit: &FloatLit, ty: ScalarType) -> bool {
    use ScalarType::{Bf16, Bf16x2, F16, F16x2};
    match lit {
        _ if matches!(ty, F16 | F16x2 | Bf16 | Bf16x2) => false,
        _ if ty.is_float() => true,
        FloatLit::F32(_) => ty == ScalarType::B32,
        FloatLit::F64(_) => ty == ScalarType::B64,
        FloatLit::Decimal(_) => false,
    }
}

/// Whether special register `name` (of type `reg`) may be read by `mov`
/// ([`Fit::Exact`]) or `cvt` ([`Fit::AtLeast`]) as type `ty`.
///
/// `mov` may read the CTA geometry registers at 16 bits and `%gridid` at
/// any integer width (their widths in early PTX); a float type is refused
/// with its own message once the sizes agree.
pub fn special_fits(name: &str, reg: ScalarType, ty: ScalarType, fit: Fit) -> Verdict {
    let widths_ok = match (fit, name) {
        (Fit::Exact, "%tid" | "%ntid" | "%ctaid" | "%nctaid") => matches!(ty.bits(), 16 | 32),
        (Fit::Exact, "%gridid") => matches!(ty.bits(), 16 | 32 | 64),
        (Fit::Exact, _) => reg.bits() == ty.bits(),
        (Fit::AtLeast, _) => reg.bits() >= ty.bits(),
    };
    if !widths_ok || (reg == ScalarType::Pred) != (ty == ScalarType::Pred) {
        Verdict::Mismatch
    } else if kind(ty) == Kind::Float {
        Verdict::SpecialNotAllowed
    } else {
        Verdict::Fits
    }
}

/// A type's family for the compatibility rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `.bN`.
    Bits,
    /// `.uN`, `.sN`.
    Int,
    /// Every float and packed-float type, and the packed integer pairs
    /// (`.u16x2`/`.s16x2` take only `.b32` registers, as `.f16x2` does).
    Float,
    /// `.pred`.
    Pred,
}

/// The family of `t`.
pub fn kind(t: ScalarType) -> Kind {
    use ScalarType::*;
    match t {
        Pred => Kind::Pred,
        B1 | B8 | B16 | B32 | B64 | B128 => Kind::Bits,
        U4 | U8 | U16 | U32 | U64 | S4 | S8 | S16 | S32 | S64 => Kind::Int,
        _ => Kind::Float,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    /// Each row: instruction type, then the register types ptxas accepts
    /// in `add`/`and` (any position), out of every declarable type.
    #[test]
    fn exact_matches_ptxas() {
        let all = [B8, U8, S8, B16, U16, S16, F16, B32, U32, S32, F32, B64, U64, S64, F64, Pred];
        let rows: &[(ScalarType, &[ScalarType])] = &[
            (U16, &[B16, U16, S16]),
            (S16, &[B16, U16, S16]),
            (B16, &[B16, U16, S16, F16]),
            (F16, &[B16, F16]),
            (Bf16, &[B16]),
            (U32, &[B32, U32, S32]),
            (B32, &[B32, U32, S32, F32]),
            (F32, &[B32, F32]),
            (F16x2, &[B32]),
            (U64, &[B64, U64, S64]),
            (B64, &[B64, U64, S64, F64]),
            (F64, &[B64, F64]),
            (Pred, &[Pred]),
        ];
        for (ty, accepted) in rows {
            for reg in all {
                assert_eq!(register_fits(reg, *ty, Fit::Exact), accepted.contains(&reg), "{reg:?} in {ty:?}");
            }
        }
    }

    #[test]
    fn loads_stores_and_conversions_take_wider_registers() {
        assert!(register_fits(B32, U16, Fit::AtLeast)); // ld.global.u16 %r1
        assert!(register_fits(U16, U8, Fit::AtLeast));
        assert!(register_fits(B64, F32, Fit::AtLeast)); // ld.global.f32 %rd1
        assert!(register_fits(F32, B16, Fit::AtLeast)); // ld.global.b16 %f1
        assert!(!register_fits(B16, U32, Fit::AtLeast)); // narrower
        assert!(!register_fits(F64, F32, Fit::AtLeast)); // ld.global.f32 %fd1
        assert!(!register_fits(F32, U16, Fit::AtLeast)); // ld.global.u16 %f1
        assert!(!register_fits(F32, F16, Fit::AtLeast)); // cvt.f32.f16 %f1, %f2
        assert!(!register_fits(U16, F16, Fit::AtLeast)); // cvt.rn.f16.f32 %us1
    }

    #[test]
    fn float_literals_in_bit_types() {
        let f32_lit = FloatLit::F32(0x3f80_0000);
        let f64_lit = FloatLit::F64(0x3ff0_0000_0000_0000);
        assert!(float_fits(&f32_lit, B32) && float_fits(&f32_lit, F64) && float_fits(&f64_lit, F32));
        assert!(float_fits(&f64_lit, B64));
        assert!(!float_fits(&f32_lit, B64) && !float_fits(&f64_lit, B32) && !float_fits(&f32_lit, B16));
        assert!(!float_fits(&f32_lit, U32) && !float_fits(&f32_lit, S32));
        assert!(!float_fits(&FloatLit::Decimal("1.0".into()), B32));
    }

    #[test]
    fn special_registers() {
        assert_eq!(special_fits("%tid", U32, U16, Fit::Exact), Verdict::Fits);
        assert_eq!(special_fits("%laneid", U32, U16, Fit::Exact), Verdict::Mismatch);
        assert_eq!(special_fits("%tid", U32, U64, Fit::Exact), Verdict::Mismatch);
        assert_eq!(special_fits("%gridid", U64, U32, Fit::Exact), Verdict::Fits);
        assert_eq!(special_fits("%clock64", U64, U32, Fit::Exact), Verdict::Mismatch);
        assert_eq!(special_fits("%clock", U32, F32, Fit::Exact), Verdict::SpecialNotAllowed);
        assert_eq!(special_fits("%clock64", U64, F32, Fit::Exact), Verdict::Mismatch);
        assert_eq!(special_fits("%laneid", U32, U16, Fit::AtLeast), Verdict::Fits);
        assert_eq!(special_fits("%laneid", U32, U64, Fit::AtLeast), Verdict::Mismatch);
        assert_eq!(special_fits("%laneid", U32, F32, Fit::AtLeast), Verdict::SpecialNotAllowed);
        assert_eq!(special_fits("%is_explicit_cluster", Pred, Pred, Fit::Exact), Verdict::Fits);
        assert_eq!(special_fits("%is_explicit_cluster", Pred, U32, Fit::Exact), Verdict::Mismatch);
    }
}
