//! `FoldConstantOperands`: instructions read kernel parameters and other
//! constant-bank words where they live, instead of through a register
//! loaded from the bank.
//!
//! Lowering loads every parameter it reads into a register (`LDC R,
//! c[0x0][0x220]`, sm_80 `MOV R, c[..]`), and each of those registers
//! lives from the top of the kernel to its last reader. NVIDIA's code
//! reads most of them in place: on sm_80 as a constant operand (`ISETP.GE.U32.AND
//! P0, PT, R2, c[0x0][0x170], PT`), on sm_90 through a uniform register
//! (`ULDC.64 UR10, c[0x0][0x220]` then `ISETP ... R2, UR10`), which costs
//! no general register at all (the seed's ConvertToUniformReg).
//!
//! A constant load is an unguarded `LDC`, `LDC.64`, `MOV` or sm_80's
//! `IMAD.WIDE.U32 d, RZ, RZ, c[..]` of a fixed bank offset into a virtual register nothing else writes. Each read of
//! it that is a plain register operand becomes, when the encoder has a
//! form for the result ([`ori_ir::Forms`]), the bank word itself; failing
//! that, a uniform register loaded by a `ULDC` placed just after the load
//! (so that it is defined wherever the load was). Loads left without
//! readers are deleted by `EarlyOriSimpleLiveDead`.
//!
//! Uniform registers are few (63) and the allocator does not spill them,
//! so at most [`UNIFORM_WORDS`] words are made per function. Uniform
//! copies are only made of loads in the entry block: a warp runs the
//! sides of a divergent branch one after the other, possibly interleaved,
//! and a uniform register the allocator gives to values on both sides
//! would be overwritten by the other side; at the entry every thread is
//! still together, and a value made there interferes with everything
//! after it.

use std::collections::HashMap;

use ori_ir::{
    Bank, CBank, Function, Imm, Inst, InstId, Modifier, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError,
    Property, PropertySet, Reg, RegFile,
};

/// Uniform register words this phase may create in one function: NVIDIA's
/// kernels keep about a dozen parameters in uniform registers, and the
/// descriptor, loop-invariant uniform code and the ABI need the rest.
pub const UNIFORM_WORDS: u32 = 24;

/// Reads constant-bank words in place of the registers loaded from them.
pub struct FoldConstantOperands;

impl Phase for FoldConstantOperands {
    fn name(&self) -> &'static str {
        "FoldConstantOperands"
    }

    fn description(&self) -> &'static str {
        "Instructions read constant-bank words as operands (sm_80) or uniform registers (sm_90) instead of loaded registers"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        fold_compare_immediates(func, cx);
        let loads = constant_loads(func);
        if loads.is_empty() {
            return Ok(());
        }
        let mut uniform: HashMap<u32, Reg> = HashMap::new();
        let mut uniform_words = 0;
        let ids: Vec<InstId> = func.layout.iter().flat_map(|&b| func.blocks[b].insts.clone()).collect();
        for id in ids {
            for i in 0..func.insts[id].uses.len() {
                let op = &func.insts[id].uses[i];
                let OperandKind::Reg(reg) = op.kind else { continue };
                let Some(load) = loads.get(&reg.num).filter(|_| reg.is_virtual && reg.file == RegFile::R) else {
                    continue;
                };
                let word = reg.word.unwrap_or(0);
                if reg.width != 1 && (reg.width != load.width || word != 0) {
                    continue;
                }
                let bank = CBank { bank: Bank::Fixed(load.bank), reg: None, offset: load.offset + 4 * i32::from(word) };
                if let Some(inst) = with_operand(func, id, i, &OperandKind::CBank(bank), cx) {
                    func.insts[id] = inst;
                    continue;
                }
                // A stand-in register asks the question; the uniform
                // register is made once an instruction can read it.
                let ureg = uniform.get(&reg.num).copied().unwrap_or(Reg::virt(RegFile::UR, u32::MAX).wide(load.width));
                let fresh = !uniform.contains_key(&reg.num);
                if fresh && (!load.at_entry || uniform_words + u32::from(load.width) > UNIFORM_WORDS) {
                    continue;
                }
                let part = |u: Reg| if reg.width == load.width { u } else { u.part(word, 1) };
                let Some(mut inst) = with_operand(func, id, i, &OperandKind::Reg(part(ureg)), cx) else { continue };
                if fresh {
                    let u = func.new_vreg(RegFile::UR, load.width);
                    uniform.insert(reg.num, u);
                    uniform_words += u32::from(load.width);
                    for op in &mut inst.uses {
                        if op.kind == OperandKind::Reg(part(ureg)) {
                            op.kind = OperandKind::Reg(part(u));
                        }
                    }
                }
                func.insts[id] = inst;
            }
        }
        place_uniform_loads(func, &loads, &uniform, cx.target.isa.uniform_const_load);
        Ok(())
    }
}

/// Compares read an immediate in place of a register loaded with it
/// (`IMAD.MOV.U32 r, RZ, RZ, imm` or `MOV r, imm`, its only writer),
/// mirrored when the immediate is their first source. Lowering writes
/// `a < imm` as `r > a` with `imm` in a register `r`, the form every
/// target's encoder had; NVIDIA writes `ISETP.LT ... a, imm` (or `GE`
/// with the readers inverted), and the register costs an instruction
/// and, when sixteen such compares guard loads started together, a
/// register each. Done where the encoder has the folded form.
fn fold_compare_immediates(func: &mut Function, cx: &PhaseContext<'_>) {
    let writers = crate::write_counts(func);
    let mut immediates: HashMap<u32, i64> = HashMap::new();
    for (_, _, inst) in func.insts_in_order() {
        let Some(imm) = immediate_load(inst) else { continue };
        let Some(r) = inst.defs.first().and_then(Operand::as_reg) else { continue };
        if writers.get(&(RegFile::R, r.num)) == Some(&1) {
            immediates.insert(r.num, imm);
        }
    }
    if immediates.is_empty() {
        return;
    }
    let ids: Vec<InstId> = func.layout.iter().flat_map(|&b| func.blocks[b].insts.clone()).collect();
    for id in ids {
        if !matches!(func.insts[id].op, Opcode::ISETP) || func.insts[id].has_mod("EX") {
            continue;
        }
        for i in 0..2 {
            let Some(OperandKind::Reg(reg)) = func.insts[id].uses.get(i).map(|o| o.kind.clone()) else { continue };
            let plain = reg.is_virtual && reg.file == RegFile::R && reg.width == 1 && reg.word.is_none();
            let Some(&imm) = immediates.get(&reg.num).filter(|_| plain) else { continue };
            if func.insts[id].uses[i].flags != Default::default() {
                continue;
            }
            if let Some(inst) = with_operand(func, id, i, &OperandKind::Imm(Imm::Int(imm)), cx) {
                func.insts[id] = inst;
            }
        }
    }
}

/// The immediate an unguarded `IMAD.MOV.U32 r, RZ, RZ, imm` or `MOV r,
/// imm` writes to a whole 32-bit virtual register.
fn immediate_load(inst: &Inst) -> Option<i64> {
    let names: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    let src = match (inst.op, names.as_slice(), inst.uses.as_slice()) {
        (Opcode::IMAD, ["MOV", "U32"], [a, b, c])
            if [a, b].iter().all(|z| z.as_reg().is_some_and(Reg::is_zero) && z.flags == Default::default()) =>
        {
            c
        }
        (Opcode::MOV, [], [c]) => c,
        _ => return None,
    };
    let r = inst.defs.first()?.as_reg()?;
    let whole = inst.guard.is_none() && r.is_virtual && r.file == RegFile::R && r.width == 1 && r.word.is_none();
    match src.kind {
        OperandKind::Imm(Imm::Int(v)) if whole && src.flags == Default::default() => Some(v),
        _ => None,
    }
}

/// A constant load: `width` words from `c[bank][offset]`.
struct Load {
    inst: InstId,
    bank: u8,
    offset: i32,
    width: u8,
    /// In the entry block, which every thread runs together: the only
    /// place a uniform copy is made (below).
    at_entry: bool,
}

/// The constant loads of `func`, by virtual register number.
fn constant_loads(func: &Function) -> HashMap<u32, Load> {
    let writers = crate::write_counts(func);
    let mut loads = HashMap::new();
    let entry = func.layout.first().copied();
    for (block, id, inst) in func.insts_in_order() {
        if let Some(c) = constant_load(inst) {
            let at_entry = Some(block) == entry;
            let load = Load { inst: id, bank: c.bank, offset: c.offset, width: c.reg.width, at_entry };
            loads.insert(c.reg.num, load);
        }
    }
    loads.retain(|&num, _| writers.get(&(RegFile::R, num)) == Some(&1));
    loads
}

/// An unguarded load of a fixed constant-bank word into a whole virtual
/// register: `LDC`, `LDC.64`, `MOV`, or sm_80's 64-bit parameter load
/// `IMAD.WIDE.U32 d, RZ, RZ, c[..]` (`0 * 0 + c` with a 64-bit addend).
pub(crate) struct ConstantLoad {
    pub reg: Reg,
    pub bank: u8,
    pub offset: i32,
}

/// The constant load `inst` is, if it is one.
pub(crate) fn constant_load(inst: &Inst) -> Option<ConstantLoad> {
    let width = match (inst.op, inst.mods.iter().map(|m| m.name()).collect::<Vec<_>>().as_slice()) {
        (Opcode::LDC | Opcode::MOV, []) => 1,
        (Opcode::LDC, ["64"]) | (Opcode::IMAD, ["WIDE", "U32"]) => 2,
        _ => return None,
    };
    let [def] = inst.defs.as_slice() else { return None };
    let (src, zeros) = inst.uses.split_last()?;
    let reg = def.as_reg()?;
    let OperandKind::CBank(CBank { bank: Bank::Fixed(bank), reg: None, offset }) = src.kind else { return None };
    let zeros_only = zeros.iter().all(|z| z.as_reg().is_some_and(Reg::is_zero) && z.flags == Default::default());
    let plain = inst.guard.is_none() && reg.is_virtual && reg.word.is_none() && reg.width == width;
    (plain && zeros_only && src.flags == Default::default()).then_some(ConstantLoad { reg, bank, offset })
}

/// `id` with use `i` replaced by `kind` (marks kept), moved to another
/// slot of a commutative operation if it must, when that encodes.
pub(crate) fn with_operand(
    func: &Function,
    id: InstId,
    i: usize,
    kind: &OperandKind,
    cx: &PhaseContext<'_>,
) -> Option<Inst> {
    substitute(&func.insts[id], i, kind, cx)
}

/// `original` with use `i` replaced by `kind` (marks kept), moved to
/// another slot of a commutative operation if it must, when that encodes.
pub(crate) fn substitute(original: &Inst, i: usize, kind: &OperandKind, cx: &PhaseContext<'_>) -> Option<Inst> {
    let slots = commutative_slots(original);
    let swaps = std::iter::once(i).chain(slots.iter().copied().filter(|&j| j != i && slots.contains(&i)));
    for j in swaps {
        let mut inst = swapped(original, i, j);
        inst.uses[j].kind = kind.clone();
        if cx.forms.encodes(&inst) {
            return Some(inst);
        }
    }
    None
}

/// Sources of `inst` that may trade places, [`swapped`] keeping the
/// result the same.
fn commutative_slots(inst: &Inst) -> &'static [usize] {
    // IMAD's alias spellings (`IMAD.MOV`, `IMAD.SHL`, `IMAD.IADD`) pin
    // operands to particular values.
    let alias = ["MOV", "SHL", "IADD"].iter().any(|m| inst.has_mod(m));
    let lut = matches!(inst.uses.get(3), Some(Operand { kind: OperandKind::Imm(Imm::Int(0..=0xff)), .. }));
    match inst.op {
        Opcode::IADD3 => &[0, 1, 2],
        Opcode::IMAD if !alias => &[0, 1],
        Opcode::FFMA | Opcode::FADD | Opcode::FMUL | Opcode::DFMA | Opcode::DADD | Opcode::DMUL => &[0, 1],
        Opcode::FMNMX | Opcode::IMNMX => &[0, 1],
        Opcode::LOP3 if lut && inst.has_mod("LUT") => &[0, 1, 2],
        // An extended compare continues a chain of compares made in one
        // operand order.
        Opcode::ISETP | Opcode::FSETP if !inst.has_mod("EX") && mirrored_comparison(inst).is_some() => &[0, 1],
        _ => &[],
    }
}

/// `inst` with sources `i` and `j` (of [`commutative_slots`]) exchanged:
/// `LOP3`'s truth table permuted and a compare's sense mirrored with them.
fn swapped(inst: &Inst, i: usize, j: usize) -> Inst {
    let mut out = inst.clone();
    out.uses.swap(i, j);
    if i == j {
        return out;
    }
    match inst.op {
        Opcode::LOP3 => {
            let Some(Operand { kind: OperandKind::Imm(Imm::Int(lut)), .. }) = inst.uses.get(3) else { return out };
            // Source k selects bit 2 - k of a truth-table index.
            let (bi, bj) = (2 - i, 2 - j);
            let permuted = (0..8).fold(0, |acc, index: usize| {
                let (x, y) = ((index >> bi) & 1, (index >> bj) & 1);
                let from = index & !(1 << bi) & !(1 << bj) | x << bj | y << bi;
                acc | ((lut >> from) & 1) << index
            });
            out.uses[3].kind = OperandKind::Imm(Imm::Int(permuted));
        }
        Opcode::ISETP | Opcode::FSETP => {
            if let Some((k, mirror)) = mirrored_comparison(inst) {
                out.mods[k] = Modifier::from_name(mirror).expect("a comparison modifier");
            }
        }
        _ => {}
    }
    out
}

/// The comparison modifier of a compare (its index among the modifiers)
/// and the one that gives the same answer with the sources exchanged.
fn mirrored_comparison(inst: &Inst) -> Option<(usize, &'static str)> {
    const MIRRORS: &[(&str, &str)] = &[
        ("LT", "GT"),
        ("GT", "LT"),
        ("LE", "GE"),
        ("GE", "LE"),
        ("EQ", "EQ"),
        ("NE", "NE"),
        ("LTU", "GTU"),
        ("GTU", "LTU"),
        ("LEU", "GEU"),
        ("GEU", "LEU"),
        ("EQU", "EQU"),
        ("NEU", "NEU"),
        ("NUM", "NUM"),
        ("NAN", "NAN"),
    ];
    inst.mods
        .iter()
        .enumerate()
        .find_map(|(k, m)| MIRRORS.iter().find(|&&(from, _)| from == m.name()).map(|&(_, to)| (k, to)))
}

/// Puts a uniform constant load (`op`: `ULDC`, `LDCU`) of each uniform
/// register used just after the load it stands for.
fn place_uniform_loads(func: &mut Function, loads: &HashMap<u32, Load>, uniform: &HashMap<u32, Reg>, op: Opcode) {
    let mut after: HashMap<InstId, InstId> = HashMap::new();
    let mut by_load: Vec<(&u32, &Reg)> = uniform.iter().collect();
    by_load.sort_by_key(|(num, _)| **num);
    for (num, &ureg) in by_load {
        let load = &loads[num];
        let mut inst = Inst::new(op, vec![Operand::reg(ureg)], vec![Operand::cbank(load.bank, load.offset)]);
        if load.width == 2 {
            inst.mods = Modifier::list(&["64"]);
        }
        after.insert(load.inst, func.insts.alloc(inst));
    }
    for block in func.layout.clone() {
        let insts = &mut func.blocks[block].insts;
        let mut k = 0;
        while k < insts.len() {
            if let Some(&new) = after.get(&insts[k]) {
                insts.insert(k + 1, new);
                k += 1;
            }
            k += 1;
        }
    }
}
