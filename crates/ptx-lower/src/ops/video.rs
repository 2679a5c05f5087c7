//! Scalar video instructions on whole words: `vadd`, `vsub`, `vabsdiff`,
//! `vmin`, `vmax` `.dtype.atype.btype[.sat] d, a, b` and `[.add|.min|.max]
//! d, a, b, c` (`dtype`, `atype`, `btype` each `u32` or `s32`, no byte or
//! half selectors). PTX defines them on the sources extended by their
//! types to more than 32 bits; as NVIDIA's code does, the lowering works
//! on 64-bit two's-complement pairs (`IADD3` with a carry and `IADD3.X`,
//! `ISETP` + `ISETP.EX`, a `SEL` per word), then saturates to `dtype` or
//! keeps the low word. The merge (`.min`/`.max` with `c`) and `.sat` of a
//! `u32` result follow NVIDIA's code, whose results differ from a wider
//! reading of the reference: the merge compares the intermediate (of
//! `vadd`/`vsub`: its low word sign-extended) with `c` extended as
//! `dtype` (unsigned for `u32`), and `u32` saturation only raises negative
//! values to 0.
//!
//! Also, on the same pairs: `vshl`/`vshr .dtype.atype.u32.{clamp,wrap}
//! [.sat] d, a, b` (the shift count clamped to 32 or taken mod 32, then a
//! 64-bit funnel shift, `SHF.{L,R}.{U64,S64}`), `vset.atype.btype.cmp d,
//! a, b` (a 64-bit `ISETP` pair, 1 or 0) and `vmad.dtype.atype.btype
//! [.sat][.shr7|.shr15] d, a, b, c` (`IMAD.WIDE` plus `c`, shifted,
//! clamped).

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::seq::{Seq, rz};
use super::{dst, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// A 64-bit value as its two words.
#[derive(Clone)]
struct Pair {
    lo: Operand,
    hi: Operand,
}

/// Lowers `inst` (one of the opcodes above).
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let types: Vec<ScalarType> = inst.types().collect();
    if inst.opcode.name == "vset" {
        return vset(cx, inst, &types);
    }
    let [dt, at, bt] = types.as_slice() else { return Err(unsupported(inst)) };
    let word = |t: &ScalarType| matches!(t, ScalarType::U32 | ScalarType::S32);
    // A selector (`a.b0`, `a.h1`) reads part of a word: not lowered.
    let selected = inst.operands.iter().any(|o| matches!(&o.kind, ExprKind::Name(_, Some(_))));
    if !(word(dt) && word(at) && word(bt)) || selected {
        return Err(unsupported(inst));
    }
    let merge = ["add", "min", "max"].into_iter().find(|m| inst.has(m));
    let sat = inst.has("sat");
    if sat && merge.is_some() {
        return Err(unsupported(inst));
    }
    match inst.opcode.name.as_str() {
        "vshl" | "vshr" if merge.is_none() => return shift(cx, inst, [*dt, *at, *bt], sat),
        "vmad" => return vmad(cx, inst, [*at, *bt], sat),
        _ => {}
    }
    let signed = |t: &ScalarType| *t == ScalarType::S32;
    let op = inst.opcode.name.clone();
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src(cx, inst, 1, *at)?, src(cx, inst, 2, *bt)?);
    let c = if merge.is_some() { Some(src(cx, inst, 3, *dt)?) } else { None };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = extend(cx, &seq, a, signed(at))?;
        let b = extend(cx, &seq, b, signed(bt))?;
        let mut t = match op.as_str() {
            "vadd" => add(cx, &seq, &a, &b, false)?,
            "vsub" => add(cx, &seq, &a, &b, true)?,
            "vabsdiff" => {
                let diff = add(cx, &seq, &a, &b, true)?;
                let zero = Pair { lo: rz(), hi: rz() };
                let negated = add(cx, &seq, &zero, &diff, true)?;
                let negative = seq.isetp(cx, &["LT", "AND"], diff.hi.clone(), rz())?;
                select(cx, &seq, Operand::reg(negative), &negated, &diff)?
            }
            "vmin" | "vmax" => {
                let less = less(cx, &seq, &a, &b, true)?;
                if op == "vmin" { select(cx, &seq, less, &a, &b)? } else { select(cx, &seq, less, &b, &a)? }
            }
            _ => return Err(unsupported(inst)),
        };
        if let (Some(merge), Some(c)) = (merge, c) {
            if matches!(op.as_str(), "vadd" | "vsub") {
                t = extend(cx, &seq, t.lo, true)?;
            }
            let c = extend(cx, &seq, c, signed(dt))?;
            t = if merge == "add" {
                add(cx, &seq, &t, &c, false)?
            } else {
                let below = less(cx, &seq, &t, &c, signed(dt))?;
                if merge == "min" { select(cx, &seq, below, &t, &c)? } else { select(cx, &seq, below, &c, &t)? }
            };
        }
        let out = if sat { saturate(cx, &seq, &t, signed(dt))? } else { t.lo };
        seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.into()], vec![out])
    })();
    seq.finish(cx);
    result
}

/// `x` in a register with its high word: the sign (`SHF.R.S32.HI`) or 0.
fn extend(cx: &mut Lowerer<'_>, seq: &Seq, x: Operand, signed: bool) -> Lowered<Pair> {
    let lo = seq.in_reg(cx, x)?;
    let hi = if signed {
        seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), lo.clone()])?.into()
    } else {
        rz()
    };
    Ok(Pair { lo, hi })
}

/// `x + y` or `x - y`: `IADD3` with its carry, `IADD3.X` (`-y.lo`, `~y.hi`).
fn add(cx: &mut Lowerer<'_>, seq: &Seq, x: &Pair, y: &Pair, subtract: bool) -> Lowered<Pair> {
    let carry = cx.temp(ori_ir::RegFile::P, 1);
    let lo = cx.temp(ori_ir::RegFile::R, 1);
    let (y_lo, y_hi) = if subtract {
        let mut hi = y.hi.clone();
        hi.flags.bitnot = true;
        (y.lo.clone().negated(), hi)
    } else {
        (y.lo.clone(), y.hi.clone())
    };
    seq.op(cx, Opcode::IADD3, &[], vec![lo.into(), carry.into()], vec![x.lo.clone(), y_lo, rz()])?;
    // IADD3.X reads a register first.
    let x_hi = seq.in_reg(cx, x.hi.clone())?;
    let x_hi = if x_hi.as_reg() == Some(Reg::RZ) && subtract { seq.in_reg(cx, Operand::int(0))? } else { x_hi };
    let uses = vec![x_hi, y_hi, rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
    let hi = seq.value(cx, Opcode::IADD3, &["X"], uses)?;
    Ok(Pair { lo: lo.into(), hi: hi.into() })
}

/// `x < y` as 64-bit values: `ISETP.LT.U32` of the low words, then
/// `ISETP.LT[.U32].AND.EX` of the high ones.
fn less(cx: &mut Lowerer<'_>, seq: &Seq, x: &Pair, y: &Pair, signed: bool) -> Lowered<Operand> {
    let low = seq.isetp(cx, &["LT", "U32", "AND"], x.lo.clone(), y.lo.clone())?;
    let p = cx.temp(ori_ir::RegFile::P, 1);
    let pt = Operand::reg(Reg::PT);
    let uses = vec![x.hi.clone(), y.hi.clone(), pt.clone(), low.into()];
    let mods: &[&str] = if signed { &["LT", "AND", "EX"] } else { &["LT", "U32", "AND", "EX"] };
    seq.op(cx, Opcode::ISETP, mods, vec![p.into(), pt], uses)?;
    Ok(p.into())
}

/// `p ? x : y`, a `SEL` per word.
fn select(cx: &mut Lowerer<'_>, seq: &Seq, p: Operand, x: &Pair, y: &Pair) -> Lowered<Pair> {
    let word = |cx: &mut Lowerer<'_>, a: &Operand, b: &Operand| -> Lowered<Operand> {
        let a = seq.in_reg(cx, a.clone())?;
        Ok(seq.value(cx, Opcode::SEL, &[], vec![a, b.clone(), p.clone()])?.into())
    };
    Ok(Pair { lo: word(cx, &x.lo, &y.lo)?, hi: word(cx, &x.hi, &y.hi)? })
}

/// `t` clamped to the range of an `s32` destination, or raised to 0 for
/// a `u32` one.
fn saturate(cx: &mut Lowerer<'_>, seq: &Seq, t: &Pair, signed: bool) -> Lowered<Operand> {
    let negative = seq.isetp(cx, &["LT", "AND"], t.hi.clone(), rz())?;
    if signed {
        // In range when the high word is the low word's sign.
        let sign = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), t.lo.clone()])?;
        let fits = seq.isetp(cx, &["EQ", "U32", "AND"], t.hi.clone(), sign.into())?;
        let max = seq.in_reg(cx, Operand::int(0x7fff_ffff))?;
        let bound =
            seq.value(cx, Opcode::SEL, &[], vec![max, Operand::int(0x8000_0000), Operand::reg(negative).inverted()])?;
        Ok(seq.value(cx, Opcode::SEL, &[], vec![t.lo.clone(), bound.into(), fits.into()])?.into())
    } else {
        let lo = seq.in_reg(cx, t.lo.clone())?;
        Ok(seq.value(cx, Opcode::SEL, &[], vec![lo, rz(), Operand::reg(negative).inverted()])?.into())
    }
}

/// `vshl`/`vshr.dtype.atype.u32.mode[.sat] d, a, b`: `a` extended by its
/// type, shifted by `b` clamped to 32 (`.clamp`) or taken mod 32
/// (`.wrap`) as a 64-bit value, then saturated to `dtype` or truncated.
fn shift(cx: &mut Lowerer<'_>, inst: &Instruction, [dt, at, bt]: [ScalarType; 3], sat: bool) -> Lowered {
    let clamp = inst.has("clamp");
    if bt != ScalarType::U32 || clamp == inst.has("wrap") {
        return Err(unsupported(inst));
    }
    let left = inst.opcode.name == "vshl";
    let signed = |t: ScalarType| t == ScalarType::S32;
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src(cx, inst, 1, at)?, src(cx, inst, 2, bt)?);
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = extend(cx, &seq, a, signed(at))?;
        let b = seq.in_reg(cx, b)?;
        let n: Operand = if clamp {
            let below = seq.isetp(cx, &["LT", "U32", "AND"], b.clone(), Operand::int(32))?;
            seq.value(cx, Opcode::SEL, &[], vec![b, Operand::int(32), below.into()])?.into()
        } else {
            seq.lop3_value(cx, [b, Operand::int(0x1f), rz()], 0xc0)?.into()
        };
        let t = if left {
            let hi = seq.value(cx, Opcode::SHF, &["L", "U64", "HI"], vec![a.lo.clone(), n.clone(), a.hi.clone()])?;
            let lo = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![a.lo.clone(), n, rz()])?;
            Pair { lo: lo.into(), hi: hi.into() }
        } else {
            let (wide, narrow) = if signed(at) { ("S64", "S32") } else { ("U64", "U32") };
            let hi_in = seq.in_reg(cx, a.hi.clone())?;
            let lo = seq.value(cx, Opcode::SHF, &["R", wide], vec![a.lo.clone(), n.clone(), hi_in.clone()])?;
            let hi = seq.value(cx, Opcode::SHF, &["R", narrow, "HI"], vec![rz(), n, hi_in])?;
            Pair { lo: lo.into(), hi: hi.into() }
        };
        let out = if sat { saturate34(cx, &seq, &t, signed(dt))? } else { t.lo };
        seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.into()], vec![out])
    })();
    seq.finish(cx);
    result
}

/// The saturation of NVIDIA's shift code: the intermediate read as a
/// 34-bit signed value (bits 32 and 33 of `t`, its sign bit 33), clamped
/// to `s32` or `u32`. (A left shift by 32 of a positive value sets bit
/// 33 and saturates to `INT_MIN`, as NVIDIA's results show.)
fn saturate34(cx: &mut Lowerer<'_>, seq: &Seq, t: &Pair, signed: bool) -> Lowered<Operand> {
    let hi = seq.in_reg(cx, t.hi.clone())?;
    let top = seq.lop3_value(cx, [hi, Operand::int(3), rz()], 0xc0)?;
    let lo = seq.in_reg(cx, t.lo.clone())?;
    if signed {
        let sign = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), lo.clone()])?;
        let sign = seq.lop3_value(cx, [sign.into(), Operand::int(3), rz()], 0xc0)?;
        let fits = seq.isetp(cx, &["EQ", "U32", "AND"], top.into(), sign.into())?;
        let negative = seq.isetp(cx, &["GT", "U32", "AND"], top.into(), Operand::int(1))?;
        let max = seq.in_reg(cx, Operand::int(0x7fff_ffff))?;
        let bound =
            seq.value(cx, Opcode::SEL, &[], vec![max, Operand::int(0x8000_0000), Operand::reg(negative).inverted()])?;
        Ok(seq.value(cx, Opcode::SEL, &[], vec![lo, bound.into(), fits.into()])?.into())
    } else {
        let fits = seq.isetp(cx, &["EQ", "U32", "AND"], top.into(), rz())?;
        let above = seq.isetp(cx, &["EQ", "U32", "AND"], top.into(), Operand::int(1))?;
        let max = seq.in_reg(cx, Operand::int(0xffff_ffff))?;
        let bound = seq.value(cx, Opcode::SEL, &[], vec![max, rz(), above.into()])?;
        Ok(seq.value(cx, Opcode::SEL, &[], vec![lo, bound.into(), fits.into()])?.into())
    }
}

/// `vset.atype.btype.cmp d, a, b`: 1 where the extended `a` and `b`
/// compare true, else 0.
fn vset(cx: &mut Lowerer<'_>, inst: &Instruction, types: &[ScalarType]) -> Lowered {
    let [at, bt] = types else { return Err(unsupported(inst)) };
    let cmp =
        ["eq", "ne", "lt", "le", "gt", "ge"].into_iter().find(|m| inst.has(m)).ok_or_else(|| unsupported(inst))?;
    if inst.operands.len() != 3 {
        return Err(unsupported(inst));
    }
    let signed = |t: &ScalarType| *t == ScalarType::S32;
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src(cx, inst, 1, *at)?, src(cx, inst, 2, *bt)?);
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = extend(cx, &seq, a, signed(at))?;
        let b = extend(cx, &seq, b, signed(bt))?;
        let cmp = cmp.to_ascii_uppercase();
        let low = seq.isetp(cx, &[&cmp, "U32", "AND"], a.lo.clone(), b.lo.clone())?;
        let p = cx.temp(ori_ir::RegFile::P, 1);
        let pt = Operand::reg(Reg::PT);
        let a_hi = seq.in_reg(cx, a.hi.clone())?;
        let uses = vec![a_hi, b.hi.clone(), pt.clone(), low.into()];
        seq.op(cx, Opcode::ISETP, &[&cmp, "AND", "EX"], vec![p.into(), pt], uses)?;
        let uses = vec![rz(), Operand::int(1), Operand::reg(p).inverted()];
        seq.op_if(cx, seq.guard, Opcode::SEL, &[], vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}

/// `vmad.dtype.atype.btype[.sat][.shr7|.shr15] d, a, b, c`: the signed
/// 64-bit product of the sources plus `c` sign-extended, shifted right by
/// the scale (logically for unsigned sources), clamped under `.sat` to
/// the 32-bit range of the sources' signedness. NVIDIA's results, where
/// the reference extends unsigned sources and their `c` with zeros. (Negated
/// operands and `.po` are not lowered.)
fn vmad(cx: &mut Lowerer<'_>, inst: &Instruction, [at, bt]: [ScalarType; 2], sat: bool) -> Lowered {
    let negated =
        inst.operands.iter().any(|o| matches!(&o.kind, ExprKind::Unary(_, e) if matches!(e.kind, ExprKind::Name(..))));
    if negated || inst.has("po") || at != bt {
        return Err(unsupported(inst));
    }
    let signed = at == ScalarType::S32;
    let scale = if inst.has("shr7") {
        7
    } else if inst.has("shr15") {
        15
    } else {
        0
    };
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src(cx, inst, 1, at)?, src(cx, inst, 2, bt)?);
    let c = src(cx, inst, 3, ScalarType::S32)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = seq.in_reg(cx, a)?;
        // NVIDIA's code extends `c` by its sign whatever the types.
        let c = extend(cx, &seq, c, true)?;
        let product = cx.temp(ori_ir::RegFile::R, 2);
        // NVIDIA's code multiplies signed for unsigned sources too.
        seq.op(cx, Opcode::IMAD, &["WIDE"], vec![product.into()], vec![a, b, rz()])?;
        let p = Pair { lo: Operand::reg(product.part(0, 1)), hi: Operand::reg(product.part(1, 1)) };
        let mut t = add(cx, &seq, &p, &c, false)?;
        if scale != 0 {
            let (wide, narrow) = if signed { ("S64", "S32") } else { ("U64", "U32") };
            let n = Operand::int(scale);
            let lo = seq.value(cx, Opcode::SHF, &["R", wide], vec![t.lo.clone(), n.clone(), t.hi.clone()])?;
            let hi = seq.value(cx, Opcode::SHF, &["R", narrow, "HI"], vec![rz(), n, t.hi.clone()])?;
            t = Pair { lo: lo.into(), hi: hi.into() };
        }
        let out = match (sat, signed) {
            (false, _) => t.lo,
            (true, true) => saturate(cx, &seq, &t, true)?,
            (true, false) => {
                let fits = seq.isetp(cx, &["EQ", "U32", "AND"], t.hi.clone(), rz())?;
                let negative = seq.isetp(cx, &["LT", "AND"], t.hi.clone(), rz())?;
                let max = seq.in_reg(cx, Operand::int(0xffff_ffff))?;
                let bound = seq.value(cx, Opcode::SEL, &[], vec![max, rz(), Operand::reg(negative).inverted()])?;
                let lo = seq.in_reg(cx, t.lo.clone())?;
                seq.value(cx, Opcode::SEL, &[], vec![lo, bound.into(), fits.into()])?.into()
            }
        };
        seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.into()], vec![out])
    })();
    seq.finish(cx);
    result
}
