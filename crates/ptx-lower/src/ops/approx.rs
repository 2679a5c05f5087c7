//! The approximate functions that NVIDIA's code computes with one `MUFU`
//! (measured with nvdisasm on sm_90 and sm_80):
//!
//! | PTX | SASS |
//! |---|---|
//! | `ex2`, `sqrt`, `rcp`, `rsqrt` `.approx.ftz.f32` | `MUFU.EX2`/`SQRT`/`RCP`/`RSQ` |
//! | `ex2.approx.f32` | below -126 the input is halved and the result squared (`FSETP.GEU`, `FSEL`, `@!P FMUL`) |
//! | `lg2`, `rsqrt`, `sqrt` `.approx.f32` | a subnormal input is scaled by 2^24 first, the result corrected (`FADD -24` / `FMUL 4096` / `FMUL 2^-12`) |
//! | `div.approx.ftz.f32 d, a, b` | `MUFU.RCP t, b`, `FMUL.FTZ d, t, a` |
//! | `sin`, `cos` `.approx[.ftz].f32` | `MUFU.SIN`/`COS` of `x * 1/(2 pi)` rounded toward zero (`FMUL.RZ`) |
//! | `rcp`, `rsqrt` `.approx.ftz.f64` | `MUFU.RCP64H`/`RSQ64H` of the high word, a zero low word |
//! | `tanh.approx.f32` | `MUFU.TANH` |
//! | `ex2`, `tanh` `.approx` of `f16`/`bf16` | `MUFU.EX2.F16`/`.TANH.BF16`...; pairs: one per lane (NVIDIA's `R.H1`; ours shifts the lane down), `PRMT 0x5410` |

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The smallest normal f32, 2^-126: below it, MUFU flushes its input.
const MIN_NORMAL: u32 = 0x0080_0000;

/// Lowers `ex2`, `lg2`, `sin`, `cos`, `sqrt`, `rcp`, `rsqrt` with `.approx`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let name = inst.opcode.name.as_str();
    let ty = ty(inst)?;
    let ftz = inst.has("ftz");
    if !inst.has("approx") || inst.modifiers.len() != 2 + usize::from(ftz) {
        return Err(unsupported(inst));
    }
    if ty == ScalarType::F64 {
        return double_high(cx, inst, name, ftz);
    }
    if matches!(ty, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
        return half(cx, inst, name, ty);
    }
    if ty != ScalarType::F32 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let span = inst.span;
    let function = match name {
        "ex2" => "EX2",
        "lg2" => "LG2",
        "sqrt" => "SQRT",
        "rcp" => "RCP",
        "rsqrt" => "RSQ",
        // NVIDIA's code for `tanh.approx.f32` is the bare MUFU on sm_80
        // and sm_90, with or without `.ftz`: no subnormal fix-up.
        "tanh" => return cx.emit(Opcode::MUFU, &["TANH"], vec![d.into()], vec![a], span),
        "sin" | "cos" => {
            let turns = cx.temp(RegFile::R, 1);
            let inv_two_pi = Operand::from(ori_ir::OperandKind::Imm(ori_ir::Imm::F32(0x3e22_f983)));
            cx.emit(Opcode::FMUL, &["RZ"], vec![turns.into()], vec![a, inv_two_pi], span)?;
            let f = if name == "sin" { "SIN" } else { "COS" };
            return cx.emit(Opcode::MUFU, &[f], vec![d.into()], vec![turns.into()], span);
        }
        _ => return Err(unsupported(inst)),
    };
    if ftz {
        return cx.emit(Opcode::MUFU, &[function], vec![d.into()], vec![a], span);
    }
    // The fix-up below has a guard of its own: under the PTX guard the
    // sequence computes into a temporary that a guarded MOV copies.
    let guard = cx.guard.take();
    let target = d;
    let d = if guard.is_some() { cx.temp(RegFile::R, 1) } else { d };
    let result = fixed_up(cx, inst, name, function, d, a);
    cx.guard = guard;
    result?;
    if guard.is_some() {
        cx.emit(Opcode::MOV, &[], vec![target.into()], vec![d.into()], span)?;
    }
    Ok(())
}

/// The non-`.ftz` `ex2`/`lg2`/`rsqrt`/`sqrt.approx.f32` into `d`: subnormal
/// inputs or results scaled around the `MUFU` (unguarded).
fn fixed_up(cx: &mut Lowerer<'_>, inst: &Instruction, name: &str, function: &str, d: Reg, a: Operand) -> Lowered {
    let span = inst.span;
    match name {
        "ex2" => {
            // 2^x for x < -126 is subnormal: halve x, square the result.
            let (p, half, input) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::R, 1), cx.temp(RegFile::R, 1));
            let uses = vec![a.clone(), f32_imm((-126.0f32).to_bits()), Operand::reg(Reg::PT)];
            cx.emit(Opcode::FSETP, &["GEU", "AND"], vec![p.into(), Operand::reg(Reg::PT)], uses, span)?;
            cx.emit(Opcode::FMUL, &[], vec![half.into()], vec![a.clone(), f32_imm(0.5f32.to_bits())], span)?;
            let not_p = Operand::reg(p).inverted();
            cx.emit(Opcode::FSEL, &[], vec![input.into()], vec![half.into(), a, not_p.clone()], span)?;
            cx.emit(Opcode::MUFU, &[function], vec![d.into()], vec![input.into()], span)?;
            with_guard(cx, not_p, |cx| cx.emit(Opcode::FMUL, &[], vec![d.into()], vec![d.into(), d.into()], span))
        }
        "lg2" | "rsqrt" | "sqrt" => {
            // A subnormal input is scaled into the normal range first.
            let (p, scaled, input) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::R, 1), cx.temp(RegFile::R, 1));
            let mut abs = a.clone();
            abs.flags.abs = true;
            let uses = vec![abs, f32_imm(MIN_NORMAL), Operand::reg(Reg::PT)];
            cx.emit(Opcode::FSETP, &["GEU", "AND"], vec![p.into(), Operand::reg(Reg::PT)], uses, span)?;
            let two_24 = f32_imm(16_777_216f32.to_bits());
            cx.emit(Opcode::FMUL, &[], vec![scaled.into()], vec![a.clone(), two_24], span)?;
            let not_p = Operand::reg(p).inverted();
            cx.emit(Opcode::FSEL, &[], vec![input.into()], vec![scaled.into(), a, not_p.clone()], span)?;
            cx.emit(Opcode::MUFU, &[function], vec![d.into()], vec![input.into()], span)?;
            with_guard(cx, not_p, |cx| match name {
                "lg2" => {
                    cx.emit(Opcode::FADD, &[], vec![d.into()], vec![d.into(), f32_imm((-24.0f32).to_bits())], span)
                }
                "rsqrt" => cx.emit(Opcode::FMUL, &[], vec![d.into()], vec![d.into(), f32_imm(4096f32.to_bits())], span),
                _ => {
                    cx.emit(Opcode::FMUL, &[], vec![d.into()], vec![d.into(), f32_imm(2f32.powi(-12).to_bits())], span)
                }
            })
        }
        "rcp" => {
            // NVIDIA's: a subnormal input scaled up by 2^24, one above
            // 2^126 down by 1/4, and the reciprocal scaled the same way.
            let (small, large) = (cx.temp(RegFile::P, 1), cx.temp(RegFile::P, 1));
            let mut abs = a.clone();
            abs.flags.abs = true;
            let pt = || Operand::reg(Reg::PT);
            let uses = vec![abs.clone(), f32_imm(MIN_NORMAL), pt()];
            cx.emit(Opcode::FSETP, &["GEU", "AND"], vec![small.into(), pt()], uses, span)?;
            let uses = vec![abs, f32_imm(2f32.powi(126).to_bits()), pt()];
            cx.emit(Opcode::FSETP, &["GT", "AND"], vec![large.into(), pt()], uses, span)?;
            let two_24 = cx.temp(RegFile::R, 1);
            cx.imad_mov(two_24.into(), Operand::int(0x4b80_0000), span)?;
            let up = cx.temp(RegFile::R, 1);
            let uses = vec![two_24.into(), f32_imm(1f32.to_bits()), Operand::reg(small).inverted()];
            cx.emit(Opcode::FSEL, &[], vec![up.into()], uses, span)?;
            let scale = cx.temp(RegFile::R, 1);
            let uses = vec![up.into(), f32_imm(0.25f32.to_bits()), Operand::reg(large).inverted()];
            cx.emit(Opcode::FSEL, &[], vec![scale.into()], uses, span)?;
            let input = cx.temp(RegFile::R, 1);
            cx.emit(Opcode::FMUL, &[], vec![input.into()], vec![a, scale.into()], span)?;
            let r = cx.temp(RegFile::R, 1);
            cx.emit(Opcode::MUFU, &[function], vec![r.into()], vec![input.into()], span)?;
            cx.emit(Opcode::FMUL, &[], vec![d.into()], vec![scale.into(), r.into()], span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// `ex2`/`tanh` `.approx` of binary16 and bfloat16 (ptx-syntax enforces
/// `.ftz` on bfloat16 `ex2` and the sm_90 gates of bfloat16), NVIDIA's
/// code on sm_80 and sm_90: `MUFU.<fn>.F16`/`.BF16` of the low lane (a
/// scalar's register), and for a pair a second one of the high lane
/// joined with `PRMT d, lo, 0x5410, hi`.
fn half(cx: &mut Lowerer<'_>, inst: &Instruction, name: &str, ty: ScalarType) -> Lowered {
    let function = match name {
        "ex2" => "EX2",
        "tanh" => "TANH",
        _ => return Err(unsupported(inst)),
    };
    let format = if matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2) { "BF16" } else { "F16" };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let span = inst.span;
    if matches!(ty, ScalarType::F16 | ScalarType::Bf16) {
        return cx.emit(Opcode::MUFU, &[function, format], vec![d.into()], vec![a], span);
    }
    // NVIDIA reads the high lane as `R.H1`; the sm_90 encoder has no such
    // MUFU form yet, so the lane is shifted down first (the same value).
    let (lo, high, hi) = (cx.temp(RegFile::R, 1), cx.temp(RegFile::R, 1), cx.temp(RegFile::R, 1));
    cx.emit(Opcode::MUFU, &[function, format], vec![lo.into()], vec![a.clone()], span)?;
    cx.emit(
        Opcode::SHF,
        &["R", "U32", "HI"],
        vec![high.into()],
        vec![Operand::reg(Reg::RZ), Operand::int(16), a],
        span,
    )?;
    cx.emit(Opcode::MUFU, &[function, format], vec![hi.into()], vec![high.into()], span)?;
    cx.emit(Opcode::PRMT, &[], vec![d.into()], vec![lo.into(), Operand::int(0x5410), hi.into()], span)
}

/// `div.approx.ftz.f32 d, a, b`: `a` times the approximate reciprocal of `b`.
pub(super) fn div_ftz(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? != ScalarType::F32 || inst.modifiers.len() != 3 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F32)?;
    let b = src(cx, inst, 2, ScalarType::F32)?;
    if let ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)) = b.kind {
        // NVIDIA folds the reciprocal of a constant divisor (sm_80, sm_90):
        // `FMUL.FTZ d, a, 1/b`, rounded to nearest and flushed to zero as
        // MUFU would (1/3 -> 0.33333334, 1/2^127 -> 0, 1/subnormal -> inf).
        // A NaN stays a NaN (NVIDIA's `MUFU.RCP R, +QNAN` first).
        let r = reciprocal_ftz(bits);
        return cx.emit(Opcode::FMUL, &["FTZ"], vec![d.into()], vec![a, f32_imm(r)], inst.span);
    }
    if b.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let r = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::MUFU, &["RCP"], vec![r.into()], vec![b], inst.span)?;
    cx.emit(Opcode::FMUL, &["FTZ"], vec![d.into()], vec![r.into(), a], inst.span)
}

/// `rcp`/`rsqrt.approx.ftz.f64`: the high-word MUFU, a zero low word.
fn double_high(cx: &mut Lowerer<'_>, inst: &Instruction, name: &str, ftz: bool) -> Lowered {
    let function = match (name, ftz) {
        ("rcp", true) => "RCP64H",
        ("rsqrt", true) => "RSQ64H",
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::F64)?.as_reg().filter(|r| r.width == 2).ok_or_else(|| unsupported(inst))?;
    let same = a.file == d.file && a.num == d.num;
    let hi = Operand::reg(d.part(1, 1));
    cx.emit(Opcode::MUFU, &[function], vec![if same { hi } else { hi.undef() }], vec![a.part(1, 1).into()], inst.span)?;
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(0, 1))], vec![Operand::reg(Reg::RZ)], inst.span)
}

/// `1/x` of binary32 bits with subnormal inputs and results flushed to
/// (signed) zero, NaNs as the canonical NaN: the constant NVIDIA puts in
/// place of `MUFU.RCP` of an immediate.
fn reciprocal_ftz(bits: u32) -> u32 {
    let flush = |b: u32| if b & 0x7f80_0000 == 0 { b & 0x8000_0000 } else { b };
    let x = f32::from_bits(flush(bits));
    if x.is_nan() {
        return 0x7fff_ffff;
    }
    flush((1.0 / x).to_bits())
}

fn f32_imm(bits: u32) -> Operand {
    ori_ir::OperandKind::Imm(ori_ir::Imm::F32(bits)).into()
}

/// Emits what `f` emits under `guard` (only for unguarded PTX
/// instructions: the two guards are not combined).
fn with_guard(cx: &mut Lowerer<'_>, guard: Operand, f: impl FnOnce(&mut Lowerer<'_>) -> Lowered) -> Lowered {
    let Some(pred) = guard.as_reg() else { return f(cx) };
    let saved = cx.guard.replace(ori_ir::Guard { pred, negated: guard.flags.not });
    let result = f(cx);
    cx.guard = saved;
    result
}
