//! The approximate f32 functions that are one `MUFU` in NVIDIA's code:
//! `sqrt.approx.ftz.f32` is `MUFU.SQRT` (fp16_ops). The forms without
//! `.ftz` need NVIDIA's subnormal scaling around the `MUFU` and are not
//! lowered yet.

use ori_ir::Opcode;
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `sqrt.approx.ftz.f32 d, a`: `MUFU.SQRT d, a`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let function = match inst.opcode.name.as_str() {
        "sqrt" => "SQRT",
        _ => return Err(unsupported(inst)),
    };
    if ty(inst)? != ScalarType::F32 || !inst.has("approx") || !inst.has("ftz") || inst.modifiers.len() != 3 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::MUFU, &[function], vec![d.into()], vec![a], inst.span)
}
