//! Constants and cheap values made again next to their readers when they
//! would otherwise sit unused in a register where the pressure is highest.
//!
//! A value computed from nothing but immediates and constant-bank words
//! (`LDC R, c[0x0][0x220]`, sm_80's `IMAD.MOV.U32 R, RZ, RZ, c[..]`, a
//! `MOV` of an immediate) is the same wherever it is computed during a
//! launch. `RematConstantLoads` already copies parameter loads into the
//! blocks that read them, but keeps them out of loops, so a loop nest
//! still holds every such value from its preheader across inner loops
//! that never read it (tma_bulk_copy's `bulk_scale`: both pointers and
//! three scalars across its wait and scale loops). NVIDIA loads them
//! again inside the loop where they are read. A cheap instruction (`CHEAP`)
//! is the same wherever the registers it reads hold the same values: when
//! they are written once, outside every loop, and are live at the new
//! place anyway (math_double's `|a|`, kept for three of its results).
//!
//! Here: find the points of highest R pressure; every such value live at
//! such a point, in a block that neither defines nor reads it, gets a copy
//! of its definition before its first reader in each block that reads it
//! (other than the defining block), and those readers read the copy. The
//! change is kept only when the highest pressure drops and so does the
//! register count a trial allocation needs, by at least one register per
//! `INSTS_PER_REGISTER` instructions added; it is tried a few times, as
//! the peak moves.

use std::collections::HashMap;

use cfg::{Cfg, DomTree, LoopNest, VReg};
use ori_ir::{BlockId, Function, InstId, Opcode, OperandKind, RegFile};

use crate::assign::Assignment;
use crate::points::LiveRanges;
use crate::rewrite::map_regs;

/// Instructions a change may add per R register it saves: occupancy is
/// worth a few instructions, not a dozen (math_float gave 11 copies for
/// one register).
const INSTS_PER_REGISTER: usize = 3;

/// Attempts at lowering the peak; each recomputes the ranges.
const ATTEMPTS: usize = 3;

/// Definitions that compute a value from their operands alone.
const MOVES: &[Opcode] = &[Opcode::LDC, Opcode::MOV, Opcode::IMAD];

/// Single instructions cheap enough to repeat next to a reader when the
/// registers they read are still there (math_double's `|a|`, lowered as
/// `DADD -RZ, |a|` and read by three of its twelve results).
const CHEAP: &[Opcode] = &[Opcode::IADD3, Opcode::LOP3, Opcode::SHF, Opcode::LEA, Opcode::FADD, Opcode::DADD];

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
        let added = func.inst_count().saturating_sub(before.inst_count());
        let next = LiveRanges::compute(func);
        let old = r_used(placed.get_or_insert_with(|| judge(&lr)));
        let new_placed = if next.r_peak().0 < peak { judge(&next) } else { None };
        let better = match (old, r_used(&new_placed)) {
            (Some(old), Some(new)) => new < old && added <= INSTS_PER_REGISTER * (old - new) as usize,
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

/// What writes one register.
#[derive(Copy, Clone)]
struct Writes {
    /// Instructions writing it.
    count: u32,
    /// The last of them and its block.
    last: Option<(InstId, BlockId)>,
    /// Every write unguarded and of the whole register.
    whole: bool,
}

/// The R values live at one of `points` in a block that neither defines
/// nor reads them and that can be computed again before their readers,
/// each with its definition: constants, and cheap instructions whose
/// register sources are stable (written once, unguarded and whole,
/// outside every loop: one value per thread) and live at each reading
/// block's first reader, not themselves chosen.
fn idle_constants(func: &Function, lr: &LiveRanges, points: &[u32]) -> Vec<(VReg, InstId)> {
    let bit_of = |v: VReg| lr.space.bit(v);
    // Per register: how many instructions write it, the last of them
    // and its block, whether every write is unguarded and whole; per
    // point, its block.
    let mut writes = vec![Writes { count: 0, last: None, whole: true }; lr.vregs.len()];
    let mut block_of_point = Vec::with_capacity(lr.points as usize);
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            block_of_point.extend([block, block]);
            let inst = &func.insts[id];
            for reg in inst.written_regs() {
                let Some(b) = VReg::of(reg).and_then(bit_of) else { continue };
                let whole = inst.guard.is_none() && reg.word.is_none();
                let w = &mut writes[b];
                (w.count, w.last, w.whole) = (w.count + 1, Some((id, block)), w.whole && whole);
            }
        }
    }
    let single = |b: usize| match writes[b] {
        Writes { count: 1, last: Some(def), whole: true } => Some(def),
        _ => None,
    };
    let mut loops = None;
    let mut stable = |b: usize| {
        let nest = loops.get_or_insert_with(|| {
            let cfg = Cfg::compute(func);
            LoopNest::compute(func, &cfg, &DomTree::compute(&cfg))
        });
        single(b).is_some_and(|(_, block)| nest.depth(block) == 0)
    };
    // Candidates: R registers with one definition that can be repeated,
    // with the registers it reads.
    let mut sources: Vec<Option<(InstId, BlockId, Vec<usize>)>> = vec![None; lr.vregs.len()];
    let mut any = false;
    for b in lr.space.file_bits(RegFile::R) {
        let Some((def, block)) = single(b) else { continue };
        let Some(regs) = repeatable(func, def) else { continue };
        if let Some(bits) = regs.into_iter().map(bit_of).collect::<Option<Vec<usize>>>() {
            sources[b] = Some((def, block, bits));
            any = true;
        }
    }
    if !any {
        return Vec::new();
    }
    // Per candidate, the blocks that read it (each block's instructions
    // are contiguous in the layout) and the read point of the first
    // reader in each.
    let mut reads: Vec<Vec<(BlockId, u32)>> = vec![Vec::new(); lr.vregs.len()];
    let mut k: u32 = 0;
    for &block in &func.layout {
        for &id in &func.blocks[block].insts {
            for b in func.insts[id].read_regs().filter_map(VReg::of).filter_map(bit_of) {
                if sources[b].is_some() && reads[b].last().map(|r| r.0) != Some(block) {
                    reads[b].push((block, 2 * k));
                }
            }
            k += 1;
        }
    }
    let live_at = |b: usize, p: u32| lr.vregs[b].ranges.iter().any(|r| r.start <= p && p <= r.end);
    let mut chosen: Vec<(usize, InstId)> = Vec::new();
    for (b, cand) in sources.iter().enumerate() {
        let Some((def, def_block, srcs)) = cand else { continue };
        let idle = |p: u32| {
            let block = block_of_point[p as usize];
            block != *def_block && !reads[b].iter().any(|r| r.0 == block)
        };
        // `points` is sorted: only those inside the value's ranges count.
        let idle_at_peak = lr.vregs[b].ranges.iter().any(|r| {
            let from = points.partition_point(|&p| p < r.start);
            points[from..].iter().take_while(|&&p| p <= r.end).any(|&p| idle(p))
        });
        if !idle_at_peak {
            continue;
        }
        let elsewhere: Vec<u32> = reads[b].iter().filter(|r| r.0 != *def_block).map(|r| r.1).collect();
        let sources_stay = elsewhere.iter().all(|&p| srcs.iter().all(|&s| live_at(s, p)));
        if !elsewhere.is_empty() && sources_stay && srcs.iter().all(|&s| stable(s)) {
            chosen.push((b, *def));
        }
    }
    // A source made again elsewhere no longer holds its value there.
    let picked: Vec<usize> = chosen.iter().map(|c| c.0).collect();
    chosen.retain(|&(b, _)| sources[b].as_ref().is_some_and(|c| !c.2.iter().any(|s| picked.contains(s))));
    chosen.into_iter().map(|(b, def)| (lr.space.vreg(b), def)).collect()
}

/// The virtual registers `def` reads when it writes one whole R register,
/// unguarded, and can be repeated anywhere they hold the same values: a
/// constant (`MOVES` from immediates, fixed constant-bank words and zero
/// registers) reads none; a `CHEAP` instruction reads registers (and
/// immediates, fixed bank words) only.
fn repeatable(func: &Function, def: InstId) -> Option<Vec<VReg>> {
    let inst = &func.insts[def];
    let one_result = inst.defs.len() == 1 && inst.defs[0].as_reg().is_some_and(|r| r.word.is_none());
    if inst.guard.is_some() || !one_result {
        return None;
    }
    let mut regs = Vec::new();
    for op in &inst.uses {
        match &op.kind {
            OperandKind::Imm(_) | OperandKind::CBank(_) if op.regs().next().is_none() => {}
            OperandKind::Reg(r) if r.is_zero() => {}
            OperandKind::Reg(r) if r.is_virtual => regs.push(VReg::of(*r)?),
            _ => return None,
        }
    }
    let fits = if regs.is_empty() { MOVES.contains(&inst.op) } else { CHEAP.contains(&inst.op) };
    fits.then_some(regs)
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
