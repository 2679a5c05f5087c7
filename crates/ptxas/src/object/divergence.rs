//! Which conditional branches of a function's final code may split its
//! warps: NVIDIA's ptxas 13.5 writes EIATTR_CRS_STACK_SIZE (0) exactly for
//! kernels whose final code keeps such a branch (docs/elfw.md).
//!
//! Measured on probes (sm_90): a loop whose exit compares a thread-varying
//! value gets the record; the same loop over a value from a parameter, a
//! uniform-address load (volatile too), `%ctaid`, `%ntid`, `%clock`,
//! `%warpid`, a broadcast `shfl.idx` does not; `%laneid`, `%tid` and atomic
//! results make it divergent. NVIDIA trusts `@p bra.uni`; Ori does not
//! keep `.uni` (no corpus kernel guards one), so such a branch counts here
//! by its predicate. A divergent branch
//! NVIDIA turns into predication or `@P EXIT` (vadd, matmul_tiled) leaves
//! no record: the rule is about the final code.
//!
//! The analysis runs on allocated registers, so it is flow-sensitive (a
//! register's divergence is the one of its reaching definitions): a forward
//! dataflow over the blocks, where a definition is divergent when a source
//! or its guard is, or its opcode yields a per-thread value. At the join
//! (immediate post-dominator) of a divergent branch every register defined
//! between the branch and the join becomes divergent: threads arrive there
//! with values from different paths or iterations.

use std::collections::{HashMap, HashSet};

use cfg::{Cfg, PostDomTree};
use ori_ir::{BlockId, Function, Inst, Opcode, OperandKind, Reg, RegFile, SpecialReg};

/// One 32-bit register word.
type Word = (RegFile, u32);

/// True when `func`'s code has a conditional branch whose condition may
/// differ between the threads of a warp.
pub(super) fn has_divergent_branch(func: &Function) -> bool {
    !divergent_branches(func).is_empty()
}

/// The blocks holding a conditional branch that may split a warp.
fn divergent_branches(func: &Function) -> HashSet<BlockId> {
    let cfg = Cfg::compute(func);
    let pdom = PostDomTree::compute(&cfg);
    let mut divergent_branches: HashSet<BlockId> = HashSet::new();
    // Each round may find branches divergent that make more values
    // divergent at their joins; the set only grows, so this ends.
    loop {
        let taint = join_taint(func, &cfg, &pdom, &divergent_branches);
        let entry = dataflow(func, &cfg, &taint);
        let found: HashSet<BlockId> =
            cfg.rpo().iter().copied().filter(|b| has_divergent_branch_in(func, *b, entry[b].clone())).collect();
        if found.is_subset(&divergent_branches) {
            return divergent_branches;
        }
        divergent_branches.extend(found);
    }
}

/// Registers made divergent at the entry of each join block.
fn join_taint(
    func: &Function,
    cfg: &Cfg,
    pdom: &PostDomTree,
    branches: &HashSet<BlockId>,
) -> HashMap<BlockId, HashSet<Word>> {
    let mut taint: HashMap<BlockId, HashSet<Word>> = Default::default();
    for &branch in branches {
        // A join at the virtual exit: the paths never meet again.
        let Some(join) = pdom.ipdom(branch) else { continue };
        let mut seen = HashSet::new();
        let mut stack: Vec<BlockId> = cfg.succs(branch).to_vec();
        let words = taint.entry(join).or_default();
        while let Some(b) = stack.pop() {
            if b == join || !seen.insert(b) {
                continue;
            }
            for &i in &func.blocks[b].insts {
                words.extend(func.insts[i].written_regs().flat_map(words_of));
            }
            stack.extend_from_slice(cfg.succs(b));
        }
    }
    taint
}

/// Divergent words at the entry of each reachable block.
fn dataflow(func: &Function, cfg: &Cfg, taint: &HashMap<BlockId, HashSet<Word>>) -> HashMap<BlockId, HashSet<Word>> {
    let mut entry: HashMap<BlockId, HashSet<Word>> = HashMap::new();
    let mut out: HashMap<BlockId, HashSet<Word>> = cfg.rpo().iter().map(|&b| (b, HashSet::new())).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.rpo() {
            let mut state: HashSet<Word> = cfg.preds(b).iter().filter_map(|p| out.get(p)).flatten().copied().collect();
            if let Some(t) = taint.get(&b) {
                state.extend(t);
            }
            entry.insert(b, state.clone());
            for &i in &func.blocks[b].insts {
                transfer(&func.insts[i], &mut state);
            }
            if out[&b] != state {
                out.insert(b, state);
                changed = true;
            }
        }
    }
    entry
}

/// Applies one instruction's definitions to the divergent set.
fn transfer(inst: &Inst, state: &mut HashSet<Word>) {
    let divergent = yields_per_thread_value(inst) || inst.read_regs().flat_map(words_of).any(|w| state.contains(&w));
    for reg in inst.written_regs() {
        for word in words_of(reg) {
            // Uniform registers hold one value per warp by construction.
            if divergent && !matches!(word.0, RegFile::UR | RegFile::UP) {
                state.insert(word);
            } else if inst.guard.is_none() {
                // A guarded write may leave the old value in some threads.
                state.remove(&word);
            }
        }
    }
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

/// True when block `b`, entered with the divergent words `state`, holds
/// a branch some threads of a warp may take and others not.
fn has_divergent_branch_in(func: &Function, b: BlockId, mut state: HashSet<Word>) -> bool {
    for &i in &func.blocks[b].insts {
        let inst = &func.insts[i];
        let conditional = match inst.op {
            Opcode::BRA => inst.guard.is_some() && !cfg::targets_only_exits(func, inst),
            Opcode::BRX => true,
            _ => false,
        };
        if conditional && inst.read_regs().flat_map(words_of).any(|w| state.contains(&w)) {
            return true;
        }
        transfer(inst, &mut state);
    }
    false
}

/// The 32-bit words `reg` covers; none for the zero registers.
fn words_of(reg: Reg) -> impl Iterator<Item = Word> {
    let words = if reg.is_zero() { 0 } else { u32::from(reg.width) };
    (0..words).map(move |k| (reg.file, reg.num + k))
}

#[cfg(test)]
mod tests {
    use super::{divergent_branches, has_divergent_branch};

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
        assert!(divergent_branches(func).contains(&func.layout[2]));
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
}
