//! f32 arithmetic: `FADD`, `FMUL`, `FFMA`, `FMNMX`, and negation and
//! absolute value as an add of `-0` (exact, and how NVIDIA spells them).

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{Instruction, ModifierKind, Rounding, ScalarType};

use super::{dst, param_operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers an f32 instruction.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if ty(inst)? != ScalarType::F32 {
        return Err(unsupported(inst));
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
            let mut uses = commutative(a, src(cx, inst, 2, ScalarType::F32)?);
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
        // Flipping the sign bit is exactly PTX's negation (zeros included).
        "neg" if a.as_reg().is_some() && mods.is_empty() => {
            let sign = Operand::int(0x8000_0000);
            let uses = vec![a, sign, Operand::reg(Reg::RZ), Operand::int(0x3c), Operand::reg(Reg::PT).inverted()];
            return cx.emit(Opcode::LOP3, &["LUT"], vec![d.into()], uses, inst.span);
        }
        "abs" if a.as_reg().is_some() => {
            let mut a = a;
            a.flags.abs = true;
            (Opcode::FADD, vec![a, neg_zero])
        }
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, &mods, vec![d.into()], uses, inst.span)
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
