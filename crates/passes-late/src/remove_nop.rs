//! `OriRemoveNopCode`: removes `NOP`s that carry no scheduling meaning.
//!
//! Earlier phases leave `NOP`s behind as placeholders (a deleted
//! instruction's slot, padding an expansion might need); before
//! scheduling they only take issue slots. A `NOP` with a control word is
//! different: it was placed by the scheduler (or by a phase that pads
//! a hazard) to spend cycles or wait on scoreboards, and removing it would
//! break the timing it encodes. So only `NOP`s without a control word go,
//! guarded or not.
//!
//! The phase belongs before scheduling, and the IR properties only say
//! what holds, not what does not, so "not yet Scheduled" cannot be
//! required. Instead the phase invalidates `Scheduled` and `Encoded`: run
//! after the scheduler, it forces a new schedule (and encoding) before
//! anything that requires them, and the phase manager rejects a pipeline
//! that does not provide one. And since scheduled code gives every
//! instruction a control word, the phase removes nothing there anyway.

use ori_ir::{Function, Inst, Opcode, Phase, PhaseContext, PhaseError, Property, PropertySet};

/// Removes `NOP`s without a control word.
pub struct OriRemoveNopCode;

impl Phase for OriRemoveNopCode {
    fn name(&self) -> &'static str {
        "OriRemoveNopCode"
    }

    fn description(&self) -> &'static str {
        "Removes NOP instructions that carry no scheduling meaning"
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let Function { layout, blocks, insts, .. } = func;
        for &block in layout.iter() {
            blocks[block].insts.retain(|&i| !is_placeholder(&insts[i]));
        }
        Ok(())
    }
}

/// A `NOP` the scheduler has not given a meaning.
fn is_placeholder(inst: &Inst) -> bool {
    inst.op == Opcode::NOP && inst.ctrl.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::{Ctrl, Guard, Reg};

    #[test]
    fn only_nops_without_control_words_are_placeholders() {
        let nop = Inst::new(Opcode::NOP, vec![], vec![]);
        assert!(is_placeholder(&nop));
        let guarded = Inst { guard: Some(Guard { pred: Reg::PT, negated: true }), ..nop.clone() };
        assert!(is_placeholder(&guarded));
        let ctrl = Ctrl { stall: 0, yield_: false, write_sb: None, read_sb: None, wait: 0 };
        assert!(!is_placeholder(&Inst { ctrl: Some(ctrl), ..nop }));
        assert!(!is_placeholder(&Inst::new(Opcode::YIELD, vec![], vec![])));
    }
}
