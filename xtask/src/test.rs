//! `cargo xtask test`: the whole test suite, as CI runs it. Installs
//! NVIDIA's tools first (tests compare against them) and makes their
//! absence a failure rather than a skip.

use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    let oracle = crate::oracle::ensure()?;
    let oracle_dir = oracle.ptxas().ancestors().nth(4).expect("ptxas sits in DIR/nvidia/cu13/bin").to_path_buf();
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace"])
        .args(args)
        .env(nv_oracle::DIR_ENV, &oracle_dir)
        .env(nv_oracle::REQUIRED_ENV, "1")
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err("tests failed".into()) }
}
