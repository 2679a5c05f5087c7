//! binary16 and bfloat16: packed arithmetic (`f16x2`/`bf16x2` in one
//! register, low lane first), scalar `f16`/`bf16` in the low half of a
//! register (the high half is don't-care, so reads select `.H0_H0`), the
//! packing `mov.b32` forms, 16-bit `selp` and `setp`.
//!
//! SASS: `HADD2`, `HMUL2`, `HFMA2` (`.MMA.BF16_V2` on sm_90 and
//! `.BF16_V2` on sm_80 for bfloat16, NVIDIA's choices in bf16_ops),
//! `HMNMX2` (predicate true = minimum), `HSETP2`. A bfloat16 pair known at
//! compile time becomes the immediate pair NVIDIA writes (`HMNMX2.BF16_V2
//! R11, R5, -4, -4, !PT`).

use ori_ir::{Halves, Imm, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, Rounding, ScalarType};

use super::cmp::float_cmp;
use super::seq::{Seq, rz};
use super::{dst, operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The half-precision types.
pub(super) fn is_half(ty: ScalarType) -> bool {
    matches!(ty, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2)
}

/// The PTX modifiers of half-precision arithmetic and their SASS words, in
/// the order SASS spells them (after `.BF16_V2`/`.MMA`).
const HALF_MODIFIERS: [(&str, &str); 4] = [("ftz", "FTZ"), ("sat", "SAT"), ("relu", "RELU"), ("NaN", "NAN")];

/// `add`/`sub`/`mul`/`fma`/`min`/`max`/`neg`/`abs` on f16, f16x2, bf16 and
/// bf16x2, round to nearest, with `.ftz`, `.sat`, `.relu` and `.NaN` as
/// the SASS modifiers of the same names (ptx-syntax refuses them where
/// PTX does; `.xorsign.abs` is not lowered).
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let bf16 = matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2);
    let scalar = matches!(ty, ScalarType::F16 | ScalarType::Bf16);
    let known = inst.modifiers.iter().all(|m| match m.kind {
        ModifierKind::Type(_) | ModifierKind::Rounding(Rounding::Rn) => true,
        ModifierKind::Word => HALF_MODIFIERS.iter().any(|(w, _)| m.name == *w),
        _ => false,
    });
    if !known {
        return Err(unsupported(inst));
    }
    let words: Vec<&str> = HALF_MODIFIERS.iter().filter(|(w, _)| inst.has(w)).map(|(_, sass)| *sass).collect();
    let name = inst.opcode.name.as_str();
    let d = dst(cx, inst, 0)?;
    // `.ftz` negation and absolute value flush subnormals: NVIDIA's
    // `HADD2.FTZ d, -a, -RZ` (`|a|` for `abs`), which also quiets NaNs.
    if matches!(name, "neg" | "abs") && !words.is_empty() {
        if words != ["FTZ"] || bf16 {
            return Err(unsupported(inst));
        }
        let mut uses = source(cx, inst, 1, scalar, bf16, name == "neg", true)?;
        let [a] = uses.as_mut_slice() else { return Err(unsupported(inst)) };
        a.flags.abs = name == "abs";
        let mut zero = rz().negated();
        if scalar {
            zero.flags.halves = Some(Halves::H0H0);
        }
        uses.push(zero);
        return cx.emit(Opcode::HADD2, &["FTZ"], vec![d.into()], uses, inst.span);
    }
    // NVIDIA computes binary16 negation and absolute value as arithmetic,
    // not as a sign-bit operation: `HADD2 d, -a, -RZ.H0_H0` (`|a|` for
    // `abs`; sm_80 and sm_90 alike), so a NaN comes out as the canonical
    // 0x7fff, not with its payload (PTX leaves NaN results unspecified).
    if matches!(name, "neg" | "abs") && !bf16 {
        if let Some(bits) = constant(cx, inst, 1)? {
            // Folded as NVIDIA folds it (ptxas 13.5, sm_90): a scalar NaN
            // becomes 0x7fff, a pair's lanes only change sign (`neg.f16x2`
            // of 0xfe01bc00 is 0x7e013c00).
            let lane = |h: u32| match (scalar && h & 0x7fff > 0x7c00, name) {
                (true, _) => 0x7fff,
                (false, "abs") => h & 0x7fff,
                _ => h ^ 0x8000,
            };
            let value = lane(bits >> 16 & 0xffff) << 16 | lane(bits & 0xffff);
            return cx.emit(Opcode::MOV, &[], vec![d.into()], vec![Operand::int(i64::from(value))], inst.span);
        }
        let mut uses = source(cx, inst, 1, scalar, bf16, name == "neg", true)?;
        let [a] = uses.as_mut_slice() else { return Err(unsupported(inst)) };
        a.flags.abs = name == "abs";
        let mut zero = rz().negated();
        zero.flags.halves = Some(Halves::H0H0);
        uses.push(zero);
        return cx.emit(Opcode::HADD2, &[], vec![d.into()], uses, inst.span);
    }
    // bfloat16: NVIDIA's `HFMA2.BF16_V2 d, -RZ.H0_H0, RZ.H0_H0, -a` (`|a|`
    // for `abs`, `.H0_H0` of a scalar; sm_80 and sm_90 alike), -0 * 0 +
    // -a: a NaN comes out as the FMA makes it, not with its sign flipped.
    if matches!(name, "neg" | "abs") {
        let mut a = src(cx, inst, 1, ScalarType::B32)?;
        if a.as_reg().is_none() {
            return Err(unsupported(inst));
        }
        if name == "neg" {
            a = a.negated();
        } else {
            a.flags.abs = true;
        }
        if scalar {
            a.flags.halves = Some(Halves::H0H0);
        }
        let (mut minus_zero, mut zero) = (rz().negated(), rz());
        minus_zero.flags.halves = Some(Halves::H0H0);
        zero.flags.halves = Some(Halves::H0H0);
        return cx.emit(Opcode::HFMA2, &["BF16_V2"], vec![d.into()], vec![minus_zero, zero, a], inst.span);
    }
    let (op, sources, sub) = match name {
        "add" => (Opcode::HADD2, 2, false),
        "sub" => (Opcode::HADD2, 2, true),
        "mul" => (Opcode::HMUL2, 2, false),
        "fma" => (Opcode::HFMA2, 3, false),
        "min" | "max" => (Opcode::HMNMX2, 2, false),
        _ => return Err(unsupported(inst)),
    };
    // SASS takes one immediate pair, never as the first source (NVIDIA's
    // `HFMA2.BF16_V2 d, a.H0_H0, b.H1_H1, 2, 2` for `fma d, a, 1.0, 2.0`
    // keeps the last constant): a constant first source of a commuting
    // operation trades places with a register second one, and the other
    // constants are read from registers.
    let mut consts = Vec::with_capacity(sources);
    for i in 1..=sources {
        consts.push(constant(cx, inst, i)?.is_some());
    }
    let mut order: Vec<usize> = (1..=sources).collect();
    if matches!(name, "add" | "mul" | "fma") && consts[0] && !consts[1] {
        order.swap(0, 1);
    }
    let immediate = (1..sources).rev().find(|&k| consts[order[k] - 1]);
    let mut uses = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let negate = sub && i == 2;
        uses.extend(source(cx, inst, i, scalar, bf16, negate, immediate == Some(k))?);
    }
    // NVIDIA reads a broadcast pair `{x, x}` as one half of it: the only
    // forms of f16 HMUL2/HFMA2 it emits (`HMUL2 d, a.H1_H1, b` on sm_80+,
    // `a.H0_H0` on sm_75: `isa.hmul2_broadcast_lane`; `HFMA2 d, a.H0_H0,
    // b, c`), the same value. The product commutes.
    let lanes = match op {
        Opcode::HMUL2 => Some(cx.target.isa.hmul2_broadcast_lane),
        Opcode::HFMA2 => Some(Halves::H0H0),
        _ => None,
    };
    if let Some(lanes) = lanes.filter(|_| !bf16 && !scalar && uses.len() == sources) {
        let first = [1, 2].into_iter().find(|&i| broadcast(cx, inst, i));
        if first == Some(2) {
            uses.swap(0, 1);
        }
        if first.is_some() {
            uses[0].flags.halves = Some(lanes);
        }
    }
    if op == Opcode::HMNMX2 {
        uses.push(if name == "min" { Operand::reg(Reg::PT) } else { Operand::reg(Reg::PT).inverted() });
    }
    let mut mods: Vec<&str> = match (bf16, op) {
        (false, _) => vec![],
        // NVIDIA's scalar bfloat16 fma on sm_90 is the plain `HFMA2.BF16_V2`.
        (true, Opcode::HFMA2) if cx.target.isa.bf16x2_fma_mma && !scalar => vec!["MMA", "BF16_V2"],
        (true, _) => vec!["BF16_V2"],
    };
    mods.extend(words);
    cx.emit(op, &mods, vec![d.into()], uses, inst.span)
}

/// Source `i` of a half-precision instruction: a register (`.H0_H0` for a
/// scalar, whose high half is don't-care), or the immediate pair of a
/// constant (high lane first, each as the binary32 value of the lane, the
/// encoder's spelling) where `immediate` allows one; `negate` flips its
/// sign.
fn source(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    i: usize,
    scalar: bool,
    bf16: bool,
    negate: bool,
    immediate: bool,
) -> Lowered<Vec<Operand>> {
    if let Some(bits) = constant(cx, inst, i)?.filter(|_| immediate) {
        // An immediate pair, high lane first, each lane as its binary32
        // value (how the encoder spells binary16 and bfloat16 fields).
        let bits = if scalar { bits & 0xffff | bits << 16 } else { bits };
        let bits = if negate { bits ^ 0x8000_8000 } else { bits };
        let lane = |h: u32| {
            let value = if bf16 { h << 16 } else { f16_to_f32(h as u16).to_bits() };
            Operand::from(OperandKind::Imm(Imm::F32(value)))
        };
        return Ok(vec![lane(bits >> 16), lane(bits & 0xffff)]);
    }
    let a = src(cx, inst, i, ScalarType::B32)?;
    let seq = Seq::start(cx, inst.span);
    let a = seq.in_reg(cx, a);
    seq.finish(cx);
    let mut a = a?;
    if scalar {
        a.flags.halves = Some(Halves::H0H0);
    }
    Ok(vec![if negate { a.negated() } else { a }])
}

/// The 32 bits of operand `i` when known at compile time: an immediate or
/// a register written once by `mov` of one.
fn constant(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<u32>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(*value as u32),
        ExprKind::Name(r, None) => cx.consts.get(r.name.as_str()).map(|&v| v as u32),
        _ => None,
    })
}

/// Remembers that PTX register operand `i` holds `value` when it is written
/// only here (so later reads may use the immediate).
fn remember(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize, value: u32) -> Lowered {
    if let ExprKind::Name(r, None) = &operand(inst, i)?.kind
        && cx.single_def(r.name.as_str())
    {
        cx.consts.insert(r.name.as_str().to_string(), i64::from(value));
    }
    Ok(())
}

/// `cvt.rn.{f16,bf16}.f32 d, c` of a constant `c`: the rounded bits, moved
/// (and remembered, for the packed immediate forms). `None` when `c` is
/// not a constant.
pub(super) fn fold_cvt(cx: &mut Lowerer<'_>, inst: &Instruction, to: ScalarType) -> Lowered<Option<()>> {
    let Some(bits) = constant(cx, inst, 1)? else { return Ok(None) };
    let x = f32::from_bits(bits);
    let h = match to {
        ScalarType::Bf16 => bf16_bits(x),
        ScalarType::F16 => match f16_bits(x) {
            Some(h) => h,
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let d = dst(cx, inst, 0)?;
    cx.emit(Opcode::MOV, &[], vec![d.into()], vec![Operand::int(i64::from(h))], inst.span)?;
    remember(cx, inst, 0, u32::from(h))?;
    Ok(Some(()))
}

/// binary16 bits to f32 (exact).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let man = f32::from(h & 0x3ff);
    sign * match exp {
        0 => man * 2f32.powi(-24),
        0x1f if man == 0.0 => f32::INFINITY,
        0x1f => f32::NAN,
        e => (1.0 + man / 1024.0) * 2f32.powi(e - 15),
    }
}

/// The binary16 bits of `x` when `x` is exactly a normal binary16 value or
/// zero (constants are folded only when no rounding is involved).
fn f16_bits(x: f32) -> Option<u16> {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x == 0.0 {
        return Some(sign);
    }
    let e = x.abs().log2().floor() as i32;
    let man = (x.abs() / 2f32.powi(e) - 1.0) * 1024.0;
    ((-14..16).contains(&e) && man.fract() == 0.0).then(|| sign | ((e + 15) as u16) << 10 | man as u16)
}

/// Whether source `i` is a PTX register written once, by a packing of one
/// half into both (`PRMT d, x, 0x5410, x`).
fn broadcast(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> bool {
    let Ok(ExprKind::Name(r, None)) = operand(inst, i).map(|e| &e.kind) else { return false };
    let Some(reg) = cx.regs.get(&mut cx.func, r.name.as_str()) else { return false };
    cx.single_def(r.name.as_str())
        && cx.func.insts.iter().any(|(_, def)| {
            def.op == Opcode::PRMT
                && def.defs.first().and_then(Operand::as_reg) == Some(reg)
                && matches!(def.uses.as_slice(), [x, sel, y] if x == y && x.as_reg().is_some()
                    && sel.kind == OperandKind::Imm(Imm::Int(0x5410)))
        })
}

/// binary32 to bfloat16, round to nearest even (a NaN stays a NaN).
fn bf16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return 0x7fff;
    }
    ((bits + 0x7fff + (bits >> 16 & 1)) >> 16) as u16
}

/// `mov.b32 d, {lo, hi}` (packing two halves: `PRMT d, lo, 0x5410, hi`, a
/// constant when both are) and `mov.b32 {lo, hi}, s` (unpacking: `lo` is
/// `s`, whose high half is don't-care there; `hi` is `s >> 16`).
pub(super) fn mov_halves(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)?.bits() != 32 {
        return Err(unsupported(inst));
    }
    match (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind) {
        (ExprKind::Name(..), ExprKind::Braces(halves)) if halves.len() == 2 => {
            let d = dst(cx, inst, 0)?;
            let part = |cx: &mut Lowerer<'_>, e: &ptx_syntax::ast::Expr| -> Lowered<(Operand, Option<u32>)> {
                match &e.kind {
                    ExprKind::Name(r, None) => {
                        let known = cx.consts.get(r.name.as_str()).map(|&v| v as u32 & 0xffff);
                        Ok((Operand::reg(cx.reg(r.name.as_str(), r.span)?), known))
                    }
                    ExprKind::Int { value, .. } => {
                        Ok((Operand::int(*value as i64 & 0xffff), Some(*value as u32 & 0xffff)))
                    }
                    _ => Err(unsupported(inst)),
                }
            };
            let (lo, lo_known) = part(cx, &halves[0])?;
            let (hi, hi_known) = part(cx, &halves[1])?;
            if let (Some(l), Some(h)) = (lo_known, hi_known) {
                let value = h << 16 | l;
                cx.emit(Opcode::MOV, &[], vec![d.into()], vec![Operand::int(i64::from(value))], inst.span)?;
                return remember(cx, inst, 0, value);
            }
            let seq = Seq::start(cx, inst.span);
            let regs = seq.in_reg(cx, lo).and_then(|lo| Ok((lo, seq.in_reg(cx, hi)?)));
            seq.finish(cx);
            let (lo, hi) = regs?;
            cx.emit(Opcode::PRMT, &[], vec![d.into()], vec![lo, Operand::int(0x5410), hi], inst.span)
        }
        (ExprKind::Braces(halves), ExprKind::Name(..)) if halves.len() == 2 => {
            let s = src(cx, inst, 1, ScalarType::B32)?;
            if s.as_reg().is_none() {
                return Err(unsupported(inst));
            }
            /// A destination half: a register, or `_` for none.
            fn name(e: &ptx_syntax::ast::Expr) -> Option<Option<&ptx_syntax::ast::Ident>> {
                match &e.kind {
                    ExprKind::Name(r, None) => Some(Some(r)),
                    ExprKind::Sink => Some(None),
                    _ => None,
                }
            }
            let (Some(lo), Some(hi)) = (name(&halves[0]), name(&halves[1])) else { return Err(unsupported(inst)) };
            let lo = lo.map(|r| cx.reg(r.name.as_str(), r.span)).transpose()?;
            let hi = hi.map(|r| cx.reg(r.name.as_str(), r.span)).transpose()?;
            let write_low = |cx: &mut Lowerer<'_>| match lo {
                Some(l) if Some(l) != s.as_reg() => {
                    cx.emit(Opcode::MOV, &[], vec![l.into()], vec![s.clone()], inst.span)
                }
                _ => Ok(()),
            };
            // Neither write may clobber `s` before the other has read it.
            let low_first = hi.is_some() && hi == s.as_reg();
            if low_first {
                write_low(cx)?;
            }
            if let Some(h) = hi {
                let uses = vec![rz(), Operand::int(16), s.clone()];
                cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![h.into()], uses, inst.span)?;
            }
            if !low_first {
                write_low(cx)?;
            }
            Ok(())
        }
        _ => Err(unsupported(inst)),
    }
}

/// `selp.{b16,u16,s16} d, a, b, p`: `SEL` on the registers (the high
/// halves come along, don't-care).
pub(super) fn selp16(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    let b = src(cx, inst, 2, ScalarType::U32)?;
    let p = src(cx, inst, 3, ScalarType::Pred)?;
    let (a, b, p) = if a.as_reg().is_none() && b.as_reg().is_some() { (b, a, p.inverted()) } else { (a, b, p) };
    let seq = Seq::start(cx, inst.span);
    let a = seq.in_reg(cx, a);
    seq.finish(cx);
    let b = match b.kind {
        OperandKind::Imm(Imm::Int(v)) => Operand::int(v & 0xffff),
        _ => b,
    };
    cx.emit(Opcode::SEL, &[], vec![d.into()], vec![a?, b, p], inst.span)
}

/// `setp.CMP[.BOOL][.ftz].{f16,bf16} p[|q], a, b[, c]`: `HSETP2` on the
/// low lanes; `.{f16x2,bf16x2} p|q, a, b`: `HSETP2` on both lanes, the low
/// lane's result in `p`, the high lane's in `q` (NVIDIA's `HSETP2.CMP.AND
/// P0, P1, a, b, PT`). (16-bit integers compare in `cmp.rs`, with the
/// other narrow ones.)
pub(super) fn setp16(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let pair = matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2);
    let mut words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    let ftz = words.contains(&"ftz");
    words.retain(|w| *w != "ftz");
    let (cmp, boolean) = match words.as_slice() {
        [cmp] => (*cmp, None),
        [cmp, b @ ("and" | "or" | "xor")] if !pair => (*cmp, Some(*b)),
        _ => return Err(unsupported(inst)),
    };
    let (p, q) = if pair || boolean.is_some() {
        super::cmp::pred_dsts(cx, inst)?
    } else {
        (dst(cx, inst, 0)?.into(), Operand::reg(Reg::PT))
    };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let cmp = float_cmp(cmp).ok_or_else(|| unsupported(inst))?;
        let mut mods = vec![cmp];
        if ftz {
            mods.push("FTZ");
        }
        mods.push(match boolean {
            None | Some("and") => "AND",
            Some("or") => "OR",
            Some(_) => "XOR",
        });
        if matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2) {
            mods.insert(0, "BF16_V2");
        }
        let pt = Operand::reg(Reg::PT);
        let c = match boolean {
            Some(_) => src(cx, inst, 3, ScalarType::Pred)?,
            None => pt.clone(),
        };
        let a = src(cx, inst, 1, ScalarType::B32)?;
        let a = seq.in_reg(cx, a)?;
        if pair {
            let b = src(cx, inst, 2, ScalarType::B32)?;
            let b = seq.in_reg(cx, b)?;
            return seq.op_if(cx, seq.guard, Opcode::HSETP2, &mods, vec![p, q], vec![a, b, c]);
        }
        // Only the low lanes' result (the first) is used, so `a` may be
        // read whole; a zero `b` is `RZ.H0_H0` (NVIDIA's form).
        let mut b = match constant(cx, inst, 2)? {
            Some(bits) if bits & 0xffff == 0 => Operand::reg(Reg::RZ),
            _ => {
                let b = src(cx, inst, 2, ScalarType::B32)?;
                seq.in_reg(cx, b)?
            }
        };
        b.flags.halves = Some(Halves::H0H0);
        // The encoder knows HSETP2 as .GEU only: a plain `lt` is its
        // complement (false on NaN, as `lt` is), inverted by PLOP3.
        if mods.contains(&"LT") && boolean.is_none() && !ftz {
            let mods: Vec<&str> = mods.iter().map(|m| if *m == "LT" { "GEU" } else { m }).collect();
            let t = cx.temp(RegFile::P, 1);
            seq.op(cx, Opcode::HSETP2, &mods, vec![t.into(), pt.clone()], vec![a, b, pt.clone()])?;
            let uses = vec![t.into(), pt.clone(), pt.clone(), Operand::int(0x0f), Operand::int(0)];
            return seq.op_if(cx, seq.guard, Opcode::PLOP3, &["LUT"], vec![p, pt], uses);
        }
        seq.op_if(cx, seq.guard, Opcode::HSETP2, &mods, vec![p, q], vec![a, b, c])
    })();
    seq.finish(cx);
    result
}

/// `set.CMP[.ftz].D.T d, a, b` with a binary16 or bfloat16 `T` (scalar or
/// pair): `HSET2[.BF16_V2][.BF].CMP[.FTZ].AND d, a, b, PT`, NVIDIA's
/// forms. A float `D` takes `.BF` (1.0 or 0.0 per lane), an integer one
/// the lane masks; a scalar `T` reads `.H0_H0` halves, and its integer
/// result is the low mask sign-extended (`PRMT 0x9910`). A constant
/// operand is the immediate pair NVIDIA writes (CUDA's hexp family
/// compares with constants this way).
pub(super) fn set16(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    let ftz = words.contains(&"ftz");
    words.retain(|w| *w != "ftz");
    let types: Vec<ScalarType> = inst.types().collect();
    let ([cmp], [dtype, stype]) = (words.as_slice(), types.as_slice()) else { return Err(unsupported(inst)) };
    let cmp = float_cmp(cmp).ok_or_else(|| unsupported(inst))?;
    let scalar = matches!(stype, ScalarType::F16 | ScalarType::Bf16);
    let bf16 = matches!(stype, ScalarType::Bf16 | ScalarType::Bf16x2);
    let float = is_half(*dtype);
    if !float && !matches!(dtype, ScalarType::U32 | ScalarType::S32) {
        return Err(unsupported(inst));
    }
    let mut mods = Vec::new();
    if bf16 {
        mods.push("BF16_V2");
    }
    if float {
        mods.push("BF");
    }
    mods.push(cmp);
    if ftz {
        mods.push("FTZ");
    }
    mods.push("AND");
    let d = dst(cx, inst, 0)?;
    if constant(cx, inst, 1)?.is_some() {
        return Err(unsupported(inst));
    }
    let mut uses = source(cx, inst, 1, scalar, bf16, false, true)?;
    uses.extend(source(cx, inst, 2, scalar, bf16, false, true)?);
    uses.push(Operand::reg(Reg::PT));
    if float || !scalar {
        return cx.emit(Opcode::HSET2, &mods, vec![d.into()], uses, inst.span);
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mask = seq.value(cx, Opcode::HSET2, &mods, uses)?;
        let uses = vec![mask.into(), Operand::int(0x9910), rz()];
        seq.op_if(cx, seq.guard, Opcode::PRMT, &[], vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}
