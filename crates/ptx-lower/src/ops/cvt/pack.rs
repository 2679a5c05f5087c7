//! `cvt` of two binary32 values into a packed pair, and of packed 8-bit
//! floats back to binary16, in NVIDIA's single instructions:
//! `cvt.{rn,rz}[.relu].{f16x2,bf16x2}.f32 d, a, b` is `F2FP[.RELU]
//! [.F16.F32|.BF16.F32].PACK_AB[.RZ] d, a, b` (sm_80 spells it without the
//! `.F32` and `.F16` words), `cvt.rn.satfinite[.relu].{e4m3x2,e5m2x2}.f32`
//! is `F2FP.SATFINITE[.RELU].E4M3.F32.PACK_AB_MERGE_C d, a, b, RZ`, and
//! `cvt.rn[.relu].f16x2.{e4m3x2,e5m2x2} d, a` is `F2FP[.RELU].F16.E4M3.
//! UNPACK_B d, a` (sm_89 and later). `a` lands in the high half, as PTX
//! says.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, Rounding, ScalarType};

use super::super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Whether `cvt.TO.FROM` is a pack or an unpack handled here.
pub(super) fn handles(to: ScalarType, from: ScalarType) -> bool {
    use ScalarType::*;
    matches!((to, from), (F16x2 | Bf16x2 | E4m3x2 | E5m2x2, F32) | (F16x2, E4m3x2 | E5m2x2))
}

/// Lowers a pack or unpack `cvt`; `words` are its modifiers other than
/// the rounding and the types.
pub(super) fn lower(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    to: ScalarType,
    from: ScalarType,
    rounding: Option<Rounding>,
    words: &[&str],
) -> Lowered {
    use ScalarType::*;
    let relu = words.contains(&"relu");
    let satfinite = words.contains(&"satfinite");
    if words.iter().any(|w| !matches!(*w, "relu" | "satfinite")) {
        return Err(unsupported(inst));
    }
    let typed = cx.target.isa.half_convert == ori_ir::HalfConvert::TypedPackAb;
    let mut mods: Vec<&str> = Vec::new();
    let d = dst(cx, inst, 0)?;
    match (to, from, rounding) {
        (F16x2 | Bf16x2, F32, Some(r @ (Rounding::Rn | Rounding::Rz))) if !satfinite => {
            if relu {
                mods.push("RELU");
            }
            match (to, typed) {
                (F16x2, true) => mods.extend(["F16", "F32"]),
                (Bf16x2, true) => mods.extend(["BF16", "F32"]),
                (Bf16x2, false) => mods.push("BF16"),
                _ => {}
            }
            mods.push("PACK_AB");
            if r == Rounding::Rz {
                mods.push("RZ");
            }
            let uses = vec![in_reg(cx, inst, 1, F32)?, in_reg(cx, inst, 2, F32)?];
            cx.emit(Opcode::F2FP, &mods, vec![d.into()], uses, inst.span)
        }
        (E4m3x2 | E5m2x2, F32, Some(Rounding::Rn)) if satfinite => {
            mods.push("SATFINITE");
            if relu {
                mods.push("RELU");
            }
            mods.extend([if to == E4m3x2 { "E4M3" } else { "E5M2" }, "F32", "PACK_AB_MERGE_C"]);
            let uses = vec![in_reg(cx, inst, 1, F32)?, in_reg(cx, inst, 2, F32)?, Operand::reg(Reg::RZ)];
            cx.emit(Opcode::F2FP, &mods, vec![d.into()], uses, inst.span)
        }
        (F16x2, E4m3x2 | E5m2x2, Some(Rounding::Rn)) if !satfinite => {
            if relu {
                mods.push("RELU");
            }
            mods.extend(["F16", if from == E4m3x2 { "E4M3" } else { "E5M2" }, "UNPACK_B"]);
            let a = in_reg(cx, inst, 1, B16)?;
            cx.emit(Opcode::F2FP, &mods, vec![d.into()], vec![a], inst.span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// Source `i` as a register (the forms here take no immediates).
fn in_reg(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize, ty: ScalarType) -> Lowered<Operand> {
    let a = src(cx, inst, i, ty)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    Ok(a)
}
