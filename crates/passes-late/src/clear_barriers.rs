//! `OriClearConvergenceBarriers`: on targets whose convergence barriers
//! must be cleared before `BSSY` arms one (Turing:
//! [`ori_ir::Isa::bssy_clears`]), a `BMOV.32.CLEAR RZ, Bn` in front of
//! every `BSSY Bn`, as NVIDIA's sm_75 code has (143 of the 144 `BSSY`s of
//! its compute_75 corpus code; none on sm_80). Elsewhere it changes nothing.

use ori_ir::{Function, Inst, Modifier, Opcode, Operand, Phase, PhaseContext, PhaseError, Property, PropertySet, Reg};

/// Clears each convergence barrier before `BSSY` arms it.
pub struct OriClearConvergenceBarriers;

impl Phase for OriClearConvergenceBarriers {
    fn name(&self) -> &'static str {
        "OriClearConvergenceBarriers"
    }

    fn description(&self) -> &'static str {
        "Clears a convergence barrier (BMOV.32.CLEAR) before each BSSY on targets that need it"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if !cx.target.isa.bssy_clears {
            return Ok(());
        }
        for block in func.layout.clone() {
            let mut k = 0;
            while k < func.blocks[block].insts.len() {
                let insts = &func.blocks[block].insts;
                let inst = &func.insts[insts[k]];
                let cleared = |b: &Operand| k > 0 && is_clear_of(&func.insts[insts[k - 1]], b);
                if let (Opcode::BSSY, [barrier]) = (inst.op, inst.defs.as_slice())
                    && !cleared(barrier)
                {
                    let mut clear = Inst::new(Opcode::BMOV, vec![Operand::reg(Reg::RZ)], vec![barrier.clone()]);
                    clear.mods = Modifier::list(&["32", "CLEAR"]);
                    clear.guard = inst.guard;
                    let id = func.insts.alloc(clear);
                    func.blocks[block].insts.insert(k, id);
                    k += 1;
                }
                k += 1;
            }
        }
        Ok(())
    }
}

/// True when `inst` is `BMOV.32.CLEAR RZ, barrier` (a second run adds
/// none).
fn is_clear_of(inst: &Inst, barrier: &Operand) -> bool {
    inst.op == Opcode::BMOV && inst.has_mod("CLEAR") && inst.uses.first() == Some(barrier)
}
