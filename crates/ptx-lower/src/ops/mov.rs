//! `mov` and `cvta`: copies (and special-register reads).

use ori_ir::{Imm, Opcode, Operand, OperandKind};
use ptx_syntax::ast::{Expr, ExprKind, Instruction, StateSpace};

use super::{dst, operand, special, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `mov.T d, s`: `MOV`, or the special register read straight into `d`.
pub(super) fn mov(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if ty.bits() == 64 {
        match (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind) {
            (ExprKind::Braces(parts), _) => return unpack64(cx, inst, parts),
            (_, ExprKind::Braces(parts)) => return pack64(cx, inst, parts),
            (_, ExprKind::Int { value, .. }) => return const64(cx, inst, *value),
            (_, ExprKind::Float(f)) => {
                let bits = super::f64_bits(f).ok_or_else(|| unsupported(inst))?;
                return const64(cx, inst, bits);
            }
            (_, ExprKind::Unary(ptx_syntax::ast::UnaryOp::Neg, inner)) => {
                if let ExprKind::Int { value, .. } = inner.kind {
                    return const64(cx, inst, value.wrapping_neg());
                }
            }
            _ => {}
        }
    }
    let d = dst(cx, inst, 0)?;
    let s = operand(inst, 1)?;
    if let ExprKind::Name(r, component) = &s.kind
        && cx.regs.ty(r.name.as_str()).is_none()
    {
        if component.is_none() && cx.shared_address(r.name.as_str(), 0, d, s.span)? {
            return Ok(());
        }
        let ExprKind::Name(dest, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
        if component.is_none() && cx.local_address(r.name.as_str(), 0, d, dest.name.as_str(), s.span)? {
            return Ok(());
        }
        if component.is_none() && cx.global_var_address(r.name.as_str(), d, dest.name.as_str(), s.span)? {
            return Ok(());
        }
        if component.is_none() && cx.function_address(r.name.as_str(), d, s.span)? {
            return Ok(());
        }
        if component.is_none() && cx.param_address(r.name.as_str(), d, dest.name.as_str(), s.span)? {
            return Ok(());
        }
        return special(cx, r.name.as_str(), component.as_ref().map(|c| c.as_str()), d, s.span);
    }
    if d.width == 2 {
        return copy64(cx, inst);
    }
    let s = match src(cx, inst, 1, ty)? {
        // MOV moves bits: an f32 literal is its bit pattern.
        Operand { kind: OperandKind::Imm(Imm::F32(bits)), .. } => Operand::int(i64::from(bits)),
        s => s,
    };
    if let (OperandKind::Imm(Imm::Int(v)), ExprKind::Name(name, None)) = (&s.kind, &operand(inst, 0)?.kind)
        && cx.single_def(name.name.as_str())
    {
        cx.consts.insert(name.name.as_str().to_string(), *v);
    }
    if d.file != ori_ir::RegFile::R
        || s.as_reg().is_some_and(|r| r.width != d.width)
        || (d.width > 1 && s.as_reg().is_none())
    {
        // Predicate copies need P2R/PLOP3; wide immediates need the halves of a pair.
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::MOV, &[], vec![d.into()], vec![s], inst.span)
}

/// `mov.b64 {lo, hi}, s`: each word of `s`. A destination written only
/// here, from a source written once, becomes that word of the source's
/// pair without an instruction.
fn unpack64(cx: &mut Lowerer<'_>, inst: &Instruction, parts: &[Expr]) -> Lowered {
    let ExprKind::Name(s, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let s = s.name.as_str();
    let sreg = super::read_reg(cx, s, inst.span)?;
    if parts.len() != 2 || sreg.width != 2 {
        return Err(unsupported(inst));
    }
    for (i, part) in parts.iter().enumerate() {
        let word = sreg.part(i as u8, 1);
        match &part.kind {
            ExprKind::Sink => {}
            ExprKind::Name(d, None) => {
                let d = d.name.as_str();
                if cx.single_def(d) && cx.single_def(s) && cx.regs.alias(d, word) {
                    continue;
                }
                let dreg = cx.reg(d, part.span)?;
                cx.emit(Opcode::MOV, &[], vec![dreg.into()], vec![word.into()], inst.span)?;
            }
            _ => return Err(unsupported(inst)),
        }
    }
    Ok(())
}

/// `mov.b64 d, {lo, hi}`: a `MOV` into each word of `d`.
fn pack64(cx: &mut Lowerer<'_>, inst: &Instruction, parts: &[Expr]) -> Lowered {
    let d = dst(cx, inst, 0)?;
    if parts.len() != 2 || d.width != 2 {
        return Err(unsupported(inst));
    }
    let mut words = Vec::with_capacity(2);
    for part in parts {
        words.push(match &part.kind {
            // A register never written is an undefined word: left as is.
            ExprKind::Name(r, None) if cx.never_written(r.name.as_str()) => None,
            ExprKind::Name(r, None) => Some(Operand::reg(cx.reg(r.name.as_str(), part.span)?)),
            ExprKind::Int { value, .. } => Some(Operand::int(i64::from(*value as u32))),
            _ => return Err(unsupported(inst)),
        });
    }
    // Reading a word of `d` itself would read it after the first MOV
    // replaced it: go through a fresh pair then.
    let reads_d = words.iter().flatten().any(|w| w.as_reg().is_some_and(|r| r.num == d.num && r.file == d.file));
    let target = if reads_d { cx.temp(ori_ir::RegFile::R, 2) } else { d };
    let mut first = true;
    for (i, w) in words.into_iter().enumerate() {
        let Some(w) = w else { continue };
        let def = Operand::reg(target.part(i as u8, 1));
        let def = if first { def.undef() } else { def };
        first = false;
        cx.emit(Opcode::MOV, &[], vec![def], vec![w], inst.span)?;
    }
    if reads_d {
        cx.copy_pair(d.into(), target.into(), inst.span)?;
    }
    Ok(())
}

/// `mov.b64 d, imm`: a `MOV` of each word.
fn const64(cx: &mut Lowerer<'_>, inst: &Instruction, value: u64) -> Lowered {
    let d = dst(cx, inst, 0)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    for i in 0..2u8 {
        let word = (value >> (32 * u32::from(i))) as u32;
        let def = Operand::reg(d.part(i, 1));
        let def = if i == 0 { def.undef() } else { def };
        cx.emit(Opcode::MOV, &[], vec![def], vec![Operand::int(i64::from(word))], inst.span)?;
    }
    Ok(())
}

/// `cvta[.to].global.u64 d, s`: generic and global addresses coincide, so a
/// copy.
pub(super) fn cvta(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if inst.space() != Some(StateSpace::Global) {
        return Err(unsupported(inst));
    }
    copy64(cx, inst)
}

/// A 64-bit copy. A copy of a parameter is that parameter too; on sm_80,
/// where 64-bit parameters stay in the bank, it emits nothing. When both
/// registers are written once, the copy shares the source's register;
/// otherwise it is `IMAD.WIDE.U32 d, RZ, RZ, s` (0 * 0 + s: SASS has no
/// 64-bit MOV).
fn copy64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let (ExprKind::Name(d, None), ExprKind::Name(s, None)) = (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind) else {
        return Err(unsupported(inst));
    };
    let (d, s) = (d.name.as_str(), s.name.as_str());
    let single = cx.single_def(d) && cx.single_def(s);
    if let Some(p) = cx.param_values.get(s).copied().filter(|_| cx.single_def(d)) {
        cx.param_values.insert(d.to_string(), p);
        if cx.target.isa.wide_params_in_bank {
            return Ok(());
        }
    }
    if single {
        let sreg = cx.reg(s, inst.span)?;
        if sreg.width == 2 && cx.regs.alias(d, sreg) {
            return Ok(());
        }
    }
    let ty = ty(inst)?;
    let dreg = dst(cx, inst, 0)?;
    let sreg = src(cx, inst, 1, ty)?;
    if sreg.as_reg().is_none_or(|r| r.width != dreg.width) {
        return Err(unsupported(inst));
    }
    cx.copy_pair(dreg.into(), sreg, inst.span)
}
