//! `cargo xtask learn-isa [--sm 75|80|90]... [--work DIR] [--corpus DIR]
//! [--fillings N]`: the ISA solver. Regenerates mercury-encode's learned
//! tables (`src/tables/sm75.rs`, `sm80.rs`, `sm90.rs`) from NVIDIA's tools
//! alone: the corpus (sm_80/sm_90 PTX) and `tests/targets/smXY` (the corpus
//! regenerated for other targets) compiled with ptxas and listed with
//! nvdisasm (`tools/learn_corpus.py`), the instruction set enumerated with seeded
//! random words and minimised against `nvdisasm -b`
//! (`tools/learn_isa.py`, for the SMs named, the others' solver output is
//! read from the committed `tools/isa/`), bit-flip probes of every shape
//! (`tools/learn_probe.py`), the operands nvdisasm leaves out when zero
//! (`tools/learn_hidden.py`), the tables (`tools/learn_tables.py`) and the
//! modifier fields the bit flips show (`tools/learn_fields.py`).
//! Deterministic: the same tools give the same tables.

use std::path::{Path, PathBuf};
use std::process::Command;

const USAGE: &str =
    "usage: cargo xtask learn-isa [--sm 75|80|90]... [--work DIR] [--corpus DIR] [--fillings N] (default: every SM)";

/// The SMs the solver knows.
const SMS: [&str; 3] = ["75", "80", "90"];

/// Runs the solver; `Err` when a step fails.
pub fn run(args: &[String]) -> Result<(), String> {
    let root = crate::workspace_root();
    let mut sms = Vec::new();
    let mut work = crate::target_dir()?.join("learn-isa");
    let mut corpus = root.join("../shared/corpus/kernels");
    let mut fillings = "64".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| USAGE.to_string());
        match a.as_str() {
            "--sm" => {
                let sm = value()?;
                if !SMS.contains(&sm.as_str()) {
                    return Err(format!("sm_{sm}: the solver knows sm_{}\n{USAGE}", SMS.join(", sm_")));
                }
                sms.push(sm);
            }
            "--work" => work = PathBuf::from(value()?),
            "--corpus" => corpus = PathBuf::from(value()?),
            "--fillings" => fillings = value()?,
            _ => return Err(USAGE.into()),
        }
    }
    if sms.is_empty() {
        sms = SMS.iter().map(|s| s.to_string()).collect();
    }
    let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are not installed: run `cargo xtask oracle`")?;
    let crate_dir = root.join("crates/mercury-encode");
    let tools = crate_dir.join("tools");
    let committed = tools.join("isa");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let work_s = work.to_string_lossy().to_string();
    let python = |script: &str, args: &[&str]| -> Result<(), String> {
        eprintln!("learn-isa: {script} {}", args.join(" "));
        let status = Command::new("python3")
            .arg(tools.join(script))
            .args(args)
            .env("NVDISASM", oracle.nvdisasm())
            .current_dir(&tools)
            .status()
            .map_err(|e| format!("python3: {e}"))?;
        if status.success() { Ok(()) } else { Err(format!("{script} failed ({status})")) }
    };
    // The corpus holds sm_80/sm_90 PTX; the other families' corpus PTX is
    // committed under tests/targets/smXY.
    let targets = SMS.map(|sm| root.join("tests/targets").join(format!("sm{sm}")));
    let corpora: Vec<String> = std::iter::once(&corpus)
        .chain(targets.iter().filter(|dir| dir.is_dir()))
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect();
    let mut corpus_args = vec![work_s.as_str()];
    corpus_args.extend(corpora.iter().map(String::as_str));
    python("learn_corpus.py", &corpus_args)?;
    for sm in SMS {
        let file = format!("isa_sm{sm}.json");
        if sms.iter().any(|s| s == sm) {
            python("learn_isa.py", &[sm, &work_s, &fillings])?;
            copy(&work.join(&file), &committed.join(&file))?;
        } else {
            copy(&committed.join(&file), &work.join(&file))?;
        }
    }
    python("learn_probe.py", &[&work_s, "0", "1"])?;
    python("learn_hidden.py", &[&work_s])?;
    let crate_s = crate_dir.to_string_lossy().to_string();
    python("learn_tables.py", &[&work_s, &crate_s])?;
    // Modifier fields of the SMs enumerated (`tools/isa/fields_smN.json`);
    // `tables/fields.rs` is written from all of them.
    let mut fields_args = vec![work_s.as_str(), crate_s.as_str()];
    fields_args.extend(sms.iter().map(String::as_str));
    python("learn_fields.py", &fields_args)?;
    let mut tables: Vec<PathBuf> = SMS.iter().map(|sm| crate_dir.join("src/tables").join(format!("sm{sm}.rs"))).collect();
    tables.push(crate_dir.join("src/tables/fields.rs"));
    let status = Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(&tables)
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !status.success() {
        return Err("rustfmt failed".into());
    }
    eprintln!(
        "learn-isa: tables written; now `cargo test -p mercury-encode --lib derived_tables_are_current` (twice) \
         regenerates the derived tables"
    );
    Ok(())
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}
