//! `ScheduleInstructions`: a list scheduler that reorders instructions
//! inside each block to hide latency (ptxas's post-allocation scheduling
//! pass has the same job).
//!
//! Branches, calls and exits stay where they are and cut a block into
//! regions; each region is scheduled alone over its dependence graph
//! ([`deps`]: registers, predicates, memory, side effects, warp
//! synchronisation). The scheduler simulates issue one instruction per
//! cycle: among the instructions whose predecessors are placed and whose
//! operands are ready, it takes the one with the longest latency-weighted
//! path to the end of the region, the earlier in the original order on a
//! tie; when none is ready it waits for the earliest. Control words are
//! dropped (the order changed, so they are no longer valid):
//! `ComputeScoreboards` or `ProcessO0WaitsAndSBs` runs next.
//!
//! Every choice depends only on the graph and on what is already placed,
//! with ties broken by position, so scheduling a scheduled block changes
//! nothing.

mod deps;
mod pressure;

pub use pressure::ScheduleBeforeAllocation;

use ori_ir::{Function, InstId, OpFlags, Phase, PhaseContext, PhaseError, Property, PropertySet};

use crate::latency::LatencyTable;
use deps::Dag;

/// The phase.
pub struct ScheduleInstructions;

impl Phase for ScheduleInstructions {
    fn name(&self) -> &'static str {
        "ScheduleInstructions"
    }

    fn description(&self) -> &'static str {
        "List scheduling inside blocks: reorders instructions to hide latency, keeping every dependency"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let table = LatencyTable::for_sm(cx.target.sm);
        for b in func.layout.clone() {
            let insts = func.blocks[b].insts.clone();
            let mut order = Vec::with_capacity(insts.len());
            let mut region = Vec::new();
            for &id in &insts {
                if func.insts[id].op.has(OpFlags::BRANCH) {
                    order.extend(schedule(func, &region, table));
                    region.clear();
                    order.push(id);
                } else {
                    region.push(id);
                }
            }
            order.extend(schedule(func, &region, table));
            func.blocks[b].insts = order;
        }
        for (_, inst) in func.insts.iter_mut() {
            inst.ctrl = None;
            inst.encoding = None;
        }
        Ok(())
    }
}

/// `region` in scheduled order.
fn schedule(func: &Function, region: &[InstId], table: &LatencyTable) -> Vec<InstId> {
    let dag = Dag::build(func, region, table);
    let height = dag.heights();
    let n = region.len();
    let mut missing: Vec<usize> = dag.preds.iter().map(Vec::len).collect();
    let mut ready_at = vec![0u32; n];
    let mut available: Vec<usize> = (0..n).filter(|&i| missing[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while !available.is_empty() {
        let earliest = available.iter().map(|&i| ready_at[i]).min().unwrap_or(cycle);
        cycle = cycle.max(earliest);
        let pick = available
            .iter()
            .copied()
            .filter(|&i| ready_at[i] <= cycle)
            .max_by_key(|&i| (height[i], std::cmp::Reverse(i)))
            .unwrap_or(available[0]);
        available.retain(|&i| i != pick);
        order.push(region[pick]);
        for &(j, lat) in &dag.succs[pick] {
            ready_at[j] = ready_at[j].max(cycle + u32::from(lat));
            missing[j] -= 1;
            if missing[j] == 0 {
                available.push(j);
            }
        }
        cycle += 1;
    }
    order
}
