//! `cvt` between 32-bit integers and f32, between unsigned integers, and
//! integer widening to 64 bits.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::{Lowerer, WideProduct};

/// `cvt.RND.DTYPE.STYPE d, a`; a widening to 64 bits returns the product
/// `a * 1` it made, for the `add.s64` of an address to fold.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<WideProduct>> {
    let types: Vec<ScalarType> = inst.types().collect();
    let [to, from] = types.as_slice() else { return Err(unsupported(inst)) };
    if to.bits() == 64
        && !to.is_float()
        && matches!(from, ScalarType::U32 | ScalarType::S32)
        && inst.modifiers.len() == 2
    {
        return widen(cx, inst, *from == ScalarType::S32).map(Some);
    }
    if is_unsigned(*to) && is_unsigned(*from) && inst.modifiers.len() == 2 {
        return narrow(cx, inst, to.bits().min(from.bits())).map(|()| None);
    }
    let rounding =
        inst.modifiers.iter().find_map(|m| if let ModifierKind::Rounding(r) = m.kind { Some(r) } else { None });
    let other = inst.modifiers.iter().any(|m| m.kind == ModifierKind::Word);
    if other {
        return Err(unsupported(inst));
    }
    use ScalarType::{F32, S32, U32};
    let (op, mods): (Opcode, &[&str]) = match (*to, *from, rounding) {
        // int -> float: I2FP on sm_90 (NVIDIA's choice), I2F before.
        (F32, S32, Some(Rounding::Rn)) if cx.sm.version >= 90 => (Opcode::I2FP, &["F32", "S32"]),
        (F32, U32, Some(Rounding::Rn)) if cx.sm.version >= 90 => (Opcode::I2FP, &["F32", "U32"]),
        (F32, S32, Some(Rounding::Rn)) => (Opcode::I2F, &[]),
        (F32, U32, Some(Rounding::Rn)) => (Opcode::I2F, &["U32"]),
        // float -> int, truncating: F2I rounds toward zero with .TRUNC.
        (S32, F32, Some(Rounding::Rzi)) => (Opcode::F2I, &["TRUNC", "NTZ"]),
        (U32, F32, Some(Rounding::Rzi)) => (Opcode::F2I, &["U32", "TRUNC", "NTZ"]),
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, *from)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.emit(op, mods, vec![d.into()], vec![a], inst.span)?;
    Ok(None)
}

/// `cvt.{u64,s64}.{u32,s32} d, a`: `IMAD.WIDE[.U32] d, a, 0x1, RZ`
/// (sign- or zero-extended by the multiply).
fn widen(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered<WideProduct> {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let mods: &[&str] = if signed { &["WIDE"] } else { &["WIDE", "U32"] };
    let uses = vec![a.clone(), Operand::int(1), Operand::reg(Reg::RZ.wide(2))];
    cx.emit(Opcode::IMAD, mods, vec![d.into()], uses, inst.span)?;
    Ok(WideProduct { src: a, factor: Operand::int(1), signed, stable: true })
}

/// Unsigned and untyped integers of up to 32 bits.
fn is_unsigned(ty: ScalarType) -> bool {
    use ScalarType::*;
    matches!(ty, U8 | U16 | U32 | B8 | B16 | B32)
}

/// `cvt.uN.uM d, a` between unsigned integers: keep the low `bits` bits
/// (`LOP3.LUT d, a, mask, RZ, 0xc0`, the AND table), a copy for 32.
fn narrow(cx: &mut Lowerer<'_>, inst: &Instruction, bits: u32) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    if bits >= 32 {
        return cx.emit(Opcode::MOV, &[], vec![d.into()], vec![a], inst.span);
    }
    let mask = Operand::int((1 << bits) - 1);
    let uses = vec![a, mask, Operand::reg(Reg::RZ), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span)
}
