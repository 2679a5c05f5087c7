//! `mov` and `cvta`: copies (and special-register reads).

use ori_ir::Opcode;
use ptx_syntax::ast::{ExprKind, Instruction, StateSpace};

use super::{dst, operand, special, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `mov.T d, s`: `MOV`, or the special register read straight into `d`.
pub(super) fn mov(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let d = dst(cx, inst, 0)?;
    let s = operand(inst, 1)?;
    if let ExprKind::Name(r, component) = &s.kind {
        if cx.regs.ty(r.name.as_str()).is_none() {
            return special(cx, r.name.as_str(), component.as_ref().map(|c| c.as_str()), d, s.span);
        }
    }
    let s = src(cx, inst, 1, ty)?;
    if d.file != ori_ir::RegFile::R
        || s.as_reg().is_some_and(|r| r.width != d.width)
        || (d.width > 1 && s.as_reg().is_none())
    {
        // Predicate copies need P2R/PLOP3; wide immediates need the halves of a pair.
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::MOV, &[], vec![d.into()], vec![s], inst.span)
}

/// `cvta[.to].global.u64 d, s`: generic and global addresses coincide, so a
/// copy (which copy propagation then removes).
pub(super) fn cvta(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if inst.space() != Some(StateSpace::Global) {
        return Err(unsupported(inst));
    }
    let ty = ty(inst)?;
    let d = dst(cx, inst, 0)?;
    let s = src(cx, inst, 1, ty)?;
    if s.as_reg().is_none_or(|r| r.width != d.width) {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::MOV, &[], vec![d.into()], vec![s], inst.span)
}
