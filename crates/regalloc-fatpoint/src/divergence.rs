//! Where a warp may run split: the regions from each branch that can send
//! its threads different ways to the branch's immediate post-dominator
//! (where they reconverge).
//!
//! Uniform registers (UR, UP) are one per warp. On Volta and later,
//! independent thread scheduling may run the two sides of a divergent
//! branch one after the other or interleaved until they reconverge, so a
//! uniform value live on one side must not share its register with one
//! written on the other ([`crate::uniform`] applies the rule). Per-thread
//! files (R, P) are unaffected: each thread sees only its own path.
//!
//! Regions that share a block are merged into one class: nested regions
//! (the usual case) then give the outer one, which is what the rule asks;
//! overlapping ones give their union, which is only more cautious.

use cfg::{Cfg, PostDomTree, splits_warp};
use ori_ir::{BlockId, Function};

/// Per block, the class of divergent regions it belongs to and the first
/// instruction of the block inside it.
pub(crate) struct DivergentRegions {
    /// By block arena index: `(class, first instruction)`. Classes are
    /// numbered densely from 0.
    member: Vec<Option<(u32, u32)>>,
    /// Number of classes.
    classes: u32,
}

impl DivergentRegions {
    /// Finds the regions of `func`.
    pub(crate) fn compute(func: &Function, cfg: &Cfg) -> DivergentRegions {
        let pdom = PostDomTree::compute(cfg);
        let mut member: Vec<Option<(u32, u32)>> = vec![None; cfg.capacity()];
        let mut parent: Vec<u32> = Vec::new();
        // Which region last visited a block, so that each search visits a
        // block once.
        let mut visited: Vec<u32> = vec![u32::MAX; cfg.capacity()];
        let mut stack: Vec<BlockId> = Vec::new();
        for &block in cfg.rpo() {
            // The first splitting branch of the block opens its region;
            // later ones in the block lie inside it and reconverge no later
            // (the block's successors cover all their targets).
            let Some(first) = func.blocks[block].insts.iter().position(|&id| splits_warp(func, &func.insts[id])) else {
                continue;
            };
            let region = parent.len() as u32;
            parent.push(region);
            claim(&mut member, &mut parent, block, region, first as u32);
            let stop = pdom.ipdom(block);
            stack.extend(cfg.succs(block));
            while let Some(b) = stack.pop() {
                if Some(b) == stop || visited[index(b)] == region {
                    continue;
                }
                visited[index(b)] = region;
                claim(&mut member, &mut parent, b, region, 0);
                stack.extend(cfg.succs(b));
            }
        }
        // Number the classes densely by their roots.
        let mut dense = vec![u32::MAX; parent.len()];
        let mut classes = 0;
        for slot in member.iter_mut().flatten() {
            let root = find(&mut parent, slot.0) as usize;
            if dense[root] == u32::MAX {
                dense[root] = classes;
                classes += 1;
            }
            slot.0 = dense[root];
        }
        DivergentRegions { member, classes }
    }

    /// The class `block` belongs to and its first instruction inside it.
    pub(crate) fn member(&self, block: BlockId) -> Option<(u32, u32)> {
        self.member.get(index(block)).copied().flatten()
    }

    /// Number of classes.
    pub(crate) fn classes(&self) -> u32 {
        self.classes
    }
}

/// Puts `block` from instruction `first` on into `region`, merging with
/// the class it was already in.
fn claim(member: &mut [Option<(u32, u32)>], parent: &mut [u32], block: BlockId, region: u32, first: u32) {
    let slot = &mut member[index(block)];
    match slot {
        Some((class, from)) => {
            let (a, b) = (find(parent, *class), find(parent, region));
            parent[a as usize] = b;
            *class = b;
            *from = (*from).min(first);
        }
        None => *slot = Some((region, first)),
    }
}

/// Union-find root, halving paths on the way.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(text: &str) -> (Function, DivergentRegions) {
        let func = ori_ir::text::parse_function(text).unwrap();
        let regions = DivergentRegions::compute(&func, &Cfg::compute(&func));
        (func, regions)
    }

    fn members(func: &Function, r: &DivergentRegions) -> Vec<Option<(u32, u32)>> {
        func.layout.iter().map(|&b| r.member(b)).collect()
    }

    #[test]
    fn a_diamond_is_one_region_up_to_its_join() {
        let (func, r) = regions(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb2
bb1:
    %r1 = MOV 0x1
    BRA bb3
bb2:
    %r1 = MOV 0x2
bb3:
    STG.E [%r4.64], %r1
    EXIT
}
",
        );
        assert_eq!(r.classes(), 1);
        assert_eq!(members(&func, &r), [Some((0, 2)), Some((0, 0)), Some((0, 0)), None]);
    }

    #[test]
    fn nested_regions_and_loops_merge_into_the_outer_one() {
        let (func, r) = regions(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
bb1:
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb3
bb2:
    %r0 = IADD3 %r0, 0x1, RZ
bb3:
    %r0 = IADD3 %r0, 0x2, RZ
    %p1, PT = ISETP.LT.AND %r0, 0x100, PT
    @%p1 BRA bb1
bb4:
    STG.E [%r4.64], %r0
    EXIT
}
",
        );
        assert_eq!(r.classes(), 1, "the if inside the loop lies in the loop's region");
        let m = members(&func, &r);
        assert_eq!((m[0], m[4]), (None, None));
        assert!(m[1..4].iter().all(|c| c.map(|c| c.0) == Some(0)), "{m:?}");
        assert_eq!(m[1], Some((0, 0)), "the header is reached again from the latch");
    }

    #[test]
    fn exits_and_uniform_guards_do_not_split() {
        let (_, r) = regions(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %p0, PT = ISETP.LT.AND %r0, 0x10, PT
    @%p0 BRA bb3
    @%up0 BRA bb2
bb1:
    %r1 = MOV 0x1
bb2:
    STG.E [%r4.64], %r0
    EXIT
bb3:
    EXIT
}
",
        );
        assert_eq!(r.classes(), 0);
    }
}
