//! `prefetch`, `prefetchu` and `isspacep`: cache control and the state
//! space of a generic address, as NVIDIA's ptxas 13.5 writes them on sm_80
//! and sm_90 (probes read with cuobjdump; the encoder's forms are in
//! mercury-encode's `tables/sweep15_probed.rs`).

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
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
fn isspacep(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut spaces = inst.modifiers.iter().map(|m| m.name.as_str());
    let (Some(space), None) = (spaces.next(), spaces.next()) else { return Err(unsupported(inst)) };
    let d = dst(cx, inst, 0)?;
    if space == "const" {
        let pt = Operand::reg(Reg::PT);
        let uses = vec![pt.clone(), pt.clone(), pt.clone(), Operand::int(0), Operand::int(0)];
        return cx.emit(Opcode::PLOP3, &["LUT"], vec![d.into(), pt], uses, inst.span);
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
