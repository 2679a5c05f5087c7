//! `cvt.sat` between the 32- and 64-bit integer types: the source clamped
//! to the destination's range, with `ISETP`s on its words and `SEL`s, as
//! NVIDIA's code does (`cvt.sat.u32.s32`: `ISETP.LT a, RZ` + `SEL a, RZ`;
//! `cvt.sat.s32.s64`: the low word where the high word is its sign
//! extension, else the bound by the sign). Narrow destinations (NVIDIA's
//! `I2I.*.SAT`) are not lowered yet.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::super::seq::{Seq, rz};
use super::super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `cvt.sat.TO.FROM d, a` between `u32`, `s32`, `u64` and `s64`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction, to: ScalarType, from: ScalarType) -> Lowered {
    use ScalarType::*;
    if !matches!(to, U32 | S32 | U64 | S64) || !matches!(from, U32 | S32 | U64 | S64) {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, from)?.as_reg().ok_or_else(|| unsupported(inst))?;
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
                // In range: the high word is what the low one extends to.
                let ext = if to == S32 {
                    seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), lo.clone()])?.into()
                } else {
                    rz()
                };
                let fits = seq.isetp(cx, &["EQ", "U32", "AND"], hi.clone(), ext)?;
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
