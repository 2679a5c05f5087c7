//! `mul24`/`mad24` and the saturating 32-bit adds (`add.sat.s32`,
//! `sub.sat.s32`, `mad24.hi.sat.s32`), after NVIDIA's sequences: the
//! 24-bit factors are extended (`SGXT` by 24 signed, `PRMT 0x7210` with
//! `RZ` unsigned) and multiplied by `IMAD` (`.lo`) or `IMAD.WIDE` (`.hi`:
//! bits 16..47 of the 48-bit product, `SHF.R` by 16 and `PRMT 0x5410`
//! joining the halves).

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::seq::{Seq, rz};
use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `(a ^ s) & (b ^ s)`: negative when `s = a + b` overflowed.
const LUT_ADD_OVERFLOW: i64 = 0x42;
/// `(a ^ b) & (a ^ s)`: negative when `s = a - b` overflowed.
const LUT_SUB_OVERFLOW: i64 = 0x18;
const LUT_XOR: i64 = 0x3c;

/// `add.sat.s32` / `sub.sat.s32 d, a, b`.
pub(super) fn sat_add(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? != ScalarType::S32 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2].map(|i| src(cx, inst, i, ScalarType::S32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, b] = sources;
        let (a, b) = (seq.in_reg(cx, a?)?, seq.in_reg(cx, b?)?);
        saturating(cx, &seq, d, a, b, inst.opcode.name.as_str() == "sub")
    })();
    seq.finish(cx);
    result
}

/// `mad.hi.sat.s32 d, a, b, c`: the high word of `a * b` (`IMAD.HI`) plus
/// `c`, clamped to the signed range as `add.sat.s32` is (NVIDIA's sm_80 and
/// sm_90 code clamps the same sum by the signs, with `PLOP3`s).
pub(super) fn mad_hi_sat(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? != ScalarType::S32 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2, 3].map(|i| src(cx, inst, i, ScalarType::S32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, b, c] = sources;
        let (a, b, c) = (seq.in_reg(cx, a?)?, b?, seq.in_reg(cx, c?)?);
        let high = seq.value(cx, Opcode::IMAD, &["HI"], vec![a, b, rz()])?;
        saturating(cx, &seq, d, high.into(), c, false)
    })();
    seq.finish(cx);
    result
}

/// `d = a ± b` clamped to the signed 32-bit range: the wrapped sum, and
/// where it overflowed `0x7fffffff` or `0x80000000` by the sign of `a`.
fn saturating(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, a: Operand, b: Operand, sub: bool) -> Lowered {
    let (addend, lut) = if sub { (b.clone().negated(), LUT_SUB_OVERFLOW) } else { (b.clone(), LUT_ADD_OVERFLOW) };
    let sum = seq.value(cx, Opcode::IADD3, &[], vec![a.clone(), addend, rz()])?;
    let flags = seq.lop3_value(cx, [a.clone(), b, sum.into()], lut)?;
    let overflow = seq.isetp(cx, &["LT", "AND"], flags.into(), rz())?;
    let sign = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), a])?;
    let bound = seq.lop3_value(cx, [sign.into(), Operand::int(0x7fff_ffff), rz()], LUT_XOR)?;
    seq.op_if(cx, seq.guard, Opcode::SEL, &[], vec![d.into()], vec![bound.into(), sum.into(), overflow.into()])
}

/// `mul24.{lo,hi}.{s32,u32} d, a, b` and `mad24.{lo,hi}[.sat].{s32,u32}
/// d, a, b, c`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let signed = match ty(inst)? {
        ScalarType::S32 => true,
        ScalarType::U32 => false,
        _ => return Err(unsupported(inst)),
    };
    let hi = inst.has("hi");
    let mad = inst.opcode.name.as_str() == "mad24";
    let sat = inst.has("sat");
    if hi == inst.has("lo") || (sat && !(mad && hi && signed)) {
        return Err(unsupported(inst));
    }
    let ty = if signed { ScalarType::S32 } else { ScalarType::U32 };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    let c = if mad { Some(src(cx, inst, 3, ty)?) } else { None };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = extend24(cx, &seq, a, signed)?;
        let b = extend24(cx, &seq, b, signed)?;
        let guard = seq.guard;
        if !hi {
            let c = c.map_or(Ok(rz()), |c| seq.in_reg(cx, c))?;
            return seq.op_if(cx, guard, Opcode::IMAD, &[], vec![d.into()], vec![a, b, c]);
        }
        let wide: &[&str] = if signed { &["WIDE"] } else { &["WIDE", "U32"] };
        let product = cx.temp(ori_ir::RegFile::R, 2);
        seq.op(cx, Opcode::IMAD, wide, vec![product.into()], vec![a, b, rz()])?;
        let shift: &[&str] = if signed { &["R", "S32", "HI"] } else { &["R", "U32", "HI"] };
        let down = seq.value(cx, Opcode::SHF, shift, vec![rz(), Operand::int(16), product.part(0, 1).into()])?;
        let join = vec![down.into(), Operand::int(0x5410), product.part(1, 1).into()];
        let Some(c) = c else { return seq.op_if(cx, guard, Opcode::PRMT, &[], vec![d.into()], join) };
        let high = seq.value(cx, Opcode::PRMT, &[], join)?;
        let c = seq.in_reg(cx, c)?;
        if sat {
            return saturating(cx, &seq, d, c, high.into(), false);
        }
        seq.op_if(cx, guard, Opcode::IADD3, &[], vec![d.into()], vec![c, high.into(), rz()])
    })();
    seq.finish(cx);
    result
}

/// The low 24 bits of `v` extended to 32, in a register.
fn extend24(cx: &mut Lowerer<'_>, seq: &Seq, v: Operand, signed: bool) -> Lowered<Operand> {
    let v = seq.in_reg(cx, v)?;
    let t = if signed {
        seq.value(cx, Opcode::SGXT, &[], vec![v, Operand::int(24)])?
    } else {
        seq.value(cx, Opcode::PRMT, &[], vec![v, Operand::int(0x7210), rz()])?
    };
    Ok(t.into())
}
