//! f64 arithmetic on register pairs: `DADD`, `DMUL`, `DFMA`.

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg, RegFile};
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
        "add" => (Opcode::DADD, vec![a, short_imm(cx, b, inst)?]),
        "sub" => (Opcode::DADD, vec![a, short_imm(cx, negate(b), inst)?]),
        "mul" => (Opcode::DMUL, vec![a, short_imm(cx, b, inst)?]),
        "fma" | "mad" => {
            // An immediate is taken only as the addend: a factor goes to a pair.
            let b = match b.kind {
                OperandKind::Imm(Imm::F64(bits)) => Operand::reg(pair(cx, bits, inst)?),
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

/// An f64 immediate as SASS takes it (its high word only: `DFMA R8, R2,
/// R8, 1`, `DADD R6, R8, -6.755e15`) when its low word is zero, otherwise
/// in a register pair; other operands as they are.
fn short_imm(cx: &mut Lowerer<'_>, x: Operand, inst: &Instruction) -> Lowered<Operand> {
    match x.kind {
        OperandKind::Imm(Imm::F64(bits)) if bits as u32 != 0 => Ok(Operand::reg(pair(cx, bits, inst)?)),
        _ => Ok(x),
    }
}

/// The 64 bits `bits` in a fresh register pair, word by word (NVIDIA's
/// `IMAD.MOV.U32 R16, RZ, RZ, -0x2d0e5604`, `IMAD.MOV.U32 R17, RZ, RZ,
/// 0x3f50624d`).
fn pair(cx: &mut Lowerer<'_>, bits: u64, inst: &Instruction) -> Lowered<Reg> {
    let t = cx.temp(RegFile::R, 2);
    let rz = Operand::reg(Reg::RZ);
    for (word, value) in [(0u8, bits as u32), (1, (bits >> 32) as u32)] {
        let d = if word == 0 { Operand::reg(t.part(0, 1)).undef() } else { Operand::reg(t.part(1, 1)) };
        let uses = vec![rz.clone(), rz.clone(), Operand::int(i64::from(value))];
        cx.emit(Opcode::IMAD, &["MOV", "U32"], vec![d], uses, inst.span)?;
    }
    Ok(t)
}
