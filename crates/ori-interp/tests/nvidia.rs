//! Runs NVIDIA's own cubins for corpus kernels (sm_90 and sm_80) under the
//! interpreter and checks them against CPU references: this proves the
//! interpreter and the decoder against NVIDIA's code.

use std::path::{Path, PathBuf};

use ori_interp::corpus::{CASES, SM90_CASES, SM90A_CASES, compile, compile_arch};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

#[test]
fn nvidia_cubins_pass_their_checks() {
    let Some(oracle) = nv_oracle::Oracle::for_test("nvidia_cubins_pass_their_checks") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ori-interp-nvidia");
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for sm in [90, 80] {
        for case in CASES {
            let result =
                compile(&oracle.ptxas(), &corpus(), case.file, case.entry, sm, &dir).and_then(|k| (case.run)(&k));
            match result {
                Ok(stats) => eprintln!("sm_{sm} {}: ok, {} warp-instructions", case.entry, stats.warp_insts),
                Err(e) => failures.push(format!("sm_{sm} {}: {e}", case.entry)),
            }
        }
    }
    for case in SM90_CASES {
        let result = compile(&oracle.ptxas(), &corpus(), case.file, case.entry, 90, &dir).and_then(|k| (case.run)(&k));
        match result {
            Ok(stats) => eprintln!("sm_90 {}: ok, {} warp-instructions", case.entry, stats.warp_insts),
            Err(e) => failures.push(format!("sm_90 {}: {e}", case.entry)),
        }
    }
    for case in SM90A_CASES {
        let result =
            compile_arch(&oracle.ptxas(), &corpus(), case.file, case.entry, "sm_90a", &dir).and_then(|k| (case.run)(&k));
        match result {
            Ok(stats) => eprintln!("sm_90a {}: ok, {} warp-instructions", case.entry, stats.warp_insts),
            Err(e) => failures.push(format!("sm_90a {}: {e}", case.entry)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
