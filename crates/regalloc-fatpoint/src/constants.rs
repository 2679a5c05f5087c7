//! Constants made again next to their readers when they would otherwise
//! sit unused in a register where the pressure is highest.
//!
//! A value computed from nothing but immediates and constant-bank words
//! (`LDC R, c[0x0][0x220]`, sm_80's `IMAD.MOV.U32 R, RZ, RZ, c[..]`, a
//! `MOV` of an immediate) is the same wherever it is computed during a
//! launch. `RematConstantLoads` already copies parameter loads into the
//! blocks that read them, but keeps them out of loops, so a loop nest
//! still holds every such value from its preheader across inner loops
//! that never read it (tma_bulk_copy's `bulk_scale`: both pointers and
//! three scalars across its wait and scale loops). NVIDIA loads them
//! again inside the loop where they are read. Here: find the points of
//! highest R pressure; every constant value live at such a point, in a
//! block that neither defines nor reads it, gets a copy of its definition
//! before its first reader in each block that reads it (other than the
//! defining block), and those readers read the copy. The change is kept
//! only when the highest pressure drops and so does the register count a
//! trial allocation needs (the copies cost instructions); it is tried a
//! few times, as the peak moves.

use std::collections::HashMap;

use cfg::VReg;
use ori_ir::{BlockId, Function, InstId, Opcode, OperandKind, RegFile};

use crate::assign::Assignment;
use crate::points::LiveRanges;
use crate::rewrite::map_regs;

/// Attempts at lowering the peak; each recomputes the ranges.
const ATTEMPTS: usize = 3;

/// Definitions that compute a value from their operands alone.
const MOVES: &[Opcode] = &[Opcode::LDC, Opcode::MOV, Opcode::IMAD];

/// Lowers the R registers `func` needs by rematerialising constants (see
/// the module's documentation). `judge` allocates from given ranges and
/// returns the assignment when everything fits; a change is kept only
/// when it lowers the peak and the R registers used (or makes spilling
/// unnecessary), since it adds instructions. Returns the ranges of `func`
/// as it is afterwards and, when `judge` ran on them, its assignment.
pub(crate) fn remat_constants(
    func: &mut Function,
    judge: &dyn Fn(&LiveRanges) -> Option<Assignment>,
) -> (LiveRanges, Option<Assignment>) {
    let mut lr = LiveRanges::compute(func);
    let mut placed: Option<Option<Assignment>> = None;
    let r_used = |a: &Option<Assignment>| a.as_ref().map(|a| a.used[RegFile::R.index()]);
    for _ in 0..ATTEMPTS {
        let (peak, peak_points) = lr.r_peak();
        let chosen = idle_constants(func, &lr, &peak_points);
        if chosen.is_empty() {
            break;
        }
        let before = func.clone();
        remat(func, &chosen);
        let next = LiveRanges::compute(func);
        let old = r_used(placed.get_or_insert_with(|| judge(&lr)));
        let new_placed = if next.r_peak().0 < peak { judge(&next) } else { None };
        let better = match (old, r_used(&new_placed)) {
            (Some(old), Some(new)) => new < old,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if !better {
            *func = before;
            break;
        }
        lr = next;
        placed = Some(new_placed);
    }
    (lr, placed.flatten())
}

/// The constant R values live at one of `points` in a block that neither
/// defines nor reads them, each with its definition.
fn idle_constants(func: &Function, lr: &LiveRanges, points: &[u32]) -> Vec<(VReg, InstId)> {
    let bits = lr.space.file_bits(RegFile::R);
    let slot = |v: VReg| lr.space.bit(v).filter(|b| bits.contains(b)).map(|b| b - bits.start);
    // Per R register: how many instructions write it, the last of them
    // and its block; per point, its block.
    let mut writes = vec![(0u32, None); bits.len()];
    let mut block_of_point = Vec::with_capacity(lr.points as usize);
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            block_of_point.extend([block, block]);
            for s in func.insts[id].written_regs().filter_map(VReg::of).filter_map(slot) {
                writes[s] = (writes[s].0 + 1, Some((id, block)));
            }
        }
    }
    let constant: Vec<Option<(InstId, BlockId)>> =
        writes.into_iter().map(|(n, def)| def.filter(|&(id, _)| n == 1 && is_constant(func, id))).collect();
    if constant.iter().all(Option::is_none) {
        return Vec::new();
    }
    let mut reads: Vec<Vec<BlockId>> = vec![Vec::new(); bits.len()];
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            for s in func.insts[id].read_regs().filter_map(VReg::of).filter_map(slot) {
                if constant[s].is_some() && reads[s].last() != Some(&block) {
                    reads[s].push(block);
                }
            }
        }
    }
    let mut chosen = Vec::new();
    for (s, def) in constant.iter().enumerate() {
        let Some((def, def_block)) = *def else { continue };
        let bit = bits.start + s;
        let idle_at_peak = points.iter().any(|&p| {
            let block = block_of_point[p as usize];
            block != def_block
                && !reads[s].contains(&block)
                && lr.vregs[bit].ranges.iter().any(|r| r.start <= p && p <= r.end)
        });
        if idle_at_peak && reads[s].iter().any(|&b| b != def_block) {
            chosen.push((lr.space.vreg(bit), def));
        }
    }
    chosen
}

/// True when `def` writes one whole R register, unguarded, from
/// immediates, fixed constant-bank words and zero registers only.
fn is_constant(func: &Function, def: InstId) -> bool {
    let inst = &func.insts[def];
    let one_result = inst.defs.len() == 1 && inst.defs[0].as_reg().is_some_and(|r| r.word.is_none());
    let from_nothing = inst.uses.iter().all(|op| match &op.kind {
        OperandKind::Imm(_) | OperandKind::CBank(_) => op.regs().next().is_none(),
        OperandKind::Reg(r) => r.is_zero(),
        _ => false,
    });
    MOVES.contains(&inst.op) && inst.guard.is_none() && one_result && from_nothing
}

/// Gives every block that reads a chosen value, other than the block
/// defining it, its own copy of the definition before its first reader;
/// a definition no reader is left for goes.
fn remat(func: &mut Function, chosen: &[(VReg, InstId)]) {
    let mut def_blocks = HashMap::new();
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            if chosen.iter().any(|&(_, d)| d == id) {
                def_blocks.insert(id, block);
            }
        }
    }
    let mut still_read = vec![false; chosen.len()];
    for &block in &func.layout.clone() {
        let old = std::mem::take(&mut func.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        let mut copies: Vec<Option<ori_ir::Reg>> = vec![None; chosen.len()];
        for id in old {
            for (i, &(v, def)) in chosen.iter().enumerate() {
                if !func.insts[id].read_regs().any(|r| VReg::of(r) == Some(v)) {
                    continue;
                }
                if def_blocks.get(&def) == Some(&block) {
                    still_read[i] = true;
                    continue;
                }
                let copy = *copies[i].get_or_insert_with(|| {
                    let width = func.insts[def].defs[0].as_reg().map_or(1, |r| r.width);
                    let fresh = func.new_vreg(RegFile::R, width);
                    let mut inst = func.insts[def].clone();
                    map_regs(&mut inst, |r| if VReg::of(r) == Some(v) { fresh } else { r });
                    new.push(func.insts.alloc(inst));
                    fresh
                });
                map_regs(&mut func.insts[id], |r| {
                    if VReg::of(r) == Some(v) { ori_ir::Reg { num: copy.num, ..r } } else { r }
                });
            }
            new.push(id);
        }
        func.blocks[block].insts = new;
    }
    for (i, &(_, def)) in chosen.iter().enumerate() {
        if !still_read[i]
            && let Some(&block) = def_blocks.get(&def)
        {
            func.blocks[block].insts.retain(|&id| id != def);
        }
    }
}
