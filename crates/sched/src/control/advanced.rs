//! `ComputeScoreboards`: real control words (ptxas runs this job in its
//! `AdvancedScoreboardsAndOpexes` phase).
//!
//! A forward walk per block tracks what is in flight with the checker's
//! [`State`] (at the latencies we emit). Each instruction waits on exactly
//! the scoreboards protecting what it reads or overwrites, at its first
//! use; a fixed-latency result is covered by raising the stall of the
//! instruction before its first reader; variable-latency producers get a
//! write scoreboard, and late readers whose sources are overwritten later
//! in the block a read scoreboard, taken from the six by least recent use
//! (a busy one is shared when all are busy: a wait on a shared scoreboard
//! waits for everything on it, which is slower but still correct).
//!
//! Across blocks: fixed latencies drain before control leaves a block (the
//! last instruction and every branch stall long enough), calls and returns
//! wait for everything, and pending scoreboards flow along the edges as a
//! dataflow (joined over predecessors, iterated to a fixed point), so a
//! wait lands at the first use in whichever block it is. If the fixed point
//! is not reached in a few rounds, every block waits on all scoreboards on
//! entry, which is correct whatever is pending.

use ori_ir::{Ctrl, Function, InstId, Opcode, Phase, PhaseContext, PhaseError, Property, PropertySet};

use super::{is_variable_producer, late_reads, nops, plain, remove_nops, set_yield_bits};
use crate::hazard::{Program, State, apply_ctrl};
use crate::latency::{LatencyTable, inst_row_op};

/// Rounds of the cross-block dataflow before falling back.
const MAX_ROUNDS: usize = 16;

/// Every scoreboard.
const ALL: u8 = (1 << Ctrl::SCOREBOARDS) - 1;

/// The phase.
pub struct ComputeScoreboards;

impl Phase for ComputeScoreboards {
    fn name(&self) -> &'static str {
        "ComputeScoreboards"
    }

    fn description(&self) -> &'static str {
        "Control words: stalls from the latency table, scoreboards allocated and waited on at first use, yield"
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
        let ids: Vec<InstId> = func.insts_in_order().map(|(_, id, _)| id).collect();
        let program = Program::from_function_untexted(func);
        let needs = Needs::compute(func, &ids, &program, table);
        let plan = solve(&program, &needs, table);
        write_back(func, &ids, plan);
        set_yield_bits(func);
        Ok(())
    }
}

/// Per instruction (in layout order): what the walk must give it.
struct Needs {
    /// A variable-latency result: needs a write scoreboard.
    producer: Vec<bool>,
    /// Needs a read scoreboard: a late-read source is overwritten later,
    /// in its block or on a path from it.
    read_sb: Vec<bool>,
    /// Control must be settled before it (calls and returns: the callee or
    /// caller sees every register).
    drain_before: Vec<bool>,
    /// Smallest stall.
    min_stall: Vec<u8>,
    /// Signals the copy-group scoreboard ([`group_signal`]).
    group: Vec<Option<GroupSignal>>,
    /// Scoreboards the general pool must leave alone.
    reserved: u8,
}

/// Per block, the units some path from its end writes. A late reader
/// reads its sources when its pipe gets to it, which may be long after
/// issue (a store queued behind a barrier): a source overwritten in any
/// later block, not only later in its own, needs the read scoreboard. On
/// the GPU, reduce_smem's last `STS [R5], R2` read R5 after the next
/// block's `LDC.64 R4` had overwritten it (an out-of-range shared store;
/// the interpreter, which reads sources at issue, could not see it).
fn written_after_blocks(program: &Program) -> Vec<Vec<bool>> {
    let count = crate::units::Unit::COUNT;
    let own: Vec<Vec<bool>> = program
        .blocks
        .iter()
        .map(|range| {
            let mut w = vec![false; count];
            program.steps[range.clone()].iter().flat_map(|s| &s.writes).for_each(|u| w[u.index()] = true);
            w
        })
        .collect();
    let mut after = vec![vec![false; count]; program.blocks.len()];
    // Backwards in layout order first: forward edges settle in one pass,
    // loops in a few more.
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..program.blocks.len()).rev() {
            for &s in &program.succs[b] {
                for u in 0..count {
                    let v = own[s][u] || after[s][u];
                    if v && !after[b][u] {
                        after[b][u] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    after
}

/// The scoreboard that counts asynchronous copy groups: `DEPBAR.LE SB0, n`
/// waits until at most `n` are pending. NVIDIA's `LDGDEPBAR` (closing a
/// `cp.async` group) signals it as its write scoreboard, `UTMACMDFLUSH`
/// (closing a bulk group) as its read scoreboard; without that the
/// `DEPBAR` has nothing to count and lets the copies race (cp_async_pipeline,
/// tma_bulk_copy). No other instruction of such a function takes it, so
/// the count is the groups' alone.
const GROUP_SB: u8 = 0;

/// How an instruction signals [`GROUP_SB`].
#[derive(Copy, Clone, PartialEq, Eq)]
enum GroupSignal {
    Write,
    Read,
}

fn group_signal(op: Opcode) -> Option<GroupSignal> {
    match op {
        Opcode::LDGDEPBAR => Some(GroupSignal::Write),
        Opcode::UTMACMDFLUSH => Some(GroupSignal::Read),
        _ => None,
    }
}

impl Needs {
    fn compute(func: &Function, ids: &[InstId], program: &Program, table: &LatencyTable) -> Needs {
        let n = ids.len();
        let mut read_sb = vec![false; n];
        let after = written_after_blocks(program);
        // Backwards through each block, with the units written after the
        // instruction at hand (in the block, then on any path from its
        // end): linear in the block (a forward search from every late
        // reader was quadratic on long unrolled blocks).
        let mut written_later = vec![false; crate::units::Unit::COUNT];
        for (b, range) in program.blocks.iter().enumerate() {
            written_later.copy_from_slice(&after[b]);
            for k in range.clone().rev() {
                read_sb[k] = late_reads(&func.insts[ids[k]], table).iter().any(|u| written_later[u.index()]);
                program.steps[k].writes.iter().for_each(|u| written_later[u.index()] = true);
            }
        }
        Needs {
            producer: ids.iter().map(|&i| is_variable_producer(&func.insts[i], table)).collect(),
            read_sb,
            drain_before: ids.iter().map(|&i| matches!(func.insts[i].op, Opcode::CALL | Opcode::RET)).collect(),
            min_stall: ids.iter().map(|&i| table.row(inst_row_op(&func.insts[i])).min_stall.max(1)).collect(),
            group: ids.iter().map(|&i| group_signal(func.insts[i].op)).collect(),
            reserved: if ids.iter().any(|&i| group_signal(func.insts[i].op).is_some()) { 1 << GROUP_SB } else { 0 },
        }
    }
}

/// The walk's result: a control word per instruction, and NOP cycles to
/// insert before some of them.
struct Plan {
    ctrl: Vec<Ctrl>,
    pad_before: Vec<u8>,
}

/// Walks the blocks until the states on their entries stop changing.
fn solve(program: &Program, needs: &Needs, table: &LatencyTable) -> Plan {
    let n = program.blocks.len();
    let mut has_pred = vec![false; n];
    program.succs.iter().flatten().for_each(|&s| has_pred[s] = true);
    let mut entry: Vec<Option<State>> = (0..n).map(|b| (b == 0 || !has_pred[b]).then(State::default)).collect();
    let mut plan = Plan { ctrl: vec![plain(1); program.steps.len()], pad_before: vec![0; program.steps.len()] };
    // A walk is a function of its entry state: a block whose entry has not
    // changed since its last walk would give the same words and exit again.
    let mut stale = vec![true; n];
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for b in 0..n {
            if !stale[b] {
                continue;
            }
            let Some(state) = entry[b].clone() else { continue };
            stale[b] = false;
            let exit = walk(program, b, state, needs, table, &mut plan, 0);
            for &s in &program.succs[b] {
                let grew = match &mut entry[s] {
                    Some(e) => e.join(&exit),
                    slot @ None => {
                        *slot = Some(exit.clone());
                        true
                    }
                };
                stale[s] |= grew;
                changed |= grew;
            }
        }
        if !changed {
            return plan;
        }
    }
    for b in 0..n {
        walk(program, b, State::default(), needs, table, &mut plan, ALL);
    }
    plan
}

/// Scoreboards by least recent use within one block walk (starting afresh
/// in every walk keeps the walk a function of its entry state, which the
/// dataflow needs to settle).
#[derive(Default)]
struct Lru {
    last: [u64; Ctrl::SCOREBOARDS as usize],
    clock: u64,
    /// Never picked.
    reserved: u8,
}

impl Lru {
    /// A scoreboard not busy (else any) and not `except`, least recently
    /// used first.
    fn pick(&mut self, busy: u8, except: Option<u8>) -> u8 {
        let reserved = self.reserved;
        let candidates = || (0..Ctrl::SCOREBOARDS).filter(|&sb| Some(sb) != except && reserved >> sb & 1 == 0);
        let pick = candidates()
            .filter(|sb| busy >> sb & 1 == 0)
            .min_by_key(|&sb| self.last[usize::from(sb)])
            .or_else(|| candidates().min_by_key(|&sb| self.last[usize::from(sb)]))
            .unwrap_or(0);
        self.clock += 1;
        self.last[usize::from(pick)] = self.clock;
        pick
    }
}

/// Gives block `b` its control words, starting from `state`; returns the
/// state on exit. `entry_wait` is waited on by the first instruction.
#[allow(clippy::too_many_arguments, reason = "one walk, its inputs and its outputs")]
fn walk(
    program: &Program,
    b: usize,
    mut state: State,
    needs: &Needs,
    table: &LatencyTable,
    plan: &mut Plan,
    entry_wait: u8,
) -> State {
    let mut lru = Lru { reserved: needs.reserved, ..Lru::default() };
    let range = program.blocks[b].clone();
    // Control leaves to other blocks: let fixed latencies drain first.
    let leaves = !program.succs[b].is_empty();
    for k in range.clone() {
        let step = &program.steps[k];
        let mut wait = if k == range.start { entry_wait } else { 0 };
        let mut delay = 0u8;
        for &u in &step.reads {
            wait |= state.writes[u.index()].scoreboards();
            let ready = if step.reads_early(u, table) {
                state.ready[u.index()][1]
            } else {
                state.source_ready(u, step.opcode(), table)
            };
            delay = delay.max(ready);
        }
        for &u in &step.writes {
            wait |= state.writes[u.index()].scoreboards() | state.reads[u.index()].scoreboards();
            if !needs.producer[k] {
                let latency = table.fixed_latency(step.row_op(), false, false).unwrap_or(0);
                delay = delay.max(state.uniform_read_delay(u, latency));
            }
        }
        delay = delay.max(state.ordering_delay(step.classes));
        let last = leaves && k + 1 == range.end;
        if needs.drain_before[k] {
            wait |= state.busy();
            delay = delay.max(max_ready(&state));
        }
        if last {
            // This instruction's own stall (at most 15) must drain the rest.
            delay = delay.max(max_ready(&state).saturating_sub(Ctrl::MAX_STALL));
        }
        for sb in (0..Ctrl::SCOREBOARDS).filter(|sb| wait >> sb & 1 == 1) {
            delay = delay.max(state.arming[usize::from(sb)]);
        }
        // `DEPBAR.LE SB, n` reads its scoreboard like a wait, and as late
        // (`wait_all` is `LDGDEPBAR` right before one).
        if let Some((sb, _)) = step.depbar.filter(|&(sb, _)| sb < Ctrl::SCOREBOARDS) {
            delay = delay.max(state.arming[usize::from(sb)]);
        }
        plan.pad_before[k] = 0;
        if delay > 0 {
            let room = if k > range.start { Ctrl::MAX_STALL - plan.ctrl[k - 1].stall } else { 0 };
            let add = delay.min(room);
            if add > 0 {
                plan.ctrl[k - 1].stall += add;
            }
            plan.pad_before[k] = delay - add;
            state.advance(delay);
        }
        state.wait(wait);
        let mut ctrl = plain(needs.min_stall[k]);
        ctrl.wait = wait;
        if needs.producer[k] {
            ctrl.write_sb = Some(lru.pick(state.busy(), None));
        }
        if needs.read_sb[k] {
            ctrl.read_sb = Some(lru.pick(state.busy(), ctrl.write_sb));
        }
        match needs.group[k] {
            Some(GroupSignal::Write) => ctrl.write_sb = Some(GROUP_SB),
            Some(GroupSignal::Read) => ctrl.read_sb = Some(GROUP_SB),
            None => {}
        }
        // The stall is final only once the next instruction is placed; the
        // state advances by what is known now, and by any raise later.
        apply_ctrl(&mut state, step, ctrl, table, true);
        if last {
            let rest = max_ready(&state).max(state.arming.iter().copied().max().unwrap_or(0));
            let raise = rest.min(Ctrl::MAX_STALL - ctrl.stall);
            ctrl.stall += raise;
            state.advance(raise);
        }
        plan.ctrl[k] = ctrl;
    }
    state
}

/// The longest any fixed-latency result still needs.
fn max_ready(state: &State) -> u8 {
    state.ready.iter().map(|r| r[0].max(r[1])).max().unwrap_or(0)
}

/// Puts the control words on the instructions and the NOPs in place.
fn write_back(func: &mut Function, ids: &[InstId], plan: Plan) {
    let position: ori_ir::FxHashMap<InstId, usize> = ids.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    for b in func.layout.clone() {
        let mut placed = Vec::new();
        for id in func.blocks[b].insts.clone() {
            let k = position[&id];
            for nop in nops(plan.pad_before[k]) {
                placed.push(func.insts.alloc(nop));
            }
            func.insts[id].ctrl = Some(plan.ctrl[k]);
            placed.push(id);
        }
        func.blocks[b].insts = placed;
    }
}
