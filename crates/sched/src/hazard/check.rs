//! The checker proper: a forward dataflow over the blocks of a
//! [`Program`] with the in-flight [`State`], then one pass that reports
//! every instruction issued too early.

use std::fmt;

use crate::hazard::program::{Program, Step};
use crate::hazard::state::{Pending, State};
use crate::latency::LatencyTable;
use ori_ir::{Ctrl, RegFile};

use crate::units::Unit;

/// What went wrong.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Read a fixed-latency result before its latency elapsed.
    RawFixed,
    /// Read a variable-latency result without waiting on its scoreboard.
    RawVariable,
    /// Wrote a register a variable-latency write is still pending on.
    WawVariable,
    /// Wrote a fixed-latency result into a register that a pending read
    /// (signalled on a read scoreboard) may not have read yet.
    War,
    /// Waited on a scoreboard too soon after it was set (the set is not
    /// visible yet, so the wait may pass while the operation is in flight).
    WaitTooSoon,
}

/// One uncovered dependency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The function.
    pub function: String,
    /// Position of the instruction in layout order.
    pub index: usize,
    /// The instruction.
    pub inst: String,
    /// What is uncovered.
    pub kind: Kind,
    /// The register unit concerned, when one is.
    pub unit: Option<Unit>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} #{} `{}`: {:?}", self.function, self.index, self.inst, self.kind)?;
        if let Some(u) = self.unit {
            write!(f, " on {u}")?;
        }
        Ok(())
    }
}

/// Checks `program` against `table`: every register dependency covered,
/// every scoreboard waited on only once its set is visible.
pub fn check_program(program: &Program, table: &LatencyTable) -> Vec<Violation> {
    let entry = entry_states(program, |state, step| {
        step_effects(state, step, table, &mut |_, _| {});
    });
    let mut out = Vec::new();
    for (b, range) in program.blocks.iter().enumerate() {
        let mut state = entry[b].clone().unwrap_or_default();
        for k in range.clone() {
            let step = &program.steps[k];
            step_effects(&mut state, step, table, &mut |kind, unit| {
                let v = Violation { function: program.name.clone(), index: k, inst: step.text.clone(), kind, unit };
                if !out.contains(&v) {
                    out.push(v);
                }
            });
        }
    }
    out
}

/// The state at the entry of each block: a worklist fixpoint of
/// `transfer` (one instruction) joined over the edges. The first block and
/// blocks nothing branches to start empty.
fn entry_states(program: &Program, mut transfer: impl FnMut(&mut State, &Step)) -> Vec<Option<State>> {
    let n = program.blocks.len();
    let mut has_pred = vec![false; n];
    program.succs.iter().flatten().for_each(|&s| has_pred[s] = true);
    let mut entry: Vec<Option<State>> = (0..n).map(|b| (b == 0 || !has_pred[b]).then(State::default)).collect();
    let mut work: Vec<usize> = (0..n).rev().filter(|&b| entry[b].is_some()).collect();
    let mut queued = vec![false; n];
    work.iter().for_each(|&b| queued[b] = true);
    while let Some(b) = work.pop() {
        queued[b] = false;
        let Some(mut state) = entry[b].clone() else { continue };
        for k in program.blocks[b].clone() {
            transfer(&mut state, &program.steps[k]);
        }
        for &s in &program.succs[b] {
            let changed = match &mut entry[s] {
                Some(e) => e.join(&state),
                slot @ None => {
                    *slot = Some(state.clone());
                    true
                }
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    entry
}

/// Checks one instruction against `state` (reporting through `report`),
/// then applies its effects and lets its stall pass.
pub(crate) fn step_effects(
    state: &mut State,
    step: &Step,
    table: &LatencyTable,
    report: &mut impl FnMut(Kind, Option<Unit>),
) {
    let ctrl = valid(step.ctrl);
    for sb in (0..6u8).filter(|sb| ctrl.wait >> sb & 1 == 1) {
        if state.arming[usize::from(sb)] > 0 {
            report(Kind::WaitTooSoon, None);
        }
    }
    state.wait(ctrl.wait);
    if state.ordering_delay(step.classes) > 0 {
        report(Kind::RawFixed, None);
    }
    if let Some((sb, count)) = step.depbar.filter(|&(sb, _)| sb < Ctrl::SCOREBOARDS) {
        if state.arming[usize::from(sb)] > 0 {
            report(Kind::WaitTooSoon, None);
        }
        state.depbar(sb, count);
    }
    // A call is opaque: the callee runs between the call and the next
    // instruction, and the ABI (not stall counts) orders what it reads and
    // writes. Its guard is read at issue like any other.
    let call = step.opcode() == "CALL";
    for &u in step.reads.iter().filter(|&&u| !call || step.guard == Some(u)) {
        if state.ready[u.index()][usize::from(step.reads_early(u, table))] > 0 {
            report(Kind::RawFixed, Some(u));
        }
        if !state.writes[u.index()].is_empty() {
            report(Kind::RawVariable, Some(u));
        }
    }
    // A variable-latency write lands well after issue, later than the
    // pending reads it could overtake (NVIDIA's code relies on this), and
    // fixed-latency writes land in issue order.
    let lands_late = ctrl.write_sb.is_some() || table.is_variable(step.row_op());
    for &u in step.writes.iter().filter(|_| !call) {
        if !state.writes[u.index()].is_empty() {
            report(Kind::WawVariable, Some(u));
        }
        let latency = table.fixed_latency(step.row_op(), false, false).unwrap_or(0);
        if !lands_late && (!state.reads[u.index()].is_empty() || state.overwrites_uniform_read(u, latency)) {
            report(Kind::War, Some(u));
        }
    }
    apply(state, step, table, false);
}

/// The effects of one instruction on what is in flight, then its stall.
/// `safe` takes the latencies we emit rather than the smallest NVIDIA
/// uses (the control-word phase tracks its own code with those).
pub(crate) fn apply(state: &mut State, step: &Step, table: &LatencyTable, safe: bool) {
    apply_ctrl(state, step, step.ctrl, table, safe);
}

/// [`apply`] with `ctrl` in place of the step's own control word (the
/// control-word phase tries words on steps it does not copy).
pub(crate) fn apply_ctrl(state: &mut State, step: &Step, ctrl: Ctrl, table: &LatencyTable, safe: bool) {
    let ctrl = valid(ctrl);
    let op = step.row_op();
    // A write scoreboard is signalled whatever the opcode: the result then
    // counts as variable latency.
    if let Some(sb) = ctrl.write_sb {
        state.age(sb);
    }
    let ready = match (ctrl.write_sb, table.fixed_latency(op, false, safe), table.fixed_latency(op, true, safe)) {
        _ if op == "CALL" => [0, 0],
        (None, Some(raw), Some(guard)) => [raw, guard],
        (None, _, _) => [table.unsignalled; 2],
        (Some(_), _, _) => [0, 0],
    };
    for &u in &step.writes {
        let i = u.index();
        // Only a predicate can be a guard.
        state.ready[i] = if u.parts().0.is_predicate() { ready } else { [ready[0]; 2] };
        state.producer[i] =
            (ctrl.write_sb.is_none() && ready[0] > 0).then(|| table.row(op).op).filter(|o| !o.is_empty());
        state.writes[i] = ctrl.write_sb.map_or(Pending::default(), State::fresh);
        state.reads[i] = Pending::default();
    }
    if let Some(sb) = ctrl.read_sb {
        if ctrl.write_sb != Some(sb) {
            state.age(sb);
        }
        // Only per-thread registers are read late: NVIDIA overwrites a
        // uniform descriptor (`desc[UR4]`) right after an LDG with a read
        // scoreboard, and guards are read at issue. A source the instruction
        // also writes needs no entry: touching it again waits for the write,
        // which lands after the read.
        let late = |u: &&Unit| (u.parts().0 == RegFile::R || **u == Unit::FENCE) && !step.writes.contains(u);
        for &u in step.reads.iter().filter(late) {
            let i = u.index();
            state.reads[i] = state.reads[i].union(State::fresh(sb));
        }
    }
    state.start_orderings(step.classes);
    if reads_uniform_late(step, ctrl) {
        for &u in step.reads.iter().filter(|u| u.parts().0 == RegFile::UR) {
            let h = &mut state.held[u.index()];
            *h = (*h).max(crate::hazard::UNIFORM_READ_CYCLES);
        }
    }
    let visible = if safe { table.sb_visible.safe } else { table.sb_visible.min };
    for sb in [ctrl.write_sb, ctrl.read_sb].into_iter().flatten() {
        state.arming[usize::from(sb)] = visible;
    }
    state.advance(ctrl.stall);
}

/// A fixed-latency uniform-datapath instruction (`ULEA`, `UIADD3`, ...):
/// its uniform sources are read after issue ([`crate::hazard::UNIFORM_READ_CYCLES`]).
pub(crate) fn reads_uniform_late(step: &Step, ctrl: Ctrl) -> bool {
    step.opcode().starts_with('U') && ctrl.write_sb.is_none()
}

/// The control word with scoreboard numbers the hardware lacks (the field
/// has room for 6 and 7) taken as none, so that malformed input is
/// reported, not a crash.
fn valid(ctrl: Ctrl) -> Ctrl {
    let ok = |sb: Option<u8>| sb.filter(|&sb| sb < Ctrl::SCOREBOARDS);
    Ctrl { write_sb: ok(ctrl.write_sb), read_sb: ok(ctrl.read_sb), wait: ctrl.wait & 0x3f, ..ctrl }
}
