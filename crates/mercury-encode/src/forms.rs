//! The encoder's answer to "does this instruction have a form?", for
//! phases that choose operand shapes before registers are allocated
//! ([`ori_ir::Forms`]).

use std::sync::{Mutex, OnceLock};

use ori_ir::{Forms, FxHashMap, Inst, Reg};

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
        // The word depends on none of these: an answer is shared by every
        // instruction that differs only in its source line or schedule.
        inst.loc = None;
        inst.ctrl = None;
        inst.encoding = None;
        // Both answers are slow (a refusal searches every family first, an
        // acceptance formats and places the operands) and the phases ask
        // the same few normalised instructions thousands of times. The
        // whole normalised instruction is the key (by value: `Inst`'s
        // equality is every field's), so a cached answer is the answer,
        // whichever thread asked first.
        let answers = answers(self.0);
        if let Some(&ok) = answers.lock().ok().as_ref().and_then(|map| map.get(&inst)) {
            return ok;
        }
        let ok = encode_as_nvidia(self.0, &inst, 0, &CodeLabels::new()).is_ok();
        if let Ok(mut map) = answers.lock() {
            // Bounded, for a process that compiles many modules (the
            // library): forgetting only costs asking again.
            if map.len() >= MAX_ANSWERS {
                map.clear();
            }
            map.insert(inst, ok);
        }
        ok
    }
}

/// How many answers [`answers`] keeps per SM family.
const MAX_ANSWERS: usize = 1 << 16;

/// Whether `sm` has a form for each normalised instruction asked so far in
/// this process.
fn answers(sm: Sm) -> &'static Mutex<FxHashMap<Inst, bool>> {
    static ANSWERS: [OnceLock<Mutex<FxHashMap<Inst, bool>>>; Sm::ALL.len()] =
        [const { OnceLock::new() }; Sm::ALL.len()];
    ANSWERS[sm.index()].get_or_init(Default::default)
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
