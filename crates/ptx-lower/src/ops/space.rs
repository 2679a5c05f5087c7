//! `prefetch`, `prefetchu` and `isspacep`: cache control and the state
//! space of a generic address, as NVIDIA's ptxas 13.5 writes them on sm_80
//! and sm_90 (probes read with cuobjdump; the encoder's forms are in
//! mercury-encode's `tables/sweep15_probed.rs`).

use ori_ir::{Address, Opcode, Operand, OperandKind, ParamWindow, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, StateSpace};

use super::{dst, operand, read_reg, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// True for the instructions this module lowers.
pub(super) fn handles(inst: &Instruction) -> bool {
    matches!(inst.opcode.name.as_str(), "prefetch" | "prefetchu" | "isspacep")
}

/// Lowers `prefetch`, `prefetchu` or `isspacep`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    match inst.opcode.name.as_str() {
        "prefetch" | "prefetchu" => prefetch(cx, inst),
        "isspacep" => isspacep(cx, inst),
        _ => Err(unsupported(inst)),
    }
}

/// The cache operation of a prefetch level: `.L1` `PF1`, `.L2` and
/// `.L2::evict_normal` `PF2`, `.L2::evict_last` `PML2` (NVIDIA's words for
/// every level, global and generic alike).
fn level(inst: &Instruction) -> Option<&'static str> {
    let mut found = None;
    for m in &inst.modifiers {
        let op = match m.name.as_str() {
            "L1" => "PF1",
            "L2" | "L2::evict_normal" => "PF2",
            "L2::evict_last" => "PML2",
            "global" | "local" => continue,
            _ => return None,
        };
        if found.replace(op).is_some() {
            return None;
        }
    }
    found
}

/// `prefetch{,.global}.level [a]` and `prefetchu.L1 [a]`: `CCTL.E.<op>
/// [R.64+off]` through the generic (64-bit) address; `prefetch.local`:
/// `CCTLL.<op> [R+off]` in the local window. Neither changes any state
/// the program can read.
fn prefetch(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let op = level(inst).ok_or_else(|| unsupported(inst))?;
    if inst.operands.len() != 1 {
        return Err(unsupported(inst));
    }
    if inst.space() == Some(StateSpace::Local) {
        let addr = super::mem::local_address(cx, inst, 0)?;
        return cx.emit(Opcode::CCTLL, &[op], vec![], vec![addr], inst.span);
    }
    if !matches!(inst.space(), Some(StateSpace::Global) | None) {
        return Err(unsupported(inst));
    }
    let (base, offset) = super::mem::address(operand(inst, 0)?).ok_or_else(|| unsupported(inst))?;
    let name = base.name.as_str();
    let base = if cx.regs.ty(name).is_some_and(|t| t.bits() == 64) {
        read_reg(cx, name, base.span)?
    } else if matches!(cx.globals.get(name), Some(crate::func::GlobalRef::Global(_))) {
        let t = cx.temp(RegFile::R, 2);
        cx.global_var_address(name, t, "", inst.span)?;
        t
    } else {
        return Err(unsupported(inst));
    };
    let offset = if i32::try_from(offset).is_ok() { offset } else { return Err(unsupported(inst)) };
    let addr: Operand = OperandKind::Mem(Address { base: Some(base), offset, ..Address::default() }).into();
    cx.emit(Opcode::CCTL, &["E", op], vec![], vec![addr], inst.span)
}

/// `isspacep.space p, a` of a 64-bit register: `QSPC.E.{G,S,L} p, RZ,
/// [a]` for global, shared (`::cta`) and local memory. NVIDIA's global
/// answer also leaves out a constant window (`c[0x0][0x50]` on sm_80,
/// `c[0x0][0xd0]` on sm_90) whose test is empty in its own code (`a >= w
/// && !(a >= w)`, `w <= a && w > a`), and its `.const` answer is that
/// test alone: false for every address, which `PLOP3` writes here.
/// `.param` tests the parameter window ([`param_window`]).
fn isspacep(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut spaces = inst.modifiers.iter().map(|m| m.name.as_str());
    let (Some(space), None) = (spaces.next(), spaces.next()) else { return Err(unsupported(inst)) };
    let d = dst(cx, inst, 0)?;
    if space == "const" {
        let pt = Operand::reg(Reg::PT);
        let uses = vec![pt.clone(), pt.clone(), pt.clone(), Operand::int(0), Operand::int(0)];
        return cx.emit(Opcode::PLOP3, &["LUT"], vec![d.into(), pt], uses, inst.span);
    }
    if space == "param" {
        let ExprKind::Name(a, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
        if cx.regs.ty(a.name.as_str()).is_none_or(|t| t.bits() != 64) {
            return Err(unsupported(inst));
        }
        let a = read_reg(cx, a.name.as_str(), a.span)?;
        return param_window(cx, inst, a, d);
    }
    let which = match space {
        "global" => "G",
        "shared" | "shared::cta" => "S",
        "local" => "L",
        _ => return Err(unsupported(inst)),
    };
    let ExprKind::Name(a, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    if cx.regs.ty(a.name.as_str()).is_none_or(|t| t.bits() != 64) {
        return Err(unsupported(inst));
    }
    let a = read_reg(cx, a.name.as_str(), a.span)?;
    let addr: Operand = OperandKind::Mem(Address { base: Some(a), ..Address::default() }).into();
    cx.emit(Opcode::QSPC, &["E", which], vec![d.into(), Reg::RZ.into()], vec![addr], inst.span)
}

/// `isspacep.param p, a`: `lo <= a && a <= hi` over the parameter window
/// as NVIDIA's code bounds it (`ori_ir::ParamWindow`), in 64-bit unsigned
/// compares (`ISETP.GE.U32` and `.EX` pairs).
fn param_window(cx: &mut Lowerer<'_>, inst: &Instruction, a: Reg, d: Reg) -> Lowered {
    let span = inst.span;
    let window = cx.target.family.param_window().ok_or_else(|| unsupported(inst))?;
    let (lo, hi) = match window {
        ParamWindow::Bounds { lo, hi } => (bank_pair(cx, lo, span)?, bank_pair(cx, hi, span)?),
        ParamWindow::FromBase { base, end } => {
            let base = bank_pair(cx, base, span)?;
            let first = Operand::int(i64::from(cx.target.param_base));
            let end: Operand = if cx.target.isa.bank_operands {
                Operand::cbank(0, end)
            } else {
                let t = cx.temp(RegFile::R, 1);
                cx.emit(Opcode::LDC, &[], vec![t.into()], vec![Operand::cbank(0, end)], span)?;
                t.into()
            };
            (add_word(cx, base, first, span)?, add_word(cx, base, end, span)?)
        }
    };
    let above = cx.temp(RegFile::P, 1);
    at_least(cx, above, a, lo, Operand::reg(Reg::PT), span)?;
    at_least(cx, d, hi, a, above.into(), span)
}

/// The 64-bit word of constant bank 0 at `at` in a register pair.
fn bank_pair(cx: &mut Lowerer<'_>, at: i32, span: ptx_syntax::Span) -> Lowered<Reg> {
    let t = cx.temp(RegFile::R, 2);
    if cx.target.isa.bank_operands {
        cx.copy_pair(t.into(), Operand::cbank(0, at), span)?;
    } else {
        cx.emit(Opcode::LDC, &["64"], vec![t.into()], vec![Operand::cbank(0, at)], span)?;
    }
    Ok(t)
}

/// `base + x` with `x` an unsigned 32-bit operand (`IADD3` + `IADD3.X`).
fn add_word(cx: &mut Lowerer<'_>, base: Reg, x: Operand, span: ptx_syntax::Span) -> Lowered<Reg> {
    let (t, carry) = (cx.temp(RegFile::R, 2), cx.temp(RegFile::P, 1));
    let rz = || Operand::reg(Reg::RZ);
    let uses = vec![base.part(0, 1).into(), x, rz()];
    cx.emit(Opcode::IADD3, &[], vec![t.part(0, 1).into(), carry.into()], uses, span)?;
    let uses = vec![base.part(1, 1).into(), rz(), rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::IADD3, &["X"], vec![t.part(1, 1).into()], uses, span)?;
    Ok(t)
}

/// `p = x >= y (64-bit unsigned) && also`.
fn at_least(cx: &mut Lowerer<'_>, p: Reg, x: Reg, y: Reg, also: Operand, span: ptx_syntax::Span) -> Lowered {
    let low = cx.temp(RegFile::P, 1);
    let pt = || Operand::reg(Reg::PT);
    let uses = vec![x.part(0, 1).into(), y.part(0, 1).into(), pt()];
    cx.emit(Opcode::ISETP, &["GE", "U32", "AND"], vec![low.into(), pt()], uses, span)?;
    let uses = vec![x.part(1, 1).into(), y.part(1, 1).into(), also, low.into()];
    cx.emit(Opcode::ISETP, &["GE", "U32", "AND", "EX"], vec![p.into(), pt()], uses, span)
}
