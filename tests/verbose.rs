//! `-v` against NVIDIA's ptxas on kernels we compile from PTX: the same
//! lines, figures included, except what depends on our own allocation
//! (the register count, and the frame and spill figures of a function
//! that spills: a device function's callee-saved registers are stored in
//! its frame) and the compile time.

use std::path::{Path, PathBuf};
use std::process::Command;

use nv_oracle::Oracle;

fn corpus(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap().join("shared/corpus/kernels").join(file)
}

/// The `-v` lines with the register count, the frame and spill figures
/// of functions that spill, and the compile time blanked.
fn normalized(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|line| {
            if line.contains(" bytes stack frame, ") && !line.contains(" 0 bytes spill stores") {
                "    S bytes stack frame, S bytes spill stores, S bytes spill loads".to_string()
            } else if let Some(rest) = line.strip_prefix("ptxas info    : Used ") {
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

/// The module data line (`.global` data in both sections, alignment gaps
/// included; before sm_90 also constant banks 3 and 4) for every corpus
/// kernel with module variables, and for a module whose variables leave
/// gaps.
#[test]
fn module_data_matches_nvidia() {
    let Some(oracle) = Oracle::for_test("module_data_matches_nvidia") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut inputs = Vec::new();
    for arch in ["sm_80", "sm_90"] {
        let gapped = dir.join(format!("module_data_gaps.{arch}.ptx"));
        std::fs::write(
            &gapped,
            format!(
                ".version 8.0\n.target {arch}\n.address_size 64\n\
                 .global .align 8 .b8 x[3];\n.global .align 8 .b8 y[3];\n\
                 .global .align 8 .b8 z[3] = {{1, 2, 3}};\n.global .align 1 .u8 w = 4;\n\
                 .const .align 4 .b8 k[6] = {{1}};\n\
                 .visible .entry f()\n{{\n\tret;\n}}\n"
            ),
        )
        .unwrap();
        inputs.push((gapped, arch));
    }
    for name in
        ["printf_kernel", "globals_const", "math_double", "multi_entry", "spinlock_fence", "atomics_mix", "unroll_loops"]
    {
        inputs.push((corpus(&format!("{name}.sm80.ptx")), "sm_80"));
        inputs.push((corpus(&format!("{name}.sm90.ptx")), "sm_90"));
    }
    let out = dir.join("module_data.cubin");
    for (file, arch) in inputs {
        let first_line = |ptxas: &Path| {
            let output =
                Command::new(ptxas).arg(format!("-arch={arch}")).arg("-v").arg(&file).arg("-o").arg(&out).output().unwrap();
            assert!(output.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&output.stderr));
            normalized(&output.stderr).into_iter().find(|line| line.contains(" bytes gmem"))
        };
        let theirs = first_line(&oracle.ptxas());
        assert!(theirs.is_some(), "{}: NVIDIA's -v has no gmem line", file.display());
        assert_eq!(first_line(Path::new(env!("CARGO_BIN_EXE_ptxas"))), theirs, "{} for {arch}", file.display());
    }
}
