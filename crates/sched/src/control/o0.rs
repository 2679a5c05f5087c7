//! `ProcessO0WaitsAndSBs`: control words that are correct by construction
//! and make no attempt at speed (ptxas's phase of the same name runs at
//! -O0).
//!
//! Every fixed-latency result is covered by its producer's own stall; every
//! variable-latency producer signals scoreboard 0, every instruction that
//! reads registers late (stores, loads, other variable-latency operations)
//! signals scoreboard 1, and the next instruction waits on both. So nothing
//! is ever in flight past the next instruction, whatever the control flow.

use ori_ir::{Ctrl, Function, Phase, PhaseContext, PhaseError, Property, PropertySet};

use super::{is_variable_producer, late_reads, nops, own_latency, plain, remove_nops, set_yield_bits};
use crate::latency::{LatencyTable, inst_row_op};

/// Scoreboard every variable-latency result is signalled on.
const WRITE_SB: u8 = 0;
/// Scoreboard every late read is signalled on.
const READ_SB: u8 = 1;

/// The phase.
pub struct ProcessO0WaitsAndSBs;

impl Phase for ProcessO0WaitsAndSBs {
    fn name(&self) -> &'static str {
        "ProcessO0WaitsAndSBs"
    }

    fn description(&self) -> &'static str {
        "Conservative control words: stalls cover every fixed latency, the next instruction waits on every scoreboard"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn establishes(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Encoded])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let table = LatencyTable::for_sm(cx.target.sm);
        remove_nops(func);
        let mut wait = 0u8;
        for b in func.layout.clone() {
            let mut placed = Vec::new();
            for id in func.blocks[b].insts.clone() {
                let inst = &func.insts[id];
                let row = table.row(inst_row_op(inst));
                let mut ctrl = plain(row.min_stall.max(1));
                ctrl.wait = wait;
                if is_variable_producer(inst, table) {
                    ctrl.write_sb = Some(WRITE_SB);
                }
                if !late_reads(inst, table).is_empty() {
                    ctrl.read_sb = Some(READ_SB);
                }
                let signals = ctrl.write_sb.is_some() || ctrl.read_sb.is_some();
                if signals {
                    ctrl.stall = ctrl.stall.max(table.sb_visible.safe);
                }
                let latency = own_latency(inst, table);
                ctrl.stall = ctrl.stall.max(latency.min(Ctrl::MAX_STALL)).max(ordering_stall(inst, &ctrl));
                wait = if signals { (1 << WRITE_SB) | (1 << READ_SB) } else { 0 };
                func.insts[id].ctrl = Some(ctrl);
                placed.push(id);
                for nop in nops(latency.saturating_sub(Ctrl::MAX_STALL)) {
                    placed.push(func.insts.alloc(nop));
                }
            }
            func.blocks[b].insts = placed;
        }
        set_yield_bits(func);
        Ok(())
    }
}

/// What the hazard model asks of the next instruction that -O0 cannot
/// see coming: the timed orderings this one starts
/// (`crate::hazard::ORDERINGS`) and, for a uniform-datapath reader, its
/// late uniform reads (`crate::hazard::UNIFORM_READ_CYCLES`).
fn ordering_stall(inst: &ori_ir::Inst, ctrl: &Ctrl) -> u8 {
    use crate::hazard::{Classes, UNIFORM_READ_CYCLES, stall_after};
    let timed = stall_after(Classes::of(inst.op.name(), inst.mods.iter().map(|m| m.name())));
    let uniform_reader = inst.op.name().starts_with('U')
        && ctrl.write_sb.is_none()
        && inst.read_regs().any(|r| r.file == ori_ir::RegFile::UR && !r.is_zero());
    timed.max(if uniform_reader { UNIFORM_READ_CYCLES } else { 0 })
}
