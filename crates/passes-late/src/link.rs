//! `OriLinkCallees`: whole-program code places every device function a
//! kernel may call after the kernel's own code, as NVIDIA's ptxas does
//! (a clone per kernel, the cubin symbol `$kernel$function`).
//!
//! Functions compiled out of line (`.func` in the module after allocation,
//! their frames and saves done) are cloned, block by block, into each
//! kernel that reaches them through direct calls (`CALL.REL.NOINC
//! `(name)`) or by taking their address (`MOV R, `(name)`), transitively.
//! Calls then branch to the clone's first block, and `RET.REL` and
//! indirect `CALL.REL` name the kernel's first block (their register holds
//! an offset from the start of the kernel's code). The kernel records the
//! clones in `FunctionAttrs::subroutines`; the device functions leave the
//! module. A kernel with a function table (`FunctionAttrs::function_table`)
//! gets every function of it. Byte offsets (return addresses, function
//! addresses, the table's entries) are filled in once the code is final
//! (`OriResolveCallAddresses`).

use std::collections::{HashMap, HashSet};

use ori_ir::{
    BlockId, Function, FunctionKind, Imm, Knob, KnobValue, Modifier, Module, Opcode, OperandKind, Phase, PhaseContext,
    PhaseError, Property, PropertySet, Subroutine,
};

/// The knobs of [`OriLinkCallees`].
static KNOBS: &[Knob] = &[Knob {
    name: "Relocatable",
    default: KnobValue::Bool(false),
    doc: "-c: keep every function in its own section and leave calls to the linker",
}];

/// Clones device functions into the kernels that call them.
pub struct OriLinkCallees;

impl Phase for OriLinkCallees {
    fn name(&self) -> &'static str {
        "OriLinkCallees"
    }

    fn description(&self) -> &'static str {
        "Places a copy of every device function a kernel may call after the kernel's code"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn knobs(&self) -> &'static [Knob] {
        KNOBS
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        Err(PhaseError::in_function(func, "OriLinkCallees places functions into kernels: it runs on whole modules"))
    }

    fn run_module(&self, module: &mut Module, cx: &PhaseContext<'_>) -> Option<Result<(), PhaseError>> {
        if cx.knobs.bool("Relocatable") {
            let externals: Vec<(u32, String)> =
                module.externals.iter().filter_map(|e| Some((module.address_slot(e)?, e.clone()))).collect();
            let lepc_label = cx.target.isa.lepc_label;
            return Some(module.functions.iter_mut().try_for_each(|f| {
                external_calls(f, &externals, lepc_label)?;
                relocatable_calls(f)
            }));
        }
        Some(link(module))
    }
}

/// `-c`: calls of functions outside the module. Whole programs load their
/// address from constant bank 4 (`LDC.64 R6, c[0x4][slot]`, `LEPC R20,
/// ret`, `CALL.ABS.NOINC R6`; ptx-lower `ops/call.rs`); objects have no
/// bank 4 and call them like module functions, `CALL.ABS.NOINC `(f)` with
/// the absolute return address in `R20:R21`, which the linker resolves
/// (NVIDIA's `-c` code for an `.extern .func`). `externals` gives each
/// external function's bank-4 slot. The `LDC` goes when nothing else reads
/// its register (a scan in layout order up to the register's next write).
fn external_calls(func: &mut Function, externals: &[(u32, String)], lepc_label: bool) -> Result<(), PhaseError> {
    let mut loads = Vec::new();
    for b in func.layout.clone() {
        let mut k = 0;
        while k < func.blocks[b].insts.len() {
            let insts = func.blocks[b].insts.clone();
            let call = &func.insts[insts[k]];
            let target = match call.uses.as_slice() {
                [u] if call.op == Opcode::CALL && call.has_mod("ABS") => u.as_reg(),
                _ => None,
            };
            let Some(fp) = target else {
                k += 1;
                continue;
            };
            if !lepc_label {
                // The return address comes from MOVs there (ptx-lower's ops/call.rs).
                let message =
                    "calls of external functions in relocatable (-c) output before sm_90 are not implemented yet";
                return Err(PhaseError::in_function(func, message));
            }
            let before = &insts[..k];
            let load = before.iter().rposition(|&i| func.insts[i].written_regs().any(|r| overlaps(r, fp)));
            let slot = load.and_then(|l| match (&func.insts[before[l]].op, func.insts[before[l]].uses.as_slice()) {
                (Opcode::LDC, [u]) => match &u.kind {
                    OperandKind::CBank(c) if c.bank == ori_ir::Bank::Fixed(4) && c.reg.is_none() => Some(c.offset),
                    _ => None,
                },
                _ => None,
            });
            let name = slot.and_then(|s| externals.iter().find(|e| i64::from(e.0) == i64::from(s)));
            let lepc = before.iter().rposition(|&i| func.insts[i].op == Opcode::LEPC);
            let (Some((_, name)), Some(load), Some(lepc)) = (name, load, lepc) else {
                return Err(PhaseError::in_function(func, "an external call without its LDC and LEPC"));
            };
            loads.push(before[load]);
            func.insts[insts[k]].uses[0].kind = OperandKind::Symbol(name.clone());
            let mov = |r: u32| {
                let dest = ori_ir::Operand::reg(ori_ir::Reg::phys(ori_ir::RegFile::R, r));
                ori_ir::Inst::new(Opcode::MOV, vec![dest], vec![ori_ir::Operand::int(0)])
            };
            // `LEPC R20, ret` becomes the two halves of the return address.
            func.insts[insts[lepc]] = mov(20);
            let hi = func.insts.alloc(mov(21));
            func.blocks[b].insts.insert(lepc + 1, hi);
            k += 2;
        }
    }
    for load in loads {
        remove_if_unread(func, load)?;
    }
    Ok(())
}

/// True when registers `a` and `b` share a word.
fn overlaps(a: ori_ir::Reg, b: ori_ir::Reg) -> bool {
    a.file == b.file
        && a.is_virtual == b.is_virtual
        && a.num < b.num + u32::from(b.width)
        && b.num < a.num + u32::from(a.width)
}

/// Removes instruction `id` when no instruction after it (in layout order)
/// reads what it writes before the register is written again.
fn remove_if_unread(func: &mut Function, id: ori_ir::InstId) -> Result<(), PhaseError> {
    let Some(dest) = func.insts[id].written_regs().next() else { return Ok(()) };
    let order: Vec<_> = func.insts_in_order().map(|(b, i, _)| (b, i)).collect();
    let Some(at) = order.iter().position(|&(_, i)| i == id) else { return Ok(()) };
    for &(_, i) in &order[at + 1..] {
        let inst = &func.insts[i];
        if inst.read_regs().any(|r| overlaps(r, dest)) {
            let message = "an external function's address kept for another use in relocatable (-c) output";
            return Err(PhaseError::in_function(func, format!("{message} is not implemented yet")));
        }
        if inst.written_regs().any(|r| overlaps(r, dest)) {
            break;
        }
    }
    let block = order[at].0;
    func.blocks[block].insts.retain(|&i| i != id);
    Ok(())
}

/// `-c`: rewrites `func`'s calls and returns for the linker (see the module
/// comment). Calls through pointers and taken addresses (`__UFT` tables in
/// NVIDIA's objects) are not written yet.
fn relocatable_calls(func: &mut Function) -> Result<(), PhaseError> {
    let start = func.layout[0];
    let ids: Vec<_> = func.insts_in_order().map(|(_, id, _)| id).collect();
    for id in ids {
        let inst = &func.insts[id];
        let symbol = inst.uses.iter().find_map(|u| match &u.kind {
            OperandKind::Symbol(name) => Some(name.clone()),
            _ => None,
        });
        match (inst.op, inst.uses.len(), symbol) {
            (Opcode::CALL, 1, Some(name)) if name == func.name => {
                func.insts[id].uses[0].kind = OperandKind::Label(start);
            }
            (Opcode::CALL, 1, Some(_)) => func.insts[id].mods = Modifier::list(&["ABS", "NOINC"]),
            (Opcode::RET, 2, _) => {
                let ret = &mut func.insts[id];
                ret.mods = Modifier::list(&["ABS", "NODEC"]);
                ret.uses[1].kind = OperandKind::Imm(Imm::Int(0));
            }
            (Opcode::CALL, 2, _) | (Opcode::MOV, _, Some(_)) => {
                let message = "calls through function pointers in relocatable (-c) output are not implemented yet";
                return Err(PhaseError::in_function(func, message));
            }
            _ => {}
        }
    }
    Ok(())
}

fn link(module: &mut Module) -> Result<(), PhaseError> {
    if !module.functions.iter().any(|f| f.kind == FunctionKind::Func) {
        return Ok(());
    }
    let (kernels, funcs): (Vec<Function>, Vec<Function>) =
        std::mem::take(&mut module.functions).into_iter().partition(|f| f.kind == FunctionKind::Entry);
    let by_name: HashMap<&str, &Function> = funcs.iter().map(|f| (f.name.as_str(), f)).collect();
    // Every kernel that has the module's function table has all of it.
    let table: Vec<String> =
        kernels.iter().map(|k| k.attrs.function_table.clone()).find(|t| !t.is_empty()).unwrap_or_default();
    let recursive: HashSet<&str> = by_name.keys().copied().filter(|&f| reaches(&by_name, &table, f, f)).collect();
    for mut kernel in kernels {
        let order = reachable(&kernel, &by_name, &table);
        for name in &order {
            let Some(callee) = by_name.get(name.as_str()) else {
                return Err(PhaseError::in_function(&kernel, format!("call of '{name}', which has no code here")));
            };
            let entry = append(&mut kernel, callee);
            kernel.attrs.subroutines.push(Subroutine {
                name: name.clone(),
                entry,
                frame_bytes: callee.attrs.frame_bytes,
                recursive: recursive.contains(name.as_str()),
                spill_bytes: (callee.attrs.spill_store_bytes, callee.attrs.spill_load_bytes),
                entry_loc: callee.attrs.entry_loc,
            });
        }
        retarget(&mut kernel)?;
        module.functions.push(kernel);
    }
    Ok(())
}

/// The functions `func` names (call targets and taken addresses), in
/// order of first mention; a kernel with a function table, or a function
/// that calls through a pointer in a module with one (`table`), may call
/// any function of it.
fn named(func: &Function, table: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let indirect = func.insts_in_order().any(|(_, _, inst)| {
        inst.op == Opcode::CALL && !inst.has_mod("ABS") && inst.uses.first().is_some_and(|u| u.as_reg().is_some())
    });
    let table = if indirect { table } else { &[] };
    for name in func.attrs.function_table.iter().chain(table) {
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    for (_, _, inst) in func.insts_in_order() {
        for op in &inst.uses {
            if let OperandKind::Symbol(name) = &op.kind
                && matches!(inst.op, Opcode::CALL | Opcode::MOV)
                && !out.contains(name)
            {
                out.push(name.clone());
            }
        }
    }
    out
}

/// Every function `kernel` may reach, in placement order: breadth first
/// from the kernel, each in order of first mention.
fn reachable(kernel: &Function, funcs: &HashMap<&str, &Function>, table: &[String]) -> Vec<String> {
    let mut order = named(kernel, table);
    let mut next = 0;
    while next < order.len() {
        if let Some(f) = funcs.get(order[next].as_str()) {
            for n in named(f, table) {
                if !order.contains(&n) {
                    order.push(n);
                }
            }
        }
        next += 1;
    }
    order
}

/// True when `from` reaches `to` through the functions it names.
fn reaches(funcs: &HashMap<&str, &Function>, table: &[String], from: &str, to: &str) -> bool {
    let mut seen = HashSet::new();
    let mut stack: Vec<String> = funcs.get(from).map(|f| named(f, table)).unwrap_or_default();
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        if seen.insert(f.clone())
            && let Some(g) = funcs.get(f.as_str())
        {
            stack.extend(named(g, table));
        }
    }
    false
}

/// Appends a copy of `callee`'s blocks to `kernel`'s layout; returns the
/// copy's first block.
fn append(kernel: &mut Function, callee: &Function) -> BlockId {
    let map: HashMap<BlockId, BlockId> = callee.layout.iter().map(|&b| (b, kernel.add_block())).collect();
    for &b in &callee.layout {
        for &id in &callee.blocks[b].insts {
            let mut inst = callee.insts[id].clone();
            for op in inst.uses.iter_mut() {
                if let OperandKind::Label(target) = &mut op.kind
                    && let Some(&t) = map.get(target)
                {
                    *target = t;
                }
            }
            kernel.push_inst(map[&b], inst);
        }
    }
    map[&callee.layout[0]]
}

/// Direct calls to the clones' first blocks; returns and indirect calls
/// relative to the kernel's start.
fn retarget(kernel: &mut Function) -> Result<(), PhaseError> {
    let entries: HashMap<String, BlockId> =
        kernel.attrs.subroutines.iter().map(|s| (s.name.clone(), s.entry)).collect();
    let start = kernel.layout[0];
    let function = Some(kernel.name.clone());
    let ids: Vec<_> = kernel.insts_in_order().map(|(_, id, _)| id).collect();
    for id in ids {
        let inst = &mut kernel.insts[id];
        // `RET.REL.NODEC R, start` and `CALL.REL.NOINC R, start`.
        let relative = matches!(inst.op, Opcode::RET | Opcode::CALL) && inst.uses.len() == 2;
        let call = inst.op == Opcode::CALL;
        for op in inst.uses.iter_mut() {
            match &op.kind {
                OperandKind::Symbol(name) if call => {
                    let target = *entries.get(name).ok_or_else(|| PhaseError {
                        function: function.clone(),
                        message: format!("no code for '{name}'"),
                    })?;
                    op.kind = OperandKind::Label(target);
                }
                OperandKind::Label(_) if relative => op.kind = OperandKind::Label(start),
                _ => {}
            }
        }
    }
    Ok(())
}
