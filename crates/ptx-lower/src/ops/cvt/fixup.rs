//! Conversions NVIDIA's ptxas builds from one conversion and the steps
//! around it, where SASS has no single instruction for the PTX form:
//!
//! - `.sat` to a float type: the conversion, then `FADD.SAT d, RZ, t` for
//!   binary32, `HADD2.SAT d, t.H0_H0, -RZ.H0_H0` for binary16, or for
//!   binary64 `max.f64(0, t)` and `min.f64(., 1.0)` (the
//!   `DSETP.MAX`/`DSETP.MIN` sequences of `min.f64`/`max.f64`);
//! - `.ftz` of a binary32 source where the conversion has no `.FTZ` form
//!   (to binary64, to 64-bit integers): `FMUL.FTZ t, a, 1` first;
//! - `.ftz` of a binary32 result rounded from binary64: a result below the
//!   smallest normal is multiplied by it (NVIDIA's directed roundings:
//!   `FSETP.GEU |t|, 2^-126` + `@!p FMUL t, t, 2^-126`; to nearest it
//!   compares the source with the rounding boundary instead; here a `SEL`
//!   on the result either way: a sign-preserving zero);
//! - `cvt.ftz.f32.f32`: `FADD.FTZ d, a, -RZ`.
//!
//! Everything is computed unguarded; the result is written to `d` under
//! the PTX guard.

use ori_ir::{Opcode, Operand, OperandFlags, Reg, RegFile};
use ptx_syntax::ast::{Instruction, Rounding, ScalarType};

use super::super::seq::{Seq, rz};
use super::super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The smallest normal binary32, `2^-126`.
const MIN_NORMAL: u32 = 0x0080_0000;

/// True when `cvt.RND[.ftz][.sat].TO.FROM` needs steps of this module.
pub(super) fn needed(to: ScalarType, from: ScalarType, rounding: Option<Rounding>, ftz: bool, sat: bool) -> bool {
    use ScalarType::*;
    let plain_sat = (to, from, rounding, ftz) == (F32, F32, None, false);
    (sat && matches!(to, F16 | F32 | F64) && !plain_sat)
        || flushes_source(to, from, ftz)
        || flushes_result(to, from, rounding, ftz)
        || (to, from, rounding, ftz) == (F32, F32, None, true)
}

/// `.ftz` of a binary32 source that the conversion cannot flush itself.
fn flushes_source(to: ScalarType, from: ScalarType, ftz: bool) -> bool {
    ftz && from == ScalarType::F32 && to.bits() == 64
}

/// `.ftz` of a binary32 result rounded from binary64 (`F2F.FTZ.F32.F64`
/// is not NVIDIA's code for it).
fn flushes_result(to: ScalarType, from: ScalarType, rounding: Option<Rounding>, ftz: bool) -> bool {
    ftz && (to, from) == (ScalarType::F32, ScalarType::F64)
        && matches!(rounding, Some(Rounding::Rn | Rounding::Rz | Rounding::Rm | Rounding::Rp))
}

/// Lowers a form [`needed`] accepts.
pub(super) fn lower(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    to: ScalarType,
    from: ScalarType,
    rounding: Option<Rounding>,
    ftz: bool,
    sat: bool,
) -> Lowered {
    use ScalarType::*;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, from)?;
    let Some(a) = a.as_reg() else { return Err(unsupported(inst)) };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mut a = a;
        let mut ftz_op = ftz;
        if flushes_source(to, from, ftz) {
            a = seq.value(cx, Opcode::FMUL, &["FTZ"], vec![a.into(), Operand::f32(1.0)])?;
            ftz_op = false;
        }
        let flush = flushes_result(to, from, rounding, ftz);
        ftz_op &= !flush;
        let t = match (to, from, rounding) {
            (F64, F64, None) => a,
            (F32, F32, None) if ftz_op => seq.value(cx, Opcode::FADD, &["FTZ"], vec![a.into(), rz().negated()])?,
            (F32, F32, None) => a,
            _ if super::half_pair(to, from) => {
                let t = cx.temp(RegFile::R, d.width);
                super::half(cx, inst, t, a.into(), to, from, rounding, ftz_op)?;
                t
            }
            _ => {
                let (op, mods) = super::float_form(cx.target.isa.i2fp, to, from, rounding, ftz_op)
                    .ok_or_else(|| unsupported(inst))?;
                let t = cx.temp(RegFile::R, d.width);
                seq.op(cx, op, &mods, vec![t.into()], vec![a.into()])?;
                t
            }
        };
        let mut v = t;
        if sat {
            v = match to {
                F32 => seq.value(cx, Opcode::FADD, &["SAT"], vec![rz(), v.into()])?,
                F16 => {
                    let uses = vec![super::low_half(v.into()), super::low_half(rz().negated())];
                    seq.value(cx, Opcode::HADD2, &["SAT"], uses)?
                }
                _ => {
                    let zero = super::super::wide::materialize(cx, 0, inst.span)?;
                    let one = super::super::wide::materialize(cx, 1f64.to_bits(), inst.span)?;
                    let low = super::super::double::min_max_pair(cx, &seq, zero, v, true)?;
                    super::super::double::min_max_pair(cx, &seq, low, one, false)?
                }
            };
        }
        if flush {
            // A subnormal result times 2^-126 is a zero of its sign.
            let p = cx.temp(RegFile::P, 1);
            let abs = Operand { flags: OperandFlags { abs: true, ..OperandFlags::default() }, ..Operand::reg(v) };
            let pt = Operand::reg(Reg::PT);
            let uses = vec![abs, Operand::f32(f32::from_bits(MIN_NORMAL)), pt.clone()];
            seq.op(cx, Opcode::FSETP, &["GEU", "AND"], vec![p.into(), pt], uses)?;
            let uses = vec![v.into(), Operand::f32(f32::from_bits(MIN_NORMAL))];
            let zero = seq.value(cx, Opcode::FMUL, &[], uses)?;
            v = seq.value(cx, Opcode::SEL, &[], vec![v.into(), zero.into(), p.into()])?;
        }
        match d.width {
            1 => seq.result(cx, d, v),
            _ => {
                let guard = seq.guard;
                let saved = std::mem::replace(&mut cx.guard, guard);
                let r = cx.copy_pair(d.into(), v.into(), inst.span);
                cx.guard = saved;
                r
            }
        }
    })();
    seq.finish(cx);
    result
}
