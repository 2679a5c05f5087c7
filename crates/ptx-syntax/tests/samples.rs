//! Whole files in `tests/samples/` that NVRTC and the corpus do not cover:
//! full DWARF debug output (`nvrtc -G`: `.file`, `.loc`, `.section` data with
//! label arithmetic), line info, textures/samplers/surfaces with sampler
//! initializers, and hand-written indirect branches and calls, prototypes,
//! linkage, `.alias` and cluster directives. Each must parse, validate and
//! round-trip; with the oracle installed, NVIDIA's ptxas must accept each.

use ptx_syntax::ast::Item;
use ptx_syntax::{FileId, ValidateOptions, parse, print, render_ptxas_all, validate};
use std::path::PathBuf;

fn samples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/samples exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

#[test]
fn samples_parse_validate_and_round_trip() {
    let files = samples();
    assert!(files.len() >= 4, "samples missing");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(path).expect("readable sample");
        let (module, mut diags) = parse(&source, FileId(0));
        if diags.is_empty() {
            diags = validate(&module, &ValidateOptions::default());
        }
        if !diags.is_empty() {
            failures.push(render_ptxas_all(&diags, &name, &source));
            continue;
        }
        let (reparsed, diags) = parse(&print(&module), FileId(1));
        if !diags.is_empty() || reparsed != module {
            failures.push(format!("{name}: does not round-trip\n"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.concat());
}

/// `-arch` for a sample: its `.target`, with `compute_` read as `sm_`.
fn arch_of(source: &str) -> String {
    let (module, _) = parse(source, FileId(0));
    module
        .items
        .iter()
        .find_map(|item| match item {
            Item::Target(t) => t.names.first().map(|n| n.name.replace("compute_", "sm_")),
            _ => None,
        })
        .unwrap_or_else(|| "sm_90".to_owned())
}

#[test]
fn nvidia_ptxas_accepts_the_samples() {
    let Some(oracle) = nv_oracle::Oracle::for_test("nvidia_ptxas_accepts_the_samples") else { return };
    let dir = std::env::temp_dir().join(format!("ptx-syntax-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rejected = Vec::new();
    for path in samples() {
        let source = std::fs::read_to_string(&path).expect("readable sample");
        let arch = format!("-arch={}", arch_of(&source));
        let path_arg = path.display().to_string();
        let output = oracle.run_ptxas(&[&arch, &path_arg, "-o", "sample.cubin"], &dir).expect("run ptxas");
        if !output.status.success() {
            rejected.push(format!("{path_arg}: {}", String::from_utf8_lossy(&output.stderr)));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(rejected.is_empty(), "ptxas rejects:\n{}", rejected.join("\n"));
}
