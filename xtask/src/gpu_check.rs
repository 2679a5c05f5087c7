//! `cargo xtask gpu-check`: runs every manifest launch from NVIDIA's cubin
//! and from ours on a real GPU, checks the outputs and times both.
//!
//! The GPU machines have Python and the CUDA driver but no Rust, so the
//! work is split in three (`docs/gpu-check.md`):
//!
//! - `--prepare DIR` (here): cubins, inputs and one job per launch
//!   ([`prepare`], [`job`]);
//! - `python3 xtask/gpu/run_jobs.py DIR` (on the GPU machine): loads the
//!   cubins through the driver, launches, reads back, times;
//! - `--compare DIR` (here): checks and tabulates ([`compare`]).
//!
//! Plain `gpu-check` does all three when a GPU is usable here, and
//! otherwise says so and succeeds. `--simulate DIR` produces the results
//! with the Ori interpreter instead of a GPU.

mod compare;
mod interp;
mod job;
mod prepare;
mod sha256;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The runner, relative to the workspace root.
const RUNNER: &str = "xtask/gpu/run_jobs.py";

const USAGE: &str =
    "usage: cargo xtask gpu-check [--prepare DIR] [--simulate DIR] [--compare DIR] [options] [KERNEL...]
  (no step)        prepare, run and compare in target/gpu-check when a GPU is usable here
  --prepare DIR    compile both cubins per launch, write DIR/jobs.json, DIR/cubins, DIR/inputs
  --simulate DIR   write DIR/results from the Ori interpreter instead of a GPU
  --compare DIR    check DIR/results against the jobs, print the table, write DIR/gpu-check.md
options: --manifest M.toml  --sm N[,N]|all (default 90)  --reps N (20)  --warmup N (3)
         --timeout S (30, per cubin run)  --no-interp  --write FILE (copy of the Markdown table)";

/// The parsed command line.
struct Args {
    prepare: Option<PathBuf>,
    simulate: Option<PathBuf>,
    compare: Option<PathBuf>,
    manifest: PathBuf,
    sms: Vec<u32>,
    reps: u32,
    warmup: u32,
    timeout_s: u32,
    interp: bool,
    write: Option<PathBuf>,
    names: Vec<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let root = crate::workspace_root();
    let mut a = Args {
        prepare: None,
        simulate: None,
        compare: None,
        manifest: root.join("../shared/corpus/manifest.toml"),
        sms: vec![90],
        reps: 20,
        warmup: 3,
        timeout_s: 30,
        interp: true,
        write: None,
        names: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or_else(|| format!("{arg} needs {what}\n{USAGE}"));
        let number = |v: String| v.parse::<u32>().map_err(|_| format!("{arg}: bad number `{v}`"));
        match arg.as_str() {
            "--prepare" => a.prepare = Some(value("a directory")?.into()),
            "--simulate" => a.simulate = Some(value("a directory")?.into()),
            "--compare" => a.compare = Some(value("a directory")?.into()),
            "--manifest" => a.manifest = value("a file")?.into(),
            "--sm" => {
                let v = value("SM numbers")?;
                a.sms = if v == "all" {
                    Vec::new()
                } else {
                    v.split(',').map(|n| n.parse().map_err(|_| format!("bad SM `{n}`"))).collect::<Result<_, _>>()?
                };
            }
            "--reps" => a.reps = number(value("a count")?)?,
            "--warmup" => a.warmup = number(value("a count")?)?,
            "--timeout" => a.timeout_s = number(value("seconds")?)?,
            "--no-interp" => a.interp = false,
            "--write" => a.write = Some(value("a file")?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n{USAGE}")),
            name => a.names.push(name.to_string()),
        }
    }
    Ok(a)
}

fn do_prepare(dir: &Path, a: &Args) -> Result<(), String> {
    let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are missing: run `cargo xtask oracle`")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let p = prepare::Prepare {
        manifest: &a.manifest,
        names: &a.names,
        sms: &a.sms,
        nvidia_ptxas: &oracle.ptxas(),
        warmup: a.warmup,
        reps: a.reps,
        timeout_s: a.timeout_s,
    };
    let s = prepare::prepare(dir, &p)?;
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "prepared {} jobs in {} ({} skipped by the manifest, {} without a cubin of ours): \
         inputs {:.1} MiB, cubins {:.1} MiB",
        s.jobs,
        dir.display(),
        s.skipped,
        s.ours_missing,
        mib(s.input_bytes),
        mib(s.cubin_bytes)
    );
    if s.input_bytes + s.cubin_bytes > 60 << 20 {
        println!("warning: over 60 MiB: too large to carry to a GPU machine in one call (choose fewer kernels)");
    }
    Ok(())
}

fn do_compare(dir: &Path, a: &Args) -> Result<(), String> {
    let report = compare::compare(dir, a.interp)?;
    println!("{}", report.text());
    let md = report.markdown();
    let path = dir.join("gpu-check.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(w) = &a.write {
        std::fs::write(w, &md).map_err(|e| format!("{}: {e}", w.display()))?;
    }
    println!("table written to {}", path.display());
    let (_, fail) = report.counts();
    if fail == 0 { Ok(()) } else { Err(format!("{fail} kernel(s) failed")) }
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether the runner can use a GPU here; `Err` says why not.
fn probe() -> Result<String, String> {
    let runner = crate::workspace_root().join(RUNNER);
    let out = Command::new(python())
        .arg(&runner)
        .arg("--probe")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python()))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() { Ok(text) } else { Err(format!("{text}{}", String::from_utf8_lossy(&out.stderr).trim())) }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let a = parse(args)?;
    if a.prepare.is_none() && a.simulate.is_none() && a.compare.is_none() {
        let device = match probe() {
            Ok(d) => d,
            Err(why) => {
                println!("gpu-check: no GPU available here ({why}); nothing run.");
                println!(
                    "To run on a GPU machine: see docs/gpu-check.md (--prepare here, run_jobs.py there, --compare here)."
                );
                return Ok(());
            }
        };
        println!("gpu-check: {device}");
        let dir = crate::workspace_root().join("target/gpu-check");
        do_prepare(&dir, &a)?;
        let status = Command::new(python())
            .arg(crate::workspace_root().join(RUNNER))
            .arg(&dir)
            .status()
            .map_err(|e| format!("cannot run the runner: {e}"))?;
        if !status.success() {
            return Err(format!("the runner failed ({status})"));
        }
        return do_compare(&dir, &a);
    }
    if let Some(dir) = &a.prepare {
        do_prepare(dir, &a)?;
    }
    if let Some(dir) = &a.simulate {
        let n = interp::simulate(dir)?;
        println!("simulated {n} jobs on the Ori interpreter into {}", dir.join("results").display());
    }
    if let Some(dir) = &a.compare {
        do_compare(dir, &a)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
