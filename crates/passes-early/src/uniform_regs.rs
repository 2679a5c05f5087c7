//! `ConvertToUniformReg` (the seed's phase 74): values every thread of a
//! warp computes alike are computed once per warp, on the uniform
//! datapath, into uniform registers.
//!
//! A kernel's seeds, sizes and block offsets come from parameters and
//! `%ctaid`, the same for the whole warp; lowering computes them in
//! general registers, one per thread. Triton's Philox dropout derives
//! nineteen round keys from its seed parameter, which then live through
//! the kernel in nineteen general registers (75 against NVIDIA's 31 on
//! sm_90a); NVIDIA's code makes them with `UIADD3`/`ULEA`/`ULOP3` in
//! uniform registers and its per-thread code reads them there
//! (`LOP3.LUT R4, R2, UR12, RZ, 0x3c, !PT`).
//!
//! A value is uniform when one unguarded instruction with a uniform form
//! ([`UNIFORM_FORMS`]) writes it, whole and one word wide, in a block no
//! branch that may split the warp reaches before its join (the
//! allocator's divergent regions, `uniform_pairs::divergent_blocks`), and
//! each source is an immediate, a zero register, `PT`, a fixed
//! constant-bank word, `%ctaid`, a uniform register, or another uniform
//! value; and when the encoder has the uniform form with those operands
//! ([`ori_ir::Forms`]). Every reader that stays per thread must take the
//! uniform register where it took the general one (again the encoder's
//! forms decide, commutative sources may trade places): a value one of
//! them cannot take stays general, and so does every value computed from
//! it, until nothing changes. No copy back to a general register is ever
//! made, so the conversion adds no instruction.
//!
//! Uniform registers are few (UR4-UR62) and the allocator does not spill
//! them: the function keeps at most [`UNIFORM_WORDS`] words of uniform
//! values after this phase, leaving `UniformConstantPairs` its pairs
//! inside divergent regions; values past the budget, in layout order,
//! stay general.

use cfg::Cfg;
use ori_ir::{
    BlockId, Function, FxHashMap, FxHashSet, Inst, InstId, Opcode, Operand, OperandKind, Phase, PhaseContext,
    PhaseError, Property, PropertySet, Reg, RegFile, SpecialReg,
};

use crate::const_operands::substitute;
use crate::uniform_pairs::divergent_blocks;

/// Uniform register words a function may hold after this phase (virtual
/// uniform registers of any origin): with `UniformConstantPairs`' 14
/// pairs in divergent regions, 58 of the 59 allocatable.
pub const UNIFORM_WORDS: u32 = 30;

/// Blocks in which a uniform value may be copied back into a general
/// register, for the per-thread readers that cannot take it (`IMAD`'s
/// first factor), when it feeds uniform code: each copy costs an
/// instruction.
const COPIES_PER_VALUE: usize = 2;

/// Per-thread opcodes and the uniform opcode that computes the same
/// result with the same operands (seed-digest-A §9.12).
const UNIFORM_FORMS: &[(Opcode, Opcode)] = &[
    (Opcode::IADD3, Opcode::UIADD3),
    (Opcode::IMAD, Opcode::UIMAD),
    (Opcode::LEA, Opcode::ULEA),
    (Opcode::SHF, Opcode::USHF),
    (Opcode::LOP3, Opcode::ULOP3),
    (Opcode::SEL, Opcode::USEL),
    (Opcode::PRMT, Opcode::UPRMT),
    (Opcode::FLO, Opcode::UFLO),
    (Opcode::POPC, Opcode::UPOPC),
    (Opcode::BREV, Opcode::UBREV),
    (Opcode::MOV, Opcode::UMOV),
    (Opcode::LDC, Opcode::ULDC),
    (Opcode::S2R, Opcode::S2UR),
];

/// Computes warp-uniform values in uniform registers.
pub struct ConvertToUniformReg;

impl Phase for ConvertToUniformReg {
    fn name(&self) -> &'static str {
        "ConvertToUniformReg"
    }

    fn description(&self) -> &'static str {
        "Values computed alike by every thread (from parameters, constants, %ctaid) are computed on the uniform datapath"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        if Cfg::compute(func).has_unknown_targets() {
            return Ok(());
        }
        let mut uniform = candidates(func, cx);
        if uniform.is_empty() {
            return Ok(());
        }
        let readers = readers(func);
        settle(func, cx, &mut uniform, &readers);
        let existing: u32 = func
            .vreg_widths()
            .into_iter()
            .filter(|&((file, _), _)| file == RegFile::UR)
            .map(|(_, width)| u32::from(width))
            .sum();
        let budget = UNIFORM_WORDS.saturating_sub(existing) as usize;
        let position: FxHashMap<InstId, usize> =
            func.insts_in_order().enumerate().map(|(k, (_, id, _))| (id, k)).collect();
        let in_layout_order = |uniform: &FxHashMap<u32, InstId>| {
            let mut order: Vec<(usize, u32)> = uniform.iter().map(|(&num, id)| (position[id], num)).collect();
            order.sort_unstable();
            order
        };
        if uniform.len() > budget {
            for &(_, num) in &in_layout_order(&uniform)[budget..] {
                uniform.remove(&num);
            }
            settle(func, cx, &mut uniform, &readers);
        }
        let fresh: FxHashMap<u32, Reg> =
            in_layout_order(&uniform).into_iter().map(|(_, num)| (num, func.new_vreg(RegFile::UR, 1))).collect();
        let of = |reg: Reg| fresh.get(&reg.num).copied().filter(|_| is_plain_r(reg));
        for (&num, &id) in &uniform {
            let Some(inst) = uniform_form(&func.insts[id], &of, fresh[&num]) else {
                unreachable!("a settled uniform value has its uniform form")
            };
            func.insts[id] = inst;
        }
        // Per-thread readers that cannot take a uniform value read one copy
        // of it per block, made before the first of them.
        let converted: FxHashSet<InstId> = uniform.values().copied().collect();
        let mut copies: FxHashMap<(BlockId, u32), Reg> = FxHashMap::default();
        let mut before: FxHashMap<InstId, Vec<InstId>> = FxHashMap::default();
        let order: Vec<(BlockId, InstId)> = func.insts_in_order().map(|(b, id, _)| (b, id)).collect();
        for (block, id) in order {
            let reads_uniform = func.insts[id].read_regs().any(|r| of(r).is_some());
            if converted.contains(&id) || !reads_uniform {
                continue;
            }
            let (mut inst, failed) = per_thread_reader(&func.insts[id], &of, cx);
            for num in failed {
                let reg = Reg::virt(RegFile::R, num);
                let copy = *copies.entry((block, num)).or_insert_with(|| {
                    let copy = func.new_vreg(RegFile::R, 1);
                    let mov = Inst::new(Opcode::MOV, vec![Operand::reg(copy)], vec![Operand::reg(fresh[&num])]);
                    before.entry(id).or_default().push(func.insts.alloc(mov));
                    copy
                });
                for r in inst.uses.iter_mut().flat_map(Operand::regs_mut).filter(|r| **r == reg) {
                    *r = copy;
                }
            }
            func.insts[id] = inst;
        }
        for block in func.layout.clone() {
            if before.is_empty() {
                break;
            }
            let insts = std::mem::take(&mut func.blocks[block].insts);
            let mut placed = Vec::with_capacity(insts.len());
            for id in insts {
                placed.extend(before.remove(&id).into_iter().flatten());
                placed.push(id);
            }
            func.blocks[block].insts = placed;
        }
        Ok(())
    }
}

/// A whole one-word virtual general register.
fn is_plain_r(reg: Reg) -> bool {
    reg.is_virtual && reg.file == RegFile::R && reg.width == 1 && reg.word.is_none()
}

/// Values that could be uniform by their own instruction and sources, by
/// register number, with the instruction writing each.
fn candidates(func: &Function, cx: &PhaseContext<'_>) -> FxHashMap<u32, InstId> {
    let writers = crate::write_counts(func);
    let divergent = divergent_blocks(func);
    let stand_in = Reg::virt(RegFile::UR, u32::MAX);
    let mut uniform: FxHashMap<u32, InstId> = FxHashMap::default();
    for (block, id, inst) in func.insts_in_order() {
        if divergent.contains(block) {
            continue;
        }
        let Some(def) = inst.defs.first().and_then(Operand::as_reg).filter(|&r| is_plain_r(r)) else { continue };
        if writers.get(&(RegFile::R, def.num)) != Some(&1) {
            continue;
        }
        let of = |reg: Reg| uniform.contains_key(&reg.num).then_some(stand_in).filter(|_| is_plain_r(reg));
        if uniform_form(inst, &of, stand_in).is_some_and(|u| cx.forms.encodes(&u)) {
            uniform.insert(def.num, id);
        }
    }
    uniform
}

/// `inst` on the uniform datapath, writing `def`, with each general
/// source `of` maps read from its uniform register; `None` when a source
/// is not uniform or the opcode has no uniform form.
fn uniform_form(inst: &Inst, of: &impl Fn(Reg) -> Option<Reg>, def: Reg) -> Option<Inst> {
    let &(_, op) = UNIFORM_FORMS.iter().find(|&&(from, _)| from == inst.op)?;
    let (first, rest) = inst.defs.split_first()?;
    if inst.guard.is_some() || first.flags != Default::default() || rest.iter().any(|d| d.as_reg() != Some(Reg::PT)) {
        return None;
    }
    let mut u = Inst { op, mods: inst.mods.clone(), guard: None, defs: Vec::new(), uses: Vec::new(), ..inst.clone() };
    u.defs = std::iter::once(Operand::reg(def)).chain(rest.iter().map(|_| Operand::reg(Reg::UPT))).collect();
    for src in &inst.uses {
        let kind = match &src.kind {
            OperandKind::Reg(r) if *r == Reg::RZ => OperandKind::Reg(Reg::URZ),
            OperandKind::Reg(r) if *r == Reg::PT => OperandKind::Reg(Reg::UPT),
            OperandKind::Reg(r) if r.file == RegFile::UR => OperandKind::Reg(*r),
            OperandKind::Reg(r) => OperandKind::Reg(of(*r)?),
            OperandKind::Imm(_) => src.kind.clone(),
            OperandKind::CBank(c) if c.reg.is_none() => src.kind.clone(),
            OperandKind::Special(SpecialReg::CtaidX | SpecialReg::CtaidY | SpecialReg::CtaidZ) => src.kind.clone(),
            _ => return None,
        };
        u.uses.push(Operand { kind, ..src.clone() });
    }
    // A constant-bank word moves into a uniform register with `ULDC`.
    if op == Opcode::UMOV && matches!(u.uses.as_slice(), [Operand { kind: OperandKind::CBank(_), .. }]) {
        u.op = Opcode::ULDC;
    }
    Some(u)
}

/// `inst`, a per-thread instruction, reading each uniform source from its
/// uniform register where a form takes it there, and the registers it
/// could not take.
fn per_thread_reader(inst: &Inst, of: &impl Fn(Reg) -> Option<Reg>, cx: &PhaseContext<'_>) -> (Inst, Vec<u32>) {
    let mut inst = inst.clone();
    let mut failed: Vec<u32> = Vec::new();
    let in_place = |o: &Operand| match o.kind {
        OperandKind::Reg(r) => of(r).is_some(),
        _ => false,
    };
    while let Some(i) =
        inst.uses.iter().position(|o| in_place(o) && o.as_reg().is_some_and(|r| !failed.contains(&r.num)))
    {
        let reg = inst.uses[i].as_reg().expect("a register operand");
        let ureg = of(reg).expect("a uniform value");
        match substitute(&inst, i, &OperandKind::Reg(ureg), cx) {
            Some(next) => inst = next,
            None => failed.push(reg.num),
        }
    }
    // Reads other than plain operands (addresses, bank indices, parts).
    for r in inst.read_regs() {
        if r.is_virtual && r.file == RegFile::R && of(r.whole(1)).is_some() && !failed.contains(&r.num) {
            failed.push(r.num);
        }
    }
    (inst, failed)
}

/// The instructions reading each virtual general register, by number.
fn readers(func: &Function) -> FxHashMap<u32, Vec<InstId>> {
    let mut readers: FxHashMap<u32, Vec<InstId>> = FxHashMap::default();
    for (_, id, inst) in func.insts_in_order() {
        for r in inst.read_regs().filter(|r| r.is_virtual && r.file == RegFile::R) {
            let list = readers.entry(r.num).or_default();
            if list.last() != Some(&id) {
                list.push(id);
            }
        }
    }
    readers
}

/// Drops from `uniform` every value a per-thread reader cannot take in a
/// uniform register, and the values computed from dropped ones, until
/// nothing changes.
fn settle(
    func: &Function,
    cx: &PhaseContext<'_>,
    uniform: &mut FxHashMap<u32, InstId>,
    readers: &FxHashMap<u32, Vec<InstId>>,
) {
    let stand_in = Reg::virt(RegFile::UR, u32::MAX);
    let copy = Inst::new(Opcode::MOV, vec![Operand::reg(Reg::virt(RegFile::R, 0))], vec![Operand::reg(stand_in)]);
    let copyable = cx.forms.encodes(&copy);
    let block_of: FxHashMap<InstId, BlockId> = func.insts_in_order().map(|(b, id, _)| (id, b)).collect();
    loop {
        let of = |reg: Reg| uniform.contains_key(&reg.num).then_some(stand_in).filter(|_| is_plain_r(reg));
        let converted: FxHashSet<InstId> = uniform.values().copied().collect();
        let mut drop: FxHashSet<u32> = FxHashSet::default();
        for (&num, &id) in uniform.iter() {
            if uniform_form(&func.insts[id], &of, stand_in).is_none_or(|u| !cx.forms.encodes(&u)) {
                drop.insert(num);
            }
        }
        // A value feeding uniform code is worth a copy into a general
        // register for a reader that cannot take it; one that feeds only
        // per-thread code is not.
        let feeds_uniform: FxHashSet<u32> = converted
            .iter()
            .flat_map(|&id| func.insts[id].read_regs())
            .filter(|&r| is_plain_r(r))
            .map(|r| r.num)
            .collect();
        let touched: FxHashSet<InstId> =
            uniform.keys().flat_map(|num| readers.get(num).into_iter().flatten()).copied().collect();
        let mut wanted: FxHashMap<u32, FxHashSet<BlockId>> = FxHashMap::default();
        for id in touched.into_iter().filter(|id| !converted.contains(id)) {
            for num in per_thread_reader(&func.insts[id], &of, cx).1 {
                wanted.entry(num).or_default().insert(block_of[&id]);
            }
        }
        drop.extend(
            wanted
                .into_iter()
                .filter(|(num, blocks)| !copyable || blocks.len() > COPIES_PER_VALUE || !feeds_uniform.contains(num))
                .map(|(num, _)| num),
        );
        if drop.is_empty() {
            return;
        }
        uniform.retain(|num, _| !drop.contains(num));
    }
}
