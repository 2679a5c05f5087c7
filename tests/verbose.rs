//! `-v` against NVIDIA's ptxas on kernels we compile from PTX: the same
//! lines, figures included, except the register count (ours is our own
//! allocation) and the compile time.

use std::path::{Path, PathBuf};
use std::process::Command;

use nv_oracle::Oracle;

fn corpus(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap().join("shared/corpus/kernels").join(file)
}

/// The `-v` lines with the register count and the compile time blanked.
fn normalized(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("ptxas info    : Used ") {
                let after = rest.split_once(' ').map_or("", |(_, after)| after);
                format!("ptxas info    : Used N {after}")
            } else if line.starts_with("ptxas info    : Compile time = ") {
                "ptxas info    : Compile time = T".to_string()
            } else {
                line.to_string()
            }
        })
        .collect()
}

#[test]
fn verbose_report_matches_nvidia() {
    let Some(oracle) = Oracle::for_test("verbose_report_matches_nvidia") else { return };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verbose.cubin");
    for (file, arch) in [
        ("vadd.sm80.ptx", "sm_80"),
        ("vadd.sm90.ptx", "sm_90"),
        ("reduce_smem.sm80.ptx", "sm_80"),
        ("reduce_smem.sm90.ptx", "sm_90"),
        ("templates.sm90.ptx", "sm_90"),
        // Device functions after the kernel, callee saves as spills, the
        // stack-size warning.
        ("recursion.sm80.ptx", "sm_80"),
        ("recursion.sm90.ptx", "sm_90"),
    ] {
        let args = [format!("-arch={arch}"), "-v".into(), corpus(file).display().to_string(), "-o".into()];
        let run = |ptxas: &Path| Command::new(ptxas).args(&args).arg(&out).output().unwrap();
        let (theirs, ours) = (run(&oracle.ptxas()), run(Path::new(env!("CARGO_BIN_EXE_ptxas"))));
        assert!(ours.status.success(), "{file}: {}", String::from_utf8_lossy(&ours.stderr));
        assert_eq!(normalized(&ours.stderr), normalized(&theirs.stderr), "{file} for {arch}");
    }
}
