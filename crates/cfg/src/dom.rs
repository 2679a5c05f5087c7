//! Dominator and post-dominator trees (Cooper, Harvey and Kennedy, "A
//! Simple, Fast Dominance Algorithm": iterate over reverse post-order,
//! intersecting the dominators of processed predecessors).
//!
//! Only blocks reachable from the entry are in either tree. Post-dominance
//! is computed on the reversed graph from a virtual exit whose
//! predecessors are the blocks that may leave the function
//! ([`Cfg::is_exit`]: a guarded `EXIT` leaves for some threads). Blocks
//! that cannot reach an exit (infinite loops) would have no post-dominator
//! at all; as LLVM does, the block of such a region that comes last in
//! reverse post-order is connected to the virtual exit as well, region by
//! region, so every reachable block gets one.

use crate::{Cfg, index};
use ori_ir::BlockId;

const NONE: u32 = u32::MAX;

/// A tree over dense node numbers (reverse post-order of the graph it was
/// computed on, node 0 the root) with constant-time ancestor queries.
#[derive(Clone, Debug)]
struct Tree {
    /// Node → block; `None` for the virtual exit.
    blocks: Vec<Option<BlockId>>,
    /// Block index → node, `NONE` when not in the tree.
    node_of: Vec<u32>,
    idom: Vec<u32>,
    children: Vec<Vec<u32>>,
    /// Pre- and post-order numbers of a depth-first walk of the tree.
    pre: Vec<u32>,
    post: Vec<u32>,
    preorder: Vec<u32>,
}

impl Tree {
    /// `blocks` in reverse post-order of the graph, `preds[n]` the
    /// predecessors of node `n` in that graph (all in the tree).
    fn build(blocks: Vec<Option<BlockId>>, capacity: usize, preds: &[Vec<u32>]) -> Tree {
        let n = blocks.len();
        let mut node_of = vec![NONE; capacity];
        for (node, block) in blocks.iter().enumerate() {
            if let Some(b) = block {
                node_of[index(*b)] = node as u32;
            }
        }
        let idom = immediate_dominators(preds);
        let mut children = vec![Vec::new(); n];
        for node in 1..n {
            children[idom[node] as usize].push(node as u32);
        }
        let mut tree = Tree {
            blocks,
            node_of,
            idom,
            children,
            pre: vec![0; n],
            post: vec![0; n],
            preorder: Vec::with_capacity(n),
        };
        tree.number();
        tree
    }

    fn number(&mut self) {
        if self.blocks.is_empty() {
            return;
        }
        let mut post = 0;
        let mut stack = vec![(0u32, 0usize)];
        self.pre[0] = 0;
        self.preorder.push(0);
        while let Some((node, next)) = stack.last_mut() {
            let node = *node as usize;
            match self.children[node].get(*next) {
                Some(&child) => {
                    *next += 1;
                    self.pre[child as usize] = self.preorder.len() as u32;
                    self.preorder.push(child);
                    stack.push((child, 0));
                }
                None => {
                    self.post[node] = post;
                    post += 1;
                    stack.pop();
                }
            }
        }
    }

    fn node(&self, block: BlockId) -> Option<usize> {
        self.node_of.get(index(block)).copied().filter(|&n| n != NONE).map(|n| n as usize)
    }

    /// The parent node of `block`'s node; `None` for the root or a block
    /// not in the tree.
    fn parent(&self, block: BlockId) -> Option<usize> {
        self.node(block).filter(|&n| n != 0).map(|n| self.idom[n] as usize)
    }

    fn is_ancestor(&self, a: usize, b: usize) -> bool {
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    fn covers(&self, a: BlockId, b: BlockId) -> bool {
        match (self.node(a), self.node(b)) {
            (Some(a), Some(b)) => self.is_ancestor(a, b),
            _ => false,
        }
    }

    fn children(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        let nodes = self.node(block).map_or(&[][..], |n| &self.children[n][..]);
        nodes.iter().filter_map(|&c| self.blocks[c as usize])
    }
}

/// Immediate dominator of every node; nodes are numbered in reverse
/// post-order from the root 0, and `preds` only names nodes of the graph.
fn immediate_dominators(preds: &[Vec<u32>]) -> Vec<u32> {
    let mut idom = vec![NONE; preds.len()];
    if preds.is_empty() {
        return idom;
    }
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for node in 1..preds.len() {
            let mut new = NONE;
            for &p in &preds[node] {
                if idom[p as usize] != NONE {
                    new = if new == NONE { p } else { intersect(&idom, p, new) };
                }
            }
            if new != idom[node] {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

/// The dominator tree of the blocks reachable from the entry.
#[derive(Clone, Debug)]
pub struct DomTree(Tree);

impl DomTree {
    /// Computes the dominators of `cfg`.
    pub fn compute(cfg: &Cfg) -> DomTree {
        let rpo = cfg.rpo();
        let node = |b: BlockId| cfg.rpo_number(b);
        let preds: Vec<Vec<u32>> =
            rpo.iter().map(|&b| cfg.preds(b).iter().filter_map(|&p| node(p)).collect()).collect();
        DomTree(Tree::build(rpo.iter().map(|&b| Some(b)).collect(), cfg.capacity(), &preds))
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        self.0.parent(block).and_then(|n| self.0.blocks[n])
    }

    /// True when every path from the entry to `b` goes through `a`
    /// (reflexive; false when either block is unreachable).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.0.covers(a, b)
    }

    /// `dominates(a, b) && a != b`.
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Blocks immediately dominated by `block`.
    pub fn children(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.0.children(block)
    }

    /// Reachable blocks in a pre-order of the tree (every block after its
    /// dominators).
    pub fn preorder(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.0.preorder.iter().filter_map(|&n| self.0.blocks[n as usize])
    }

    /// True when `block` is in the tree (reachable from the entry).
    pub fn contains(&self, block: BlockId) -> bool {
        self.0.node(block).is_some()
    }
}

/// The post-dominator tree of the blocks reachable from the entry, rooted
/// at a virtual exit.
#[derive(Clone, Debug)]
pub struct PostDomTree(Tree);

impl PostDomTree {
    /// Computes the post-dominators of `cfg`.
    pub fn compute(cfg: &Cfg) -> PostDomTree {
        let cap = cfg.capacity();
        // Roots of the reversed graph: real exits first, then one block per
        // region that cannot reach an exit.
        let mut roots: Vec<BlockId> = cfg.rpo().iter().copied().filter(|&b| cfg.is_exit(b)).collect();
        let mut visited = vec![false; cap];
        let mut postorder: Vec<BlockId> = Vec::new();
        let mut next_root = 0;
        let mut unvisited = cfg.rpo().iter().rev();
        loop {
            let root = if next_root < roots.len() {
                roots[next_root]
            } else {
                // Some block cannot reach an exit: make the last unvisited
                // one in reverse post-order a root.
                match unvisited.find(|&&b| !visited[index(b)]) {
                    Some(&b) => {
                        roots.push(b);
                        b
                    }
                    None => break,
                }
            };
            next_root += 1;
            if visited[index(root)] {
                continue;
            }
            visited[index(root)] = true;
            let mut stack = vec![(root, 0)];
            while let Some((block, next)) = stack.last_mut() {
                let block = *block;
                let reachable_pred = cfg.preds(block).iter().skip(*next).position(|&p| cfg.is_reachable(p));
                match reachable_pred {
                    Some(skip) => {
                        *next += skip + 1;
                        let pred = cfg.preds(block)[*next - 1];
                        if !visited[index(pred)] {
                            visited[index(pred)] = true;
                            stack.push((pred, 0));
                        }
                    }
                    None => {
                        postorder.push(block);
                        stack.pop();
                    }
                }
            }
        }
        // Node 0 is the virtual exit; blocks follow in reverse post-order of
        // the reversed graph.
        let mut node = vec![NONE; cap];
        for (i, &b) in postorder.iter().rev().enumerate() {
            node[index(b)] = i as u32 + 1;
        }
        let is_root = {
            let mut r = vec![false; cap];
            for &b in &roots {
                r[index(b)] = true;
            }
            r
        };
        let mut preds = vec![Vec::new()];
        for &b in postorder.iter().rev() {
            let mut p: Vec<u32> = cfg.succs(b).iter().map(|&s| node[index(s)]).filter(|&n| n != NONE).collect();
            if is_root[index(b)] {
                p.push(0);
            }
            preds.push(p);
        }
        let blocks = std::iter::once(None).chain(postorder.iter().rev().map(|&b| Some(b))).collect();
        PostDomTree(Tree::build(blocks, cap, &preds))
    }

    /// The immediate post-dominator; `None` when it is the virtual exit or
    /// `block` is unreachable.
    pub fn ipdom(&self, block: BlockId) -> Option<BlockId> {
        self.0.parent(block).and_then(|n| self.0.blocks[n])
    }

    /// True when every path from `b` to the exit goes through `a`
    /// (reflexive; false when either block is unreachable).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.0.covers(a, b)
    }

    /// Blocks immediately post-dominated by `block`.
    pub fn children(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.0.children(block)
    }

    /// Blocks whose immediate post-dominator is the virtual exit.
    pub fn exit_children(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.0.children.first().into_iter().flatten().filter_map(|&c| self.0.blocks[c as usize])
    }

    /// True when `block` is in the tree (reachable from the entry).
    pub fn contains(&self, block: BlockId) -> bool {
        self.0.node(block).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use pretty_assertions::assert_eq;

    fn idoms(text: &str) -> Vec<String> {
        let f = parse(text);
        let dom = DomTree::compute(&Cfg::compute(&f));
        f.layout.iter().map(|&b| dom.idom(b).map_or("-".to_string(), |d| name(&f, d))).collect()
    }

    fn ipdoms(text: &str) -> Vec<String> {
        let f = parse(text);
        let pdom = PostDomTree::compute(&Cfg::compute(&f));
        let show = |b| match pdom.ipdom(b) {
            Some(p) => name(&f, p),
            None if pdom.contains(b) => "exit".to_string(),
            None => "-".to_string(),
        };
        f.layout.iter().map(|&b| show(b)).collect()
    }

    #[test]
    fn diamond() {
        assert_eq!(idoms(DIAMOND), ["-", "bb0", "bb0", "bb0"]);
        assert_eq!(ipdoms(DIAMOND), ["bb3", "bb3", "bb3", "exit"]);
        let f = parse(DIAMOND);
        let dom = DomTree::compute(&Cfg::compute(&f));
        assert!(dom.dominates(bb(&f, 0), bb(&f, 3)));
        assert!(dom.dominates(bb(&f, 3), bb(&f, 3)));
        assert!(!dom.strictly_dominates(bb(&f, 3), bb(&f, 3)));
        assert!(!dom.dominates(bb(&f, 1), bb(&f, 3)));
        assert_eq!(names(&f, dom.children(bb(&f, 0))), ["bb1", "bb2", "bb3"]);
        assert_eq!(names(&f, dom.preorder()), ["bb0", "bb1", "bb2", "bb3"]);
        let pdom = PostDomTree::compute(&Cfg::compute(&f));
        assert!(pdom.post_dominates(bb(&f, 3), bb(&f, 0)));
        assert!(!pdom.post_dominates(bb(&f, 1), bb(&f, 0)));
        assert_eq!(names(&f, pdom.exit_children()), ["bb3"]);
    }

    #[test]
    fn loops() {
        assert_eq!(idoms(NESTED), ["-", "bb0", "bb1", "bb2", "bb3"]);
        assert_eq!(ipdoms(NESTED), ["bb1", "bb2", "bb3", "bb4", "exit"]);
    }

    #[test]
    fn irreducible() {
        assert_eq!(idoms(IRREDUCIBLE), ["-", "bb0", "bb0", "bb2"]);
        assert_eq!(ipdoms(IRREDUCIBLE), ["bb2", "bb2", "bb3", "exit"]);
    }

    #[test]
    fn unreachable_blocks_and_several_exits() {
        let text = "
.entry k {
bb0:
    @%p0 EXIT
bb1:
    @%p1 BRA bb3
bb2:
    EXIT
bb4:
    %r0 = MOV 0x1
bb3:
    EXIT
}
";
        assert_eq!(idoms(text), ["-", "bb0", "bb1", "-", "bb1"]);
        assert_eq!(ipdoms(text), ["exit", "exit", "exit", "-", "exit"]);
        let f = parse(text);
        let dom = DomTree::compute(&Cfg::compute(&f));
        assert!(!dom.contains(bb(&f, 3)));
        assert!(!dom.dominates(bb(&f, 3), bb(&f, 3)), "an unreachable block dominates nothing");
    }

    #[test]
    fn infinite_loop_still_gets_post_dominators() {
        let text = "
.entry k {
bb0:
    @%p0 BRA bb3
bb1:
    %r0 = MOV 0x1
bb2:
    @%p1 BRA bb1
    BRA bb2
bb3:
    EXIT
}
";
        // bb1 and bb2 never reach EXIT: bb2, the last of them in reverse
        // post-order, stands in for an exit.
        assert_eq!(ipdoms(text), ["exit", "bb2", "exit", "exit"]);
    }
}
