//! Memory fences and sleeps: `membar`, `fence.{sc,acq_rel}`, `nanosleep`,
//! in NVIDIA's sequences (probes of every scope on sm_80 and sm_90).

use ori_ir::{Opcode, Operand};
use ptx_syntax::ast::{Instruction, ModifierKind};

use super::{src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// One instruction of a fence sequence: opcode and modifiers.
type FenceStep = (Opcode, &'static [&'static str]);

/// What NVIDIA's ptxas puts after a `MEMBAR` of GPU or system scope,
/// without and with clusters: the error barriers (`CGAERRBAR` for the
/// cluster's) and an invalidation of the L1 cache (`CCTL.IVALL`), so that
/// later loads see other SMs' stores. CTA-scope fences stand alone.
const WIDE_FENCE_TAIL: [&[FenceStep]; 2] = [
    &[(Opcode::ERRBAR, &[]), (Opcode::CCTL, &["IVALL"])],
    &[(Opcode::ERRBAR, &[]), (Opcode::CGAERRBAR, &[]), (Opcode::CCTL, &["IVALL"])],
];

/// `membar.{cta,gl,sys}` and `fence.{sc,acq_rel}.{cta,gpu,sys}`:
/// `MEMBAR.{SC,ALL}.{CTA,GPU,SYS}` (`membar` is `fence.sc`), then for the
/// GPU and system scopes the SM's [`WIDE_FENCE_TAIL`].
pub(super) fn fence(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if inst.has("proxy") {
        return proxy_async(cx, inst);
    }
    let words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    let (sem, scope) = match (inst.opcode.name.as_str(), words.as_slice()) {
        ("membar", [scope]) => ("SC", *scope),
        ("fence", [sem @ ("sc" | "acq_rel"), scope]) => (if *sem == "sc" { "SC" } else { "ALL" }, *scope),
        _ => return Err(unsupported(inst)),
    };
    let scope = match scope {
        "cta" => "CTA",
        "gl" | "gpu" => "GPU",
        "sys" => "SYS",
        _ => return Err(unsupported(inst)),
    };
    cx.emit(Opcode::MEMBAR, &[sem, scope], vec![], vec![], inst.span)?;
    if scope == "CTA" {
        return Ok(());
    }
    let tail = WIDE_FENCE_TAIL[usize::from(cx.target.features.clusters)];
    for &(op, mods) in tail {
        cx.emit(op, mods, vec![], vec![], inst.span)?;
    }
    Ok(())
}

/// `fence.proxy.async.shared::cta` (the generic proxy's shared-memory
/// writes become visible to the async proxy: bulk copies, wgmma):
/// `MEMBAR.ALL.CTA` + `FENCE.VIEW.ASYNC.S`, NVIDIA's sequence in
/// tma_bulk_copy and wgmma_m64n8k16. Other state spaces are not probed.
fn proxy_async(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    if words != ["proxy", "async", "shared::cta"] {
        return Err(unsupported(inst));
    }
    cx.emit(Opcode::MEMBAR, &["ALL", "CTA"], vec![], vec![], inst.span)?;
    cx.emit(Opcode::FENCE, &["VIEW", "ASYNC", "S"], vec![], vec![], inst.span)
}

/// `nanosleep.u32 t`: `NANOSLEEP t` (a constant in a register first).
pub(super) fn nanosleep(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let t = src(cx, inst, 0, ptx_syntax::ast::ScalarType::U32)?;
    let t = if t.as_reg().is_some() {
        t
    } else {
        let r = cx.temp(ori_ir::RegFile::R, 1);
        cx.imad_mov(r.into(), t, inst.span)?;
        Operand::reg(r)
    };
    cx.emit(Opcode::NANOSLEEP, &[], vec![], vec![t], inst.span)
}
