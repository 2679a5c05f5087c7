//! `ScheduleBeforeAllocation`: list scheduling of virtual-register code
//! that keeps the words of live registers under a budget (the seed's
//! pre-allocation mode of `ScheduleInstructions`, reached through the
//! `AdvancedPhasePreSched` hook).
//!
//! The allocator colours the order it is given: PTX from Triton loads all
//! sixteen `ldmatrix` fragments of a matmul step before its 64 `mma`s, so
//! 64 words of fragments sit next to 128 words of accumulators and the
//! function spills. Each block whose original order holds more live words
//! than the budget is cut into regions at its branches, as in
//! [`super::ScheduleInstructions`], and scheduled over the same dependence
//! graph, here on virtual registers. While it fits, the instruction picked
//! is the latency pick (longest latency-weighted path among those whose
//! operands are ready); when that would take the live words of a register
//! file over its cap, the instruction that adds the fewest live words is
//! picked instead (an `mma` that reads a fragment for the last time before
//! the next `ldmatrix`).
//!
//! The budget, for R: the allocatable registers less a sixteenth (the
//! seed's softer budget level; the allocator needs some slack for tuple
//! alignment), and at most [`TARGET_REGS`] worth of words in blocks of up
//! to [`TARGETED_BLOCK_INSTS`] instructions. The caps, per
//! file (R, P, UR): the block's original peak, R at most the budget; an
//! order is only kept when its peak is lower than the original's. Blocks
//! under the budget are scheduled for latency within it
//! ([`schedule_for_latency`]): after allocation, registers reused between
//! independent loads order them, and `ScheduleInstructions` can no longer
//! overlap their latencies.
//!
//! Pressure is counted as the allocator sees it: words of live virtual
//! registers, a tuple with all its words from its first write to its last
//! read; a result may take a dying source's register.

use cfg::{Cfg, Liveness, RegSet, VReg};
use ori_ir::{
    Function, FxHashMap as HashMap, FxHashSet as HashSet, InstId, Knob, KnobValue, OpFlags, Phase, PhaseContext,
    PhaseError, Property, PropertySet, RegFile,
};

use super::deps::Dag;
use crate::latency::LatencyTable;

mod roomy;

/// The phase.
pub struct ScheduleBeforeAllocation;

/// The register files whose pressure is tracked, in the order of
/// [`Words`]. B and UP registers are few and rarely live long.
const FILES: [RegFile; 3] = [RegFile::R, RegFile::P, RegFile::UR];

/// Live words per tracked file.
type Words = [u32; FILES.len()];

/// The register count blocks are brought down to where their order allows
/// (R1 and the reserved registers included): 32 registers per thread let
/// 2,048 threads share an SM's 64K registers (ptxas's own launch-bounds
/// limit for two blocks of 1,024, docs/regalloc.md `limits.rs`). NVIDIA's
/// code for Triton's element-wise kernels lands there (dropout 31, GELU
/// 30/31), running its Philox streams and polynomials one after the
/// other where the PTX interleaves them.
const TARGET_REGS: u32 = 32;

/// Blocks longer than this are only scheduled when over the limit's
/// budget, not brought down to [`TARGET_REGS`]: the seed cuts blocks of
/// over 4,095 instructions for its scheduler, and large_regtile_gemm's
/// 20,000-instruction block took seconds here to gain no register.
const TARGETED_BLOCK_INSTS: usize = 4095;

const KNOBS: &[Knob] = &[Knob {
    name: "MaxRegs",
    default: KnobValue::Int(0),
    doc: "--maxrregcount (0: none): the register limit the budget derives from, as the allocator's",
}];

impl Phase for ScheduleBeforeAllocation {
    fn name(&self) -> &'static str {
        "ScheduleBeforeAllocation"
    }

    fn description(&self) -> &'static str {
        "List scheduling of virtual registers in blocks over the register budget: fewer live words, latency hidden where they fit"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Scheduled, Property::Encoded])
    }

    fn knobs(&self) -> &'static [Knob] {
        KNOBS
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            return Ok(());
        }
        let live = Liveness::compute(func, &cfg);
        let widths = Widths(func.vreg_widths());
        let knob = cx.knobs.int("MaxRegs").unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32;
        let limit = func.attrs.register_limit(&cx.target, knob);
        // R0..R(limit - reserved - 1) are handed out, R1 among them.
        let words = limit.saturating_sub(cx.target.reserved_regs + 1);
        let limit_budget: Words = [words - words / 16, 7, cx.target.uniform_regs];
        let target = TARGET_REGS.saturating_sub(cx.target.reserved_regs + 1);
        let blocks: Vec<BlockRegions> =
            func.layout.iter().map(|&b| BlockRegions::of(func, &live, b, &widths)).collect();
        let table = LatencyTable::for_sm(cx.target.sm);
        let mut scheduled_for_pressure = Vec::new();
        for (&b, regions) in func.layout.clone().iter().zip(blocks) {
            let mut budget = limit_budget;
            if func.blocks[b].insts.len() <= TARGETED_BLOCK_INSTS {
                budget[0] = budget[0].min(target);
            }
            let under = regions.peak[0] <= budget[0];
            if under && func.blocks[b].insts.len() > TARGETED_BLOCK_INSTS {
                continue;
            }
            let cap: Words = std::array::from_fn(|f| regions.peak[f].min(budget[f]));
            if !under && func.blocks[b].insts.len() <= TARGETED_BLOCK_INSTS {
                scheduled_for_pressure.push(b);
            }
            let mut order = Vec::with_capacity(func.blocks[b].insts.len());
            for region in regions.regions {
                let scheduled = if under {
                    schedule_for_latency(func, &region, &widths, budget, table)
                } else {
                    schedule_region(func, &region, &widths, cap, table)
                };
                order.extend(scheduled);
                order.extend(region.branch);
            }
            func.blocks[b].insts = order;
        }
        if scheduled_for_pressure.is_empty() {
            return Ok(());
        }
        // The roomy pass (`roomy.rs`): the granule the function's peak
        // needs anyway is room for latency in the blocks squeezed above.
        let peak = func.layout.iter().map(|&b| BlockRegions::of(func, &live, b, &widths).peak[0]).max().unwrap_or(0);
        let Some(r_cap) = roomy::r_cap(peak, cx.target.reserved_regs) else {
            return Ok(());
        };
        let cap: Words = [r_cap.min(limit_budget[0]), 7, limit_budget[2]];
        for b in scheduled_for_pressure {
            let regions = BlockRegions::of(func, &live, b, &widths);
            let mut order = Vec::with_capacity(func.blocks[b].insts.len());
            for region in regions.regions {
                order.extend(roomy::schedule(func, &region, &widths, cap, table));
                order.extend(region.branch);
            }
            func.blocks[b].insts = order;
        }
        Ok(())
    }
}

/// Width in words of each virtual register (parts of a tuple count as
/// the tuple).
struct Widths(ori_ir::FxHashMap<(RegFile, u32), u8>);

impl Widths {
    /// Words of `v` when its file is tracked: the file's index and width.
    fn tracked(&self, v: VReg) -> Option<(usize, u32)> {
        let f = FILES.iter().position(|&f| f == v.file)?;
        Some((f, u32::from(self.0.get(&(v.file, v.num)).copied().unwrap_or(1))))
    }

    fn words(&self, set: &RegSet) -> Words {
        let mut out = [0; FILES.len()];
        for v in set.iter() {
            if let Some((f, w)) = self.tracked(v) {
                out[f] += w;
            }
        }
        out
    }
}

/// A run of instructions without branches, with the registers live
/// before and after it.
struct Region {
    insts: Vec<InstId>,
    live_in: RegSet,
    live_out: RegSet,
    /// The branch after the region, if any (it stays in place).
    branch: Option<InstId>,
}

/// A block's regions and the peak of its original order.
struct BlockRegions {
    regions: Vec<Region>,
    peak: Words,
}

impl BlockRegions {
    fn of(func: &Function, live: &Liveness, block: ori_ir::BlockId, widths: &Widths) -> BlockRegions {
        let insts = &func.blocks[block].insts;
        let mut set = live.live_out(block).clone();
        let mut peak = widths.words(&set);
        let mut regions = Vec::new();
        let mut current = Region { insts: Vec::new(), live_in: set.clone(), live_out: set.clone(), branch: None };
        for &id in insts.iter().rev() {
            let inst = &func.insts[id];
            if inst.op.has(OpFlags::BRANCH) {
                current.live_in = set.clone();
                current.insts.reverse();
                regions.push(current);
                live.transfer(inst, &mut set);
                current = Region { insts: Vec::new(), live_in: set.clone(), live_out: set.clone(), branch: Some(id) };
            } else {
                current.insts.push(id);
                live.transfer(inst, &mut set);
            }
            let words = widths.words(&set);
            for f in 0..FILES.len() {
                peak[f] = peak[f].max(words[f]);
            }
        }
        current.live_in = set;
        current.insts.reverse();
        regions.push(current);
        regions.reverse();
        BlockRegions { regions, peak }
    }
}

/// One tracked register an instruction reads or writes.
#[derive(Copy, Clone)]
struct Access {
    reg: VReg,
    file: usize,
    words: u32,
}

/// Live words while a region is scheduled in one direction.
trait Pressure {
    /// Change of live words per file if instruction `i` were placed next.
    fn delta(&self, i: usize) -> [i64; FILES.len()];
    /// Places instruction `i`.
    fn place(&mut self, i: usize);
    /// Live words now.
    fn words(&self) -> Words;
}

/// Top-down: a register is live from its write while readers are left
/// unplaced (or it is live after the region).
struct Down<'a> {
    graph: &'a RegionGraph,
    live: HashSet<VReg>,
    live_out: &'a RegSet,
    /// Unplaced readers of each register.
    pending: HashMap<VReg, u32>,
    words: Words,
}

impl Down<'_> {
    /// True when `reg` is read later or after the region.
    fn wanted(&self, reg: VReg) -> bool {
        self.pending.get(&reg).copied().unwrap_or(0) > 0 || self.live_out.contains(reg)
    }
}

impl Pressure for Down<'_> {
    fn delta(&self, i: usize) -> [i64; FILES.len()] {
        let (reads, writes) = (&self.graph.reads[i], &self.graph.writes[i]);
        let mut d = [0i64; FILES.len()];
        for a in writes {
            let read_here = reads.iter().any(|r| r.reg == a.reg);
            let later = self.pending.get(&a.reg).copied().unwrap_or(0) > u32::from(read_here);
            if !self.live.contains(&a.reg) && (later || self.live_out.contains(a.reg)) {
                d[a.file] += i64::from(a.words);
            }
        }
        for a in reads {
            let last = self.pending.get(&a.reg).copied() == Some(1) && !self.live_out.contains(a.reg);
            let written_here = writes.iter().any(|w| w.reg == a.reg);
            if self.live.contains(&a.reg) && last && !written_here {
                d[a.file] -= i64::from(a.words);
            }
        }
        d
    }

    fn place(&mut self, i: usize) {
        let (reads, writes) = (&self.graph.reads[i], &self.graph.writes[i]);
        for a in reads {
            if let Some(n) = self.pending.get_mut(&a.reg) {
                *n -= 1;
            }
        }
        for a in writes {
            if self.wanted(a.reg) && self.live.insert(a.reg) {
                self.words[a.file] += a.words;
            }
        }
        for a in reads.iter().chain(writes) {
            if !self.wanted(a.reg) && self.live.remove(&a.reg) {
                self.words[a.file] -= a.words;
            }
        }
    }

    fn words(&self) -> Words {
        self.words
    }
}

/// Bottom-up: a register is live from its readers up to the write that
/// surely replaces it.
struct Up<'a> {
    graph: &'a RegionGraph,
    live: HashSet<VReg>,
    words: Words,
}

impl Pressure for Up<'_> {
    fn delta(&self, i: usize) -> [i64; FILES.len()] {
        let (reads, kills) = (&self.graph.reads[i], &self.graph.kills[i]);
        let mut d = [0i64; FILES.len()];
        for a in kills {
            if self.live.contains(&a.reg) && !reads.iter().any(|r| r.reg == a.reg) {
                d[a.file] -= i64::from(a.words);
            }
        }
        for a in reads {
            if !self.live.contains(&a.reg) {
                d[a.file] += i64::from(a.words);
            }
        }
        d
    }

    fn place(&mut self, i: usize) {
        for a in &self.graph.kills[i] {
            if self.live.remove(&a.reg) {
                self.words[a.file] -= a.words;
            }
        }
        for a in &self.graph.reads[i] {
            if self.live.insert(a.reg) {
                self.words[a.file] += a.words;
            }
        }
    }

    fn words(&self) -> Words {
        self.words
    }
}

/// The tracked registers `regs` names, each once.
fn accesses(regs: impl Iterator<Item = ori_ir::Reg>, widths: &Widths) -> Vec<Access> {
    let mut out: Vec<Access> = Vec::new();
    for v in regs.filter_map(VReg::of) {
        if let Some((file, words)) = widths.tracked(v) {
            if !out.iter().any(|a| a.reg == v) {
                out.push(Access { reg: v, file, words });
            }
        }
    }
    out
}

/// How many orders are tried per region, each with caps lowered by what
/// the one before overshot.
const ATTEMPTS: usize = 4;

/// `region`'s instructions in scheduled order: the first attempt whose
/// peak stays under `cap`, else the one that overshoots least if that is
/// no more than the original order does, else the original order. Each
/// attempt schedules top-down and bottom-up (the bottom-up order closes
/// the live ranges a store opens before it starts others: Triton's
/// epilogues compute every address and mask before a barrier and store
/// after it) and keeps the lower peak.
fn schedule_region(func: &Function, region: &Region, widths: &Widths, cap: Words, table: &LatencyTable) -> Vec<InstId> {
    if region.insts.len() < 2 {
        return region.insts.clone();
    }
    let graph = RegionGraph::build(func, region, widths, table);
    let over = |peak: Words| -> Words { std::array::from_fn(|f| peak[f].saturating_sub(cap[f])) };
    // A predicate over the cap costs a general register (the allocator
    // moves it to one), so overshoots are compared in words, all files
    // together, the R file first on a tie.
    let cost = |o: Words| (o.iter().sum::<u32>(), o);
    let original: Vec<usize> = (0..region.insts.len()).collect();
    let mut best = (over(graph.peak(region, widths, &original)), original);
    let mut caps = cap;
    for _ in 0..ATTEMPTS {
        let mut attempt: Option<(Words, Vec<usize>)> = None;
        for reverse in [false, true] {
            let order = graph.schedule(region, widths, caps, reverse);
            let overshoot = over(graph.peak(region, widths, &order));
            if attempt.as_ref().is_none_or(|(o, _)| cost(overshoot) < cost(*o)) {
                attempt = Some((overshoot, order));
            }
        }
        let Some((overshoot, order)) = attempt else { break };
        let perfect = overshoot == [0; FILES.len()];
        if cost(overshoot) < cost(best.0) || perfect {
            best = (overshoot, order);
        }
        if perfect {
            break;
        }
        for f in 0..FILES.len() {
            caps[f] = caps[f].saturating_sub(overshoot[f]);
        }
    }
    best.1.into_iter().map(|i| region.insts[i]).collect()
}

/// `region`'s instructions in an order that overlaps latencies, for a
/// block under the budget: the allocator colours what it is given, so a
/// load placed just before its reader in the original order gets the
/// register the previous load's value just freed, and no later schedule
/// can start it sooner (poly_fir waited for each of its 16 loads in turn,
/// in 8 registers; NVIDIA's code starts them together in 21). Registers
/// under the budget cost no occupancy ([`TARGET_REGS`]), so the latency
/// pick is taken while the live words fit `budget`; the order is kept
/// only when it fits and the modelled schedule is shorter.
fn schedule_for_latency(
    func: &Function,
    region: &Region,
    widths: &Widths,
    budget: Words,
    table: &LatencyTable,
) -> Vec<InstId> {
    if region.insts.len() < 2 {
        return region.insts.clone();
    }
    let graph = RegionGraph::build(func, region, widths, table);
    let original: Vec<usize> = (0..region.insts.len()).collect();
    let order = graph.schedule(region, widths, budget, false);
    let peak = graph.peak(region, widths, &order);
    let fits = (0..FILES.len()).all(|f| peak[f] <= budget[f]);
    let chosen = if fits && graph.dag.length(&order) < graph.dag.length(&original) { order } else { original };
    chosen.into_iter().map(|i| region.insts[i]).collect()
}

/// What scheduling a region needs, built once for all attempts.
struct RegionGraph {
    dag: Dag,
    /// Latency-weighted longest path to the region's end, and from its start.
    height: Vec<u32>,
    depth: Vec<u32>,
    reads: Vec<Vec<Access>>,
    writes: Vec<Vec<Access>>,
    /// Registers whose old value each instruction surely replaces.
    kills: Vec<Vec<Access>>,
}

impl RegionGraph {
    fn build(func: &Function, region: &Region, widths: &Widths, table: &LatencyTable) -> RegionGraph {
        let insts = &region.insts;
        let dag = Dag::build(func, insts, table);
        let height = dag.heights();
        let mut depth = vec![0u32; insts.len()];
        for j in 0..insts.len() {
            depth[j] = dag.preds[j].iter().map(|&(i, lat)| depth[i] + u32::from(lat)).max().unwrap_or(0);
        }
        let of = |regs: &dyn Fn(&ori_ir::Inst) -> Vec<ori_ir::Reg>| -> Vec<Vec<Access>> {
            insts.iter().map(|&id| accesses(regs(&func.insts[id]).into_iter(), widths)).collect()
        };
        let reads = of(&|i| i.read_regs().collect());
        let writes = of(&|i| i.written_regs().collect());
        let kills = of(&|i| i.killed_regs().collect());
        RegionGraph { dag, height, depth, reads, writes, kills }
    }

    fn down<'a>(&'a self, region: &'a Region, widths: &Widths) -> Down<'a> {
        let mut pending: HashMap<VReg, u32> = HashMap::default();
        for a in self.reads.iter().flatten() {
            *pending.entry(a.reg).or_insert(0) += 1;
        }
        let live = region.live_in.iter().filter(|&v| widths.tracked(v).is_some()).collect();
        Down { graph: self, live, live_out: &region.live_out, pending, words: widths.words(&region.live_in) }
    }

    fn up<'a>(&'a self, region: &Region, widths: &Widths) -> Up<'a> {
        let live = region.live_out.iter().filter(|&v| widths.tracked(v).is_some()).collect();
        Up { graph: self, live, words: widths.words(&region.live_out) }
    }

    /// Highest live words per file over `order` (indices into the region),
    /// counted top-down.
    fn peak(&self, region: &Region, widths: &Widths, order: &[usize]) -> Words {
        let mut tracker = self.down(region, widths);
        let mut peak = tracker.words;
        for &i in order {
            tracker.place(i);
            for f in 0..FILES.len() {
                peak[f] = peak[f].max(tracker.words[f]);
            }
        }
        peak
    }

    /// One list schedule under `cap` (indices into the region), from the
    /// top or, `reverse`, from the bottom.
    fn schedule(&self, region: &Region, widths: &Widths, cap: Words, reverse: bool) -> Vec<usize> {
        let mut walk = Walk::new(self, region, widths, reverse);
        // Original order first: the earlier going down, the later going up.
        let position = |i: usize| if reverse { usize::MAX - i } else { i };
        while !walk.available.is_empty() {
            walk.advance();
            let Walk { tracker, succs, height, missing, ready_at, available, cycle, .. } = &walk;
            let latency_pick = available
                .iter()
                .copied()
                .filter(|&i| ready_at[i] <= *cycle)
                .max_by_key(|&i| (height[i], std::cmp::Reverse(position(i))))
                .unwrap_or(available[0]);
            let words = tracker.words();
            let fits = |d: [i64; FILES.len()]| {
                (0..FILES.len()).all(|f| d[f] <= 0 || i64::from(words[f]) + d[f] <= i64::from(cap[f]))
            };
            let pick = if fits(tracker.delta(latency_pick)) {
                latency_pick
            } else {
                // Over a cap: the fewest words added (what frees the most
                // first); among equals, what lets the most others go next
                // (finish a chain before starting one), then the original
                // order.
                let unlocks = |i: usize| {
                    let next = &succs[i];
                    next.iter().filter(|&&(j, _)| missing[j] == next.iter().filter(|&&(k, _)| k == j).count()).count()
                };
                available
                    .iter()
                    .copied()
                    .min_by_key(|&i| {
                        let added: i64 = tracker.delta(i).iter().sum();
                        (added, std::cmp::Reverse(unlocks(i)), position(i))
                    })
                    .unwrap_or(latency_pick)
            };
            walk.place(pick);
        }
        walk.finish(reverse)
    }
}

/// The state of one list schedule over a region's dependence graph, in
/// one direction, shared by the pressure and the roomy schedules (which
/// differ only in their pick): live words, the cycle each instruction's
/// operands are ready, what is available, the order so far.
struct Walk<'a> {
    tracker: Box<dyn Pressure + 'a>,
    /// Successors in the walk's direction (predecessors going up).
    succs: &'a [Vec<(usize, u8)>],
    /// Latency-weighted path to the walk's end.
    height: &'a [u32],
    /// Unplaced predecessors (in the walk's direction) per instruction.
    missing: Vec<usize>,
    ready_at: Vec<u32>,
    /// Instructions whose predecessors are all placed.
    available: Vec<usize>,
    order: Vec<usize>,
    cycle: u32,
}

impl<'a> Walk<'a> {
    fn new(graph: &'a RegionGraph, region: &'a Region, widths: &Widths, reverse: bool) -> Walk<'a> {
        let tracker: Box<dyn Pressure + 'a> =
            if reverse { Box::new(graph.up(region, widths)) } else { Box::new(graph.down(region, widths)) };
        let (preds, succs, height) = if reverse {
            (&graph.dag.succs, &graph.dag.preds, &graph.depth)
        } else {
            (&graph.dag.preds, &graph.dag.succs, &graph.height)
        };
        let n = height.len();
        let missing: Vec<usize> = preds.iter().map(Vec::len).collect();
        let available = (0..n).filter(|&i| missing[i] == 0).collect();
        Walk {
            tracker,
            succs,
            height,
            missing,
            ready_at: vec![0; n],
            available,
            order: Vec::with_capacity(n),
            cycle: 0,
        }
    }

    /// Moves the cycle up to the earliest an available instruction can
    /// issue.
    fn advance(&mut self) {
        let earliest = self.available.iter().map(|&i| self.ready_at[i]).min().unwrap_or(self.cycle);
        self.cycle = self.cycle.max(earliest);
    }

    /// Places `pick` (available) at the current cycle or when it is
    /// ready, releases the successors it was the last predecessor of, and
    /// moves to the next cycle.
    fn place(&mut self, pick: usize) {
        self.available.retain(|&i| i != pick);
        self.tracker.place(pick);
        self.order.push(pick);
        self.cycle = self.cycle.max(self.ready_at[pick]);
        for &(j, lat) in &self.succs[pick] {
            self.ready_at[j] = self.ready_at[j].max(self.cycle + u32::from(lat));
            self.missing[j] -= 1;
            if self.missing[j] == 0 {
                self.available.push(j);
            }
        }
        self.cycle += 1;
    }

    /// The order placed, top to bottom.
    fn finish(self, reverse: bool) -> Vec<usize> {
        let mut order = self.order;
        if reverse {
            order.reverse();
        }
        order
    }
}
