//! sm_90 bulk asynchronous copies: `cp.async.bulk` between global and
//! shared memory and its bulk groups, in NVIDIA's instructions (tma_bulk_copy and probes of per-thread addresses).
//!
//! `UBLKCP` reads only uniform registers, so each copy runs in the
//! [`elect`] loop, once per thread that reached it with that thread's
//! operands. Its size operand counts 16-byte units.

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::mbarrier::{constant, shared_reg};
use super::{elect, mem, operand, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// True for the instructions this module lowers on a target with the sm_90
/// bulk-copy unit (the one with clusters).
pub(super) fn handles(cx: &Lowerer<'_>, inst: &Instruction) -> bool {
    let name = inst.opcode.name.as_str();
    // `fence.proxy.async`, which orders shared writes before the copies,
    // is fence.rs's.
    cx.sm.target().features.clusters && name.starts_with("cp") && (name.contains("bulk") || inst.has("bulk"))
}

/// Lowers an instruction [`handles`] accepts.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let mut words: Vec<&str> = inst.opcode.name.as_str().split('.').collect();
    words.extend(inst.modifiers.iter().map(|m| m.name.as_str()));
    let span = inst.span;
    match words.as_slice() {
        ["cp", "async", "bulk", "shared::cluster", "global", "mbarrier::complete_tx::bytes"] => to_shared(cx, inst),
        ["cp", "async", "bulk", "global", "shared::cta", "bulk_group"] => to_global(cx, inst),
        // Closes the bulk group: NVIDIA's code flushes the copy commands.
        ["cp", "async", "bulk", "commit_group"] => cx.emit(Opcode::UTMACMDFLUSH, &[], vec![], vec![], span),
        // `.read`: the sources may be reused once read; without it the
        // writes must be visible too, and the L1 is invalidated after.
        ["cp", "async", "bulk", "wait_group", rest @ ..] => {
            let read = match rest {
                ["read"] => true,
                [] => false,
                _ => return Err(unsupported(inst)),
            };
            let keep = constant(cx, inst, 0)?.ok_or_else(|| unsupported(inst))?;
            let uses = vec![OperandKind::Scoreboard(0).into(), Operand::int(keep)];
            cx.emit(Opcode::DEPBAR, &["LE"], vec![], uses, span)?;
            if read { Ok(()) } else { cx.emit(Opcode::CCTL, &["IVALL"], vec![], vec![], span) }
        }
        _ => Err(unsupported(inst)),
    }
}

/// The global address operand `i`: its register pair (an offset is not
/// lowered yet: it would need a 64-bit add).
fn global(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Reg> {
    match mem::global_address(cx, inst, i)?.kind {
        OperandKind::Mem(Address { base: Some(base), offset: 0, .. }) if base.width == 2 => Ok(base),
        _ => Err(unsupported(inst)),
    }
}

/// The size operand `i` in 16-byte units, when it is a constant multiple
/// of 16 (`UMOV`, NVIDIA's form for constant sizes); a size in a register
/// is not lowered yet.
fn units(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Reg> {
    let bytes = constant(cx, inst, i)?.filter(|b| *b > 0 && b % 16 == 0).ok_or_else(|| unsupported(inst))?;
    let u = cx.temp(RegFile::UR, 1);
    cx.emit(Opcode::UMOV, &[], vec![u.into()], vec![Operand::int(bytes / 16)], inst.span)?;
    Ok(u)
}

/// `[UR]` (`ubase`, NVIDIA's decoded form).
fn at(u: Reg) -> Operand {
    OperandKind::Mem(Address { ubase: Some(u), ..Address::default() }).into()
}

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
/// [dst], [src], size, [bar]`: `UBLKCP.S.G [UR dst, UR bar], [UR.64 src],
/// UR size/16` (the destination and the mbarrier are one uniform pair).
fn to_shared(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !matches!(operand(inst, 3)?.kind, ExprKind::Address(_)) {
        return Err(unsupported(inst));
    }
    let dst = shared_reg(cx, inst, 0)?;
    let src = global(cx, inst, 1)?;
    let bar = shared_reg(cx, inst, 3)?;
    let size = units(cx, inst, 2)?;
    let (pair, src_ur) = (cx.temp(RegFile::UR, 2), cx.temp(RegFile::UR, 2));
    let mut moves = elect::words(src_ur, src);
    moves.extend([(pair.part(1, 1), bar), (pair.part(0, 1), dst)]);
    elect::per_lane(cx, &moves, inst.span, |cx| {
        cx.emit(Opcode::UBLKCP, &["S", "G"], vec![], vec![at(pair), at(src_ur), size.into()], inst.span)
    })
}

/// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`:
/// `UBLKCP.G.S [UR.64 dst], [UR src], UR size/16`.
fn to_global(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let dst = global(cx, inst, 0)?;
    let src = shared_reg(cx, inst, 1)?;
    let size = units(cx, inst, 2)?;
    let (dst_ur, src_ur) = (cx.temp(RegFile::UR, 2), cx.temp(RegFile::UR, 1));
    let mut moves = vec![(src_ur, src)];
    moves.extend(elect::words(dst_ur, dst));
    elect::per_lane(cx, &moves, inst.span, |cx| {
        cx.emit(Opcode::UBLKCP, &["G", "S"], vec![], vec![at(dst_ur), at(src_ur), size.into()], inst.span)
    })
}
