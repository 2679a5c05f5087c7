//! f64 arithmetic on register pairs: `DADD`, `DMUL`, `DFMA`, and `setp`
//! on f64 (`DSETP`).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, Rounding, ScalarType};

use super::{bank_operand, dst, operand, src, unsupported};
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
    if matches!(op, "abs" | "neg") {
        // NVIDIA's `DADD d, -RZ, |a|` / `DADD d, -RZ, -a`: exact, and -0
        // plus a zero keeps the sign PTX wants.
        let mut a = src(cx, inst, 1, f64)?;
        if a.as_reg().is_none() {
            return Err(unsupported(inst));
        }
        if op == "abs" {
            a.flags.abs = true;
        } else {
            a = a.negated();
        }
        return cx.emit(Opcode::DADD, &[], vec![d.into()], vec![Operand::reg(Reg::RZ).negated(), a], inst.span);
    }
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
        "add" => (Opcode::DADD, vec![a, short_imm(cx, b, inst)?]),
        "sub" => (Opcode::DADD, vec![a, short_imm(cx, negate(b), inst)?]),
        "mul" => (Opcode::DMUL, vec![a, short_imm(cx, b, inst)?]),
        "fma" | "mad" => {
            // An immediate is taken only as the addend: a factor goes to a pair.
            let b = match b.kind {
                OperandKind::Imm(Imm::F64(bits)) => Operand::reg(super::wide::materialize(cx, bits, inst.span)?),
                _ => b,
            };
            let c = src(cx, inst, 3, f64)?;
            (Opcode::DFMA, vec![a, b, short_imm(cx, c, inst)?])
        }
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

/// `setp.CMP[.BOOL].f64 p, a, b[, c]`: `DSETP.CMP.BOOL p, PT, a, b, c`
/// (the encoder derives every comparison from the DSETP family); `b` an
/// immediate as [`short_imm`] keeps it, or the parameter's bank slot on
/// sm_80.
pub(super) fn setp(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    let (cmp, boolean) = match words.as_slice() {
        [cmp] => (*cmp, "AND"),
        [cmp, "and"] => (*cmp, "AND"),
        [cmp, "or"] => (*cmp, "OR"),
        [cmp, "xor"] => (*cmp, "XOR"),
        _ => return Err(unsupported(inst)),
    };
    let cmp = super::cmp::float_cmp(cmp).ok_or_else(|| unsupported(inst))?;
    if inst.has("ftz") || !matches!(operand(inst, 0)?.kind, ExprKind::Name(_, None)) {
        return Err(unsupported(inst));
    }
    let f64 = ScalarType::F64;
    let p = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, f64)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let b = match bank_operand(cx, inst, 2)? {
        Some(bank) => bank,
        None => {
            let b = src(cx, inst, 2, f64)?;
            short_imm(cx, b, inst)?
        }
    };
    let c = if inst.operands.len() > 3 { src(cx, inst, 3, ScalarType::Pred)? } else { Operand::reg(Reg::PT) };
    let pt = Operand::reg(Reg::PT);
    cx.emit(Opcode::DSETP, &[cmp, boolean], vec![p.into(), pt], vec![a, b, c], inst.span)
}

/// An f64 immediate as SASS takes it (its high word only: `DFMA R8, R2,
/// R8, 1`, `DADD R6, R8, -6.755e15`) when its low word is zero, otherwise
/// in a register pair; other operands as they are.
fn short_imm(cx: &mut Lowerer<'_>, x: Operand, inst: &Instruction) -> Lowered<Operand> {
    match x.kind {
        OperandKind::Imm(Imm::F64(bits)) if bits as u32 != 0 => {
            Ok(Operand::reg(super::wide::materialize(cx, bits, inst.span)?))
        }
        _ => Ok(x),
    }
}
