//! `cargo xtask corpus-report [--write FILE]`: per corpus kernel, our
//! registers, spills, SASS instructions and compile time beside NVIDIA's
//! (`../shared/corpus/ptxas-stats.tsv`), with the geometric means of the
//! ratios over the kernels we compile. `--write` also saves the table as
//! Markdown.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// One entry's figures.
#[derive(Clone, Debug, Default)]
pub(crate) struct Figures {
    pub registers: f64,
    pub spill_bytes: f64,
    pub instructions: f64,
    pub compile_ms: f64,
    pub wall_ms: f64,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let write = match args {
        [] => None,
        [flag, file] if flag == "--write" => Some(file.clone()),
        _ => return Err("usage: cargo xtask corpus-report [--write FILE]".into()),
    };
    let corpus = crate::workspace_root().join("../shared/corpus");
    let stats = std::fs::read_to_string(corpus.join("ptxas-stats.tsv")).map_err(|e| format!("ptxas-stats.tsv: {e}"))?;
    let nvidia = nvidia_figures(&stats);
    let oracle = crate::oracle::ensure()?;
    let ours = crate::compile::release_ptxas()?;
    let scratch = crate::workspace_root().join("target/corpus-report");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;

    let mut rows = Vec::new();
    let mut failed = 0;
    let files: Vec<(String, String)> = nvidia.keys().map(|(f, t, _)| (f.clone(), t.clone())).collect();
    let mut files = files;
    files.dedup();
    for (file, target) in files {
        let args = [format!("-arch={target}"), "-v".to_string()];
        match compile(&ours, &oracle, &corpus.join(&file), &args, &scratch.join("k.cubin")) {
            Ok(entries) => {
                for (name, mine) in entries {
                    if let Some(theirs) = nvidia.get(&(file.clone(), target.clone(), name.clone())) {
                        rows.push((format!("{file} {name}"), mine, theirs.clone()));
                    }
                }
            }
            Err(_) => failed += 1,
        }
    }
    let table = render(&rows, failed);
    print!("{table}");
    if let Some(file) = write {
        std::fs::write(&file, table).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(())
}

/// NVIDIA's figures per (file, target, entry).
fn nvidia_figures(tsv: &str) -> BTreeMap<(String, String, String), Figures> {
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (file, target, function, kind) = (col("file"), col("target"), col("function"), col("kind"));
    let number = |fields: &[&str], name: &str| {
        col(name).and_then(|i| fields.get(i)).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
    };
    let mut out = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let get = |i: Option<usize>| i.and_then(|i| f.get(i)).copied().unwrap_or_default().to_string();
        if get(kind) != "entry" {
            continue;
        }
        let figures = Figures {
            registers: number(&f, "registers"),
            spill_bytes: number(&f, "spill_store_bytes") + number(&f, "spill_load_bytes"),
            instructions: number(&f, "sass_instrs_nopad"),
            compile_ms: number(&f, "ptxas_compile_time_ms"),
            wall_ms: number(&f, "ptxas_wall_ms_median"),
        };
        out.insert((get(file), get(target), get(function)), figures);
    }
    out
}

/// Compiles `file` with `ptxas` and `args` (which must hold `-v`) into
/// `cubin`; figures per entry, or the first line of ptxas's errors.
pub(crate) fn compile(
    ptxas: &Path,
    oracle: &nv_oracle::Oracle,
    file: &Path,
    args: &[String],
    cubin: &Path,
) -> Result<Vec<(String, Figures)>, String> {
    let start = Instant::now();
    let out = Command::new(ptxas).args(args).arg(file).arg("-o").arg(cubin).output().map_err(|e| e.to_string())?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or_default().to_string());
    }
    let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(cubin).output().map_err(|e| e.to_string())?;
    let instructions = instruction_counts(&String::from_utf8_lossy(&listing.stdout));
    let mut entries = Vec::new();
    let mut current: Option<(String, Figures)> = None;
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        let info = line.trim_start_matches("ptxas info    : ");
        if let Some(name) = info.strip_prefix("Compiling entry function '").and_then(|r| r.split('\'').next()) {
            entries.extend(current.take());
            let count = instructions.get(name).copied().unwrap_or(0) as f64;
            current = Some((name.to_string(), Figures { instructions: count, wall_ms, ..Figures::default() }));
        } else if let Some((_, f)) = current.as_mut() {
            if let Some(n) = info.strip_prefix("Used ").and_then(|r| r.split(' ').next()) {
                f.registers = n.parse().unwrap_or(0.0);
            } else if let Some(ms) = info.strip_prefix("Compile time = ").and_then(|r| r.split(' ').next()) {
                f.compile_ms = ms.parse().unwrap_or(0.0);
            } else if line.trim_start().ends_with("bytes spill loads") {
                let numbers: Vec<f64> =
                    line.split(',').filter_map(|p| p.split_whitespace().next()?.parse().ok()).collect();
                f.spill_bytes = numbers.iter().skip(1).sum();
            }
        }
    }
    entries.extend(current);
    Ok(entries)
}

/// Instructions per function in an `nvdisasm -c` listing, without the
/// trailing self-branch and NOP padding (as ptxas-stats.tsv counts them).
fn instruction_counts(listing: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut name = String::new();
    let mut mnemonics: Vec<String> = Vec::new();
    let mut flush = |name: &str, mnemonics: &mut Vec<String>| {
        while mnemonics.last().is_some_and(|m| m == "NOP") {
            mnemonics.pop();
        }
        if mnemonics.last().is_some_and(|m| m == "BRA") {
            mnemonics.pop();
        }
        if !name.is_empty() {
            counts.insert(name.to_string(), mnemonics.len());
        }
        mnemonics.clear();
    };
    for line in listing.lines() {
        if let Some(section) = line.trim().strip_prefix(".section\t.text.") {
            flush(&name, &mut mnemonics);
            name = section.split(',').next().unwrap_or_default().to_string();
        } else if let Some((_, rest)) = line.trim_start().strip_prefix("/*").and_then(|l| l.split_once("*/")) {
            let rest = rest.trim_start();
            let rest = if rest.starts_with('@') { rest.split_once(' ').map_or("", |r| r.1) } else { rest };
            let mnemonic = rest.split(['.', ' ', ';']).next().unwrap_or_default();
            mnemonics.push(mnemonic.to_string());
        }
    }
    flush(&name, &mut mnemonics);
    counts
}

fn render(rows: &[(String, Figures, Figures)], failed: usize) -> String {
    let mut out = String::from(
        "# Corpus report\n\nMade by `cargo xtask corpus-report --write docs/corpus-report.md`: each corpus \
         entry we compile, ours / NVIDIA's (NVIDIA's from `../shared/corpus/ptxas-stats.tsv`; SASS \
         instructions without the end padding; compile time is ptxas's `-v` figure per entry; wall time of one \
         run of ours against NVIDIA's median of 3, on a shared 2-core machine).\n\n\
         | kernel | registers | spill bytes | SASS instructions | compile ms | wall ms |\n|---|---|---|---|---|---|\n",
    );
    for (name, ours, theirs) in rows {
        out += &format!(
            "| {name} | {} / {} | {} / {} | {} / {} | {:.2} / {:.2} | {:.1} / {:.1} |\n",
            ours.registers,
            theirs.registers,
            ours.spill_bytes,
            theirs.spill_bytes,
            ours.instructions,
            theirs.instructions,
            ours.compile_ms,
            theirs.compile_ms,
            ours.wall_ms,
            theirs.wall_ms
        );
    }
    let geomean = |field: fn(&Figures) -> f64| {
        let logs: Vec<f64> = rows
            .iter()
            .filter(|(_, o, t)| field(o) > 0.0 && field(t) > 0.0)
            .map(|(_, o, t)| (field(o) / field(t)).ln())
            .collect();
        if logs.is_empty() { f64::NAN } else { (logs.iter().sum::<f64>() / logs.len() as f64).exp() }
    };
    out += &format!(
        "\nOurs / NVIDIA's, geometric mean over {} entries ({failed} corpus files not compiled yet): \
         registers {:.3}, SASS instructions {:.3}, compile time {:.3}, wall time {:.3}.\n",
        rows.len(),
        geomean(|f| f.registers),
        geomean(|f| f.instructions),
        geomean(|f| f.compile_ms),
        geomean(|f| f.wall_ms),
    );
    out
}
