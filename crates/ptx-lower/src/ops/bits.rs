//! Bit manipulation: `popc`, `clz`, `brev`, `bfind`, `bfi`, `bfe`, `prmt`,
//! `shf`, `sad` and `mul.hi`, in the forms NVIDIA's ptxas emits for the
//! corpus (bitops, fp_convert, mma_ldmatrix). 64-bit sources are read word
//! by word (`%rd:0`, `%rd:1`).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, ScalarType};

use super::seq::{Seq, rz, undef, when};
use super::{dst, operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `LOP3.LUT` tables (a = 0xf0, b = 0xcc, c = 0xaa).
const LUT_AND: i64 = 0xc0;
const LUT_XOR: i64 = 0x3c;
/// `b ? a : c`: the bits of `a` where the mask `b` is set, else `c`'s.
const LUT_SELECT: i64 = 0xe2;

/// Lowers a bit-manipulation instruction.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let name = inst.opcode.name.as_str();
    match (name, ty.bits()) {
        ("popc", 32) => unary(cx, inst, Opcode::POPC, &[]),
        ("popc", 64) => popc64(cx, inst),
        ("clz", 32) => clz32(cx, inst),
        ("clz", 64) => clz64(cx, inst),
        ("brev", 32) => unary(cx, inst, Opcode::BREV, &[]),
        ("brev", 64) => brev64(cx, inst),
        // nvdisasm spells the signed form without a type (`FLO`, `FLO.SH`).
        ("bfind", 32) => {
            let mods: &[&str] = match (ty == ScalarType::U32, inst.has("shiftamt")) {
                (true, true) => &["U32", "SH"],
                (true, false) => &["U32"],
                (false, true) => &["SH"],
                (false, false) => &[],
            };
            unary(cx, inst, Opcode::FLO, mods)
        }
        ("bfind", 64) => bfind64(cx, inst, ty == ScalarType::S64),
        ("bfi", 32) => bfi32(cx, inst),
        ("bfi", 64) => bfi64(cx, inst),
        ("bfe", 32) => bfe32(cx, inst, ty == ScalarType::S32),
        ("bfe", 64) => bfe64(cx, inst, ty == ScalarType::S64),
        ("bmsk", 32) => bmsk(cx, inst),
        ("szext", 32) => szext(cx, inst, ty == ScalarType::S32),
        ("prmt", 32) => prmt(cx, inst),
        ("shf", 32) => shf(cx, inst),
        ("sad", 32) if ty == ScalarType::U32 => sad(cx, inst),
        ("sad", 32) if ty == ScalarType::S32 => sad_signed(cx, inst),
        ("sad", 64) => super::wide::sad(cx, inst, ty == ScalarType::S64),
        _ => Err(unsupported(inst)),
    }
}

/// `mad.hi.{s32,u32} d, a, b, c`: the high word of the product
/// (`IMAD.HI[.U32] t, a, b, RZ`) plus `c` (`IADD3`).
pub(super) fn mad_hi(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let mods: &[&str] = match ty {
        ScalarType::S32 => &["HI"],
        ScalarType::U32 => &["HI", "U32"],
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    let (a, b) = register_first(src(cx, inst, 1, ty)?, src(cx, inst, 2, ty)?);
    let c = src(cx, inst, 3, ty)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = seq.in_reg(cx, a)?;
        let high = seq.value(cx, Opcode::IMAD, mods, vec![a, b, rz()])?;
        seq.op_if(cx, seq.guard, Opcode::IADD3, &[], vec![d.into()], vec![high.into(), c, rz()])
    })();
    seq.finish(cx);
    result
}

/// `mul.hi.{s32,u32} d, a, b`: `IMAD.HI[.U32] d, a, b, RZ`.
pub(super) fn mul_hi(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let mods: &[&str] = match ty {
        ScalarType::S32 => &["HI"],
        ScalarType::U32 => &["HI", "U32"],
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    // A register known to hold a constant is the (signed) immediate here:
    // copy propagation would move the `MOV`'s unsigned spelling into
    // IMAD's signed field.
    let mut sources = Vec::new();
    for i in [1, 2] {
        sources.push(match constant(cx, inst, i)? {
            Some(k) => Operand::int(i64::from(k as u32 as i32)),
            None => src(cx, inst, i, ty)?,
        });
    }
    let b = sources.pop().ok_or_else(|| unsupported(inst))?;
    let a = sources.pop().ok_or_else(|| unsupported(inst))?;
    let (a, b) = register_first(a, b);
    let seq = Seq::start(cx, inst.span);
    let a = seq.in_reg(cx, a);
    seq.finish(cx);
    cx.emit(Opcode::IMAD, mods, vec![d.into()], vec![a?, b, rz()], inst.span)
}

/// `op d, a` with a register source.
fn unary(cx: &mut Lowerer<'_>, inst: &Instruction, op: Opcode, mods: &[&str]) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.emit(op, mods, vec![d.into()], vec![a], inst.span)
}

/// The two words of 64-bit source `i` (a register pair).
fn words(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<(Reg, Reg)> {
    let a = src(cx, inst, i, ScalarType::U64)?.as_reg().filter(|r| r.width == 2).ok_or_else(|| unsupported(inst))?;
    Ok((a.part(0, 1), a.part(1, 1)))
}

/// `popc.b64 d, a`: the counts of both words, added.
fn popc64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (lo, hi) = words(cx, inst, 1)?;
    let seq = Seq::start(cx, inst.span);
    let counts = seq.value(cx, Opcode::POPC, &[], vec![lo.into()]).and_then(|l| {
        let h = seq.value(cx, Opcode::POPC, &[], vec![hi.into()])?;
        Ok((l, h))
    });
    seq.finish(cx);
    let (l, h) = counts?;
    cx.emit(Opcode::IADD3, &[], vec![d.into()], vec![l.into(), h.into(), rz()], inst.span)
}

/// `clz.b32 d, a`: `31 - FLO.U32 a` (`FLO` gives -1 for 0, so 32).
fn clz32(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let top = seq.value(cx, Opcode::FLO, &["U32"], vec![a]);
    seq.finish(cx);
    cx.emit(Opcode::IADD3, &[], vec![d.into()], vec![Operand::reg(top?).negated(), Operand::int(31), rz()], inst.span)
}

/// `clz.b64 d, a` as NVIDIA writes it: `FLO.U32` of the high word when it
/// is not zero (`31 - top`), else of the low word (`63 - top`).
fn clz64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (lo, hi) = words(cx, inst, 1)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let high = seq.isetp(cx, &["NE", "U32", "AND"], hi.into(), rz())?;
        let word = seq.value(cx, Opcode::SEL, &[], vec![lo.into(), hi.into(), Operand::reg(high).inverted()])?;
        let top = seq.value(cx, Opcode::FLO, &["U32"], vec![word.into()])?;
        let in_high = seq.value(cx, Opcode::IADD3, &[], vec![Operand::reg(top).negated(), Operand::int(31), rz()])?;
        let out = seq.out(cx, d, &[&lo.into(), &hi.into()]);
        seq.op(cx, Opcode::IADD3, &[], vec![out.into()], vec![Operand::reg(top).negated(), Operand::int(63), rz()])?;
        seq.op_if(cx, when(high), Opcode::MOV, &[], vec![out.into()], vec![in_high.into()])?;
        seq.result(cx, d, out)
    })();
    seq.finish(cx);
    result
}

/// `brev.b64 d, a`: each word reversed into the other.
fn brev64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (lo, hi) = words(cx, inst, 1)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let out = seq.out(cx, d, &[&lo.into()]);
        seq.op(cx, Opcode::BREV, &[], vec![undef(out.part(0, 1))], vec![hi.into()])?;
        seq.op(cx, Opcode::BREV, &[], vec![out.part(1, 1).into()], vec![lo.into()])?;
        pair_result(cx, &seq, d, out)
    })();
    seq.finish(cx);
    result
}

/// Copies the pair `value` to the PTX destination `d` (under the PTX
/// guard) unless the sequence built it there.
fn pair_result(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, value: Reg) -> Lowered {
    if d == value {
        return Ok(());
    }
    // A guarded write keeps the old value where the guard is false: no undef.
    let first = if seq.guard.is_some() { d.part(0, 1).into() } else { undef(d.part(0, 1)) };
    seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![first], vec![value.part(0, 1).into()])?;
    seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.part(1, 1).into()], vec![value.part(1, 1).into()])
}

/// An integer operand known at compile time: an immediate, or a register
/// written once by `mov` of one.
fn constant(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<i64>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(i64::from(*value as u32)),
        ExprKind::Name(r, None) => cx.consts.get(r.name.as_str()).map(|v| v & 0xffff_ffff),
        _ => None,
    })
}

/// `bfi.b32 d, a, b, pos, len` with constant `pos` and `len` (NVIDIA's
/// form): `a << pos` merged into `b` under the field mask by one `LOP3`.
fn bfi32(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let (Some(pos), Some(len)) = (constant(cx, inst, 3)?, constant(cx, inst, 4)?) else {
        return bfi32_dynamic(cx, inst);
    };
    // PTX takes both from the low byte; an empty field leaves b.
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mask = if pos >= 32 || len == 0 { 0 } else { ((1u64 << len.min(32)) - 1) << pos & 0xffff_ffff };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let b = src(cx, inst, 2, ScalarType::B32)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let b = seq.in_reg(cx, b)?;
        if mask == 0 {
            return seq.op_if(cx, seq.guard, Opcode::MOV, &[], vec![d.into()], vec![b]);
        }
        let shifted = match (pos, &a.kind) {
            (_, OperandKind::Imm(Imm::Int(v))) => Operand::int(((*v as u32 as u64) << pos & 0xffff_ffff) as i64),
            (0, _) => a,
            // IMAD by 2^pos, which the encoder prints as IMAD.SHL.
            _ => seq.value(cx, Opcode::IMAD, &[], vec![a, Operand::int(1 << pos), rz()])?.into(),
        };
        let shifted = seq.in_reg(cx, shifted)?;
        let uses = [shifted, Operand::int(mask as i64), b];
        let guard = seq.guard;
        seq.lop3(cx, d, uses, LUT_SELECT, guard)
    })();
    seq.finish(cx);
    result
}

/// `bfi.b32 d, a, b, pos, len` with a position or length known only at
/// run time, NVIDIA's sequence: the low bytes of both (`PRMT`), the field
/// mask `BMSK pos, len` (empty from position 32 on, to bit 31 for lengths
/// past it), `a << pos` (`SHF.L.U32`, 0 from 32 on) merged into `b`.
fn bfi32_dynamic(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2, 3, 4].map(|i| src(cx, inst, i, ScalarType::B32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, b, pos, len] = sources;
        let (a, b) = (seq.in_reg(cx, a?)?, seq.in_reg(cx, b?)?);
        let pos = low_byte(cx, &seq, pos?)?;
        let len = low_byte(cx, &seq, len?)?;
        let mask = seq.value(cx, Opcode::BMSK, &[], vec![pos.clone(), len])?;
        let shifted = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![a, pos, rz()])?;
        let guard = seq.guard;
        seq.lop3(cx, d, [shifted.into(), mask.into(), b], LUT_SELECT, guard)
    })();
    seq.finish(cx);
    result
}

/// The low byte of `v` zero-extended into a register (`PRMT t, RZ, 0x4,
/// v`, as NVIDIA reads `bfe`/`bfi` positions and lengths), or the byte
/// itself for an immediate.
fn low_byte(cx: &mut Lowerer<'_>, seq: &Seq, v: Operand) -> Lowered<Operand> {
    if let OperandKind::Imm(Imm::Int(k)) = v.kind {
        return seq.in_reg(cx, Operand::int(k & 0xff));
    }
    let v = seq.in_reg(cx, v)?;
    Ok(seq.value(cx, Opcode::PRMT, &[], vec![rz(), Operand::int(4), v])?.into())
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`: `BMSK[.W] d, a, b` (NVIDIA's).
fn bmsk(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let wrap = inst.has("wrap");
    if wrap == inst.has("clamp") {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2].map(|i| src(cx, inst, i, ScalarType::B32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, b] = sources;
        let uses = vec![seq.in_reg(cx, a?)?, seq.in_reg(cx, b?)?];
        let mods: &[&str] = if wrap { &["W"] } else { &[] };
        seq.op_if(cx, seq.guard, Opcode::BMSK, mods, vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}

/// `bfind[.shiftamt].{u64,s64} d, a`: the highest set bit of the high
/// word plus 32 when there is one, else that of the low word (`FLO.U32`
/// gives -1 for none); a signed source is first complemented when
/// negative, so that the search is for the highest bit unlike the sign.
/// `.shiftamt` counts from the top (63 - position), -1 staying -1.
fn bfind64(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (lo, hi) = words(cx, inst, 1)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let (mut lo, mut hi) = (Operand::reg(lo), Operand::reg(hi));
        if signed {
            let sign = seq.value(cx, Opcode::SHF, &["R", "S32", "HI"], vec![rz(), Operand::int(31), hi.clone()])?;
            lo = seq.lop3_value(cx, [lo, sign.into(), rz()], LUT_XOR)?.into();
            hi = seq.lop3_value(cx, [hi, sign.into(), rz()], LUT_XOR)?.into();
        }
        let top = seq.value(cx, Opcode::FLO, &["U32"], vec![hi])?;
        let bottom = seq.value(cx, Opcode::FLO, &["U32"], vec![lo])?;
        let found = seq.isetp(cx, &["NE", "U32", "AND"], top.into(), Operand::int(-1))?;
        let high = seq.value(cx, Opcode::IADD3, &[], vec![top.into(), Operand::int(32), rz()])?;
        let pos = seq.value(cx, Opcode::SEL, &[], vec![high.into(), bottom.into(), found.into()])?;
        let guard = seq.guard;
        if !inst.has("shiftamt") {
            return seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.into()], vec![pos.into()]);
        }
        let none = seq.isetp(cx, &["EQ", "U32", "AND"], pos.into(), Operand::int(-1))?;
        let from_top = seq.value(cx, Opcode::IADD3, &[], vec![Operand::reg(pos).negated(), Operand::int(63), rz()])?;
        seq.op_if(cx, guard, Opcode::SEL, &[], vec![d.into()], vec![pos.into(), from_top.into(), none.into()])
    })();
    seq.finish(cx);
    result
}

/// `bfi.b64 d, a, b, 32, 32`: the low word of `b` under the low word of
/// `a` (how 64-bit values are assembled from two halves).
fn bfi64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if (constant(cx, inst, 3)?, constant(cx, inst, 4)?) != (Some(32), Some(32)) {
        return bfi64_dynamic(cx, inst);
    }
    let d = dst(cx, inst, 0)?;
    let (a, _) = words(cx, inst, 1)?;
    let (b, _) = words(cx, inst, 2)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let out = seq.out(cx, d, &[&a.into(), &b.into()]);
        seq.op(cx, Opcode::MOV, &[], vec![undef(out.part(0, 1))], vec![b.into()])?;
        seq.op(cx, Opcode::MOV, &[], vec![out.part(1, 1).into()], vec![a.into()])?;
        pair_result(cx, &seq, d, out)
    })();
    seq.finish(cx);
    result
}

/// The 64-bit field mask `(1 << len) - 1` of NVIDIA's `bfe`/`bfi.b64` code
/// (sm_80, sm_90): `SHF.L.U32` and `SHF.L.U64.HI` of a 1 by `len`, minus
/// one with a borrow (`IADD3` + `IADD3.X`); words (low, high).
fn mask64(cx: &mut Lowerer<'_>, seq: &Seq, len: Operand) -> Lowered<(Reg, Reg)> {
    let one = seq.in_reg(cx, Operand::int(1))?;
    let lo = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![one.clone(), len.clone(), rz()])?;
    let hi = seq.value(cx, Opcode::SHF, &["L", "U64", "HI"], vec![one, len, rz()])?;
    let (mlo, borrow) = (cx.temp(RegFile::R, 1), cx.temp(RegFile::P, 1));
    let uses = vec![lo.into(), Operand::int(-1), rz()];
    seq.op(cx, Opcode::IADD3, &[], vec![mlo.into(), borrow.into()], uses)?;
    let uses = vec![hi.into(), Operand::int(-1), rz(), borrow.into(), Operand::reg(Reg::PT).inverted()];
    let mhi = seq.value(cx, Opcode::IADD3, &["X"], uses)?;
    Ok((mlo, mhi))
}

/// `bfe.{u64,s64} d, a, pos, len`, NVIDIA's code (sm_80 and sm_90, the
/// same instructions, so the same results at every edge): `a` shifted
/// right by `pos` (`SHF.R.{U,S}64` + `SHF.R.{U,S}32.HI`) and masked
/// ([`mask64`]); signed, where the masked field shifted right by
/// `len - 1` is not zero, the bits above the field are set
/// (`@P LOP3 d | ~mask`).
fn bfe64(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (alo, ahi) = words(cx, inst, 1)?;
    let pos = src(cx, inst, 2, ScalarType::U32)?;
    let len = src(cx, inst, 3, ScalarType::U32)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let (pos, len) = (seq.in_reg(cx, pos)?, seq.in_reg(cx, len)?);
        let (mlo, mhi) = mask64(cx, &seq, len.clone())?;
        let (wide, high) = if signed { (["R", "S64"], ["R", "S32", "HI"]) } else { (["R", "U64"], ["R", "U32", "HI"]) };
        let xlo = seq.value(cx, Opcode::SHF, &wide, vec![alo.into(), pos.clone(), ahi.into()])?;
        let xhi = seq.value(cx, Opcode::SHF, &high, vec![rz(), pos, ahi.into()])?;
        let out = cx.temp(RegFile::R, 2);
        let (olo, ohi) = (out.part(0, 1), out.part(1, 1));
        let uses = vec![mlo.into(), xlo.into(), rz(), Operand::int(LUT_AND), Operand::reg(Reg::PT).inverted()];
        seq.op(cx, Opcode::LOP3, &["LUT"], vec![undef(olo)], uses)?;
        seq.lop3(cx, ohi, [mhi.into(), xhi.into(), rz()], LUT_AND, None)?;
        if signed {
            let top = seq.value(cx, Opcode::IADD3, &[], vec![len, Operand::int(-1), rz()])?;
            let uses = vec![olo.into(), top.into(), ohi.into()];
            let tlo = seq.value(cx, Opcode::SHF, &["R", "U64"], uses)?;
            let thi = seq.value(cx, Opcode::SHF, &["R", "U32", "HI"], vec![rz(), top.into(), ohi.into()])?;
            let low = seq.isetp(cx, &["NE", "U32", "AND"], tlo.into(), rz())?;
            let set = cx.temp(RegFile::P, 1);
            let pt = || Operand::reg(Reg::PT);
            let uses = vec![thi.into(), rz(), pt(), low.into()];
            seq.op(cx, Opcode::ISETP, &["NE", "U32", "AND", "EX"], vec![set.into(), pt()], uses)?;
            // `d | ~mask` (a = 0xf0, b = 0xcc).
            seq.lop3(cx, olo, [olo.into(), mlo.into(), rz()], 0xf3, when(set))?;
            seq.lop3(cx, ohi, [ohi.into(), mhi.into(), rz()], 0xf3, when(set))?;
        }
        pair_result(cx, &seq, d, out)
    })();
    seq.finish(cx);
    result
}

/// `bfi.b64 d, a, b, pos, len`, NVIDIA's code (sm_80 and sm_90): the
/// field mask ([`mask64`]) and `a & mask` shifted left by `pos`
/// (`SHF.L.U32` + `SHF.L.U64.HI`), then per word `(a' | b & ~mask')`
/// (`LOP3 0xf4`).
fn bfi64_dynamic(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let (alo, ahi) = words(cx, inst, 1)?;
    let (blo, bhi) = words(cx, inst, 2)?;
    let pos = src(cx, inst, 3, ScalarType::U32)?;
    let len = src(cx, inst, 4, ScalarType::U32)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let (pos, len) = (seq.in_reg(cx, pos)?, seq.in_reg(cx, len)?);
        let (mlo, mhi) = mask64(cx, &seq, len)?;
        let flo = seq.lop3_value(cx, [mlo.into(), alo.into(), rz()], LUT_AND)?;
        let fhi = seq.lop3_value(cx, [mhi.into(), ahi.into(), rz()], LUT_AND)?;
        let slo = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![flo.into(), pos.clone(), rz()])?;
        let shi = seq.value(cx, Opcode::SHF, &["L", "U64", "HI"], vec![flo.into(), pos.clone(), fhi.into()])?;
        let klo = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![mlo.into(), pos.clone(), rz()])?;
        let khi = seq.value(cx, Opcode::SHF, &["L", "U64", "HI"], vec![mlo.into(), pos, mhi.into()])?;
        let out = cx.temp(RegFile::R, 2);
        let (olo, ohi) = (out.part(0, 1), out.part(1, 1));
        let uses = vec![slo.into(), blo.into(), klo.into(), Operand::int(0xf4), Operand::reg(Reg::PT).inverted()];
        seq.op(cx, Opcode::LOP3, &["LUT"], vec![undef(olo)], uses)?;
        seq.lop3(cx, ohi, [shi.into(), bhi.into(), khi.into()], 0xf4, None)?;
        pair_result(cx, &seq, d, out)
    })();
    seq.finish(cx);
    result
}

/// `bfe.{u32,s32} d, a, pos, len` with constant `pos` and `len`: a shift
/// right and a mask (unsigned), or a shift left to the top and an
/// arithmetic shift right (signed, which extends the field's sign bit).
/// An empty field is 0; a field reaching past bit 31 is the shift alone
/// (PTX fills with the sign of bit 31, or zeros).
fn bfe32(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let (Some(pos), Some(len)) = (constant(cx, inst, 2)?, constant(cx, inst, 3)?) else {
        return bfe32_dynamic(cx, inst, signed);
    };
    let (pos, len) = (pos & 0xff, len & 0xff);
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let guard = seq.guard;
        if len == 0 || (pos >= 32 && !signed) {
            return seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.into()], vec![rz()]);
        }
        let a = seq.in_reg(cx, a)?;
        let shift = if signed { ["R", "S32", "HI"] } else { ["R", "U32", "HI"] };
        if pos + len >= 32 {
            let uses = vec![rz(), Operand::int(pos.min(31)), a];
            return seq.op_if(cx, guard, Opcode::SHF, &shift, vec![d.into()], uses);
        }
        if signed {
            let up = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![a, Operand::int(32 - pos - len), rz()])?;
            let uses = vec![rz(), Operand::int(32 - len), up.into()];
            seq.op_if(cx, guard, Opcode::SHF, &shift, vec![d.into()], uses)
        } else {
            let down = seq.value(cx, Opcode::SHF, &shift, vec![rz(), Operand::int(pos), a])?;
            let mask = Operand::int(((1u64 << len) - 1) as i64);
            seq.lop3(cx, d, [down.into(), mask, rz()], LUT_AND, guard)
        }
    })();
    seq.finish(cx);
    result
}

/// `szext.{wrap,clamp}.{s32,u32} d, a, n`: `SGXT[.W][.U32] d, a, n`,
/// NVIDIA's code (`.W` takes `n` modulo 32, without it `n` saturates).
fn szext(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2].map(|i| src(cx, inst, i, ScalarType::B32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, n] = sources;
        let a = seq.in_reg(cx, a?)?;
        let mods: &[&str] = match (inst.has("wrap"), signed) {
            (true, true) => &["W"],
            (true, false) => &["W", "U32"],
            (false, true) => &[],
            (false, false) => &["U32"],
        };
        seq.op_if(cx, seq.guard, Opcode::SGXT, mods, vec![d.into()], vec![a, n?])
    })();
    seq.finish(cx);
    result
}

/// `bfe.{u32,s32}` with a position or length known only at run time,
/// NVIDIA's sequence: their low bytes (`PRMT`), a shift right by the
/// position (`SHF.R.{U32,S32}.HI`, which saturates at 32) and `SGXT` of
/// the length (0 gives 0, 32 and more keep the whole word).
fn bfe32_dynamic(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2, 3].map(|i| src(cx, inst, i, ScalarType::B32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let [a, pos, len] = sources;
        let a = seq.in_reg(cx, a?)?;
        let pos = low_byte(cx, &seq, pos?)?;
        let len = low_byte(cx, &seq, len?)?;
        let shift: &[&str] = if signed { &["R", "S32", "HI"] } else { &["R", "U32", "HI"] };
        let down = seq.value(cx, Opcode::SHF, shift, vec![rz(), pos, a])?;
        let mods: &[&str] = if signed { &[] } else { &["U32"] };
        seq.op_if(cx, seq.guard, Opcode::SGXT, mods, vec![d.into()], vec![down.into(), len])
    })();
    seq.finish(cx);
    result
}

/// `prmt.b32[.MODE] d, a, b, c`: `PRMT[.MODE] d, a, c, b`, a constant
/// selector as an immediate, else the register (NVIDIA's `PRMT R6, R8,
/// R10, R9`, `PRMT.F4E R5, R0, 0x5, R5`).
fn prmt(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mode: &[&str] = match inst.modifiers.iter().find(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()) {
        None => &[],
        Some("f4e") => &["F4E"],
        Some("b4e") => &["B4E"],
        Some("rc8") => &["RC8"],
        Some("ecl") => &["ECL"],
        Some("ecr") => &["ECR"],
        Some("rc16") => &["RC16"],
        Some(_) => return Err(unsupported(inst)),
    };
    let selector = match constant(cx, inst, 3)? {
        Some(k) => Operand::int(k & 0xffff),
        None => src(cx, inst, 3, ScalarType::B32)?,
    };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let b = src(cx, inst, 2, ScalarType::B32)?;
    let seq = Seq::start(cx, inst.span);
    let regs = seq.in_reg(cx, a).and_then(|a| Ok((a, seq.in_reg(cx, b)?)));
    seq.finish(cx);
    let (a, b) = regs?;
    cx.emit(Opcode::PRMT, mode, vec![d.into()], vec![a, selector, b], inst.span)
}

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: the funnel shift of `b:a`.
/// A constant amount is reduced first (below 32 it needs no wrap or
/// clamp); a register amount is `SHF.{L,R}[.W].U32[.HI]`, NVIDIA's.
fn shf(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let left = inst.has("l");
    let wrap = inst.has("wrap");
    if left == inst.has("r") || wrap == inst.has("clamp") {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let b = src(cx, inst, 2, ScalarType::B32)?;
    let amount = constant(cx, inst, 3)?.map(|k| if wrap { k & 31 } else { k.min(32) });
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = seq.in_reg(cx, a)?;
        let b = seq.in_reg(cx, b)?;
        let guard = seq.guard;
        match (left, amount) {
            // Clamped to 32: the whole other word.
            (true, Some(32)) => seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.into()], vec![a]),
            (false, Some(32)) => seq.op_if(cx, guard, Opcode::MOV, &[], vec![d.into()], vec![b]),
            (true, Some(k)) => {
                seq.op_if(cx, guard, Opcode::SHF, &["L", "U32", "HI"], vec![d.into()], vec![a, Operand::int(k), b])
            }
            (false, Some(k)) => {
                seq.op_if(cx, guard, Opcode::SHF, &["R", "W", "U32"], vec![d.into()], vec![a, Operand::int(k), b])
            }
            (true, None) => {
                let c = src(cx, inst, 3, ScalarType::U32)?;
                let mods: &[&str] = if wrap { &["L", "W", "U32", "HI"] } else { &["L", "U32", "HI"] };
                seq.op_if(cx, guard, Opcode::SHF, mods, vec![d.into()], vec![a, c, b])
            }
            (false, None) => {
                let c = src(cx, inst, 3, ScalarType::U32)?;
                let c = seq.in_reg(cx, c)?;
                let mods: &[&str] = if wrap { &["R", "W", "U32"] } else { &["R", "U32"] };
                seq.op_if(cx, guard, Opcode::SHF, mods, vec![d.into()], vec![a, c, b])
            }
        }
    })();
    seq.finish(cx);
    result
}

/// `sad.u32 d, a, b, c`: `VABSDIFF.U32 d, a, b, c` (`|a - b| + c`), the
/// form NVIDIA uses with a constant `c`; a register `c` is added after.
fn sad(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    let b = src(cx, inst, 2, ScalarType::U32)?;
    let c = constant(cx, inst, 3)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let a = seq.in_reg(cx, a)?;
        let b = seq.in_reg(cx, b)?;
        let guard = seq.guard;
        if !cx.target.isa.abs_diff {
            let c = src(cx, inst, 3, ScalarType::U32)?;
            return max_less_min(cx, &seq, d, [a, b, c], false);
        }
        match c {
            Some(c) => {
                // The encoder's VABSDIFF immediate is unsigned.
                let uses = vec![a, b, Operand::int(i64::from(c as u32))];
                seq.op_if(cx, guard, Opcode::VABSDIFF, &["U32"], vec![d.into()], uses)
            }
            None => {
                let c = src(cx, inst, 3, ScalarType::U32)?;
                let diff = seq.value(cx, Opcode::VABSDIFF, &["U32"], vec![a, b, Operand::int(0)])?;
                seq.op_if(cx, guard, Opcode::IADD3, &[], vec![d.into()], vec![diff.into(), c, rz()])
            }
        }
    })();
    seq.finish(cx);
    result
}

/// `sad.s32 d, a, b, c`: `VABSDIFF d, a, b, c` (`|a - b| + c`, NVIDIA's
/// form; a constant `c` as the immediate, as NVIDIA writes it).
fn sad_signed(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::S32)?;
    let b = src(cx, inst, 2, ScalarType::S32)?;
    let c = match constant(cx, inst, 3)? {
        Some(k) => Operand::int(i64::from(k as u32)),
        None => src(cx, inst, 3, ScalarType::S32)?,
    };
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let (a, b) = (seq.in_reg(cx, a)?, seq.in_reg(cx, b)?);
        if !cx.target.isa.abs_diff {
            let c = src(cx, inst, 3, ScalarType::S32)?;
            return max_less_min(cx, &seq, d, [a, b, c], true);
        }
        seq.op_if(cx, seq.guard, Opcode::VABSDIFF, &[], vec![d.into()], vec![a, b, c])
    })();
    seq.finish(cx);
    result
}

/// `d = |a - b| + c` (registers `a`, `b`) under the sequence's guard
/// where the SM has no `VABSDIFF` (`isa.abs_diff`), as NVIDIA's sm_120
/// code does: `VIMNMX max, a, b, !PT`, `VIMNMX min, a, b, PT`, `IADD3 d,
/// max, c, -min`.
pub(super) fn max_less_min(cx: &mut Lowerer<'_>, seq: &Seq, d: Reg, [a, b, c]: [Operand; 3], signed: bool) -> Lowered {
    let minmax = cx.target.isa.int_minmax;
    let mods: &[&str] = if signed { &[] } else { &["U32"] };
    let max = seq.value(cx, minmax, mods, vec![a.clone(), b.clone(), Operand::reg(Reg::PT).inverted()])?;
    let min = seq.value(cx, minmax, mods, vec![a, b, Operand::reg(Reg::PT)])?;
    seq.op_if(cx, seq.guard, Opcode::IADD3, &[], vec![d.into()], vec![max.into(), c, Operand::from(min).negated()])
}

/// `dp4a.A.B d, a, b, c` / `dp2a.{lo,hi}.A.B`: `IDP.4A.A8.B8` /
/// `IDP.2A.{LO,HI}.A16.B8 d, a, b, c` (NVIDIA's, every source a register).
pub(super) fn dot(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let types: Vec<ScalarType> = inst.types().collect();
    let [at, bt] = types.as_slice() else { return Err(unsupported(inst)) };
    let sign = |t: &ScalarType| match t {
        ScalarType::S32 => Some(true),
        ScalarType::U32 => Some(false),
        _ => None,
    };
    let (Some(a_signed), Some(b_signed)) = (sign(at), sign(bt)) else { return Err(unsupported(inst)) };
    let two = inst.opcode.name.as_str() == "dp2a";
    let half: &str = match (two, inst.has("hi"), inst.has("lo")) {
        (false, false, false) => "",
        (true, true, false) => "HI",
        (true, false, true) => "LO",
        _ => return Err(unsupported(inst)),
    };
    let a_type = match (two, a_signed) {
        (false, true) => "S8",
        (false, false) => "U8",
        (true, true) => "S16",
        (true, false) => "U16",
    };
    let b_type = if b_signed { "S8" } else { "U8" };
    let mut mods = vec![if two { "2A" } else { "4A" }];
    mods.extend([half].into_iter().filter(|h| !h.is_empty()));
    mods.extend([a_type, b_type]);
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2, 3].map(|i| src(cx, inst, i, ScalarType::B32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mut uses = Vec::new();
        for s in sources {
            uses.push(seq.in_reg(cx, s?)?);
        }
        seq.op_if(cx, seq.guard, Opcode::IDP, &mods, vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}

/// `vabsdiff4.u32.u32.u32 d, a, b, c` (no mask, selectors, `.sat` or
/// `.add`): `VABSDIFF4.U8 d, a, b, c`, NVIDIA's (`c`, PTX's merge operand,
/// is passed though the all-bytes mask takes nothing from it).
pub(super) fn vabsdiff4(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let plain = inst.types().count() == 3 && inst.types().all(|t| t == ScalarType::U32);
    if !plain || inst.modifiers.len() != 3 || inst.operands.len() != 4 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let sources = [1, 2, 3].map(|i| src(cx, inst, i, ScalarType::U32));
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mut uses = Vec::new();
        for s in sources {
            uses.push(seq.in_reg(cx, s?)?);
        }
        seq.op_if(cx, seq.guard, Opcode::VABSDIFF4, &["U8"], vec![d.into()], uses)
    })();
    seq.finish(cx);
    result
}

/// SASS takes an immediate only as the second source.
fn register_first(a: Operand, b: Operand) -> (Operand, Operand) {
    if a.as_reg().is_none() && b.as_reg().is_some() { (b, a) } else { (a, b) }
}
