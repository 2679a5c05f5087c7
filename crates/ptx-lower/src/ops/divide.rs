//! `div` and `rem` on 32-bit integers: NVIDIA's inline sequence (no
//! hardware divider). A reciprocal seed from `MUFU.RCP`, one Newton step
//! in fixed point (`IMAD.HI.U32` with the pair `(0, y)` as addend, so
//! `y + hi(y * e)`), the quotient estimate `hi(y * a)`, then at most two
//! corrections; a zero divisor gives `~b` (all ones for unsigned `div`, as
//! the hardware sequence does).

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::seq::{Seq, rz, undef, unless, when};
use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `LOP3.LUT` tables (a = 0xf0, b = 0xcc, c = 0xaa).
const LUT_XOR: i64 = 0x3c;
const LUT_NOT_B: i64 = 0x33;

/// `div.{s32,u32}` / `rem.{s32,u32}` `d, a, b`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let signed = match ty {
        ScalarType::S32 => true,
        ScalarType::U32 => false,
        _ => return Err(unsupported(inst)),
    };
    if inst.modifiers.len() != 1 {
        return Err(unsupported(inst));
    }
    let rem = inst.opcode.name.as_str() == "rem";
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    let seq = Seq::start(cx, inst.span);
    let result = if signed { signed_div(cx, &seq, d, a, b, rem) } else { unsigned_div(cx, &seq, d, a, b, rem) };
    seq.finish(cx);
    result
}

/// `y ~ 2^32 / v` from below (NVIDIA's seed and refinement): `I2F[.U32].RP`,
/// `MUFU.RCP`, the bits plus `0xffffffe` (just under the next power of two),
/// `F2I.FTZ.U32.TRUNC.NTZ`, then `y + hi(y * (-v * y))`.
fn reciprocal(cx: &mut Lowerer<'_>, seq: &Seq, v: &Operand, signed: bool) -> Lowered<Reg> {
    let to_float: &[&str] = if signed { &["RP"] } else { &["U32", "RP"] };
    let f = seq.value(cx, Opcode::I2F, to_float, vec![v.clone()])?;
    let r = seq.value(cx, Opcode::MUFU, &["RCP"], vec![f.into()])?;
    let s = seq.value(cx, Opcode::IADD3, &[], vec![r.into(), Operand::int(0x0fff_fffe), rz()])?;
    // The addend pair (0, y) of the Newton step, built word by word.
    let pair = cx.temp(RegFile::R, 2);
    let y = pair.part(1, 1);
    seq.op(cx, Opcode::F2I, &["FTZ", "U32", "TRUNC", "NTZ"], vec![undef(y)], vec![s.into()])?;
    seq.op(cx, Opcode::MOV, &[], vec![pair.part(0, 1).into()], vec![Operand::int(0)])?;
    let minus_v = seq.value(cx, Opcode::IADD3, &[], vec![rz(), v.clone().negated(), rz()])?;
    let e = seq.value(cx, Opcode::IMAD, &[], vec![minus_v.into(), y.into(), rz()])?;
    seq.value(cx, Opcode::IMAD, &["HI", "U32"], vec![y.into(), e.into(), pair.into()])
}

/// The unsigned sequence: `q = hi(y * a)`, `r = a - q * b`, twice `r >= b`
/// → `q + 1`, `r - b`.
fn unsigned_div(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, a: Operand, b: Operand, rem: bool) -> Lowered {
    let a = seq.in_reg(cx, a)?;
    let b = seq.in_reg(cx, b)?;
    let out = seq.out(cx, d, &[&a, &b]);
    let y = reciprocal(cx, seq, &b, false)?;
    let q = if rem { cx.temp(RegFile::R, 1) } else { out };
    let r = if rem { out } else { cx.temp(RegFile::R, 1) };
    seq.op(cx, Opcode::IMAD, &["HI", "U32"], vec![q.into()], vec![y.into(), a.clone(), rz()])?;
    let minus_q = seq.value(cx, Opcode::IADD3, &[], vec![rz(), Operand::reg(q).negated(), rz()])?;
    seq.op(cx, Opcode::IMAD, &[], vec![r.into()], vec![b.clone(), minus_q.into(), a])?;
    for step in 0..2 {
        let over = seq.isetp(cx, &["GE", "U32", "AND"], r.into(), b.clone())?;
        if rem || step == 0 {
            let uses = vec![r.into(), b.clone().negated(), rz()];
            seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![r.into()], uses)?;
        }
        if !rem {
            seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        }
    }
    let nonzero = seq.isetp(cx, &["NE", "U32", "AND"], b.clone(), rz())?;
    seq.lop3(cx, out, [rz(), b, rz()], LUT_NOT_B, unless(nonzero))?;
    seq.result(cx, d, out)
}

/// The signed sequence: the unsigned one on `|a|` and `|b|` (corrections
/// by `|b| > r`), then the sign of `a ^ b` (quotient) or of `a`
/// (remainder).
fn signed_div(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, a: Operand, b: Operand, rem: bool) -> Lowered {
    let a = seq.in_reg(cx, a)?;
    let b = seq.in_reg(cx, b)?;
    let out = seq.out(cx, d, &[&a, &b]);
    let abs_b: Operand = seq.value(cx, Opcode::IABS, &[], vec![b.clone()])?.into();
    let abs_a: Operand = seq.value(cx, Opcode::IABS, &[], vec![a.clone()])?.into();
    let y = reciprocal(cx, seq, &abs_b, true)?;
    let q = if rem { cx.temp(RegFile::R, 1) } else { out };
    let r = if rem { out } else { cx.temp(RegFile::R, 1) };
    seq.op(cx, Opcode::IMAD, &["HI", "U32"], vec![q.into()], vec![y.into(), abs_a.clone(), rz()])?;
    let minus_b = seq.value(cx, Opcode::IADD3, &[], vec![rz(), abs_b.clone().negated(), rz()])?;
    seq.op(cx, Opcode::IMAD, &[], vec![r.into()], vec![q.into(), minus_b.into(), abs_a])?;
    let under = seq.isetp(cx, &["GT", "U32", "AND"], abs_b.clone(), r.into())?;
    seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![r.into()], vec![r.into(), abs_b.clone().negated(), rz()])?;
    if rem {
        let under = seq.isetp(cx, &["GT", "U32", "AND"], abs_b.clone(), r.into())?;
        let uses = vec![r.into(), abs_b.negated(), rz()];
        seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![r.into()], uses)?;
        let positive = seq.isetp(cx, &["GE", "AND"], a, rz())?;
        let uses = vec![rz(), Operand::reg(r).negated(), rz()];
        seq.op_if(cx, unless(positive), Opcode::IADD3, &[], vec![r.into()], uses)?;
    } else {
        seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        let over = seq.isetp(cx, &["GE", "U32", "AND"], r.into(), abs_b)?;
        seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        let sign = cx.temp(RegFile::R, 1);
        seq.lop3(cx, sign, [a, b.clone(), rz()], LUT_XOR, None)?;
        let positive = seq.isetp(cx, &["GE", "AND"], sign.into(), rz())?;
        let uses = vec![rz(), Operand::reg(q).negated(), rz()];
        seq.op_if(cx, unless(positive), Opcode::IADD3, &[], vec![q.into()], uses)?;
    }
    let nonzero = seq.isetp(cx, &["NE", "AND"], b.clone(), rz())?;
    seq.lop3(cx, out, [rz(), b, rz()], LUT_NOT_B, unless(nonzero))?;
    seq.result(cx, d, out)
}
