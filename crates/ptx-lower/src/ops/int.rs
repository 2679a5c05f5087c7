//! Integer arithmetic and logic on 32-bit values, and the 64-bit forms
//! NVIDIA builds from `IMAD.WIDE` (`mul.wide`, `mad.wide`, and `add.s64`
//! of a `mul.wide` product) and `LEA` (`add.s64` of a `shl.b64`).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::{dst, operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::{Lowerer, WideProduct};

/// `LOP3.LUT` truth tables of its three inputs (a = 0xf0, b = 0xcc, c = 0xaa).
const LUT_AND: i64 = 0xc0;
const LUT_OR: i64 = 0xfc;
const LUT_XOR: i64 = 0x3c;
const LUT_NOT_B: i64 = 0x33;

/// Lowers an integer instruction; returns the product a `mul.wide` made.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<WideProduct>> {
    let ty = ty(inst)?;
    let op = inst.opcode.name.as_str();
    if ty.is_packed_int() {
        return packed16x2(cx, inst, ty).map(|()| None);
    }
    if ty.bits() == 64 {
        // Address arithmetic on a `mul.wide` product folds into one
        // `IMAD.WIDE`; the rest works on the words of the pairs.
        match op {
            "add" if local_add(cx, inst)? => return Ok(None),
            "add" if add64(cx, inst)? => return Ok(None),
            "add" if lea64(cx, inst)? => return Ok(None),
            "shl" => {
                if let Some(product) = shl64(cx, inst)? {
                    return Ok(Some(product));
                }
                let shifted = shifted64(cx, inst)?;
                super::wide::lower(cx, inst, ty)?;
                if let Some((s, x)) = shifted {
                    cx.shifted.insert(s, x);
                }
                return Ok(None);
            }
            "mul" if inst.has("lo") => {
                if let Some(product) = mul64_of_widened(cx, inst)? {
                    return Ok(Some(product));
                }
            }
            _ => {}
        }
        return super::wide::lower(cx, inst, ty).map(|()| None);
    }
    // 8- and 16-bit values live in the low bits of a register whose upper
    // bits are unknown: the operations whose low bits depend only on the
    // operands' low bits run at 32 bits.
    let narrow_ok = matches!(op, "add" | "sub" | "and" | "or" | "xor" | "not" | "shl" | "cnot")
        || (matches!(op, "mul" | "mad") && inst.has("lo"));
    let shr16 = ty.bits() == 16 && op == "shr";
    let wide16 = ty.bits() == 16 && inst.has("wide");
    let narrow = matches!(ty.bits(), 8 | 16) && narrow_ok;
    if !(ty.bits() == 32 || wide16 || narrow || shr16) {
        return Err(unsupported(inst));
    }
    let signed = matches!(ty, ScalarType::S32 | ScalarType::S16);
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let span = inst.span;
    let rz = Operand::reg(Reg::RZ);
    match op {
        "add" | "sub" if inst.modifiers.len() == 1 => {
            let b = src(cx, inst, 2, ty)?;
            let b = if op == "sub" { negate(b) } else { b };
            let (a, b) = register_first(a, b);
            cx.emit(Opcode::IADD3, &[], vec![d.into()], vec![a, b, rz], span)?;
        }
        "mul" | "mad" if inst.has("lo") => {
            let b = src(cx, inst, 2, ty)?;
            let c = if op == "mad" { src(cx, inst, 3, ty)? } else { rz };
            let (a, b) = register_first(a, b);
            // IMAD has one immediate slot: a constant addend of a constant
            // product goes to a register (not by a plain MOV, which copy
            // propagation would undo).
            let c = if b.as_reg().is_none() && c.as_reg().is_none() {
                let t = cx.temp(ori_ir::RegFile::R, 1);
                cx.imad_mov(t.into(), c, span)?;
                t.into()
            } else {
                c
            };
            cx.emit(Opcode::IMAD, &[], vec![d.into()], vec![a, b, c], span)?;
        }
        "mul" | "mad" if inst.has("wide") && ty.bits() == 32 => {
            let b = src(cx, inst, 2, ty)?;
            let (a, b) = register_first(a, b);
            let mods: &[&str] = if signed { &["WIDE"] } else { &["WIDE", "U32"] };
            let c = match op {
                "mad" => match super::wide::src64(cx, inst, 3)? {
                    super::wide::Src64::Reg(r) => r.into(),
                    super::wide::Src64::Imm(v) => super::wide::materialize(cx, v, span)?.into(),
                },
                _ => Operand::reg(Reg::RZ.wide(2)),
            };
            cx.emit(Opcode::IMAD, mods, vec![d.into()], vec![a.clone(), b.clone(), c], span)?;
            if op == "mul" {
                return Ok(Some(WideProduct { src: a, factor: b, signed, stable: true }));
            }
        }
        // The 16-bit sources live in the low halves of 32-bit registers
        // with unknown upper bits: clear those, then one 32-bit multiply.
        "mul" if inst.has("wide") && ty == ScalarType::U16 => {
            let b = src(cx, inst, 2, ty)?;
            let (a, b) = register_first(a, b);
            let low = |cx: &mut Lowerer<'_>, x: Operand| -> Lowered<Operand> {
                match x.kind {
                    OperandKind::Imm(Imm::Int(v)) => Ok(Operand::int(v & 0xffff)),
                    _ => {
                        let t = cx.temp(ori_ir::RegFile::R, 1);
                        lop3(cx, t, x, Operand::int(0xffff), LUT_AND, span)?;
                        Ok(t.into())
                    }
                }
            };
            let (a, b) = (low(cx, a)?, low(cx, b)?);
            cx.emit(Opcode::IMAD, &[], vec![d.into()], vec![a, b, rz], span)?;
        }
        // `.relu` (s32, sm_90: ptx-syntax refuses the rest) clamps the
        // result at zero, `VIMNMX.RELU`'s own.
        "min" | "max"
            if inst.modifiers.len() == 1
                || (inst.modifiers.len() == 2 && inst.has("relu") && cx.target.isa.int_minmax == Opcode::VIMNMX) =>
        {
            let b = src(cx, inst, 2, ty)?;
            let (a, b) = register_first(a, b);
            // The predicate operand picks the minimum when true.
            let pick_min = Operand::reg(Reg::PT);
            let pick = if op == "min" { pick_min } else { pick_min.inverted() };
            let (opcode, mut mods): (Opcode, Vec<&str>) = (cx.target.isa.int_minmax, vec![]);
            if !signed {
                mods.push("U32");
            }
            let b = if inst.has("relu") {
                mods.push("RELU");
                // The encoder knows `VIMNMX.RELU` of registers only.
                let seq = super::seq::Seq::start(cx, span);
                let b = seq.in_reg(cx, b);
                seq.finish(cx);
                b?
            } else {
                b
            };
            cx.emit(opcode, &mods, vec![d.into()], vec![a, b, pick], span)?;
        }
        "abs" if signed => cx.emit(Opcode::IABS, &[], vec![d.into()], vec![a], span)?,
        "neg" if signed => cx.emit(Opcode::IADD3, &[], vec![d.into()], vec![rz.clone(), negate(a), rz], span)?,
        "and" | "or" | "xor" => {
            let b = src(cx, inst, 2, ty)?;
            let (a, b) = register_first(a, b);
            let lut = match op {
                "and" => LUT_AND,
                "or" => LUT_OR,
                _ => LUT_XOR,
            };
            lop3(cx, d, a, b, lut, span)?;
        }
        "not" => lop3(cx, d, Operand::reg(Reg::RZ), a, LUT_NOT_B, span)?,
        "cnot" => {
            // 1 where the value is zero (its low bits only for 16 bits).
            let a = super::cmp::extend(cx, inst, a, ty)?;
            let zero = cx.temp(ori_ir::RegFile::P, 1);
            let pt = Operand::reg(Reg::PT);
            let uses = vec![a, rz.clone(), pt.clone()];
            cx.emit(Opcode::ISETP, &["EQ", "U32", "AND"], vec![zero.into(), pt], uses, span)?;
            let uses = vec![rz, Operand::int(1), Operand::reg(zero).inverted()];
            cx.emit(Opcode::SEL, &[], vec![d.into()], uses, span)?;
        }
        "lop3" => {
            let (b, c) = (src(cx, inst, 2, ty)?, src(cx, inst, 3, ty)?);
            let ExprKind::Int { value, .. } = super::operand(inst, 4)?.kind else { return Err(unsupported(inst)) };
            let uses = vec![a, b, c, Operand::int((value & 0xff) as i64), Operand::reg(Reg::PT).inverted()];
            cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, span)?;
        }
        "shr" if shr16 => shift16(cx, inst, d, a, signed)?,
        "shl" | "shr" => shift(cx, inst, d, a, signed)?,
        _ => return Err(unsupported(inst)),
    }
    Ok(None)
}

/// `add`/`min`/`max[.relu]` of `.u16x2`/`.s16x2` (sm_90; ptx-syntax
/// refuses them earlier and every other operation): NVIDIA's
/// `VIADD.16x2 d, a, b` and `VIMNMX.{U16x2,S16x2}[.RELU] d, a, b, PT`
/// (`!PT` the maximum), registers only (ptxas 13.5, sm_90 and sm_100a).
fn packed16x2(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType) -> Lowered {
    let op = inst.opcode.name.as_str();
    let relu = inst.has("relu");
    if cx.target.isa.int_minmax != Opcode::VIMNMX || inst.modifiers.len() != 1 + usize::from(relu) {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src(cx, inst, 1, ty)?, src(cx, inst, 2, ty)?);
    let span = inst.span;
    match op {
        "add" if !relu => cx.emit(Opcode::VIADD, &["16x2"], vec![d.into()], vec![a, b], span),
        "min" | "max" => {
            let pick_min = Operand::reg(Reg::PT);
            let pick = if op == "min" { pick_min } else { pick_min.inverted() };
            let lanes = if ty == ScalarType::S16x2 { "S16x2" } else { "U16x2" };
            let mods: &[&str] = if relu { &[lanes, "RELU"] } else { &[lanes] };
            cx.emit(Opcode::VIMNMX, mods, vec![d.into()], vec![a, b, pick], span)
        }
        _ => Err(unsupported(inst)),
    }
}

fn lop3(cx: &mut Lowerer<'_>, d: Reg, a: Operand, b: Operand, lut: i64, span: ptx_syntax::Span) -> Lowered {
    let uses = vec![a, b, Operand::reg(Reg::RZ), Operand::int(lut), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, span)
}

/// `shl.b32` / `shr.{u32,s32}` by a register or immediate: the funnel
/// shifter with a zero other half, as NVIDIA emits them.
fn shift(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Operand, signed: bool) -> Lowered {
    let amount = shift_amount(cx, inst)?;
    let rz = Operand::reg(Reg::RZ);
    if inst.opcode.name.as_str() == "shl" {
        cx.emit(Opcode::SHF, &["L", "U32"], vec![d.into()], vec![a, amount, rz], inst.span)
    } else {
        let kind = if signed { "S32" } else { "U32" };
        cx.emit(Opcode::SHF, &["R", kind, "HI"], vec![d.into()], vec![rz, amount, a], inst.span)
    }
}

/// The shift amount of `shl`/`shr`: a constant amount of a 16-bit shift
/// counts by its low 16 bits (NVIDIA's `shl.b16 d, a, 0x80000000` is `a`).
fn shift_amount(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Operand> {
    let amount = src(cx, inst, 2, ScalarType::U32)?;
    Ok(match amount.kind {
        OperandKind::Imm(Imm::Int(v)) if ty(inst)?.bits() == 16 => Operand::int(v & 0xffff),
        _ => amount,
    })
}

/// `shr.{u16,s16,b16}`: the value widened from its low half first (`LOP3
/// & 0xffff`, or `PRMT 0x9910` for `.s16`), then the 32-bit shift; a
/// register amount is clamped with `IMNMX.U32 n, 0xffff` (`VIMNMX` on
/// sm_90). NVIDIA's sequence (large_unroll's `shr.u16`, and probes).
fn shift16(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Operand, signed: bool) -> Lowered {
    let span = inst.span;
    let rz = Operand::reg(Reg::RZ);
    let wide = cx.temp(ori_ir::RegFile::R, 1);
    if signed {
        cx.emit(Opcode::PRMT, &[], vec![wide.into()], vec![a, Operand::int(0x9910), rz.clone()], span)?;
    } else {
        lop3(cx, wide, a, Operand::int(0xffff), LUT_AND, span)?;
    }
    let amount = shift_amount(cx, inst)?;
    let amount = match amount.as_reg() {
        Some(_) => {
            let t = cx.temp(ori_ir::RegFile::R, 1);
            let opcode = cx.target.isa.int_minmax;
            let uses = vec![amount, Operand::int(0xffff), Operand::reg(Reg::PT)];
            cx.emit(opcode, &["U32"], vec![t.into()], uses, span)?;
            t.into()
        }
        None => amount,
    };
    let kind = if signed { "S32" } else { "U32" };
    cx.emit(Opcode::SHF, &["R", kind, "HI"], vec![d.into()], vec![rz, amount, wide.into()], span)
}

/// `add.{s,u}64 d, p, k` of a local address `p = R1 + o` (written once)
/// and a constant: `d = R1 + o + k`, remembered for local accesses through
/// `d`. False (nothing emitted) for other adds; a constant-bank address
/// plus a constant is remembered too, and computed by the plain add.
fn local_add(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<bool> {
    let (ExprKind::Name(d, None), ExprKind::Name(p, None), ExprKind::Int { value, .. }) =
        (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind, &operand(inst, 2)?.kind)
    else {
        return Ok(false);
    };
    if let Some(&base) = cx.const_ptrs.get(p.name.as_str()) {
        // A constant-bank address plus a constant: only ld.const reads it.
        let at = base + *value as i64;
        if cx.single_def(d.name.as_str()) {
            cx.const_ptrs.insert(d.name.as_str().to_string(), at);
        }
        return Ok(false);
    }
    let Some(&base) = cx.local_ptrs.get(p.name.as_str()) else { return Ok(false) };
    let dreg = dst(cx, inst, 0)?;
    cx.local_pointer(dreg, d.name.as_str(), base + *value as i64, inst.span)?;
    Ok(true)
}

/// `add.s64 d, a, b` where one side is a `mul.wide` product of this block:
/// `IMAD.WIDE d, x, f, other`. False (nothing emitted) for other adds.
fn add64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<bool> {
    let name = |i: usize| match &operand(inst, i).map(|e| &e.kind) {
        Ok(ExprKind::Name(r, None)) => Some(r.name.as_str().to_string()),
        _ => None,
    };
    let (product, other) = match (name(1).and_then(|n| cx.products.get(&n).cloned()), name(2)) {
        (Some(p), _) => (p, 2),
        (None, Some(n)) => match cx.products.get(&n).cloned() {
            Some(p) => (p, 1),
            None => return Ok(false),
        },
        (None, None) => return Ok(false),
    };
    let param = name(other).and_then(|n| cx.param_values.get(&n).copied()).filter(|p| p.words == 2);
    let other_is_reg = matches!(&operand(inst, other)?.kind, ExprKind::Name(..));
    if !other_is_reg && param.is_none() {
        return Ok(false);
    }
    let d = dst(cx, inst, 0)?;
    let (factor, c) = match param {
        // sm_80 adds the parameter from the bank; the factor then has to be
        // a register, as an instruction has one constant operand at most.
        Some(p) if cx.target.isa.bank_operands => {
            let factor = match product.factor.as_reg() {
                Some(_) => product.factor.clone(),
                None => {
                    // Not a plain MOV: copy propagation would put the
                    // immediate back next to the bank operand.
                    let t = cx.temp(ori_ir::RegFile::R, 1);
                    cx.imad_mov(t.into(), product.factor.clone(), inst.span)?;
                    t.into()
                }
            };
            (factor, Operand::cbank(0, p.offset))
        }
        _ => (product.factor.clone(), src(cx, inst, other, ScalarType::U64)?),
    };
    let mods: &[&str] = if product.signed { &["WIDE"] } else { &["WIDE", "U32"] };
    cx.emit(Opcode::IMAD, mods, vec![d.into()], vec![product.src, factor, c], inst.span)?;
    Ok(true)
}

/// `shl.b64 s, x, k` with `s` and `x` registers written once and `k` in
/// 1..=31: the register of `s` and what it holds, for [`lea64`].
fn shifted64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<(Reg, (Reg, i64))>> {
    let (ExprKind::Name(s, None), ExprKind::Name(x, None), ExprKind::Int { value: k, .. }) =
        (&operand(inst, 0)?.kind, &operand(inst, 1)?.kind, &operand(inst, 2)?.kind)
    else {
        return Ok(None);
    };
    if !(1..=31).contains(k) || !cx.single_def(s.name.as_str()) || !cx.single_def(x.name.as_str()) {
        return Ok(None);
    }
    let (s, x) = (cx.reg(s.name.as_str(), s.span)?, cx.reg(x.name.as_str(), x.span)?);
    Ok((s.width == 2 && x.width == 2).then_some((s, (x, *k as i64))))
}

/// `add.s64 d, base, s` (either order) where `s = x << k` ([`shifted64`]):
/// NVIDIA's scaled add, `LEA d.lo, P, x.lo, base.lo, k` + `LEA.HI.X d.hi,
/// x.lo, base.hi, x.hi, k, P`, instead of the shift's two `SHF`s and the
/// add's two `IADD3`s. The base is a register pair, or on sm_80 a 64-bit
/// parameter read from the bank. False (nothing emitted) for other adds.
fn lea64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<bool> {
    let shifted = |cx: &Lowerer<'_>, i: usize| match &operand(inst, i).map(|e| &e.kind) {
        Ok(ExprKind::Name(r, None)) => cx.regs.existing(r.name.as_str()).and_then(|reg| cx.shifted.get(&reg).copied()),
        _ => None,
    };
    let ((x, k), other) = match (shifted(cx, 2), shifted(cx, 1)) {
        (Some(s), _) => (s, 1),
        (None, Some(s)) => (s, 2),
        (None, None) => return Ok(false),
    };
    let ExprKind::Name(base, None) = &operand(inst, other)?.kind else { return Ok(false) };
    let param =
        cx.param_values.get(base.name.as_str()).copied().filter(|p| p.words == 2 && cx.target.isa.wide_params_in_bank);
    let (lo, hi) = match param {
        Some(p) => (Operand::cbank(0, p.offset), Operand::cbank(0, p.offset + 4)),
        None => {
            let b = super::read_reg(cx, base.name.as_str(), base.span)?;
            if b.width != 2 {
                return Ok(false);
            }
            (Operand::reg(b.part(0, 1)), Operand::reg(b.part(1, 1)))
        }
    };
    let d = dst(cx, inst, 0)?;
    // `d` may be the base (read word by word, the low word first), never
    // `x` (written once, by the shift).
    let fresh = !lo.as_reg().is_some_and(|r| r.num == d.num && r.file == d.file && r.is_virtual == d.is_virtual);
    let d_lo = Operand::reg(d.part(0, 1));
    let d_lo = if fresh { d_lo.undef() } else { d_lo };
    let carry = cx.temp(ori_ir::RegFile::P, 1);
    let (x_lo, x_hi) = (Operand::reg(x.part(0, 1)), Operand::reg(x.part(1, 1)));
    cx.emit(Opcode::LEA, &[], vec![d_lo, carry.into()], vec![x_lo.clone(), lo, Operand::int(k)], inst.span)?;
    let uses = vec![x_lo, hi, x_hi, Operand::int(k), carry.into()];
    cx.emit(Opcode::LEA, &["HI", "X"], vec![Operand::reg(d.part(1, 1))], uses, inst.span)?;
    Ok(true)
}

/// `mul.lo.{s,u}64 d, x, y` where `x` and `y` are both zero-extended
/// (`cvt.u64.u32`) or both sign-extended (`cvt.s64.s32`) 32-bit values,
/// or one is and the other an immediate that extends the same way: the
/// product fits in 64 bits, one `IMAD.WIDE[.U32]` (NVIDIA's
/// `UIMAD.WIDE.U32` for copy_bytes' grid stride) instead of the general
/// three multiplies. `None` (nothing emitted) otherwise.
fn mul64_of_widened(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<WideProduct>> {
    let widened = |cx: &Lowerer<'_>, i: usize| match &operand(inst, i).map(|e| &e.kind) {
        Ok(ExprKind::Name(r, None)) => {
            cx.products.get(r.name.as_str()).filter(|p| matches!(p.factor.kind, OperandKind::Imm(Imm::Int(1)))).cloned()
        }
        _ => None,
    };
    let immediate = |i: usize, signed: bool| match &operand(inst, i).map(|e| &e.kind) {
        Ok(ExprKind::Int { value, .. }) => {
            let v = *value as i64;
            let fits = if signed { i64::from(v as i32) == v } else { *value < 1 << 32 };
            fits.then(|| Operand::int(v))
        }
        _ => None,
    };
    let (x, other) = match (widened(cx, 1), widened(cx, 2)) {
        (Some(x), _) => (x, 2),
        (None, Some(y)) => (y, 1),
        (None, None) => return Ok(None),
    };
    let (factor, stable) = match (widened(cx, other), immediate(other, x.signed)) {
        (Some(y), _) if y.signed == x.signed => (y.src, y.stable),
        (None, Some(imm)) => (imm, true),
        _ => return Ok(None),
    };
    let d = dst(cx, inst, 0)?;
    let (a, b) = register_first(x.src.clone(), factor);
    let uses = vec![a.clone(), b.clone(), Operand::reg(Reg::RZ.wide(2))];
    let mods: &[&str] = if x.signed { &["WIDE"] } else { &["WIDE", "U32"] };
    cx.emit(Opcode::IMAD, mods, vec![d.into()], uses, inst.span)?;
    Ok(Some(WideProduct { src: a, factor: b, signed: x.signed, stable: stable && x.stable }))
}

/// `shl.b64 d, p, k` of a product `x * f` of this block with `f << k`
/// still a 32-bit factor: the product `x * (f << k)`, one `IMAD.WIDE`.
/// `None` (nothing emitted) for other shifts.
fn shl64(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<WideProduct>> {
    let ExprKind::Name(p, None) = &operand(inst, 1)?.kind else { return Ok(None) };
    let Some(product) = cx.products.get(p.name.as_str()).cloned() else { return Ok(None) };
    let (OperandKind::Imm(Imm::Int(f)), ExprKind::Int { value: k, .. }) =
        (&product.factor.kind, &operand(inst, 2)?.kind)
    else {
        return Ok(None);
    };
    let factor = f.checked_shl(u32::try_from(*k).unwrap_or(u32::MAX)).filter(|v| i32::try_from(*v).is_ok());
    let Some(factor) = factor.map(Operand::int) else { return Ok(None) };
    let d = dst(cx, inst, 0)?;
    let mods: &[&str] = if product.signed { &["WIDE"] } else { &["WIDE", "U32"] };
    let uses = vec![product.src.clone(), factor.clone(), Operand::reg(Reg::RZ.wide(2))];
    cx.emit(Opcode::IMAD, mods, vec![d.into()], uses, inst.span)?;
    Ok(Some(WideProduct { factor, ..product }))
}

/// `-x` of an integer operand.
fn negate(x: Operand) -> Operand {
    match x.kind {
        ori_ir::OperandKind::Imm(ori_ir::Imm::Int(v)) => Operand::int(i64::from((v as i32).wrapping_neg())),
        _ => x.negated(),
    }
}

/// SASS takes an immediate only as the second source: swap commutative
/// sources when the first is one.
fn register_first(a: Operand, b: Operand) -> (Operand, Operand) {
    if a.as_reg().is_none() && b.as_reg().is_some() { (b, a) } else { (a, b) }
}
