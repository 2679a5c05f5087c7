//! The loop nest: natural loops found from back edges.
//!
//! An edge `t → h` is a back edge when `h` dominates `t`; the loop of
//! header `h` is `h` plus every block that reaches one of its back edges'
//! sources without passing through `h`. Back edges to the same header form
//! one loop. A retreating edge (to a block no later in reverse post-order)
//! whose target does not dominate its source belongs to an irreducible
//! cycle: such a cycle has no single entry, gets no loop (its blocks keep
//! the depth of the natural loops around them) and is reported by
//! [`LoopNest::irreducible_edges`] so that loop passes can stay away.

use ori_ir::{BlockId, Function};

use crate::{BlockSet, Cfg, DomTree, index};

/// A loop's number in its [`LoopNest`]; parents have smaller numbers than
/// their children.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);

impl LoopId {
    /// Position in [`LoopNest::loops`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The header: the only block entered from outside the loop.
    pub header: BlockId,
    /// Sources of the back edges to the header, in reverse post-order.
    pub latches: Vec<BlockId>,
    /// Every block of the loop, the header and nested loops included.
    pub blocks: BlockSet,
    /// The innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

/// Every natural loop of a function and the innermost loop of each block.
#[derive(Clone, Debug)]
pub struct LoopNest {
    loops: Vec<Loop>,
    innermost: Vec<Option<LoopId>>,
    irreducible: Vec<(BlockId, BlockId)>,
}

impl LoopNest {
    /// Finds the loops of `func`.
    pub fn compute(func: &Function, cfg: &Cfg, dom: &DomTree) -> LoopNest {
        let mut nest = LoopNest { loops: Vec::new(), innermost: vec![None; cfg.capacity()], irreducible: Vec::new() };
        // Headers in reverse post-order: an enclosing loop's header dominates
        // the inner header, so it comes first and parents precede children.
        for &header in cfg.rpo() {
            let latches: Vec<BlockId> =
                cfg.preds(header).iter().copied().filter(|&p| dom.dominates(header, p)).collect();
            for &pred in cfg.preds(header) {
                if cfg.rpo_number(pred) >= cfg.rpo_number(header) && !dom.dominates(header, pred) {
                    nest.irreducible.push((pred, header));
                }
            }
            if latches.is_empty() {
                continue;
            }
            let blocks = body(func, cfg, header, &latches);
            let id = LoopId(nest.loops.len() as u32);
            let parent = nest.loops.iter().rposition(|l| l.blocks.contains(header)).map(|p| LoopId(p as u32));
            let depth = parent.map_or(1, |p| nest.loops[p.index()].depth + 1);
            for block in blocks.iter() {
                // Later loops are nested deeper, so the last writer wins.
                nest.innermost[index(block)] = Some(id);
            }
            nest.loops.push(Loop { header, latches, blocks, parent, depth });
        }
        nest
    }

    /// The loops, outer before inner.
    pub fn loops(&self) -> impl Iterator<Item = (LoopId, &Loop)> {
        self.loops.iter().enumerate().map(|(i, l)| (LoopId(i as u32), l))
    }

    /// The loop `id`.
    pub fn get(&self, id: LoopId) -> &Loop {
        &self.loops[id.index()]
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// True when the function has no natural loop.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The innermost loop containing `block`.
    pub fn innermost(&self, block: BlockId) -> Option<LoopId> {
        self.innermost.get(index(block)).copied().flatten()
    }

    /// Number of loops containing `block` (0 outside every loop).
    pub fn depth(&self, block: BlockId) -> u32 {
        self.innermost(block).map_or(0, |l| self.get(l).depth)
    }

    /// The loop whose header is `block`.
    pub fn loop_headed_by(&self, block: BlockId) -> Option<LoopId> {
        self.innermost(block).filter(|&l| self.get(l).header == block)
    }

    /// Retreating edges `(source, target)` that are not back edges: each
    /// closes a cycle with more than one entry.
    pub fn irreducible_edges(&self) -> &[(BlockId, BlockId)] {
        &self.irreducible
    }
}

/// The header plus every block that reaches a latch without passing
/// through the header.
fn body(func: &Function, cfg: &Cfg, header: BlockId, latches: &[BlockId]) -> BlockSet {
    let mut blocks = BlockSet::for_function(func);
    blocks.insert(header);
    let mut work: Vec<BlockId> = latches.to_vec();
    while let Some(block) = work.pop() {
        if blocks.insert(block) {
            work.extend(cfg.preds(block).iter().copied().filter(|&p| cfg.is_reachable(p)));
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use pretty_assertions::assert_eq;

    fn nest(f: &Function) -> LoopNest {
        let cfg = Cfg::compute(f);
        LoopNest::compute(f, &cfg, &DomTree::compute(&cfg))
    }

    #[test]
    fn nested_loops() {
        let f = parse(NESTED);
        let nest = nest(&f);
        let loops: Vec<_> = nest
            .loops()
            .map(|(_, l)| {
                (name(&f, l.header), names(&f, l.latches.iter().copied()), names(&f, l.blocks.iter()), l.depth)
            })
            .collect();
        assert_eq!(
            loops,
            [
                ("bb1".to_string(), vec!["bb3".to_string()], vec!["bb1".to_string(), "bb2".into(), "bb3".into()], 1),
                ("bb2".to_string(), vec!["bb2".to_string()], vec!["bb2".to_string()], 2),
            ]
        );
        let (outer, inner) = (nest.loop_headed_by(bb(&f, 1)).unwrap(), nest.loop_headed_by(bb(&f, 2)).unwrap());
        assert_eq!(nest.get(inner).parent, Some(outer));
        assert_eq!(nest.get(outer).parent, None);
        let depths: Vec<u32> = f.layout.iter().map(|&b| nest.depth(b)).collect();
        assert_eq!(depths, [0, 1, 2, 1, 0]);
        assert_eq!(nest.innermost(bb(&f, 3)), Some(outer));
        assert!(nest.irreducible_edges().is_empty());
    }

    #[test]
    fn irreducible_cycle_is_no_loop() {
        let f = parse(IRREDUCIBLE);
        let nest = nest(&f);
        assert!(nest.is_empty());
        assert_eq!(f.layout.iter().map(|&b| nest.depth(b)).sum::<u32>(), 0);
        let edges: Vec<_> = nest.irreducible_edges().iter().map(|&(s, t)| (name(&f, s), name(&f, t))).collect();
        assert_eq!(edges, [("bb1".to_string(), "bb2".to_string())]);
    }

    #[test]
    fn two_back_edges_make_one_loop_and_unreachable_cycles_none() {
        let f = parse(
            "
.entry k {
bb0:
    %r0 = MOV 0x0
bb1:
    @%p0 BRA bb1
    @%p1 BRA bb3
bb2:
    @%p2 BRA bb1
    EXIT
bb3:
    BRA bb3
}
",
        );
        let nest = nest(&f);
        let loops: Vec<_> =
            nest.loops().map(|(_, l)| (name(&f, l.header), names(&f, l.latches.iter().copied()))).collect();
        assert_eq!(
            loops,
            [("bb1".to_string(), vec!["bb1".to_string(), "bb2".into()]), ("bb3".to_string(), vec!["bb3".to_string()])]
        );
        assert_eq!(f.layout.iter().map(|&b| nest.depth(b)).collect::<Vec<_>>(), [0, 1, 1, 1]);

        let unreachable = parse(
            "
.entry k {
bb0:
    EXIT
bb1:
    BRA bb1
}
",
        );
        assert!(self::nest(&unreachable).is_empty(), "a cycle nobody reaches is not a loop");
    }
}
