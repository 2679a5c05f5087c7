//! `cvt` between 32-bit integers and f32.

use ori_ir::Opcode;
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `cvt.RND.DTYPE.STYPE d, a`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let types: Vec<ScalarType> = inst.types().collect();
    let [to, from] = types.as_slice() else { return Err(unsupported(inst)) };
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
    cx.emit(op, mods, vec![d.into()], vec![a], inst.span)
}
