//! `UniformConstantPairs`: a 64-bit constant that lowering built in a
//! general register pair is built in a uniform pair next to each reader
//! that can take one.
//!
//! An f64 constant with a non-zero low word has no immediate form; on
//! sm_80 NVIDIA reads it from constant bank 2 (lowering does the same),
//! on sm_90 it builds it just before its reader: `UMOV UR4, lo; UMOV UR5,
//! hi; DFMA R10, R8, R10, UR4` (math_double, 202 `UMOV`s). Lowering makes
//! `IMAD.MOV.U32 t:0, RZ, RZ, lo` / `IMAD.MOV.U32 t:1, RZ, RZ, hi` (or
//! `MOV`s, in the math templates) instead,
//! whose pair lives from there to its last reader; with a polynomial's
//! dozen constants hoisted or shared, that is many general registers.
//!
//! For each read of such a pair as a whole (a plain operand), when the
//! encoder has a form with a uniform pair there ([`ori_ir::Forms`]; not
//! every slot of every opcode has one), two `UMOV`s into a fresh uniform
//! pair go just before the reader, which reads that pair. The uniform
//! pair lives for two instructions, in the reader's block. The general
//! pair dies when no reader is left (`EarlyOriSimpleLiveDead`).
//!
//! Inside a region where a branch may split the warp, the allocator keeps
//! every uniform value live over the whole region (the two sides may run
//! interleaved, docs/regalloc.md), and uniform registers are never
//! spilled: a long run of f64 math under one divergent branch (NVRTC's
//! `dmath` in tests/sweep/math.cu) made 90 pairs there and ran out of the
//! 59 uniform registers. So at most [`DIVERGENT_PAIRS`] pairs go into such
//! regions; the rest keep their general pairs.

use std::collections::HashMap;

use cfg::{BlockSet, Cfg, PostDomTree, splits_warp};
use ori_ir::{
    Function, Imm, Inst, InstId, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError, Property, PropertySet,
    Reg, RegFile,
};

use crate::const_operands::with_operand;

/// Uniform pairs made inside divergent regions, at most: with the
/// parameters' uniform copies (`FoldConstantOperands`, 24 words) and a
/// memory descriptor they stay within UR4-UR62.
const DIVERGENT_PAIRS: usize = 14;

/// Builds 64-bit constants in uniform pairs next to their readers.
pub struct UniformConstantPairs;

impl Phase for UniformConstantPairs {
    fn name(&self) -> &'static str {
        "UniformConstantPairs"
    }

    fn description(&self) -> &'static str {
        "64-bit constants built with two UMOVs in a uniform pair next to each reader that takes one"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let pairs = constant_pairs(func);
        if pairs.is_empty() {
            return Ok(());
        }
        let mut before: HashMap<InstId, Vec<InstId>> = HashMap::new();
        let divergent = divergent_blocks(func);
        let mut divergent_pairs = 0;
        let ids: Vec<(bool, InstId)> = func
            .layout
            .iter()
            .flat_map(|&b| {
                let in_region = divergent.contains(b);
                func.blocks[b].insts.iter().map(move |&i| (in_region, i))
            })
            .collect();
        for (in_region, id) in ids {
            for i in 0..func.insts[id].uses.len() {
                if in_region && divergent_pairs == DIVERGENT_PAIRS {
                    break;
                }
                let OperandKind::Reg(reg) = func.insts[id].uses[i].kind else { continue };
                let whole = reg.is_virtual && reg.file == RegFile::R && reg.width == 2 && reg.word.unwrap_or(0) == 0;
                let Some(&value) = pairs.get(&reg.num).filter(|_| whole) else { continue };
                let stand_in = Reg::virt(RegFile::UR, u32::MAX).wide(2);
                let Some(mut inst) = with_operand(func, id, i, &OperandKind::Reg(stand_in), cx) else { continue };
                let u = func.new_vreg(RegFile::UR, 2);
                divergent_pairs += usize::from(in_region);
                for op in &mut inst.uses {
                    if op.kind == OperandKind::Reg(stand_in) {
                        op.kind = OperandKind::Reg(u);
                    }
                }
                func.insts[id] = inst;
                let umovs = before.entry(id).or_default();
                for w in 0..2u8 {
                    let word = Operand::int(i64::from((value >> (32 * w)) as u32));
                    let def = Operand::reg(u.part(w, 1));
                    let def = if w == 0 { def.undef() } else { def };
                    umovs.push(func.insts.alloc(Inst::new(Opcode::UMOV, vec![def], vec![word])));
                }
            }
        }
        for block in func.layout.clone() {
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

/// The blocks after each branch that may split the warp up to (without)
/// its block's immediate post-dominator, the allocator's regions (which
/// start at the branch: the code before it in its block is outside, unless
/// a path leads back to it).
pub(crate) fn divergent_blocks(func: &Function) -> BlockSet {
    let cfg = Cfg::compute(func);
    let pdom = PostDomTree::compute(&cfg);
    let mut inside = BlockSet::for_function(func);
    for &b in cfg.rpo() {
        if !func.blocks[b].insts.iter().any(|&i| splits_warp(func, &func.insts[i])) {
            continue;
        }
        let join = pdom.ipdom(b);
        let mut stack = cfg.succs(b).to_vec();
        let mut seen = BlockSet::for_function(func);
        while let Some(x) = stack.pop() {
            if Some(x) == join || !seen.insert(x) {
                continue;
            }
            inside.insert(x);
            stack.extend_from_slice(cfg.succs(x));
        }
    }
    inside
}

/// Register pairs written exactly by one immediate move per word,
/// unguarded, and their values.
fn constant_pairs(func: &Function) -> HashMap<u32, u64> {
    let writers = crate::write_counts(func);
    let mut words: HashMap<u32, [Option<u32>; 2]> = HashMap::new();
    for (_, _, inst) in func.insts_in_order() {
        if let Some((reg, value)) = word_move(inst) {
            words.entry(reg.num).or_default()[usize::from(reg.word.unwrap_or(0))] = Some(value);
        }
    }
    words
        .into_iter()
        .filter(|&(num, _)| writers.get(&(RegFile::R, num)) == Some(&2))
        .filter_map(|(num, w)| Some((num, u64::from(w[0]?) | u64::from(w[1]?) << 32)))
        .collect()
}

/// `IMAD.MOV.U32 t:w, RZ, RZ, imm` or `MOV t:w, imm` into one word of a
/// virtual pair.
fn word_move(inst: &Inst) -> Option<(Reg, u32)> {
    let mods: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    let zero = |o: &Operand| o.as_reg().is_some_and(Reg::is_zero);
    let imm = match (inst.op, mods.as_slice(), inst.uses.as_slice()) {
        (Opcode::IMAD, ["MOV", "U32"], [a, b, c]) if zero(a) && zero(b) => c,
        (Opcode::MOV, [], [c]) => c,
        _ => return None,
    };
    let [def] = inst.defs.as_slice() else { return None };
    let reg = def.as_reg().filter(|r| r.is_virtual && r.file == RegFile::R && r.width == 1)?;
    match (&imm.kind, reg.word) {
        (OperandKind::Imm(Imm::Int(v)), Some(0 | 1)) if inst.guard.is_none() => Some((reg, *v as u32)),
        _ => None,
    }
}
