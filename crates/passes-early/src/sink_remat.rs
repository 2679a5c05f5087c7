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

use cfg::{Cfg, Liveness, VReg};
use ori_ir::{
    BlockId, Function, FxHashMap, FxHashSet, InstId, Latency, Opcode, OperandKind, Phase, PhaseContext, PhaseError,
    Property, PropertySet,
};

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
            sink_block(func, block, &facts, &live);
        }
        Ok(())
    }
}

/// Who reads and writes each virtual register, over the whole function.
struct Facts {
    /// The one instruction reading the register, `None` when several do.
    reader: FxHashMap<VReg, Option<InstId>>,
    /// Instructions writing the register (a guarded write counts twice).
    writes: FxHashMap<VReg, u32>,
    /// Registers written by a move of a constant: such an
    /// operand sinks along with its one reader, so it stretches nothing.
    constants: FxHashSet<VReg>,
    /// Width of each register, in words.
    widths: FxHashMap<(ori_ir::RegFile, u32), u8>,
}

impl Facts {
    fn of(func: &Function) -> Facts {
        let mut reader: FxHashMap<VReg, Option<InstId>> = FxHashMap::default();
        let mut writes: FxHashMap<VReg, u32> = FxHashMap::default();
        let mut constants = FxHashSet::default();
        for (_, id, inst) in func.insts_in_order() {
            for v in inst.read_regs().filter_map(VReg::of) {
                reader.entry(v).and_modify(|r| *r = r.filter(|&r| r == id)).or_insert(Some(id));
            }
            let times = if inst.guard.is_some() { 2 } else { 1 };
            for v in inst.written_regs().filter_map(VReg::of) {
                *writes.entry(v).or_insert(0) += times;
            }
            // `MOV 0x4`, or lowering's `IMAD.MOV.U32 d, RZ, RZ, 0x4`.
            let constant = matches!(inst.op, Opcode::MOV | Opcode::IMAD)
                && inst.guard.is_none()
                && inst.uses.iter().all(|u| match u.kind {
                    OperandKind::Imm(_) => true,
                    OperandKind::Reg(r) => r.is_zero(),
                    _ => false,
                });
            if constant {
                constants.extend(inst.written_regs().filter_map(VReg::of));
            }
        }
        Facts { reader, writes, constants, widths: func.vreg_widths() }
    }

    fn width(&self, v: VReg) -> u32 {
        u32::from(self.widths.get(&(v.file, v.num)).copied().unwrap_or(1))
    }
}

/// The order of one block's instructions, with what the decisions need.
struct BlockOrder {
    insts: Vec<InstId>,
    /// Position of each instruction.
    pos: FxHashMap<InstId, usize>,
    /// Positions writing each register, ascending.
    writes: FxHashMap<VReg, Vec<usize>>,
    /// Last position reading each register.
    last_read: FxHashMap<VReg, usize>,
}

impl BlockOrder {
    fn of(func: &Function, block: BlockId) -> BlockOrder {
        let insts = func.blocks[block].insts.clone();
        let mut pos = FxHashMap::with_capacity_and_hasher(insts.len(), Default::default());
        let mut writes: FxHashMap<VReg, Vec<usize>> = FxHashMap::default();
        let mut last_read = FxHashMap::default();
        for (k, &id) in insts.iter().enumerate() {
            pos.insert(id, k);
            for v in func.insts[id].written_regs().filter_map(VReg::of) {
                writes.entry(v).or_default().push(k);
            }
            for v in func.insts[id].read_regs().filter_map(VReg::of) {
                last_read.insert(v, k);
            }
        }
        BlockOrder { insts, pos, writes, last_read }
    }

    /// True when an instruction in `from..to` writes `v`.
    fn written_in(&self, v: VReg, from: usize, to: usize) -> bool {
        self.writes.get(&v).is_some_and(|w| {
            let i = w.partition_point(|&p| p < from);
            w.get(i).is_some_and(|&p| p < to)
        })
    }
}

/// One bottom-up pass over `block`: each instruction is either kept in
/// place or attached to its reader (chains follow their reader), then the
/// block is rebuilt with attached instructions just before their reader.
/// Decisions only look at the original order, so the pass is linear (up
/// to the binary searches of [`BlockOrder::written_in`]).
fn sink_block(func: &mut Function, block: BlockId, facts: &Facts, live: &Liveness) {
    let order = BlockOrder::of(func, block);
    let n = order.insts.len();
    // Where each instruction ends up: its own position, or that of the
    // instruction it is attached to (followed to the end of the chain).
    let mut lands = vec![0usize; n];
    let mut attached: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for k in (0..n).rev() {
        lands[k] = k;
        let Some(reader) = destination(func, block, k, facts, live, &order, &lands) else { continue };
        lands[k] = lands[reader];
        attached.entry(reader).or_default().push(k);
    }
    if attached.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(n);
    let moved: FxHashSet<usize> = attached.values().flatten().copied().collect();
    for k in 0..n {
        if !moved.contains(&k) {
            emit(k, &order.insts, &attached, &mut out);
        }
    }
    func.blocks[block].insts = out;
}

/// Pushes instruction `k`, preceded by those attached to it (in their
/// original order, each preceded by its own).
fn emit(k: usize, insts: &[InstId], attached: &FxHashMap<usize, Vec<usize>>, out: &mut Vec<InstId>) {
    if let Some(list) = attached.get(&k) {
        for &a in list.iter().rev() {
            emit(a, insts, attached, out);
        }
    }
    out.push(insts[k]);
}

/// The position of the reader the instruction at `k` should be attached
/// to, when it should move.
fn destination(
    func: &Function,
    block: BlockId,
    k: usize,
    facts: &Facts,
    live: &Liveness,
    order: &BlockOrder,
    lands: &[usize],
) -> Option<usize> {
    let inst = &func.insts[order.insts[k]];
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
    let to = *order.pos.get(&reader?)?;
    // Attached to a reader that stays right after it: nothing moves.
    if to <= k || (to == k + 1 && lands[to] == to) {
        return None;
    }
    // Its operands must keep their values down to where it lands, and the
    // operands that die at it (read by nothing later in the block, not
    // live out) must not outnumber its results in words. An operand read
    // further down anyway is not counted: the address base read by 32
    // address computations lives until the last of them has sunk to its
    // load, which costs its words once, not 32 times.
    // Physical registers other than the zero registers: leave alone.
    let mut operands: Vec<VReg> = inst.read_regs().filter(|r| !r.is_zero()).map(VReg::of).collect::<Option<_>>()?;
    operands.sort();
    operands.dedup();
    if operands.iter().any(|&v| order.written_in(v, k + 1, lands[to] + 1)) {
        return None;
    }
    let stretched: u32 = operands
        .iter()
        .filter(|&&v| !live.live_out(block).contains(v) && order.last_read.get(&v).is_none_or(|&r| r <= k))
        .filter(|&&v| !(facts.constants.contains(&v) && facts.writes.get(&v) == Some(&1)))
        .map(|&v| facts.width(v))
        .sum();
    (def_words > stretched).then_some(to)
}
