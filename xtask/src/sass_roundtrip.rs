//! `cargo xtask sass-roundtrip CUBIN_OR_DIR... [--print-ctrl]`: decode every
//! instruction of every `.text` section with mercury-encode, print it,
//! compare with nvdisasm's listing (aligned by address), re-encode it and
//! compare the bits.

use std::path::{Path, PathBuf};
use std::process::Command;

use mercury_encode::Sm;
use mercury_encode::listing::{labels_of, parse_listing, round_trip};

const USAGE: &str = "usage: cargo xtask sass-roundtrip CUBIN_OR_DIR... [--print-ctrl]";

/// Totals over all cubins.
#[derive(Default)]
struct Totals {
    insts: usize,
    text: usize,
    bits: usize,
    unknown: usize,
}

/// Runs the command; `Err` when a file cannot be read or anything differs.
pub fn run(args: &[String]) -> Result<(), String> {
    let print_ctrl = args.iter().any(|a| a == "--print-ctrl");
    let paths: Vec<&String> = args.iter().filter(|a| *a != "--print-ctrl").collect();
    if paths.is_empty() {
        return Err(USAGE.into());
    }
    let mut files = Vec::new();
    for p in paths {
        collect(Path::new(p), &mut files)?;
    }
    files.sort();
    let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are not installed: run `cargo xtask oracle`")?;
    let mut totals = Totals::default();
    for f in &files {
        cubin(&oracle, f, print_ctrl, &mut totals)?;
    }
    println!(
        "{} instructions: text match {}, bits match {}, unknown {}",
        totals.insts, totals.text, totals.bits, totals.unknown
    );
    if totals.text == totals.insts && totals.bits == totals.insts { Ok(()) } else { Err("mismatches".into()) }
}

fn cubin(oracle: &nv_oracle::Oracle, path: &Path, print_ctrl: bool, totals: &mut Totals) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let elf = elfw::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let sm_number = elf.header.eflags().sm();
    let sm =
        Sm::with_tables(sm_number).ok_or_else(|| format!("{}: sm_{sm_number} is not supported", path.display()))?;
    let out = Command::new(oracle.nvdisasm()).arg(path).output().map_err(|e| format!("nvdisasm: {e}"))?;
    if !out.status.success() {
        return Err(format!("nvdisasm {}: {}", path.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let listing = parse_listing(&String::from_utf8_lossy(&out.stdout));
    for section in elf.sections.iter().filter(|s| s.name.starts_with(".text.")) {
        let Some(code) = section.bytes() else { continue };
        let listed = listing.get(&section.name).cloned().unwrap_or_default();
        let mut labels = labels_of(&listed);
        for (i, chunk) in code.chunks_exact(16).enumerate() {
            let addr = 16 * i as u64;
            let word = |k: usize| u64::from_le_bytes(chunk[8 * k..8 * k + 8].try_into().expect("8-byte slice"));
            let bits = [word(0), word(1)];
            let expected = listed.insts.iter().find(|l| l.addr == addr).map(|l| l.text.as_str());
            let outcome = round_trip(sm, bits, addr, &mut labels);
            totals.insts += 1;
            let where_ = format!("{}:{}+0x{addr:04x}", path.display(), section.name);
            if print_ctrl {
                let text = outcome.text.as_deref().unwrap_or("?");
                println!("{where_}  {}  {text}", outcome.ctrl.as_deref().unwrap_or("?"));
            }
            if outcome.unknown() {
                totals.unknown += 1;
            }
            match (&outcome.text, expected) {
                (Ok(t), Some(e)) if t.trim_end() == e => totals.text += 1,
                (t, e) => println!("{where_}: text: ours {t:?}, nvdisasm {e:?}"),
            }
            match &outcome.bits {
                Ok(b) if *b == bits => totals.bits += 1,
                Ok([lo, hi]) => println!(
                    "{where_}: bits: ours 0x{hi:016x}{lo:016x}, NVIDIA 0x{:016x}{:016x} ({})",
                    bits[1],
                    bits[0],
                    expected.unwrap_or("?")
                ),
                Err(e) if !outcome.unknown() => println!("{where_}: encode: {e} ({})", expected.unwrap_or("?")),
                Err(_) => {}
            }
        }
    }
    Ok(())
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for entry in entries {
            let p = entry.map_err(|e| format!("{}: {e}", path.display()))?.path();
            if p.is_dir() || p.extension().is_some_and(|x| x == "cubin") {
                collect(&p, out)?;
            }
        }
        Ok(())
    } else if path.is_file() {
        out.push(path.to_path_buf());
        Ok(())
    } else {
        Err(format!("{}: no such file or directory", path.display()))
    }
}
