//! Carry chains: `add.cc`, `addc[.cc]`, `sub.cc`, `subc[.cc]`,
//! `mad{.lo,.hi}.cc`, `madc{.lo,.hi}[.cc]` on 32-bit integers (NVVM's
//! 64x64-bit products and 128-bit sums in math_double's argument
//! reduction).
//!
//! PTX's carry flag becomes a predicate: `IADD3 d, P, a, b, RZ` writes the
//! carry out, `IADD3.X d, P', a, b, RZ, P, !PT` adds it in (NVIDIA's forms,
//! probed with the chains of math_double). A subtraction adds the
//! complement (`-b`, or `~b` with the carry in), so its predicate holds
//! "no borrow", the complement of PTX's borrow flag; products are
//! `IMAD`/`IMAD.HI.U32` into a fresh register, then the add.

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::{Carry, Lowerer};

/// Lowers one instruction of a carry chain.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if !matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::B32) {
        return Err(unsupported(inst));
    }
    let op = inst.opcode.name.as_str();
    let carry_in = matches!(op, "addc" | "subc" | "madc");
    let carry_out = inst.has("cc");
    let subtract = matches!(op, "sub" | "subc");
    let span = inst.span;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    // The two addends: a product first for mad/madc.
    let (x, y) = if matches!(op, "mad" | "madc") {
        let c = src(cx, inst, 3, ty)?;
        let mods: &[&str] = if inst.has("hi") {
            // The high word of the signed or unsigned product; the sum
            // and its carry are the same either way.
            if ty == ScalarType::S32 { &["HI"] } else { &["HI", "U32"] }
        } else if inst.has("lo") {
            &[]
        } else {
            return Err(unsupported(inst));
        };
        let (a, b) = if a.as_reg().is_none() { (b, a) } else { (a, b) };
        let a = in_reg(cx, a, span)?;
        let p = cx.temp(RegFile::R, 1);
        cx.emit(Opcode::IMAD, mods, vec![p.into()], vec![a, b, Operand::reg(Reg::RZ)], span)?;
        (Operand::reg(p), c)
    } else {
        (a, b)
    };
    let x = in_reg(cx, x, span)?;
    // A register subtrahend is negated (`-b`) or complemented with the
    // carry in (`~b`); a constant one goes to a register first, so that a
    // zero subtrahend still reports no borrow.
    let y = if subtract || (carry_in && !is_zero(&y)) { in_reg(cx, y, span)? } else { y };
    let y = match (subtract, carry_in) {
        (true, false) => y.negated(),
        (true, true) => Operand { flags: ori_ir::OperandFlags { bitnot: true, ..y.flags }, ..y },
        _ => y,
    };
    let incoming = if carry_in {
        let c = cx.carry.ok_or_else(|| unsupported(inst))?;
        // The predicate holds PTX's flag, or its complement after a subtraction.
        let want_no_borrow = subtract;
        Some(if c.no_borrow == want_no_borrow { Operand::reg(c.pred) } else { Operand::reg(c.pred).inverted() })
    } else {
        None
    };
    let out = if carry_out { Some(cx.temp(RegFile::P, 1)) } else { None };
    let mut defs = vec![Operand::reg(d)];
    defs.extend(out.map(Operand::reg));
    let mut uses = vec![x, y, Operand::reg(Reg::RZ)];
    let mods: &[&str] = match incoming {
        Some(c) => {
            uses.push(c);
            uses.push(Operand::reg(Reg::PT).inverted());
            &["X"]
        }
        None => &[],
    };
    cx.emit(Opcode::IADD3, mods, defs, uses, span)?;
    if let Some(pred) = out {
        cx.carry = Some(Carry { pred, no_borrow: subtract });
    }
    Ok(())
}

fn is_zero(x: &Operand) -> bool {
    matches!(x.kind, ori_ir::OperandKind::Imm(ori_ir::Imm::Int(0)))
}

/// `x` in a register: 0 is `RZ`, another constant is moved by `IMAD.MOV.U32`.
fn in_reg(cx: &mut Lowerer<'_>, x: Operand, span: ptx_syntax::Span) -> Lowered<Operand> {
    if x.as_reg().is_some() {
        return Ok(x);
    }
    if is_zero(&x) {
        return Ok(Operand::reg(Reg::RZ));
    }
    let t = cx.temp(RegFile::R, 1);
    cx.imad_mov(t.into(), x, span)?;
    Ok(t.into())
}
