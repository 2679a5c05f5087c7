//! Atomics whose result is not used, and reductions: `REDG` (sm_90) /
//! `RED` (sm_80) on global memory, relaxed at GPU scope as PTX's default;
//! the shared-memory increment as `ATOMS.POPC.INC`.

use ori_ir::{Opcode, OperandKind, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, ScalarType, StateSpace};

use super::mem::{global_address, shared_address};
use super::{operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `atom.global.add.T d, [a], v` with `d` never read, and
/// `red.global.add.T [a], v`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let red = inst.opcode.name.as_str() == "red";
    let words: Vec<&str> =
        inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word).map(|m| m.name.as_str()).collect();
    let types: Vec<ScalarType> = inst.types().collect();
    if inst.space() == Some(StateSpace::Shared) && !red && words == ["add"] {
        return shared_increment(cx, inst);
    }
    if inst.space() != Some(StateSpace::Global) || words != ["add"] {
        return Err(unsupported(inst));
    }
    let mods: &[&str] = match types.as_slice() {
        [ScalarType::F32] => &["E", "ADD", "F32", "FTZ", "RN", "STRONG", "GPU"],
        [ScalarType::U32 | ScalarType::S32] => &["E", "ADD", "STRONG", "GPU"],
        [ScalarType::U64] => &["E", "ADD", "64", "STRONG", "GPU"],
        _ => return Err(unsupported(inst)),
    };
    let first = usize::from(!red);
    if !red {
        // A returned value needs ATOMG, whose forms the encoder lacks.
        let ExprKind::Name(d, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
        if !cx.unread(d.name.as_str()) {
            return Err(unsupported(inst));
        }
    }
    let addr = global_address(cx, inst, first)?;
    let value = src(cx, inst, first + 1, types[0])?;
    if value.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    let op = if cx.sm.version >= 90 { Opcode::REDG } else { Opcode::RED };
    cx.emit(op, mods, vec![], vec![addr, value], inst.span)
}

/// `atom.shared.add.u32 d, [a], 1` with `d` never read: NVIDIA's
/// `ATOMS.POPC.INC.32 RZ, [a+URZ]` (the hardware adds, per address, the
/// number of the warp's threads that increment it).
fn shared_increment(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ExprKind::Name(d, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    let one = matches!(operand(inst, 2)?.kind, ExprKind::Int { value: 1, .. });
    let u32 = matches!(inst.types().collect::<Vec<_>>().as_slice(), [ScalarType::U32 | ScalarType::S32]);
    if !one || !u32 || !cx.unread(d.name.as_str()) {
        return Err(unsupported(inst));
    }
    let OperandKind::Mem(mut addr) = shared_address(cx, inst, 1)?.kind else { return Err(unsupported(inst)) };
    addr.ubase = Some(Reg::URZ);
    cx.emit(Opcode::ATOMS, &["POPC", "INC", "32"], vec![Reg::RZ.into()], vec![OperandKind::Mem(addr).into()], inst.span)
}
