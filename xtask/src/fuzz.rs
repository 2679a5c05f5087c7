//! `cargo xtask fuzz [--cases N] [--seed S]`: a long run of the generated
//! PTX test (`tests/fuzz.rs`) on the release build: N kernels (default
//! 2000) from seed S (default 1), each compiled with the verifier after
//! every phase, its result hazard-checked. Runs are recorded with their
//! case counts in docs/status.md.

use std::process::Command;

pub fn run(args: &[String]) -> Result<(), String> {
    let (mut cases, mut seed) = ("2000".to_string(), "1".to_string());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} takes a number"))?;
        value.parse::<u64>().map_err(|_| format!("{arg} takes a number, not `{value}`"))?;
        match arg.as_str() {
            "--cases" => cases = value.clone(),
            "--seed" => seed = value.clone(),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let status = Command::new(env!("CARGO"))
        .args(["test", "--release", "-p", "ptxas", "--test", "fuzz", "--", "--nocapture"])
        .env("PTXAS_FUZZ_CASES", &cases)
        .env("PTXAS_FUZZ_SEED", &seed)
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err("generated kernels failed (seeds above)".into()) }
}
