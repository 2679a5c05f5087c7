//! Thread-block clusters (sm_90): the CTA's rank, the cluster barrier and
//! distributed shared memory, in NVIDIA's instructions (cluster_dsmem).

use ori_ir::{Address, Opcode, Operand, OperandKind, RegFile, SpecialReg};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::{dst, operand, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// True for instructions this module lowers (`ld.shared::cluster`,
/// `barrier.cluster`, `mapa`) on a target with clusters.
pub(super) fn handles(cx: &Lowerer<'_>, inst: &Instruction) -> bool {
    cx.sm.target().features.clusters
        && match inst.opcode.name.as_str() {
            "ld" => inst.has("shared::cluster"),
            "barrier" => inst.has("cluster"),
            "mapa" => true,
            _ => false,
        }
}

/// Lowers an instruction [`handles`] accepts.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    match inst.opcode.name.as_str() {
        "ld" => load(cx, inst),
        "barrier" => barrier(cx, inst),
        "mapa" => mapa(cx, inst),
        _ => Err(unsupported(inst)),
    }
}

/// `barrier.cluster.arrive.release.aligned`: `MEMBAR.ALL.GPU`, `ERRBAR`,
/// `CGAERRBAR`, `UCGABAR_ARV`; `barrier.cluster.wait.acquire.aligned`:
/// `UCGABAR_WAIT`, `CCTL.IVALL`.
fn barrier(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let span = inst.span;
    match words.as_slice() {
        ["cluster", "arrive", "release", "aligned"] | ["cluster", "arrive", "aligned"] => {
            cx.emit(Opcode::MEMBAR, &["ALL", "GPU"], vec![], vec![], span)?;
            cx.emit(Opcode::ERRBAR, &[], vec![], vec![], span)?;
            cx.emit(Opcode::CGAERRBAR, &[], vec![], vec![], span)?;
            cx.emit(Opcode::UCGABAR_ARV, &[], vec![], vec![], span)
        }
        ["cluster", "wait", "acquire", "aligned"] | ["cluster", "wait", "aligned"] => {
            cx.emit(Opcode::UCGABAR_WAIT, &[], vec![], vec![], span)?;
            cx.emit(Opcode::CCTL, &["IVALL"], vec![], vec![], span)
        }
        _ => Err(unsupported(inst)),
    }
}

/// `mapa.shared::cluster.u32 d, a, rank`: the address `a` in the window of
/// CTA `rank`, `PRMT d, rank, 0x654, a` (the rank replaces the window byte
/// 3; a constant rank goes to a register first, `IMAD.MOV.U32`).
fn mapa(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !inst.has("shared::cluster") || ty(inst)? != ScalarType::U32 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::U32)?;
    let rank = match src(cx, inst, 2, ScalarType::U32)? {
        r if r.as_reg().is_some() => r,
        imm => {
            let t = cx.temp(RegFile::R, 1);
            cx.imad_mov(t.into(), imm, inst.span)?;
            t.into()
        }
    };
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::PRMT, &[], vec![d.into()], vec![rank, Operand::int(0x654), a], inst.span)
}

/// `ld.shared::cluster.u32 d, [a]`: a generic load through the cluster's
/// shared window, `LD.E d, [SR_SWINHI:a]` (NVIDIA's code reads `SR_SWINHI`
/// into the high word of the address pair).
fn load(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    if !matches!(words.as_slice(), ["shared::cluster", "u32" | "b32" | "s32" | "f32"]) {
        return Err(unsupported(inst));
    }
    let ExprKind::Address(items) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let [item] = items.as_slice() else { return Err(unsupported(inst)) };
    let ExprKind::Name(base, None) = &item.kind else { return Err(unsupported(inst)) };
    let a = cx.reg(base.name.as_str(), base.span)?;
    if a.width != 1 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let window = cx.temp(RegFile::R, 1);
    let swin = OperandKind::Special(SpecialReg::SwinHi).into();
    cx.emit(Opcode::S2R, &[], vec![window.into()], vec![swin], inst.span)?;
    let pair = cx.temp(RegFile::R, 2);
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(pair.part(0, 1)).undef()], vec![a.into()], inst.span)?;
    cx.emit(Opcode::MOV, &[], vec![pair.part(1, 1).into()], vec![window.into()], inst.span)?;
    let addr: Operand = OperandKind::Mem(Address { base: Some(pair), ..Address::default() }).into();
    cx.emit(Opcode::LD, &["E"], vec![d.into()], vec![addr], inst.span)
}

/// `%cluster_ctarank`: `S2R SR_CgaCtaId` (the CTA's rank is its window
/// number in the cluster's shared memory).
pub(super) fn ctarank() -> (Opcode, Operand) {
    (Opcode::S2R, OperandKind::Special(SpecialReg::CgaCtaId).into())
}
