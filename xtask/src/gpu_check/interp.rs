//! Jobs on the Ori interpreter: `--simulate` writes results as the GPU
//! runner would (to check a job directory, and the compare step, without a
//! GPU), and `--compare` runs NVIDIA's cubin here as a reference for the
//! GPU's outputs. Both use the job's own parameter plan, exactly as the
//! runner lays it out.

use std::path::Path;

use ori_interp::{Global, Launch};

use super::job::{self, Cubin, Device, Job, JobResult, Jobs, Output, Results, RunResult};
use super::sha256;

/// Every buffer of `job` after running `cubin` on its inputs.
pub fn run(dir: &Path, job: &Job, cubin: &Cubin) -> Result<Vec<Vec<u8>>, String> {
    let rel = cubin.path.as_ref().ok_or("no cubin")?;
    let bytes = std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    let kernel = ori_interp::load_kernel(&bytes, &job.entry).map_err(|e| e.to_string())?;
    let mut global = Global::new();
    let mut addrs = Vec::new();
    for b in &job.buffers {
        let data = match &b.input {
            Some(rel) => std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?,
            None => vec![0; b.bytes as usize],
        };
        addrs.push(global.alloc(data));
    }
    let mut params = vec![0u8; cubin.param_bytes as usize];
    for p in &cubin.params {
        let value = match (p.buffer, &p.hex) {
            (Some(i), _) => addrs.get(i).ok_or("parameter names a missing buffer")?.to_le_bytes().to_vec(),
            (None, Some(hex)) => (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("bad parameter bytes: {e}"))?,
            (None, None) => return Err("a parameter with neither a buffer nor bytes".into()),
        };
        let at = p.offset as usize;
        let n = value.len().min(p.size as usize);
        params.get_mut(at..at + n).ok_or("parameter outside the block")?.copy_from_slice(&value[..n]);
    }
    let mut launch = Launch::new(job.grid, job.block, params);
    launch.dyn_shared = job.shared_bytes;
    ori_interp::run_kernel(&kernel, &launch, &mut global).map_err(|e| e.to_string())?;
    Ok(addrs.iter().map(|&a| global.buffer(a).unwrap_or(&[]).to_vec()).collect())
}

/// The relative path where the runner keeps output `k` of `which`'s run of `job`.
pub fn output_file(job: &Job, which: &str, k: usize) -> String {
    format!("results/out/{}.{which}.{k}.bin", job.id)
}

fn simulate_one(dir: &Path, job: &Job, which: &str, cubin: &Cubin) -> Result<RunResult, String> {
    if cubin.path.is_none() {
        return Ok(RunResult { status: "skipped".into(), error: cubin.error.clone(), ..RunResult::default() });
    }
    let buffers = match run(dir, job, cubin) {
        Ok(b) => b,
        Err(e) => return Ok(RunResult { status: "error".into(), error: Some(e), ..RunResult::default() }),
    };
    let mut outputs = Vec::new();
    for (k, (b, data)) in job.buffers.iter().zip(&buffers).enumerate() {
        if !b.output {
            continue;
        }
        let rel = output_file(job, which, k);
        std::fs::write(dir.join(&rel), data).map_err(|e| format!("{rel}: {e}"))?;
        outputs.push(Output { buffer: k, bytes: data.len() as u64, sha256: sha256::hex(data), file: Some(rel) });
    }
    Ok(RunResult { status: "ok".into(), outputs, ..RunResult::default() })
}

/// Runs every job of `dir` on the interpreter and writes
/// `results/results.json` (no timings).
pub fn simulate(dir: &Path) -> Result<usize, String> {
    let jobs = Jobs::read(dir)?;
    std::fs::create_dir_all(dir.join("results/out")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut results = Results {
        format: job::FORMAT,
        device: Device { name: "Ori interpreter (gpu-check --simulate)".into(), cc: [0, 0], driver: 0 },
        ..Results::default()
    };
    for job in jobs.jobs.iter().filter(|j| j.skip.is_none()) {
        let nvidia = simulate_one(dir, job, "nvidia", &job.nvidia)?;
        let ours = simulate_one(dir, job, "ours", &job.ours)?;
        results.jobs.insert(job.id.clone(), JobResult { nvidia, ours });
    }
    job::write_json(&dir.join("results/results.json"), &results)?;
    Ok(results.jobs.len())
}
