//! `bra`, `ret`, `exit`, `trap`, `bar.sync` and `bar.warp.sync`.

use ori_ir::{Opcode, Operand};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::{dst, operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `[@p] bra[.uni] L`: `BRA`; the code after it starts a new block.
pub(super) fn bra<'m>(cx: &mut Lowerer<'m>, inst: &'m Instruction) -> Lowered {
    let ExprKind::Name(label, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    let target = cx.label_block(label.name.as_str());
    cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(target)], inst.span)?;
    cx.end_block();
    Ok(())
}

/// `ret` of a kernel and `exit`: `EXIT`; `ret` of an inlined device
/// function: a branch to the code after the call.
pub(super) fn exit(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if let Some(cont) = cx.ret_target().filter(|_| inst.opcode.name.as_str() == "ret") {
        cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(cont)], inst.span)?;
        cx.end_block();
        return Ok(());
    }
    if cx.func.kind != ori_ir::FunctionKind::Entry {
        if inst.opcode.name.as_str() != "ret" {
            return Err(unsupported(inst));
        }
        return cx.abi_ret(inst.span);
    }
    cx.emit(Opcode::EXIT, &[], vec![], vec![], inst.span)?;
    cx.end_block();
    Ok(())
}

/// `trap`: `BPT.TRAP 0x1`, NVIDIA's. The code after it stays reachable in
/// the CFG (NVIDIA's ends the path there; keeping it only costs code).
pub(super) fn trap(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !inst.modifiers.is_empty() || !inst.operands.is_empty() {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::BPT, &["TRAP"], vec![], vec![Operand::int(1)], inst.span)
}

/// `bar.sync N` / `barrier.sync[.aligned] N` with an immediate barrier and
/// the whole CTA: `BAR.SYNC.DEFER_BLOCKING N` (the sm_70+ form, which
/// threads of a diverged warp may reach separately).
pub(super) fn barrier(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    if words == ["warp", "sync"] {
        return warp_sync(cx, inst);
    }
    if words.first() == Some(&"red") || words.starts_with(&["cta", "red"]) {
        return barrier_reduction(cx, inst, &words);
    }
    if !matches!(words.as_slice(), ["sync"] | ["sync", "aligned"]) || inst.operands.len() != 1 {
        return Err(unsupported(inst));
    }
    let ExprKind::Int { value, .. } = operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    if value > 15 {
        return Err(unsupported(inst));
    }
    cx.reconverge(inst.span)?;
    cx.emit(Opcode::BAR, &["SYNC", "DEFER_BLOCKING"], vec![], vec![Operand::int(value as i64)], inst.span)
}

/// `bar[.cta].red.{popc.u32,and.pred,or.pred}[.aligned] d, a[, b], c`
/// (`__syncthreads_count/and/or`), NVIDIA's sequence: `BAR.RED.OP.
/// DEFER_BLOCKING a[, b], c` (barrier `a` and the thread count `b` as
/// immediates or `a` in a register, `c` possibly negated), then the
/// result: `B2R.RESULT d` for the count, `B2R.RESULT RZ, d` for a
/// predicate.
fn barrier_reduction(cx: &mut Lowerer<'_>, inst: &Instruction, words: &[&str]) -> Lowered {
    let words: Vec<&str> = words.iter().copied().filter(|w| !matches!(*w, "cta" | "aligned")).collect();
    let (op, count) = match words.as_slice() {
        ["red", "popc", "u32"] => ("POPC", true),
        ["red", "and", "pred"] => ("AND", false),
        ["red", "or", "pred"] => ("OR", false),
        _ => return Err(unsupported(inst)),
    };
    let n = inst.operands.len();
    if !(3..=4).contains(&n) {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let mut uses = Vec::new();
    for i in 1..n - 1 {
        uses.push(match &operand(inst, i)?.kind {
            ExprKind::Int { value, .. } if (i == 1 && *value <= 15) || (i == 2 && *value <= 0xfff) => {
                Operand::int(*value as i64)
            }
            _ if i == 1 && n == 3 => src(cx, inst, i, ptx_syntax::ast::ScalarType::U32)?,
            _ => return Err(unsupported(inst)),
        });
    }
    let pred = src(cx, inst, n - 1, ptx_syntax::ast::ScalarType::Pred)?;
    if pred.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    uses.push(pred);
    cx.reconverge(inst.span)?;
    cx.emit(Opcode::BAR, &["RED", op, "DEFER_BLOCKING"], vec![], uses, inst.span)?;
    if count {
        cx.emit(Opcode::B2R, &["RESULT"], vec![d.into()], vec![], inst.span)
    } else {
        cx.emit(Opcode::B2R, &["RESULT"], vec![Operand::reg(ori_ir::Reg::RZ), d.into()], vec![], inst.span)
    }
}

/// `bar.warp.sync -1` (`__syncwarp()`): the warp's reconvergence, nothing
/// where it is known to run together (NVIDIA's code has no `WARPSYNC`
/// there), else `WARPSYNC.ALL` / `WARPSYNC 0xffffffff`. Partial masks are
/// not lowered yet.
fn warp_sync(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let full = match &operand(inst, 0)?.kind {
        ExprKind::Int { value, .. } => *value as u32 == u32::MAX,
        ExprKind::Unary(ptx_syntax::ast::UnaryOp::Neg, inner) => matches!(inner.kind, ExprKind::Int { value: 1, .. }),
        _ => false,
    };
    if !full || inst.operands.len() != 1 {
        return Err(unsupported(inst));
    }
    cx.reconverge(inst.span)
}
