//! Runs a grid: clusters of CTAs one after another (a cluster is one CTA
//! unless the function asks for more), the warps of a cluster's CTAs in
//! turn until each exits or waits at a barrier, which releases when all of
//! its CTA have come, or waits on other warps (cluster barrier, mbarrier).

use crate::exec::{Cta, Stop};
use crate::memory::Global;
use crate::program::Program;
use crate::sem::async_mem::ClusterState;
use crate::warp::{LANES, Warp};
use crate::{Error, Launch, Stats};

/// The compiler's facts for the cubin's SM.
fn target(sm: u32) -> ori_ir::Target {
    ori_ir::Sm::new(u16::try_from(sm).unwrap_or(u16::MAX)).target()
}

/// `%gridid` of every launch the interpreter runs (the driver numbers a
/// context's grids; any number will do).
const GRID_ID: u64 = 1;

/// The bound of `%aggr_smem_size` the interpreter's driver sets (not
/// measured: 228 KiB, sm_90's shared memory per SM).
const AGGR_SMEM_LIMIT: u32 = 228 * 1024;

/// Constant bank 0 as the target lays it out (`ori_ir::LaunchBank`):
/// blockDim, gridDim, the generic address of the local window, the
/// dynamic shared memory size, the grid's number, the cluster shape
/// (`cluster` CTAs a cluster, the grid's clusters, the CTAs of one), the
/// stack top, the parameters at the parameter base.
fn bank0(sm: u32, launch: &Launch, cluster: [u32; 3], explicit: bool) -> Vec<u8> {
    let target = target(sm);
    let base = target.param_base as usize;
    let at = target.launch_bank;
    let mut b = vec![0u8; base + launch.params.len()];
    for k in 0..3 {
        let (ntid, nctaid) = (at.ntid as usize + 4 * k, at.nctaid as usize + 4 * k);
        b[ntid..ntid + 4].copy_from_slice(&launch.block[k].to_le_bytes());
        b[nctaid..nctaid + 4].copy_from_slice(&launch.grid[k].to_le_bytes());
    }
    let window = at.local_window as usize;
    b[window..window + 8].copy_from_slice(&crate::LOCAL_WINDOW.to_le_bytes());
    let dynamic = at.dynamic_smem as usize;
    b[dynamic..dynamic + 4].copy_from_slice(&launch.dyn_shared.to_le_bytes());
    let gridid = at.gridid as usize;
    b[gridid..gridid + 8].copy_from_slice(&GRID_ID.to_le_bytes());
    if let Some(c) = at.cluster {
        let mut put = |at: i32, v: u32| b[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        for k in 0..3 {
            put(c.nctaid + 4 * k as i32, cluster[k]);
            put(c.nclusterid + 4 * k as i32, launch.grid[k] / cluster[k].max(1));
        }
        put(c.nctarank, cluster.iter().product());
        // Not measured (no GPU): 1 for a function with a cluster shape of
        // its own, the binary32 reciprocals rounded to nearest (what
        // NVIDIA's `%clusterid.y`/`.z` multiply by).
        put(c.explicit, u32::from(explicit));
        for k in 1..3 {
            put(c.rcp_nctaid_y + 4 * (k as i32 - 1), (1.0f32 / cluster[k].max(1) as f32).to_bits());
        }
    }
    // `%total_smem_size` leaves the reserve out; `%aggr_smem_size` is
    // bounded by a driver word whose value was not measured: the
    // interpreter puts 228 KiB there (sm_90's shared memory per SM).
    if let Some(sizes) = target.family.smem_size_bank() {
        let mut put = |at: i32, v: u32| b[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        if let Some(at) = sizes.reserved {
            put(at, target.reserved_shared);
        }
        if let Some(at) = sizes.aggr_limit {
            put(at, AGGR_SMEM_LIMIT);
        }
    }
    let top = target.stack_top as usize;
    b[top..top + 4].copy_from_slice(&launch.local_bytes.to_le_bytes());
    b[base..].copy_from_slice(&launch.params);
    b
}

/// Runs `prog` over the grid of `launch`, a cluster at a time (the
/// function's `.reqnctapercluster` shape, one CTA when it has none).
pub fn run_grid(
    func: &ori_ir::Function,
    prog: &Program,
    sm: u32,
    static_shared: u32,
    launch: &Launch,
    global: &mut Global,
) -> Result<Stats, Error> {
    let cluster = func.attrs.cluster_dims.unwrap_or([1, 1, 1]);
    let mut banks = vec![bank0(sm, launch, cluster, func.attrs.cluster_dims.is_some())];
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
    if (0..3).any(|k| cluster[k] == 0 || !launch.grid[k].is_multiple_of(cluster[k]))
        || cluster.iter().product::<u32>() > 16
    {
        return Err(Error::Launch(format!("a grid of {:?} CTAs in clusters of {cluster:?}", launch.grid)));
    }
    let ranks = cluster.iter().product::<u32>() as usize;
    let nwarps = threads.div_ceil(LANES as u32);
    // Bytes the driver reserves below a CTA's own shared memory (ptxas
    // addresses static shared memory from there).
    let shared_bytes = target(sm).reserved_shared as usize + static_shared as usize + launch.dyn_shared as usize;
    let mut stats = Stats::default();
    let mut cta = Cta {
        prog,
        banks: &banks,
        global,
        shared: Vec::new(),
        in_flight: Default::default(),
        rank: 0,
        cluster: ClusterState::default(),
        ctaid: [0; 3],
        local_bytes: launch.local_bytes as usize,
        warp_insts: 0,
        thread_insts: 0,
        issue_cycles: 0,
        est_cycles: 0,
        printf: Vec::new(),
        bar_red: vec![Default::default(); ranks],
    };
    let origins = |k: usize| (0..launch.grid[k]).step_by(cluster[k] as usize);
    for cz in origins(2) {
        for cy in origins(1) {
            for cx in origins(0) {
                // `%cluster_ctarank` runs x first.
                let ctaids: Vec<[u32; 3]> = (0..ranks as u32)
                    .map(|r| {
                        [cx + r % cluster[0], cy + r / cluster[0] % cluster[1], cz + r / (cluster[0] * cluster[1])]
                    })
                    .collect();
                cta.shared = vec![vec![0; shared_bytes]; ranks];
                cta.in_flight = Default::default();
                cta.cluster = ClusterState::new(ranks, nwarps as usize);
                let mut warps: Vec<Vec<Warp>> = (0..ranks).map(|_| new_warps(prog, launch.block, nwarps)).collect();
                run_cluster(func, &mut cta, &ctaids, &mut warps, launch.max_warp_insts)?;
            }
        }
    }
    stats.warp_insts = cta.warp_insts;
    stats.thread_insts = cta.thread_insts;
    stats.issue_cycles = cta.issue_cycles;
    stats.est_cycles = cta.est_cycles;
    stats.printf = cta.printf;
    Ok(stats)
}

/// The warps of a fresh CTA.
fn new_warps(prog: &Program, block: [u32; 3], nwarps: u32) -> Vec<Warp> {
    let [bx, by, bz] = block;
    let threads = bx * by * bz;
    (0..nwarps)
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
        .collect()
}

/// Runs the CTAs of a cluster (`warps` by rank) to completion: each warp
/// in turn until it exits, waits at a barrier or waits on other warps;
/// a CTA's barrier releases when all its live warps wait there.
fn run_cluster(
    func: &ori_ir::Function,
    cta: &mut Cta,
    ctaids: &[[u32; 3]],
    warps: &mut [Vec<Warp>],
    limit: u64,
) -> Result<(), Error> {
    let mut at_bar: Vec<Vec<bool>> = warps.iter().map(|ws| vec![false; ws.len()]).collect();
    loop {
        let mut progress = false;
        for (rank, ws) in warps.iter_mut().enumerate() {
            cta.rank = rank;
            cta.ctaid = ctaids[rank];
            for (wi, w) in ws.iter_mut().enumerate() {
                if at_bar[rank][wi] {
                    continue;
                }
                while let Some(g) = w.next_group() {
                    if cta.warp_insts > limit {
                        return Err(Error::Timeout { limit });
                    }
                    match cta.step(w, g) {
                        Ok(()) => progress = true,
                        Err(Stop::Barrier) => {
                            at_bar[rank][wi] = true;
                            progress = true;
                            break;
                        }
                        Err(Stop::Blocked) => break,
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
                if w.groups.is_empty() {
                    // An exited warp counts as arrived at every cluster barrier.
                    cta.cluster.arrivals[rank * cta.cluster.warps_per_cta + wi] = u32::MAX;
                }
            }
        }
        let mut live_ctas = 0;
        for (rank, ws) in warps.iter_mut().enumerate() {
            let live: Vec<usize> = (0..ws.len()).filter(|&i| !ws[i].groups.is_empty()).collect();
            if live.is_empty() {
                continue;
            }
            live_ctas += 1;
            if live.iter().all(|&i| at_bar[rank][i]) {
                // Every live warp of the CTA waits at a barrier: release them.
                cta.bar_red[rank].release();
                for &i in &live {
                    let w = &mut ws[i];
                    if let Some(g) = w.next_group() {
                        let (pc, mask) = w.groups[g];
                        w.reschedule(g, &[(mask, pc + 1)]);
                    }
                    at_bar[rank][i] = false;
                }
                progress = true;
            }
        }
        if live_ctas == 0 {
            return Ok(());
        }
        if !progress {
            return Err(Error::Launch(format!(
                "the cluster at CTA {:?} deadlocks: every warp waits on another",
                ctaids[0]
            )));
        }
    }
}
