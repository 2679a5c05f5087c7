//! Predicate logic: `and`/`or`/`xor`/`not.pred` as `PLOP3.LUT`, and
//! `mov.pred`.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType, UnaryOp};

use super::{dst, operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `PLOP3.LUT d, PT, a, b, PT, lut, 0x0`; the table indexes its inputs as
/// `LOP3.LUT` does (a = 0xf0, b = 0xcc, c = 0xaa; c is `PT` here).
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let pred = ScalarType::Pred;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, pred)?;
    let pt = Operand::reg(Reg::PT);
    let (b, lut) = match inst.opcode.name.as_str() {
        "and" => (src(cx, inst, 2, pred)?, 0xc0),
        "or" => (src(cx, inst, 2, pred)?, 0xfc),
        "xor" => (src(cx, inst, 2, pred)?, 0x3c),
        "not" => (pt.clone(), 0x0f),
        _ => return Err(unsupported(inst)),
    };
    if a.as_reg().is_none() || b.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let uses = vec![a, b, pt.clone(), Operand::int(lut), Operand::int(0)];
    cx.emit(Opcode::PLOP3, &["LUT"], vec![d.into(), pt], uses, inst.span)
}

/// `mov.pred d, s`. When both are written once, `d` is `s` (no
/// instruction, as NVIDIA's code has none). Otherwise `PLOP3.LUT d, PT, s,
/// PT, PT, 0xf0, 0x0` (a copy of input a; `0x0f` for `!s`), and for a
/// constant `PLOP3.LUT d, PT, PT, PT, PT, 0x80, 0x0` (true: the form
/// NVIDIA writes) or `0x0` (false).
pub(super) fn mov(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let pt = Operand::reg(Reg::PT);
    let (a, lut) = match &operand(inst, 1)?.kind {
        ExprKind::Int { value, .. } => (pt.clone(), if *value != 0 { 0x80 } else { 0x0 }),
        // `-1` (true) as the parser may read it.
        ExprKind::Unary(UnaryOp::Neg, inner) if matches!(inner.kind, ExprKind::Int { .. }) => (pt.clone(), 0x80),
        _ => {
            let s = src(cx, inst, 1, ScalarType::Pred)?;
            let Some(reg) = s.as_reg() else { return Err(unsupported(inst)) };
            let d_name = match &operand(inst, 0)?.kind {
                ExprKind::Name(d, None) => d.name.as_str(),
                _ => return Err(unsupported(inst)),
            };
            let s_single = match &operand(inst, 1)?.kind {
                ExprKind::Name(s, None) => cx.single_def(s.name.as_str()),
                _ => false,
            };
            if !s.flags.not && s_single && cx.single_def(d_name) && cx.regs.alias(d_name, reg) {
                return Ok(());
            }
            (Operand::reg(reg), if s.flags.not { 0x0f } else { 0xf0 })
        }
    };
    let d = dst(cx, inst, 0)?;
    let uses = vec![a, pt.clone(), pt.clone(), Operand::int(lut), Operand::int(0)];
    cx.emit(Opcode::PLOP3, &["LUT"], vec![d.into(), pt], uses, inst.span)
}
