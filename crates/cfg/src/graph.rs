//! The control-flow graph and reverse post-order.
//!
//! Edges come from two places:
//! - a block falls through to the next block of the layout unless its last
//!   instruction is an unguarded terminator;
//! - every [`OperandKind::Label`] of a `BRANCH`-flagged instruction is an
//!   edge from its block, wherever the instruction sits in the block (a
//!   guarded `BRA` in the middle of a block leaves the block there and
//!   falls through otherwise).
//!
//! The label of `BSSY` is not an edge: `BSSY` records where the warp
//! reconverges and falls through; control reaches that block through the
//! branches and fall-throughs that lead there. Passes that delete or
//! bypass blocks must still keep a `BSSY` target in the layout.
//!
//! An indirect branch (`BRX`, `JMP`, ... without a label) has targets the
//! IR does not list; [`Cfg::has_unknown_targets`] reports it, and passes
//! that need the complete graph leave such functions alone.

use ori_ir::{BlockId, Function, Inst, OpFlags, Opcode, OperandKind};

use crate::{BlockSet, index};

/// Successors, predecessors and reverse post-order of a function.
#[derive(Clone, Debug)]
pub struct Cfg {
    entry: Option<BlockId>,
    succs: Vec<Vec<BlockId>>,
    preds: Vec<Vec<BlockId>>,
    fallthrough: Vec<Option<BlockId>>,
    in_layout: BlockSet,
    exits: BlockSet,
    unknown_targets: bool,
    rpo: Vec<BlockId>,
    /// Position in `rpo`; `u32::MAX` for blocks not reachable from the entry.
    rpo_number: Vec<u32>,
}

/// Blocks `inst` may branch to: the labels of a `BRANCH`-flagged
/// instruction (`BSSY` labels are not branch targets).
pub fn branch_targets(inst: &Inst) -> impl Iterator<Item = BlockId> + '_ {
    let branches = inst.op.has(OpFlags::BRANCH);
    inst.uses.iter().filter(move |_| branches).filter_map(|op| match op.kind {
        OperandKind::Label(block) => Some(block),
        _ => None,
    })
}

/// True for a branch whose targets are not written in the instruction.
fn has_unknown_target(inst: &Inst) -> bool {
    inst.op.has(OpFlags::BRANCH)
        && !inst.op.has(OpFlags::CALL)
        && !matches!(inst.op, Opcode::EXIT | Opcode::RET)
        && branch_targets(inst).next().is_none()
}

/// True when control never continues after `inst`.
fn ends_flow(inst: &Inst) -> bool {
    inst.guard.is_none() && inst.op.has(OpFlags::TERMINATOR)
}

fn push_unique(list: &mut Vec<BlockId>, block: BlockId) {
    if !list.contains(&block) {
        list.push(block);
    }
}

impl Cfg {
    /// Builds the graph of `func`.
    pub fn compute(func: &Function) -> Cfg {
        let n = func.blocks.len();
        let mut cfg = Cfg {
            entry: func.layout.first().copied(),
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
            fallthrough: vec![None; n],
            in_layout: BlockSet::for_function(func),
            exits: BlockSet::for_function(func),
            unknown_targets: false,
            rpo: Vec::new(),
            rpo_number: vec![u32::MAX; n],
        };
        for (pos, &block) in func.layout.iter().enumerate() {
            cfg.in_layout.insert(block);
            let insts = &func.blocks[block].insts;
            let mut succs = Vec::new();
            for &i in insts {
                let inst = &func.insts[i];
                let unknown = has_unknown_target(inst);
                cfg.unknown_targets |= unknown;
                if unknown || matches!(inst.op, Opcode::EXIT | Opcode::RET) {
                    cfg.exits.insert(block);
                }
                for target in branch_targets(inst) {
                    push_unique(&mut succs, target);
                }
            }
            let falls = insts.last().is_none_or(|&i| !ends_flow(&func.insts[i]));
            if falls && let Some(&next) = func.layout.get(pos + 1) {
                cfg.fallthrough[index(block)] = Some(next);
                push_unique(&mut succs, next);
            }
            if succs.is_empty() {
                cfg.exits.insert(block);
            }
            cfg.succs[index(block)] = succs;
        }
        for &block in &func.layout {
            for i in 0..cfg.succs[index(block)].len() {
                let succ = cfg.succs[index(block)][i];
                push_unique(&mut cfg.preds[index(succ)], block);
            }
        }
        cfg.compute_rpo();
        cfg
    }

    fn compute_rpo(&mut self) {
        let Some(entry) = self.entry else { return };
        let mut visited = BlockSet::default();
        let mut postorder = Vec::new();
        let mut stack = vec![(entry, 0)];
        visited.insert(entry);
        while let Some((block, next)) = stack.last_mut() {
            let block = *block;
            match self.succs[index(block)].get(*next) {
                Some(&succ) => {
                    *next += 1;
                    if visited.insert(succ) {
                        stack.push((succ, 0));
                    }
                }
                None => {
                    postorder.push(block);
                    stack.pop();
                }
            }
        }
        postorder.reverse();
        for (number, &block) in postorder.iter().enumerate() {
            self.rpo_number[index(block)] = number as u32;
        }
        self.rpo = postorder;
    }

    /// The entry block (first in the layout); `None` for a function without
    /// blocks.
    pub fn entry(&self) -> Option<BlockId> {
        self.entry
    }

    /// Blocks control may go to from `block`, each once: branch targets in
    /// instruction order, then the fall-through block.
    pub fn succs(&self, block: BlockId) -> &[BlockId] {
        &self.succs[index(block)]
    }

    /// Blocks control may come from, each once.
    pub fn preds(&self, block: BlockId) -> &[BlockId] {
        &self.preds[index(block)]
    }

    /// The next layout block, when control can fall through to it from the
    /// end of `block`.
    pub fn fallthrough(&self, block: BlockId) -> Option<BlockId> {
        self.fallthrough[index(block)]
    }

    /// True when control may leave the function from `block`: it holds an
    /// `EXIT` or `RET` (guarded ones too), a branch to unknown targets, or
    /// has no successor at all.
    pub fn is_exit(&self, block: BlockId) -> bool {
        self.exits.contains(block)
    }

    /// True when `block` is placed in the layout.
    pub fn in_layout(&self, block: BlockId) -> bool {
        self.in_layout.contains(block)
    }

    /// True when some branch has targets the IR does not list (an indirect
    /// branch); the graph then lacks those edges.
    pub fn has_unknown_targets(&self) -> bool {
        self.unknown_targets
    }

    /// Blocks reachable from the entry, in reverse post-order (every block
    /// before its successors, back edges excepted).
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Reachable blocks in post-order.
    pub fn postorder(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.rpo.iter().rev().copied()
    }

    /// Position of `block` in [`Cfg::rpo`]; `None` when it is unreachable.
    pub fn rpo_number(&self, block: BlockId) -> Option<u32> {
        self.rpo_number.get(index(block)).copied().filter(|&n| n != u32::MAX)
    }

    /// True when `block` can be reached from the entry.
    pub fn is_reachable(&self, block: BlockId) -> bool {
        self.rpo_number(block).is_some()
    }

    /// The order backward dataflow problems sweep in: reachable blocks in
    /// post-order, then the unreachable layout blocks (a later pass may
    /// still look at their facts, and they do not change reachable ones).
    pub fn backward_order(&self, func: &Function) -> Vec<BlockId> {
        let unreachable = func.layout.iter().copied().filter(|&b| !self.is_reachable(b));
        self.postorder().chain(unreachable).collect()
    }

    /// Where control goes from the end of `block`: the fall-through block
    /// and the targets of its last instruction. Branches in the middle of
    /// the block are edges from inside it, which a transfer function sees
    /// instruction by instruction.
    pub fn end_successors<'f>(&self, func: &'f Function, block: BlockId) -> impl Iterator<Item = BlockId> + 'f {
        let last = func.blocks[block].insts.last().map(|&i| &func.insts[i]);
        self.fallthrough(block).into_iter().chain(last.into_iter().flat_map(branch_targets))
    }

    /// Number of block slots (the size of the function's block arena):
    /// the length of per-block tables.
    pub fn capacity(&self) -> usize {
        self.succs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn diamond_edges_and_rpo() {
        let f = parse(DIAMOND);
        let cfg = Cfg::compute(&f);
        assert_eq!(names(&f, cfg.succs(bb(&f, 0)).iter().copied()), ["bb2", "bb1"]);
        assert_eq!(names(&f, cfg.succs(bb(&f, 1)).iter().copied()), ["bb3"]);
        assert_eq!(names(&f, cfg.succs(bb(&f, 2)).iter().copied()), ["bb3"]);
        assert!(cfg.succs(bb(&f, 3)).is_empty());
        assert_eq!(names(&f, cfg.preds(bb(&f, 3)).iter().copied()), ["bb1", "bb2"]);
        assert_eq!(cfg.fallthrough(bb(&f, 1)), None, "an unconditional BRA does not fall through");
        assert_eq!(cfg.fallthrough(bb(&f, 2)), Some(bb(&f, 3)));
        assert_eq!(names(&f, cfg.rpo().iter().copied()), ["bb0", "bb1", "bb2", "bb3"]);
        assert_eq!(names(&f, cfg.postorder()), ["bb3", "bb2", "bb1", "bb0"]);
        assert!(!cfg.has_unknown_targets());
        assert_eq!(f.layout.iter().map(|&b| cfg.is_exit(b)).collect::<Vec<_>>(), [false, false, false, true]);
    }

    #[test]
    fn a_guarded_exit_leaves_and_falls_through() {
        let f = parse(".entry k {\nbb0:\n    @%p0 EXIT\nbb1:\n    EXIT\n}\n");
        let cfg = Cfg::compute(&f);
        assert!(cfg.is_exit(bb(&f, 0)));
        assert_eq!(names(&f, cfg.succs(bb(&f, 0)).iter().copied()), ["bb1"]);
    }

    #[test]
    fn bssy_label_is_not_an_edge_but_mid_block_branches_are() {
        let f = parse(
            "
.entry k {
bb0:
    %b0 = BSSY bb3
    @%p0 BRA bb2
    %r0 = MOV 0x1
    @%p1 BRA bb3
bb1:
    BRA bb3
bb2:
    BRA bb3
bb3:
    BSYNC %b0
    EXIT
}
",
        );
        let cfg = Cfg::compute(&f);
        assert_eq!(names(&f, cfg.succs(bb(&f, 0)).iter().copied()), ["bb2", "bb3", "bb1"]);
        assert_eq!(names(&f, cfg.preds(bb(&f, 3)).iter().copied()), ["bb0", "bb1", "bb2"]);
        assert_eq!(branch_targets(&f.insts[inst(&f, 0, 0)]).count(), 0, "BSSY's label is a reconvergence point");
    }

    #[test]
    fn unreachable_blocks_are_outside_the_order() {
        let f = parse(
            "
.entry k {
bb0:
    BRA bb2
bb1:
    %r0 = MOV 0x1
bb2:
    EXIT
bb3:
    BRA bb3
}
",
        );
        let cfg = Cfg::compute(&f);
        assert_eq!(names(&f, cfg.rpo().iter().copied()), ["bb0", "bb2"]);
        assert!(!cfg.is_reachable(bb(&f, 1)));
        assert_eq!(cfg.rpo_number(bb(&f, 3)), None);
        // Edges out of unreachable blocks still exist; they are simply not
        // walked from the entry.
        assert_eq!(names(&f, cfg.preds(bb(&f, 2)).iter().copied()), ["bb0", "bb1"]);
        assert_eq!(names(&f, cfg.preds(bb(&f, 3)).iter().copied()), ["bb3"]);
    }

    #[test]
    fn indirect_branch_and_broken_layout_do_not_panic() {
        let f = parse(
            "
.entry k {
bb0:
    @%p0 BRX %r0
bb1:
}
",
        );
        let cfg = Cfg::compute(&f);
        assert!(cfg.has_unknown_targets());
        assert_eq!(names(&f, cfg.succs(bb(&f, 0)).iter().copied()), ["bb1"]);
        assert!(cfg.succs(bb(&f, 1)).is_empty(), "the last block has nothing to fall into");
        let empty = Cfg::compute(&ori_ir::Function::new("e", ori_ir::FunctionKind::Func));
        assert_eq!(empty.entry(), None);
        assert!(empty.rpo().is_empty());
    }
}
