//! `OriCopyProp`: forward copy propagation.
//!
//! Lowering and the early rewrites leave many `d = MOV s`; reading `s`
//! directly where `d` is read shortens dependence chains and lets
//! `EarlyOriSimpleLiveDead` delete the copy. A copy is a plain `MOV`
//! (no modifier, no guard, one source without operand flags) into a whole
//! virtual register from a virtual register (or part of a tuple) of the
//! same file and width, from a zero register, or of a 32-bit immediate
//! into a one-word register; or a `UMOV` of a register (after
//! `ConvertToUniformReg`, which makes `UMOV UR6, UR6` of a copy otherwise).
//!
//! Where the copy may be used is a forward "available copies" problem: a
//! copy is available at a point when it ran on every path there and
//! neither `d` nor `s` was written since (a guarded write counts, it may
//! happen). At a read of `d` with the copy available, `d` becomes `s`,
//! following chains of available copies. A register source replaces `d`
//! anywhere a register is read (plain operands, address and bank registers,
//! guards), keeping the reader's operand flags. An immediate only replaces
//! a plain operand in a slot SASS encodes with an immediate (see
//! [`takes_immediate`]); elsewhere the chain stops at the last register.
//!
//! The copies themselves stay; dead-code elimination removes them once
//! nothing reads them. Immediates may land next to a constant-bank operand
//! that the instruction cannot encode with them, so the phase invalidates
//! `Legalized`.

use std::collections::HashMap;

use cfg::{Cfg, HybridBitSet, VReg, VRegSpace, branch_targets};
use ori_ir::{
    BlockId, Function, Imm, Inst, InstId, Opcode, Operand, OperandFlags, OperandKind, Phase, PhaseContext, PhaseError,
    Property, PropertySet, Reg,
};

/// Replaces reads of copied registers with the copy's source.
pub struct OriCopyProp;

impl Phase for OriCopyProp {
    fn name(&self) -> &'static str {
        "OriCopyProp"
    }

    fn description(&self) -> &'static str {
        "Forward copy propagation: reads of a MOV's result read its source instead"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::Legalized])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            // Copies could be unavailable at the unlisted targets.
            return Ok(());
        }
        let copies = Copies::find(func);
        if copies.list.is_empty() {
            return Ok(());
        }
        let ins = copies.available_in(func, &cfg);
        for &block in cfg.rpo() {
            let mut state = ins[block_index(block)].clone();
            for k in 0..func.blocks[block].insts.len() {
                let id = func.blocks[block].insts[k];
                copies.rewrite(&mut func.insts[id], &state);
                copies.step(id, &func.insts[id], &mut state);
            }
        }
        Ok(())
    }
}

/// Every copy of `n`.
fn full(n: usize) -> HybridBitSet {
    let mut set = HybridBitSet::new(n);
    set.insert_range(0..n);
    set
}

fn block_index(block: BlockId) -> usize {
    u32::from(block.into_raw()) as usize
}

/// What a copy copies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Reg(Reg),
    Imm(Imm),
}

/// The copies of a function, numbered, with the indexes the dataflow needs.
/// Copies of the same source into the same register share a number, so
/// that one made on each arm of a branch is still available after the
/// join.
struct Copies {
    space: VRegSpace,
    /// The source of each copy.
    list: Vec<Source>,
    /// Copy number of each copy instruction, by instruction arena index.
    by_inst: Vec<Option<u32>>,
    /// Copies writing each register (by its bit in `space`).
    by_dest: Vec<Vec<u32>>,
    /// Copies reading each register.
    by_src: Vec<Vec<u32>>,
}

/// The copy `inst` makes, if it is a plain `MOV` (or a `UMOV` of a
/// register, which `ConvertToUniformReg` makes of a `MOV R, UR`) we can
/// propagate.
fn as_copy(inst: &Inst) -> Option<(VReg, Source)> {
    let uniform = inst.op == Opcode::UMOV;
    if !(inst.op == Opcode::MOV || uniform) || !inst.mods.is_empty() || inst.guard.is_some() {
        return None;
    }
    let ([def], [src]) = (&inst.defs[..], &inst.uses[..]) else { return None };
    // A copy into part of a tuple is not a copy of the tuple.
    let dest_reg = def.as_reg().filter(|r| r.word.is_none())?;
    let dest = VReg::of(dest_reg)?;
    if src.flags != OperandFlags::default() {
        return None;
    }
    let source = match src.kind {
        OperandKind::Reg(s)
            if (s.is_virtual || s.is_zero())
                && s.file == dest_reg.file
                && s.width == dest_reg.width
                && s != dest_reg =>
        {
            Source::Reg(s)
        }
        OperandKind::Imm(imm @ (Imm::Int(_) | Imm::F32(_))) if !uniform && dest_reg.width == 1 && fits_32_bits(imm) => {
            Source::Imm(imm)
        }
        _ => return None,
    };
    Some((dest, source))
}

fn fits_32_bits(imm: Imm) -> bool {
    match imm {
        Imm::Int(v) => (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v),
        Imm::F32(_) => true,
        Imm::F64(_) => false,
    }
}

/// True when SASS encodes `imm` as source `slot` of `op`: the `B` operand
/// of the integer and single-precision ALU forms (`IADD3 R0, R1, 0x1, RZ`,
/// `FFMA R0, R1, 0.5, R2`), and the source of `MOV`. Integer immediates go
/// to integer slots and binary32 ones to float slots, so that constant
/// folding later reads them as what they are.
fn takes_immediate(op: Opcode, slot: usize, imm: Imm) -> bool {
    use Opcode::*;
    match imm {
        Imm::Int(_) => {
            (op == MOV && slot == 0)
                || (slot == 1 && matches!(op, IADD3 | IMAD | VIADD | LOP3 | SHF | ISETP | SEL | IMNMX | PRMT))
        }
        Imm::F32(_) => {
            (op == MOV && slot == 0) || (slot == 1 && matches!(op, FADD | FMUL | FFMA | FSETP | FSEL | FMNMX))
        }
        Imm::F64(_) => false,
    }
}

impl Copies {
    fn find(func: &Function) -> Copies {
        let space = VRegSpace::of(func);
        let mut copies = Copies {
            space,
            list: Vec::new(),
            by_inst: vec![None; func.insts.len()],
            by_dest: vec![Vec::new(); space.len()],
            by_src: vec![Vec::new(); space.len()],
        };
        let mut numbers = HashMap::new();
        for (_, id, inst) in func.insts_in_order() {
            let Some((dest, src)) = as_copy(inst) else { continue };
            let next = copies.list.len() as u32;
            let k = *numbers.entry((dest, src)).or_insert(next);
            copies.by_inst[u32::from(id.into_raw()) as usize] = Some(k);
            if k != next {
                continue;
            }
            if let Some(bit) = space.bit(dest) {
                copies.by_dest[bit].push(k);
            }
            if let Source::Reg(s) = src
                && let Some(bit) = VReg::of(s).and_then(|v| space.bit(v))
            {
                copies.by_src[bit].push(k);
            }
            copies.list.push(src);
        }
        copies
    }

    /// Applies `inst` to the set of available copies: every write kills
    /// the copies of and from the register, then a copy makes itself
    /// available.
    fn step(&self, id: InstId, inst: &Inst, state: &mut HybridBitSet) {
        for v in inst.written_regs().filter_map(VReg::of) {
            if let Some(bit) = self.space.bit(v) {
                for &k in self.by_dest[bit].iter().chain(&self.by_src[bit]) {
                    state.remove(k as usize);
                }
            }
        }
        if let Some(Some(k)) = self.by_inst.get(u32::from(id.into_raw()) as usize) {
            state.insert(*k as usize);
        }
    }

    /// Copies available at the start of each block: forward, intersection
    /// over incoming edges, nothing at the entry, everything (optimistically)
    /// elsewhere until the edges say otherwise. "Everything" is `None`
    /// rather than a full set: in reverse post-order every block but the
    /// entry hears from a predecessor before it is visited, so the sets
    /// only ever hold what reaches them.
    fn available_in(&self, func: &Function, cfg: &Cfg) -> Vec<HybridBitSet> {
        let n = self.list.len();
        let mut ins: Vec<Option<HybridBitSet>> = vec![None; cfg.capacity()];
        if let Some(entry) = cfg.entry() {
            ins[block_index(entry)] = Some(HybridBitSet::new(n));
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &block in cfg.rpo() {
                let mut state = ins[block_index(block)].clone().unwrap_or_else(|| full(n));
                let mut send =
                    |state: &HybridBitSet, target: BlockId, ins: &mut Vec<Option<HybridBitSet>>| match &mut ins
                        [block_index(target)]
                    {
                        Some(t) => changed |= t.intersect_with(state),
                        t @ None => {
                            *t = Some(state.clone());
                            changed = true;
                        }
                    };
                for &id in &func.blocks[block].insts {
                    let inst = &func.insts[id];
                    self.step(id, inst, &mut state);
                    for target in branch_targets(inst) {
                        send(&state, target, &mut ins);
                    }
                }
                if let Some(next) = cfg.fallthrough(block) {
                    send(&state, next, &mut ins);
                }
            }
        }
        for &block in cfg.rpo() {
            ins[block_index(block)].get_or_insert_with(|| full(n));
        }
        ins.into_iter().map(|set| set.unwrap_or_else(|| HybridBitSet::new(n))).collect()
    }

    /// The source of the available copy writing `reg`. Copies are of whole
    /// registers, so a read of a part has none.
    fn available_copy(&self, reg: Reg, state: &HybridBitSet) -> Option<Source> {
        if reg.word.is_some() {
            return None;
        }
        let bit = self.space.bit(VReg::of(reg)?)?;
        self.by_dest[bit].iter().find(|&&k| state.contains(k as usize)).map(|&k| self.list[k as usize])
    }

    /// What a read of `reg` can read instead: the last register of the
    /// chain of available copies, and the immediate at its end if any.
    fn resolve(&self, reg: Reg, state: &HybridBitSet) -> (Reg, Option<Imm>) {
        let mut cur = reg;
        // Each step follows a distinct available copy (a copy into a
        // register kills the other copies into it, so only one can be
        // available), and a cycle would need a copy available after its
        // source was written; the bound only guards against bugs.
        for _ in 0..=self.list.len() {
            match self.available_copy(cur, state) {
                Some(Source::Reg(s)) => cur = s,
                Some(Source::Imm(imm)) => return (cur, Some(imm)),
                None => break,
            }
        }
        (cur, None)
    }

    /// Rewrites the reads of `inst` through the available copies.
    fn rewrite(&self, inst: &mut Inst, state: &HybridBitSet) {
        let op = inst.op;
        if let Some(guard) = &mut inst.guard {
            guard.pred = self.resolve(guard.pred, state).0;
        }
        // SASS has one immediate slot: `IMAD d, a, b, 0x3` or `FFMA d, a, b,
        // 0.5` already fills it with the addend.
        let addend_imm = matches!(op, Opcode::IMAD | Opcode::FFMA)
            && matches!(inst.uses.get(2).map(|u| &u.kind), Some(OperandKind::Imm(_)));
        for (slot, operand) in inst.uses.iter_mut().enumerate() {
            let plain = operand.flags == OperandFlags::default() && !(addend_imm && slot == 1);
            match &mut operand.kind {
                OperandKind::Reg(reg) => {
                    let (last, imm) = self.resolve(*reg, state);
                    match imm {
                        Some(imm) if plain && takes_immediate(op, slot, imm) => {
                            // The copied word in the reader's convention:
                            // `MOV`'s 0x9e3779b9 is `IMAD`'s -0x61c88647.
                            let imm = match imm {
                                Imm::Int(v) => op.immediate(v as u32),
                                other => other,
                            };
                            *operand = Operand::from(OperandKind::Imm(imm))
                        }
                        _ => *reg = last,
                    }
                }
                // Address, bank and descriptor registers.
                _ => {
                    for r in operand.regs_mut() {
                        *r = self.resolve(*r, state).0;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::text::parse_function;

    fn copy_of(line: &str) -> Option<String> {
        let f = parse_function(&format!(".entry k {{\nbb0:\n    {line}\n    EXIT\n}}\n")).unwrap();
        let inst = &f.insts[f.blocks[f.layout[0]].insts[0]];
        as_copy(inst).map(|(d, s)| match s {
            Source::Reg(r) => format!("{d} <- {r}"),
            Source::Imm(i) => format!("{d} <- {i:?}"),
        })
    }

    #[test]
    fn only_plain_moves_are_copies() {
        assert_eq!(copy_of("%r1 = MOV %r0").as_deref(), Some("%r1 <- %r0"));
        assert_eq!(copy_of("%r1 = MOV RZ").as_deref(), Some("%r1 <- RZ"));
        assert_eq!(copy_of("%r1 = MOV 0x10").as_deref(), Some("%r1 <- Int(16)"));
        assert_eq!(copy_of("%r1 = MOV 1.5").as_deref(), Some("%r1 <- F32(1069547520)"));
        assert_eq!(copy_of("%ur1 = UMOV %ur0").as_deref(), Some("%ur1 <- %ur0"));
        for not_a_copy in [
            "%ur1 = UMOV 0x400",
            "@%p0 %r1 = MOV %r0",
            "%r1 = MOV -%r0",
            "%r1 = MOV %r0, 0xf",
            "%r1 = MOV %ur0",
            "%r1.64 = MOV %r0",
            "%r1.64 = MOV 0x1",
            "%r1 = MOV 0x100000000",
            "R1 = MOV %r0",
            "%r1 = MOV R2",
            "%r1 = MOV %r1",
            "%r1 = MOV c[0x0][0x10]",
            "%r1 = IMAD.MOV %r0, 0x1, RZ",
        ] {
            assert_eq!(copy_of(not_a_copy), None, "{not_a_copy}");
        }
    }

    #[test]
    fn immediates_go_to_encodable_slots_of_their_type() {
        assert!(takes_immediate(Opcode::IADD3, 1, Imm::Int(1)));
        assert!(!takes_immediate(Opcode::IADD3, 0, Imm::Int(1)));
        assert!(!takes_immediate(Opcode::FADD, 1, Imm::Int(1)));
        assert!(takes_immediate(Opcode::FADD, 1, Imm::F32(0)));
        assert!(!takes_immediate(Opcode::STG, 1, Imm::Int(0)));
    }
}
