//! What a kernel with cloned callees (`FunctionAttrs::subroutines`, placed
//! by `OriLinkCallees`) adds to its cubin entry: a LOCAL FUNC symbol
//! `$kernel$callee` per clone with its call-frame information, the stack
//! the kernel needs, and the call relocations ptxas resolves itself.

use elfw::reloc::r_cuda;
use ori_ir::object::{CodeRelocation, FrameInfo, FrameRelocation, Subroutine};
use ori_ir::{CallTarget, Function, OpFlags, OperandKind};

/// `.debug_frame` CIE instructions of a cloned callee, as NVIDIA's ptxas
/// 13.5 writes them (recursion, device_calls; sm_80 and sm_90): CFA = R1,
/// R255, R1 and R20 unchanged, and the return address (register 256) =
/// the callee's code address + R20 (`DW_OP_addr 0; DW_OP_bregx R20 0;
/// DW_OP_plus`), the address relocated against the kernel.
const CALLEE_CIE_INSTRUCTIONS: [u8; 44] = [
    0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x08, 0x94, 0x80,
    0x80, 0x28, 0x16, 0x80, 0x82, 0x80, 0x28, 0x10, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x92, 0x94, 0x80, 0x80, 0x28, 0x00,
    0x22, 0x00,
];

/// Offset of the `DW_OP_addr` operand in [`CALLEE_CIE_INSTRUCTIONS`].
const CIE_ADDR_AT: u32 = 28;

/// The return-address register number ptxas records for callees (256,
/// with the register-class bits its DWARF numbers carry: 0x28 << 21).
const CALLEE_RETURN_REGISTER: u32 = 0x0500_0100;

/// The relocation type of a call's target field.
pub(super) fn call_target_kind(field: CallTarget) -> u32 {
    match field {
        CallTarget::Abs47At34 => r_cuda::ABS47_34,
        CallTarget::Abs55At16And34 => r_cuda::ABS55_16_34,
    }
}

/// The stack size recorded for a kernel whose callees recurse: ptxas's
/// "cannot be statically determined" (EIATTR_MIN_STACK_SIZE 0xffffffff).
const UNKNOWN_STACK: u32 = u32::MAX;

/// Call-related parts of a kernel's cubin entry.
pub(super) struct Calls {
    /// The clones, in code order.
    pub subroutines: Vec<Subroutine>,
    /// Stack bytes the kernel needs with its callees.
    pub stack_size: u32,
    /// Call-target relocations ptxas applied (traces in the cubin).
    pub resolved: Vec<CodeRelocation>,
    /// Offsets of the calls of external functions (`CALL.ABS`,
    /// EIATTR_SYSCALL_OFFSETS).
    pub syscalls: Vec<u32>,
}

/// The frames of the deepest chain of calls from the kernel's own code
/// (no recursion). The code from a clone's first block to the next
/// clone's is the clone; an indirect call may reach any clone. `None` when
/// the calls make a cycle.
fn deepest(func: &Function, block_at: &std::collections::HashMap<ori_ir::BlockId, u64>) -> Option<u32> {
    let subs = &func.attrs.subroutines;
    let owner = |at: u64| subs.iter().rposition(|s| block_at[&s.entry] <= at);
    let mut calls: Vec<Vec<usize>> = vec![Vec::new(); subs.len() + 1];
    let mut at = 0;
    for (_, _, inst) in func.insts_in_order() {
        if inst.op.has(OpFlags::CALL) && !inst.has_mod("ABS") {
            let from = owner(at).map_or(0, |i| i + 1);
            match inst.uses.as_slice() {
                [u] => {
                    if let OperandKind::Label(b) = u.kind
                        && let Some(to) = subs.iter().position(|s| s.entry == b)
                    {
                        calls[from].push(to);
                    }
                }
                _ => calls[from].extend(0..subs.len()),
            }
        }
        at += 16;
    }
    // Longest path in a DAG: each clone's depth once its callees' are
    // known. A cycle (recursion through a pointer) has no bound.
    #[derive(Clone, Copy)]
    enum Depth {
        Unknown,
        Visiting,
        Known(u32),
    }
    fn depth(k: usize, calls: &[Vec<usize>], subs: &[ori_ir::Subroutine], memo: &mut Vec<Depth>) -> Option<u32> {
        match memo[k + 1] {
            Depth::Known(d) => return Some(d),
            Depth::Visiting => return None,
            Depth::Unknown => memo[k + 1] = Depth::Visiting,
        }
        let mut below = 0;
        for &c in &calls[k + 1] {
            below = below.max(depth(c, calls, subs, memo)?);
        }
        let d = subs[k].frame_bytes + below;
        memo[k + 1] = Depth::Known(d);
        Some(d)
    }
    let mut memo = vec![Depth::Unknown; subs.len() + 1];
    let mut deepest = 0;
    for &c in &calls[0] {
        deepest = deepest.max(depth(c, &calls, subs, &mut memo)?);
    }
    Some(deepest)
}

/// The call-related parts of `func`'s entry; `code_len` is its code's size
/// with ptxas's padding (the last clone's symbol covers it).
pub(super) fn of(func: &Function, target: &ori_ir::Target, code_len: u64) -> Calls {
    let mut block_at = std::collections::HashMap::new();
    let mut at = 0u64;
    for &b in &func.layout {
        block_at.insert(b, at);
        at += 16 * func.blocks[b].insts.len() as u64;
    }
    let subs = &func.attrs.subroutines;
    let mut subroutines = Vec::new();
    for (k, s) in subs.iter().enumerate() {
        let offset = block_at[&s.entry];
        let end = subs.get(k + 1).map_or(code_len, |n| block_at[&n.entry]);
        let insts: Vec<&ori_ir::Inst> = func
            .insts_in_order()
            .enumerate()
            .filter(|(i, _)| (offset..end).contains(&(16 * *i as u64)))
            .map(|(_, (_, _, inst))| inst)
            .collect();
        subroutines.push(Subroutine {
            name: format!("${}${}", func.name, s.name),
            offset,
            size: end - offset,
            // ptxas records the kernel's frame for every clone.
            frame_size: func.attrs.frame_bytes,
            frame: FrameInfo {
                return_register: CALLEE_RETURN_REGISTER,
                cie_instructions: CALLEE_CIE_INSTRUCTIONS.to_vec(),
                cie_relocations: vec![FrameRelocation { offset: CIE_ADDR_AT, addend: offset }],
                fde_instructions: super::frame_rows::device_function_rows(&insts, false),
                ..FrameInfo::default()
            },
            mercury_offset: None,
        });
    }
    let stack_size = match deepest(func, &block_at) {
        Some(d) if !subs.iter().any(|s| s.recursive) => func.attrs.frame_bytes + d,
        _ => UNKNOWN_STACK,
    };
    let kind = call_target_kind(target.isa.call_target);
    let mut resolved = Vec::new();
    let mut syscalls = Vec::new();
    for (index, (_, _, inst)) in func.insts_in_order().enumerate() {
        if !inst.op.has(OpFlags::CALL) {
            continue;
        }
        // `CALL.ABS.NOINC `(f)` calls a module function through the linker
        // (`-c`); through a register it is a system call.
        let linked = matches!(inst.uses.as_slice(), [u] if matches!(u.kind, OperandKind::Symbol(_)));
        if inst.has_mod("ABS") && !linked {
            syscalls.push(16 * index as u32);
        }
        let callee = inst.uses.iter().find_map(|u| match u.kind {
            OperandKind::Label(b) if inst.uses.len() == 1 => subs.iter().position(|s| s.entry == b),
            _ => None,
        });
        if let Some(c) = callee {
            let symbol = subroutines[c].name.clone();
            resolved.push(CodeRelocation { offset: 16 * index as u64, kind, symbol, addend: 0 });
        }
    }
    Calls { subroutines, stack_size, resolved, syscalls }
}
