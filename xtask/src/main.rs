//! `cargo xtask <command>`: project automation.
//!
//! Each command lives in its own module with `pub fn run(args: &[String]) -> Result<(), String>`.

use std::process::ExitCode;

mod capmerc_roundtrip;
mod check_ptx;
mod compare;
mod compile;
mod corpus_report;
mod difftest;
mod elf_roundtrip;
mod fuzz;
mod gpu_check;
mod isa_sweep;
mod learn_isa;
mod oracle;
mod sass_roundtrip;
mod test;
mod triton;

const USAGE: &str = "usage: cargo xtask <command> [args]

commands:
  capmerc-roundtrip P... regenerate the Capsule Mercury sections of sm_100+ cubins (files or directories)
                      from their other sections, compare with NVIDIA's per section kind
  check-ptx P...      parse and validate PTX files (files or directories) with ptx-syntax
  compare [-On] [P...] time our ptxas against NVIDIA's and compare registers (default: the corpus)
  compile ARGS...     build the release ptxas and run it: cargo xtask compile -arch=sm_90 k.ptx -o k.cubin
  corpus-report [--write F]  registers, spills, SASS size, compile time per corpus kernel vs NVIDIA's
  difftest [--sm N] [K...] run NVIDIA's cubins of corpus kernels (and ours, if any) in the Ori interpreter; check outputs
           [--manifest [M]] [--target sm_XY] [--phases]  every manifest launch at full size, NVIDIA's cubin
           against ours (--target: the PTX of tests/targets/smXY for that SM);
           on a failure (or --phases, always) the first phase of ours whose result differs
  elf-roundtrip P...  read and re-write cubins (files or directories) with elfw, compare bytes
  fuzz [--cases N] [--seed S]  compile N generated kernels (default 2000) with the release build: exit 0 or
                      255 only, no output after 255, the verifier after every phase, the hazard checker
  gpu-check [--prepare|--simulate|--compare DIR] [K...]  NVIDIA's cubins and ours on a GPU: outputs, times
  isa-sweep [--target sm_XX]... [--only PATTERN] [--write-known] [--list]  the PTX ISA sweep: every form of
                      tests/isa-sweep/forms.toml, NVIDIA's verdict and results against ours
  learn-isa [--sm 80|90]... [--work DIR]  the ISA solver: regenerate mercury-encode's tables from nvdisasm
  oracle              install NVIDIA's ptxas/nvdisasm/cuobjdump 13.5 into target/oracle (pip)
  test [ARGS...]      install the oracle, then run every test (cargo test --workspace ARGS)
  triton [--update] [K...]  install Triton into target/triton, generate tests/triton/gen.py's PTX, compile it
                      with NVIDIA's ptxas and ours on Triton's command line, print the table (--update: refresh fixtures)
  sass-roundtrip P... decode, print (vs nvdisasm) and re-encode every instruction of cubins [--print-ctrl]
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let result = match command.as_str() {
        "capmerc-roundtrip" => capmerc_roundtrip::run(rest),
        "elf-roundtrip" => elf_roundtrip::run(rest),
        "fuzz" => fuzz::run(rest),
        "gpu-check" => gpu_check::run(rest),
        "isa-sweep" => isa_sweep::run(rest),
        "learn-isa" => learn_isa::run(rest),
        "check-ptx" => check_ptx::run(rest),
        "compare" => compare::run(rest),
        "compile" => compile::run(rest),
        "corpus-report" => corpus_report::run(rest),
        "difftest" => difftest::run(rest),
        "test" => test::run(rest),
        "oracle" => oracle::run(rest),
        "sass-roundtrip" => sass_roundtrip::run(rest),
        "triton" => triton::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Cargo's target directory for this workspace, as cargo itself resolves it
/// (`CARGO_TARGET_DIR`, `build.target-dir` in a config file, or `target/`
/// under the workspace root): where the binaries cargo builds land.
pub fn target_dir() -> Result<std::path::PathBuf, String> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata output: {e}"))?;
    metadata["target_directory"]
        .as_str()
        .map(std::path::PathBuf::from)
        .ok_or_else(|| "cargo metadata gave no target_directory".to_owned())
}

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the workspace").to_path_buf()
}

#[cfg(test)]
mod tests {
    /// Cargo's own answer: `CARGO_TARGET_DIR` when the tests run with it (a
    /// relative one from the workspace root, where xtask runs cargo), else
    /// `target/` under the workspace root.
    #[test]
    fn target_dir_is_cargos() {
        let expected = match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => super::workspace_root().join(dir),
            None => super::workspace_root().join("target"),
        };
        assert_eq!(super::target_dir().unwrap(), expected);
    }
}
