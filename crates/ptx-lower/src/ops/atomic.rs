//! Atomics and reductions on global and generic memory: `REDG` (sm_90) /
//! `RED` (sm_80) when the old value is never read, `ATOMG` (`ATOM` for a
//! generic address) when it is, with NVIDIA's strength for the scope and
//! fences for the semantics (ops/atomic/order.rs); shared-memory atomics
//! as `ATOMS` (the increment as `ATOMS.POPC.INC`, float and 64-bit
//! operations as compare-and-swap loops), with the same fences.

pub(super) mod order;

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, ScalarType, StateSpace};

use super::mem::{global_address, shared_address};
use super::wide::{Src64, materialize, src64};
use super::{operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `atom[.global].SEM.SCOPE.OP.T d, [a], b[, c]` and `red[.global]...`.
///
/// NVIDIA's forms: a reduction, or an atomic whose result nothing reads,
/// is `REDG.E.OP[.T].STRONG.S desc[UR][a], b` (sm_80: `RED`), but
/// `exch`/`cas`, which have no reduction, write `RZ`; an atomic whose
/// result is read is `ATOMG.E.OP[.T].STRONG.S PT, d, desc[UR][a], b`;
/// compare-and-swap is `ATOMG.E.CAS[.64].STRONG.S PT, d, [a], b, c`
/// (an address without the descriptor). A generic address is `ATOM` in
/// every case (NVIDIA has no generic reduction), for the 32-bit integer
/// operations only: the others become a loop testing the address's state
/// space (`QSPC`), not lowered. `S` is the scope's strength and the
/// semantics add fences around ([`order::Order`]). Sources held as
/// constants are moved to registers first (`RZ` for 0), as NVIDIA does.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let red = inst.opcode.name.as_str() == "red";
    // Vector atomics (`atom.global.v2.f32.add`) are not lowered: without
    // this a `.v2` would be dropped and the access done on one element.
    if inst.modifiers.iter().any(|m| matches!(m.kind, ModifierKind::Vector(_))) {
        return Err(unsupported(inst));
    }
    let order = order::Order::of(cx, inst).ok_or_else(|| unsupported(inst))?;
    let words: Vec<&str> = inst
        .modifiers
        .iter()
        // `.noftz` is required on the half-precision additions, which
        // never flush.
        .filter(|m| m.kind == ModifierKind::Word && !order::is_order_word(m.name.as_str()) && m.name != "noftz")
        .map(|m| m.name.as_str())
        .collect();
    let types: Vec<ScalarType> = inst.types().collect();
    let ([op], [ty]) = (words.as_slice(), types.as_slice()) else { return Err(unsupported(inst)) };
    if inst.space() == Some(StateSpace::Shared) {
        // Shared atomics have no strength: the scope only picks fences.
        order.before(cx, inst.span)?;
        shared(cx, inst, red, op, *ty)?;
        return order.after(cx, StateSpace::Shared, inst.span);
    }
    let generic = match inst.space() {
        Some(StateSpace::Global) => false,
        None if ty.bits() == 32 && !ty.is_float() => true,
        _ => return Err(unsupported(inst)),
    };
    let mods = modifiers(op, *ty, order.strength()).ok_or_else(|| unsupported(inst))?;
    let first = usize::from(!red);
    let result = read_result(cx, inst, red)?;
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
    let reducible = !generic && !matches!(*op, "exch" | "cas");
    order.before(cx, inst.span)?;
    match result {
        None if reducible => {
            let op = cx.target.isa.global_red;
            cx.emit(op, &mods, vec![], uses, inst.span)?;
        }
        _ => {
            let d = match result {
                Some(d) => cx.reg(d.name.as_str(), d.span)?,
                None if ty.bits() == 32 => Reg::RZ,
                None => cx.temp(RegFile::R, 2),
            };
            let op = if generic { Opcode::ATOM } else { Opcode::ATOMG };
            cx.emit(op, &mods, vec![Operand::reg(Reg::PT), d.into()], uses, inst.span)?;
        }
    }
    order.after(cx, StateSpace::Global, inst.span)
}

/// The PTX register an `atom` writes when something reads it (`None`
/// for `red` and for unread results, which SASS writes to `RZ`).
fn read_result<'i>(cx: &Lowerer<'_>, inst: &'i Instruction, red: bool) -> Lowered<Option<&'i ptx_syntax::ast::Ident>> {
    if red {
        return Ok(None);
    }
    let ExprKind::Name(d, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    Ok((!cx.unread(d.name.as_str())).then_some(d))
}

/// The modifiers of `OP.T` on `RED`/`REDG`/`ATOMG`/`ATOM` with the
/// scope's `strength` (`SM`, `GPU`, `SYS`), `None` for what is not
/// lowered (`inc`/`dec` beyond `u32`, float operations but the additions
/// of `f32`, `f64`, `f16x2` and `bf16x2`; scalar `f16`/`bf16` additions are
/// compare-and-swap loops in NVIDIA's code).
fn modifiers(op: &str, ty: ScalarType, strength: &'static str) -> Option<Vec<&'static str>> {
    use ScalarType::*;
    let (word, ty_words): (&'static str, &'static [&'static str]) = match (op, ty) {
        ("add", U32) => ("ADD", &[]),
        ("add", S32) => ("ADD", &["S32"]),
        ("add", U64 | S64) => ("ADD", &["64"]),
        ("add", F32) => ("ADD", &["F32", "FTZ", "RN"]),
        ("add", F64) => ("ADD", &["F64", "RN"]),
        ("add", F16x2) => ("ADD", &["F16x2", "RN"]),
        ("add", Bf16x2) => ("ADD", &["BF16x2", "RN"]),
        ("min", S32) => ("MIN", &["S32"]),
        ("min", U32) => ("MIN", &[]),
        ("min", S64) => ("MIN", &["S64"]),
        ("min", U64) => ("MIN", &["64"]),
        ("max", S32) => ("MAX", &["S32"]),
        ("max", U32) => ("MAX", &[]),
        ("max", S64) => ("MAX", &["S64"]),
        ("max", U64) => ("MAX", &["64"]),
        ("inc", U32) => ("INC", &[]),
        ("dec", U32) => ("DEC", &[]),
        ("and", B32) => ("AND", &[]),
        ("or", B32) => ("OR", &[]),
        ("xor", B32) => ("XOR", &[]),
        ("and", B64) => ("AND", &["64"]),
        ("or", B64) => ("OR", &["64"]),
        ("xor", B64) => ("XOR", &["64"]),
        ("exch", B32 | U32 | S32 | F32) => ("EXCH", &[]),
        ("exch", B64 | U64 | S64) => ("EXCH", &["64"]),
        ("cas", B32 | U32 | S32) => ("CAS", &[]),
        ("cas", B64 | U64 | S64) => ("CAS", &["64"]),
        _ => return None,
    };
    let mut mods = vec!["E", word];
    mods.extend_from_slice(ty_words);
    mods.extend(["STRONG", strength]);
    Some(mods)
}

/// Source `i` of an atomic of type `ty` in a register: a constant goes to
/// a fresh register (`IMAD.MOV.U32 t, RZ, RZ, c`; 0 is `RZ`; a 64-bit one
/// to a pair, a move per word).
fn value(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize, ty: ScalarType) -> Lowered<Operand> {
    if ty.bits() == 64 {
        // Integer and binary64 constants alike, as their bits.
        return Ok(match src64(cx, inst, i)? {
            Src64::Reg(r) => r.into(),
            Src64::Imm(v) => materialize(cx, v, inst.span)?.into(),
        });
    }
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

/// `atom.shared.OP.T d, [a], b[, c]` and `red.shared.OP.T [a], b`:
/// NVIDIA's `ATOMS.OP[.S32] d, [a], b` (`RZ` for an unread result),
/// `ATOMS.CAS d, [a], b, c`, `ATOMS.EXCH.64`/`ATOMS.CAS.64` for 64-bit
/// exchanges, the increment by 1 as `ATOMS.POPC.INC.32`, and float
/// additions and the other 64-bit operations as a compare-and-swap loop
/// (below).
fn shared(cx: &mut Lowerer<'_>, inst: &Instruction, red: bool, op: &str, ty: ScalarType) -> Lowered {
    use ScalarType::*;
    let first = usize::from(!red);
    let result = read_result(cx, inst, red)?;
    let one = matches!(operand(inst, first + 1)?.kind, ExprKind::Int { value: 1, .. });
    if cx.target.isa.shared_popc_inc && op == "add" && matches!(ty, U32 | S32) && one && result.is_none() {
        return shared_increment(cx, inst, first);
    }
    let looped =
        matches!((op, ty), ("add", F32 | F64 | U64) | ("and" | "or" | "xor", B64) | ("min" | "max", U64 | S64));
    if looped {
        return shared_cas_loop(cx, inst, first, result.map(|d| d.name.as_str()), op, ty);
    }
    let mods: &[&str] = match (op, ty) {
        ("add", U32) => &["ADD"],
        ("add", S32) => &["ADD", "S32"],
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
        ("exch", B64 | U64 | S64) => &["EXCH", "64"],
        ("cas", B64 | U64 | S64) => &["CAS", "64"],
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

/// What a compare-and-swap loop stores (shared-memory atomics the
/// hardware has no operation for).
enum Addend {
    /// `add.f32`: `FADD new, b, old`.
    F32(Operand),
    /// `add.f64`: `DADD new, b, old`.
    F64(Operand),
    /// `add.u64`: `IADD3 new.lo, P, b.lo, old.lo, RZ` + `IADD3.X new.hi,
    /// b.hi, old.hi, RZ, P, !PT` (a constant second).
    U64(Src64),
    /// `and`/`or`/`xor.b64`: `LOP3.LUT new.w, old.w, b.w, RZ, lut, !PT`
    /// per word.
    Logic64(Src64, i64),
    /// `min`/`max.{u64,s64}` (`b` in a register): no store when `b` is
    /// not below (min) or above (max) `old` (`ISETP.GE`/`LE.U32` of the
    /// low words, `.EX` of the high ones, `@p BRA` out of the loop), else
    /// `new = b`.
    Bound64 { b: Reg, max: bool, signed: bool },
}

/// `atom.shared.add.{f32,f64} d, [a], b`, `atom.shared.add.u64` and the
/// other 64-bit operations but exchanges ([`Addend`]): NVIDIA's loop (no float
/// or 64-bit arithmetic on shared memory), the old value read, the result
/// stored only if memory still holds it:
///
/// ```text
/// loop: old = LDS[.64] [a]
///       new = old + b                    (FADD / DADD / IADD3 + IADD3.X)
///       ok = ATOMS.CAST.SPIN[.64] [a], old, new (1 when it stored)
///       p = ISETP.EQ.U32.AND ok, 0x1            (64 bits: and ok.hi == 0,
///                                                ISETP.EQ.U32.AND.EX)
///                                   (Blackwell: p = ATOMS.CAST.SPIN ...)
///       @!p BRA loop
/// ```
///
/// `d` is the last `old`. A guarded atomic branches around the loop on
/// the negated guard, as NVIDIA's code does (`@P0 BRA` past it, `P0` the
/// guard's complement).
fn shared_cas_loop(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    first: usize,
    result: Option<&str>,
    op: &str,
    ty: ScalarType,
) -> Lowered {
    let span = inst.span;
    let guard = cx.guard.take();
    let skip = match guard {
        Some(g) => {
            let skip = cx.func.add_block();
            cx.func.layout.pop();
            cx.guard = Some(ori_ir::Guard { pred: g.pred, negated: !g.negated });
            let branch = cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(skip)], span);
            cx.guard = None;
            branch?;
            let body = cx.func.add_block();
            cx.func.layout.pop();
            cx.place_block(body);
            Some(skip)
        }
        None => None,
    };
    shared_cas_loop_body(cx, inst, first, result, op, ty)?;
    if let Some(skip) = skip {
        cx.place_block(skip);
    }
    cx.guard = guard;
    Ok(())
}

/// The loop of [`shared_cas_loop`], unguarded.
fn shared_cas_loop_body(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    first: usize,
    result: Option<&str>,
    op: &str,
    ty: ScalarType,
) -> Lowered {
    let span = inst.span;
    let addr = shared_address(cx, inst, first)?;
    let addend = match op {
        _ if ty == ScalarType::F32 => Addend::F32(value(cx, inst, first + 1, ScalarType::F32)?),
        _ if ty == ScalarType::F64 => Addend::F64(value(cx, inst, first + 1, ScalarType::F64)?),
        "add" => Addend::U64(src64(cx, inst, first + 1)?),
        "min" | "max" => {
            let b = match src64(cx, inst, first + 1)? {
                Src64::Reg(r) => r,
                Src64::Imm(v) => materialize(cx, v, span)?,
            };
            Addend::Bound64 { b, max: op == "max", signed: ty == ScalarType::S64 }
        }
        _ => {
            let lut = match op {
                "and" => 0xc0,
                "or" => 0xfc,
                _ => 0x3c,
            };
            Addend::Logic64(src64(cx, inst, first + 1)?, lut)
        }
    };
    let wide = !matches!(addend, Addend::F32(_));
    let (width, size): (u8, &[&str]) = if wide { (2, &["64"]) } else { (1, &[]) };
    let body = cx.func.add_block();
    cx.func.layout.pop();
    cx.place_block(body);
    let old = cx.temp(RegFile::R, width);
    cx.emit(Opcode::LDS, size, vec![old.into()], vec![addr.clone()], span)?;
    let new = cx.temp(RegFile::R, width);
    // min/max leave the loop without storing.
    let after = cx.func.add_block();
    cx.func.layout.pop();
    let rz = || Operand::reg(Reg::RZ);
    let pt = || Operand::reg(Reg::PT);
    match addend {
        Addend::F32(b) => cx.emit(Opcode::FADD, &[], vec![new.into()], vec![b, old.into()], span)?,
        Addend::F64(b) => cx.emit(Opcode::DADD, &[], vec![new.into()], vec![b, old.into()], span)?,
        Addend::U64(b) => {
            let old = Src64::Reg(old);
            let (x, y) = if matches!(b, Src64::Imm(_)) { (old, b) } else { (b, old) };
            let carry = cx.temp(RegFile::P, 1);
            let lo = Operand::reg(new.part(0, 1)).undef();
            cx.emit(Opcode::IADD3, &[], vec![lo, carry.into()], vec![x.word(0), y.word(0), rz()], span)?;
            let uses = vec![x.word(1), y.word(1), rz(), carry.into(), pt().inverted()];
            cx.emit(Opcode::IADD3, &["X"], vec![Operand::reg(new.part(1, 1))], uses, span)?;
        }
        Addend::Logic64(b, lut) => {
            for w in 0..2 {
                let d = Operand::reg(new.part(w, 1));
                let d = if w == 0 { d.undef() } else { d };
                let uses = vec![Operand::reg(old.part(w, 1)), b.word(w), rz(), Operand::int(lut), pt().inverted()];
                cx.emit(Opcode::LOP3, &["LUT"], vec![d], uses, span)?;
            }
        }
        Addend::Bound64 { b, max, signed } => {
            let cmp = if max { "LE" } else { "GE" };
            let done = cx.temp(RegFile::P, 1);
            let uses = vec![Operand::reg(b.part(0, 1)), Operand::reg(old.part(0, 1)), pt()];
            cx.emit(Opcode::ISETP, &[cmp, "U32", "AND"], vec![done.into(), pt()], uses, span)?;
            let mods: &[&str] = if signed { &[cmp, "AND", "EX"] } else { &[cmp, "U32", "AND", "EX"] };
            let uses = vec![Operand::reg(b.part(1, 1)), Operand::reg(old.part(1, 1)), pt(), done.into()];
            cx.emit(Opcode::ISETP, mods, vec![done.into(), pt()], uses, span)?;
            cx.guard = Some(ori_ir::Guard { pred: done, negated: false });
            let branch = cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(after)], span);
            cx.guard = None;
            branch?;
            let swap = cx.func.add_block();
            cx.func.layout.pop();
            cx.place_block(swap);
            cx.copy_pair(new.into(), b.into(), span)?;
        }
    }
    let cast: Vec<&str> = ["CAST", "SPIN"].iter().chain(size).copied().collect();
    let p = cx.temp(RegFile::P, 1);
    if cx.target.isa.cas_spin_predicate {
        cx.emit(Opcode::ATOMS, &cast, vec![p.into()], vec![addr, old.into(), new.into()], span)?;
    } else {
        let ok = cx.temp(RegFile::R, width);
        cx.emit(Opcode::ATOMS, &cast, vec![ok.into()], vec![addr, old.into(), new.into()], span)?;
        let ok_lo = if width == 1 { ok } else { ok.part(0, 1) };
        cx.emit(
            Opcode::ISETP,
            &["EQ", "U32", "AND"],
            vec![p.into(), pt()],
            vec![ok_lo.into(), Operand::int(1), pt()],
            span,
        )?;
        if width == 2 {
            let uses = vec![ok.part(1, 1).into(), rz(), pt(), p.into()];
            cx.emit(Opcode::ISETP, &["EQ", "U32", "AND", "EX"], vec![p.into(), pt()], uses, span)?;
        }
    }
    cx.guard = Some(ori_ir::Guard { pred: p, negated: true });
    let branch = cx.emit(Opcode::BRA, &[], vec![], vec![Operand::label(body)], span);
    cx.guard = None;
    branch?;
    cx.place_block(after);
    match result {
        Some(d) => {
            let d = cx.reg(d, span)?;
            if width == 1 {
                cx.emit(Opcode::MOV, &[], vec![d.into()], vec![old.into()], span)
            } else {
                cx.copy_pair(d.into(), old.into(), span)
            }
        }
        None => Ok(()),
    }
}
