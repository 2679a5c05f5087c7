//! The dependence graph of one region (a run of instructions without
//! branches): which instructions must stay ordered, and how many cycles
//! apart the latency model would like them.
//!
//! Built in one pass with the last writer and the readers since of each
//! register unit, the last store and the loads since, and the last
//! instruction with side effects and the memory and warp-synchronous
//! instructions since, and the last reconvergence point and everything
//! since, so it is linear in the region's size.
//!
//! Registers are tracked as physical units (after allocation) and, before
//! it, as whole virtual registers: a tuple and its parts are one, so a
//! write of one word orders against every access of the others (more
//! than the hardware needs, never less).

use ori_ir::{Function, FxHashMap as HashMap, Inst, InstId, OpFlags, Opcode, OperandKind, Reg, RegFile, SpecialReg};

use crate::latency::{LatencyTable, inst_row_op};
use crate::units::{self, Unit};

/// Predecessors of each instruction with the cycles wanted after them.
pub(crate) struct Dag {
    pub preds: Vec<Vec<(usize, u8)>>,
    pub succs: Vec<Vec<(usize, u8)>>,
}

/// How long the scheduler should expect a variable-latency result of
/// `inst` to take. Only the order of instructions depends on these (the
/// control-word phase makes any order correct), so they are estimates in
/// the bands the seed gives (constant 4-8 cycles, shared 20-30, global
/// hundreds), not measurements.
fn variable_estimate(inst: &Inst) -> u8 {
    match inst.op {
        Opcode::LDC | Opcode::ULDC => 8,
        Opcode::LDS | Opcode::LDSM | Opcode::ATOMS => 24,
        Opcode::LDG | Opcode::LD | Opcode::LDL | Opcode::ATOM | Opcode::ATOMG => 40,
        Opcode::S2R | Opcode::S2UR => 20,
        _ => 12,
    }
}

/// Memory traffic of an instruction, read-only data aside: constant
/// banks, and `LDG.CONSTANT` (`ld.global.nc`, whose data the PTX ISA
/// declares read-only for the kernel's lifetime, so no store of the
/// kernel can change what it reads).
fn memory(inst: &Inst) -> (bool, bool) {
    let read_only =
        matches!(inst.op, Opcode::LDC | Opcode::ULDC) || (inst.op == Opcode::LDG && inst.has_mod("CONSTANT"));
    (inst.op.has(OpFlags::LOAD) && !read_only, inst.op.has(OpFlags::STORE))
}

/// The state spaces whose accesses may alias, one bit each; an access of
/// one space never touches another's memory (the seed orders memory by
/// space class only, as here).
#[derive(Copy, Clone)]
enum Space {
    Shared,
    Global,
    Local,
}

/// Every space: generic addresses, atomics, copies between spaces, and
/// anything not listed.
const ALL_SPACES: u8 = 0b111;

/// The spaces `inst` may access.
fn spaces(inst: &Inst) -> u8 {
    let space = match inst.op {
        Opcode::LDS | Opcode::STS | Opcode::LDSM | Opcode::STSM => Space::Shared,
        Opcode::LDG | Opcode::STG => Space::Global,
        Opcode::LDL | Opcode::STL => Space::Local,
        _ => return ALL_SPACES,
    };
    1 << space as u8
}

/// A plain store of one space: ordered by the memory rules and against
/// side effects, but not a side effect itself (stores of different
/// spaces may pass each other).
fn plain_store(inst: &Inst) -> bool {
    matches!(inst.op, Opcode::STS | Opcode::STG | Opcode::STL)
}

/// Instructions nothing may cross: before a `WARPSYNC` or `BSYNC` the
/// warp may still be split, so an instruction moved above one would run
/// once per group of threads; a uniform register written there could
/// clobber a value another group still reads.
fn reconverges(inst: &Inst) -> bool {
    matches!(inst.op, Opcode::WARPSYNC | Opcode::BSYNC)
}

/// Arithmetic on per-thread registers: whichever threads run it together,
/// each gets the same result, so it may cross a reconvergence point
/// (Triton's epilogues compute every address and mask before the
/// `WARPSYNC` of a barrier and store after it). Memory accesses (a
/// `WARPSYNC` orders the warp's memory), warp-synchronous instructions
/// and writes of uniform or convergence-barrier registers stay on their
/// side.
fn per_thread(inst: &Inst) -> bool {
    let stays = [OpFlags::LOAD, OpFlags::STORE, OpFlags::WARP_SYNC, OpFlags::BRANCH];
    !stays.into_iter().any(|f| inst.op.has(f))
        && !has_side_effect(inst)
        && inst.written_regs().all(|r| matches!(r.file, RegFile::R | RegFile::P))
        && inst.defs.iter().all(|d| !matches!(d.kind, OperandKind::PredFile { uniform: true }))
}

/// Side effects, clock reads included (their order is what they measure).
fn has_side_effect(inst: &Inst) -> bool {
    let clock = inst.uses.iter().any(|o| {
        matches!(
            o.kind,
            OperandKind::Special(
                SpecialReg::ClockLo | SpecialReg::ClockHi | SpecialReg::GlobalTimerLo | SpecialReg::GlobalTimerHi
            )
        )
    });
    clock || inst.op.has(OpFlags::SIDE_EFFECT)
}

/// Dense numbers for what a dependency is tracked on: the physical units
/// first, then the virtual registers of the region as they appear.
struct Slots(HashMap<(RegFile, u32), usize>);

impl Slots {
    fn slot(&mut self, reg: Reg) -> usize {
        let next = Unit::COUNT + self.0.len();
        *self.0.entry((reg.file, reg.num)).or_insert(next)
    }

    /// Slots an instruction reads.
    fn reads(&mut self, inst: &Inst) -> Vec<usize> {
        let virt: Vec<Reg> = inst.read_regs().filter(|r| r.is_virtual).collect();
        self.with_virtual(units::reads(inst), virt)
    }

    /// Slots an instruction writes.
    fn writes(&mut self, inst: &Inst) -> Vec<usize> {
        let virt: Vec<Reg> = inst.written_regs().filter(|r| r.is_virtual).collect();
        self.with_virtual(units::writes(inst), virt)
    }

    fn with_virtual(&mut self, units: Vec<Unit>, virt: Vec<Reg>) -> Vec<usize> {
        let mut out: Vec<usize> = units.into_iter().map(Unit::index).collect();
        out.extend(virt.into_iter().map(|r| self.slot(r)));
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Dag {
    /// The graph of `region` (instructions of `func`, in order).
    pub fn build(func: &Function, region: &[InstId], table: &LatencyTable) -> Dag {
        let n = region.len();
        let mut dag = Dag { preds: vec![Vec::new(); n], succs: vec![Vec::new(); n] };
        let mut slots = Slots(HashMap::with_capacity_and_hasher(region.len(), Default::default()));
        // Number every virtual register first, so the tables can be sized.
        for &id in region {
            slots.reads(&func.insts[id]);
            slots.writes(&func.insts[id]);
        }
        let warpgroup = warpgroup_slots(func, region, &mut slots);
        let total = Unit::COUNT + slots.0.len();
        let mut last_write: Vec<Option<usize>> = vec![None; total];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); total];
        let mut last_store: [Option<usize>; 3] = [None; 3];
        let mut loads: [Vec<usize>; 3] = Default::default();
        let (mut last_effect, mut since_effect) = (None, Vec::new());
        let (mut last_fence, mut since_fence) = (None, Vec::new());
        for (j, &id) in region.iter().enumerate() {
            let inst = &func.insts[id];
            if reconverges(inst) {
                for i in std::mem::take(&mut since_fence) {
                    dag.edge(i, j, 0);
                }
                last_fence = Some(j);
            } else if !per_thread(inst) {
                if let Some(f) = last_fence {
                    dag.edge(f, j, 1);
                }
                since_fence.push(j);
            }
            let mut slot_of = |p: Reg| match Unit::of_reg(p).next() {
                Some(u) => u.index(),
                None => slots.slot(p),
            };
            // Slots read at the guard's pipeline stage (`Step::reads_early`).
            let mut early: Vec<usize> =
                inst.guard.map(|g| g.pred).filter(|p| !p.is_zero()).map(&mut slot_of).into_iter().collect();
            if table.reads_predicates_early(inst.op.name()) {
                let preds: Vec<Reg> = inst.read_regs().filter(|r| r.file.is_predicate() && !r.is_zero()).collect();
                early.extend(preds.into_iter().map(&mut slot_of));
            }
            // `WARPGROUP.ARRIVE`/`.DEPBAR` stand for every access of the
            // HGMMAs' registers: none may move between an ARRIVE and its
            // HGMMA or between an HGMMA and the DEPBAR that waits for it.
            let extra: &[usize] = if inst.op == Opcode::WARPGROUP { &warpgroup } else { &[] };
            let mut reads = slots.reads(inst);
            reads.extend_from_slice(extra);
            let mut writes = slots.writes(inst);
            writes.extend_from_slice(extra);
            for u in reads {
                if let Some(i) = last_write[u] {
                    let lat = raw_latency(&func.insts[region[i]], inst, early.contains(&u), table);
                    dag.edge(i, j, lat);
                }
                readers[u].push(j);
            }
            for u in writes {
                if let Some(i) = last_write[u] {
                    dag.edge(i, j, 1);
                }
                for i in std::mem::take(&mut readers[u]) {
                    if i != j {
                        dag.edge(i, j, 0);
                    }
                }
                last_write[u] = Some(j);
            }
            let (load, store) = memory(inst);
            let inst_spaces = if load || store { spaces(inst) } else { 0 };
            for space in (0..3).filter(|b| inst_spaces & (1 << b) != 0) {
                if let Some(i) = last_store[space] {
                    dag.edge(i, j, 1);
                }
                if store {
                    for i in std::mem::take(&mut loads[space]) {
                        dag.edge(i, j, 0);
                    }
                    last_store[space] = Some(j);
                } else {
                    loads[space].push(j);
                }
            }
            let ordered = load || store || inst.op.has(OpFlags::WARP_SYNC);
            if has_side_effect(inst) && !plain_store(inst) {
                if let Some(i) = last_effect {
                    dag.edge(i, j, 1);
                }
                for i in std::mem::take(&mut since_effect) {
                    dag.edge(i, j, 0);
                }
                last_effect = Some(j);
            } else if ordered {
                if let Some(i) = last_effect {
                    dag.edge(i, j, 1);
                }
                since_effect.push(j);
            }
        }
        dag
    }

    fn edge(&mut self, from: usize, to: usize, lat: u8) {
        self.preds[to].push((from, lat));
        self.succs[from].push((to, lat));
    }

    /// Cycles `order` (a topological order of the graph's nodes) takes
    /// issuing one instruction per cycle, each once its predecessors'
    /// latencies have passed.
    pub fn length(&self, order: &[usize]) -> u32 {
        let mut at = vec![0u32; self.preds.len()];
        let mut cycle = 0u32;
        for &j in order {
            let ready = self.preds[j].iter().map(|&(i, lat)| at[i] + u32::from(lat)).max().unwrap_or(0);
            cycle = cycle.max(ready);
            at[j] = cycle;
            cycle += 1;
        }
        cycle
    }

    /// Latency-weighted length of the longest path from each instruction
    /// to the end of the region.
    pub fn heights(&self) -> Vec<u32> {
        let mut height = vec![0u32; self.preds.len()];
        for i in (0..height.len()).rev() {
            height[i] = self.succs[i].iter().map(|&(j, lat)| u32::from(lat) + height[j]).max().unwrap_or(0);
        }
        height
    }
}

/// The registers the `HGMMA`s and `QGMMA`s of the function read or
/// write, when `region` holds a `WARPGROUP` instruction (else none). Not
/// only the region's: the `WARPGROUP.DEPBAR` after a loop waits for the
/// loop's MMAs, and once blocks are joined a copy of an accumulator could
/// otherwise move above it (Triton's tf32 matmul read `R8` before the wait).
fn warpgroup_slots(func: &Function, region: &[InstId], slots: &mut Slots) -> Vec<usize> {
    let mut out = Vec::new();
    if !region.iter().any(|&id| func.insts[id].op == Opcode::WARPGROUP) {
        return out;
    }
    for inst in func.insts_in_order().map(|(_, _, inst)| inst).filter(|i| i.op.is_warpgroup_mma()) {
        out.extend(slots.reads(inst));
        out.extend(slots.writes(inst));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Cycles `reader` should come after `producer` whose result it reads.
fn raw_latency(producer: &Inst, reader: &Inst, as_guard: bool, table: &LatencyTable) -> u8 {
    let op = inst_row_op(producer);
    let fixed = if as_guard { table.fixed_latency(op, true, true) } else { table.reader_latency(op, reader.op.name()) };
    fixed.unwrap_or_else(|| variable_estimate(producer))
}
