//! Shared by the integration tests: the corpus, and compiling it with
//! NVIDIA's ptxas for every SM and mode we check.

#![allow(dead_code)] // each test binary uses a different part

use nv_oracle::Oracle;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The SMs the issue asks for, and the other sm_100+ ones ptxas 13.5 accepts
/// (sm_103, sm_121).
pub const SMS: &[u32] = &[75, 80, 86, 89, 90, 100, 103, 120, 121];

/// [`SMS`], or the SMs listed in `$ELFW_SMS` (e.g. `90,100`) to look at a few.
pub fn sms() -> Vec<u32> {
    match std::env::var("ELFW_SMS") {
        Ok(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) => SMS.to_vec(),
    }
}

/// Whole-program (ET_EXEC) or `-c` (ET_REL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Whole,
    Relocatable,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Whole => "whole",
            Mode::Relocatable => "-c",
        }
    }
}

/// One cubin NVIDIA's ptxas made.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub kernel: String,
    pub sm: u32,
    pub mode: Mode,
    pub path: PathBuf,
    /// The options ptxas was given (besides input and output).
    pub args: Vec<String>,
}

/// The corpus directory: `$ELFW_CORPUS`, else `../shared/corpus/kernels`
/// next to the workspace; `None` (with a message) when absent.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ELFW_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels"));
    if dir.is_dir() {
        Some(dir)
    } else {
        let required = std::env::var(nv_oracle::REQUIRED_ENV).is_ok_and(|v| v == "1");
        assert!(!required, "{test}: corpus {} missing", dir.display());
        eprintln!("{test}: skipped, corpus {} not found (set ELFW_CORPUS)", dir.display());
        None
    }
}

/// The PTX file to compile `kernel` from for `sm`, and the `-arch` value; `None`
/// when the corpus has no PTX that targets it. sm_75 uses the sm_80 PTX with
/// its `.target` lowered (written into `work`).
fn source(corpus: &Path, kernel: &str, sm: u32, mode: Mode, work: &Path) -> Option<(PathBuf, String)> {
    let p80 = corpus.join(format!("{kernel}.sm80.ptx"));
    let p90 = corpus.join(format!("{kernel}.sm90.ptx"));
    let p90a = corpus.join(format!("{kernel}.sm90a.ptx"));
    match sm {
        75 => {
            let text = std::fs::read_to_string(&p80).ok()?;
            let lowered = text.replacen(".target sm_80", ".target sm_75", 1);
            // One file per mode: both modes are compiled concurrently.
            let out = work.join(format!("{kernel}.sm75.{}.ptx", if mode == Mode::Whole { "exe" } else { "rel" }));
            std::fs::write(&out, lowered).ok()?;
            Some((out, "sm_75".into()))
        }
        80..=89 => p80.is_file().then(|| (p80, format!("sm_{sm}"))),
        90 if p90a.is_file() => Some((p90a, "sm_90a".into())),
        _ => p90.is_file().then(|| (p90, format!("sm_{sm}"))),
    }
}

/// Kernel names of the corpus (sorted).
pub fn kernels(corpus: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_suffix(".ptx").and_then(|s| s.split('.').next()).map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.dedup();
    names
}

/// Compiles every corpus kernel for every SM in `sms` and both modes into
/// `work`, two ptxas processes at a time. Kernels ptxas rejects for a target
/// (sm_80 features lowered to sm_75) are left out and counted in the second value.
pub fn compile_all(oracle: &Oracle, corpus: &Path, work: &Path, sms: &[u32]) -> (Vec<Compiled>, usize) {
    std::fs::create_dir_all(work).expect("create work dir");
    let mut jobs = Vec::new();
    for kernel in kernels(corpus) {
        for &sm in sms {
            for mode in [Mode::Whole, Mode::Relocatable] {
                jobs.push((kernel.clone(), sm, mode));
            }
        }
    }
    let queue = Mutex::new(jobs.into_iter());
    let done = Mutex::new((Vec::new(), 0usize));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some((kernel, sm, mode)) = queue.lock().unwrap().next() else { break };
                    let Some((src, arch)) = source(corpus, &kernel, sm, mode, work) else { continue };
                    let out =
                        work.join(format!("{kernel}.sm{sm}.{}.cubin", if mode == Mode::Whole { "exe" } else { "rel" }));
                    let mut args = vec![format!("-arch={arch}")];
                    if mode == Mode::Relocatable {
                        args.push("-c".into());
                    }
                    let mut full: Vec<String> = args.clone();
                    full.push(src.display().to_string());
                    full.push("-o".into());
                    full.push(out.display().to_string());
                    let refs: Vec<&str> = full.iter().map(String::as_str).collect();
                    let run = oracle.run_ptxas(&refs, work).expect("run ptxas");
                    let stderr = String::from_utf8_lossy(&run.stderr);
                    let mut d = done.lock().unwrap();
                    if run.status.success() {
                        d.0.push(Compiled { kernel, sm, mode, path: out, args });
                    } else {
                        // Only sm_80 features in PTX lowered to sm_75 may be refused.
                        let lowered = sm == 75 && stderr.contains("requires .target sm_80 or higher");
                        assert!(lowered, "ptxas failed on {kernel} for sm_{sm} {}: {stderr}", mode.name());
                        d.1 += 1;
                    }
                }
            });
        }
    });
    let (mut list, rejected) = done.into_inner().unwrap();
    list.sort_by(|a, b| (a.sm, a.mode.name(), &a.kernel).cmp(&(b.sm, b.mode.name(), &b.kernel)));
    (list, rejected)
}

/// The work directory for `test` under the cargo target dir.
pub fn work_dir(test: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(test)
}
