//! Loads and stores: `ld.param` from constant bank 0, `ld`/`st.global`
//! through the global memory descriptor, `ld`/`st.shared` as `LDS`/`STS`.

use ori_ir::{Address, Opcode, Operand, OperandKind};
use ptx_syntax::ast::{BinaryOp, Expr, ExprKind, Ident, Instruction, ModifierKind, ScalarType, StateSpace, UnaryOp};

use super::{dst, operand, read_reg, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;
use crate::values::ParamValue;

/// `ld.SPACE.T d, [a]`.
pub(super) fn load(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if inst.types().count() != 1 || inst.modifiers.iter().any(|m| matches!(m.kind, ModifierKind::Vector(_))) {
        return Err(unsupported(inst));
    }
    let (base, offset) = address(operand(inst, 1)?).ok_or_else(|| unsupported(inst))?;
    match inst.space() {
        Some(StateSpace::Param) => {
            let slot = cx.params.get(base.name.as_str()).ok_or_else(|| unsupported(inst))?;
            let at = i64::from(cx.sm.target().param_base) + i64::from(slot.offset) + offset;
            let at = i32::try_from(at).map_err(|_| unsupported(inst))?;
            let ExprKind::Name(dest, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
            let words = match ty.bits() {
                32 => 1,
                64 => 2,
                _ => return Err(unsupported(inst)),
            };
            let name = dest.name.as_str();
            if cx.single_def(name) {
                cx.param_values.insert(name.to_string(), ParamValue { offset: at, words });
            }
            let d = dst(cx, inst, 0)?;
            let source = vec![Operand::cbank(0, at)];
            match (cx.sm.version >= 90, words) {
                (true, 1) => cx.emit(Opcode::LDC, &[], vec![d.into()], source, inst.span),
                (true, _) => cx.emit(Opcode::LDC, &["64"], vec![d.into()], source, inst.span),
                // sm_80 code reads parameters as operands (`MOV`, or the
                // accumulator of `IMAD.WIDE`): a 64-bit one stays in the bank.
                (false, 1) => cx.emit(Opcode::MOV, &[], vec![d.into()], source, inst.span),
                (false, _) if cx.single_def(name) => Ok(()),
                (false, _) => Err(unsupported(inst)),
            }
        }
        Some(StateSpace::Global) => {
            let words: Vec<&str> =
                inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
            let constant = match words.as_slice() {
                [] => false,
                ["nc"] => true,
                _ => return Err(unsupported(inst)),
            };
            let addr = global_address(cx, inst, 1)?;
            let d = dst(cx, inst, 0)?;
            let mut mods = vec!["E"];
            mods.extend(width(ty).ok_or_else(|| unsupported(inst))?);
            if constant {
                mods.push("CONSTANT");
            }
            cx.emit(Opcode::LDG, &mods, vec![d.into()], vec![addr], inst.span)
        }
        Some(StateSpace::Shared) if plain(inst) => {
            let addr = shared_base(cx, inst, base, offset)?;
            let d = dst(cx, inst, 0)?;
            let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
            cx.emit(Opcode::LDS, &mods, vec![d.into()], vec![addr], inst.span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// Operand `i`, `[r]` or `[r+off]` with a 64-bit register, as a global
/// memory address through the descriptor.
pub(super) fn global_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    if cx.regs.ty(base.name.as_str()).is_none_or(|t| t.bits() != 64) {
        return Err(unsupported(inst));
    }
    let base = read_reg(cx, base.name.as_str(), base.span)?;
    cx.global_address(base, offset, inst.span)
}

/// Operand `i` as a shared-memory address.
pub(super) fn shared_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    shared_base(cx, inst, base, offset)
}

/// `[r+off]` or `[var+off]` in shared memory as an `LDS`/`STS` address; a
/// variable's address is computed into a register first.
fn shared_base(cx: &mut Lowerer<'_>, inst: &Instruction, base: &Ident, offset: i64) -> Lowered<Operand> {
    let base = if cx.regs.ty(base.name.as_str()).is_some() {
        cx.reg(base.name.as_str(), base.span)?
    } else {
        let t = cx.temp(ori_ir::RegFile::R, 1);
        if !cx.shared_address(base.name.as_str(), 0, t, inst.span)? {
            return Err(unsupported(inst));
        }
        t
    };
    if base.width != 1 {
        return Err(unsupported(inst));
    }
    Ok(OperandKind::Mem(Address { base: Some(base), offset, ..Address::default() }).into())
}

/// Only a state space and a type: no cache or scope qualifiers.
fn plain(inst: &Instruction) -> bool {
    inst.modifiers.iter().all(|m| matches!(m.kind, ModifierKind::Type(_) | ModifierKind::Space(_)))
}

/// `st.{global,shared}.T [a], v`.
pub(super) fn store(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if !plain(inst) {
        return Err(unsupported(inst));
    }
    let (base, offset) = address(operand(inst, 0)?).ok_or_else(|| unsupported(inst))?;
    let value = src(cx, inst, 1, ty)?;
    if value.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    if inst.space() == Some(StateSpace::Shared) {
        let addr = shared_base(cx, inst, base, offset)?;
        let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
        return cx.emit(Opcode::STS, &mods, vec![], vec![addr, value], inst.span);
    }
    if inst.space() != Some(StateSpace::Global) {
        return Err(unsupported(inst));
    }
    let addr = global_address(cx, inst, 0)?;
    let mut mods = vec!["E"];
    mods.extend(width(ty).ok_or_else(|| unsupported(inst))?);
    cx.emit(Opcode::STG, &mods, vec![], vec![addr, value], inst.span)
}

/// The size modifier of `LDG`/`STG` for `ty` (none for 32 bits).
fn width(ty: ScalarType) -> Option<Option<&'static str>> {
    use ScalarType::*;
    Some(match ty {
        U8 => Some("U8"),
        S8 => Some("S8"),
        U16 => Some("U16"),
        S16 => Some("S16"),
        B8 => Some("U8"),
        B16 => Some("U16"),
        _ if ty.bits() == 32 => None,
        _ if ty.bits() == 64 => Some("64"),
        _ => return None,
    })
}

/// `[name]`, `[name+imm]` or `[name-imm]`: the name and the byte offset.
fn address(e: &Expr) -> Option<(&Ident, i64)> {
    let ExprKind::Address(items) = &e.kind else { return None };
    let [item] = items.as_slice() else { return None };
    match &item.kind {
        ExprKind::Name(n, None) => Some((n, 0)),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ExprKind::Name(n, None) = &a.kind else { return None };
            let v = match &b.kind {
                ExprKind::Int { value, .. } => *value as i64,
                // `[%r+-4]`
                ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
                    ExprKind::Int { value, .. } => (value as i64).wrapping_neg(),
                    _ => return None,
                },
                _ => return None,
            };
            Some((n, if *op == BinaryOp::Add { v } else { -v }))
        }
        _ => None,
    }
}
