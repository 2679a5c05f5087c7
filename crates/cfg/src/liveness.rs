//! Liveness of virtual registers: which registers hold a value that may
//! still be read, at the start and end of every block.
//!
//! A tuple (`%r4.64`) is one virtual register, and so are its parts
//! (`%r4:1`): a write of a part keeps the tuple live through it unless it
//! is marked `undef` ([`ori_ir::Inst::killed_regs`]). Only virtual
//! registers are tracked; physical registers (ABI registers before
//! allocation, `RZ`, `PR`) are outside the sets. A guarded definition does
//! not kill: when the guard is false the old value survives. A branch in the middle of a block
//! (a guarded `BRA`) makes everything live at its targets live at that
//! point, so the sets are exact for blocks with several exits.

use fixedbitset::FixedBitSet;
use ori_ir::{BlockId, Function, Inst};

use crate::{Cfg, RegSet, VReg, VRegSpace, branch_targets, index};

/// Live-in and live-out sets of every block.
#[derive(Clone, Debug)]
pub struct Liveness {
    space: VRegSpace,
    live_in: Vec<RegSet>,
    live_out: Vec<RegSet>,
}

impl Liveness {
    /// Solves liveness for `func` (backward, union over successors, until
    /// nothing changes; blocks are visited in post-order so that most
    /// facts settle in one sweep). Each block is summarised once
    /// ([`BlockSummary`]), so an iteration costs set operations per block,
    /// not a walk over every instruction.
    pub fn compute(func: &Function, cfg: &Cfg) -> Liveness {
        Liveness::compute_in(func, cfg, VRegSpace::of(func))
    }

    /// [`Liveness::compute`] numbering registers by `space`, which must
    /// hold every register of `func` (a space taken before instructions
    /// were deleted does): a pass that deletes and recomputes in a loop
    /// skips rescanning the function for its registers each round.
    pub fn compute_in(func: &Function, cfg: &Cfg, space: VRegSpace) -> Liveness {
        let empty = RegSet::new(space);
        let mut live = Liveness {
            space,
            live_in: vec![empty.clone(); cfg.capacity()],
            live_out: vec![empty.clone(); cfg.capacity()],
        };
        let order = cfg.backward_order(func);
        let summaries: Vec<BlockSummary> = order.iter().map(|&b| BlockSummary::of(func, b, space)).collect();
        // Scratch sets, reused so that a round allocates nothing.
        let (mut out, mut set, mut reaching) = (empty.clone(), empty.clone(), empty);
        let mut changed = true;
        while changed {
            changed = false;
            for (&block, summary) in order.iter().zip(&summaries) {
                out.clear();
                for next in cfg.end_successors(func, block) {
                    out.union_with(&live.live_in[index(next)]);
                }
                set.clone_from(&out);
                set.difference_with(&summary.kill);
                set.union_with(&summary.gen_);
                for (target, killed) in &summary.inner_branches {
                    reaching.clone_from(&live.live_in[index(*target)]);
                    reaching.difference_with(killed);
                    set.union_with(&reaching);
                }
                live.live_out[index(block)].clone_from(&out);
                if set != live.live_in[index(block)] {
                    live.live_in[index(block)].clone_from(&set);
                    changed = true;
                }
            }
        }
        live
    }

    /// The numbering the sets use.
    pub fn space(&self) -> VRegSpace {
        self.space
    }

    /// Registers live at the start of `block`.
    pub fn live_in(&self, block: BlockId) -> &RegSet {
        &self.live_in[index(block)]
    }

    /// Registers live at the end of `block`.
    pub fn live_out(&self, block: BlockId) -> &RegSet {
        &self.live_out[index(block)]
    }

    /// Steps backward over `inst`: turns the registers live after it into
    /// those live before it. Passes that walk a block backward from
    /// [`Liveness::live_out`] use this to know what is live at each
    /// instruction.
    pub fn transfer(&self, inst: &Inst, live: &mut RegSet) {
        for target in branch_targets(inst) {
            live.union_with(&self.live_in[index(target)]);
        }
        for v in inst.killed_regs().filter_map(VReg::of) {
            live.remove(v);
        }
        for v in inst.read_regs().filter_map(VReg::of) {
            live.insert(v);
        }
    }

    /// [`Liveness::transfer`] on a dense bitset numbered by
    /// [`Liveness::space`] (filled from [`RegSet::union_into`]), for walks
    /// over long blocks, where each step costs a few bit operations
    /// instead of list insertions.
    pub fn transfer_bits(&self, inst: &Inst, live: &mut FixedBitSet) {
        for target in branch_targets(inst) {
            self.live_in[index(target)].union_into(live);
        }
        for b in inst.killed_regs().filter_map(VReg::of).filter_map(|v| self.space.bit(v)) {
            live.remove(b);
        }
        for b in inst.read_regs().filter_map(VReg::of).filter_map(|v| self.space.bit(v)) {
            live.insert(b);
        }
    }
}

/// What one block does to liveness, as [`Liveness::transfer`] over its
/// instructions from last to first would: live-in = `gen_` ∪ (live-out −
/// `kill`) ∪ (live-in of each inner branch's target − what is killed from
/// the block's start through that branch).
struct BlockSummary {
    /// Registers read before any write that kills them (upward exposed).
    gen_: RegSet,
    /// Registers some instruction of the block kills.
    kill: RegSet,
    /// Targets of branches before the block's last instruction, each with
    /// the registers killed up to and including the branch.
    inner_branches: Vec<(BlockId, RegSet)>,
}

impl BlockSummary {
    fn of(func: &Function, block: BlockId, space: VRegSpace) -> BlockSummary {
        let mut gen_ = RegSet::new(space);
        let mut kill = RegSet::new(space);
        let mut inner_branches = Vec::new();
        let insts = &func.blocks[block].insts;
        for (k, &id) in insts.iter().enumerate() {
            let inst = &func.insts[id];
            // `transfer` adds an instruction's reads after removing its
            // kills, so only the kills above it hide a read.
            for v in inst.read_regs().filter_map(VReg::of) {
                if !kill.contains(v) {
                    gen_.insert(v);
                }
            }
            for v in inst.killed_regs().filter_map(VReg::of) {
                kill.insert(v);
            }
            // `transfer` joins a branch's targets before removing its
            // kills. The last instruction's targets are end successors, in
            // the live-out set already.
            if k + 1 < insts.len() {
                for target in branch_targets(inst) {
                    inner_branches.push((target, kill.clone()));
                }
            }
        }
        BlockSummary { gen_, kill, inner_branches }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use ori_ir::{Reg, RegFile};
    use pretty_assertions::assert_eq;

    fn sets(text: &str) -> Vec<(String, String)> {
        let f = parse(text);
        let live = Liveness::compute(&f, &Cfg::compute(&f));
        f.layout.iter().map(|&b| (live.live_in(b).to_string(), live.live_out(b).to_string())).collect()
    }

    fn s(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn diamond() {
        assert_eq!(
            sets(DIAMOND),
            s(&[("{}", "{}"), ("{}", "{%r1}"), ("{}", "{%r1}"), ("{%r1}", "{}")]),
            "%r1 is written on both paths, %r2 and %p0 only inside their block"
        );
    }

    #[test]
    fn values_live_around_loops() {
        assert_eq!(
            sets(NESTED),
            s(&[
                ("{}", "{%r0, %ur0}"),
                ("{%r0, %ur0}", "{%r0, %r1, %ur0}"),
                ("{%r0, %r1, %ur0}", "{%r0, %r1, %ur0}"),
                ("{%r0, %ur0}", "{%r0, %ur0}"),
                ("{}", "{}"),
            ])
        );
    }

    #[test]
    fn irreducible_cycle() {
        assert_eq!(sets(IRREDUCIBLE), s(&[("{}", "{%r0}"), ("{%r0}", "{%r0}"), ("{%r0}", "{%r0}"), ("{}", "{}")]));
    }

    #[test]
    fn guarded_definitions_do_not_kill() {
        let text = "
.entry k {
bb0:
    @%p0 %r0 = MOV 0x1
    @%p0 %r1 = MOV 0x2
    %r1 = MOV 0x3
    STG.E [%r2.64], %r0
    STG.E [%r2.64], %r1
    EXIT
}
";
        assert_eq!(sets(text), s(&[("{%r0, %r2, %p0}", "{}")]));
    }

    #[test]
    fn only_undef_parts_kill_their_tuple() {
        // %r0's low word is written plainly, so the tuple is live above it
        // (its high word may hold an older value); %r1's first write is
        // `undef`, so nothing of %r1 is live at the top.
        let text = "
.entry k {
bb0:
    %r0:0 = MOV 0x1
    undef %r1:1 = MOV 0x2
    %r1:0 = MOV 0x3
    STG.E.64 [%r2.64], %r0.64
    STG.E.64 [%r2.64], %r1.64
    EXIT
}
";
        assert_eq!(sets(text), s(&[("{%r0, %r2}", "{}")]));
    }

    #[test]
    fn a_mid_block_branch_sees_the_value_before_a_later_redefinition() {
        let text = "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    @%p0 BRA bb1
    %r0 = MOV 0x1
    STG.E [%r2.64], %r0
    EXIT
bb1:
    STG.E [%r2.64], %r0
    EXIT
}
";
        let f = parse(text);
        let live = Liveness::compute(&f, &Cfg::compute(&f));
        let mut set = live.live_out(bb(&f, 0)).clone();
        let insts = &f.blocks[bb(&f, 0)].insts;
        for &i in insts[1..].iter().rev() {
            live.transfer(&f.insts[i], &mut set);
        }
        assert!(set.contains(VReg { file: RegFile::R, num: 0 }), "the S2R result is read in bb1: {set}");
        assert_eq!(sets(text), s(&[("{%r2, %p0}", "{}"), ("{%r0, %r2}", "{}")]));
    }

    #[test]
    fn tuples_count_once_per_file() {
        let f = parse(
            "
.entry k {
bb0:
    %r2.64 = LDC.64 c[0x0][0x210]
    %r4.128 = LDG.E.128 [%r2.64]
    %ur1 = S2UR SR_CTAID.X
    %p3, PT = ISETP.GE.AND %r4.128, %ur1, PT
    BRA bb1
bb1:
    @%p3 EXIT
    STG.E.128 [%r2.64], %r4.128
    EXIT
}
",
        );
        let live = Liveness::compute(&f, &Cfg::compute(&f));
        let out = live.live_out(bb(&f, 0));
        assert_eq!(out.to_string(), "{%r2, %r4, %p3}");
        assert_eq!((out.count(RegFile::R), out.count(RegFile::P), out.count(RegFile::UR)), (2, 1, 0));
        assert!(out.contains_reg(Reg::virt(RegFile::R, 4).wide(4)));
        assert!(!out.contains_reg(Reg::RZ));
    }

    #[test]
    fn registers_built_without_reservation_still_have_bits() {
        let mut f = parse(".entry k {\nbb0:\n    EXIT\n}\n");
        let b = bb(&f, 0);
        let reg = Reg::virt(RegFile::R, 7);
        f.blocks[b].insts.clear();
        f.push_inst(b, ori_ir::Inst::new(ori_ir::Opcode::STG, vec![], vec![ori_ir::Operand::reg(reg); 2]));
        f.push_inst(b, ori_ir::Inst::new(ori_ir::Opcode::EXIT, vec![], vec![]));
        let live = Liveness::compute(&f, &Cfg::compute(&f));
        assert_eq!(live.live_in(b).to_string(), "{%r7}");
    }

    #[test]
    fn block_summaries_agree_with_the_transfer_function() {
        let mid_branch = "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    @%p0 BRA bb2
    %r0 = IADD3 %r0, %r1, RZ
    @%p1 BRA bb1
    %r1 = MOV 0x1
    BRA bb2
bb1:
    STG.E [%r2.64], %r0
    BRA bb0
bb2:
    STG.E [%r2.64], %r1
    EXIT
}
";
        for text in [DIAMOND, NESTED, IRREDUCIBLE, mid_branch] {
            let f = parse(text);
            let live = Liveness::compute(&f, &Cfg::compute(&f));
            for &b in &f.layout {
                let mut set = live.live_out(b).clone();
                for &i in f.blocks[b].insts.iter().rev() {
                    live.transfer(&f.insts[i], &mut set);
                }
                assert_eq!(&set, live.live_in(b), "{}", name(&f, b));
                let mut bits = FixedBitSet::with_capacity(live.space().len());
                live.live_out(b).union_into(&mut bits);
                for &i in f.blocks[b].insts.iter().rev() {
                    live.transfer_bits(&f.insts[i], &mut bits);
                }
                let mut expected = FixedBitSet::with_capacity(live.space().len());
                live.live_in(b).union_into(&mut expected);
                assert_eq!(bits, expected, "{}: transfer_bits", name(&f, b));
            }
        }
    }
}
