//! 64-bit integer arithmetic, logic, shifts, comparisons and selection on
//! the words of register pairs, in the sequences NVIDIA's ptxas emits
//! (measured with `nvdisasm` on sm_90 and sm_80 cubins of the same PTX):
//!
//! | PTX | SASS |
//! |---|---|
//! | `add.s64 d, a, b` | `IADD3 d.lo, P, a.lo, b.lo, RZ`; `IADD3.X d.hi, a.hi, b.hi, RZ, P, !PT` |
//! | `sub.s64 d, a, b` | `IADD3 d.lo, P, a.lo, -b.lo, RZ`; `IADD3.X d.hi, a.hi, ~b.hi, RZ, P, !PT` |
//! | `neg.s64 d, a` | `sub.s64 d, 0, a` |
//! | `mul.lo.s64 d, a, b` | `IMAD t, a.hi, b.lo, RZ`; `IMAD t, a.lo, b.hi, t`; `IMAD.WIDE.U32 d, a.lo, b.lo, RZ`; `IADD3 d.hi, d.hi, t, RZ` |
//! | `shl.b64 d, a, n` | `SHF.L.U64.HI d.hi, a.lo, n, a.hi`; `SHF.L.U32 d.lo, a.lo, n, RZ` |
//! | `shr.u64`/`shr.s64 d, a, n` | `SHF.R.U64`/`.S64 d.lo, a.lo, n, a.hi`; `SHF.R.U32`/`.S32.HI d.hi, RZ, n, a.hi` |
//! | `and`/`or`/`xor`/`not.b64` | `LOP3.LUT` on each word |
//! | `setp.CMP.{s,u}64 p, a, b` | `ISETP.CMP.U32.AND p, PT, a.lo, b.lo, PT`; `ISETP.CMP[.U32].AND.EX p, PT, a.hi, b.hi, c, p` |
//! | `selp.b64 d, a, b, p` | `SEL` on each word |
//! | `min`/`max.{u64,s64} d, a, b` | the `setp.lt`/`setp.gt` pair above, then `SEL` on each word |
//! | `copysign.f64 d, a, b` | `LOP3.LUT d.hi, b.hi, 0x80000000, a.hi, 0xb8`; `MOV d.lo, b.lo` |
//!
//! The first word written starts the destination's new value (`undef`),
//! unless the destination is also a source, whose other word is still to
//! be read.

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{Expr, ExprKind, Instruction, ScalarType, UnaryOp};

use super::{dst, operand, read_reg, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// A 64-bit source: a register pair or a constant.
#[derive(Copy, Clone, Debug)]
pub(super) enum Src64 {
    Reg(Reg),
    Imm(u64),
}

impl Src64 {
    /// Word `i` (0 = low) as a 32-bit operand; a zero constant word is `RZ`.
    pub(super) fn word(self, i: u8) -> Operand {
        match self {
            Src64::Reg(r) => Operand::reg(r.part(i, 1)),
            Src64::Imm(v) => match (v >> (32 * u32::from(i))) as u32 {
                0 => Operand::reg(Reg::RZ),
                w => Operand::int(i64::from(w)),
            },
        }
    }

    fn reads(self, d: Reg) -> bool {
        matches!(self, Src64::Reg(r) if r.file == d.file && r.num == d.num && r.is_virtual == d.is_virtual)
    }
}

/// Source operand `i` of a 64-bit instruction.
pub(super) fn src64(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Src64> {
    let e: &Expr = operand(inst, i)?;
    match &e.kind {
        ExprKind::Name(r, None) if cx.regs.ty(r.name.as_str()).is_some() => {
            let reg = read_reg(cx, r.name.as_str(), r.span)?;
            if reg.width != 2 {
                return Err(unsupported(inst));
            }
            Ok(Src64::Reg(reg))
        }
        ExprKind::Int { value, .. } => Ok(Src64::Imm(*value)),
        ExprKind::Float(f) => super::f64_bits(f).map(Src64::Imm).ok_or_else(|| unsupported(inst)),
        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
            ExprKind::Int { value, .. } => Ok(Src64::Imm(value.wrapping_neg())),
            _ => Err(unsupported(inst)),
        },
        _ => Err(unsupported(inst)),
    }
}

/// The destination pair's words: the first to be written starts its new
/// value unless `sources` read the pair.
pub(super) struct Dest {
    reg: Reg,
    fresh: bool,
}

impl Dest {
    pub(super) fn new(reg: Reg, sources: &[Src64]) -> Dest {
        Dest { reg, fresh: !sources.iter().any(|s| s.reads(reg)) }
    }

    /// Word `i` as a definition; call in the order the words are written.
    pub(super) fn word(&mut self, i: u8) -> Operand {
        let def = Operand::reg(self.reg.part(i, 1));
        if std::mem::take(&mut self.fresh) { def.undef() } else { def }
    }
}

/// `LOP3.LUT` truth tables (a = 0xf0, b = 0xcc).
const LUT_AND: i64 = 0xc0;
const LUT_OR: i64 = 0xfc;
const LUT_XOR: i64 = 0x3c;
const LUT_NOT_B: i64 = 0x33;

/// Lowers a 64-bit integer instruction not handled as address arithmetic.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType) -> Lowered {
    let op = inst.opcode.name.as_str();
    let span = inst.span;
    let rz = || Operand::reg(Reg::RZ);
    let d = dst(cx, inst, 0)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    match op {
        "add" | "sub" | "neg" => {
            let (a, b) = match op {
                "neg" => (Src64::Imm(0), src64(cx, inst, 1)?),
                _ => (src64(cx, inst, 1)?, src64(cx, inst, 2)?),
            };
            // Subtracting a constant adds its negation: `-` on a word would
            // lose the borrow of a zero low word.
            let (op, b) = match b {
                Src64::Imm(v) if op != "add" => ("add", Src64::Imm(v.wrapping_neg())),
                _ => (op, b),
            };
            let (a, b) = if op == "add" && matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
            let (b_lo, b_hi) = match op {
                "add" => (b.word(0), b.word(1)),
                _ => (b.word(0).negated(), complement(b.word(1))),
            };
            let carry = cx.temp(RegFile::P, 1);
            let mut dd = Dest::new(d, &[a, b]);
            // IADD3 takes an immediate second (a constant minus a register).
            let ordered = |x: Operand, y: Operand| if matches!(a, Src64::Imm(_)) { [y, x] } else { [x, y] };
            let [lo0, lo1] = ordered(a.word(0), b_lo);
            cx.emit(Opcode::IADD3, &[], vec![dd.word(0), carry.into()], vec![lo0, lo1, rz()], span)?;
            // IADD3.X has no form with an immediate beside `~b`: the
            // constant's high word goes to a register.
            let a_hi = match a {
                Src64::Imm(_) if op == "sub" => {
                    let t = cx.temp(RegFile::R, 1);
                    cx.imad_mov(t.into(), a.word(1), span)?;
                    Operand::reg(t)
                }
                _ => a.word(1),
            };
            let [hi0, hi1] = if a_hi.as_reg().is_some() { [a_hi, b_hi] } else { ordered(a_hi, b_hi) };
            let uses = vec![hi0, hi1, rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
            cx.emit(Opcode::IADD3, &["X"], vec![dd.word(1)], uses, span)
        }
        "mul" if inst.has("lo") => {
            let (a, b) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?);
            let (a, b) = if matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
            mul_lo(cx, d, a, b, span)
        }
        // The product in a fresh pair, then `add.s64 d, t, c`.
        "mad" if inst.has("lo") || inst.has("hi") => {
            let (a, b, c) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?, src64(cx, inst, 3)?);
            let (a, b) = if matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
            let t = cx.temp(RegFile::R, 2);
            match (inst.has("lo"), ty) {
                (true, _) => mul_lo(cx, t, a, b, span)?,
                (false, ScalarType::U64) => mul_hi_u64(cx, t, a, b, span)?,
                (false, _) => {
                    // A constant factor in a register, as for `mul.hi.s64`.
                    let mut pair = |x: Src64| -> Lowered<Src64> {
                        Ok(match x {
                            Src64::Imm(v) => Src64::Reg(materialize(cx, v, span)?),
                            reg => reg,
                        })
                    };
                    let (a, b) = (pair(a)?, pair(b)?);
                    mul_hi_s64(cx, t, a, b, span)?
                }
            }
            let carry = cx.temp(RegFile::P, 1);
            let t = Src64::Reg(t);
            let mut dd = Dest::new(d, &[t, c]);
            cx.emit(Opcode::IADD3, &[], vec![dd.word(0), carry.into()], vec![t.word(0), c.word(0), rz()], span)?;
            let uses = vec![t.word(1), c.word(1), rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
            cx.emit(Opcode::IADD3, &["X"], vec![dd.word(1)], uses, span)
        }
        "abs" if ty == ScalarType::S64 => {
            // The negation, chosen when the high word is negative.
            let a = src64(cx, inst, 1)?;
            let Src64::Reg(_) = a else { return Err(unsupported(inst)) };
            let (neg, carry) = (cx.temp(RegFile::R, 2), cx.temp(RegFile::P, 1));
            let uses = vec![rz(), a.word(0).negated(), rz()];
            cx.emit(Opcode::IADD3, &[], vec![Operand::reg(neg.part(0, 1)).undef(), carry.into()], uses, span)?;
            let uses = vec![rz(), complement(a.word(1)), rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
            cx.emit(Opcode::IADD3, &["X"], vec![neg.part(1, 1).into()], uses, span)?;
            let negative = cx.temp(RegFile::P, 1);
            let pt = || Operand::reg(Reg::PT);
            cx.emit(Opcode::ISETP, &["LT", "AND"], vec![negative.into(), pt()], vec![a.word(1), rz(), pt()], span)?;
            let mut dd = Dest::new(d, &[a]);
            for w in 0..2 {
                let uses = vec![Operand::reg(neg.part(w, 1)), a.word(w), negative.into()];
                cx.emit(Opcode::SEL, &[], vec![dd.word(w)], uses, span)?;
            }
            Ok(())
        }
        "mul" if inst.has("hi") && ty == ScalarType::U64 => {
            let (a, b) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?);
            let (a, b) = if matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
            mul_hi_u64(cx, d, a, b, span)
        }
        "mul" if inst.has("hi") && ty == ScalarType::S64 => {
            // A constant factor (division by a constant) in a register.
            let pair = |i: usize, cx: &mut Lowerer<'_>| -> Lowered<Src64> {
                Ok(match src64(cx, inst, i)? {
                    Src64::Imm(v) => Src64::Reg(materialize(cx, v, span)?),
                    reg => reg,
                })
            };
            let (a, b) = (pair(1, cx)?, pair(2, cx)?);
            mul_hi_s64(cx, d, a, b, span)
        }
        // 1 where the value is zero: the low words compared, then the high
        // ones with that result carried in (NVIDIA's `ISETP.EQ.U32.AND` +
        // `.EX`; it then builds the 1 with `SEL`, a negation and a sign
        // extension, the same words as `SEL d.lo, RZ, 0x1, !P` + a zero).
        "cnot" => {
            let a = src64(cx, inst, 1)?;
            let Src64::Reg(_) = a else { return Err(unsupported(inst)) };
            let (low, zero) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::P, 1));
            let pt = || Operand::reg(Reg::PT);
            let uses = vec![a.word(0), rz(), pt()];
            cx.emit(Opcode::ISETP, &["EQ", "U32", "AND"], vec![low.into(), pt()], uses, span)?;
            let uses = vec![a.word(1), rz(), pt(), low.into()];
            cx.emit(Opcode::ISETP, &["EQ", "U32", "AND", "EX"], vec![zero.into(), pt()], uses, span)?;
            let mut dd = Dest::new(d, &[a]);
            let uses = vec![rz(), Operand::int(1), Operand::reg(zero).inverted()];
            cx.emit(Opcode::SEL, &[], vec![dd.word(0)], uses, span)?;
            cx.emit(Opcode::MOV, &[], vec![dd.word(1)], vec![rz()], span)
        }
        "and" | "or" | "xor" | "not" => {
            let a = src64(cx, inst, 1)?;
            let (a, b, lut) = match op {
                "not" => (Src64::Imm(0), a, LUT_NOT_B),
                _ => {
                    let b = src64(cx, inst, 2)?;
                    let (a, b) = if matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
                    (a, b, [LUT_AND, LUT_OR, LUT_XOR][["and", "or", "xor"].iter().position(|o| *o == op).unwrap_or(0)])
                }
            };
            let mut dd = Dest::new(d, &[a, b]);
            for w in 0..2 {
                let uses = vec![a.word(w), b.word(w), rz(), Operand::int(lut), Operand::reg(Reg::PT).inverted()];
                cx.emit(Opcode::LOP3, &["LUT"], vec![dd.word(w)], uses, span)?;
            }
            Ok(())
        }
        "min" | "max" => {
            // NVIDIA's: the comparison of the words chained by `.EX`, then a
            // `SEL` of each word.
            let (a, b) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?);
            let (a, b) = if matches!(a, Src64::Imm(_)) { (b, a) } else { (a, b) };
            let b = match b {
                Src64::Imm(v) => Src64::Reg(materialize(cx, v, span)?),
                reg => reg,
            };
            let Src64::Reg(_) = a else { return Err(unsupported(inst)) };
            let cmp = if op == "min" { "LT" } else { "GT" };
            let signed = ty == ScalarType::S64;
            let (low, pick) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::P, 1));
            let pt = || Operand::reg(Reg::PT);
            let uses = vec![a.word(0), b.word(0), pt()];
            cx.emit(Opcode::ISETP, &[cmp, "U32", "AND"], vec![low.into(), pt()], uses, span)?;
            let mods: &[&str] = if signed { &[cmp, "AND", "EX"] } else { &[cmp, "U32", "AND", "EX"] };
            let uses = vec![a.word(1), b.word(1), pt(), low.into()];
            cx.emit(Opcode::ISETP, mods, vec![pick.into(), pt()], uses, span)?;
            let mut dd = Dest::new(d, &[a, b]);
            for w in 0..2 {
                cx.emit(Opcode::SEL, &[], vec![dd.word(w)], vec![a.word(w), b.word(w), pick.into()], span)?;
            }
            Ok(())
        }
        "shl" | "shr" => {
            let a = src64(cx, inst, 1)?;
            let Src64::Reg(_) = a else { return Err(unsupported(inst)) };
            let n = src(cx, inst, 2, ScalarType::U32)?;
            let mut dd = Dest::new(d, &[a]);
            if op == "shl" {
                // The high word first: it reads both words of the source.
                let uses = vec![a.word(0), n.clone(), a.word(1)];
                cx.emit(Opcode::SHF, &["L", "U64", "HI"], vec![dd.word(1)], uses, span)?;
                cx.emit(Opcode::SHF, &["L", "U32"], vec![dd.word(0)], vec![a.word(0), n, rz()], span)
            } else {
                let signed = ty == ScalarType::S64;
                let (wide, narrow) = if signed { ("S64", "S32") } else { ("U64", "U32") };
                let uses = vec![a.word(0), n.clone(), a.word(1)];
                cx.emit(Opcode::SHF, &["R", wide], vec![dd.word(0)], uses, span)?;
                cx.emit(Opcode::SHF, &["R", narrow, "HI"], vec![dd.word(1)], vec![rz(), n, a.word(1)], span)
            }
        }
        _ => Err(unsupported(inst)),
    }
}

/// `sad.{u64,s64} d, a, b, c`: `c + |a - b|` as NVIDIA's code computes it,
/// both differences and a `SEL` of each word by `a >= b` (the words'
/// `ISETP.GE` chained by `.EX`), then the 64-bit add of `c`.
pub(super) fn sad(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let span = inst.span;
    let d = dst(cx, inst, 0)?;
    let pair = |i: usize, cx: &mut Lowerer<'_>| -> Lowered<Src64> {
        Ok(match src64(cx, inst, i)? {
            Src64::Imm(v) => Src64::Reg(materialize(cx, v, span)?),
            reg => reg,
        })
    };
    let (a, b) = (pair(1, cx)?, pair(2, cx)?);
    let c = src64(cx, inst, 3)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let rz = || Operand::reg(Reg::RZ);
    let pt = || Operand::reg(Reg::PT);
    let (low, ge) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::P, 1));
    cx.emit(Opcode::ISETP, &["GE", "U32", "AND"], vec![low.into(), pt()], vec![a.word(0), b.word(0), pt()], span)?;
    let mods: &[&str] = if signed { &["GE", "AND", "EX"] } else { &["GE", "U32", "AND", "EX"] };
    cx.emit(Opcode::ISETP, mods, vec![ge.into(), pt()], vec![a.word(1), b.word(1), pt(), low.into()], span)?;
    let difference = |cx: &mut Lowerer<'_>, x: Src64, y: Src64| -> Lowered<Reg> {
        let (t, carry) = (cx.temp(RegFile::R, 2), cx.temp(RegFile::P, 1));
        let uses = vec![x.word(0), y.word(0).negated(), rz()];
        cx.emit(Opcode::IADD3, &[], vec![Operand::reg(t.part(0, 1)).undef(), carry.into()], uses, span)?;
        let uses = vec![x.word(1), complement(y.word(1)), rz(), carry.into(), pt().inverted()];
        cx.emit(Opcode::IADD3, &["X"], vec![t.part(1, 1).into()], uses, span)?;
        Ok(t)
    };
    let (ab, ba) = (difference(cx, a, b)?, difference(cx, b, a)?);
    let t = cx.temp(RegFile::R, 2);
    for w in 0..2 {
        let def = if w == 0 { Operand::reg(t.part(0, 1)).undef() } else { t.part(1, 1).into() };
        let uses = vec![ab.part(w, 1).into(), ba.part(w, 1).into(), ge.into()];
        cx.emit(Opcode::SEL, &[], vec![def], uses, span)?;
    }
    let (t, carry) = (Src64::Reg(t), cx.temp(RegFile::P, 1));
    let mut dd = Dest::new(d, &[t, c]);
    cx.emit(Opcode::IADD3, &[], vec![dd.word(0), carry.into()], vec![t.word(0), c.word(0), rz()], span)?;
    let uses = vec![t.word(1), c.word(1), rz(), carry.into(), pt().inverted()];
    cx.emit(Opcode::IADD3, &["X"], vec![dd.word(1)], uses, span)
}

/// `mul.lo.{u,s}64 d, a, b` (`a` a register pair): the cross products
/// added to the high word of `IMAD.WIDE.U32 d, a.lo, b.lo`.
fn mul_lo(cx: &mut Lowerer<'_>, d: Reg, a: Src64, b: Src64, span: ptx_syntax::Span) -> Lowered {
    let rz = || Operand::reg(Reg::RZ);
    let cross = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::IMAD, &[], vec![cross.into()], vec![a.word(1), b.word(0), rz()], span)?;
    let cross2 = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::IMAD, &[], vec![cross2.into()], vec![a.word(0), b.word(1), cross.into()], span)?;
    let low = vec![a.word(0), b.word(0), Operand::reg(Reg::RZ.wide(2))];
    cx.emit(Opcode::IMAD, &["WIDE", "U32"], vec![d.into()], low, span)?;
    let hi = d.part(1, 1);
    cx.emit(Opcode::IADD3, &[], vec![hi.into()], vec![hi.into(), cross2.into(), rz()], span)
}

/// The high 64 bits of the 128-bit product `a * b`, NVIDIA's sequence
/// (sum64): the cross products summed with their carry, then the high
/// product with the middle's high word and both carries.
fn mul_hi_u64(cx: &mut Lowerer<'_>, d: Reg, a: Src64, b: Src64, span: ptx_syntax::Span) -> Lowered {
    let rz = || Operand::reg(Reg::RZ);
    let not_pt = || Operand::reg(Reg::PT).inverted();
    let p10 = cx.temp(RegFile::R, 2);
    cx.emit(
        Opcode::IMAD,
        &["WIDE", "U32"],
        vec![p10.into()],
        vec![a.word(1), b.word(0), Operand::reg(Reg::RZ.wide(2))],
        span,
    )?;
    let (mid, mid_carry) = (cx.temp(RegFile::R, 2), cx.temp(RegFile::P, 1));
    let uses = vec![a.word(0), b.word(1), p10.into()];
    cx.emit(Opcode::IMAD, &["WIDE", "U32"], vec![mid.into(), mid_carry.into()], uses, span)?;
    let p00 = cx.temp(RegFile::R, 2);
    cx.emit(
        Opcode::IMAD,
        &["WIDE", "U32"],
        vec![p00.into()],
        vec![a.word(0), b.word(0), Operand::reg(Reg::RZ.wide(2))],
        span,
    )?;
    let low_carry = cx.temp(RegFile::P, 1);
    let uses = vec![p00.part(1, 1).into(), mid.part(0, 1).into(), rz()];
    cx.emit(Opcode::IADD3, &[], vec![rz(), low_carry.into()], uses, span)?;
    // {middle's high word, its carry}: what the middle adds above bit 64.
    let upper = cx.temp(RegFile::R, 2);
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(upper.part(0, 1)).undef()], vec![mid.part(1, 1).into()], span)?;
    let uses = vec![rz(), rz(), rz(), mid_carry.into(), not_pt()];
    cx.emit(Opcode::IADD3, &["X"], vec![upper.part(1, 1).into()], uses, span)?;
    let uses = vec![a.word(1), b.word(1), upper.into(), low_carry.into()];
    cx.emit(Opcode::IMAD, &["WIDE", "U32", "X"], vec![d.into()], uses, span)
}

/// The high 64 bits of the signed product: the unsigned one, less `a`
/// where `b` is negative and less `b` where `a` is (NVIDIA's order: `SEL`
/// by each sign after a 64-bit subtraction; NVIDIA subtracts the high
/// words with `IMAD.X h, 0x1, ~x, P`, here the equal `IADD3.X h, ~x, RZ, P`).
fn mul_hi_s64(cx: &mut Lowerer<'_>, d: Reg, a: Src64, b: Src64, span: ptx_syntax::Span) -> Lowered {
    let h = cx.temp(RegFile::R, 2);
    mul_hi_u64(cx, h, a, b, span)?;
    let t = cx.temp(RegFile::R, 2);
    let (h_words, t_words) = ([0, 1].map(|w| Operand::reg(h.part(w, 1))), [0, 1].map(|w| Operand::reg(t.part(w, 1))));
    minus_if(cx, h_words, a, b, [t_words[0].clone().undef(), t_words[1].clone()], span)?;
    let mut dd = Dest::new(d, &[a, b]);
    let out = [dd.word(0), dd.word(1)];
    minus_if(cx, t_words, b, a, out, span)
}

/// `out = acc - x` (64 bits, words) where `sign_of` is negative, else `acc`.
fn minus_if(
    cx: &mut Lowerer<'_>,
    acc: [Operand; 2],
    x: Src64,
    sign_of: Src64,
    out: [Operand; 2],
    span: ptx_syntax::Span,
) -> Lowered {
    let rz = || Operand::reg(Reg::RZ);
    let pt = || Operand::reg(Reg::PT);
    let negative = cx.temp(RegFile::P, 1);
    cx.emit(Opcode::ISETP, &["LT", "AND"], vec![negative.into(), pt()], vec![sign_of.word(1), rz(), pt()], span)?;
    let (diff, borrow) = (cx.temp(RegFile::R, 2), cx.temp(RegFile::P, 1));
    let lo = vec![acc[0].clone(), x.word(0).negated(), rz()];
    cx.emit(Opcode::IADD3, &[], vec![Operand::reg(diff.part(0, 1)).undef(), borrow.into()], lo, span)?;
    let hi = vec![acc[1].clone(), complement(x.word(1)), rz(), borrow.into(), pt().inverted()];
    cx.emit(Opcode::IADD3, &["X"], vec![Operand::reg(diff.part(1, 1))], hi, span)?;
    for (w, def) in out.into_iter().enumerate() {
        let uses = vec![Operand::reg(diff.part(w as u8, 1)), acc[w].clone(), negative.into()];
        cx.emit(Opcode::SEL, &[], vec![def], uses, span)?;
    }
    Ok(())
}

/// `setp.CMP[.BOOL].{s,u,b}64 p, a, b[, c]`: the low words compared
/// unsigned, then the high words with the low result carried in (`.EX`).
pub(super) fn setp(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    cmp: &'static str,
    unsigned: bool,
    boolean: &'static str,
    p: Operand,
    q: Operand,
) -> Lowered {
    let a = src64(cx, inst, 1)?;
    let b = src64(cx, inst, 2)?;
    let Src64::Reg(_) = a else { return Err(unsupported(inst)) };
    let c = if inst.operands.len() > 3 { src(cx, inst, 3, ScalarType::Pred)? } else { Operand::reg(Reg::PT) };
    let low = cx.temp(RegFile::P, 1);
    let pt = || Operand::reg(Reg::PT);
    cx.emit(Opcode::ISETP, &[cmp, "U32", "AND"], vec![low.into(), pt()], vec![a.word(0), b.word(0), pt()], inst.span)?;
    // Equality ignores signedness; the others compare the high words as
    // the type says.
    let mut mods = vec![cmp];
    if unsigned && !matches!(cmp, "EQ" | "NE") {
        mods.push("U32");
    }
    mods.extend([boolean, "EX"]);
    cx.emit(Opcode::ISETP, &mods, vec![p, q], vec![a.word(1), b.word(1), c, low.into()], inst.span)
}

/// `selp.b64 d, a, b, p`: a `SEL` per word.
pub(super) fn selp(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let p = src(cx, inst, 3, ScalarType::Pred)?;
    select(cx, inst, p)
}

/// `d = p ? a : b` for the 64-bit operands 0 to 2 of `inst` (`selp`,
/// `slct`).
pub(super) fn select(cx: &mut Lowerer<'_>, inst: &Instruction, p: Operand) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?);
    let (a, b, p) = if matches!(a, Src64::Imm(_)) { (b, a, p.inverted()) } else { (a, b, p) };
    let a = match a {
        Src64::Imm(v) => Src64::Reg(materialize(cx, v, inst.span)?),
        reg => reg,
    };
    let mut dd = Dest::new(d, &[a, b]);
    for w in 0..2 {
        cx.emit(Opcode::SEL, &[], vec![dd.word(w)], vec![a.word(w), b.word(w), p.clone()], inst.span)?;
    }
    Ok(())
}

/// `copysign.f64 d, a, b`: `b` with the sign of `a`, NVIDIA's `LOP3.LUT
/// d.hi, b.hi, 0x80000000, a.hi, 0xb8` and a copy of the low word (the
/// high word first: it reads both sources).
pub(super) fn copysign(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let mut regs = [Reg::RZ; 2];
    for (k, i) in [1, 2].into_iter().enumerate() {
        regs[k] = match src64(cx, inst, i)? {
            Src64::Reg(r) => r,
            Src64::Imm(v) => materialize(cx, v, inst.span)?,
        };
    }
    let [a, b] = regs.map(Src64::Reg);
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let mut dd = Dest::new(d, &[a, b]);
    let uses =
        vec![b.word(1), Operand::int(0x8000_0000), a.word(1), Operand::int(0xb8), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![dd.word(1)], uses, inst.span)?;
    cx.emit(Opcode::MOV, &[], vec![dd.word(0)], vec![b.word(0)], inst.span)
}

/// A fresh pair holding `value`, one `IMAD.MOV.U32` per word (NVIDIA's
/// form for f64 constants, `IMAD.MOV.U32 R16, RZ, RZ, -0x2d0e5604`; not a
/// plain `MOV`, which copy propagation would fold back).
pub(super) fn materialize(cx: &mut Lowerer<'_>, value: u64, span: ptx_syntax::Span) -> Lowered<Reg> {
    let t = cx.temp(RegFile::R, 2);
    let mut dd = Dest { reg: t, fresh: true };
    for w in 0..2 {
        let word = Src64::Imm(value).word(w);
        // `IMAD.MOV.U32` rather than `MOV`: copy propagation would put an
        // immediate back as `SEL`'s first source, which SASS cannot encode.
        cx.imad_mov(dd.word(w), word, span)?;
    }
    Ok(t)
}

/// `~x` of a register word.
fn complement(mut x: Operand) -> Operand {
    x.flags.bitnot = true;
    x
}
