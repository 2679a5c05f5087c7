//! `EarlyOriSimpleLiveDead`: dead-code elimination right after lowering.
//!
//! Lowering leaves values nobody reads (carry-outs never tested, halves of
//! expansions); deleting them early shrinks the work of every later phase.
//! An instruction goes when it has no effect besides its registers (no
//! `SIDE_EFFECT`, `STORE` or `BRANCH` flag, not a volatile load) and every
//! register it writes is a virtual register that is dead after it (or a
//! zero register). Each block is walked backward from its live-out set, so
//! a chain of dead instructions in one block goes in one sweep; liveness is
//! then recomputed and the sweep repeated until nothing changes, which
//! catches chains across blocks. Liveness is per tuple, so when a sweep
//! finds nothing, instructions whose written words no other instruction
//! reads anywhere go too (the high halves of 64-bit values only the low
//! word of which is used).
//!
//! Kept on purpose: instructions writing physical registers (ABI registers
//! are live beyond what the function shows), instructions that write
//! nothing at all (a `NOP` only exists for its position, which is
//! `OriRemoveNopCode`'s call, in passes-late), and loads with a `.STRONG` modifier
//! (volatile and atomic-ordered loads are observable). A value that only
//! feeds itself around a loop stays live by this liveness and is not
//! removed; that needs a mark-from-roots pass.

use cfg::{Cfg, Liveness, VReg, VRegSpace};
use fixedbitset::FixedBitSet;

use ori_ir::{
    Function, FxHashMap, Inst, InstId, OpFlags, OperandKind, Phase, PhaseContext, PhaseError, Property, PropertySet,
    Reg, RegFile,
};

use crate::{InstSet, unlink};

/// Deletes instructions whose results are never read.
pub struct EarlyOriSimpleLiveDead;

impl Phase for EarlyOriSimpleLiveDead {
    fn name(&self) -> &'static str {
        "EarlyOriSimpleLiveDead"
    }

    fn description(&self) -> &'static str {
        "Early dead code elimination: deletes instructions whose results are never read"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        // Only instructions without a branch go, so the graph stays as it is.
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            // Liveness would miss the values live at unlisted targets.
            return Ok(());
        }
        // Deleting instructions only drops registers, so the first round's
        // numbering holds for every later one.
        let space = VRegSpace::of(func);
        loop {
            let live = Liveness::compute_in(func, &cfg, space);
            let mut dead = sweep(func, &live);
            if dead.is_empty() {
                dead = unread_words(func);
            }
            if dead.is_empty() {
                return Ok(());
            }
            unlink(func, &dead);
        }
    }
}

/// One word of a virtual register (`%r4:1`); predicates have word 0.
type Word = (RegFile, u32, u8);

fn words(reg: Reg) -> impl Iterator<Item = Word> {
    reg.is_virtual.then_some(reg).into_iter().flat_map(|r| r.words().map(move |w| (r.file, r.num, w)))
}

/// Instructions whose written words no other instruction reads anywhere,
/// found by counting readers per word. Liveness tracks whole tuples, so a
/// tuple's high word computed for nothing (the upper half of a 64-bit
/// local address of which `LDL` reads the low word: an `IADD3.X` and the
/// `LOP3` feeding it) stays live there; here its readers run out one after
/// the other.
fn unread_words(func: &Function) -> InstSet {
    let mut readers: FxHashMap<Word, u32> = FxHashMap::default();
    let mut writers: FxHashMap<Word, Vec<InstId>> = FxHashMap::default();
    // One scratch list for every instruction: this runs over the whole
    // function, and a list per instruction was most of its cost.
    let mut read = Vec::new();
    for (_, id, inst) in func.insts_in_order() {
        read_words(inst, &mut read);
        for &w in &read {
            *readers.entry(w).or_default() += 1;
        }
        for w in inst.written_regs().flat_map(words) {
            writers.entry(w).or_default().push(id);
        }
    }
    let unread = |inst: &Inst, readers: &FxHashMap<Word, u32>| {
        removable(inst)
            && inst.defs.iter().all(|def| match def.kind {
                OperandKind::Reg(reg) => {
                    reg.is_zero() || (reg.is_virtual && words(reg).all(|w| !readers.contains_key(&w)))
                }
                _ => false,
            })
    };
    let mut dead = InstSet::new(func);
    let mut work: Vec<InstId> = func.insts_in_order().map(|(_, id, _)| id).collect();
    while let Some(id) = work.pop() {
        let inst = &func.insts[id];
        if dead.contains(id) || !unread(inst, &readers) {
            continue;
        }
        dead.insert(id);
        read_words(inst, &mut read);
        for &w in &read {
            let Some(n) = readers.get_mut(&w) else { continue };
            *n -= 1;
            if *n == 0 {
                readers.remove(&w);
                work.extend(writers.get(&w).into_iter().flatten());
            }
        }
    }
    dead
}

/// Sets `read` to the words `inst` reads and does not also write, each
/// once, ascending.
fn read_words(inst: &Inst, read: &mut Vec<Word>) {
    read.clear();
    read.extend(inst.read_regs().flat_map(words));
    read.retain(|w| !inst.written_regs().flat_map(words).any(|x| x == *w));
    read.sort_unstable();
    read.dedup();
}

/// Dead instructions of every block, found walking backward from the
/// block's live-out set; a deleted instruction's operands are not made live,
/// so what only fed it is found dead too.
fn sweep(func: &Function, live: &Liveness) -> InstSet {
    let space = live.space();
    let mut dead = InstSet::new(func);
    // One dense set for every block: a long block's walk changes it once
    // per register, which a sorted list pays for in shifts.
    let mut set = FixedBitSet::with_capacity(space.len());
    for &block in &func.layout {
        set.clear();
        live.live_out(block).union_into(&mut set);
        for &id in func.blocks[block].insts.iter().rev() {
            let inst = &func.insts[id];
            if is_dead(inst, &set, space) {
                dead.insert(id);
            } else {
                live.transfer_bits(inst, &mut set);
            }
        }
    }
    dead
}

/// True when deleting `inst` cannot change what the program does, given
/// the registers live after it (bits of `space`).
fn is_dead(inst: &Inst, live_after: &FixedBitSet, space: VRegSpace) -> bool {
    removable(inst)
        && inst.defs.iter().all(|def| match def.kind {
            OperandKind::Reg(reg) if reg.is_zero() => true,
            OperandKind::Reg(reg) => {
                VReg::of(reg).is_some_and(|v| !space.bit(v).is_some_and(|b| live_after.contains(b)))
            }
            _ => false,
        })
}

/// True when `inst` does nothing but write its registers.
fn removable(inst: &Inst) -> bool {
    let effects = [OpFlags::SIDE_EFFECT, OpFlags::STORE, OpFlags::BRANCH];
    let strong_load = inst.op.has(OpFlags::LOAD) && inst.has_mod("STRONG");
    !effects.into_iter().any(|f| inst.op.has(f)) && !inst.defs.is_empty() && !strong_load
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::text::parse_function;

    fn first_inst_dead(text: &str) -> bool {
        let f = parse_function(text).unwrap();
        let cfg = Cfg::compute(&f);
        let live = Liveness::compute(&f, &cfg);
        let first = f.blocks[f.layout[0]].insts[0];
        sweep(&f, &live).contains(first)
    }

    #[test]
    fn effects_and_physical_results_keep_an_instruction() {
        let body = |line: &str| format!(".entry k {{\nbb0:\n    {line}\n    EXIT\n}}\n");
        assert!(first_inst_dead(&body("%r0 = IADD3 %r1, 0x1, RZ")));
        assert!(first_inst_dead(&body("PT, %r0 = SHFL.BFLY %r1, 0x1, 0x1f")));
        assert!(first_inst_dead(&body("@%p0 %r0 = LDG.E [%r2.64]")));
        assert!(!first_inst_dead(&body("R4 = IADD3 %r1, 0x1, RZ")));
        assert!(!first_inst_dead(&body("%r0 = LDG.E.STRONG.SYS [%r2.64]")));
        assert!(!first_inst_dead(&body("%r0 = ATOMG.E.ADD [%r2.64], %r1")));
        assert!(!first_inst_dead(&body("NOP")));
        assert!(!first_inst_dead(&body("%b0 = BSSY bb0")));
        assert!(!first_inst_dead(&body("PR = R2P %r0, 0x7f")));
    }
}
