//! `SinkRemat` (the sinking half of the seed's phase 28): moves a pure
//! instruction whose results have one reader down to just before that
//! reader, in the same block, when that shortens more register words'
//! lives than it lengthens.
//!
//! NVVM emits all of a fully unrolled loop's address arithmetic before
//! its loads (launch_bounds: 32 `IMAD.WIDE` pairs, then 32 `LDG`s), and
//! the allocator colours the order it is given: 64 words of addresses
//! live at once where NVIDIA's code has one pair. Sinking each address
//! computation to its load trades its two result words for the one-word
//! index it reads.
//!
//! A candidate is pure (`pure.rs`), of fixed latency, unguarded, and writes only virtual
//! registers (or zero registers) that nothing else writes and that one
//! later instruction of its block reads. It moves when no instruction
//! between it and the reader writes a register it reads, and when the
//! words it writes outnumber the words of its operands that die at it. Blocks are walked bottom-up, so a chain (`IADD3` feeding
//! `IMAD.WIDE` feeding `LDG`) moves down together; the walk repeats until
//! nothing moves.

use std::collections::HashMap;

use cfg::{Cfg, Liveness, VReg};
use ori_ir::{BlockId, Function, InstId, Latency, Phase, PhaseContext, PhaseError, Property, PropertySet};

use crate::pure::is_pure;

/// Sinks single-reader pure instructions to their reader.
pub struct SinkRemat;

impl Phase for SinkRemat {
    fn name(&self) -> &'static str {
        "SinkRemat"
    }

    fn description(&self) -> &'static str {
        "Moves pure instructions with one reader down to it when that shortens register lives"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            return Ok(());
        }
        let live = Liveness::compute(func, &cfg);
        let facts = Facts::of(func);
        for block in func.layout.clone() {
            while sink_block(func, block, &facts, &live) {}
        }
        Ok(())
    }
}

/// Who reads and writes each virtual register, over the whole function.
struct Facts {
    /// The one instruction reading the register, `None` when several do.
    reader: HashMap<VReg, Option<InstId>>,
    /// Instructions writing the register (a guarded write counts twice).
    writes: HashMap<VReg, u32>,
    /// Width of each register, in words.
    widths: HashMap<(ori_ir::RegFile, u32), u8>,
}

impl Facts {
    fn of(func: &Function) -> Facts {
        let mut reader: HashMap<VReg, Option<InstId>> = HashMap::new();
        let mut writes: HashMap<VReg, u32> = HashMap::new();
        for (_, id, inst) in func.insts_in_order() {
            for v in inst.read_regs().filter_map(VReg::of) {
                reader.entry(v).and_modify(|r| *r = r.filter(|&r| r == id)).or_insert(Some(id));
            }
            let times = if inst.guard.is_some() { 2 } else { 1 };
            for v in inst.written_regs().filter_map(VReg::of) {
                *writes.entry(v).or_insert(0) += times;
            }
        }
        Facts { reader, writes, widths: func.vreg_widths() }
    }

    fn width(&self, v: VReg) -> u32 {
        u32::from(self.widths.get(&(v.file, v.num)).copied().unwrap_or(1))
    }
}

/// One bottom-up pass over `block`; true when something moved.
fn sink_block(func: &mut Function, block: BlockId, facts: &Facts, live: &Liveness) -> bool {
    let mut moved = false;
    let mut k = func.blocks[block].insts.len();
    while k > 0 {
        k -= 1;
        let Some(to) = destination(func, block, k, facts, live) else { continue };
        let insts = &mut func.blocks[block].insts;
        let id = insts.remove(k);
        insts.insert(to - 1, id);
        moved = true;
    }
    moved
}

/// Where the instruction at `k` of `block` should go (the index of its
/// reader), when it should move.
fn destination(func: &Function, block: BlockId, k: usize, facts: &Facts, live: &Liveness) -> Option<usize> {
    let insts = &func.blocks[block].insts;
    let inst = &func.insts[insts[k]];
    // Variable-latency producers (S2R, MUFU, conversions, LDC) stay early:
    // their latency is hidden by what runs before their reader.
    let fixed = inst.op.info().latency == Latency::Fixed;
    if inst.guard.is_some() || !fixed || !is_pure(inst) || inst.defs.is_empty() {
        return None;
    }
    // Every result: a virtual register only this instruction writes and
    // one later instruction of the block reads (or a zero register).
    let mut reader = None;
    let mut def_words = 0;
    for d in &inst.defs {
        let reg = d.as_reg()?;
        if reg.is_zero() {
            continue;
        }
        let v = VReg::of(reg)?;
        if facts.writes.get(&v) != Some(&1) || live.live_out(block).contains(v) {
            return None;
        }
        let r = (*facts.reader.get(&v)?)?;
        if reader.is_some_and(|x| x != r) {
            return None;
        }
        reader = Some(r);
        def_words += facts.width(v);
    }
    let to = k + 1 + insts[k + 1..].iter().position(|&i| Some(i) == reader)?;
    if to == k + 1 {
        return None;
    }
    // Its operands must keep their values down to the reader, and the
    // operands that die at it (read by nothing later in the block, not
    // live out) must not outnumber its results in words. An operand read
    // further down anyway is not counted: the address base read by 32
    // address computations lives until the last of them has sunk to its
    // load, which costs its words once, not 32 times.
    // Physical registers other than the zero registers: leave alone.
    let mut operands: Vec<VReg> = inst.read_regs().filter(|r| !r.is_zero()).map(VReg::of).collect::<Option<_>>()?;
    operands.sort();
    operands.dedup();
    let between = &insts[k + 1..to];
    if between.iter().any(|&i| func.insts[i].written_regs().filter_map(VReg::of).any(|w| operands.contains(&w))) {
        return None;
    }
    let stretched: u32 = operands
        .iter()
        .filter(|&&v| {
            !live.live_out(block).contains(v)
                && !insts[k + 1..].iter().any(|&i| func.insts[i].read_regs().filter_map(VReg::of).any(|r| r == v))
        })
        .map(|&v| facts.width(v))
        .sum();
    (def_words > stretched).then_some(to)
}
