//! f64 arithmetic on register pairs: `DADD`, `DMUL`, `DFMA`, and `setp`
//! on f64 (`DSETP`).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{bank_operand, dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers an f64 `add`, `sub`, `mul` or `fma`/`mad` (any rounding:
/// `.rz/.rm/.rp` become `DADD.RZ`, ... as in NVIDIA's code), `min`, `max`,
/// `abs`, `neg`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut rounding: &[&str] = &[];
    for m in &inst.modifiers {
        rounding = match m.kind {
            ModifierKind::Type(_) | ModifierKind::Rounding(Rounding::Rn) => continue,
            ModifierKind::Rounding(Rounding::Rz) => &["RZ"],
            ModifierKind::Rounding(Rounding::Rm) => &["RM"],
            ModifierKind::Rounding(Rounding::Rp) => &["RP"],
            _ => return Err(unsupported(inst)),
        };
    }
    let f64 = ScalarType::F64;
    let op = inst.opcode.name.as_str();
    if !rounding.is_empty() && !matches!(op, "add" | "sub" | "mul" | "fma" | "mad") {
        return Err(unsupported(inst));
    }
    if matches!(op, "min" | "max") {
        return min_max(cx, inst, op == "max");
    }
    let d = dst(cx, inst, 0)?;
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
    // NVIDIA's ptxas folds a product by 1.0 without a rounding modifier
    // into a copy (a NaN keeps its payload).
    if op == "mul" && rounding.is_empty() && !inst.has("rn") && b.kind == OperandKind::Imm(Imm::F64(1f64.to_bits())) {
        let a = a.as_reg().ok_or_else(|| unsupported(inst))?;
        return cx.copy_pair(d.into(), a.into(), inst.span);
    }
    let (op, uses) = match op {
        "add" => (Opcode::DADD, vec![a, short_imm(cx, b, inst, true)?]),
        "sub" => (Opcode::DADD, vec![a, short_imm(cx, negate(b), inst, true)?]),
        "mul" => (Opcode::DMUL, vec![a, short_imm(cx, b, inst, true)?]),
        "fma" | "mad" => {
            // An immediate is taken only as the addend: a factor goes to
            // bank 2 when the addend is a register (one constant operand
            // per instruction; NVIDIA gives it to the addend: atomics_mix's
            // `DFMA R8, R2, R8, 1`), else to a pair.
            let c = src(cx, inst, 3, f64)?;
            let b = match b.kind {
                OperandKind::Imm(Imm::F64(bits)) if bits as u32 != 0 && c.as_reg().is_some() => {
                    short_imm(cx, b, inst, true)?
                }
                OperandKind::Imm(Imm::F64(bits)) => Operand::reg(super::wide::materialize(cx, bits, inst.span)?),
                _ => b,
            };
            let c = short_imm(cx, c, inst, !is_bank(&b))?;
            (Opcode::DFMA, vec![a, b, c])
        }
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, rounding, vec![d.into()], uses, inst.span)
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

/// `setp.CMP[.BOOL].f64 p[|q], a, b[, c]`: `DSETP.CMP.BOOL p, q, a, b, c`
/// (the encoder derives every comparison from the DSETP family); `b` an
/// immediate as [`short_imm`] keeps it, or the parameter's bank slot on
/// sm_80.
pub(super) fn compare(cx: &mut Lowerer<'_>, inst: &Instruction, p: Operand, q: Operand) -> Lowered {
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
    if inst.has("ftz") {
        return Err(unsupported(inst));
    }
    let f64 = ScalarType::F64;
    let a = src(cx, inst, 1, f64)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let b = match bank_operand(cx, inst, 2)? {
        Some(bank) => bank,
        None => {
            let b = src(cx, inst, 2, f64)?;
            short_imm(cx, b, inst, true)?
        }
    };
    let c = if inst.operands.len() > 3 { src(cx, inst, 3, ScalarType::Pred)? } else { Operand::reg(Reg::PT) };
    cx.emit(Opcode::DSETP, &[cmp, boolean], vec![p, q], vec![a, b, c], inst.span)
}

/// An f64 immediate as SASS takes it (its high word only: `DFMA R8, R2,
/// R8, 1`, `DADD R6, R8, -6.755e15`) when its low word is zero; otherwise
/// a slot of constant bank 2 where the instruction has no other bank
/// operand (`bank_free`; sm_8x kernels: `DMUL R2, R2, c[0x2][0x0]`, as
/// NVIDIA's fp_convert and math_double), else a register pair; other
/// operands as they are.
fn short_imm(cx: &mut Lowerer<'_>, x: Operand, inst: &Instruction, bank_free: bool) -> Lowered<Operand> {
    match x.kind {
        OperandKind::Imm(Imm::F64(bits)) if bits as u32 != 0 => {
            let slot = if bank_free { cx.bank2_constant(bits) } else { None };
            match slot {
                Some(slot) => Ok(slot),
                None => Ok(Operand::reg(super::wide::materialize(cx, bits, inst.span)?)),
            }
        }
        _ => Ok(x),
    }
}

fn is_bank(x: &Operand) -> bool {
    matches!(x.kind, OperandKind::CBank(_))
}

/// `min.f64`/`max.f64 d, a, b`: NVIDIA's `DSETP.MIN.AND p, q, a, b, PT`
/// (`p`: `a` is the result; `q`: both are NaN), `SEL` of the low words and
/// `FSEL` of the high words by `p`, and when `q` the high word of `b` with
/// its quiet bit set (`LOP3.LUT 0x80000`): PTX's NaN result. Built in a
/// fresh pair, copied to `d` under the PTX guard.
fn min_max(cx: &mut Lowerer<'_>, inst: &Instruction, max: bool) -> Lowered {
    use super::seq::Seq;
    let d = dst(cx, inst, 0)?;
    let seq = Seq::start(cx, inst.span);
    let pair = |i: usize, cx: &mut Lowerer<'_>| -> Lowered<Reg> {
        match src(cx, inst, i, ScalarType::F64)? {
            Operand { kind: OperandKind::Reg(r), .. } if r.width == 2 => Ok(r),
            Operand { kind: OperandKind::Imm(Imm::F64(bits)), .. } => super::wide::materialize(cx, bits, inst.span),
            _ => Err(unsupported(inst)),
        }
    };
    let (a, b) = (pair(1, cx)?, pair(2, cx)?);
    let t = min_max_pair(cx, &seq, a, b, max)?;
    seq.finish(cx);
    cx.copy_pair(d.into(), t.into(), inst.span)
}

/// [`min_max`]'s sequence on the pairs `a` and `b`, unguarded, into a
/// fresh pair.
pub(super) fn min_max_pair(cx: &mut Lowerer<'_>, seq: &super::seq::Seq, a: Reg, b: Reg, max: bool) -> Lowered<Reg> {
    use super::seq::when;
    let (p, q) = (cx.temp(ori_ir::RegFile::P, 1), cx.temp(ori_ir::RegFile::P, 1));
    let cmp = if max { "MAX" } else { "MIN" };
    let pt = Operand::reg(Reg::PT);
    seq.op(cx, Opcode::DSETP, &[cmp, "AND"], vec![p.into(), q.into()], vec![a.into(), b.into(), pt.clone()])?;
    let t = cx.temp(ori_ir::RegFile::R, 2);
    let word = |r: Reg, w: u8| Operand::reg(r.part(w, 1));
    let lo = Operand::reg(t.part(0, 1)).undef();
    seq.op(cx, Opcode::SEL, &[], vec![lo], vec![word(a, 0), word(b, 0), p.into()])?;
    seq.op(cx, Opcode::FSEL, &[], vec![word(t, 1)], vec![word(a, 1), word(b, 1), p.into()])?;
    let uses = vec![word(b, 1), Operand::int(0x80000), Operand::reg(Reg::RZ), Operand::int(0xfc), pt.inverted()];
    seq.op_if(cx, when(q), Opcode::LOP3, &["LUT"], vec![word(t, 1)], uses)?;
    Ok(t)
}
