//! `bra`, `ret` and `exit`.

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

/// `ret` of a kernel and `exit`: `EXIT`.
pub(super) fn exit(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if cx.func.kind != ori_ir::FunctionKind::Entry {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::EXIT, &[], vec![], vec![], inst.span)?;
    cx.end_block();
    Ok(())
}
