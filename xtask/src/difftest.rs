//! `cargo xtask difftest [--sm N] [KERNEL...]`: compiles corpus kernels with
//! NVIDIA's ptxas, runs the cubins under the Ori interpreter on the
//! launches of `ori_interp::corpus`, and checks the outputs against the CPU
//! references of the manifest's checks. When our own debug `ptxas` (in
//! cargo's target directory, so `CARGO_TARGET_DIR` is honoured) compiles
//! the PTX to a cubin, that cubin is run and checked the same way.
//!
//! `cargo xtask difftest --manifest [M.toml] [--target sm_XY] [KERNEL...]`:
//! every launch of the manifest at its own size, NVIDIA's cubin against
//! ours ([`manifest`]); with `--target`, the kernels of
//! `tests/targets/smXY` for that SM.

pub(crate) mod manifest;
pub(crate) mod phases;

use std::path::{Path, PathBuf};
use std::time::Instant;

use ori_interp::corpus::{CASES, Case, compile};

/// The outcome of one cubin: `Ok((warp-instructions, lane-instructions,
/// seconds interpreting))` or why it failed.
type Outcome = Result<(u64, u64, f64), String>;

fn run_one(ptxas: &Path, corpus: &Path, case: &Case, sm: u32, dir: &Path) -> Outcome {
    let kernel = compile(ptxas, corpus, case.file, case.entry, sm, dir)?;
    let start = Instant::now();
    let stats = (case.run)(&kernel)?;
    Ok((stats.warp_insts, stats.thread_insts, start.elapsed().as_secs_f64()))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut sms = vec![90, 80];
    let mut names = Vec::new();
    let mut manifest: Option<PathBuf> = None;
    let mut all_phases = false;
    let mut target: Option<String> = None;
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--manifest" => {
                let path = it.next_if(|p| p.ends_with(".toml")).map(PathBuf::from);
                manifest = Some(path.unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/manifest.toml")));
            }
            "--phases" => all_phases = true,
            "--target" => target = Some(it.next().ok_or("--target needs an SM (sm_75)")?.clone()),
            "--sm" => {
                let n = it.next().ok_or("--sm needs a number")?;
                sms = vec![n.parse().map_err(|_| format!("bad SM `{n}`"))?];
            }
            other => names.push(other.to_string()),
        }
    }
    if target.is_some() && manifest.is_none() {
        manifest = Some(crate::workspace_root().join("../shared/corpus/manifest.toml"));
    }
    if let Some(manifest) = manifest {
        let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are missing: run `cargo xtask oracle`")?;
        let root = crate::workspace_root();
        let dir = root.join("target/difftest/manifest");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        return manifest::run_manifest(&manifest, target.as_deref(), &names, &oracle.ptxas(), &dir, all_phases);
    }
    let cases: Vec<&Case> =
        CASES.iter().filter(|c| names.is_empty() || names.iter().any(|n| n == c.file || n == c.entry)).collect();
    if cases.is_empty() {
        let known: Vec<&str> = CASES.iter().map(|c| c.entry).collect();
        return Err(format!("no corpus case matches {names:?}; known: {}", known.join(", ")));
    }
    let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are missing: run `cargo xtask oracle`")?;
    let root = crate::workspace_root();
    let corpus = root.join("../shared/corpus");
    let ours = crate::target_dir()?.join("debug/ptxas");
    let dir = root.join("target/difftest");
    let (nv_dir, our_dir) = (dir.join("nvidia"), dir.join("ours"));
    for d in [&nv_dir, &our_dir] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let (mut pass, mut fail, mut ours_pass, mut no_cubin) = (0, 0, 0, 0);
    let (mut warp_insts, mut lane_insts, mut secs) = (0u64, 0u64, 0f64);
    for case in &cases {
        for &sm in &sms {
            let nv = run_one(&oracle.ptxas(), &corpus, case, sm, &nv_dir);
            let mine: Option<Outcome> = ours.is_file().then(|| run_one(&ours, &corpus, case, sm, &our_dir));
            let mine_text = match &mine {
                None => "no ptxas built".to_string(),
                Some(Err(e)) if is_no_cubin(e) => {
                    no_cubin += 1;
                    format!("no cubin ({})", first_error(e))
                }
                Some(o) => {
                    if o.is_ok() {
                        ours_pass += 1;
                    }
                    show(o)
                }
            };
            // A cubin of ours that runs and fails its check fails the kernel.
            let ok = nv.is_ok() && mine.as_ref().is_none_or(|o| o.as_ref().map_or_else(|e| is_no_cubin(e), |_| true));
            if let Ok((w, l, t)) = nv {
                (warp_insts, lane_insts, secs) = (warp_insts + w, lane_insts + l, secs + t);
            }
            let label = format!("{} sm_{sm}", case.entry);
            println!("{label:<24} nvidia: {}  ours: {mine_text}", show(&nv));
            if ok {
                pass += 1;
            } else {
                fail += 1;
            }
        }
    }
    println!(
        "interpreted {warp_insts} warp-instructions ({lane_insts} lane-instructions) of NVIDIA's code in {secs:.2} s: \
         {:.1} M warp-instructions/s",
        warp_insts as f64 / secs.max(1e-9) / 1e6
    );
    println!("our cubins: {ours_pass} pass, {no_cubin} not produced by our ptxas yet");
    println!("{} kernels: pass {pass}, fail {fail}", pass + fail);
    if fail == 0 { Ok(()) } else { Err(format!("{fail} kernel(s) failed")) }
}

/// True when our compiler produced no cubin (PTX lowering not there yet):
/// that is not a failure of the cubin.
fn is_no_cubin(e: &str) -> bool {
    e.contains(" failed: ") || e.starts_with("running ")
}

/// The first diagnostic of a failed compile, without the file name.
fn first_error(e: &str) -> String {
    let line = e.split_once(" failed: ").map_or(e, |x| x.1).lines().next().unwrap_or("");
    let line = line.split_once("; ").map_or(line, |x| x.1).trim();
    line.chars().take(70).collect()
}

fn show(o: &Outcome) -> String {
    match o {
        Ok((n, _, _)) => format!("pass ({n} warp-insts)"),
        Err(e) => format!("FAIL: {e}"),
    }
}
