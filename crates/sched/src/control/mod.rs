//! What the two control-word phases share: which instructions need which
//! scoreboards, padding for latencies longer than one stall, the yield
//! bit, and writing the result back into the function.

pub(crate) mod advanced;
pub(crate) mod o0;

use ori_ir::{Ctrl, Function, Inst, InstId, OpFlags, Opcode, RegFile};

use crate::latency::{LatencyTable, inst_row_op};
use crate::units::{self, Unit};

/// A control word with nothing set but `stall`.
pub(crate) fn plain(stall: u8) -> Ctrl {
    Ctrl { stall, yield_: false, write_sb: None, read_sb: None, wait: 0 }
}

/// True when `inst` writes a result the hardware signals late: it needs a
/// write scoreboard and its readers a wait.
pub(crate) fn is_variable_producer(inst: &Inst, table: &LatencyTable) -> bool {
    table.is_variable(inst_row_op(inst)) && !units::writes(inst).is_empty() && !warpgroup_async(inst)
}

/// `HGMMA` (and `QGMMA`) reads and writes its accumulators asynchronously, tracked by
/// the warpgroup barrier (`gsb0`, waited for by `WARPGROUP.DEPBAR`), not by
/// scoreboards: NVIDIA sets none on it, and nvdisasm rejects an HGMMA with
/// a write scoreboard as an illegal instruction. The scheduler keeps its
/// accumulators' other readers and writers behind the `WARPGROUP.DEPBAR`
/// (`list/deps.rs`).
pub(crate) fn warpgroup_async(inst: &Inst) -> bool {
    inst.op.is_warpgroup_mma()
}

/// Per-thread registers `inst` may read after issue: the sources of a
/// variable-latency instruction or a store (NVIDIA protects exactly these
/// with read scoreboards; uniform registers and guards are read at issue:
/// NVIDIA's code overwrites the guard of a store with a read scoreboard
/// without waiting on it).
pub(crate) fn late_reads(inst: &Inst, table: &LatencyTable) -> Vec<Unit> {
    // A memory barrier completes late; a proxy fence after it waits for
    // that (`Unit::FENCE`).
    if inst.op == Opcode::MEMBAR {
        return vec![Unit::FENCE];
    }
    if !(table.is_variable(inst_row_op(inst)) || inst.op.has(OpFlags::STORE)) || warpgroup_async(inst) {
        return Vec::new();
    }
    let writes = units::writes(inst);
    units::reads(inst).into_iter().filter(|u| u.parts().0 == RegFile::R && !writes.contains(u)).collect()
}

/// Cycles the next instruction must wait after `inst` so that every
/// later reader finds its fixed-latency result (the guard latency when it
/// writes a predicate a later instruction may be guarded by); 0 for
/// variable-latency results and instructions without results.
pub(crate) fn own_latency(inst: &Inst, table: &LatencyTable) -> u8 {
    let writes = units::writes(inst);
    if writes.is_empty() {
        return 0;
    }
    let op = inst_row_op(inst);
    let writes_pred = writes.iter().any(|u| u.parts().0.is_predicate());
    let raw = table.fixed_latency(op, false, true).unwrap_or(0);
    let guard = if writes_pred { table.fixed_latency(op, true, true).unwrap_or(0) } else { 0 };
    raw.max(guard)
}

/// The yield bit as NVIDIA sets it (measured on the corpus, see
/// `docs/sched.md`): set on stalls of 1 to 11 cycles unless the stall is
/// there because the next instruction reads this one's result; clear on
/// long stalls and on stall 0.
pub fn yield_bit(stall: u8, next_reads_result: bool) -> bool {
    (1..=11).contains(&stall) && !next_reads_result
}

/// Sets the yield bit of every instruction of `func` from its stall and
/// its successor in layout order.
pub(crate) fn set_yield_bits(func: &mut Function) {
    let order: Vec<InstId> = func.insts_in_order().map(|(_, id, _)| id).collect();
    for (k, &id) in order.iter().enumerate() {
        let next_reads = order.get(k + 1).is_some_and(|&n| {
            let writes = units::writes(&func.insts[id]);
            units::reads(&func.insts[n]).iter().any(|u| writes.contains(u))
        });
        if let Some(ctrl) = func.insts[id].ctrl.as_mut() {
            ctrl.yield_ = yield_bit(ctrl.stall, next_reads);
        }
    }
}

/// NOPs whose stalls add up to `cycles` (for latencies beyond one stall).
pub(crate) fn nops(cycles: u8) -> impl Iterator<Item = Inst> {
    let full = cycles / Ctrl::MAX_STALL;
    let rest = cycles % Ctrl::MAX_STALL;
    std::iter::repeat_n(Ctrl::MAX_STALL, usize::from(full)).chain((rest > 0).then_some(rest)).map(|stall| {
        let mut nop = Inst::new(Opcode::NOP, Vec::new(), Vec::new());
        nop.ctrl = Some(plain(stall));
        nop
    })
}

/// Takes unguarded NOPs out of every block: before scheduling they mean
/// nothing, and the phases place their own (which keeps each phase a
/// fixed point of itself).
pub(crate) fn remove_nops(func: &mut Function) {
    for &b in &func.layout {
        let insts = &func.insts;
        func.blocks[b].insts.retain(|&i| !(insts[i].op == Opcode::NOP && insts[i].guard.is_none()));
    }
}
