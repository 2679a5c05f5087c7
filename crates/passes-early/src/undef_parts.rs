//! `OriMarkUndefParts`: marks `undef` the writes of a tuple's part after
//! which no other word of the tuple holds a value anyone reads.
//!
//! Liveness ([`cfg::Liveness`]) and the allocator track a tuple as one
//! register: a write of one part keeps the whole tuple live through it
//! unless the write is marked `undef` (the other words' old values are
//! dead). Lowering marks the first write of the tuples it builds itself,
//! but not those PTX code initialises register by register: the `mov`s
//! that zero a matrix accumulator before its loop write the parts of the
//! tuple `HMMA` reads (`ptx-lower`'s `bind_fragments`), so without the
//! mark the tuple is live from the function's entry, through everything
//! before the loop.
//!
//! Here liveness is solved word by word for the virtual registers wider
//! than one word, and an unguarded write of a part gets the mark when no
//! other word of its register is live after it and the instruction reads
//! none of the register: the value before it is then dead as a whole.

use cfg::{Cfg, HybridBitSet, branch_targets};
use ori_ir::{
    BlockId, Function, FxHashMap, Inst, Phase, PhaseContext, PhaseError, Property, PropertySet, Reg, RegFile,
};

/// Marks part writes that end their tuple's old value `undef`.
pub struct OriMarkUndefParts;

impl Phase for OriMarkUndefParts {
    fn name(&self) -> &'static str {
        "OriMarkUndefParts"
    }

    fn description(&self) -> &'static str {
        "Marks writes of a tuple's part undef when the tuple's other words are dead there"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            // Words live at unlisted targets would be missed.
            return Ok(());
        }
        let words = Words::of(func);
        if words.len == 0 {
            return Ok(());
        }
        let live_in = solve(func, &cfg, &words);
        for &block in &func.layout {
            let mut live = live_out(func, &cfg, block, &live_in, words.len);
            for k in (0..func.blocks[block].insts.len()).rev() {
                let id = func.blocks[block].insts[k];
                mark(&mut func.insts[id], &words, &live);
                transfer(&func.insts[id], &words, &live_in, &mut live);
            }
        }
        Ok(())
    }
}

/// The numbering of the words of virtual registers wider than one word.
struct Words {
    /// First bit and word count of each such register.
    regs: FxHashMap<(RegFile, u32), (usize, u8)>,
    len: usize,
}

impl Words {
    fn of(func: &Function) -> Words {
        let mut widths: FxHashMap<(RegFile, u32), u8> = FxHashMap::default();
        for (_, _, inst) in func.insts_in_order() {
            for r in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
                let w = widths.entry((r.file, r.num)).or_default();
                *w = (*w).max(r.words().end);
            }
        }
        let mut wide: Vec<_> = widths.into_iter().filter(|&(_, w)| w > 1).collect();
        wide.sort_unstable();
        let mut regs = FxHashMap::default();
        let mut len = 0;
        for (key, width) in wide {
            regs.insert(key, (len, width));
            len += usize::from(width);
        }
        Words { regs, len }
    }

    /// The bits of the words `reg` covers (none for a one-word register).
    fn bits(&self, reg: Reg) -> std::ops::Range<usize> {
        match self.regs.get(&(reg.file, reg.num)) {
            Some(&(first, _)) if reg.is_virtual => {
                first + usize::from(reg.words().start)..first + usize::from(reg.words().end)
            }
            _ => 0..0,
        }
    }

    /// The bits of every word of `reg`'s register.
    fn all_bits(&self, reg: Reg) -> std::ops::Range<usize> {
        match self.regs.get(&(reg.file, reg.num)) {
            Some(&(first, width)) if reg.is_virtual => first..first + usize::from(width),
            _ => 0..0,
        }
    }
}

fn index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// The words live at the end of `block`.
fn live_out(func: &Function, cfg: &Cfg, block: BlockId, live_in: &[HybridBitSet], len: usize) -> HybridBitSet {
    let mut set = HybridBitSet::new(len);
    for next in cfg.end_successors(func, block) {
        set.union_with(&live_in[index(next)]);
    }
    set
}

/// Turns the words live after `inst` into those live before it; as
/// [`cfg::Liveness::transfer`], word by word: every unguarded write ends
/// the words it writes, `undef` or not.
fn transfer(inst: &Inst, words: &Words, live_in: &[HybridBitSet], live: &mut HybridBitSet) {
    for target in branch_targets(inst) {
        live.union_with(&live_in[index(target)]);
    }
    if inst.guard.is_none() {
        for r in inst.written_regs() {
            live.remove_range(words.bits(r));
        }
    }
    for r in inst.read_regs() {
        live.insert_range(words.bits(r));
    }
}

/// Word liveness at the start of every block, solved to a fixed point.
fn solve(func: &Function, cfg: &Cfg, words: &Words) -> Vec<HybridBitSet> {
    let mut live_in = vec![HybridBitSet::new(words.len); cfg.capacity()];
    let order = cfg.backward_order(func);
    let mut changed = true;
    while changed {
        changed = false;
        for &block in &order {
            let mut set = live_out(func, cfg, block, &live_in, words.len);
            for &i in func.blocks[block].insts.iter().rev() {
                transfer(&func.insts[i], words, &live_in, &mut set);
            }
            if set != live_in[index(block)] {
                live_in[index(block)] = set;
                changed = true;
            }
        }
    }
    live_in
}

/// Marks `inst`'s part writes `undef` where its register's other words are
/// dead after it (`live`) and `inst` reads none of the register.
fn mark(inst: &mut Inst, words: &Words, live: &HybridBitSet) {
    let part = |d: &ori_ir::Operand| d.as_reg().is_some_and(|r| r.is_virtual && r.word.is_some());
    if inst.guard.is_some() || !inst.defs.iter().any(part) {
        return;
    }
    let reads: Vec<Reg> = inst.read_regs().collect();
    let written: Vec<Reg> = inst.written_regs().collect();
    for def in &mut inst.defs {
        let Some(reg) = def.as_reg().filter(|r| r.is_virtual && r.word.is_some()) else { continue };
        let all = words.all_bits(reg);
        if def.flags.undef || all.is_empty() {
            continue;
        }
        let same = |r: &Reg| r.is_virtual && r.file == reg.file && r.num == reg.num;
        if reads.iter().any(same) {
            continue;
        }
        // Words this instruction writes itself (in this or another operand).
        let own: Vec<usize> = written.iter().filter(|r| same(r)).flat_map(|&r| words.bits(r)).collect();
        if all.clone().all(|b| own.contains(&b) || !live.contains(b)) {
            def.flags.undef = true;
        }
    }
}
