//! `setp` (`ISETP`/`FSETP`) and `selp` (`SEL`).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{BinaryOp, ExprKind, Instruction, ModifierKind, ScalarType};

use super::seq::Seq;
use super::{dst, operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `setp.CMP[.BOOL].T p[|q], a, b[, c]`: `ISETP`/`FSETP` (`DSETP`, the
/// 64-bit integer pair) whose second result is `q`, the complement of the
/// comparison combined with `c` (`PT` when absent or `_`).
pub(super) fn setp(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let (p, q) = pred_dsts(cx, inst)?;
    compare(cx, inst, ty(inst)?, p, q)
}

/// `set.CMP[.BOOL][.ftz].D.T d, a, b[, c]`: the comparison into a fresh
/// predicate, then `SEL d, RZ, 0xffffffff, !p` (under the PTX guard).
/// An f32 `D` is NVIDIA's integer result converted after the guarded
/// write, unguarded (`IABS`, `I2FP.F32.S32`): where the guard is off,
/// NVIDIA's code converts the old contents of `d` (a quirk its results
/// show, kept bit for bit).
pub(super) fn set(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let types: Vec<ScalarType> = inst.types().collect();
    let [dtype, stype] = types.as_slice() else { return Err(unsupported(inst)) };
    let float = match dtype {
        ScalarType::F32 => true,
        ScalarType::U32 | ScalarType::S32 => false,
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let t = cx.temp(RegFile::P, 1);
        compare(cx, inst, *stype, t.into(), Operand::reg(Reg::PT))?;
        let uses = vec![Operand::reg(Reg::RZ), Operand::int(0xffff_ffff), Operand::reg(t).inverted()];
        seq.op_if(cx, seq.guard, Opcode::SEL, &[], vec![d.into()], uses)?;
        if float {
            seq.op(cx, Opcode::IABS, &[], vec![d.into()], vec![d.into()])?;
            let (op, mods): (Opcode, &[&str]) =
                if cx.target.isa.i2fp { (Opcode::I2FP, &["F32", "S32"]) } else { (Opcode::I2F, &[]) };
            seq.op(cx, op, mods, vec![d.into()], vec![d.into()])?;
        }
        Ok(())
    })();
    seq.finish(cx);
    result
}

/// The destinations of a `setp`: `p`, or `p|q`, `p|_` (`PT` for the sink).
pub(super) fn pred_dsts(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<(Operand, Operand)> {
    let one = |cx: &mut Lowerer<'_>, e: &ptx_syntax::ast::Expr| match &e.kind {
        ExprKind::Name(r, None) => cx.reg(r.name.as_str(), r.span).map(Operand::reg),
        ExprKind::Sink => Ok(Operand::reg(Reg::PT)),
        _ => Err(unsupported(inst)),
    };
    match &operand(inst, 0)?.kind {
        ExprKind::Binary(BinaryOp::Or, p, q) => Ok((one(cx, p)?, one(cx, q)?)),
        _ => Ok((dst(cx, inst, 0)?.into(), Operand::reg(Reg::PT))),
    }
}

/// The comparison of `setp`/`set` on sources of type `ty` into `p` and
/// its complement into `q`.
fn compare(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, p: Operand, q: Operand) -> Lowered {
    if ty == ScalarType::F64 {
        return super::double::compare(cx, inst, p, q);
    }
    let mut words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    // `.ftz` of an f32 comparison: `FSETP.CMP.FTZ.BOOL` (NVIDIA's).
    let ftz = ty == ScalarType::F32 && words.contains(&"ftz");
    words.retain(|w| !(ftz && *w == "ftz"));
    let (cmp, boolean) = match words.as_slice() {
        [cmp] => (*cmp, "and"),
        [cmp, b @ ("and" | "or" | "xor")] => (*cmp, *b),
        _ => return Err(unsupported(inst)),
    };
    if ty.bits() == 64 && !ty.is_float() {
        let (cmp, unsigned) = int_cmp(cmp).ok_or_else(|| unsupported(inst))?;
        let unsigned = unsigned || ty != ScalarType::S64;
        return super::wide::setp(cx, inst, cmp, unsigned, bool_mod(boolean), p, q);
    }
    let (op, mut mods) = if ty == ScalarType::F32 {
        (Opcode::FSETP, vec![float_cmp(cmp).ok_or_else(|| unsupported(inst))?])
    } else if matches!(ty.bits(), 8 | 16 | 32) && !ty.is_float() {
        let (cmp, unsigned) = int_cmp(cmp).ok_or_else(|| unsupported(inst))?;
        let unsigned = unsigned || !matches!(ty, ScalarType::S32 | ScalarType::S16 | ScalarType::S8);
        (Opcode::ISETP, if unsigned { vec![cmp, "U32"] } else { vec![cmp] })
    } else {
        return Err(unsupported(inst));
    };
    if ftz {
        mods.push("FTZ");
    }
    mods.push(bool_mod(boolean));
    let (a, b) = (src(cx, inst, 1, ty)?, src(cx, inst, 2, ty)?);
    let mut a = extend(cx, inst, a, ty)?;
    let mut b = extend(cx, inst, b, ty)?;
    let c = if inst.operands.len() > 3 { src(cx, inst, 3, ScalarType::Pred)? } else { Operand::reg(Reg::PT) };
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    // The encoder knows the "greater" comparisons in far more forms than
    // the "less" ones (it learned NVIDIA's, who canonicalises the same
    // way): a < b is written b > a, with an immediate b moved to a
    // register first (not by a plain MOV, which copy propagation undoes).
    if let Some(swapped) = mirrored(mods[0]) {
        if b.as_reg().is_none() {
            let bits = match b.kind {
                OperandKind::Imm(Imm::Int(v)) => Operand::int(i64::from(v as u32)),
                OperandKind::Imm(Imm::F32(bits)) => Operand::int(i64::from(bits)),
                _ => return Err(unsupported(inst)),
            };
            let t = cx.temp(RegFile::R, 1);
            cx.imad_mov(t.into(), bits, inst.span)?;
            b = t.into();
        }
        std::mem::swap(&mut a, &mut b);
        mods[0] = swapped;
    }
    cx.emit(op, &mods, vec![p, q], vec![a, b, c], inst.span)
}

/// A narrow integer (8 or 16 bits in the low end of its register, the
/// rest unknown) widened to 32 bits by its type's sign, with `PRMT`
/// (selector nibble 8 + b repeats the sign of byte b, 7 gives zeros): a
/// 32-bit comparison then compares the values. Immediates and 32-bit
/// operands pass through.
pub(super) fn extend(cx: &mut Lowerer<'_>, inst: &Instruction, x: Operand, ty: ScalarType) -> Lowered<Operand> {
    let selector = match ty {
        ScalarType::S8 => 0x8880,
        ScalarType::U8 | ScalarType::B8 => 0x7770,
        ScalarType::S16 => 0x9910,
        ScalarType::U16 | ScalarType::B16 => 0x7710,
        _ => return Ok(x),
    };
    if let OperandKind::Imm(Imm::Int(v)) = x.kind {
        // A constant is widened the same way.
        let bits = ty.bits();
        let low = v & ((1 << bits) - 1);
        let signed = matches!(ty, ScalarType::S8 | ScalarType::S16);
        return Ok(Operand::int(if signed && low >> (bits - 1) != 0 { low - (1 << bits) } else { low }));
    }
    if x.as_reg().is_none() {
        return Ok(x);
    }
    let t = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::PRMT, &[], vec![t.into()], vec![x, Operand::int(selector), Operand::reg(Reg::RZ)], inst.span)?;
    Ok(t.into())
}

/// The SASS combining operation of a PTX `setp` boolean modifier.
fn bool_mod(boolean: &str) -> &'static str {
    match boolean {
        "and" => "AND",
        "or" => "OR",
        _ => "XOR",
    }
}

/// The comparison with its operands swapped, for the "less" ones.
fn mirrored(cmp: &str) -> Option<&'static str> {
    Some(match cmp {
        "LT" => "GT",
        "LE" => "GE",
        "LTU" => "GTU",
        "LEU" => "GEU",
        _ => return None,
    })
}

/// SASS comparison and whether it compares unsigned.
pub(super) fn int_cmp(cmp: &str) -> Option<(&'static str, bool)> {
    Some(match cmp {
        "eq" => ("EQ", false),
        "ne" => ("NE", false),
        "lt" => ("LT", false),
        "le" => ("LE", false),
        "gt" => ("GT", false),
        "ge" => ("GE", false),
        "lo" => ("LT", true),
        "ls" => ("LE", true),
        "hi" => ("GT", true),
        "hs" => ("GE", true),
        _ => return None,
    })
}

/// SASS floating-point comparison.
pub(super) fn float_cmp(cmp: &str) -> Option<&'static str> {
    Some(match cmp {
        "eq" => "EQ",
        "ne" => "NE",
        "lt" => "LT",
        "le" => "LE",
        "gt" => "GT",
        "ge" => "GE",
        "equ" => "EQU",
        "neu" => "NEU",
        "ltu" => "LTU",
        "leu" => "LEU",
        "gtu" => "GTU",
        "geu" => "GEU",
        "num" => "NUM",
        "nan" => "NAN",
        _ => return None,
    })
}

/// `selp.T d, a, b, p`: `SEL d, a, b, p` (a bitwise choice, right for
/// every 32-bit type).
pub(super) fn selp(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if ty.bits() == 64 {
        return super::wide::selp(cx, inst);
    }
    if ty.bits() != 32 {
        return Err(unsupported(inst));
    }
    let p = src(cx, inst, 3, ScalarType::Pred)?;
    select(cx, inst, ty, p)
}

/// `slct.T.s32 d, a, b, c` / `slct[.ftz].T.f32`: `a` where `c >= 0`
/// (`ISETP.GE` / `FSETP.GE[.FTZ]` against `RZ`: a NaN picks `b`, `-0`
/// picks `a`), else `b`, by a `SEL` per word.
pub(super) fn slct(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let types: Vec<ScalarType> = inst.types().collect();
    let [ty, cty] = types.as_slice() else { return Err(unsupported(inst)) };
    let c = src(cx, inst, 3, *cty)?;
    if c.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let p = cx.temp(RegFile::P, 1);
    let (op, mods): (Opcode, &[&str]) = match cty {
        ScalarType::S32 => (Opcode::ISETP, &["GE", "AND"]),
        ScalarType::F32 if inst.has("ftz") => (Opcode::FSETP, &["GE", "FTZ", "AND"]),
        ScalarType::F32 => (Opcode::FSETP, &["GE", "AND"]),
        _ => return Err(unsupported(inst)),
    };
    let pt = || Operand::reg(Reg::PT);
    cx.emit(op, mods, vec![p.into(), pt()], vec![c, Operand::reg(Reg::RZ), pt()], inst.span)?;
    match ty.bits() {
        64 => super::wide::select(cx, inst, p.into()),
        16 | 32 => select(cx, inst, *ty, p.into()),
        _ => Err(unsupported(inst)),
    }
}

/// `d = p ? a : b` for operands 0 to 2 of `inst` of type `ty` (`SEL`
/// moves bits: a 16-bit value rides in the low half).
fn select(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, p: Operand) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    // SEL moves bits: an f32 constant is its bit pattern.
    let bits = |x: Operand| match x.kind {
        OperandKind::Imm(Imm::F32(b)) => Operand::int(i64::from(b)),
        _ => x,
    };
    let (a, b) = (bits(a), bits(b));
    // SASS takes an immediate only second: swap the sources and invert the choice.
    let (mut a, b, p) = if a.as_reg().is_none() && b.as_reg().is_some() { (b, a, p.inverted()) } else { (a, b, p) };
    if a.as_reg().is_none() {
        // Two immediates: the first goes to a register (not by a plain MOV,
        // which copy propagation would fold back).
        let t = cx.temp(RegFile::R, 1);
        cx.imad_mov(t.into(), a, inst.span)?;
        a = t.into();
    }
    cx.emit(Opcode::SEL, &[], vec![d.into()], vec![a, b, p], inst.span)
}
