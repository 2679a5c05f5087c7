//! Runs a grid: CTAs one after another, the warps of a CTA in turn until
//! each exits or waits at a barrier, which releases when all have come.

use crate::exec::{Cta, Stop};
use crate::memory::Global;
use crate::program::Program;
use crate::warp::{LANES, Warp};
use crate::{Error, Launch, Stats};

/// Bytes of shared memory the driver reserves below a CTA's own on sm_90
/// (ptxas addresses static shared memory from 0x400 there).
fn reserved_shared(sm: u32) -> u32 {
    if sm >= 90 { 0x400 } else { 0 }
}

/// Constant bank 0: blockDim at 0x0, gridDim at 0xc, the generic address
/// of the local window at 0x20, the stack top at 0x28, the parameters at
/// the target's parameter base.
fn bank0(sm: u32, launch: &Launch) -> Vec<u8> {
    let base = ori_ir::Sm::new(sm as u16).target().param_base as usize;
    let mut b = vec![0u8; base + launch.params.len()];
    for k in 0..3 {
        b[4 * k..4 * k + 4].copy_from_slice(&launch.block[k].to_le_bytes());
        b[0xc + 4 * k..0x10 + 4 * k].copy_from_slice(&launch.grid[k].to_le_bytes());
    }
    b[0x20..0x28].copy_from_slice(&crate::LOCAL_WINDOW.to_le_bytes());
    b[0x28..0x2c].copy_from_slice(&launch.local_bytes.to_le_bytes());
    b[base..].copy_from_slice(&launch.params);
    b
}

/// Runs `prog` over the grid of `launch`.
pub fn run_grid(
    func: &ori_ir::Function,
    prog: &Program,
    sm: u32,
    static_shared: u32,
    launch: &Launch,
    global: &mut Global,
) -> Result<Stats, Error> {
    let mut banks = vec![bank0(sm, launch)];
    for (n, bytes) in &launch.banks {
        let n = usize::from(*n);
        if banks.len() <= n {
            banks.resize(n + 1, Vec::new());
        }
        banks[n] = bytes.clone();
    }
    let [bx, by, bz] = launch.block;
    let threads = bx
        .checked_mul(by)
        .and_then(|t| t.checked_mul(bz))
        .filter(|&t| t > 0 && t <= 1024)
        .ok_or_else(|| Error::Launch(format!("a CTA of {bx}x{by}x{bz} threads")))?;
    let nwarps = threads.div_ceil(LANES as u32);
    let shared_bytes = reserved_shared(sm) as usize + static_shared as usize + launch.dyn_shared as usize;
    let mut stats = Stats::default();
    let mut cta = Cta {
        prog,
        banks: &banks,
        global,
        shared: Vec::new(),
        ctaid: [0; 3],
        local_bytes: launch.local_bytes as usize,
        warp_insts: 0,
        thread_insts: 0,
        printf: Vec::new(),
    };
    for cz in 0..launch.grid[2] {
        for cy in 0..launch.grid[1] {
            for cx in 0..launch.grid[0] {
                cta.ctaid = [cx, cy, cz];
                cta.shared.clear();
                cta.shared.resize(shared_bytes, 0);
                let mut warps: Vec<Warp> = (0..nwarps)
                    .map(|wi| {
                        let mut tid = [[0u32; 3]; LANES];
                        let mut live = 0u32;
                        for (l, t) in tid.iter_mut().enumerate() {
                            let linear = wi * LANES as u32 + l as u32;
                            if linear < threads {
                                *t = [linear % bx, linear / bx % by, linear / (bx * by)];
                                live |= 1 << l;
                            }
                        }
                        Warp::new(&prog.slots, wi, tid, live)
                    })
                    .collect();
                run_cta(func, &mut cta, &mut warps, launch.max_warp_insts)?;
            }
        }
    }
    stats.warp_insts = cta.warp_insts;
    stats.thread_insts = cta.thread_insts;
    stats.printf = cta.printf;
    Ok(stats)
}

fn run_cta(func: &ori_ir::Function, cta: &mut Cta, warps: &mut [Warp], limit: u64) -> Result<(), Error> {
    loop {
        let mut waiting = 0;
        let mut live = 0;
        for w in warps.iter_mut() {
            while let Some(g) = w.next_group() {
                if cta.warp_insts > limit {
                    return Err(Error::Timeout { limit });
                }
                match cta.step(w, g) {
                    Ok(()) => {}
                    Err(Stop::Barrier) => {
                        waiting += 1;
                        break;
                    }
                    Err(Stop::Fault(what)) => {
                        let pc = w.groups[g].0;
                        let id = cta.prog.steps[pc].id;
                        return Err(Error::Fault {
                            pc,
                            inst: ori_ir::text::print_inst(func, &func.insts[id]),
                            what,
                            ctaid: cta.ctaid,
                            warp: w.index,
                        });
                    }
                }
            }
            if !w.groups.is_empty() {
                live += 1;
            }
        }
        if live == 0 {
            return Ok(());
        }
        debug_assert_eq!(waiting, live);
        // Every live warp waits at a barrier: release them all.
        for w in warps.iter_mut() {
            if let Some(g) = w.next_group() {
                let (pc, mask) = w.groups[g];
                w.reschedule(g, &[(mask, pc + 1)]);
            }
        }
    }
}
