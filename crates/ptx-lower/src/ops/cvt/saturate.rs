//! `cvt.sat` between the 32- and 64-bit integer types: the source clamped
//! to the destination's range, with `ISETP`s on its words and `SEL`s, as
//! NVIDIA's code does (`cvt.sat.u32.s32`: `ISETP.LT a, RZ` + `SEL a, RZ`;
//! `cvt.sat.s32.s64`: the low word where the high word is its sign
//! extension, else the bound by the sign). From `s32` to 8 and 16 bits
//! (and from `s64` to `s8`/`s16`, after the clamp to `s32`) it is NVIDIA's
//! `I2I.<to>.S32.SAT`, a signed result sign-extended by `PRMT` as NVIDIA's
//! code does (the upper bits of a signed `I2I` are not read, [`i2i`]);
//! other narrow types clamp the source widened to 32 bits with integer
//! minimum/maximum (from 64-bit sources after a
//! clamp to 32 bits).

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::super::seq::{Seq, rz};
use super::super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `cvt.sat.TO.FROM d, a` between `u32`, `s32`, `u64` and `s64`; from
/// a source of at most 32 bits to a narrower or narrow type, [`clamp`].
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction, to: ScalarType, from: ScalarType) -> Lowered {
    use ScalarType::*;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, from)?.as_reg().ok_or_else(|| unsupported(inst))?;
    if matches!(to, U32 | S32 | U64 | S64) && matches!(from, U32 | S32 | U64 | S64) {
        return words(cx, inst, d, a, to, from);
    }
    if from == S32 && matches!(to, U8 | S8 | U16 | S16) {
        return i2i(cx, inst, d, a, to);
    }
    if !matches!(from, U64 | S64) {
        return clamp(cx, inst, d, a, to, from);
    }
    // From 64 bits to a narrow type: to the 32-bit type of the source's
    // sign first (the bounds of every narrow type lie inside its range),
    // then as from 32 bits.
    let word = if from == S64 { S32 } else { U32 };
    let t = cx.temp(ori_ir::RegFile::R, 1);
    let guard = cx.guard.take();
    let first = words(cx, inst, t, a, word, from);
    cx.guard = guard;
    first?;
    if word == S32 && matches!(to, S8 | S16) {
        return i2i(cx, inst, d, t, to);
    }
    clamp(cx, inst, d, t, to, word)
}

/// `cvt.sat.TO.s32 d, a` to `u8`, `s8`, `u16` or `s16`: NVIDIA's
/// `I2I.<TO>.S32.SAT`, which clamps `a` (ptxas 13.5, sm_75 .. sm_120). An
/// unsigned result is read whole (zero above the range), a signed one
/// through `PRMT d, t, 0x8880|0x9910, RZ` first, as in NVIDIA's code, which
/// never reads the upper bits of a signed `I2I` otherwise.
fn i2i(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Reg, to: ScalarType) -> Lowered {
    use ScalarType::*;
    let (ty, extend) = match to {
        U8 => ("U8", None),
        U16 => ("U16", None),
        S8 => ("S8", Some(0x8880)),
        S16 => ("S16", Some(0x9910)),
        _ => return Err(unsupported(inst)),
    };
    if d.width != 1 || a.width != 1 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let guard = seq.guard;
        let mods = [ty, "S32", "SAT"];
        match extend {
            None => seq.op_if(cx, guard, Opcode::I2I, &mods, vec![d.into()], vec![a.into()]),
            Some(selector) => {
                let t = seq.value(cx, Opcode::I2I, &mods, vec![a.into()])?;
                seq.op_if(cx, guard, Opcode::PRMT, &[], vec![d.into()], vec![t.into(), Operand::int(selector), rz()])
            }
        }
    })();
    seq.finish(cx);
    result
}

/// [`lower`] between `u32`, `s32`, `u64` and `s64`, `a` into `d`.
fn words(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Reg, to: ScalarType, from: ScalarType) -> Lowered {
    use ScalarType::*;
    if d.width != to.bits() as u8 / 32 || a.width != from.bits() as u8 / 32 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let lo: Operand = a.part(0, 1).into();
        let hi: Option<Operand> = (a.width == 2).then(|| a.part(1, 1).into());
        // The source's sign as a predicate, for signed sources.
        let top = hi.clone().unwrap_or_else(|| lo.clone());
        let negative = |cx: &mut Lowerer<'_>| seq.isetp(cx, &["LT", "AND"], top.clone(), rz());
        let guard = seq.guard;
        let sel = |cx: &mut Lowerer<'_>, d: Reg, a: Operand, b: Operand, p: Operand| {
            seq.op_if(cx, guard, Opcode::SEL, &[], vec![d.into()], vec![a, b, p])
        };
        match (to, from) {
            // Negative values become 0.
            (U32, S32) => {
                let p = negative(cx)?;
                sel(cx, d, lo, rz(), Operand::reg(p).inverted())
            }
            (S32, U32) => {
                let p = seq.isetp(cx, &["GE", "U32", "AND"], lo.clone(), Operand::int(i64::from(i32::MIN)))?;
                sel(cx, d, lo, Operand::int(0x7fff_ffff), Operand::reg(p).inverted())
            }
            (U64, S64) => {
                let p = negative(cx)?;
                sel(cx, d.part(0, 1), lo, rz(), Operand::reg(p).inverted())?;
                sel(cx, d.part(1, 1), hi.unwrap_or_else(rz), rz(), Operand::reg(p).inverted())
            }
            (S64, U64) => {
                let p = negative(cx)?;
                sel(cx, d.part(0, 1), lo, Operand::int(-1), Operand::reg(p).inverted())?;
                sel(cx, d.part(1, 1), hi.unwrap_or_else(rz), Operand::int(0x7fff_ffff), Operand::reg(p).inverted())
            }
            (U64, S32) => {
                let p = negative(cx)?;
                sel(cx, d.part(0, 1), lo, rz(), Operand::reg(p).inverted())?;
                seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.part(1, 1).into()], vec![rz()])
            }
            (S32 | U32, S64 | U64) => {
                let hi = hi.ok_or_else(|| unsupported(inst))?;
                // In range: the high word is what the low one extends to
                // (from u64 to s32: both the high word and bit 31 zero).
                let fits = match (to, from) {
                    (S32, S64) => {
                        let uses = vec![rz(), Operand::int(31), lo.clone()];
                        let ext = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], uses)?;
                        seq.isetp(cx, &["EQ", "U32", "AND"], hi.clone(), ext.into())?
                    }
                    (S32, _) => {
                        let top =
                            seq.value(cx, Opcode::SHF, &["R", "U32", "HI"], vec![rz(), Operand::int(31), lo.clone()])?;
                        let uses =
                            vec![hi.clone(), top.into(), rz(), Operand::int(0xfc), Operand::reg(Reg::PT).inverted()];
                        let any = seq.value(cx, Opcode::LOP3, &["LUT"], uses)?;
                        seq.isetp(cx, &["EQ", "U32", "AND"], any.into(), rz())?
                    }
                    _ => seq.isetp(cx, &["EQ", "U32", "AND"], hi.clone(), rz())?,
                };
                let max = if to == S32 { 0x7fff_ffff } else { -1 };
                let bound = if from == S64 {
                    let min = if to == S32 { i64::from(i32::MIN) } else { 0 };
                    let neg = negative(cx)?;
                    let max = seq.in_reg(cx, Operand::int(max))?;
                    seq.value(cx, Opcode::SEL, &[], vec![max, Operand::int(min), Operand::reg(neg).inverted()])?.into()
                } else {
                    Operand::int(max)
                };
                sel(cx, d, lo, bound, fits.into())
            }
            _ => Err(unsupported(inst)),
        }
    })();
    seq.finish(cx);
    result
}

/// `cvt.sat.TO.FROM d, a` with a source of at most 32 bits and a narrow
/// or 8/16-bit type on either side: the source widened to 32 bits by its
/// sign (`PRMT` / `LOP3`), clamped to the destination's range by
/// `[V]IMNMX` (signed or unsigned as the source), the high word of a
/// 64-bit destination zero (only `u64` from a signed source saturates).
fn clamp(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Reg, to: ScalarType, from: ScalarType) -> Lowered {
    use ScalarType::*;
    let signed = |t: ScalarType| matches!(t, S8 | S16 | S32 | S64);
    let range = |t: ScalarType| -> (i64, i64) {
        let bits = t.bits().min(33);
        if signed(t) { (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) } else { (0, (1 << bits) - 1) }
    };
    if from.bits() > 32 || to == S64 {
        return Err(unsupported(inst));
    }
    let (lo, hi) = range(to);
    let (from_lo, from_hi) = range(from);
    let minmax = cx.target.isa.int_minmax;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mut v: Operand = match from {
            S8 | S16 => {
                let selector = if from == S8 { 0x8880 } else { 0x9910 };
                seq.value(cx, Opcode::PRMT, &[], vec![a.into(), Operand::int(selector), rz()])?.into()
            }
            U8 | U16 => {
                let mask = Operand::int((1 << from.bits()) - 1);
                let uses = vec![a.into(), mask, rz(), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
                seq.value(cx, Opcode::LOP3, &["LUT"], uses)?.into()
            }
            _ => a.into(),
        };
        let mods: &[&str] = if signed(from) { &[] } else { &["U32"] };
        // The bounds the source can pass, each as the 32-bit word of the
        // source's signedness.
        let word = |x: i64| Operand::int(if signed(from) { x } else { i64::from(x as u32) });
        if lo > from_lo {
            v = seq.value(cx, minmax, mods, vec![v, word(lo), Operand::reg(Reg::PT).inverted()])?.into();
        }
        if hi < from_hi {
            v = seq.value(cx, minmax, mods, vec![v, word(hi.min(u32::MAX.into())), Operand::reg(Reg::PT)])?.into();
        }
        let guard = seq.guard;
        if d.width == 2 {
            seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.part(0, 1).into()], vec![v])?;
            seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.part(1, 1).into()], vec![rz()])
        } else {
            seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.into()], vec![v])
        }
    })();
    seq.finish(cx);
    result
}
