//! A cursor for building instructions into a function.

use crate::function::{BlockId, Function, InstId};
use crate::inst::{Guard, Inst};
use crate::opcode::{Modifier, Opcode};
use crate::operand::Operand;
use crate::reg::{Reg, RegFile};

/// Appends instructions at the end of a current block.
pub struct Builder<'f> {
    func: &'f mut Function,
    block: BlockId,
}

impl<'f> Builder<'f> {
    /// A builder appending to `block` of `func`.
    pub fn new(func: &'f mut Function, block: BlockId) -> Builder<'f> {
        Builder { func, block }
    }

    /// A builder for a function without blocks: creates the entry block.
    pub fn at_new_function(func: &'f mut Function) -> Builder<'f> {
        let block = func.add_block();
        Builder { func, block }
    }

    /// The function being built.
    pub fn func(&mut self) -> &mut Function {
        self.func
    }

    /// The block instructions go to.
    pub fn current_block(&self) -> BlockId {
        self.block
    }

    /// Appends a new block to the layout (without switching to it).
    pub fn new_block(&mut self) -> BlockId {
        self.func.add_block()
    }

    /// Makes `block` the insertion point.
    pub fn switch_to(&mut self, block: BlockId) {
        self.block = block;
    }

    /// A fresh virtual register.
    pub fn vreg(&mut self, file: RegFile, width: u8) -> Reg {
        self.func.new_vreg(file, width)
    }

    /// Starts an instruction; finish it with [`InstBuilder::emit`].
    pub fn op(&mut self, op: Opcode) -> InstBuilder<'_, 'f> {
        InstBuilder { builder: self, inst: Inst::new(op, Vec::new(), Vec::new()) }
    }

    /// Appends a finished instruction.
    pub fn push(&mut self, inst: Inst) -> InstId {
        self.func.push_inst(self.block, inst)
    }
}

/// One instruction under construction.
pub struct InstBuilder<'b, 'f> {
    builder: &'b mut Builder<'f>,
    inst: Inst,
}

impl InstBuilder<'_, '_> {
    /// Adds modifiers by name.
    ///
    /// # Panics
    /// If a name is not a known modifier (a bug in the caller).
    pub fn mods(mut self, names: &[&str]) -> Self {
        self.inst.mods.extend(Modifier::list(names));
        self
    }

    /// Adds a destination.
    pub fn def(mut self, operand: impl Into<Operand>) -> Self {
        self.inst.defs.push(operand.into());
        self
    }

    /// Adds a source.
    pub fn src(mut self, operand: impl Into<Operand>) -> Self {
        self.inst.uses.push(operand.into());
        self
    }

    /// Guards the instruction with `@pred` (or `@!pred`).
    pub fn guard(mut self, pred: Reg, negated: bool) -> Self {
        self.inst.guard = Some(Guard { pred, negated });
        self
    }

    /// Appends the instruction to the current block.
    pub fn emit(self) -> InstId {
        self.builder.push(self.inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::FunctionKind;
    use crate::reg::SpecialReg;
    use crate::{OperandKind, text};

    #[test]
    fn builds_a_small_kernel() {
        let mut func = Function::new("k", FunctionKind::Entry);
        let mut b = Builder::at_new_function(&mut func);
        let tid = b.vreg(RegFile::R, 1);
        b.op(Opcode::S2R).def(tid).src(OperandKind::Special(SpecialReg::TidX)).emit();
        let exit = b.new_block();
        b.op(Opcode::BRA).src(Operand::label(exit)).emit();
        b.switch_to(exit);
        b.op(Opcode::EXIT).emit();
        assert_eq!(
            text::print_function(&func),
            ".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n    BRA bb1\nbb1:\n    EXIT\n}\n"
        );
    }
}
