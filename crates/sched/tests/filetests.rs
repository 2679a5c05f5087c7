//! Runs `tests/filetests/<PhaseName>/*.ori` (see
//! `crates/passes-early/tests/support/filetest.rs` for the format and
//! `BLESS=1`), then puts every phase's output for every case through the
//! hazard checker, and checks that the checker catches broken variants of
//! our own schedules.

#[path = "../../passes-early/tests/support/filetest.rs"]
mod filetest;

use std::path::{Path, PathBuf};

use ori_ir::text::parse_module;
use ori_ir::{Knobs, Module, Phase, PhaseContext};
use sched::hazard::{Program, check_function, check_program};
use sched::latency::LatencyTable;
use sched::{ComputeScoreboards, ProcessO0WaitsAndSBs, ScheduleInstructions};

#[test]
fn filetests() {
    filetest::run(env!("CARGO_MANIFEST_DIR"), sched::phases(), |_| Box::new(ori_ir::NoForms));
}

/// The input modules of every case (each phase directory holds the same
/// inputs; one directory is enough).
fn cases() -> Vec<(PathBuf, Module)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests/ComputeScoreboards");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("filetests").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable case");
            let input = text.split("// ---- expected\n").next().unwrap_or("");
            let module = parse_module(input).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, module)
        })
        .collect()
}

fn run(module: &Module, pipeline: &[&dyn Phase]) -> Module {
    let mut out = module.clone();
    for phase in pipeline {
        let knobs = Knobs::defaults(phase.knobs());
        let cx = PhaseContext { target: out.target.target(), opt_level: 3, knobs: &knobs, forms: &ori_ir::NoForms };
        ori_ir::phase::run_on_module(*phase, &mut out, &cx).expect("phase runs");
        out.props = out.props.minus(phase.invalidates()).union(phase.establishes());
    }
    out
}

/// Sum of all stall counts: the cycles one warp needs at least.
fn stalls(module: &Module) -> u32 {
    module
        .functions
        .iter()
        .flat_map(|f| f.insts_in_order())
        .filter_map(|(_, _, i)| i.ctrl)
        .map(|c| u32::from(c.stall))
        .sum()
}

const O0: &[&dyn Phase] = &[&ProcessO0WaitsAndSBs];
const SB: &[&dyn Phase] = &[&ComputeScoreboards];
const FULL: &[&dyn Phase] = &[&ScheduleInstructions, &ComputeScoreboards];
const SCHED_O0: &[&dyn Phase] = &[&ScheduleInstructions, &ProcessO0WaitsAndSBs];

#[test]
fn every_output_is_hazard_free() {
    let mut problems = Vec::new();
    println!("{:18} {:>6} {:>6} {:>6} {:>6}", "case", "O0", "SB", "sched", "insts");
    for (path, module) in cases() {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_string();
        let mut totals = Vec::new();
        for pipeline in [O0, SB, FULL, SCHED_O0] {
            let out = run(&module, pipeline);
            for func in &out.functions {
                for v in check_function(func, out.target) {
                    problems.push(format!("{name}: {v}"));
                }
            }
            totals.push(stalls(&out));
        }
        let insts: usize = module.functions.iter().map(|f| f.inst_count()).sum();
        println!("{name:18} {:>6} {:>6} {:>6} {insts:>6}", totals[0], totals[1], totals[2]);
        assert!(totals[1] <= totals[0], "{name}: ComputeScoreboards stalls more than the -O0 phase");
    }
    assert!(problems.is_empty(), "hazards in phase output:\n{}", problems.join("\n"));
}

/// Our scheduled code for every case, as the checker sees it.
fn scheduled() -> Vec<(String, Program, &'static LatencyTable)> {
    cases()
        .into_iter()
        .flat_map(|(path, module)| {
            let out = run(&module, FULL);
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_string();
            let table = LatencyTable::for_sm(out.target);
            out.functions.iter().map(|f| (name.clone(), Program::from_function(f), table)).collect::<Vec<_>>()
        })
        .collect()
}

/// The first later step of the block that reads what step `k` writes.
fn first_reader(p: &Program, k: usize) -> Option<usize> {
    let block = p.blocks.iter().find(|b| b.contains(&k))?;
    (k + 1..block.end).find(|&j| p.steps[j].reads.iter().any(|u| p.steps[k].writes.contains(u)))
}

#[test]
fn broken_schedules_are_caught() {
    let (mut made, mut missed) = (0, Vec::new());
    for (name, program, table) in scheduled() {
        assert!(check_program(&program, table).is_empty());
        for k in 0..program.steps.len() {
            let step = &program.steps[k];
            let Some(reader) = first_reader(&program, k) else { continue };
            let mut mutants = Vec::new();
            if let Some(sb) = step.ctrl.write_sb {
                // Drop the first wait on the result's scoreboard; move the
                // result to a scoreboard nothing up to the reader waits on.
                let waits = |j: usize, sb: u8| program.steps[j].ctrl.wait >> sb & 1 == 1;
                if let Some(j) = (k + 1..=reader).find(|&j| waits(j, sb)) {
                    let mut m = program.clone();
                    m.steps[j].ctrl.wait &= !(1 << sb);
                    mutants.push(("dropped wait", m));
                }
                // A `DEPBAR.LE` on the other scoreboard may cover the
                // result legitimately (operations retire in order).
                let counts = |j: usize, sb: u8| program.steps[j].depbar.is_some_and(|(d, _)| d == sb);
                if let Some(other) = (0..6u8).find(|&o| (k + 1..=reader).all(|j| !waits(j, o) && !counts(j, o))) {
                    let mut m = program.clone();
                    m.steps[k].ctrl.write_sb = Some(other);
                    mutants.push(("reused scoreboard", m));
                }
            } else if table.fixed_latency(step.opcode(), false, false).is_some_and(|l| l > 0) {
                let mut m = program.clone();
                (k..reader).for_each(|j| m.steps[j].ctrl.stall = 0);
                mutants.push(("shortened stall", m));
            }
            for (what, m) in mutants {
                made += 1;
                if check_program(&m, table).is_empty() {
                    missed.push(format!("{name}: {what} at `{}`", step.text));
                }
            }
        }
    }
    println!("{made} mutants of our schedules, {} missed", missed.len());
    assert!(made > 30, "too few mutants ({made})");
    assert!(missed.is_empty(), "mutants the checker missed:\n{}", missed.join("\n"));
}
