//! f32 arithmetic: `FADD`, `FMUL`, `FFMA`, `FMNMX`, and negation and
//! absolute value as an add of `-0` (exact, and how NVIDIA spells them).

use ori_ir::{Halves, Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{dst, param_operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers an f32 instruction.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    match ty(inst)? {
        ScalarType::F32 => {}
        ScalarType::F32x2 => return packed(cx, inst, None),
        _ => return Err(unsupported(inst)),
    }
    let op = inst.opcode.name.as_str();
    if matches!(op, "min" | "max") && inst.operands.len() == 4 {
        return minmax3(cx, inst);
    }
    if matches!(op, "min" | "max") && ["ftz", "NaN", "xorsign"].iter().any(|m| inst.has(m)) {
        return minmax(cx, inst);
    }
    let mods = modifiers(inst)?;
    let mods: Vec<&str> = mods.iter().map(String::as_str).collect();
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    let neg_zero = Operand::reg(Reg::RZ).negated();
    let (op, uses) = match inst.opcode.name.as_str() {
        "add" => (Opcode::FADD, commutative(a, src(cx, inst, 2, ScalarType::F32)?)),
        "sub" => {
            let b = src(cx, inst, 2, ScalarType::F32)?;
            (Opcode::FADD, commutative(a, negate(b)))
        }
        "mul" => {
            let uses = commutative(a, src(cx, inst, 2, ScalarType::F32)?);
            // NVIDIA's ptxas folds a product by 1.0 without a rounding
            // modifier into a copy: a NaN keeps its payload (FMUL would
            // return the canonical NaN).
            if mods.is_empty()
                && !inst.has("rn")
                && uses[1].kind == ori_ir::OperandKind::Imm(ori_ir::Imm::F32(0x3f80_0000))
            {
                let x = uses.into_iter().next().ok_or_else(|| unsupported(inst))?;
                return cx.emit(Opcode::MOV, &[], vec![d.into()], vec![x], inst.span);
            }
            (Opcode::FMUL, uses)
        }
        "fma" | "mad" => {
            let b = src(cx, inst, 2, ScalarType::F32)?;
            // Two immediate factors (NVRTC 13's `fma.rn.f32 d, 0f.., 0f.., c`):
            // the second goes to a register, the first stays (NVIDIA's
            // `FFMA R4, R5, 0.93318945, R0`).
            let (a, b) = match (&a.kind, &b.kind) {
                (ori_ir::OperandKind::Imm(_), ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits))) => {
                    let t = cx.temp(ori_ir::RegFile::R, 1);
                    cx.imad_mov(t.into(), Operand::int(i64::from(*bits)), inst.span)?;
                    (a, t.into())
                }
                _ => (a, b),
            };
            let mut uses = commutative(a, b);
            let c = src(cx, inst, 3, ScalarType::F32)?;
            // One immediate slot: a second immediate goes to a register
            // (+0.0 is RZ; not by a plain MOV, which copy propagation undoes).
            let c = match c.kind {
                ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)) if uses[1].as_reg().is_none() => {
                    if bits == 0 {
                        Operand::reg(Reg::RZ)
                    } else {
                        let t = cx.temp(ori_ir::RegFile::R, 1);
                        cx.imad_mov(t.into(), Operand::int(i64::from(bits)), inst.span)?;
                        t.into()
                    }
                }
                _ => c,
            };
            uses.push(c);
            (Opcode::FFMA, uses)
        }
        "min" | "max" if mods.is_empty() => {
            // FMNMX with three registers is known only as a maximum; NVIDIA
            // reads a parameter operand from a uniform register or the bank.
            let mut uses = match (param_operand(cx, inst, 2)?, param_operand(cx, inst, 1)?) {
                (Some(p), _) => vec![a, p],
                (None, Some(p)) => vec![src(cx, inst, 2, ScalarType::F32)?, p],
                (None, None) => commutative(a, src(cx, inst, 2, ScalarType::F32)?),
            };
            let pt = Operand::reg(Reg::PT);
            uses.push(if inst.opcode.name.as_str() == "min" { pt } else { pt.inverted() });
            (Opcode::FMNMX, uses)
        }
        // NVIDIA's code: `FADD d, -a, -RZ` / `FADD d, |a|, -RZ` (a NaN
        // comes out canonical); under a guard the if-converted `FSEL d,
        // -a, d, p` (the bits of `a`, sign changed, NaN payload kept).
        "neg" | "abs" if a.as_reg().is_some() && mods.iter().all(|m| *m == "FTZ") => {
            let mut a = a;
            if inst.opcode.name.as_str() == "neg" {
                a.flags.neg = true;
            } else {
                a.flags.abs = true;
            }
            if let Some(guard) = cx.guard.filter(|_| mods.is_empty()) {
                let p = Operand::reg(guard.pred);
                let p = if guard.negated { p.inverted() } else { p };
                cx.guard = None;
                let result = cx.emit(Opcode::FSEL, &[], vec![d.into()], vec![a, d.into(), p], inst.span);
                cx.guard = Some(guard);
                return result;
            }
            (Opcode::FADD, vec![a, neg_zero])
        }
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, &mods, vec![d.into()], uses, inst.span)
}

/// `add`/`sub`/`mul`/`fma.f32x2` (two f32 in a `.b64`, sm_100+): one
/// `FADD2`/`FMUL2`/`FFMA2` on the register pairs where the target has them
/// (sm_100's code), else each half as its f32 instruction (sm_120's).
/// `negated`: the source negated in both halves (a contracted `sub`).
pub(super) fn packed(cx: &mut Lowerer<'_>, inst: &Instruction, negated: Option<usize>) -> Lowered {
    let mods = modifiers(inst)?;
    let mods: Vec<&str> = mods.iter().map(String::as_str).collect();
    let name = inst.opcode.name.as_str();
    let (op, pair, sources) = match name {
        "add" | "sub" => (Opcode::FADD, Opcode::FADD2, 2),
        "mul" => (Opcode::FMUL, Opcode::FMUL2, 2),
        "fma" => (Opcode::FFMA, Opcode::FFMA2, 3),
        _ => return Err(unsupported(inst)),
    };
    if inst.operands.len() != sources + 1 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let mut regs = Vec::new();
    for i in 1..=sources {
        regs.push(src(cx, inst, i, ScalarType::F32x2)?.as_reg().ok_or_else(|| unsupported(inst))?);
    }
    let uses = |part: &dyn Fn(Reg) -> Operand| {
        let mut uses: Vec<Operand> = regs.iter().map(|&r| part(r)).collect();
        if name == "sub" {
            uses[1] = uses[1].clone().negated();
        }
        if let Some(slot) = negated {
            uses[slot] = uses[slot].clone().negated();
        }
        uses
    };
    if cx.sm.target().isa.packed_f32 {
        let whole = |r: Reg| {
            let mut o = Operand::reg(r);
            o.flags.halves = Some(Halves::F32x2HiLo);
            o
        };
        return cx.emit(pair, &mods, vec![d.into()], uses(&whole), inst.span);
    }
    for half in 0..2 {
        let uses = uses(&|r: Reg| Operand::reg(r.part(half, 1)));
        cx.emit(op, &mods, vec![d.part(half, 1).into()], uses, inst.span)?;
    }
    Ok(())
}

/// `testp.OP.f32 p, a`: unsigned comparisons of the magnitude's bits
/// `m = a & 0x7fffffff` (the complement written as the `ISETP`'s second
/// result where the test is "below"): finite `m < 0x7f800000`, infinite
/// `m == 0x7f800000`, number `m <= 0x7f800000`, notanumber `m >
/// 0x7f800000`, subnormal `0 < m < 0x800000`, normal `0x800000 <= m <
/// 0x7f800000` or zero (NVIDIA counts zero as normal). NVIDIA's ptxas
/// drops a guard of `testp` (its code tests unconditionally), and so do
/// we: the results agree.
pub(super) fn testp(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? == ScalarType::F64 {
        return testp64(cx, inst);
    }
    if ty(inst)? != ScalarType::F32 {
        return Err(unsupported(inst));
    }
    let p = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let seq = super::seq::Seq::start(cx, inst.span);
    let result = (|| {
        let pt = || Operand::reg(Reg::PT);
        let uses = vec![a, Operand::int(0x7fff_ffff), Operand::reg(Reg::RZ), Operand::int(0xc0), pt().inverted()];
        let m: Operand = seq.value(cx, Opcode::LOP3, &["LUT"], uses)?.into();
        let isetp = |cx: &mut Lowerer<'_>, mods: &[&str], defs: Vec<Operand>, bound: i64, c: Operand| {
            seq.op(cx, Opcode::ISETP, mods, defs, vec![m.clone(), Operand::int(bound), c])
        };
        let q = Operand::reg(cx.temp(ori_ir::RegFile::P, 1));
        let ge = ["GE", "U32", "AND"];
        let gt = ["GT", "U32", "AND"];
        if inst.has("finite") {
            isetp(cx, &ge, vec![q, p.into()], 0x7f80_0000, pt())
        } else if inst.has("infinite") {
            isetp(cx, &["EQ", "U32", "AND"], vec![p.into(), pt()], 0x7f80_0000, pt())
        } else if inst.has("number") {
            isetp(cx, &gt, vec![q, p.into()], 0x7f80_0000, pt())
        } else if inst.has("notanumber") {
            isetp(cx, &gt, vec![p.into(), pt()], 0x7f80_0000, pt())
        } else if inst.has("subnormal") {
            isetp(cx, &ge, vec![q.clone(), pt()], 0x80_0000, pt())?;
            seq.op(cx, Opcode::ISETP, &gt, vec![p.into(), pt()], vec![m.clone(), Operand::reg(Reg::RZ), q.inverted()])
        } else if inst.has("normal") {
            isetp(cx, &ge, vec![q.clone(), pt()], 0x7f80_0000, pt())?;
            isetp(cx, &ge, vec![q.clone(), pt()], 0x80_0000, q.clone().inverted())?;
            seq.op(
                cx,
                Opcode::ISETP,
                &["EQ", "U32", "OR"],
                vec![p.into(), pt()],
                vec![m.clone(), Operand::reg(Reg::RZ), q],
            )
        } else {
            Err(unsupported(inst))
        }
    })();
    seq.finish(cx);
    result
}

/// `copysign.f32 d, a, b`: `b` with the sign of `a`, one `LOP3.LUT d, b,
/// 0x80000000, a, 0xb8` (bits of `a` where the mask is set, of `b`
/// elsewhere), NVIDIA's form; constant sources go to registers first
/// (`IMAD.MOV.U32`, as NVIDIA's code does for `copysign(x, 1.0)`).
pub(super) fn copysign(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? == ScalarType::F64 {
        return super::wide::copysign(cx, inst);
    }
    if ty(inst)? != ScalarType::F32 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let mut regs = Vec::with_capacity(2);
    for i in [2, 1] {
        let x = match src(cx, inst, i, ScalarType::F32)? {
            Operand { kind: ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)), .. } => {
                let t = cx.temp(ori_ir::RegFile::R, 1);
                cx.imad_mov(t.into(), Operand::int(i64::from(bits)), inst.span)?;
                Operand::reg(t)
            }
            x => x,
        };
        regs.push(x);
    }
    let [magnitude, sign] = <[Operand; 2]>::try_from(regs).map_err(|_| unsupported(inst))?;
    let uses = vec![magnitude, Operand::int(0x8000_0000), sign, Operand::int(0xb8), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span)
}

/// `testp.OP.f64 p, a`: the f32 tests on the high word's magnitude `m`
/// (exponent boundaries `0x7ff00000`, `0x100000`), the low word deciding
/// infinity against NaN and zero against subnormal (`DSETP.NUM`/`.NAN`
/// of `a` with itself for number and notanumber); unguarded like the f32
/// forms.
fn testp64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let p = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F64)?.as_reg().filter(|r| r.width == 2).ok_or_else(|| unsupported(inst))?;
    let seq = super::seq::Seq::start(cx, inst.span);
    let result = (|| {
        let pt = || Operand::reg(Reg::PT);
        let rz = || Operand::reg(Reg::RZ);
        if inst.has("number") || inst.has("notanumber") {
            let cmp = if inst.has("number") { "NUM" } else { "NAN" };
            return seq.op(cx, Opcode::DSETP, &[cmp, "AND"], vec![p.into(), pt()], vec![a.into(), a.into(), pt()]);
        }
        let (lo, hi): (Operand, Operand) = (a.part(0, 1).into(), a.part(1, 1).into());
        let uses = vec![hi, Operand::int(0x7fff_ffff), rz(), Operand::int(0xc0), pt().inverted()];
        let m: Operand = seq.value(cx, Opcode::LOP3, &["LUT"], uses)?.into();
        // Zero (both words of the magnitude) for normal and subnormal.
        let uses = vec![m.clone(), lo.clone(), rz(), Operand::int(0xfc), pt().inverted()];
        let any = |cx: &mut Lowerer<'_>| seq.value(cx, Opcode::LOP3, &["LUT"], uses.clone());
        let q = cx.temp(ori_ir::RegFile::P, 1);
        let isetp = |cx: &mut Lowerer<'_>, mods: &[&str], defs: Vec<Operand>, uses: Vec<Operand>| {
            seq.op(cx, Opcode::ISETP, mods, defs, uses)
        };
        let ge = ["GE", "U32", "AND"];
        if inst.has("finite") {
            isetp(cx, &ge, vec![q.into(), p.into()], vec![m, Operand::int(0x7ff0_0000), pt()])
        } else if inst.has("infinite") {
            isetp(cx, &["EQ", "U32", "AND"], vec![q.into(), pt()], vec![m, Operand::int(0x7ff0_0000), pt()])?;
            isetp(cx, &["EQ", "U32", "AND"], vec![p.into(), pt()], vec![lo, rz(), q.into()])
        } else if inst.has("subnormal") {
            let o = any(cx)?;
            isetp(cx, &ge, vec![q.into(), pt()], vec![m, Operand::int(0x10_0000), pt()])?;
            isetp(cx, &["NE", "U32", "AND"], vec![p.into(), pt()], vec![o.into(), rz(), Operand::reg(q).inverted()])
        } else if inst.has("normal") {
            let o = any(cx)?;
            isetp(cx, &ge, vec![q.into(), pt()], vec![m.clone(), Operand::int(0x7ff0_0000), pt()])?;
            isetp(cx, &ge, vec![q.into(), pt()], vec![m, Operand::int(0x10_0000), Operand::reg(q).inverted()])?;
            isetp(cx, &["EQ", "U32", "OR"], vec![p.into(), pt()], vec![o.into(), rz(), q.into()])
        } else {
            Err(unsupported(inst))
        }
    })();
    seq.finish(cx);
    result
}

/// `min`/`max[.ftz][.NaN][.xorsign.abs].f32 d, a, b`: `FMNMX[.FTZ][.NAN]
/// [.XORSIGN] d, a, b, PT` (`!PT` for the maximum), the sources as `|a|`,
/// `|b|` with `.xorsign.abs` (NVIDIA's forms).
fn minmax(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut mods = Vec::new();
    for (word, sass) in [("ftz", "FTZ"), ("NaN", "NAN"), ("xorsign", "XORSIGN")] {
        if inst.has(word) {
            mods.push(sass);
        }
    }
    let xorsign = inst.has("xorsign");
    if xorsign != inst.has("abs") {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let magnitude = |x: Operand| match x.kind {
        _ if !xorsign => x,
        ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)) => {
            ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits & 0x7fff_ffff)).into()
        }
        _ => Operand { flags: ori_ir::OperandFlags { abs: true, ..x.flags }, ..x },
    };
    let (a, b) = (src(cx, inst, 1, ScalarType::F32)?, src(cx, inst, 2, ScalarType::F32)?);
    let mut uses: Vec<Operand> = commutative(a, b).into_iter().map(magnitude).collect();
    if uses[0].as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let pt = Operand::reg(Reg::PT);
    uses.push(if inst.opcode.name.as_str() == "min" { pt } else { pt.inverted() });
    cx.emit(Opcode::FMNMX, &mods, vec![d.into()], uses, inst.span)
}

/// `min`/`max[.ftz][.NaN].f32 d, a, b, c` (PTX 8.8, Blackwell; Triton's
/// row maxima): `FMNMX3 d, a, b, c, !PT` (`PT` for the minimum) where the
/// target has it (`Isa::minmax3_f32`), otherwise `FMNMX t, a, b, !PT; FMNMX d, t, c, !PT`
/// (sm_120's code; exact, as the minimum or maximum of three is that of
/// the first two and the third, NaNs and signed zeros alike). FMNMX3 is
/// used on registers only and without `.FTZ`/`.NAN` (NVIDIA's
/// `FMNMX3.NAN` and immediate forms are neither probed nor modelled by
/// the interpreter yet).
/// `.xorsign.abs` of three is refused: its sign rule was not checked.
fn minmax3(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if inst.has("xorsign") {
        return Err(unsupported(inst));
    }
    let mut mods = Vec::new();
    for (word, sass) in [("ftz", "FTZ"), ("NaN", "NAN")] {
        if inst.has(word) {
            mods.push(sass);
        }
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    let b = src(cx, inst, 2, ScalarType::F32)?;
    let c = src(cx, inst, 3, ScalarType::F32)?;
    let pt = Operand::reg(Reg::PT);
    let pt = if inst.opcode.name.as_str() == "min" { pt } else { pt.inverted() };
    if cx.sm.target().isa.minmax3_f32 && mods.is_empty() && [&a, &b, &c].iter().all(|x| x.as_reg().is_some()) {
        return cx.emit(Opcode::FMNMX3, &mods, vec![d.into()], vec![a, b, c, pt], inst.span);
    }
    let first = commutative(a, b);
    if first[0].as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let t = cx.temp(ori_ir::RegFile::R, 1);
    cx.emit(Opcode::FMNMX, &mods, vec![t.into()], first.into_iter().chain([pt.clone()]).collect(), inst.span)?;
    let mut second = commutative(t.into(), c);
    second.push(pt);
    cx.emit(Opcode::FMNMX, &mods, vec![d.into()], second, inst.span)
}

/// SASS modifiers for PTX's rounding, flush-to-zero and saturation.
fn modifiers(inst: &Instruction) -> Lowered<Vec<String>> {
    let mut out = Vec::new();
    for m in &inst.modifiers {
        match m.kind {
            ModifierKind::Type(_) | ModifierKind::Rounding(Rounding::Rn) => {}
            ModifierKind::Rounding(r @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)) => {
                out.push(r.name().to_uppercase())
            }
            ModifierKind::Word if m.name == "ftz" || m.name == "sat" => out.insert(0, m.name.as_str().to_uppercase()),
            _ => return Err(unsupported(inst)),
        }
    }
    Ok(out)
}

/// `-x` of an f32 operand.
fn negate(x: Operand) -> Operand {
    match x.kind {
        ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)) => {
            ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits ^ 0x8000_0000)).into()
        }
        _ => x.negated(),
    }
}

/// SASS takes an immediate only as the second source.
fn commutative(a: Operand, b: Operand) -> Vec<Operand> {
    if a.as_reg().is_none() && b.as_reg().is_some() { vec![b, a] } else { vec![a, b] }
}
