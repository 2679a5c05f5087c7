//! `div` and `rem` on 32-bit integers: NVIDIA's inline sequence (no
//! hardware divider). A reciprocal seed from `MUFU.RCP`, one Newton step
//! in fixed point (`IMAD.HI.U32` with the pair `(0, y)` as addend, so
//! `y + hi(y * e)`), the quotient estimate `hi(y * a)`, then at most two
//! corrections; a zero divisor gives `~b` (all ones for unsigned `div`, as
//! the hardware sequence does).

use ori_ir::{Opcode, Operand, OperandFlags, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::seq::{Seq, rz, undef, unless, when};
use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `LOP3.LUT` tables (a = 0xf0, b = 0xcc, c = 0xaa).
const LUT_XOR: i64 = 0x3c;
const LUT_NOT_B: i64 = 0x33;

/// `div.{s32,u32}` / `rem.{s32,u32}` `d, a, b`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let signed = match ty {
        ScalarType::S32 | ScalarType::S64 => true,
        ScalarType::U32 | ScalarType::U64 => false,
        _ => return Err(unsupported(inst)),
    };
    if inst.modifiers.len() != 1 {
        return Err(unsupported(inst));
    }
    let rem = inst.opcode.name.as_str() == "rem";
    if ty.bits() == 64 {
        if rem {
            return Err(unsupported(inst));
        }
        return div64(cx, inst, signed);
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    let seq = Seq::start(cx, inst.span);
    let result = if signed { signed_div(cx, &seq, d, a, b, rem) } else { unsigned_div(cx, &seq, d, a, b, rem) };
    seq.finish(cx);
    result
}

/// `div`/`rem` of 32-bit operands into `d` within `seq`: the signed or
/// unsigned sequence (for narrower types widened first, `int16`).
pub(super) fn div32(
    cx: &mut Lowerer<'_>,
    seq: &Seq,
    d: Reg,
    a: Operand,
    b: Operand,
    signed: bool,
    rem: bool,
) -> Lowered {
    if signed { signed_div(cx, seq, d, a, b, rem) } else { unsigned_div(cx, seq, d, a, b, rem) }
}

/// `y ~ 2^32 / v` from below (NVIDIA's seed and refinement): `I2F[.U32].RP`,
/// `MUFU.RCP`, the bits plus `0xffffffe` (just under the next power of two),
/// `F2I.FTZ.U32.TRUNC.NTZ`, then `y + hi(y * (-v * y))`.
fn reciprocal(cx: &mut Lowerer<'_>, seq: &Seq, v: &Operand, signed: bool) -> Lowered<Reg> {
    let to_float: &[&str] = if signed { &["RP"] } else { &["U32", "RP"] };
    let f = seq.value(cx, Opcode::I2F, to_float, vec![v.clone()])?;
    let r = seq.value(cx, Opcode::MUFU, &["RCP"], vec![f.into()])?;
    let s = seq.value(cx, Opcode::IADD3, &[], vec![r.into(), Operand::int(0x0fff_fffe), rz()])?;
    // The addend pair (0, y) of the Newton step, built word by word.
    let pair = cx.temp(RegFile::R, 2);
    let y = pair.part(1, 1);
    seq.op(cx, Opcode::F2I, &["FTZ", "U32", "TRUNC", "NTZ"], vec![undef(y)], vec![s.into()])?;
    seq.op(cx, Opcode::MOV, &[], vec![pair.part(0, 1).into()], vec![Operand::int(0)])?;
    let minus_v = seq.value(cx, Opcode::IADD3, &[], vec![rz(), v.clone().negated(), rz()])?;
    let e = seq.value(cx, Opcode::IMAD, &[], vec![minus_v.into(), y.into(), rz()])?;
    seq.value(cx, Opcode::IMAD, &["HI", "U32"], vec![y.into(), e.into(), pair.into()])
}

/// The unsigned sequence: `q = hi(y * a)`, `r = a - q * b`, twice `r >= b`
/// → `q + 1`, `r - b`.
fn unsigned_div(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, a: Operand, b: Operand, rem: bool) -> Lowered {
    let a = seq.in_reg(cx, a)?;
    let b = seq.in_reg(cx, b)?;
    let out = seq.out(cx, d, &[&a, &b]);
    let y = reciprocal(cx, seq, &b, false)?;
    let q = if rem { cx.temp(RegFile::R, 1) } else { out };
    let r = if rem { out } else { cx.temp(RegFile::R, 1) };
    seq.op(cx, Opcode::IMAD, &["HI", "U32"], vec![q.into()], vec![y.into(), a.clone(), rz()])?;
    let minus_q = seq.value(cx, Opcode::IADD3, &[], vec![rz(), Operand::reg(q).negated(), rz()])?;
    seq.op(cx, Opcode::IMAD, &[], vec![r.into()], vec![b.clone(), minus_q.into(), a])?;
    for step in 0..2 {
        let over = seq.isetp(cx, &["GE", "U32", "AND"], r.into(), b.clone())?;
        if rem || step == 0 {
            let uses = vec![r.into(), b.clone().negated(), rz()];
            seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![r.into()], uses)?;
        }
        if !rem {
            seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        }
    }
    let nonzero = seq.isetp(cx, &["NE", "U32", "AND"], b.clone(), rz())?;
    seq.lop3(cx, out, [rz(), b, rz()], LUT_NOT_B, unless(nonzero))?;
    seq.result(cx, d, out)
}

/// The signed sequence: the unsigned one on `|a|` and `|b|` (corrections
/// by `|b| > r`), then the sign of `a ^ b` (quotient) or of `a`
/// (remainder).
fn signed_div(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, a: Operand, b: Operand, rem: bool) -> Lowered {
    let a = seq.in_reg(cx, a)?;
    let b = seq.in_reg(cx, b)?;
    let out = seq.out(cx, d, &[&a, &b]);
    let abs_b: Operand = seq.value(cx, Opcode::IABS, &[], vec![b.clone()])?.into();
    let abs_a: Operand = seq.value(cx, Opcode::IABS, &[], vec![a.clone()])?.into();
    let y = reciprocal(cx, seq, &abs_b, true)?;
    let q = if rem { cx.temp(RegFile::R, 1) } else { out };
    let r = if rem { out } else { cx.temp(RegFile::R, 1) };
    seq.op(cx, Opcode::IMAD, &["HI", "U32"], vec![q.into()], vec![y.into(), abs_a.clone(), rz()])?;
    let minus_b = seq.value(cx, Opcode::IADD3, &[], vec![rz(), abs_b.clone().negated(), rz()])?;
    seq.op(cx, Opcode::IMAD, &[], vec![r.into()], vec![q.into(), minus_b.into(), abs_a])?;
    let under = seq.isetp(cx, &["GT", "U32", "AND"], abs_b.clone(), r.into())?;
    seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![r.into()], vec![r.into(), abs_b.clone().negated(), rz()])?;
    if rem {
        let under = seq.isetp(cx, &["GT", "U32", "AND"], abs_b.clone(), r.into())?;
        let uses = vec![r.into(), abs_b.negated(), rz()];
        seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![r.into()], uses)?;
        let positive = seq.isetp(cx, &["GE", "AND"], a, rz())?;
        let uses = vec![rz(), Operand::reg(r).negated(), rz()];
        seq.op_if(cx, unless(positive), Opcode::IADD3, &[], vec![r.into()], uses)?;
    } else {
        seq.op_if(cx, unless(under), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        let over = seq.isetp(cx, &["GE", "U32", "AND"], r.into(), abs_b)?;
        seq.op_if(cx, when(over), Opcode::IADD3, &[], vec![q.into()], vec![q.into(), Operand::int(1), rz()])?;
        let sign = cx.temp(RegFile::R, 1);
        seq.lop3(cx, sign, [a, b.clone(), rz()], LUT_XOR, None)?;
        let positive = seq.isetp(cx, &["GE", "AND"], sign.into(), rz())?;
        let uses = vec![rz(), Operand::reg(q).negated(), rz()];
        seq.op_if(cx, unless(positive), Opcode::IADD3, &[], vec![q.into()], uses)?;
    }
    let nonzero = seq.isetp(cx, &["NE", "AND"], b.clone(), rz())?;
    seq.lop3(cx, out, [rz(), b, rz()], LUT_NOT_B, unless(nonzero))?;
    seq.result(cx, d, out)
}

/// `div.{u64,s64} d, a, b`: the body of NVIDIA's division subroutines
/// (`__cuda_sm20_div_u64` / `_s64`, which ptxas calls), inline. A
/// reciprocal seed `F2I.U64.TRUNC(MUFU.RCP(I2F.U64.RP b) + 0x1ffffffe)`,
/// two Newton steps `x += hi64(x * -(b * x))` in 32-bit pieces with carry
/// chains, the estimate `q = hi64(a * x)`, two corrections by `r >= b`, and
/// all ones for a zero divisor. The signed form divides the magnitudes and
/// negates when the signs differ. (Targets with a template of NVIDIA's
/// code in `ieee.rs`, sm_80 and sm_90, take that instead.)
fn div64(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let pair = |cx: &mut Lowerer<'_>, i: usize| -> Lowered<Reg> {
        let r = src(cx, inst, i, ScalarType::U64)?.as_reg().filter(|r| r.width == 2);
        r.ok_or_else(|| unsupported(inst))
    };
    let (a, b) = (pair(cx, 1)?, pair(cx, 2)?);
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mut w = Wide { cx, seq: &seq };
        let (a, b, negative) = if signed {
            let a_neg = w.isetp(&["GE", "AND"], a.part(1, 1).into(), rz(), None)?;
            let b_neg = w.isetp(&["GE", "AND"], b.part(1, 1).into(), rz(), None)?;
            let abs_a = w.abs(a, a_neg)?;
            let abs_b = w.abs(b, b_neg)?;
            let sign = w.value(
                Opcode::LOP3,
                &["LUT"],
                vec![
                    b.part(1, 1).into(),
                    a.part(1, 1).into(),
                    rz(),
                    Operand::int(LUT_XOR),
                    Operand::reg(Reg::PT).inverted(),
                ],
            )?;
            let same = w.isetp(&["GE", "AND"], sign.into(), rz(), None)?;
            (abs_a, abs_b, Some(same))
        } else {
            (a, b, None)
        };
        let (a0, a1, b0, b1) = (a.part(0, 1), a.part(1, 1), b.part(0, 1), b.part(1, 1));
        // The seed: just under 2^64 / b.
        let f = w.value(Opcode::I2F, &["U64", "RP"], vec![b.into()])?;
        let r = w.value(Opcode::MUFU, &["RCP"], vec![f.into()])?;
        let s = w.value(Opcode::IADD3, &[], vec![r.into(), Operand::int(0x1fff_fffe), rz()])?;
        let mut x = w.cx.temp(RegFile::R, 2);
        w.op(Opcode::F2I, &["U64", "TRUNC"], vec![x.into()], vec![s.into()])?;
        for _ in 0..2 {
            x = w.newton(x, b0, b1)?;
        }
        let (x0, x1) = (x.part(0, 1), x.part(1, 1));
        // q = hi64(a * x): the high words of the 128-bit product.
        let p = w.cx.temp(RegFile::R, 2);
        w.op(Opcode::IMAD, &["HI", "U32"], vec![undef(p.part(0, 1))], vec![x0.into(), a0.into(), rz()])?;
        w.op(Opcode::MOV, &[], vec![p.part(1, 1).into()], vec![Operand::int(0)])?;
        let p2 = w.cx.temp(RegFile::R, 2);
        w.op(Opcode::IMAD, &["WIDE", "U32"], vec![p2.into()], vec![a1.into(), x0.into(), p.into()])?;
        let t = w.value(Opcode::IMAD, &[], vec![a1.into(), x1.into(), rz()])?;
        let (g, c0) = w.with_carry(Opcode::IMAD, &["HI", "U32"], vec![a0.into(), x1.into(), p2.into()])?;
        let k = w.value(Opcode::IMAD, &["HI", "U32"], vec![a1.into(), x1.into(), rz()])?;
        let (q0, c1) = w.with_carry(Opcode::IADD3, &[], vec![t.into(), g.into(), rz()])?;
        let k2 = w.value(Opcode::IADD3, &["X"], vec![k.into(), rz(), rz(), c0.into(), not_pt()])?;
        let q1 = w.value(Opcode::IMAD, &["X"], vec![rz(), rz(), k2.into(), c1.into()])?;
        // r = a - q * b, and two corrections while r >= b.
        let qb = w.cx.temp(RegFile::R, 2);
        w.op(Opcode::IMAD, &["WIDE", "U32"], vec![qb.into()], vec![q0.into(), b0.into(), rz_pair()])?;
        let (r0, borrow) =
            w.with_carry(Opcode::IADD3, &[], vec![a0.into(), Operand::reg(qb.part(0, 1)).negated(), rz()])?;
        w.op(Opcode::IMAD, &[], vec![qb.part(1, 1).into()], vec![b1.into(), q0.into(), qb.part(1, 1).into()])?;
        w.op(Opcode::IMAD, &[], vec![qb.part(1, 1).into()], vec![b0.into(), q1.into(), qb.part(1, 1).into()])?;
        let r1 =
            w.value(Opcode::IADD3, &["X"], vec![a1.into(), bitnot(qb.part(1, 1)), rz(), borrow.into(), not_pt()])?;
        let (mut q, mut rest) = ((q0, q1), (r0, r1));
        for step in 0..2 {
            let low = w.isetp(&["GE", "U32", "AND"], rest.0.into(), b0.into(), None)?;
            let over = w.isetp(&["GE", "U32", "AND", "EX"], rest.1.into(), b1.into(), Some(low))?;
            let (inc0, carry) = w.with_carry(Opcode::IADD3, &[], vec![q.0.into(), Operand::int(1), rz()])?;
            let inc1 = w.value(Opcode::IADD3, &["X"], vec![rz(), q.1.into(), rz(), carry.into(), not_pt()])?;
            if step == 0 {
                let (s0, borrow) =
                    w.with_carry(Opcode::IADD3, &[], vec![Operand::reg(b0).negated(), rest.0.into(), rz()])?;
                let s1 =
                    w.value(Opcode::IMAD, &["X"], vec![rest.1.into(), Operand::int(1), bitnot(b1), borrow.into()])?;
                rest = (w.sel(s0, rest.0, over)?, w.sel(s1, rest.1, over)?);
            }
            q = (w.sel(inc0, q.0, over)?, w.sel(inc1, q.1, over)?);
        }
        if let Some(same) = negative {
            let (n0, carry) = w.with_carry(Opcode::IADD3, &[], vec![rz(), Operand::reg(q.0).negated(), rz()])?;
            let n1 = w.value(Opcode::IMAD, &["X"], vec![rz(), rz(), bitnot(q.1), carry.into()])?;
            q = (w.sel_if(n0, q.0, same, true)?, w.sel_if(n1, q.1, same, true)?);
        }
        let nonzero = w.isetp(&["NE", "U32", "AND"], b0.into(), rz(), None)?;
        let nonzero = w.isetp(&["NE", "AND", "EX"], b1.into(), rz(), Some(nonzero))?;
        let out = w.seq.out(w.cx, d, &[&a.into(), &b.into()]);
        let ones = Operand::int(0xffff_ffff);
        let choose = |q: Reg, nonzero: Reg| vec![q.into(), ones.clone(), Operand::reg(nonzero)];
        w.op(Opcode::SEL, &[], vec![undef(out.part(0, 1))], choose(q.0, nonzero))?;
        w.op(Opcode::SEL, &[], vec![out.part(1, 1).into()], choose(q.1, nonzero))?;
        if out != d {
            let guard = w.seq.guard;
            w.seq.op_if(w.cx, guard, Opcode::IMAD, &["WIDE", "U32"], vec![d.into()], vec![rz(), rz(), out.into()])?;
        }
        Ok(())
    })();
    seq.finish(cx);
    result
}

/// Builds the 64-bit division sequence: fresh registers and the carry
/// predicates the 32-bit pieces pass on.
struct Wide<'c, 'm, 's> {
    cx: &'c mut Lowerer<'m>,
    seq: &'s Seq,
}

impl Wide<'_, '_, '_> {
    fn op(&mut self, op: Opcode, mods: &[&str], defs: Vec<Operand>, uses: Vec<Operand>) -> Lowered {
        self.seq.op(self.cx, op, mods, defs, uses)
    }

    fn value(&mut self, op: Opcode, mods: &[&str], uses: Vec<Operand>) -> Lowered<Reg> {
        self.seq.value(self.cx, op, mods, uses)
    }

    /// A 32-bit result and the carry predicate it writes.
    fn with_carry(&mut self, op: Opcode, mods: &[&str], uses: Vec<Operand>) -> Lowered<(Reg, Reg)> {
        let (v, p) = (self.cx.temp(RegFile::R, 1), self.cx.temp(RegFile::P, 1));
        self.op(op, mods, vec![v.into(), p.into()], uses)?;
        Ok((v, p))
    }

    /// `ISETP.mods p, PT, a, b, PT[, low]` (`low` for `.EX`).
    fn isetp(&mut self, mods: &[&str], a: Operand, b: Operand, low: Option<Reg>) -> Lowered<Reg> {
        let p = self.cx.temp(RegFile::P, 1);
        let pt = Operand::reg(Reg::PT);
        let mut uses = vec![a, b, pt.clone()];
        uses.extend(low.map(Operand::reg));
        self.op(Opcode::ISETP, mods, vec![p.into(), pt], uses)?;
        Ok(p)
    }

    /// `SEL d, a, b, p`.
    fn sel(&mut self, a: Reg, b: Reg, p: Reg) -> Lowered<Reg> {
        self.sel_if(a, b, p, false)
    }

    /// `SEL d, a, b, [!]p`.
    fn sel_if(&mut self, a: Reg, b: Reg, p: Reg, negated: bool) -> Lowered<Reg> {
        let p = if negated { Operand::reg(p).inverted() } else { Operand::reg(p) };
        self.value(Opcode::SEL, &[], vec![a.into(), b.into(), p])
    }

    /// `|v|` of a 64-bit register, given `v >= 0`.
    fn abs(&mut self, v: Reg, non_negative: Reg) -> Lowered<Reg> {
        let (n0, carry) =
            self.with_carry(Opcode::IADD3, &[], vec![rz(), Operand::reg(v.part(0, 1)).negated(), rz()])?;
        let n1 = self.value(Opcode::IMAD, &["X"], vec![rz(), rz(), bitnot(v.part(1, 1)), carry.into()])?;
        let out = self.cx.temp(RegFile::R, 2);
        let keep = |n: Reg, w: u8| vec![n.into(), v.part(w, 1).into(), Operand::reg(non_negative).inverted()];
        self.op(Opcode::SEL, &[], vec![undef(out.part(0, 1))], keep(n0, 0))?;
        self.op(Opcode::SEL, &[], vec![out.part(1, 1).into()], keep(n1, 1))?;
        Ok(out)
    }

    /// One Newton step `x + hi64(x * -(b * x))`, as NVIDIA's subroutine
    /// computes it in 32-bit pieces.
    fn newton(&mut self, x: Reg, b0: Reg, b1: Reg) -> Lowered<Reg> {
        let (x0, x1) = (x.part(0, 1), x.part(1, 1));
        // t = b * x (mod 2^64), n = -t.
        let t = self.cx.temp(RegFile::R, 2);
        self.op(Opcode::IMAD, &["WIDE", "U32"], vec![t.into()], vec![x0.into(), b0.into(), rz_pair()])?;
        self.op(Opcode::IMAD, &[], vec![t.part(1, 1).into()], vec![b1.into(), x0.into(), t.part(1, 1).into()])?;
        let (n0, borrow) =
            self.with_carry(Opcode::IADD3, &[], vec![rz(), Operand::reg(t.part(0, 1)).negated(), rz()])?;
        self.op(Opcode::IMAD, &[], vec![t.part(1, 1).into()], vec![b0.into(), x1.into(), t.part(1, 1).into()])?;
        let n1 = self.value(Opcode::IADD3, &["X"], vec![rz(), bitnot(t.part(1, 1)), rz(), borrow.into(), not_pt()])?;
        // hi64(x * n) + x, accumulated from the four 32-bit products.
        let h = self.cx.temp(RegFile::R, 2);
        self.op(Opcode::IMAD, &["HI", "U32"], vec![undef(h.part(0, 1))], vec![x0.into(), n0.into(), rz()])?;
        self.op(Opcode::MOV, &[], vec![h.part(1, 1).into()], vec![x0.into()])?;
        let h2 = self.cx.temp(RegFile::R, 2);
        let c0 = self.cx.temp(RegFile::P, 1);
        self.op(Opcode::IMAD, &["WIDE", "U32"], vec![h2.into(), c0.into()], vec![x0.into(), n1.into(), h.into()])?;
        let m = self.value(Opcode::IMAD, &[], vec![x1.into(), n1.into(), rz()])?;
        let (u, c1) = self.with_carry(Opcode::IMAD, &["HI", "U32"], vec![x1.into(), n0.into(), h2.into()])?;
        let v = self.value(Opcode::IMAD, &["HI", "U32"], vec![x1.into(), n1.into(), rz()])?;
        let next = self.cx.temp(RegFile::R, 2);
        let c2 = self.cx.temp(RegFile::P, 1);
        self.op(Opcode::IADD3, &[], vec![undef(next.part(0, 1)), c2.into()], vec![m.into(), u.into(), rz()])?;
        let high = self.value(Opcode::IADD3, &["X"], vec![v.into(), x1.into(), rz(), c0.into(), not_pt()])?;
        let uses = vec![rz(), rz(), high.into(), c2.into(), c1.into()];
        self.op(Opcode::IADD3, &["X"], vec![next.part(1, 1).into()], uses)?;
        Ok(next)
    }
}

/// `~r`.
fn bitnot(r: Reg) -> Operand {
    Operand { flags: OperandFlags { bitnot: true, ..OperandFlags::default() }, ..Operand::reg(r) }
}

/// `!PT`, the absent second carry-in.
fn not_pt() -> Operand {
    Operand::reg(Reg::PT).inverted()
}

/// `RZ` as a 64-bit addend.
fn rz_pair() -> Operand {
    Operand::reg(Reg::RZ.wide(2))
}
