//! `cvt`: integers and floats in every rounding NVIDIA's ptxas has a
//! single instruction for, binary16/bfloat16 to and from f32, and the
//! integer widenings, narrowings and sign extensions.

use ori_ir::{HalfConvert, Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{dst, seq, src, unsupported};

mod fixup;
mod pack;
mod saturate;
use crate::error::Lowered;
use crate::func::{Lowerer, WideProduct};

/// `cvt.RND.DTYPE.STYPE d, a`; a widening to 64 bits returns the product
/// `a * 1` it made, for the `add.s64` of an address to fold.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered<Option<WideProduct>> {
    let types: Vec<ScalarType> = inst.types().collect();
    let [to, from] = types.as_slice() else { return Err(unsupported(inst)) };
    if inst.has("sat") && !to.is_float() && from.is_float() {
        // F2I saturates anyway: NVIDIA's code is the same without `.sat`.
        let mut plain = inst.clone();
        plain.modifiers.retain(|m| m.name != "sat");
        return lower(cx, &plain);
    }
    if to.bits() == 64
        && !to.is_float()
        && matches!(from, ScalarType::U32 | ScalarType::S32)
        && inst.modifiers.len() == 2
    {
        return widen(cx, inst, *from == ScalarType::S32).map(Some);
    }
    if is_unsigned(*to) && is_unsigned(*from) && inst.modifiers.len() == 2 && from.bits() <= 32 {
        return narrow(cx, inst, to.bits().min(from.bits())).map(|()| None);
    }
    if !to.is_float() && !from.is_float() && inst.modifiers.len() == 2 {
        return integer(cx, inst, *to, *from).map(|()| None);
    }
    if !to.is_float() && !from.is_float() && inst.modifiers.len() == 3 && inst.has("sat") {
        return saturate::lower(cx, inst, *to, *from).map(|()| None);
    }
    let rounding =
        inst.modifiers.iter().find_map(|m| if let ModifierKind::Rounding(r) = m.kind { Some(r) } else { None });
    let words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    if (*to, *from, rounding) == (ScalarType::Tf32, ScalarType::F32, Some(Rounding::Rna)) {
        return tf32_rna(cx, inst, words.contains(&"satfinite")).map(|()| None);
    }
    if pack::handles(*to, *from) {
        return pack::lower(cx, inst, *to, *from, rounding, &words).map(|()| None);
    }
    if to == from && matches!(to, ScalarType::F32 | ScalarType::F64) && inst.modifiers.len() == 2 {
        // `cvt.f32.f32` without a rounding modifier changes nothing (NVIDIA
        // keeps NaN payloads; its `cvt.f16.f16` makes them canonical).
        let (d, a) = (dst(cx, inst, 0)?, src(cx, inst, 1, *from)?);
        let a = a.as_reg().ok_or_else(|| unsupported(inst))?;
        return copy(cx, inst, d, a).map(|()| None);
    }
    let (ftz, sat) = (words.contains(&"ftz"), words.contains(&"sat"));
    if words.iter().any(|w| !matches!(*w, "ftz" | "sat")) {
        return Err(unsupported(inst));
    }
    if fixup::needed(*to, *from, rounding, ftz, sat) {
        return fixup::lower(cx, inst, *to, *from, rounding, ftz, sat).map(|()| None);
    }
    if sat && (to.bits() != 32 || !to.is_float()) {
        return Err(unsupported(inst));
    }
    if half_pair(*to, *from) {
        if sat {
            return Err(unsupported(inst));
        }
        let d = dst(cx, inst, 0)?;
        let a = src(cx, inst, 1, *from)?;
        return half(cx, inst, d, a, *to, *from, rounding, ftz).map(|()| None);
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, *from)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    if sat {
        if (*to, *from, rounding, ftz) != (ScalarType::F32, ScalarType::F32, None, false) {
            return Err(unsupported(inst));
        }
        // `cvt.sat.f32.f32`: `FADD.SAT d, RZ, a` (+0 + a clamped to [0, 1], NVIDIA's form).
        let uses = vec![Operand::reg(Reg::RZ), a];
        return cx.emit(Opcode::FADD, &["SAT"], vec![d.into()], uses, inst.span).map(|()| None);
    }
    let (op, mods) = float_form(cx.target.isa.i2fp, *to, *from, rounding, ftz).ok_or_else(|| unsupported(inst))?;
    cx.emit(op, &mods, vec![d.into()], vec![a], inst.span)?;
    Ok(None)
}

/// The SASS conversion for `cvt.RND[.ftz].TO.FROM` between floats and
/// integers, with modifiers in nvdisasm's order (as NVIDIA's ptxas emits
/// them for fp_convert): `F2I[.FTZ][.TYPE][.F64][.ROUND][.NTZ]`,
/// `I2F[.F64][.TYPE][.ROUND]` (`I2FP.F32` where the target's ISA has it, for 32-bit sources,
/// rounding to nearest or zero), `FRND[.ROUND]`, `F2F.TO.FROM[.ROUND]`.
fn float_form(
    i2fp: bool,
    to: ScalarType,
    from: ScalarType,
    rounding: Option<Rounding>,
    ftz: bool,
) -> Option<(Opcode, Vec<&'static str>)> {
    use ScalarType::*;
    let mut mods = Vec::new();
    let directed = |r: Rounding| match r {
        Rounding::Rz => Some("RZ"),
        Rounding::Rm => Some("RM"),
        Rounding::Rp => Some("RP"),
        _ => None,
    };
    let integral = |r: Rounding| match r {
        Rounding::Rni => Some(None),
        Rounding::Rzi => Some(Some("TRUNC")),
        Rounding::Rmi => Some(Some("FLOOR")),
        Rounding::Rpi => Some(Some("CEIL")),
        _ => None,
    };
    let int_name = |t: ScalarType| match t {
        S32 => Some(None),
        U32 => Some(Some("U32")),
        S64 => Some(Some("S64")),
        U64 => Some(Some("U64")),
        S16 => Some(Some("S16")),
        U16 => Some(Some("U16")),
        S8 => Some(Some("S8")),
        U8 => Some(Some("U8")),
        _ => None,
    };
    let half_name = |t: ScalarType| match t {
        F16 => Some("F16"),
        Bf16 => Some("BF16"),
        _ => None,
    };
    Some(match (to, from) {
        // `I2F.F16[.TYPE][.ROUND]`, `F2I[.TYPE].F16[.ROUND][.NTZ]` (and
        // BF16): the binary32 forms with the half type named.
        (F16 | Bf16, _) => {
            mods.extend(half_name(to));
            mods.extend(int_name(from)?);
            match rounding? {
                Rounding::Rn => {}
                r => mods.push(directed(r)?),
            }
            (Opcode::I2F, mods)
        }
        (_, F16 | Bf16) => {
            mods.extend(int_name(to)?);
            mods.extend(half_name(from));
            mods.extend(integral(rounding?)?);
            if to.bits() <= 32 {
                mods.push("NTZ");
            }
            (Opcode::F2I, mods)
        }
        (F32, F32) => {
            if ftz {
                mods.push("FTZ");
            }
            mods.extend(integral(rounding?)?);
            (Opcode::FRND, mods)
        }
        (F64, F64) => {
            mods.push("F64");
            mods.extend(integral(rounding?)?);
            (Opcode::FRND, mods)
        }
        (F32, F64) => {
            if ftz {
                mods.push("FTZ");
            }
            mods.extend(["F32", "F64"]);
            match rounding? {
                Rounding::Rn => {}
                r => mods.push(directed(r)?),
            }
            (Opcode::F2F, mods)
        }
        (F64, F32) if rounding.is_none() => (Opcode::F2F, vec!["F64", "F32"]),
        (F32 | F64, _) => {
            let r = rounding?;
            let ty = int_name(from)?;
            if to == F32 && i2fp && matches!(from, S32 | U32) && matches!(r, Rounding::Rn | Rounding::Rz) {
                mods.extend(["F32", if from == S32 { "S32" } else { "U32" }]);
                if r == Rounding::Rz {
                    mods.push("RZ");
                }
                return Some((Opcode::I2FP, mods));
            }
            if to == F64 {
                mods.push("F64");
            }
            // I2F.F64 of a signed 32-bit source names no type.
            if !(to == F64 && from == S32) {
                mods.extend(ty);
            }
            if r != Rounding::Rn {
                mods.push(directed(r)?);
            }
            (Opcode::I2F, mods)
        }
        (_, F32 | F64) => {
            if ftz && from == F32 {
                mods.push("FTZ");
            }
            mods.extend(int_name(to)?);
            if from == F64 {
                mods.push("F64");
            }
            mods.extend(integral(rounding?)?);
            // Results of at most 32 bits from binary32 carry .NTZ in
            // NVIDIA's forms (the 64-bit ones are another opcode).
            if from == F32 && to.bits() <= 32 {
                mods.push("NTZ");
            }
            (Opcode::F2I, mods)
        }
        _ => return None,
    })
}

/// Integer to integer conversions other than between unsigned types: the
/// low word of a 64-bit register (`cvt.{u32,s32}.{u64,s64}`), sign
/// extension of a byte or half by `PRMT` (NVIDIA's `0x8880` / `0x9910`
/// selectors), zero extension of an unsigned one into a signed type.
fn integer(cx: &mut Lowerer<'_>, inst: &Instruction, to: ScalarType, from: ScalarType) -> Lowered {
    use ScalarType::*;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, from)?;
    let Some(a) = a.as_reg() else { return Err(unsupported(inst)) };
    // A signed narrow result of a 64-bit source is made from its low word
    // alone, as from a 32-bit one.
    let (a, from) = match (to, from) {
        (S8 | S16, S64 | U64 | B64) if a.width == 2 => (a.part(0, 1), if from == S64 { S32 } else { U32 }),
        _ => (a, from),
    };
    if to.bits() == 8 && from.bits() <= 32 {
        // An 8-bit result fills its register extended as its own type says
        // (NVIDIA's `cvt.s8.u8` of 0x80 is 0xff80).
        if to == S8 {
            let uses = vec![a.into(), Operand::int(0x8880), Operand::reg(Reg::RZ)];
            return cx.emit(Opcode::PRMT, &[], vec![d.into()], uses, inst.span);
        }
        let (rz, not_pt) = (Operand::reg(Reg::RZ), Operand::reg(Reg::PT).inverted());
        let uses = vec![a.into(), Operand::int(0xff), rz, Operand::int(0xc0), not_pt];
        return cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span);
    }
    if to.bits() == from.bits() || (to.bits() < from.bits() && from.bits() <= 32) {
        // The low bits are the result, and all a 16-bit register holds.
        return copy(cx, inst, d, a);
    }
    if from.bits() == 64 && to.bits() <= 32 {
        if a.width != 2 {
            return Err(unsupported(inst));
        }
        let low = Operand::reg(a.part(0, 1));
        return match to.bits() {
            32 => cx.emit(Opcode::MOV, &[], vec![d.into()], vec![low], inst.span),
            bits if !matches!(to, S8 | S16) => {
                let mask = Operand::int((1 << bits) - 1);
                let uses = vec![low, mask, Operand::reg(Reg::RZ), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
                cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span)
            }
            _ => Err(unsupported(inst)),
        };
    }
    if to.bits() == 64 && from.bits() <= 16 {
        return widen_narrow(cx, inst, d, a, from);
    }
    let selector = match (to.bits(), from) {
        (16 | 32, S8) => 0x8880,
        (32, S16) => 0x9910,
        // Zero extension of a narrow unsigned source into a signed type.
        (16 | 32, U8 | B8 | U16 | B16) => return narrow(cx, inst, from.bits()),
        _ => return Err(unsupported(inst)),
    };
    let uses = vec![a.into(), Operand::int(selector), Operand::reg(Reg::RZ)];
    cx.emit(Opcode::PRMT, &[], vec![d.into()], uses, inst.span)
}

/// `d = a`, a register or a pair (word by word; the first word written
/// `undef` unless `d` is `a`).
fn copy(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Reg) -> Lowered {
    match (d.width, a.width) {
        (1, 1) => cx.emit(Opcode::MOV, &[], vec![d.into()], vec![a.into()], inst.span),
        (2, 2) if d == a => Ok(()),
        (2, 2) => {
            let lo = Operand::reg(d.part(0, 1)).undef();
            cx.emit(Opcode::MOV, &[], vec![lo], vec![a.part(0, 1).into()], inst.span)?;
            cx.emit(Opcode::MOV, &[], vec![d.part(1, 1).into()], vec![a.part(1, 1).into()], inst.span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// `cvt.{u,s}64.{u,s,b}{8,16} d, a`: the source's low bits extended as its
/// type says (zero for unsigned and untyped, sign for signed) into the low
/// word (`LOP3.LUT` with the mask; `PRMT` with NVIDIA's sign-extension
/// selector), the high word `RZ` or the low word's sign
/// (`SHF.R.S32.HI`), word by word as `widen` builds 64-bit values.
fn widen_narrow(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, a: Reg, from: ScalarType) -> Lowered {
    use ScalarType::*;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let (lo, hi) = (Operand::reg(d.part(0, 1)).undef(), Operand::reg(d.part(1, 1)));
    let span = inst.span;
    let rz = Operand::reg(Reg::RZ);
    match from {
        S8 | S16 => {
            let selector = if from == S8 { 0x8880 } else { 0x9910 };
            cx.emit(Opcode::PRMT, &[], vec![lo], vec![a.into(), Operand::int(selector), rz.clone()], span)?;
            let uses = vec![rz, Operand::int(0x1f), Operand::reg(d.part(0, 1))];
            cx.emit(Opcode::SHF, &["R", "S32", "HI"], vec![hi], uses, span)
        }
        _ => {
            let mask = Operand::int((1 << from.bits()) - 1);
            let uses = vec![a.into(), mask, rz.clone(), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
            cx.emit(Opcode::LOP3, &["LUT"], vec![lo], uses, span)?;
            cx.emit(Opcode::MOV, &[], vec![hi], vec![rz], span)
        }
    }
}

/// Conversions between floats where one side is binary16 or bfloat16 (held
/// in the low half of a register): `F2FP[.F16.F32].PACK_AB d, RZ, a`
/// (round to nearest; the high half is zero), `HADD2.F32 d, -RZ, a.H0_H0`
/// back to f32 (exact), bfloat16 to f32 as a shift into the high half
/// (exact), `FRND.F16` to an integral value, and NVIDIA's
/// `F2F[.FTZ].TO.FROM[.ROUND]` for the rest.
#[allow(clippy::too_many_arguments)]
fn half(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    d: Reg,
    a: Operand,
    to: ScalarType,
    from: ScalarType,
    rounding: Option<Rounding>,
    ftz: bool,
) -> Lowered {
    use ScalarType::*;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let rz = Operand::reg(Reg::RZ);
    // nvdisasm names the same F2FP with its types on some generations.
    let typed = cx.target.isa.half_convert == HalfConvert::TypedPackAb;
    let name = |t: ScalarType| match t {
        F16 => "F16",
        Bf16 => "BF16",
        F32 => "F32",
        _ => "F64",
    };
    let directed = |r: Option<Rounding>| match r {
        Some(Rounding::Rz) => Some("RZ"),
        Some(Rounding::Rm) => Some("RM"),
        Some(Rounding::Rp) => Some("RP"),
        _ => None,
    };
    // `.ftz` matters to binary32 and bfloat16 alone: NVIDIA's code with
    // binary16 is the same (a binary32 subnormal is below its range).
    if ftz && matches!((to, from), (Bf16, F32) | (F32, Bf16)) {
        let mut mods = vec!["FTZ", name(to), name(from)];
        mods.extend(directed(rounding));
        return cx.emit(Opcode::F2F, &mods, vec![d.into()], vec![a], inst.span);
    }
    match (to, from, rounding) {
        (F16, F32, Some(Rounding::Rn)) => {
            if super::half::fold_cvt(cx, inst, F16)?.is_some() {
                return Ok(());
            }
            if cx.target.isa.half_convert == HalfConvert::F2f {
                return cx.emit(Opcode::F2F, &["F16", "F32"], vec![d.into()], vec![a], inst.span);
            }
            let mods: &[&str] = if typed { &["F16", "F32", "PACK_AB"] } else { &["PACK_AB"] };
            cx.emit(Opcode::F2FP, mods, vec![d.into()], vec![rz, a], inst.span)
        }
        // NVIDIA's: `F2FP.F16.F32.PACK_AB.RZ` (sm_80 `F2FP.PACK_AB.RZ`) and
        // `F2F.F16.F64` (one rounding, straight from binary64).
        (F16, F32, Some(Rounding::Rz)) if cx.target.isa.half_convert == HalfConvert::F2f => {
            cx.emit(Opcode::F2F, &["F16", "F32", "RZ"], vec![d.into()], vec![a], inst.span)
        }
        (F16, F32, Some(Rounding::Rz)) => {
            let mods: &[&str] = if typed { &["F16", "F32", "PACK_AB", "RZ"] } else { &["PACK_AB", "RZ"] };
            cx.emit(Opcode::F2FP, mods, vec![d.into()], vec![rz, a], inst.span)
        }
        (F16, F64, Some(Rounding::Rn)) => cx.emit(Opcode::F2F, &["F16", "F64"], vec![d.into()], vec![a], inst.span),
        // NVIDIA's directed roundings to one binary16 or bfloat16.
        (F16 | Bf16, F32, Some(r @ (Rounding::Rm | Rounding::Rp))) => {
            let ty = if to == F16 { "F16" } else { "BF16" };
            let r = if r == Rounding::Rm { "RM" } else { "RP" };
            cx.emit(Opcode::F2F, &[ty, "F32", r], vec![d.into()], vec![a], inst.span)
        }
        (Bf16, F32, Some(Rounding::Rz)) => {
            let mods: &[&str] = if typed { &["BF16", "F32", "PACK_AB", "RZ"] } else { &["BF16", "PACK_AB", "RZ"] };
            cx.emit(Opcode::F2FP, mods, vec![d.into()], vec![rz, a], inst.span)
        }
        (F64, F16, None) => cx.emit(Opcode::F2F, &["F64", "F16"], vec![d.into()], vec![a], inst.span),
        (Bf16, F32, Some(Rounding::Rn)) => {
            if super::half::fold_cvt(cx, inst, Bf16)?.is_some() {
                return Ok(());
            }
            // nvdisasm's sm_80 name lacks `.F32` (the same instruction).
            let mods: &[&str] = if typed { &["BF16", "F32", "PACK_AB"] } else { &["BF16", "PACK_AB"] };
            cx.emit(Opcode::F2FP, mods, vec![d.into()], vec![rz, a], inst.span)
        }
        // `x + -0`: NVIDIA's canonical NaN, everything else kept.
        (F16, F16, None) => {
            cx.emit(Opcode::HADD2, &[], vec![d.into()], vec![low_half(a), low_half(rz.negated())], inst.span)
        }
        (F32, F16, None) => {
            if cx.target.isa.f16_add_widen_fused
                && let Some(uses) = fused_add(cx, &a)
            {
                return cx.emit(Opcode::HADD2, &["F32"], vec![d.into()], uses, inst.span);
            }
            let a = low_half(a);
            // sm_75: `a.H0_H0, -RZ.H0_H0` (`isa.f16_widen_zero_second`).
            let uses = if cx.target.isa.f16_widen_zero_second {
                vec![a, low_half(rz.negated())]
            } else {
                vec![rz.negated(), a]
            };
            cx.emit(Opcode::HADD2, &["F32"], vec![d.into()], uses, inst.span)
        }
        // `-0 * 0 + a`: NVIDIA's canonical NaN, everything else kept.
        (Bf16, Bf16, None) => {
            let uses = vec![low_half(rz.clone().negated()), low_half(rz), low_half(a)];
            cx.emit(Opcode::HFMA2, &["BF16_V2"], vec![d.into()], uses, inst.span)
        }
        (F16 | Bf16, _, Some(r @ (Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi))) if to == from => {
            let mut mods = vec![name(to)];
            mods.extend(match r {
                Rounding::Rzi => Some("TRUNC"),
                Rounding::Rmi => Some("FLOOR"),
                Rounding::Rpi => Some("CEIL"),
                _ => None,
            });
            cx.emit(Opcode::FRND, &mods, vec![d.into()], vec![a], inst.span)
        }
        // Exact whatever the rounding (NVIDIA's code is the same).
        (F32, Bf16, _) => cx.emit(Opcode::SHF, &["L", "U32"], vec![d.into()], vec![a, Operand::int(16), rz], inst.span),
        (_, _, None | Some(Rounding::Rn | Rounding::Rz | Rounding::Rm | Rounding::Rp)) if to != from => {
            let mut mods = vec![name(to), name(from)];
            mods.extend(directed(rounding));
            cx.emit(Opcode::F2F, &mods, vec![d.into()], vec![a], inst.span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// `cvt.{u64,s64}.{u32,s32} d, a`: the low word a copy of `a`, the high
/// word `RZ` or `SHF.R.S32.HI d.hi, RZ, 0x1f, a` (NVIDIA's sign
/// extension). Word by word, so that copy propagation reads `a` itself
/// where the low word is read, and a high word nobody reads goes (a 64-bit
/// multiply in one `IMAD.WIDE` kept both words alive).
fn widen(cx: &mut Lowerer<'_>, inst: &Instruction, signed: bool) -> Lowered<WideProduct> {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() || d.width != 2 {
        return Err(unsupported(inst));
    }
    let span = inst.span;
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(0, 1)).undef()], vec![a.clone()], span)?;
    let hi = vec![Operand::reg(d.part(1, 1))];
    if signed {
        let uses = vec![Operand::reg(Reg::RZ), Operand::int(0x1f), a.clone()];
        cx.emit(Opcode::SHF, &["R", "S32", "HI"], hi, uses, span)?;
    } else {
        cx.emit(Opcode::MOV, &[], hi, vec![Operand::reg(Reg::RZ)], span)?;
    }
    Ok(WideProduct { src: a, factor: Operand::int(1), signed, stable: true })
}

/// `cvt.rna[.satfinite].tf32.f32 d, a` as NVIDIA's code computes it: a
/// finite `a` plus half a tf32 unit (`0x1000`), the low 13 bits cleared;
/// `.satfinite` takes a result of infinite or NaN magnitude down one unit
/// (infinity becomes the largest finite tf32).
fn tf32_rna(cx: &mut Lowerer<'_>, inst: &Instruction, satfinite: bool) -> Lowered {
    use seq::{Seq, rz};
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    let Some(a) = a.as_reg() else { return Err(unsupported(inst)) };
    let seq = Seq::start(cx, inst.span);
    let pt = || Operand::reg(Reg::PT);
    let abs = |r: Reg| Operand { flags: ori_ir::OperandFlags { abs: true, ..Default::default() }, ..Operand::reg(r) };
    let infinite = |cx: &mut Lowerer<'_>, r: Reg| -> Lowered<Reg> {
        let p = cx.temp(ori_ir::RegFile::P, 1);
        let uses = vec![abs(r), Operand::f32(f32::INFINITY), pt()];
        seq.op(cx, Opcode::FSETP, &["GEU", "AND"], vec![p.into(), pt()], uses)?;
        Ok(p)
    };
    let result = (|| {
        // SEL rather than guarded writes: every value is written once.
        let p = infinite(cx, a)?;
        let up = seq.value(cx, Opcode::IADD3, &[], vec![a.into(), Operand::int(0x1000), rz()])?;
        let t = seq.value(cx, Opcode::SEL, &[], vec![a.into(), up.into(), p.into()])?;
        let mask = Operand::int(0xffff_e000_u32 as i32 as i64);
        let mut v = seq.lop3_value(cx, [t.into(), mask, rz()], 0xc0)?;
        if satfinite {
            let q = infinite(cx, v)?;
            let down = seq.value(cx, Opcode::IADD3, &[], vec![v.into(), Operand::int(-0x2000), rz()])?;
            v = seq.value(cx, Opcode::SEL, &[], vec![down.into(), v.into(), q.into()])?;
        }
        seq.result(cx, d, v)
    })();
    seq.finish(cx);
    result
}

/// `o` read as its low half in both lanes (`.H0_H0`).
/// The sources of the binary16 sum `a` when the instruction just emitted
/// is that sum of a register and a constant (`HADD2 a, x.H0_H0, 1, 1`, `x`
/// not `a`): Turing's `cvt.f32.f16` of it is `HADD2.F32 d, x.H0_H0, 1, 1`
/// (`isa.f16_add_widen_fused`). The `HADD2` stays for other readers; dead
/// code elimination removes it when there are none. Two registers
/// (NVIDIA's `HADD2.F32 R7, R9.H0_H0, R7.H0_H0`) wait for that form in
/// sm_75's tables.
fn fused_add(cx: &mut Lowerer<'_>, a: &Operand) -> Option<Vec<Operand>> {
    let guard = cx.guard;
    let reg = a.as_reg()?;
    let last = cx.last_emitted_where(|_| true)?;
    let plain = |u: &Operand| !u.flags.neg && !u.flags.abs;
    let lanes_ok = |k: usize, u: &Operand| match u.kind {
        ori_ir::OperandKind::Reg(r) => k == 0 && r != reg && plain(u) && u.flags.halves == Some(ori_ir::Halves::H0H0),
        ori_ir::OperandKind::Imm(_) => k > 0,
        _ => false,
    };
    let fits = last.op == Opcode::HADD2
        && last.mods.is_empty()
        && last.guard == guard
        && last.defs.len() == 1
        && last.defs[0].as_reg() == Some(reg)
        && last.uses.len() == 3
        && last.uses.iter().enumerate().all(|(k, u)| lanes_ok(k, u));
    fits.then(|| last.uses.clone())
}

fn low_half(o: Operand) -> Operand {
    Operand { flags: ori_ir::OperandFlags { halves: Some(ori_ir::Halves::H0H0), ..o.flags }, ..o }
}

/// binary16 and bfloat16.
fn is_half(ty: ScalarType) -> bool {
    matches!(ty, ScalarType::F16 | ScalarType::Bf16)
}

/// A conversion between floats of which one is binary16 or bfloat16
/// (those from and to integers are `I2F` and `F2I` forms).
fn half_pair(to: ScalarType, from: ScalarType) -> bool {
    to.is_float() && from.is_float() && (is_half(to) || is_half(from))
}

/// Unsigned and untyped integers of up to 32 bits.
fn is_unsigned(ty: ScalarType) -> bool {
    use ScalarType::*;
    matches!(ty, U8 | U16 | U32 | B8 | B16 | B32)
}

/// `cvt.uN.uM d, a` between unsigned integers: keep the low `bits` bits
/// (`LOP3.LUT d, a, mask, RZ, 0xc0`, the AND table), a copy for 32.
fn narrow(cx: &mut Lowerer<'_>, inst: &Instruction, bits: u32) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    if bits >= 32 {
        return cx.emit(Opcode::MOV, &[], vec![d.into()], vec![a], inst.span);
    }
    let mask = Operand::int((1 << bits) - 1);
    let uses = vec![a, mask, Operand::reg(Reg::RZ), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span)
}
