//! `cargo xtask oracle`: installs NVIDIA's tools into `target/oracle`.

use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("oracle takes no arguments (got `{extra}`)"));
    }
    let oracle = ensure()?;
    println!("oracle: {}", oracle.ptxas().display());
    Ok(())
}

/// Installs the oracle unless present; the directory is `$NV_ORACLE_DIR` or
/// `target/oracle` of this workspace.
pub fn ensure() -> Result<nv_oracle::Oracle, String> {
    let dir = std::env::var_os(nv_oracle::DIR_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target/oracle"));
    nv_oracle::install(&dir)
}
