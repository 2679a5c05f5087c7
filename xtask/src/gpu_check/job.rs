//! The files `gpu-check` exchanges with the Python runner
//! (`xtask/gpu/run_jobs.py`): `DIR/jobs.json`, written by `--prepare`, and
//! `DIR/results/results.json`, written by the runner (or by `--simulate`).
//! Both sides read and write these shapes; `docs/gpu-check.md` describes
//! them field by field.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The version both sides check, bumped on any incompatible change.
pub const FORMAT: u32 = 1;

/// `jobs.json`: every launch to run, with its cubins and inputs.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Jobs {
    pub format: u32,
    /// The manifest the jobs come from (for messages).
    pub manifest: String,
    /// Untimed launches before the timed ones.
    pub warmup: u32,
    /// Timed launches (the median is reported).
    pub reps: u32,
    /// Seconds one cubin's run may take before its process is killed.
    pub timeout_s: u32,
    pub jobs: Vec<Job>,
}

/// One manifest launch on one architecture.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Job {
    /// Unique, usable as a file name: `<launch index>-<kernel>-<arch>`.
    pub id: String,
    pub kernel: String,
    pub entry: String,
    /// `sm_80`, `sm_90`, `sm_90a`.
    pub arch: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared_bytes: u32,
    /// The manifest's `compare` (`exact`, `float(R)`, `set`).
    pub compare: String,
    /// Why the launch is not run (custom inputs, printf output), if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// The buffer arguments, in argument order.
    pub buffers: Vec<Buffer>,
    pub nvidia: Cubin,
    pub ours: Cubin,
}

/// A device buffer.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Buffer {
    pub name: String,
    /// The manifest's element type (`f32`, `u8`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    pub bytes: u64,
    /// `out` or `inout`: read back after the launch.
    pub output: bool,
    /// Initial contents, relative to the job directory; none: zeros.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

/// One compiler's cubin for a job.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Cubin {
    /// Relative to the job directory; none when there is no cubin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Why there is no cubin (the compiler's first message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Size of the parameter block.
    pub param_bytes: u32,
    /// The parameters, from the cubin's `EIATTR_KPARAM_INFO`.
    pub params: Vec<Param>,
}

/// One kernel parameter: a buffer's device address, or literal bytes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub offset: u32,
    pub size: u32,
    /// Index into [`Job::buffers`]: the parameter is that buffer's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<usize>,
    /// The value's bytes in hex (little-endian), when not a buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
}

/// `results/results.json`.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Results {
    pub format: u32,
    /// What ran the jobs.
    pub device: Device,
    /// By job id.
    pub jobs: BTreeMap<String, JobResult>,
}

/// The device (or the interpreter, for `--simulate`).
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Device {
    pub name: String,
    /// Compute capability, `[9, 0]`; `[0, 0]` for the interpreter.
    pub cc: [u32; 2],
    /// `cuDriverGetVersion`, 0 for the interpreter.
    pub driver: u32,
}

/// Both cubins' runs of a job.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct JobResult {
    pub nvidia: RunResult,
    pub ours: RunResult,
}

/// One cubin's run.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct RunResult {
    /// `ok`, `error` (load, launch or fault), `timeout`, `skipped`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every output buffer, in [`Job::buffers`] order.
    #[serde(default)]
    pub outputs: Vec<Output>,
    /// Each timed launch, in milliseconds.
    #[serde(default)]
    pub times_ms: Vec<f64>,
    /// Registers per thread, as the driver reports the loaded function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u32>,
}

/// An output buffer after the first launch.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Output {
    /// Index into [`Job::buffers`].
    pub buffer: usize,
    pub bytes: u64,
    /// SHA-256 of the bytes, in hex.
    pub sha256: String,
    /// The bytes, relative to the job directory, when the runner kept them
    /// (small buffers, and any buffer where the two cubins differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Jobs {
    /// Reads `dir/jobs.json`.
    pub fn read(dir: &Path) -> Result<Jobs, String> {
        let path = dir.join("jobs.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let jobs: Jobs = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if jobs.format != FORMAT {
            return Err(format!("{}: format {}, expected {FORMAT}", path.display(), jobs.format));
        }
        Ok(jobs)
    }
}

impl Results {
    /// Reads `dir/results/results.json`.
    pub fn read(dir: &Path) -> Result<Results, String> {
        let path = dir.join("results/results.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let results: Results = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if results.format != FORMAT {
            return Err(format!("{}: format {}, expected {FORMAT}", path.display(), results.format));
        }
        Ok(results)
    }
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}
