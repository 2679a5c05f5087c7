//! Asynchronous copies into shared memory (sm_80+): `cp.async` and its
//! groups, in NVIDIA's instructions (cp_async_pipeline, sm_80 and sm_90).

use ori_ir::{Guard, Opcode, Operand, OperandKind, Reg};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::{mem, operand, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `cp.async.cg.shared.global [d], [s], 16`: `LDGSTS.E.BYPASS.128 [d],
/// desc[UR][s.64]`, after the three never-executed `@!PT LDS RZ, [RZ]`
/// NVIDIA's code puts before every `LDGSTS`; `cp.async.commit_group`:
/// `LDGDEPBAR`; `cp.async.wait_group n`: `DEPBAR.LE SB0, n`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    // The opcode and its modifiers as one dotted spelling.
    let mut words: Vec<&str> = inst.opcode.name.as_str().split('.').collect();
    words.extend(inst.modifiers.iter().map(|m| m.name.as_str()));
    match words.as_slice() {
        ["cp", "async", "commit_group"] => cx.emit(Opcode::LDGDEPBAR, &[], vec![], vec![], inst.span),
        ["cp", "async", "wait_group"] => {
            let ExprKind::Int { value, .. } = operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
            let keep = i64::try_from(value).map_err(|_| unsupported(inst))?;
            let uses = vec![OperandKind::Scoreboard(0).into(), Operand::int(keep)];
            cx.emit(Opcode::DEPBAR, &["LE"], vec![], uses, inst.span)
        }
        ["cp", "async", "cg", "shared" | "shared::cta", "global"] if inst.operands.len() == 3 => {
            // 16 bytes is the only size `.cg` allows; a source size
            // (zero fill) would need LDGSTS's `.ZFILL` form.
            if !matches!(operand(inst, 2)?.kind, ExprKind::Int { value: 16, .. }) {
                return Err(unsupported(inst));
            }
            let dst = mem::shared_address(cx, inst, 0)?;
            let src = mem::global_address(cx, inst, 1)?;
            let guard = cx.guard.replace(Guard { pred: Reg::PT, negated: true });
            for _ in 0..3 {
                let zero = OperandKind::Mem(ori_ir::Address { base: Some(Reg::RZ), ..Default::default() }).into();
                cx.emit(Opcode::LDS, &[], vec![Reg::RZ.into()], vec![zero], inst.span)?;
            }
            cx.guard = guard;
            cx.emit(Opcode::LDGSTS, &["E", "BYPASS", "128"], vec![], vec![dst, src], inst.span)
        }
        _ => Err(unsupported(inst)),
    }
}
