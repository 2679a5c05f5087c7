//! The checker's view of code: straight instruction lists with what each
//! reads, writes and waits for, cut into blocks with successor lists.
//!
//! Built from an Ori function ([`Program::from_function`]) or from any
//! other listing (the tests build one from `nvdisasm` output of NVIDIA's
//! cubins) through [`Program::build`].

use std::ops::Range;

use ori_ir::{Ctrl, Function, OpFlags, Opcode, OperandKind};

use super::ordering::Classes;
use crate::latency::LatencyTable;
use crate::units::{self, Unit};

/// One instruction as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Mnemonic with its modifiers, as nvdisasm prints it (`IMAD.WIDE`).
    pub mnemonic: String,
    /// Units read (guard included).
    pub reads: Vec<Unit>,
    /// The guard predicate, when it is a register (not `PT`): it is read
    /// earlier in the pipeline than other sources, so it needs more time
    /// (as do some instructions' predicate sources: [`Step::reads_early`]).
    pub guard: Option<Unit>,
    /// Units written.
    pub writes: Vec<Unit>,
    /// The control word.
    pub ctrl: Ctrl,
    /// `DEPBAR.LE SBn, k`: wait until at most `k` operations are pending
    /// on scoreboard `n` (they retire in order).
    pub depbar: Option<(u8, u8)>,
    /// The instruction as text, for messages.
    pub text: String,
    /// Its classes for the timed orderings ([`super::ORDERINGS`]).
    pub classes: Classes,
}

impl Step {
    /// The checker's view of one Ori instruction. Without a control word it
    /// counts as `[B------:R-:W-:-:S00]`, which the checker then flags
    /// wherever timing matters.
    pub fn of_inst(func: &Function, inst: &ori_ir::Inst) -> Step {
        Step::of_inst_with_text(inst, ori_ir::text::print_inst(func, inst))
    }

    /// [`Step::of_inst`] with `text` for the message text.
    fn of_inst_with_text(inst: &ori_ir::Inst, text: String) -> Step {
        let mnemonic =
            std::iter::once(inst.op.name()).chain(inst.mods.iter().map(|m| m.name())).collect::<Vec<_>>().join(".");
        Step::new(
            mnemonic,
            units::reads(inst),
            inst.guard.and_then(|g| Unit::of_reg(g.pred).next()),
            units::writes(inst),
            inst.ctrl.unwrap_or(Ctrl { stall: 0, yield_: false, write_sb: None, read_sb: None, wait: 0 }),
            (inst.op == Opcode::DEPBAR).then(|| depbar_operands(inst)).flatten(),
            text,
        )
    }

    /// A step from its parts (any listing: the tests build NVIDIA's code
    /// from `nvdisasm` output); the classes follow from the mnemonic.
    pub fn new(
        mnemonic: String,
        reads: Vec<Unit>,
        guard: Option<Unit>,
        writes: Vec<Unit>,
        ctrl: Ctrl,
        depbar: Option<(u8, u8)>,
        text: String,
    ) -> Step {
        let mut words = mnemonic.split('.');
        let classes = Classes::of(words.next().unwrap_or(""), words);
        Step { mnemonic, reads, guard, writes, ctrl, depbar, text, classes }
    }

    /// The opcode, the mnemonic before its first dot.
    pub fn opcode(&self) -> &str {
        self.mnemonic.split('.').next().unwrap_or("")
    }

    /// The latency table row this step takes as a producer: its opcode,
    /// but [`crate::latency::BARRIER_BMOV`] for a `BMOV` into a barrier.
    pub fn row_op(&self) -> &str {
        let writes_barrier = self.writes.iter().any(|u| u.parts().0 == ori_ir::RegFile::B);
        crate::latency::row_op(self.opcode(), writes_barrier)
    }

    /// True when `u` is read at the guard's pipeline stage: it is the
    /// guard, or a predicate source of an instruction that reads those as
    /// early as its guard ([`LatencyTable::early_predicates`]).
    pub fn reads_early(&self, u: Unit, table: &LatencyTable) -> bool {
        self.guard == Some(u) || (u.parts().0.is_predicate() && table.reads_predicates_early(self.opcode()))
    }

    /// The modifiers, the mnemonic's words after the opcode.
    pub fn mods(&self) -> impl Iterator<Item = &str> {
        self.mnemonic.split('.').skip(1)
    }
}

/// Where control goes after a step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    /// Steps (by index) the instruction may branch to.
    pub targets: Vec<usize>,
    /// Control never reaches the next step (unconditional EXIT, BRA, ...).
    pub ends: bool,
    /// The instruction may branch to places not listed (BRX without a
    /// table): every block counts as a successor.
    pub unknown: bool,
}

impl Flow {
    fn leaves_block(&self) -> bool {
        !self.targets.is_empty() || self.ends || self.unknown
    }
}

/// A function as the checker sees it.
#[derive(Clone, Debug)]
pub struct Program {
    /// The function's name.
    pub name: String,
    /// Instructions in layout order.
    pub steps: Vec<Step>,
    /// Blocks as ranges of `steps`, in layout order.
    pub blocks: Vec<Range<usize>>,
    /// Successor blocks (indices into `blocks`) of each block.
    pub succs: Vec<Vec<usize>>,
}

impl Program {
    /// Cuts `steps` into blocks: a block starts at the first step, at
    /// every branch target and after every step that may leave the
    /// straight line.
    pub fn build(name: impl Into<String>, steps: Vec<(Step, Flow)>) -> Program {
        let n = steps.len();
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for (k, (_, flow)) in steps.iter().enumerate() {
            flow.targets.iter().filter(|&&t| t < n).for_each(|&t| leader[t] = true);
            if flow.leaves_block() {
                leader[k + 1] = true;
            }
        }
        let starts: Vec<usize> = (0..n).filter(|&k| leader[k]).collect();
        let blocks: Vec<Range<usize>> =
            starts.iter().enumerate().map(|(b, &s)| s..starts.get(b + 1).copied().unwrap_or(n)).collect();
        let block_of = |step: usize| starts.partition_point(|&s| s <= step) - 1;
        let succs = blocks
            .iter()
            .enumerate()
            .map(|(b, range)| {
                let Some(last) = range.end.checked_sub(1).map(|k| &steps[k].1) else { return Vec::new() };
                let mut out: Vec<usize> = if last.unknown {
                    (0..blocks.len()).collect()
                } else {
                    last.targets.iter().filter(|&&t| t < n).map(|&t| block_of(t)).collect()
                };
                if !last.ends && b + 1 < blocks.len() {
                    out.push(b + 1);
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        Program { name: name.into(), steps: steps.into_iter().map(|(s, _)| s).collect(), blocks, succs }
    }

    /// The checker's view of a scheduled Ori function, one step per
    /// instruction in layout order (see [`Step::of_inst`]).
    pub fn from_function(func: &Function) -> Program {
        Program::of_function(func, true)
    }

    /// [`Program::from_function`] without the instructions' text, for
    /// the phases that plan control words and report nothing: printing
    /// every instruction was 1.9 % of large_unroll's instructions.
    pub(crate) fn from_function_untexted(func: &Function) -> Program {
        Program::of_function(func, false)
    }

    fn of_function(func: &Function, texts: bool) -> Program {
        let mut first = ori_ir::FxHashMap::default();
        let mut count = 0;
        for &b in &func.layout {
            first.insert(b, count);
            count += func.blocks[b].insts.len();
        }
        let steps = func
            .insts_in_order()
            .map(|(_, _, inst)| {
                let text = if texts { ori_ir::text::print_inst(func, inst) } else { String::new() };
                (Step::of_inst_with_text(inst, text), flow_of(inst, &first))
            })
            .collect();
        Program::build(func.name.clone(), steps)
    }
}

/// Control flow of one Ori instruction, with labels resolved to the index
/// of the first instruction of their block (`first`).
fn flow_of(inst: &ori_ir::Inst, first: &ori_ir::FxHashMap<ori_ir::BlockId, usize>) -> Flow {
    let op = inst.op;
    if !op.has(OpFlags::BRANCH) || op == Opcode::CALL {
        return Flow::default();
    }
    let targets: Vec<usize> = cfg::branch_targets(inst).filter_map(|b| first.get(&b).copied()).collect();
    let ends = op.has(OpFlags::TERMINATOR) && inst.guard.is_none();
    let unknown = targets.is_empty() && matches!(op, Opcode::BRX | Opcode::JMP);
    Flow { targets, ends, unknown }
}

/// `DEPBAR.LE SBn, k` as (n, k).
fn depbar_operands(inst: &ori_ir::Inst) -> Option<(u8, u8)> {
    let sb = inst.uses.iter().find_map(|o| match o.kind {
        OperandKind::Scoreboard(sb) => Some(sb),
        _ => None,
    })?;
    let count = inst.uses.iter().find_map(|o| match o.kind {
        OperandKind::Imm(ori_ir::Imm::Int(k)) => u8::try_from(k).ok(),
        _ => None,
    });
    Some((sb, count.unwrap_or(0)))
}
