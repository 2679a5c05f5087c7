//! Thread-block clusters (sm_90): the CTA's rank, the cluster barrier and
//! distributed shared memory, in NVIDIA's instructions (cluster_dsmem).

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile, SpecialReg};

use super::seq::Seq;
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

/// `%is_explicit_cluster` into predicate `dst`: the driver's word is 1
/// for an explicit cluster launch (NVIDIA: `LDC R4, c[0x0][0x140]`,
/// `ISETP.NE.AND P0, PT, R4, 0x1, PT` and the inverted predicate).
pub(super) fn is_explicit(
    cx: &mut Lowerer<'_>,
    c: ori_ir::ClusterBank,
    dst: ori_ir::Reg,
    span: ptx_syntax::Span,
) -> Lowered {
    let seq = Seq::start(cx, span);
    let word = seq.value(cx, Opcode::LDC, &[], vec![Operand::cbank(0, c.explicit)]);
    seq.finish(cx);
    let pt = Operand::reg(ori_ir::Reg::PT);
    let uses = vec![word?.into(), Operand::int(1), pt.clone()];
    cx.emit(Opcode::ISETP, &["EQ", "AND"], vec![dst.into(), pt], uses, span)
}

/// `%clusterid` (`cluster_id`) or `%cluster_ctaid` of `axis` into `dst`,
/// NVIDIA's sm_90 sequences: `.x` divides `%ctaid.x` by
/// `%cluster_nctaid.x` (a binary32 reciprocal less two ulps, two
/// truncated estimates, one correction, all ones for a zero divisor);
/// `.y`/`.z` multiply `%ctaid` by the driver's reciprocal and truncate;
/// `%cluster_ctaid` is `%ctaid` less the cluster's first CTA.
pub(super) fn index(
    cx: &mut Lowerer<'_>,
    cluster_id: bool,
    axis: usize,
    c: ori_ir::ClusterBank,
    dst: ori_ir::Reg,
    span: ptx_syntax::Span,
) -> Lowered {
    let seq = Seq::start(cx, span);
    let result = index_in(cx, &seq, cluster_id, axis, c, dst);
    seq.finish(cx);
    result
}

fn index_in(
    cx: &mut Lowerer<'_>,
    seq: &Seq,
    cluster_id: bool,
    axis: usize,
    c: ori_ir::ClusterBank,
    dst: ori_ir::Reg,
) -> Lowered {
    let ctaid_reg = [SpecialReg::CtaidX, SpecialReg::CtaidY, SpecialReg::CtaidZ][axis];
    let ctaid: Operand = seq.value(cx, Opcode::S2R, &[], vec![OperandKind::Special(ctaid_reg).into()])?.into();
    let n: Operand = seq.value(cx, Opcode::LDC, &[], vec![Operand::cbank(0, c.nctaid + 4 * axis as i32)])?.into();
    let rz = || Operand::reg(ori_ir::Reg::RZ);
    let q: Operand = if axis == 0 {
        let nf = seq.value(cx, Opcode::I2FP, &["F32", "U32"], vec![n.clone()])?;
        let rcp = seq.value(cx, Opcode::MUFU, &["RCP"], vec![nf.into()])?;
        let e: Operand = seq.value(cx, Opcode::IADD3, &[], vec![rcp.into(), Operand::int(-2), rz()])?.into();
        let neg: Operand = seq.value(cx, Opcode::IADD3, &[], vec![rz(), n.clone().negated(), rz()])?.into();
        let estimate = |cx: &mut Lowerer<'_>, x: Operand| -> Lowered<Reg> {
            let xf = seq.value(cx, Opcode::I2FP, &["F32", "U32", "RZ"], vec![x])?;
            let t = seq.value(cx, Opcode::FMUL, &["RZ"], vec![e.clone(), xf.into()])?;
            seq.value(cx, Opcode::F2I, &["U32", "TRUNC", "NTZ"], vec![t.into()])
        };
        let q1 = estimate(cx, ctaid.clone())?;
        let r1 = seq.value(cx, Opcode::IMAD, &[], vec![neg.clone(), q1.into(), ctaid.clone()])?;
        let q2 = estimate(cx, r1.into())?;
        let q = seq.value(cx, Opcode::IADD3, &[], vec![q1.into(), q2.into(), rz()])?;
        let r = seq.value(cx, Opcode::IMAD, &[], vec![neg, q.into(), ctaid.clone()])?;
        let over = seq.isetp(cx, &["GE", "U32", "AND"], r.into(), n.clone())?;
        let m = seq.value(cx, Opcode::SEL, &[], vec![rz(), Operand::int(-1), Operand::reg(over).inverted()])?;
        let q = seq.value(cx, Opcode::IADD3, &[], vec![q.into(), Operand::reg(m).negated(), rz()])?;
        let zero = seq.isetp(cx, &["EQ", "U32", "AND"], n.clone(), rz())?;
        seq.value(cx, Opcode::SEL, &[], vec![q.into(), Operand::int(-1), Operand::reg(zero).inverted()])?.into()
    } else {
        let rcp = seq.value(cx, Opcode::LDC, &[], vec![Operand::cbank(0, c.rcp_nctaid_y + 4 * (axis as i32 - 1))])?;
        let f = seq.value(cx, Opcode::I2FP, &["F32", "U32"], vec![ctaid.clone()])?;
        let t = seq.value(cx, Opcode::FMUL, &[], vec![f.into(), rcp.into()])?;
        seq.value(cx, Opcode::F2I, &["U32", "TRUNC", "NTZ"], vec![t.into()])?.into()
    };
    let value = if cluster_id {
        match q.as_reg() {
            Some(r) => r,
            None => return Err(crate::error::at(seq.span, "cluster index is not a register")),
        }
    } else {
        let neg_q = seq.value(cx, Opcode::IADD3, &[], vec![rz(), q.negated(), rz()])?;
        seq.value(cx, Opcode::IMAD, &[], vec![n, neg_q.into(), ctaid])?
    };
    seq.result(cx, dst, value)
}
