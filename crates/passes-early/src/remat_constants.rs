//! `RematConstantLoads`: a constant-bank load read in other blocks is
//! loaded again where it is read, instead of holding a register from the
//! top of the kernel down.
//!
//! Lowering loads every parameter at the start of the entry block, and a
//! pointer read only in the last loop of a kernel holds two registers
//! through all the code before it (layernorm_rows: four pointer pairs
//! across three reduction loops). NVIDIA's code loads parameters next to
//! their readers (`LDC R6, c[0x0][RZ]` inside the branch that reads it).
//! A bank word cannot change during a launch, so loading it again gives
//! the same value anywhere.
//!
//! For each constant load (`LDC[.64]` or sm_80's `MOV` / `IMAD.WIDE.U32
//! d, RZ, RZ, c[..]` of a fixed offset, unguarded, into a virtual register
//! nothing else writes) with readers outside its block, every reader
//! block gets its own load, placed in the reader block itself or, when
//! that block is in a loop the original load is not in, at the end of the
//! block that dominates the loop (its immediate dominator), so that no
//! load moves into a loop. Readers in the load's own block keep the
//! original; `EarlyOriSimpleLiveDead` deletes it when it has none.

use std::collections::{BTreeMap, HashMap};

use cfg::{Cfg, DomTree, LoopNest};
use ori_ir::{
    BlockId, Function, Inst, InstId, OpFlags, Operand, Phase, PhaseContext, PhaseError, Property, PropertySet, Reg,
    RegFile,
};

use crate::const_operands::constant_load;

/// Loads constant-bank words again next to readers in other blocks.
pub struct RematConstantLoads;

impl Phase for RematConstantLoads {
    fn name(&self) -> &'static str {
        "RematConstantLoads"
    }

    fn description(&self) -> &'static str {
        "Constant-bank loads read in other blocks are loaded again there, outside loops the original is not in"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            return Ok(());
        }
        let dom = DomTree::compute(&cfg);
        let loops = LoopNest::compute(func, &cfg, &dom);
        let loads = constant_loads(func);
        // Readers per (load, target block), in layout order.
        let mut groups: BTreeMap<(u32, BlockId), Vec<InstId>> = BTreeMap::new();
        for (block, id, inst) in func.insts_in_order() {
            for reg in inst.read_regs() {
                let Some(load) = loads.get(&reg.num).filter(|_| reg.is_virtual && reg.file == RegFile::R) else {
                    continue;
                };
                if block == load.block || !dom.dominates(load.block, block) {
                    continue;
                }
                let target = outside_new_loops(block, load.block, &loops, &dom);
                if target == load.block {
                    continue;
                }
                let readers = groups.entry((reg.num, target)).or_default();
                if readers.last() != Some(&id) {
                    readers.push(id);
                }
            }
        }
        for ((num, target), readers) in groups {
            let load = &loads[&num];
            let fresh = func.new_vreg(RegFile::R, load.reg.width);
            let copy = Inst { defs: vec![Operand::reg(fresh)], ..func.insts[load.inst].clone() };
            let copy = func.insts.alloc(copy);
            let insts = &mut func.blocks[target].insts;
            // Before the first reader, or in a dominating block before
            // its first branch (a guarded branch may leave mid-block).
            let leaves =
                |i: &InstId| func.insts[*i].op.has(OpFlags::BRANCH) || func.insts[*i].op.has(OpFlags::TERMINATOR);
            let at = insts.iter().position(|i| readers.contains(i) || leaves(i)).unwrap_or(insts.len());
            insts.insert(at, copy);
            for id in readers {
                rename_reads(&mut func.insts[id], num, fresh);
            }
        }
        Ok(())
    }
}

/// `block`, or the block that dominates the outermost loop around it that
/// does not also contain `home` (the original load's block).
fn outside_new_loops(block: BlockId, home: BlockId, loops: &LoopNest, dom: &DomTree) -> BlockId {
    let mut target = block;
    let mut current = loops.innermost(block);
    while let Some(id) = current {
        let l = loops.get(id);
        if l.blocks.contains(home) {
            break;
        }
        target = dom.idom(l.header).unwrap_or(home);
        current = l.parent;
    }
    target
}

/// Makes `inst`'s reads of virtual register `num` read `to` (same width).
fn rename_reads(inst: &mut Inst, num: u32, to: Reg) {
    let rename = |r: &mut Reg| {
        if r.is_virtual && r.file == RegFile::R && r.num == num {
            r.num = to.num;
        }
    };
    if let Some(g) = &mut inst.guard {
        rename(&mut g.pred);
    }
    for op in &mut inst.uses {
        op.regs_mut().for_each(rename);
    }
}

/// A constant load and where it is.
struct Load {
    inst: InstId,
    block: BlockId,
    reg: Reg,
}

/// The constant loads of `func` whose register nothing else writes, by
/// virtual register number.
fn constant_loads(func: &Function) -> HashMap<u32, Load> {
    let writers = crate::write_counts(func);
    let mut loads = HashMap::new();
    for (block, id, inst) in func.insts_in_order() {
        if let Some(load) = constant_load(inst) {
            loads.insert(load.reg.num, Load { inst: id, block, reg: load.reg });
        }
    }
    loads.retain(|&num, _| writers.get(&(RegFile::R, num)) == Some(&1));
    loads
}
