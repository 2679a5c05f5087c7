//! sm_90 mbarriers in shared memory: `mbarrier.init`,
//! `mbarrier.arrive.expect_tx`, `mbarrier.try_wait.parity` and
//! `fence.mbarrier_init`, in NVIDIA's instructions (tma_bulk_copy and
//! probes of per-thread addresses).
//!
//! An mbarrier is the 64-bit word `SYNCS.EXCH.64` writes: for an expected
//! arrival count `c`, the low word holds `(2^20 - c) << 1` and the high word
//! `(2^20 - c) << 11` (pending and expected counts; bit 63 is the phase).

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::{dst, elect, mem, operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// True for the instructions this module lowers, on a target with the
/// sm_90 `SYNCS` unit (the one with clusters).
pub(super) fn handles(cx: &Lowerer<'_>, inst: &Instruction) -> bool {
    cx.sm.target().features.clusters
        && match inst.opcode.name.as_str() {
            "mbarrier" => true,
            "fence" => inst.has("mbarrier_init"),
            _ => false,
        }
}

/// Lowers an instruction [`handles`] accepts.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    match (inst.opcode.name.as_str(), words.as_slice()) {
        ("mbarrier", ["init", "shared" | "shared::cta", "b64"]) => init(cx, inst),
        ("mbarrier", ["arrive", "expect_tx", "shared" | "shared::cta", "b64"]) => arrive_expect_tx(cx, inst),
        ("mbarrier", ["try_wait", "parity", "shared" | "shared::cta", "b64"]) => try_wait_parity(cx, inst),
        // NVIDIA's code has a `NOP` here (the `SYNCS.EXCH.64` of the init
        // is ordered before later mbarrier operations already); the
        // scheduler drops NOPs, so nothing is emitted.
        ("fence", ["mbarrier_init", "release", "cluster"]) => Ok(()),
        _ => Err(unsupported(inst)),
    }
}

/// Shared address operand `i` in one general register (an offset is
/// added first, `IADD3`).
pub(super) fn shared_reg(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Reg> {
    let OperandKind::Mem(Address { base: Some(base), offset, .. }) = mem::shared_address(cx, inst, i)?.kind else {
        return Err(unsupported(inst));
    };
    if offset == 0 {
        return Ok(base);
    }
    let t = cx.temp(RegFile::R, 1);
    let uses = vec![base.into(), Operand::int(offset), Reg::RZ.into()];
    cx.emit(Opcode::IADD3, &[], vec![t.into()], uses, inst.span)?;
    Ok(t)
}

/// `[a+URZ]`, the per-thread address form of the `SYNCS` instructions.
fn thread_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let base = shared_reg(cx, inst, i)?;
    Ok(OperandKind::Mem(Address { base: Some(base), ubase: Some(Reg::URZ), ..Address::default() }).into())
}

/// A 32-bit source in a general register (`IMAD.MOV.U32` for a constant).
fn in_register(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Reg> {
    let v = src(cx, inst, i, ScalarType::U32)?;
    if let Some(r) = v.as_reg() {
        return Ok(r);
    }
    let t = cx.temp(RegFile::R, 1);
    cx.imad_mov(t.into(), v, inst.span)?;
    Ok(t)
}

/// The value of operand `i` when it is a constant (an immediate, or a
/// register written once by a `mov` of one).
pub(super) fn constant(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<i64>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(*value as i64),
        ExprKind::Name(r, None) => cx.consts.get(r.name.as_str()).copied(),
        _ => None,
    })
}

/// `mbarrier.init.shared::cta.b64 [a], count`: `SYNCS.EXCH.64 URZ, [UR],
/// UR.64` of the word built as NVIDIA does (`UIADD3 c' = -c, 0x100000`,
/// `USHF.L.U32` by 11 and by 1), inside the [`elect`] loop that brings
/// the address (and a count held in a register) into uniform registers.
fn init(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let span = inst.span;
    let addr = shared_reg(cx, inst, 0)?;
    let bar = cx.temp(RegFile::UR, 1);
    let mut moves = vec![(bar, addr)];
    let count = cx.temp(RegFile::UR, 1);
    let known = constant(cx, inst, 1)?;
    if known.is_none() {
        moves.push((count, in_register(cx, inst, 1)?));
    }
    elect::per_lane(cx, &moves, span, |cx| {
        if let Some(c) = known {
            cx.emit(Opcode::UMOV, &[], vec![count.into()], vec![Operand::int(c & 0xffff_ffff)], span)?;
        }
        let pending = cx.temp(RegFile::UR, 1);
        let uses = vec![Operand::reg(count).negated(), Operand::int(0x10_0000), Reg::URZ.into()];
        cx.emit(Opcode::UIADD3, &[], vec![pending.into()], uses, span)?;
        let word = cx.temp(RegFile::UR, 2);
        // High word first (NVIDIA's order); the first write starts the pair.
        let high = Operand::reg(word.part(1, 1)).undef();
        for (d, shift) in [(high, 0xb), (word.part(0, 1).into(), 0x1)] {
            let uses = vec![pending.into(), Operand::int(shift), Reg::URZ.into()];
            cx.emit(Opcode::USHF, &["L", "U32"], vec![d], uses, span)?;
        }
        let at = OperandKind::Mem(Address { ubase: Some(bar), ..Address::default() }).into();
        cx.emit(Opcode::SYNCS, &["EXCH", "64"], vec![Reg::URZ.into()], vec![at, word.into()], span)
    })
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [a], tx`:
/// `SYNCS.ARRIVE.TRANS64 RZ, [a+URZ], tx` (per thread; the state the PTX
/// instruction may return is not lowered).
fn arrive_expect_tx(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !matches!(operand(inst, 0)?.kind, ExprKind::Sink) {
        return Err(unsupported(inst));
    }
    let at = thread_address(cx, inst, 1)?;
    let tx = in_register(cx, inst, 2)?;
    cx.emit(Opcode::SYNCS, &["ARRIVE", "TRANS64"], vec![Reg::RZ.into()], vec![at, tx.into()], inst.span)
}

/// `mbarrier.try_wait.parity.shared::cta.b64 p, [a], parity`:
/// `SYNCS.PHASECHK.TRANS64.TRYWAIT p, [a+URZ], parity << 31` (the shift is
/// `SHF.L.U32`, a constant parity is shifted here).
fn try_wait_parity(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let p = dst(cx, inst, 0)?;
    let at = thread_address(cx, inst, 1)?;
    let bit = cx.temp(RegFile::R, 1);
    match constant(cx, inst, 2)? {
        Some(parity) => cx.imad_mov(bit.into(), Operand::int((parity & 1) << 31), inst.span)?,
        None => {
            let parity = in_register(cx, inst, 2)?;
            let uses = vec![parity.into(), Operand::int(0x1f), Reg::RZ.into()];
            cx.emit(Opcode::SHF, &["L", "U32"], vec![bit.into()], uses, inst.span)?;
        }
    }
    cx.emit(Opcode::SYNCS, &["PHASECHK", "TRANS64", "TRYWAIT"], vec![p.into()], vec![at, bit.into()], inst.span)
}
