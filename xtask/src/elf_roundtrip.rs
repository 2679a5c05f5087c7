//! `cargo xtask elf-roundtrip CUBIN_OR_DIR...`: read and re-write each cubin
//! with `elfw`, compare the bytes, name the fields that differ.

use std::path::{Path, PathBuf};

/// Runs the command; `Err` when a file cannot be read or any cubin differs.
pub fn run(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("usage: cargo xtask elf-roundtrip CUBIN_OR_DIR...".into());
    }
    let mut files = Vec::new();
    for a in args {
        collect(Path::new(a), &mut files)?;
    }
    files.sort();
    let mut identical = 0;
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        match roundtrip(&bytes) {
            Ok(()) => identical += 1,
            Err(lines) => {
                println!("{}: differs", f.display());
                for l in lines {
                    println!("  {l}");
                }
            }
        }
    }
    println!("{} cubins: identical {identical}", files.len());
    if identical == files.len() { Ok(()) } else { Err(format!("{} cubins differ", files.len() - identical)) }
}

fn roundtrip(bytes: &[u8]) -> Result<(), Vec<String>> {
    let cubin = elfw::read(bytes).map_err(|e| vec![format!("read: {e}")])?;
    let again = elfw::write(&cubin).map_err(|e| vec![format!("write: {e}")])?;
    if again == bytes { Ok(()) } else { Err(elfw::diff::byte_differences(&cubin, bytes, &again, 20)) }
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
    } else if path.is_file() {
        out.push(path.to_path_buf());
    } else {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    Ok(())
}
