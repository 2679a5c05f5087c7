//! Warp-synchronous data exchange: `shfl.sync`.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{BinaryOp, ExprKind, Instruction, ScalarType, UnaryOp};

use super::{operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `shfl.sync.MODE.b32 d[|p], a, b, c, membermask`: `SHFL.MODE p, d, a, b,
/// c` with `PT` for an absent `p`. Only the full member mask is lowered
/// (NVIDIA emits no `WARPSYNC` for it); lane and clamp operands that hold
/// constants become immediates, as in NVIDIA's code.
pub(super) fn shfl(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let mode = match words.as_slice() {
        ["sync", mode, "b32"] => match *mode {
            "up" => "UP",
            "down" => "DOWN",
            "bfly" => "BFLY",
            "idx" => "IDX",
            _ => return Err(unsupported(inst)),
        },
        _ => return Err(unsupported(inst)),
    };
    if constant(cx, inst, 4)? != Some(-1) {
        return Err(unsupported(inst));
    }
    let (d, p) = match &operand(inst, 0)?.kind {
        ExprKind::Name(d, None) => (d, None),
        ExprKind::Binary(BinaryOp::Or, d, p) => match (&d.kind, &p.kind) {
            (ExprKind::Name(d, None), ExprKind::Name(p, None)) => (d, Some(p)),
            _ => return Err(unsupported(inst)),
        },
        _ => return Err(unsupported(inst)),
    };
    let d = cx.reg(d.name.as_str(), d.span)?;
    // An unread lane predicate is not written (PT), as in NVIDIA's code.
    let p = match p.filter(|p| !cx.unread(p.name.as_str())) {
        Some(p) => cx.reg(p.name.as_str(), p.span)?,
        None => Reg::PT,
    };
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let b = lane_operand(cx, inst, 2)?;
    let c = lane_operand(cx, inst, 3)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.reconverge(inst.span)?;
    cx.emit(Opcode::SHFL, &[mode], vec![p.into(), d.into()], vec![a, b, c], inst.span)
}

/// Operand `i` as an immediate when it is or holds a constant.
fn lane_operand(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    match constant(cx, inst, i)? {
        Some(v) => Ok(Operand::int(i64::from(v as u32))),
        None => src(cx, inst, i, ScalarType::B32),
    }
}

/// The value of operand `i` when it is an immediate or a register that
/// holds a constant.
fn constant(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<i32>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(*value as u32 as i32),
        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
            ExprKind::Int { value, .. } => Some((value as u32 as i32).wrapping_neg()),
            _ => None,
        },
        ExprKind::Name(r, None) => cx.consts.get(r.name.as_str()).map(|v| *v as i32),
        _ => None,
    })
}
