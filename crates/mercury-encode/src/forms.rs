//! The encoder's answer to "does this instruction have a form?", for
//! phases that choose operand shapes before registers are allocated
//! ([`ori_ir::Forms`]).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use ori_ir::{Forms, Inst, Reg};

use crate::encode::encode_as_nvidia;
use crate::{CodeLabels, Sm};

/// [`ori_ir::Forms`] for one SM family: tries to encode the instruction
/// with every virtual register replaced by physical register 0 of its
/// file and width (aligned for every tuple width), which gives a register
/// operand the shape and fields any allocation would.
#[derive(Copy, Clone, Debug)]
pub struct EncoderForms(pub Sm);

impl Forms for EncoderForms {
    fn encodes(&self, inst: &Inst) -> bool {
        let mut inst = inst.clone();
        let regs = inst.defs.iter_mut().chain(inst.uses.iter_mut()).flat_map(|op| op.regs_mut());
        for reg in regs.chain(inst.guard.as_mut().map(|g| &mut g.pred)) {
            if reg.is_virtual {
                *reg = Reg::phys(reg.file, 0).wide(reg.width);
            }
        }
        // A refusal is the slow answer: every family is searched first.
        // The whole normalised instruction is the key (by value: `Inst`'s
        // equality is every field's, as its debug text was, without
        // formatting it), so a cached answer is the answer, whichever
        // thread asked first.
        let refused = refusals(self.0);
        if refused.lock().is_ok_and(|set| set.contains(&inst)) {
            return false;
        }
        let ok = encode_as_nvidia(self.0, &inst, 0, &CodeLabels::new()).is_ok();
        if !ok && let Ok(mut set) = refused.lock() {
            set.insert(inst);
        }
        ok
    }
}

/// The normalised instructions `sm` has no form for, asked so far in this
/// process.
fn refusals(sm: Sm) -> &'static Mutex<HashSet<Inst>> {
    static REFUSALS: [OnceLock<Mutex<HashSet<Inst>>>; Sm::ALL.len()] = [const { OnceLock::new() }; Sm::ALL.len()];
    REFUSALS[sm.index()].get_or_init(Default::default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::{Opcode, Operand, RegFile};

    fn iadd3(b: Operand) -> Inst {
        let r = |n| Operand::reg(Reg::virt(RegFile::R, n));
        Inst::new(Opcode::IADD3, vec![r(0)], vec![r(1), b, Operand::reg(Reg::RZ)])
    }

    #[test]
    fn constant_operands_encode_where_nvidia_uses_them() {
        let bank = Operand::cbank(0, 0x160);
        let ur = Operand::reg(Reg::virt(RegFile::UR, 7));
        // sm_80 reads parameters from the bank, sm_90 from uniform registers.
        assert!(EncoderForms(Sm::Sm80).encodes(&iadd3(bank.clone())));
        assert!(EncoderForms(Sm::Sm90).encodes(&iadd3(ur)));
        assert!(!EncoderForms(Sm::Sm90).encodes(&iadd3(bank)));
        assert!(!EncoderForms(Sm::Sm80).encodes(&iadd3(Operand::reg(Reg::virt(RegFile::P, 1)))));
    }
}
