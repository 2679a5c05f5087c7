//! The SIMD video instructions: `vadd2`, `vsub2`, `vavrg2`, `vabsdiff2`,
//! `vmin2`, `vmax2` on half-word lanes and their `4` forms on byte lanes,
//! `.dtype.atype.btype[.sat] d, a, b, c` (merge under the default mask:
//! every lane from the result) and `.add d, a, b, c` (`c` plus the sum of
//! the lanes' results). Default lane selectors and masks only.
//!
//! Each lane is extended by its type to 32 bits (`PRMT` with a
//! sign-replicating or zero selector), computed there exactly (PTX's
//! intermediate fits), clamped to the lane range of `dtype` under `.sat`,
//! then packed back (`PRMT`) or summed (`IADD3`). `vavrg` rounds half up
//! for a non-negative sum and down otherwise, as the reference says.

use ori_ir::{Opcode, Operand};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::seq::{Seq, rz};
use super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The operation of one lane.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Avrg,
    AbsDiff,
    Min,
    Max,
}

/// Lowers `inst`, one of the opcodes above.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let name = inst.opcode.name.as_str();
    let (stem, lanes) = match name.strip_suffix('2') {
        Some(stem) => (stem, 2u32),
        None => (name.strip_suffix('4').ok_or_else(|| unsupported(inst))?, 4),
    };
    let op = match stem {
        "vadd" => Op::Add,
        "vsub" => Op::Sub,
        "vavrg" => Op::Avrg,
        "vabsdiff" => Op::AbsDiff,
        "vmin" => Op::Min,
        "vmax" => Op::Max,
        _ => return Err(unsupported(inst)),
    };
    let types: Vec<ScalarType> = inst.types().collect();
    let [dt, at, bt] = types.as_slice() else { return Err(unsupported(inst)) };
    let word = |t: &ScalarType| matches!(t, ScalarType::U32 | ScalarType::S32);
    // A selector or mask (`a.h10`, `d.b0`) is not lowered.
    let selected = inst.operands.iter().any(|o| matches!(&o.kind, ExprKind::Name(_, Some(_))));
    if !(word(dt) && word(at) && word(bt)) || selected || inst.operands.len() != 4 {
        return Err(unsupported(inst));
    }
    let sat = inst.has("sat");
    let accumulate = inst.has("add");
    if sat && accumulate {
        return Err(unsupported(inst));
    }
    let signed = |t: &ScalarType| *t == ScalarType::S32;
    let d = dst(cx, inst, 0)?;
    let (a, b, c) = (src(cx, inst, 1, *at)?, src(cx, inst, 2, *bt)?, src(cx, inst, 3, *dt)?);
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = seq.in_reg(cx, a)?;
        let b = seq.in_reg(cx, b)?;
        let mut results = Vec::new();
        for lane in 0..lanes {
            let x = extend(cx, &seq, a.clone(), lane, lanes, signed(at))?;
            let y = extend(cx, &seq, b.clone(), lane, lanes, signed(bt))?;
            let mut t = compute(cx, &seq, op, x, y)?;
            if sat {
                t = clamp(cx, &seq, t, lanes, signed(dt))?;
            }
            results.push(t);
        }
        if accumulate {
            let mut sum = c;
            for t in results {
                sum = seq.value(cx, Opcode::IADD3, &[], vec![sum, t, rz()])?.into();
            }
            return seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.into()], vec![sum]);
        }
        let packed = if lanes == 2 {
            results[0].clone()
        } else {
            let low =
                seq.value(cx, Opcode::PRMT, &[], vec![results[0].clone(), Operand::int(0x40), results[1].clone()])?;
            let high =
                seq.value(cx, Opcode::PRMT, &[], vec![results[2].clone(), Operand::int(0x40), results[3].clone()])?;
            results = vec![low.into(), high.into()];
            results[0].clone()
        };
        let uses = vec![packed, Operand::int(0x5410), results[1].clone()];
        seq.op_if(cx, seq.guard, Opcode::PRMT, &[], vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}

/// Lane `lane` of `x` (half-words for 2 lanes, bytes for 4), extended to
/// 32 bits: `PRMT` repeating the lane's sign byte or zeros.
fn extend(cx: &mut Lowerer<'_>, seq: &Seq, x: Operand, lane: u32, lanes: u32, signed: bool) -> Lowered<Operand> {
    let selector = match (lanes, signed) {
        (2, false) => 0x7710 + 0x22 * lane,
        (2, true) => 0x9910 + 0x2222 * lane,
        (_, false) => 0x7770 + lane,
        (_, true) => 0x8880 + 0x1111 * lane,
    };
    Ok(seq.value(cx, Opcode::PRMT, &[], vec![x, Operand::int(i64::from(selector)), rz()])?.into())
}

/// One lane's exact result from its extended sources.
fn compute(cx: &mut Lowerer<'_>, seq: &Seq, op: Op, x: Operand, y: Operand) -> Lowered<Operand> {
    let add = |cx: &mut Lowerer<'_>, x: Operand, y: Operand| seq.value(cx, Opcode::IADD3, &[], vec![x, y, rz()]);
    Ok(match op {
        Op::Add => add(cx, x, y)?.into(),
        Op::Sub => add(cx, x, y.negated())?.into(),
        Op::AbsDiff => {
            let diff = add(cx, x, y.negated())?;
            seq.value(cx, Opcode::IABS, &[], vec![diff.into()])?.into()
        }
        Op::Avrg => {
            let sum = add(cx, x, y)?;
            let up = seq.value(cx, Opcode::IADD3, &[], vec![sum.into(), Operand::int(1), rz()])?;
            let up = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(1), up.into()])?;
            let down = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(1), sum.into()])?;
            let negative = seq.isetp(cx, &["LT", "AND"], sum.into(), rz())?;
            seq.value(cx, Opcode::SEL, &[], vec![down.into(), up.into(), negative.into()])?.into()
        }
        Op::Min | Op::Max => {
            let less = seq.isetp(cx, &["LT", "AND"], x.clone(), y.clone())?;
            let (first, second) = if op == Op::Min { (x, y) } else { (y, x) };
            seq.value(cx, Opcode::SEL, &[], vec![first, second, less.into()])?.into()
        }
    })
}

/// `t` clamped to the range of a lane of `dtype` (16 or 8 bits, signed or
/// unsigned).
fn clamp(cx: &mut Lowerer<'_>, seq: &Seq, t: Operand, lanes: u32, signed: bool) -> Lowered<Operand> {
    let bits = 32 / lanes;
    let (lo, hi): (i64, i64) = if signed { (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) } else { (0, (1 << bits) - 1) };
    let above = seq.isetp(cx, &["GT", "AND"], t.clone(), Operand::int(hi))?;
    let high = seq.in_reg(cx, Operand::int(hi))?;
    let t = seq.value(cx, Opcode::SEL, &[], vec![high, t, above.into()])?;
    let below = seq.isetp(cx, &["LT", "AND"], t.into(), Operand::int(lo))?;
    let low = seq.in_reg(cx, Operand::int(lo))?;
    Ok(seq.value(cx, Opcode::SEL, &[], vec![low, t.into(), below.into()])?.into())
}
