//! `bra`, `ret`, `exit`, `trap`, `bar.sync` and `bar.warp.sync`.

use ori_ir::{Opcode, Operand};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::{operand, unsupported};
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
