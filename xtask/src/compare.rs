//! `cargo xtask compare [--runs N] [-O0..3] [FILE_OR_DIR...]`: our ptxas
//! against NVIDIA's on the same PTX: wall time (median of N runs, as a
//! ratio), registers per entry from `-v`, and which files only one of the
//! two compiles. Defaults to the corpus kernels.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut runs = 3;
    let mut opt = "-O3".to_string();
    let mut inputs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).ok_or("--runs takes a number")?,
            o if o.starts_with("-O") => opt = o.to_string(),
            path => inputs.push(PathBuf::from(path)),
        }
    }
    if inputs.is_empty() {
        inputs.push(crate::workspace_root().join("../shared/corpus/kernels"));
    }
    let files = ptx_files(&inputs)?;
    let oracle = crate::oracle::ensure()?;
    let ours = crate::compile::release_ptxas()?;
    let scratch = crate::workspace_root().join("target/compare");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;

    println!("{:<36} {:>10} {:>10} {:>7}  registers (ours/NVIDIA)", "file", "ours ms", "NVIDIA ms", "ratio");
    let mut ratios = Vec::new();
    let (mut both, mut only_nvidia) = (0, 0);
    for file in &files {
        let arch = arch_of(file)?;
        let run = |ptxas: &Path| measure(ptxas, file, &arch, &opt, runs, &scratch);
        let theirs = run(&oracle.ptxas());
        let mine = run(&ours);
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        match (mine, theirs) {
            (Ok(m), Ok(t)) => {
                both += 1;
                let ratio = m.time.as_secs_f64() / t.time.as_secs_f64();
                ratios.push(ratio);
                println!(
                    "{name:<36} {:>10.2} {:>10.2} {ratio:>7.3}  {:?} / {:?}",
                    ms(m.time),
                    ms(t.time),
                    m.registers,
                    t.registers
                );
            }
            (Err(why), Ok(t)) => {
                only_nvidia += 1;
                println!("{name:<36} {:>10} {:>10.2} {:>7}  ours failed: {why}", "-", ms(t.time), "-");
            }
            (_, Err(why)) => println!("{name:<36} NVIDIA's ptxas failed: {why}"),
        }
    }
    let geomean = if ratios.is_empty() {
        "n/a".to_string()
    } else {
        format!("{:.3}", (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
    };
    println!("{} files: both compiled {both} (time ratio geomean {geomean}), only NVIDIA {only_nvidia}", files.len());
    Ok(())
}

/// One compiler's figures on one file.
struct Measured {
    time: Duration,
    registers: Vec<u32>,
}

fn measure(ptxas: &Path, file: &Path, arch: &str, opt: &str, runs: usize, scratch: &Path) -> Result<Measured, String> {
    let out = scratch.join("out.cubin");
    let mut times = Vec::with_capacity(runs);
    let mut registers = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let result = Command::new(ptxas)
            .args([&format!("-arch={arch}"), opt, "-v", "-o"])
            .arg(&out)
            .arg(file)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
        times.push(start.elapsed());
        if !result.status.success() {
            let stderr = String::from_utf8_lossy(&result.stderr);
            return Err(stderr.lines().next().unwrap_or("failed").to_string());
        }
        registers = String::from_utf8_lossy(&result.stderr)
            .lines()
            .filter_map(|l| l.split("Used ").nth(1)?.split(' ').next()?.parse().ok())
            .collect();
    }
    times.sort();
    Ok(Measured { time: times[times.len() / 2], registers })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `-arch` a file is compiled with: its own `.target`.
fn arch_of(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix(".target"))
        .and_then(|t| t.split([',', ' ', '\t']).find(|w| w.starts_with("sm_")))
        .map(str::to_string)
        .ok_or_else(|| format!("{}: no .target", file.display()))
}

fn ptx_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| format!("{}: {e}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect();
            entries.sort();
            files.extend(entries);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}
