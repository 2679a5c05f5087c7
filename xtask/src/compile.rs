//! `cargo xtask compile [ptxas options] FILE...`: builds the release
//! `ptxas` and runs it with the given arguments.

use std::path::PathBuf;
use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    let ptxas = release_ptxas()?;
    let status =
        Command::new(&ptxas).args(args).status().map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    // ptxas has already said what went wrong; pass its exit status on.
    if status.success() { Ok(()) } else { std::process::exit(status.code().unwrap_or(1)) }
}

/// Builds the release `ptxas` and returns its path (in cargo's target
/// directory, which `CARGO_TARGET_DIR` may move).
pub fn release_ptxas() -> Result<PathBuf, String> {
    let root = crate::workspace_root();
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--release", "--package", "ptxas", "--bin", "ptxas"])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building ptxas failed".into());
    }
    Ok(crate::target_dir()?.join("release/ptxas"))
}
