//! `OriSetupStackFrame`: the kernel prologue that points the stack pointer
//! `R1` at the thread's stack frame.
//!
//! Local variables and spill slots are addressed `[R1 + offset]`, the frame
//! lying at `R1 .. R1 + frame_bytes`. The driver puts the top of each
//! thread's local-memory stack in constant bank 0 (`Target::stack_top`,
//! `c[0x0][0x28]` before sm_100); a kernel that uses the
//! stack pointer loads it and, when it has a frame, moves it down by the
//! frame's size, as NVIDIA's prologue does (the ISA facts `bank_operands`
//! and `imm_add` choose the forms; sm_90: `LDC R1, c[0x0][0x28]`,
//! `VIADD R1, R1, -size`; sm_80: `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]`,
//! `IADD3 R1, R1, -size, RZ`). Kernels that never read `R1` get no
//! prologue (NVIDIA's code loads `R1` in every kernel; nothing reads it
//! there either).
//!
//! The frame's size is known only once allocation has added its spill
//! slots, so the phase runs after `AllocateRegisters`. A device function
//! compiled out of line takes its frame off the caller's stack pointer and
//! gives it back before each `RET` (NVIDIA's callees: `IADD3 R1, R1,
//! -size, RZ` first, `IADD3 R1, R1, size, RZ` just before `RET`). A kernel
//! that calls functions loads `R1` even without a frame of its own. A
//! device function's stack arguments lie above its frame, in the caller's
//! outgoing area: their loads get the frame's size added to their offset.

use ori_ir::{
    Function, FunctionKind, INCOMING_ARGS, ImmAdd, Inst, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError,
    Property, PropertySet, Reg,
};

/// Inserts the stack-pointer prologue of kernels that use the stack.
pub struct OriSetupStackFrame;

/// The stack pointer.
const SP: Reg = ori_ir::abi::CUDA.stack_pointer;

impl Phase for OriSetupStackFrame {
    fn name(&self) -> &'static str {
        "OriSetupStackFrame"
    }

    fn description(&self) -> &'static str {
        "Loads the stack pointer R1 and moves it below the frame in kernels that use the stack"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if func.kind == FunctionKind::Func {
            callee_frame(func);
            return Ok(());
        }
        if !uses_stack(func) {
            return Ok(());
        }
        let Some(&entry) = func.layout.first() else { return Ok(()) };
        let isa = cx.target.isa;
        let top = Operand::cbank(0, cx.target.stack_top);
        let rz = || Operand::reg(Reg::RZ);
        let mut prologue = vec![if isa.bank_operands {
            let mut mov = Inst::new(Opcode::IMAD, vec![SP.into()], vec![rz(), rz(), top]);
            mov.mods = ori_ir::Modifier::list(&["MOV", "U32"]);
            mov
        } else {
            Inst::new(Opcode::LDC, vec![SP.into()], vec![top])
        }];
        let size = i64::from(func.attrs.frame_bytes);
        if size != 0 {
            prologue.push(match isa.imm_add {
                ImmAdd::Viadd => {
                    // The encoder reads VIADD's immediate as a 32-bit word.
                    let word = Operand::int(i64::from((-size) as u32));
                    Inst::new(Opcode::VIADD, vec![SP.into()], vec![SP.into(), word])
                }
                ImmAdd::Iadd => Inst::new(Opcode::IADD, vec![SP.into()], vec![SP.into(), Operand::int(-size)]),
                ImmAdd::Iadd3 => Inst::new(Opcode::IADD3, vec![SP.into()], vec![SP.into(), Operand::int(-size), rz()]),
            });
        }
        let ids: Vec<_> = prologue.into_iter().map(|i| func.insts.alloc(i)).collect();
        func.blocks[entry].insts.splice(0..0, ids);
        Ok(())
    }
}

/// A device function's frame: `R1` moved down at entry and back up before
/// every `RET` (nothing when the function has no frame or adjusts `R1`
/// already).
fn callee_frame(func: &mut Function) {
    let size = i64::from(func.attrs.frame_bytes);
    incoming_arguments(func, size);
    let Some(&entry) = func.layout.first() else { return };
    if size == 0 || func.insts_in_order().any(|(_, _, inst)| inst.written_regs().any(|r| r == SP)) {
        return;
    }
    let adjust =
        |by: i64| Inst::new(Opcode::IADD3, vec![SP.into()], vec![SP.into(), Operand::int(by), Operand::reg(Reg::RZ)]);
    let down = func.insts.alloc(adjust(-size));
    func.blocks[entry].insts.insert(0, down);
    for block in func.layout.clone() {
        let insts = func.blocks[block].insts.clone();
        let mut out = Vec::with_capacity(insts.len() + 1);
        for id in insts {
            if func.insts[id].op == Opcode::RET {
                out.push(func.insts.alloc(adjust(size)));
            }
            out.push(id);
        }
        func.blocks[block].insts = out;
    }
}

/// The loads of stack arguments (`[R1 + INCOMING_ARGS + o]`, ptx-lower
/// `ops/call.rs`) read above the frame of `size` bytes: `[R1 + size + o]`
/// (NVIDIA's `LDL R0, [R1+0x80]` in a callee with a 0x80-byte frame).
fn incoming_arguments(func: &mut Function, size: i64) {
    let ids: Vec<_> = func.insts_in_order().map(|(_, id, _)| id).collect();
    for id in ids {
        for op in func.insts[id].uses.iter_mut() {
            if let OperandKind::Mem(a) = &mut op.kind
                && a.base == Some(SP)
                && a.offset >= INCOMING_ARGS
            {
                a.offset += size - INCOMING_ARGS;
            }
        }
    }
}

/// True when the function has a frame, reads the stack pointer or calls
/// functions (whose frames start at it), and
/// does not set it up already (a kernel's code writes `R1` only in its
/// prologue, so running the phase twice changes nothing).
fn uses_stack(func: &Function) -> bool {
    let insts = || func.insts_in_order().map(|(_, _, inst)| inst);
    if insts().any(|inst| inst.written_regs().any(|r| r == SP)) {
        return false;
    }
    func.attrs.frame_bytes != 0 || insts().any(|inst| inst.op == Opcode::CALL || inst.read_regs().any(|r| r == SP))
}
