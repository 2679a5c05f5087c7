//! 16-bit integer arithmetic whose result depends on more than the low
//! bits of its operands: `mul.hi`, `mad.hi`, `mul.wide.s16`, `mad.wide`,
//! `sad`, `div`, `rem`, `abs`, `neg`, `min` and `max` on `u16`/`s16`. The operands (in the low halves of registers
//! whose upper halves are unknown) are widened to 32 bits by their type
//! (`PRMT 0x9910` / `LOP3 & 0xffff`, constants alike); every result then
//! fits 32-bit arithmetic exactly: the product of two 16-bit values, the
//! difference, the quotient.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::seq::{Seq, rz};
use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Whether `inst` is one of the 16-bit forms this module lowers.
pub(super) fn handles(inst: &Instruction) -> bool {
    let Ok(ty) = ty(inst) else { return false };
    if !matches!(ty, ScalarType::U16 | ScalarType::S16) || inst.types().count() != 1 {
        return false;
    }
    match inst.opcode.name.as_str() {
        "mul" => inst.has("hi") || (inst.has("wide") && ty == ScalarType::S16),
        "mad" => (inst.has("hi") && !inst.has("sat")) || inst.has("wide"),
        "sad" | "div" | "rem" => true,
        "abs" | "neg" => ty == ScalarType::S16,
        "min" | "max" => inst.modifiers.len() == 1,
        _ => false,
    }
}

/// Lowers a form [`handles`] accepts.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let signed = ty == ScalarType::S16;
    let op = inst.opcode.name.as_str();
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    if matches!(op, "abs" | "neg") {
        let seq = Seq::start(cx, inst.span);
        let result = (|| {
            let guard = seq.guard;
            if op == "neg" {
                return seq.op_if(cx, guard, Opcode::IADD3, &[], vec![d.into()], vec![rz(), a.negated(), rz()]);
            }
            let a = super::cmp::extend(cx, inst, a, ty)?;
            seq.op_if(cx, guard, Opcode::IABS, &[], vec![d.into()], vec![a])
        })();
        seq.finish(cx);
        return result;
    }
    let b = src(cx, inst, 2, ty)?;
    // `mad.wide`'s addend is 32 bits wide.
    let wide = if signed { ScalarType::S32 } else { ScalarType::U32 };
    let c = match op {
        "mad" if inst.has("wide") => Some(src(cx, inst, 3, wide)?),
        "mad" | "sad" => Some(src(cx, inst, 3, ty)?),
        _ => None,
    };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = super::cmp::extend(cx, inst, a, ty)?;
        let a = seq.in_reg(cx, a)?;
        let b = super::cmp::extend(cx, inst, b, ty)?;
        let guard = seq.guard;
        match op {
            "div" | "rem" => super::divide::div32(cx, &seq, d, a, b, signed, op == "rem"),
            "min" | "max" => {
                // The predicate operand picks the minimum when true.
                let pick = if op == "min" { Operand::reg(Reg::PT) } else { Operand::reg(Reg::PT).inverted() };
                let mods: &[&str] = if signed { &[] } else { &["U32"] };
                let opcode = cx.target.isa.int_minmax;
                seq.op_if(cx, guard, opcode, mods, vec![d.into()], vec![a, b, pick])
            }
            "sad" => {
                let mods: &[&str] = if signed { &[] } else { &["U32"] };
                let b = seq.in_reg(cx, b)?;
                let c = c.ok_or_else(|| unsupported(inst))?;
                if !cx.target.isa.abs_diff {
                    return super::bits::max_less_min(cx, &seq, d, [a, b, c], signed);
                }
                let diff = seq.value(cx, Opcode::VABSDIFF, mods, vec![a, b, Operand::int(0)])?;
                seq.op_if(cx, guard, Opcode::IADD3, &[], vec![d.into()], vec![diff.into(), c, rz()])
            }
            _ if inst.has("wide") => {
                // IMAD has one immediate slot.
                let (b, c) = match c {
                    Some(c) if c.as_reg().is_none() => (seq.in_reg(cx, b)?, c),
                    Some(c) => (b, c),
                    None => (b, rz()),
                };
                let c = if b.as_reg().is_none() { seq.in_reg(cx, c)? } else { c };
                seq.op_if(cx, guard, Opcode::IMAD, &[], vec![d.into()], vec![a, b, c])
            }
            _ => {
                // The high half of the exact 32-bit product (plus `c`).
                let product = seq.value(cx, Opcode::IMAD, &[], vec![a, b, rz()])?;
                let shift: &[&str] = if signed { &["R", "S32", "HI"] } else { &["R", "U32", "HI"] };
                let uses = vec![Operand::reg(Reg::RZ), Operand::int(16), product.into()];
                match c {
                    None => seq.op_if(cx, guard, Opcode::SHF, shift, vec![d.into()], uses),
                    Some(c) => {
                        let high = seq.value(cx, Opcode::SHF, shift, uses)?;
                        seq.op_if(cx, guard, Opcode::IADD3, &[], vec![d.into()], vec![high.into(), c, rz()])
                    }
                }
            }
        }
    })();
    seq.finish(cx);
    result
}
