//! `OriResetBarriersPrologue`: on targets whose kernels start by resetting
//! the convergence barriers ([`ori_ir::Target::barrier_reset_prologue`],
//! sm_87), the code NVIDIA's ptxas puts before every kernel's own, once
//! per warp (`UR2` is zero at launch and set after the reset):
//!
//! ```text
//!     ISETP.NE.U32.AND P0, PT, RZ, UR2, PT
//! @P0 BRA entry
//!     BMOV.32 B0, 0xffffffff
//!     BMOV.32.CLEAR B1, B0 ... BMOV.32.CLEAR B15, B14
//!     BMOV.32 B15, 0x0
//!     UMOV UR2, 0x1
//! entry:
//! ```
//!
//! (every kernel of the corpus compiled for sm_87; device functions have
//! none). Nothing is live at a kernel's start, so `P0` and `UR2` are free.
//!
//! Code offsets are counted from the function's first block: an indirect
//! call `CALL.REL.NOINC R6, start` and a return `RET.REL.NODEC R20, start`
//! add their register to `start`'s address, and a function pointer is the
//! callee's offset from the function's start (`OriResolveCallAddresses`).
//! The prologue's test becomes that start, so those labels move to it
//! (NVIDIA's sm_87 device_calls: `CALL.REL.NOINC R6, `(_Z8dispatch...)`
//! names the kernel's first instruction, the prologue's `ISETP`).

use ori_ir::{
    FunctionKind, Guard, Inst, Modifier, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError, Property,
    PropertySet, Reg, RegFile,
};

/// Convergence barriers `B0..B15`.
const BARRIERS: u32 = 16;

/// Puts NVIDIA's barrier-reset prologue before a kernel's code.
pub struct OriResetBarriersPrologue;

impl Phase for OriResetBarriersPrologue {
    fn name(&self) -> &'static str {
        "OriResetBarriersPrologue"
    }

    fn description(&self) -> &'static str {
        "Resets the convergence barriers at a kernel's start on targets that need it (sm_87)"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut ori_ir::Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if !cx.target.barrier_reset_prologue || func.kind != FunctionKind::Entry {
            return Ok(());
        }
        let Some(&entry) = func.layout.first() else { return Ok(()) };
        let flag = Reg::phys(RegFile::UR, 2);
        if has_prologue(func, flag) {
            return Ok(());
        }
        let p0 = Reg::phys(RegFile::P, 0);
        let barrier = |n| Operand::reg(Reg::phys(RegFile::B, n));
        let with_mods = |mut inst: Inst, mods: &[&str]| {
            inst.mods = Modifier::list(mods);
            inst
        };

        let check = func.add_block();
        let test = Inst::new(
            Opcode::ISETP,
            vec![Operand::reg(p0), Operand::reg(Reg::PT)],
            vec![Operand::reg(Reg::RZ), Operand::reg(flag), Operand::reg(Reg::PT)],
        );
        func.push_inst(check, with_mods(test, &["NE", "U32", "AND"]));
        let mut skip = Inst::new(Opcode::BRA, vec![], vec![Operand::label(entry)]);
        skip.guard = Some(Guard { pred: p0, negated: false });
        func.push_inst(check, skip);

        let reset = func.add_block();
        let set = |b, value| with_mods(Inst::new(Opcode::BMOV, vec![barrier(b)], vec![Operand::int(value)]), &["32"]);
        func.push_inst(reset, set(0, 0xffff_ffff));
        for b in 1..BARRIERS {
            let shift = Inst::new(Opcode::BMOV, vec![barrier(b)], vec![barrier(b - 1)]);
            func.push_inst(reset, with_mods(shift, &["32", "CLEAR"]));
        }
        func.push_inst(reset, set(BARRIERS - 1, 0));
        func.push_inst(reset, Inst::new(Opcode::UMOV, vec![Operand::reg(flag)], vec![Operand::int(1)]));

        // `add_block` appended both: they go before the kernel's code.
        func.layout.retain(|&b| b != check && b != reset);
        func.layout.splice(0..0, [check, reset]);
        rebase_relative(func, entry, check);
        Ok(())
    }
}

/// Moves the base of relative calls and returns (`CALL.REL.NOINC R, old`,
/// `RET.REL.NODEC R, old`: the function's start) from `old` to `new`.
/// Branches to `old` stay: they mean the kernel's own code.
fn rebase_relative(func: &mut ori_ir::Function, old: ori_ir::BlockId, new: ori_ir::BlockId) {
    for (_, inst) in func.insts.iter_mut() {
        if !matches!(inst.op, Opcode::CALL | Opcode::RET) {
            continue;
        }
        for op in inst.uses.iter_mut() {
            if op.kind == OperandKind::Label(old) {
                op.kind = OperandKind::Label(new);
            }
        }
    }
}

/// True when the kernel starts with the prologue already (a second run
/// adds none): its test of `flag`, then the reset of `B0`.
fn has_prologue(func: &ori_ir::Function, flag: Reg) -> bool {
    let first = |k: usize| func.layout.get(k).and_then(|&b| func.blocks[b].insts.first()).map(|&i| &func.insts[i]);
    matches!((first(0), first(1)), (Some(test), Some(reset))
        if test.op == Opcode::ISETP && test.uses.iter().any(|u| u.as_reg() == Some(flag))
            && reset.op == Opcode::BMOV && reset.defs.first().and_then(Operand::as_reg) == Some(Reg::phys(RegFile::B, 0)))
}
