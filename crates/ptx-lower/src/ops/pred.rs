//! Predicate logic: `and`/`or`/`xor`/`not.pred` as `PLOP3.LUT`.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{dst, src, unsupported};
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
