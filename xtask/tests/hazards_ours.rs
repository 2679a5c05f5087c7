//! Every cubin our compiler makes from the corpus, read back from its
//! bytes (what a GPU would run), passes the hazard checker: each register
//! and predicate dependency is covered by stall counts or scoreboard waits.
//! The list of files is not fixed: each corpus PTX that compiles today is
//! checked, so kernels join as lowering grows.

use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join("shared/corpus")
}

/// The kernels (`.text.NAME` sections) of a cubin.
fn entries(cubin: &[u8]) -> Vec<String> {
    let elf = elfw::read(cubin).expect("our cubin reads back");
    elf.sections.iter().filter_map(|s| s.name.strip_prefix(".text.").map(str::to_string)).collect()
}

#[test]
fn our_cubins_pass_the_hazard_checker() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join("kernels"))
        .expect("the corpus is beside the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    let (mut cubins, mut kernels, mut insts, mut mutants) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for path in &files {
        // kernel.sm90.ptx -> sm_90; kernel.sm90a.ptx -> sm_90a.
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let arch = stem.rsplit_once('.').unwrap().1.replace("sm", "sm_");
        let text = std::fs::read_to_string(path).unwrap();
        for opt in [0, 3] {
            let options = ptxas::Options { arch: arch.parse().unwrap(), opt_level: opt, ..ptxas::Options::default() };
            let source = ptxas::Source { name: format!("{stem}.ptx"), text: text.clone() };
            let Ok(output) = ptxas::compile_sources(&[source], &options) else { continue };
            let cubin = output.cubin.expect("a cubin for an sm_XY target");
            cubins += 1;
            for entry in entries(&cubin) {
                let kernel = ori_interp::load_kernel(&cubin, &entry)
                    .unwrap_or_else(|e| panic!("{stem} -O{opt}: our cubin's {entry} does not decode: {e}"));
                kernels += 1;
                insts += kernel.func.inst_count();
                for v in sched::hazard::check_function(&kernel.func, options.arch) {
                    problems.push(format!("{stem} -O{opt} {entry}: {v:?}"));
                }
                // The checker sees the decoded control words: without its
                // scoreboard waits, each kernel that has some must fail.
                let mut mutant = kernel.func.clone();
                let mut dropped = false;
                for (_, inst) in mutant.insts.iter_mut() {
                    if let Some(ctrl) = inst.ctrl.as_mut().filter(|c| c.wait != 0) {
                        ctrl.wait = 0;
                        dropped = true;
                    }
                }
                if dropped {
                    mutants += 1;
                    let found = sched::hazard::check_function(&mutant, options.arch);
                    assert!(!found.is_empty(), "{stem} -O{opt} {entry}: dropping every wait went unnoticed");
                }
            }
        }
    }
    println!(
        "{cubins} cubins of ours from {} PTX files, {kernels} kernels, {insts} instructions checked; \
         {mutants} kernels without their waits caught",
        files.len()
    );
    assert!(mutants > 0);
    assert!(problems.is_empty(), "{} hazards:\n{}", problems.len(), problems.join("\n"));
    // The files that compiled on 2026-11-21 (both -O levels); a drop means
    // a regression in the compiler, not fewer hazards.
    assert!(cubins >= 38, "only {cubins} corpus files compiled");
}
