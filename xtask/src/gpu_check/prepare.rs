//! `gpu-check --prepare DIR`: compiles each manifest kernel with NVIDIA's
//! ptxas and with ours (the library, in process: always the current
//! sources), and writes every launch as a job the Python runner can
//! execute without Rust: `DIR/jobs.json`, `DIR/cubins/`, `DIR/inputs/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use elfw::nvinfo::{KParamInfo, Value, code};

use super::job::{self, Buffer, Cubin, Job, Jobs, Param};
use crate::difftest::manifest::{self as m, Arg, Case};

/// What to prepare.
pub struct Prepare<'a> {
    /// The corpus manifest (its folder holds the PTX).
    pub manifest: &'a Path,
    /// Kernel or entry names; all when empty.
    pub names: &'a [String],
    /// SM numbers to prepare (`90` covers `sm_90a`); all when empty.
    pub sms: &'a [u32],
    /// NVIDIA's ptxas.
    pub nvidia_ptxas: &'a Path,
    pub warmup: u32,
    pub reps: u32,
    pub timeout_s: u32,
}

/// The SM number of `sm_90a` (90).
pub fn sm_number(arch: &str) -> Option<u32> {
    arch.strip_prefix("sm_")?.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()
}

/// Compiles a cubin for each (kernel, arch) once, whatever the number of
/// launches that use it.
struct Cubins<'a> {
    dir: &'a Path,
    nvidia_ptxas: &'a Path,
    done: HashMap<(String, String, bool), Result<String, String>>,
}

impl Cubins<'_> {
    /// The cubin's path relative to the job directory, or why there is none.
    fn get(&mut self, ptx: &Path, kernel: &str, arch: &str, ours: bool) -> Result<String, String> {
        let key = (kernel.to_string(), arch.to_string(), ours);
        if let Some(done) = self.done.get(&key) {
            return done.clone();
        }
        let rel = format!("cubins/{kernel}.{arch}.{}.cubin", if ours { "ours" } else { "nvidia" });
        let out = self.dir.join(&rel);
        let result =
            if ours { compile_ours(ptx, arch, &out) } else { compile_nvidia(self.nvidia_ptxas, ptx, arch, &out) };
        let result = result.map(|()| rel);
        self.done.insert(key, result.clone());
        result
    }
}

fn compile_nvidia(ptxas: &Path, ptx: &Path, arch: &str, out: &Path) -> Result<(), String> {
    let run = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    if run.status.success() {
        Ok(())
    } else {
        Err(format!("NVIDIA's ptxas failed: {}", String::from_utf8_lossy(&run.stderr).trim()))
    }
}

/// Our compiler at its defaults (-O3), as `ptxas -arch=ARCH file.ptx` runs it.
fn compile_ours(ptx: &Path, arch: &str, out: &Path) -> Result<(), String> {
    let cubin = crate::difftest::phases::compile_ours(ptx, arch)?;
    std::fs::write(out, cubin).map_err(|e| format!("{}: {e}", out.display()))
}

/// The parameter slots (offset, size) of `entry`, from the cubin's
/// `EIATTR_KPARAM_INFO` (read directly: the code need not decode).
pub fn param_slots(cubin: &[u8], entry: &str) -> Result<Vec<(u32, u32)>, String> {
    let elf = elfw::read(cubin).map_err(|e| format!("reading the cubin: {e}"))?;
    if elf.section(&format!(".text.{entry}")).is_none() {
        return Err(format!("no .text.{entry} in the cubin"));
    }
    let Some(attrs) = elf.section(&format!(".nv.info.{entry}")).and_then(|(_, s)| s.attributes()) else {
        return Ok(Vec::new());
    };
    let mut slots: Vec<(u16, u32, u32)> = attrs
        .iter()
        .filter(|a| a.code == code::KPARAM_INFO)
        .filter_map(|a| match &a.value {
            Value::Block(b) => KParamInfo::decode(b),
            _ => None,
        })
        .map(|p| (p.ordinal, u32::from(p.offset), p.size()))
        .collect();
    slots.sort_by_key(|s| s.0);
    Ok(slots.into_iter().map(|s| (s.1, s.2)).collect())
}

/// The parameter plan of `case` for one cubin: each argument at its slot.
fn plan(dir: &Path, rel: &str, case: &Case) -> Result<Cubin, String> {
    let bytes = std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    let slots = param_slots(&bytes, &case.entry)?;
    if slots.len() != case.args.len() {
        return Err(format!(
            "the cubin's {} has {} parameters, the manifest {}",
            case.entry,
            slots.len(),
            case.args.len()
        ));
    }
    let mut params = Vec::new();
    let mut buffer = 0;
    for (arg, &(offset, size)) in case.args.iter().zip(&slots) {
        let param = match arg {
            Arg::Buffer { .. } => {
                buffer += 1;
                Param { offset, size, buffer: Some(buffer - 1), hex: None }
            }
            Arg::Scalar { ty, value, int } => {
                let mut v = ty.encode(*value, *int);
                v.resize(size as usize, 0);
                Param { offset, size, buffer: None, hex: Some(v.iter().map(|b| format!("{b:02x}")).collect()) }
            }
            Arg::Struct => return Err("a by-value struct (custom)".into()),
        };
        params.push(param);
    }
    let param_bytes = slots.iter().map(|s| s.0 + s.1).max().unwrap_or(0);
    Ok(Cubin { path: Some(rel.to_string()), error: None, param_bytes, params })
}

fn cubin_for(cubins: &mut Cubins, dir: &Path, ptx: &Path, case: &Case, arch: &str, ours: bool) -> Cubin {
    match cubins.get(ptx, &case.kernel, arch, ours).and_then(|rel| plan(dir, &rel, case)) {
        Ok(c) => c,
        Err(e) => Cubin { error: Some(e), ..Cubin::default() },
    }
}

/// Sizes of what was written, for the summary.
#[derive(Default, Debug)]
pub struct Summary {
    pub jobs: usize,
    pub skipped: usize,
    pub ours_missing: usize,
    pub input_bytes: u64,
    pub cubin_bytes: u64,
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).into_iter().flatten().flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum()
}

/// Writes the job directory.
pub fn prepare(dir: &Path, p: &Prepare) -> Result<Summary, String> {
    let text = std::fs::read_to_string(p.manifest).map_err(|e| format!("{}: {e}", p.manifest.display()))?;
    let root: PathBuf = p.manifest.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let cases = m::parse_manifest(&text)?;
    // Stale cubins, inputs or results must never be compared with new jobs.
    for sub in ["cubins", "inputs", "results"] {
        let d = dir.join(sub);
        if d.exists() {
            std::fs::remove_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
    }
    for sub in ["cubins", "inputs"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut cubins = Cubins { dir, nvidia_ptxas: p.nvidia_ptxas, done: HashMap::new() };
    let mut jobs = Vec::new();
    let mut summary = Summary::default();
    for (index, case) in cases.iter().enumerate() {
        if !p.names.is_empty() && !p.names.iter().any(|n| *n == case.kernel || *n == case.entry) {
            continue;
        }
        for arch in &case.archs {
            if !p.sms.is_empty() && !sm_number(arch).is_some_and(|n| p.sms.contains(&n)) {
                continue;
            }
            let mut job = Job {
                id: format!("{index:03}-{}-{arch}", case.kernel),
                kernel: case.kernel.clone(),
                entry: case.entry.clone(),
                arch: arch.clone(),
                grid: case.grid,
                block: case.block,
                shared_bytes: case.shared,
                compare: case.compare_text.clone(),
                skip: case.skip_reason().map(str::to_string),
                buffers: Vec::new(),
                nvidia: Cubin::default(),
                ours: Cubin::default(),
            };
            if job.skip.is_some() {
                summary.skipped += 1;
                jobs.push(job);
                continue;
            }
            let inputs = m::make_inputs(case);
            for ((arg, key), data) in case.args.iter().zip(m::input_keys(case)).zip(&inputs) {
                let (Arg::Buffer { name, ty, count, output, .. }, Some(data)) = (arg, data) else { continue };
                let input = match key {
                    Some(key) => {
                        let rel = format!("inputs/{:016x}.bin", m::fnv1a(&key));
                        let path = dir.join(&rel);
                        if !path.exists() {
                            std::fs::write(&path, data).map_err(|e| format!("{}: {e}", path.display()))?;
                        }
                        Some(rel)
                    }
                    None => None,
                };
                job.buffers.push(Buffer {
                    name: name.clone(),
                    ty: format!("{ty:?}").to_lowercase(),
                    bytes: (count * ty.size()) as u64,
                    output: *output,
                    input,
                });
            }
            let ptx = case.ptx(&root, arch);
            job.nvidia = cubin_for(&mut cubins, dir, &ptx, case, arch, false);
            job.ours = cubin_for(&mut cubins, dir, &ptx, case, arch, true);
            if job.ours.path.is_none() {
                summary.ours_missing += 1;
            }
            summary.jobs += 1;
            jobs.push(job);
        }
    }
    if jobs.is_empty() {
        return Err(format!("no manifest launch matches {:?} on SMs {:?}", p.names, p.sms));
    }
    let file = Jobs {
        format: job::FORMAT,
        manifest: p.manifest.display().to_string(),
        warmup: p.warmup,
        reps: p.reps,
        timeout_s: p.timeout_s,
        jobs,
    };
    job::write_json(&dir.join("jobs.json"), &file)?;
    summary.input_bytes = dir_bytes(&dir.join("inputs"));
    summary.cubin_bytes = dir_bytes(&dir.join("cubins"));
    Ok(summary)
}
