//! Atomics and reductions on global memory, relaxed at GPU scope (PTX's
//! default): `REDG` (sm_90) / `RED` (sm_80) when the old value is never
//! read, `ATOMG` when it is; shared-memory atomics as `ATOMS` (the
//! increment as `ATOMS.POPC.INC`, float addition as a compare-and-swap
//! loop).

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, ScalarType, StateSpace};

use super::mem::{global_address, shared_address};
use super::{operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `atom.global.OP.T d, [a], b[, c]` and `red.global.OP.T [a], b`.
///
/// NVIDIA's forms: a reduction, or an atomic whose result nothing reads,
/// is `REDG.E.OP[.T].STRONG.GPU desc[UR][a], b` (sm_80: `RED`), but
/// `exch`/`cas`, which have no reduction, write `RZ`; an atomic whose
/// result is read is `ATOMG.E.OP[.T].STRONG.GPU PT, d, desc[UR][a], b`;
/// compare-and-swap is `ATOMG.E.CAS[.64].STRONG.GPU PT, d, [a], b, c`
/// (an address without the descriptor). Sources held as constants are
/// moved to registers first (`RZ` for 0), as NVIDIA does.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let red = inst.opcode.name.as_str() == "red";
    let words: Vec<&str> = inst
        .modifiers
        .iter()
        .filter(|m| m.kind == ModifierKind::Word && !matches!(m.name.as_str(), "relaxed" | "gpu"))
        .map(|m| m.name.as_str())
        .collect();
    let types: Vec<ScalarType> = inst.types().collect();
    let ([op], [ty]) = (words.as_slice(), types.as_slice()) else { return Err(unsupported(inst)) };
    if inst.space() == Some(StateSpace::Shared) {
        return shared(cx, inst, red, op, *ty);
    }
    if inst.space() != Some(StateSpace::Global) {
        return Err(unsupported(inst));
    }
    let mods = modifiers(op, *ty).ok_or_else(|| unsupported(inst))?;
    let first = usize::from(!red);
    let result = if red {
        None
    } else {
        let ExprKind::Name(d, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
        (!cx.unread(d.name.as_str())).then_some(d)
    };
    let cas = *op == "cas";
    let b = value(cx, inst, first + 1, *ty)?;
    let swap = if cas { Some(value(cx, inst, first + 2, *ty)?) } else { None };
    let mut addr = global_address(cx, inst, first)?;
    if cas {
        // The compare-and-swap form takes the 64-bit address alone.
        let OperandKind::Mem(a) = &mut addr.kind else { return Err(unsupported(inst)) };
        *a = Address { desc: None, ..*a };
    }
    let mut uses = vec![addr, b];
    uses.extend(swap);
    let reducible = !matches!(*op, "exch" | "cas");
    match result {
        None if reducible => {
            let op = if cx.sm.version >= 90 { Opcode::REDG } else { Opcode::RED };
            cx.emit(op, &mods, vec![], uses, inst.span)
        }
        _ => {
            if *ty == ScalarType::F32 && cx.sm.version >= 90 {
                // sm_90 has another opcode for float atomics with a result,
                // whose forms the encoder has not seen.
                return Err(unsupported(inst));
            }
            let d = match result {
                Some(d) => cx.reg(d.name.as_str(), d.span)?,
                None if ty.bits() == 32 => Reg::RZ,
                None => cx.temp(RegFile::R, 2),
            };
            cx.emit(Opcode::ATOMG, &mods, vec![Operand::reg(Reg::PT), d.into()], uses, inst.span)
        }
    }
}

/// The modifiers of `OP.T` on `RED`/`REDG`/`ATOMG`, `None` for what is not
/// lowered: 64-bit `min`/`max` (signed 64-bit forms unprobed), `inc`/`dec`
/// beyond `u32`, float operations but `add.f32`.
fn modifiers(op: &str, ty: ScalarType) -> Option<Vec<&'static str>> {
    use ScalarType::*;
    let (word, ty_word): (&'static str, &'static str) = match (op, ty) {
        ("add", U32 | S32) => ("ADD", ""),
        ("add", U64 | S64) => ("ADD", "64"),
        ("add", F32) => ("ADD", "F32"),
        ("min", S32) => ("MIN", "S32"),
        ("min", U32) => ("MIN", ""),
        ("max", S32) => ("MAX", "S32"),
        ("max", U32) => ("MAX", ""),
        ("inc", U32) => ("INC", ""),
        ("dec", U32) => ("DEC", ""),
        ("and", B32) => ("AND", ""),
        ("or", B32) => ("OR", ""),
        ("xor", B32) => ("XOR", ""),
        ("and", B64) => ("AND", "64"),
        ("or", B64) => ("OR", "64"),
        ("xor", B64) => ("XOR", "64"),
        ("exch", B32 | U32 | S32 | F32) => ("EXCH", ""),
        ("exch", B64 | U64 | S64) => ("EXCH", "64"),
        ("cas", B32 | U32 | S32) => ("CAS", ""),
        ("cas", B64 | U64 | S64) => ("CAS", "64"),
        _ => return None,
    };
    Some(match ty_word {
        "F32" => vec!["E", word, "F32", "FTZ", "RN", "STRONG", "GPU"],
        "" => vec!["E", word, "STRONG", "GPU"],
        t => vec!["E", word, t, "STRONG", "GPU"],
    })
}

/// Source `i` of an atomic of type `ty` in a register: a constant goes to
/// a fresh register (`IMAD.MOV.U32 t, RZ, RZ, c`; 0 is `RZ`).
fn value(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize, ty: ScalarType) -> Lowered<Operand> {
    let v = src(cx, inst, i, ty)?;
    if v.as_reg().is_some() {
        return Ok(v);
    }
    if ty.bits() != 32 {
        return Err(unsupported(inst));
    }
    let bits = match v.kind {
        OperandKind::Imm(ori_ir::Imm::Int(0)) => return Ok(Operand::reg(Reg::RZ)),
        OperandKind::Imm(ori_ir::Imm::Int(v)) => i64::from(v as u32),
        OperandKind::Imm(ori_ir::Imm::F32(bits)) => i64::from(bits),
        _ => return Err(unsupported(inst)),
    };
    let t = cx.temp(RegFile::R, 1);
    cx.imad_mov(t.into(), Operand::int(bits), inst.span)?;
    Ok(t.into())
}

/// `atom.shared.OP.T d, [a], b[, c]` and `red.shared.OP.T [a], b`, 32 bits:
/// NVIDIA's `ATOMS.OP[.S32] d, [a], b` (`RZ` for an unread result),
/// `ATOMS.CAS d, [a], b, c`, the increment by 1 as `ATOMS.POPC.INC.32`,
/// and `add.f32` as a compare-and-swap loop (below).
fn shared(cx: &mut Lowerer<'_>, inst: &Instruction, red: bool, op: &str, ty: ScalarType) -> Lowered {
    use ScalarType::*;
    let first = usize::from(!red);
    let result = if red {
        None
    } else {
        let ExprKind::Name(d, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
        (!cx.unread(d.name.as_str())).then_some(d)
    };
    let one = matches!(operand(inst, first + 1)?.kind, ExprKind::Int { value: 1, .. });
    if op == "add" && matches!(ty, U32 | S32) && one && result.is_none() {
        return shared_increment(cx, inst, first);
    }
    if op == "add" && ty == F32 {
        return shared_float_add(cx, inst, result.map(|d| d.name.as_str()));
    }
    let mods: &[&str] = match (op, ty) {
        ("add", U32 | S32) => &["ADD"],
        ("min", S32) => &["MIN", "S32"],
        ("min", U32) => &["MIN"],
        ("max", S32) => &["MAX", "S32"],
        ("max", U32) => &["MAX"],
        ("inc", U32) => &["INC"],
        ("dec", U32) => &["DEC"],
        ("and", B32) => &["AND"],
        ("or", B32) => &["OR"],
        ("xor", B32) => &["XOR"],
        ("exch", B32 | U32 | S32 | F32) => &["EXCH"],
        ("cas", B32 | U32 | S32) => &["CAS"],
        _ => return Err(unsupported(inst)),
    };
    let b = value(cx, inst, first + 1, ty)?;
    let mut uses = vec![shared_address(cx, inst, first)?, b];
    if op == "cas" {
        uses.push(value(cx, inst, first + 2, ty)?);
    }
    let d = match result {
        Some(d) => cx.reg(d.name.as_str(), d.span)?,
        None => Reg::RZ,
    };
    cx.emit(Opcode::ATOMS, mods, vec![d.into()], uses, inst.span)
}

/// `atom.shared.add.u32 d, [a], 1` with `d` never read: NVIDIA's
/// `ATOMS.POPC.INC.32 RZ, [a+URZ]` (the hardware adds, per address, the
/// number of the warp's threads that increment it).
fn shared_increment(cx: &mut Lowerer<'_>, inst: &Instruction, first: usize) -> Lowered {
    let OperandKind::Mem(mut addr) = shared_address(cx, inst, first)?.kind else { return Err(unsupported(inst)) };
    addr.ubase = Some(Reg::URZ);
    cx.emit(Opcode::ATOMS, &["POPC", "INC", "32"], vec![Reg::RZ.into()], vec![OperandKind::Mem(addr).into()], inst.span)
}

/// `atom.shared.add.f32 d, [a], b`: NVIDIA's loop (no float add on shared
/// memory), the old value read, the sum stored only if memory still holds
/// it:
///
/// ```text
/// loop: old = LDS [a]
///       new = FADD b, old
///       ok = ATOMS.CAST.SPIN [a], old, new    (1 when it stored)
///       p = ISETP.EQ.U32.AND ok, 0x1
///       @!p BRA loop
/// ```
///
/// `d` is the last `old`. A guarded atomic is not lowered (the loop
/// would need a branch around it).
fn shared_float_add(cx: &mut Lowerer<'_>, inst: &Instruction, result: Option<&str>) -> Lowered {
    if cx.guard.is_some() {
        return Err(unsupported(inst));
    }
    let span = inst.span;
    let b = value(cx, inst, 2, ScalarType::F32)?;
    let addr = shared_address(cx, inst, 1)?;
    let body = cx.func.add_block();
    cx.func.layout.pop();
    cx.place_block(body);
    let old = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::LDS, &[], vec![old.into()], vec![addr.clone()], span)?;
    let new = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::FADD, &[], vec![new.into()], vec![b, old.into()], span)?;
    let ok = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::ATOMS, &["CAST", "SPIN"], vec![ok.into()], vec![addr, old.into(), new.into()], span)?;
    let p = cx.temp(RegFile::P, 1);
    let pt = Operand::reg(Reg::PT);
    cx.emit(
        Opcode::ISETP,
        &["EQ", "U32", "AND"],
        vec![p.into(), pt.clone()],
        vec![ok.into(), Operand::int(1), pt],
        span,
    )?;
    cx.guard = Some(ori_ir::Guard { pred: p, negated: true });
    let branch = cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(body)], span);
    cx.guard = None;
    branch?;
    let after = cx.func.add_block();
    cx.func.layout.pop();
    cx.place_block(after);
    match result {
        Some(d) => {
            let d = cx.reg(d, span)?;
            cx.emit(Opcode::MOV, &[], vec![d.into()], vec![old.into()], span)
        }
        None => Ok(()),
    }
}
