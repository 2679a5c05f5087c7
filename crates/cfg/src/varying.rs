//! Which conditional branches may split a warp, judged by the values they
//! test: the facts the reconvergence phase (BSSY/BSYNC regions) and the
//! cubin writer's EIATTR_CRS_STACK_SIZE rule share.
//!
//! Measured on probes with NVIDIA's ptxas (sm_90, docs/elfw.md): a loop
//! whose exit compares a thread-varying value splits warps; the same loop
//! over a value from a parameter, a uniform-address load (volatile too),
//! `%ctaid`, `%ntid`, `%clock`, `%warpid`, a broadcast `shfl.idx` does not;
//! `%laneid`, `%tid` and atomic results vary. NVIDIA trusts `@p bra.uni`;
//! Ori does not keep `.uni`, so such a branch counts by its predicate.
//!
//! The analysis is flow-sensitive, so it serves allocated code as well as
//! virtual registers (a register's variance is that of its reaching
//! definitions): a forward dataflow over the blocks, where a definition
//! varies when a source or its guard does, or its opcode yields a
//! per-thread value. At the join (immediate post-dominator) of a divergent
//! branch every register defined between the branch and the join varies:
//! threads arrive there with values from different paths or iterations.

use std::collections::BTreeSet;

use ori_ir::{
    BlockId, Function, FxHashMap as HashMap, FxHashSet as HashSet, Inst, InstId, Opcode, OperandKind, Reg, RegFile,
    SpecialReg,
};

use crate::{Cfg, HybridBitSet, PostDomTree, targets_only_exits};

/// One 32-bit register word: file, register number and word within a
/// virtual tuple (physical tuples number their words as registers).
type Word = (RegFile, u32, u8);

/// The conditional branches of `func` whose condition may differ between
/// the threads of a warp (an indirect `BRX` always may).
pub fn divergent_branches(func: &Function) -> HashSet<InstId> {
    let cfg = Cfg::compute(func);
    let pdom = PostDomTree::compute(&cfg);
    let words = WordIndex::of(func);
    let empty = HybridBitSet::new(words.crossing);
    // Divergent crossing words at the end of each block, and those made
    // divergent at the entry of joins.
    let mut out = vec![empty.clone(); cfg.capacity()];
    let mut taint = vec![empty; cfg.capacity()];
    // Blocks whose writes each join's taint holds already: branches
    // sharing a join share the walk.
    let mut walked: HashMap<BlockId, HashSet<BlockId>> = HashMap::default();
    let mut branches: HashSet<InstId> = HashSet::default();
    // A worklist of blocks by reverse post-order number. Finding a branch
    // divergent makes more values divergent at its join, which goes back
    // on the list; variance only grows, so this ends.
    let mut work: BTreeSet<u32> = (0..cfg.rpo().len() as u32).collect();
    while let Some(n) = work.pop_first() {
        let b = cfg.rpo()[n as usize];
        let mut state = State { crossing: taint[index(b)].clone(), local: HashSet::default() };
        for &p in cfg.preds(b) {
            state.crossing.union_with(&out[index(p)]);
        }
        for &i in &func.blocks[b].insts {
            let inst = &func.insts[i];
            if splits_on(func, &words, inst, &state)
                && branches.insert(i)
                && let Some(join) = pdom.ipdom(b)
                && taint_join(func, &cfg, &words, b, join, &mut taint[index(join)], walked.entry(join).or_default())
                && let Some(j) = cfg.rpo_number(join)
            {
                work.insert(j);
            }
            transfer(inst, &words, &mut state);
        }
        if out[index(b)] != state.crossing {
            out[index(b)] = state.crossing;
            work.extend(cfg.succs(b).iter().filter_map(|&s| cfg.rpo_number(s)));
        }
    }
    branches
}

/// Dense numbers for the register words a function names: first those a
/// block may read before writing them (their values cross block
/// boundaries, so the dataflow carries them), then the rest, which live
/// within one block.
struct WordIndex {
    index: HashMap<Word, usize>,
    crossing: usize,
}

impl WordIndex {
    fn of(func: &Function) -> WordIndex {
        let mut crossing: Vec<Word> = Vec::new();
        let mut seen: HashSet<Word> = HashSet::default();
        let mut all: Vec<Word> = Vec::new();
        for &b in &func.layout {
            let mut written: HashSet<Word> = HashSet::default();
            for &i in &func.blocks[b].insts {
                let inst = &func.insts[i];
                for word in inst.read_regs().flat_map(words_of) {
                    if !written.contains(&word) && seen.insert(word) {
                        crossing.push(word);
                    }
                    all.push(word);
                }
                for word in inst.written_regs().flat_map(words_of) {
                    written.insert(word);
                    all.push(word);
                }
            }
        }
        let mut index: HashMap<Word, usize> = crossing.iter().enumerate().map(|(k, &w)| (w, k)).collect();
        let n = crossing.len();
        for word in all {
            let next = index.len();
            index.entry(word).or_insert(next);
        }
        WordIndex { index, crossing: n }
    }

    fn bits(&self, reg: Reg) -> impl Iterator<Item = usize> + '_ {
        words_of(reg).filter_map(|w| self.index.get(&w).copied())
    }
}

/// The divergent words at a point of a block.
struct State {
    crossing: HybridBitSet,
    local: HashSet<usize>,
}

impl State {
    fn contains(&self, bit: usize, words: &WordIndex) -> bool {
        if bit < words.crossing { self.crossing.contains(bit) } else { self.local.contains(&bit) }
    }

    fn set(&mut self, bit: usize, divergent: bool, words: &WordIndex) {
        if bit >= words.crossing {
            if divergent {
                self.local.insert(bit);
            } else {
                self.local.remove(&bit);
            }
        } else if divergent {
            self.crossing.insert(bit);
        } else {
            self.crossing.remove(bit);
        }
    }
}

/// Adds to `taint` every crossing word written between `branch` and its
/// `join`: threads arrive at the join with values from different paths or
/// iterations. `seen` holds the blocks whose words `taint` has already.
/// True when that adds words.
fn taint_join(
    func: &Function,
    cfg: &Cfg,
    words: &WordIndex,
    branch: BlockId,
    join: BlockId,
    taint: &mut HybridBitSet,
    seen: &mut HashSet<BlockId>,
) -> bool {
    let before = taint.len();
    let mut stack: Vec<BlockId> = cfg.succs(branch).to_vec();
    while let Some(b) = stack.pop() {
        if b == join || !seen.insert(b) {
            continue;
        }
        for &i in &func.blocks[b].insts {
            for reg in func.insts[i].written_regs() {
                words.bits(reg).filter(|&bit| bit < words.crossing).for_each(|bit| {
                    taint.insert(bit);
                });
            }
        }
        stack.extend_from_slice(cfg.succs(b));
    }
    taint.len() != before
}

/// Applies one instruction's definitions to the divergent set.
fn transfer(inst: &Inst, words: &WordIndex, state: &mut State) {
    let divergent =
        yields_per_thread_value(inst) || inst.read_regs().any(|r| words.bits(r).any(|w| state.contains(w, words)));
    for reg in inst.written_regs() {
        // Uniform registers hold one value per warp by construction.
        let uniform = matches!(reg.file, RegFile::UR | RegFile::UP);
        for bit in words.bits(reg) {
            if divergent && !uniform {
                state.set(bit, true, words);
            } else if inst.guard.is_none() {
                // A guarded write may leave the old value in some threads.
                state.set(bit, false, words);
            }
        }
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// Opcodes and special registers whose value differs between threads
/// whatever their operands.
fn yields_per_thread_value(inst: &Inst) -> bool {
    let per_thread_special = inst.uses.iter().any(|u| {
        matches!(
            u.kind,
            OperandKind::Special(
                SpecialReg::LaneId
                    | SpecialReg::TidX
                    | SpecialReg::TidY
                    | SpecialReg::TidZ
                    | SpecialReg::LtMask
                    | SpecialReg::LeMask
                    | SpecialReg::GtMask
                    | SpecialReg::GeMask
                    | SpecialReg::EqMask
            )
        )
    });
    // Atomics return each thread's old value; shuffles and matches
    // exchange per-lane data; local memory is per thread (spill slots).
    per_thread_special
        || matches!(inst.op, Opcode::ATOM | Opcode::ATOMG | Opcode::ATOMS | Opcode::SHFL | Opcode::MATCH | Opcode::LDL)
}

/// True when `inst` is a branch some threads of a warp may take and
/// others not, given the divergent words `state` before it.
fn splits_on(func: &Function, words: &WordIndex, inst: &Inst, state: &State) -> bool {
    match inst.op {
        Opcode::BRA | Opcode::JMP => {
            inst.guard.is_some()
                && !targets_only_exits(func, inst)
                && inst.read_regs().any(|r| words.bits(r).any(|w| state.contains(w, words)))
        }
        Opcode::BRX => true,
        _ => false,
    }
}

/// The 32-bit words `reg` covers; none for the zero registers.
fn words_of(reg: Reg) -> impl Iterator<Item = Word> {
    let words = if reg.is_zero() { 0 } else { reg.width };
    let first = reg.word.unwrap_or(0);
    (0..words).map(
        move |k| if reg.is_virtual { (reg.file, reg.num, first + k) } else { (reg.file, reg.num + u32::from(k), 0) },
    )
}

#[cfg(test)]
mod tests {
    use super::divergent_branches;

    fn has_divergent_branch(func: &ori_ir::Function) -> bool {
        !divergent_branches(func).is_empty()
    }

    /// A counted loop whose bound comes from `count` (an instruction
    /// writing R2), after a store guarded by `guard`.
    fn looped(count: &str, exit_to_lone_exit: bool) -> bool {
        let tail = if exit_to_lone_exit { "bb2:\n    EXIT\n" } else { "bb2:\n    R3 = IADD3 R0, 0x1, RZ\n    EXIT\n" };
        let text = format!(
            ".target sm_90\n.props PhysicalRegs\n\n.entry k {{\nbb0:\n    R0 = MOV 0x0\n    {count}\n\
             bb1:\n    R0 = IADD3 R0, 0x1, RZ\n    P0, PT = ISETP.LT.AND R0, R2, PT\n    @P0 BRA bb1\n{tail}}}\n"
        );
        let module = ori_ir::text::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        has_divergent_branch(&module.functions[0])
    }

    #[test]
    fn a_loop_over_a_thread_index_is_divergent() {
        assert!(looped("R2 = S2R SR_TID.X", false));
        assert!(looped("R2 = S2R SR_LANEID", true));
    }

    #[test]
    fn a_loop_over_a_parameter_is_uniform() {
        assert!(!looped("R2 = LDC c[0x0][0x210]", false));
        assert!(!looped("R2 = S2R SR_CTAID.X", false));
    }

    #[test]
    fn values_from_a_divergent_loop_are_divergent_after_it() {
        // R0 counts a %tid-bounded loop's trips; the branch on it after the
        // loop (bb2) splits the warp although R0 only ever gets constants.
        let text = ".target sm_90\n.props PhysicalRegs\n\n.entry k {\nbb0:\n    R0 = MOV 0x0\n    R2 = S2R SR_TID.X\n\
             bb1:\n    R0 = IADD3 R0, 0x1, RZ\n    P0, PT = ISETP.LT.AND R0, R2, PT\n    @P0 BRA bb1\n\
             bb2:\n    P1, PT = ISETP.EQ.AND R0, 0x4, PT\n    @P1 BRA bb4\n\
             bb3:\n    R3 = MOV 0x1\n\
             bb4:\n    R4 = MOV 0x2\n    EXIT\n}\n";
        let module = ori_ir::text::parse_module(text).unwrap();
        let func = &module.functions[0];
        let found = divergent_branches(func);
        assert!(func.blocks[func.layout[2]].insts.iter().any(|i| found.contains(i)));
    }

    #[test]
    fn a_branch_to_a_lone_exit_counts_as_a_predicated_exit() {
        let text = ".target sm_90\n.props PhysicalRegs\n\n.entry k {\nbb0:\n    R2 = S2R SR_TID.X\n\
             P0, PT = ISETP.LT.AND R2, 0x20, PT\n    @P0 BRA bb2\n\
             bb1:\n    R3 = MOV 0x1\n\
             bb2:\n    EXIT\n}\n";
        let module = ori_ir::text::parse_module(text).unwrap();
        assert!(!has_divergent_branch(&module.functions[0]));
    }

    #[test]
    fn virtual_tuple_words_are_tracked_apart() {
        // Only the high word of %r0 varies: a branch on the low word is
        // uniform, one on the high word is not.
        let text = ".target sm_90\n.props VirtualRegs\n\n.entry k {\nbb0:\n    %r0:0 = MOV 0x0\n    %r0:1 = S2R SR_TID.X\n\
             %p0, PT = ISETP.EQ.AND %r0:0, 0x4, PT\n    @%p0 BRA bb2\n\
             bb1:\n    %p1, PT = ISETP.EQ.AND %r0:1, 0x4, PT\n    @%p1 BRA bb3\n\
             bb2:\n    %r1 = MOV 0x1\n\
             bb3:\n    %r2 = MOV 0x2\n    EXIT\n}\n";
        let module = ori_ir::text::parse_module(text).unwrap();
        let func = &module.functions[0];
        let found = divergent_branches(func);
        let branch_of = |b: usize| {
            func.blocks[func.layout[b]].insts.iter().copied().find(|&i| func.insts[i].op == ori_ir::Opcode::BRA)
        };
        assert!(!found.contains(&branch_of(0).unwrap()));
        assert!(found.contains(&branch_of(1).unwrap()));
    }
}
