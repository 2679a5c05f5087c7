//! f64 arithmetic on register pairs: `DADD`, `DMUL`, `DFMA`.

use ori_ir::{Opcode, Operand};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{bank_operand, dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers an f64 `add`, `sub`, `mul` or `fma`/`mad` (round to nearest).
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let plain =
        inst.modifiers.iter().all(|m| matches!(m.kind, ModifierKind::Type(_) | ModifierKind::Rounding(Rounding::Rn)));
    if !plain {
        return Err(unsupported(inst));
    }
    let f64 = ScalarType::F64;
    let d = dst(cx, inst, 0)?;
    let op = inst.opcode.name.as_str();
    // A 64-bit parameter on sm_80 is read from the bank, as the second
    // source (the first of a product when it is the other one).
    let (a, b) = match (bank_operand(cx, inst, 1)?, bank_operand(cx, inst, 2)?) {
        (None, None) => (src(cx, inst, 1, f64)?, src(cx, inst, 2, f64)?),
        // With both in the bank, the first is read into registers.
        (_, Some(bank)) => (src(cx, inst, 1, f64)?, bank),
        (Some(bank), None) if op != "sub" => (src(cx, inst, 2, f64)?, bank),
        _ => return Err(unsupported(inst)),
    };
    // SASS takes an immediate only as the second source.
    let (a, b) = if a.as_reg().is_none() && op != "sub" { (b, a) } else { (a, b) };
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let (op, uses) = match op {
        "add" => (Opcode::DADD, vec![a, b]),
        "sub" => (Opcode::DADD, vec![a, negate(b)]),
        "mul" => (Opcode::DMUL, vec![a, b]),
        "fma" | "mad" => (Opcode::DFMA, vec![a, b, src(cx, inst, 3, f64)?]),
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, &[], vec![d.into()], uses, inst.span)
}

/// `-x` of an f64 operand.
fn negate(x: Operand) -> Operand {
    match x.kind {
        ori_ir::OperandKind::Imm(ori_ir::Imm::F64(bits)) => {
            ori_ir::OperandKind::Imm(ori_ir::Imm::F64(bits ^ (1 << 63))).into()
        }
        _ => x.negated(),
    }
}
