//! `OriSaveCalleeRegisters`: a device function keeps the registers the ABI
//! makes callee-saved.
//!
//! After allocation, every callee-saved general register an out-of-line
//! function (`.func`) writes — values it keeps across its own calls, the
//! return address `R20`/`R21` it sets for them — is stored to its stack
//! frame at entry and loaded back before each `RET`, as NVIDIA's callees
//! do (recursion's `fib`: `STL [R1+0x10], R21` ... `STL [R1], R2` after
//! the frame is made, the `LDL`s before `IADD3 R1, R1, 0x18` and `RET`).
//! The slots follow the frame's locals and spill slots; `OriSetupStackFrame`
//! then moves `R1` by the whole frame. Kernels save nothing.

use ori_ir::abi::CUDA as ABI;
use ori_ir::{
    Address, Function, FunctionKind, Inst, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError, Property,
    PropertySet, Reg, RegFile,
};

/// Saves and restores the callee-saved registers a device function writes.
pub struct OriSaveCalleeRegisters;

/// The stack pointer.
const SP: Reg = ABI.stack_pointer;

impl Phase for OriSaveCalleeRegisters {
    fn name(&self) -> &'static str {
        "OriSaveCalleeRegisters"
    }

    fn description(&self) -> &'static str {
        "Stores the callee-saved registers a device function writes at its entry and reloads them before each RET"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if func.kind != FunctionKind::Func || func.insts_in_order().any(|(_, _, i)| i.written_regs().any(|r| r == SP)) {
            return Ok(());
        }
        let saved = written_callee_saved(func)?;
        let Some(&entry) = func.layout.first() else { return Ok(()) };
        if saved.is_empty() || already_saved(func, &saved) {
            return Ok(());
        }
        let base = func.attrs.frame_bytes.next_multiple_of(4);
        let slot = |k: usize| i64::from(base) + 4 * k as i64;
        let at = |k: usize| {
            Operand::from(OperandKind::Mem(Address { base: Some(SP), offset: slot(k), ..Address::default() }))
        };
        let stores: Vec<_> = saved
            .iter()
            .enumerate()
            .map(|(k, &r)| func.insts.alloc(Inst::new(Opcode::STL, vec![], vec![at(k), Operand::reg(r)])))
            .collect();
        func.blocks[entry].insts.splice(0..0, stores);
        for block in func.layout.clone() {
            let insts = func.blocks[block].insts.clone();
            let mut out = Vec::with_capacity(insts.len());
            for id in insts {
                if func.insts[id].op == Opcode::RET {
                    for (k, &r) in saved.iter().enumerate() {
                        out.push(func.insts.alloc(Inst::new(Opcode::LDL, vec![Operand::reg(r)], vec![at(k)])));
                    }
                }
                out.push(id);
            }
            func.blocks[block].insts = out;
        }
        func.attrs.frame_bytes = (base + 4 * saved.len() as u32).next_multiple_of(8);
        // ptxas counts the saves as spill traffic (`-v`: fib's five saved
        // registers are "20 bytes spill stores, 20 bytes spill loads").
        let rets = func.insts_in_order().filter(|(_, _, i)| i.op == Opcode::RET).count() as u32;
        func.attrs.spill_store_bytes += 4 * saved.len() as u32;
        func.attrs.spill_load_bytes += 4 * saved.len() as u32 * rets;
        Ok(())
    }
}

/// True when the entry block starts with the stores of `saved` (the
/// phase ran already: running it again changes nothing).
fn already_saved(func: &Function, saved: &[Reg]) -> bool {
    let entry = &func.blocks[func.layout[0]].insts;
    entry.len() >= saved.len()
        && entry.iter().zip(saved).all(|(&id, &r)| {
            let inst = &func.insts[id];
            inst.op == Opcode::STL && inst.uses.get(1).and_then(|u| u.as_reg()) == Some(r)
        })
}

/// The callee-saved general registers `func` writes, in number order. A
/// callee-saved uniform or barrier register written is an error: saving
/// those (through a general register) is not implemented.
fn written_callee_saved(func: &Function) -> Result<Vec<Reg>, PhaseError> {
    let mut saved = Vec::new();
    for (_, _, inst) in func.insts_in_order() {
        for reg in inst.written_regs().filter(|r| !r.is_virtual) {
            for n in reg.num..reg.num + u32::from(reg.width) {
                if !ABI.is_callee_saved(reg.file, n) || (reg.file == RegFile::R && n == SP.num) {
                    continue;
                }
                if reg.file != RegFile::R {
                    return Err(PhaseError::in_function(
                        func,
                        format!("saving callee-saved register {reg} across a call is not implemented yet"),
                    ));
                }
                let r = Reg::phys(RegFile::R, n);
                if !saved.contains(&r) {
                    saved.push(r);
                }
            }
        }
    }
    saved.sort_by_key(|r| r.num);
    Ok(saved)
}
