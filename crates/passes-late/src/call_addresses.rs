//! `OriResolveCallAddresses`: the byte offsets calls need, once the code
//! is final.
//!
//! A call sets its return address with `MOV R20, offset` just before
//! `CALL.REL.NOINC` (`ops/call.rs` in ptx-lower writes 0 there); a taken
//! function address is `MOV R, `(function)`. Both are offsets from the
//! start of the kernel's code, where `OriLinkCallees` placed the callees:
//! known only after scheduling, so this runs just before encoding.
//! NVIDIA's code has the same immediates (`MOV R20, 0x2a0` before the call
//! at 0x290; `UMOV UR4, 0x820` for `op_add` at 0x820). A kernel's function
//! table (`FunctionAttrs::function_table`) gets its functions' offsets in
//! bank 2, as NVIDIA's `.nv.constant2.<kernel>` has them.
//!
//! With the knob `Relocatable` (`-c`) return addresses are absolute and
//! belong to the linker: the `MOV R20, 0` / `MOV R21, 0` stay as they are
//! and the object writer relocates them (`ptxas/src/object/calls.rs`);
//! only the `LEPC`-relative return of external calls is computed here.

use std::collections::HashMap;

use ori_ir::{
    BlockId, Function, Imm, Knob, KnobValue, Opcode, OperandKind, Phase, PhaseContext, PhaseError, Property,
    PropertySet, Reg,
};

/// The knobs of [`OriResolveCallAddresses`].
static KNOBS: &[Knob] = &[Knob {
    name: "Relocatable",
    default: KnobValue::Bool(false),
    doc: "-c: leave return addresses of calls within the module to the linker",
}];

/// Fills in return addresses and function addresses.
pub struct OriResolveCallAddresses;

/// The return-address register.
const RETURN_ADDRESS: Reg = ori_ir::abi::CUDA.return_address;

impl Phase for OriResolveCallAddresses {
    fn name(&self) -> &'static str {
        "OriResolveCallAddresses"
    }

    fn description(&self) -> &'static str {
        "Writes the code offsets of return points and of called functions into the instructions that load them"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Encoded])
    }

    fn knobs(&self) -> &'static [Knob] {
        KNOBS
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let relocatable = cx.knobs.bool("Relocatable");
        let mut block_addr: HashMap<BlockId, i64> = HashMap::new();
        let mut at = 0i64;
        for &b in &func.layout {
            block_addr.insert(b, at);
            at += 16 * func.blocks[b].insts.len() as i64;
        }
        let functions: HashMap<String, i64> =
            func.attrs.subroutines.iter().map(|s| (s.name.clone(), block_addr[&s.entry])).collect();
        // Entry `i + 1` of bank 2 is the code of the table's `i`-th function.
        for (i, name) in func.attrs.function_table.clone().iter().enumerate() {
            let (Some(&addr), Some(slot)) = (functions.get(name), func.attrs.bank2.get_mut(i + 1)) else {
                let message = format!("function table entry '{name}', which has no code here");
                return Err(PhaseError::in_function(func, message));
            };
            *slot = addr as u64;
        }
        for b in func.layout.clone() {
            let insts = func.blocks[b].insts.clone();
            for (k, &id) in insts.iter().enumerate() {
                if func.insts[id].op == Opcode::MOV
                    && let Some(OperandKind::Symbol(name)) = func.insts[id].uses.first().map(|u| &u.kind)
                {
                    let Some(&addr) = functions.get(name) else {
                        let message = format!("address of '{name}', which has no code here");
                        return Err(PhaseError::in_function(func, message));
                    };
                    func.insts[id].uses[0].kind = OperandKind::Imm(Imm::Int(addr));
                }
                if func.insts[id].op != Opcode::CALL {
                    continue;
                }
                let direct = matches!(func.insts[id].uses.first().map(|u| &u.kind), Some(OperandKind::Symbol(_)));
                if func.insts[id].has_mod("ABS") && !direct {
                    pc_relative_return(func, &insts[..k], k)?;
                    continue;
                }
                if relocatable {
                    continue;
                }
                let ret = block_addr[&b] + 16 * (k as i64 + 1);
                let set = insts[..k].iter().rev().find(|&&i| {
                    let inst = &func.insts[i];
                    inst.op == Opcode::MOV && inst.defs.first().and_then(|d| d.as_reg()) == Some(RETURN_ADDRESS)
                });
                let Some(&set) = set else {
                    return Err(PhaseError::in_function(func, "a call without its return address before it"));
                };
                func.insts[set].uses[0].kind = OperandKind::Imm(Imm::Int(ret));
            }
        }
        Ok(())
    }
}

/// A `CALL.ABS` at index `call` of its block, `before` the instructions
/// ahead of it there: with `LEPC R` (its own address, no target) ahead,
/// the `IADD3 R20, P, R, distance, RZ` that adds the distance from the
/// `LEPC` to the return point gets it. (`LEPC R20, ret` needs nothing.)
fn pc_relative_return(func: &mut Function, before: &[ori_ir::InstId], call: usize) -> Result<(), PhaseError> {
    let Some(lepc) = before.iter().rposition(|&i| func.insts[i].op == Opcode::LEPC) else {
        return Err(PhaseError::in_function(func, "a CALL.ABS without LEPC before it"));
    };
    if !func.insts[before[lepc]].uses.is_empty() {
        return Ok(());
    }
    let add = before[lepc..].iter().copied().find(|&i| {
        let inst = &func.insts[i];
        inst.op == Opcode::IADD3
            && !inst.has_mod("X")
            && inst.defs.first().and_then(|d| d.as_reg()) == Some(RETURN_ADDRESS)
    });
    let Some(add) = add else {
        return Err(PhaseError::in_function(func, "a CALL.ABS without its return-address sum"));
    };
    func.insts[add].uses[1].kind = OperandKind::Imm(Imm::Int(16 * (call - lepc) as i64 + 16));
    Ok(())
}
