//! `mov` and `cvta`: copies (and special-register reads).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg, RegFile, SpecialReg};
use ptx_syntax::ast::{Expr, ExprKind, Instruction, StateSpace};

use super::{dst, operand, read_reg, special, src, ty, unsupported};
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
    if ty.bits() == 128 {
        return mov128(cx, inst);
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

/// `mov.b128` between a register quad and two 64-bit halves (`{lo, hi}`),
/// or a copy of a quad: a `MOV` per word.
fn mov128(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    // (destination word, source word) pairs; `None` skips a `_` half.
    let mut moves: Vec<(Reg, Reg)> = Vec::with_capacity(4);
    let halves = |cx: &mut Lowerer<'_>, parts: &[Expr]| -> Lowered<Vec<Option<Reg>>> {
        if parts.len() != 2 {
            return Err(unsupported(inst));
        }
        let mut out = Vec::with_capacity(2);
        for part in parts {
            out.push(match &part.kind {
                ExprKind::Sink => None,
                ExprKind::Name(r, None) => Some(cx.reg(r.name.as_str(), part.span)?).filter(|r| r.width == 2),
                _ => return Err(unsupported(inst)),
            });
        }
        Ok(out)
    };
    match (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind) {
        (ExprKind::Braces(parts), ExprKind::Name(s, None)) => {
            let s = read_reg(cx, s.name.as_str(), inst.span)?;
            if s.width != 4 {
                return Err(unsupported(inst));
            }
            for (h, d) in halves(cx, parts)?.into_iter().enumerate() {
                let Some(d) = d else { continue };
                for w in 0..2u8 {
                    moves.push((d.part(w, 1), s.part(2 * h as u8 + w, 1)));
                }
            }
        }
        (ExprKind::Name(..), ExprKind::Braces(parts)) => {
            let d = dst(cx, inst, 0)?;
            if d.width != 4 {
                return Err(unsupported(inst));
            }
            for (h, s) in halves(cx, parts)?.into_iter().enumerate() {
                let Some(s) = s else { return Err(unsupported(inst)) };
                for w in 0..2u8 {
                    moves.push((d.part(2 * h as u8 + w, 1), s.part(w, 1)));
                }
            }
        }
        (ExprKind::Name(..), ExprKind::Name(s, None)) => {
            let d = dst(cx, inst, 0)?;
            let s = read_reg(cx, s.name.as_str(), inst.span)?;
            if d.width != 4 || s.width != 4 {
                return Err(unsupported(inst));
            }
            if d == s {
                return Ok(());
            }
            moves.extend((0..4u8).map(|w| (d.part(w, 1), s.part(w, 1))));
        }
        _ => return Err(unsupported(inst)),
    }
    // The halves are 64-bit registers and the quad another register, so
    // no write clobbers a word still to be read; every register written
    // here is written whole, starting (word 0) with an `undef` write.
    for (d, s) in moves {
        let def = Operand::reg(d);
        let def = if d.word == Some(0) { def.undef() } else { def };
        cx.emit(Opcode::MOV, &[], vec![def], vec![Operand::reg(s)], inst.span)?;
    }
    Ok(())
}

/// `mov.b64 {lo, hi}, s`: each word of `s`. A destination written only
/// here, from a source written once, becomes that word of the source's
/// pair without an instruction.
fn unpack64(cx: &mut Lowerer<'_>, inst: &Instruction, parts: &[Expr]) -> Lowered {
    let ExprKind::Name(s, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let s = s.name.as_str();
    let sreg = super::read_reg(cx, s, inst.span)?;
    if parts.len() == 4 && sreg.width == 2 {
        return unpack64_halves(cx, inst, sreg, parts);
    }
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

/// `mov.b64 {a, b, c, d}, s` of four 16-bit parts, NVIDIA's code: the
/// low half of each word is the word (a 16-bit register's high half is
/// don't-care), the high half the word shifted down (`SHF.R.U32.HI`; NVIDIA
/// writes `PRMT 0x7632`, the same low half). `_` skips a part.
fn unpack64_halves(cx: &mut Lowerer<'_>, inst: &Instruction, sreg: Reg, parts: &[Expr]) -> Lowered {
    let mut dests = Vec::with_capacity(4);
    for part in parts {
        dests.push(match &part.kind {
            ExprKind::Sink => None,
            ExprKind::Name(d, None) => Some(cx.reg(d.name.as_str(), part.span)?),
            _ => return Err(unsupported(inst)),
        });
    }
    // The destinations are 16-bit registers, never a word of the 64-bit
    // source, so the order of the writes does not matter.
    for (i, d) in dests.into_iter().enumerate() {
        let Some(d) = d else { continue };
        let word = Operand::reg(sreg.part((i / 2) as u8, 1));
        if i % 2 == 0 {
            cx.emit(Opcode::MOV, &[], vec![d.into()], vec![word], inst.span)?;
        } else {
            let uses = vec![Operand::reg(Reg::RZ), Operand::int(16), word];
            cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![d.into()], uses, inst.span)?;
        }
    }
    Ok(())
}

/// `mov.b64 d, {a, b, c, d}` of four 16-bit parts: each word joined from
/// its two halves with `PRMT lo, 0x5410, hi` (NVIDIA's), or a `MOV` of the
/// word when both halves are constants.
fn pack64_halves(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, parts: &[Expr]) -> Lowered {
    let mut halves = Vec::with_capacity(4);
    for part in parts {
        halves.push(match &part.kind {
            // A register never written is an undefined half: any value.
            ExprKind::Name(r, None) if cx.never_written(r.name.as_str()) => (Operand::reg(Reg::RZ), Some(0)),
            ExprKind::Name(r, None) => {
                let known = cx.consts.get(r.name.as_str()).map(|&v| v as u32 & 0xffff);
                (Operand::reg(cx.reg(r.name.as_str(), part.span)?), known)
            }
            ExprKind::Int { value, .. } => {
                let v = *value as u32 & 0xffff;
                (Operand::int(i64::from(v)), Some(v))
            }
            _ => return Err(unsupported(inst)),
        });
    }
    let mut first = true;
    for (i, pair) in halves.chunks(2).enumerate() {
        let def = Operand::reg(d.part(i as u8, 1));
        let def = if first { def.undef() } else { def };
        first = false;
        let [(lo, lo_known), (hi, hi_known)] = pair else { return Err(unsupported(inst)) };
        if let (Some(l), Some(h)) = (lo_known, hi_known) {
            let word = Operand::int(i64::from(h << 16 | l));
            cx.emit(Opcode::MOV, &[], vec![def], vec![word], inst.span)?;
            continue;
        }
        let mut regs = Vec::with_capacity(2);
        for half in [lo, hi] {
            regs.push(if half.as_reg().is_some() {
                half.clone()
            } else {
                let t = cx.temp(RegFile::R, 1);
                cx.emit(Opcode::MOV, &[], vec![t.into()], vec![half.clone()], inst.span)?;
                t.into()
            });
        }
        let uses = vec![regs[0].clone(), Operand::int(0x5410), regs[1].clone()];
        cx.emit(Opcode::PRMT, &[], vec![def], uses, inst.span)?;
    }
    Ok(())
}

/// `mov.b64 d, {lo, hi}`: a `MOV` into each word of `d`.
fn pack64(cx: &mut Lowerer<'_>, inst: &Instruction, parts: &[Expr]) -> Lowered {
    let d = dst(cx, inst, 0)?;
    if parts.len() == 4 && d.width == 2 {
        return pack64_halves(cx, inst, d, parts);
    }
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

/// `cvta[.to].{global,local,shared}.u64 d, s`: generic and global
/// addresses coincide, so a copy; the local and shared windows are an
/// offset.
pub(super) fn cvta(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    match inst.space() {
        Some(StateSpace::Global) => copy64(cx, inst),
        Some(StateSpace::Local) => cvta_window(cx, inst, cx.target.launch_bank.local_window),
        // sm_90 has a shared-window register; before it the base is in
        // the bank as the local window's is.
        Some(StateSpace::Shared) if !inst.has("shared::cluster") && cx.target.isa.bank_operands => {
            cvta_window(cx, inst, SHARED_WINDOW_BANK)
        }
        Some(StateSpace::Shared) if !inst.has("shared::cluster") => cvta_shared_window(cx, inst),
        _ => Err(unsupported(inst)),
    }
}

/// Where sm_7x/sm_8x drivers put the shared window's 64-bit base in
/// constant bank 0 (NVIDIA's cubins read it there).
const SHARED_WINDOW_BANK: i32 = 0x18;

/// The 64-bit operands of a `cvta`: `d` and `a`, register pairs.
fn cvta_operands(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<(Reg, Reg)> {
    let ExprKind::Name(s, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let s = read_reg(cx, s.name.as_str(), s.span)?;
    let d = dst(cx, inst, 0)?;
    if d.width != 2 || s.width != 2 {
        return Err(unsupported(inst));
    }
    Ok((d, s))
}

/// `cvta[.to].{local,shared}.u64 d, a` through a window whose 64-bit base
/// the driver puts in bank 0 at `bank`: `d = a + base` (`.to`: `a -
/// base`), NVIDIA's 64-bit `IADD3` + `IADD3.X` over the whole of `a` (an
/// address outside the window keeps its high bits, as NVIDIA's code
/// computes it). sm_90 reads each word with `ULDC` first.
fn cvta_window(cx: &mut Lowerer<'_>, inst: &Instruction, bank: i32) -> Lowered {
    let span = inst.span;
    let (d, s) = cvta_operands(cx, inst)?;
    let to = inst.has("to");
    let word = |cx: &mut Lowerer<'_>, w: i32| -> Lowered<Operand> {
        let c = Operand::cbank(0, bank + 4 * w);
        if cx.target.isa.bank_operands {
            return Ok(c);
        }
        let u = cx.temp(RegFile::UR, 1);
        cx.emit_unguarded(Opcode::ULDC, &[], vec![u.into()], vec![c], span)?;
        Ok(u.into())
    };
    let rz = || Operand::reg(Reg::RZ);
    let carry = cx.temp(RegFile::P, 1);
    // `d` may be `s`: each word of `s` is read before its word of `d` is
    // written.
    let b0 = word(cx, 0)?;
    let b0 = if to { b0.negated() } else { b0 };
    let defs = vec![Operand::reg(d.part(0, 1)).undef(), carry.into()];
    cx.emit(Opcode::IADD3, &[], defs, vec![Operand::reg(s.part(0, 1)), b0, rz()], span)?;
    let mut b1 = word(cx, 1)?;
    if to {
        // The encoder knows `~` on registers there, not on the bank or a
        // uniform register.
        if b1.as_reg().is_none_or(|r| r.file != RegFile::R) {
            let t = cx.temp(RegFile::R, 1);
            cx.emit(Opcode::MOV, &[], vec![t.into()], vec![b1], span)?;
            b1 = t.into();
        }
        b1.flags.bitnot = true;
    }
    let uses = vec![Operand::reg(s.part(1, 1)), b1, rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::IADD3, &["X"], vec![Operand::reg(d.part(1, 1))], uses, span)
}

/// `cvta[.to].shared.u64 d, a` on sm_90, NVIDIA's: the low word is the
/// shared address itself, the high word `SR_SWINHI` (`.to`: zero).
fn cvta_shared_window(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let span = inst.span;
    let (d, s) = cvta_operands(cx, inst)?;
    if d != s {
        cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(0, 1)).undef()], vec![Operand::reg(s.part(0, 1))], span)?;
    }
    if inst.has("to") {
        return cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(1, 1))], vec![Operand::reg(Reg::RZ)], span);
    }
    let window = vec![OperandKind::Special(SpecialReg::SwinHi).into()];
    cx.emit(Opcode::S2R, &[], vec![Operand::reg(d.part(1, 1))], window, span)
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
