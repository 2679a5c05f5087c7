//! The hazard checker on NVIDIA's own code: it must accept all of it
//! (which validates the latency table and the checker's model), and it
//! must reject NVIDIA's code once a wait is dropped, a stall shortened or
//! a busy scoreboard reused.

#[path = "support/nvidia.rs"]
mod nvidia;

use ori_ir::Sm;
use sched::hazard::{Program, check_program};
use sched::latency::LatencyTable;

#[test]
fn nvidia_code_has_no_violations() {
    let Some(corpus) = nvidia::corpus("nvidia_code_has_no_violations") else { return };
    let mut checked = [0usize; 2];
    let mut problems = Vec::new();
    for listing in corpus {
        let table = LatencyTable::for_sm(Sm::new(listing.sm));
        for program in &listing.programs {
            checked[usize::from(listing.sm == 90)] += program.steps.len();
            for v in check_program(program, table) {
                problems.push(format!("{}: {v}", listing.name));
            }
        }
    }
    println!("checked {} sm_80 and {} sm_90 instructions of NVIDIA's code", checked[0], checked[1]);
    assert!(problems.is_empty(), "{} violations in NVIDIA's code:\n{}", problems.len(), problems.join("\n"));
}

/// Applies `mutate` at every position it accepts, in every NVIDIA program,
/// and counts (mutants, mutants with a violation the original lacks).
/// Every `EVERY`th candidate becomes a mutant: checking a whole function
/// per mutant is the cost.
const EVERY: usize = 5;

fn mutants(
    corpus: &[nvidia::Listing],
    mut mutate: impl FnMut(&LatencyTable, &Program, usize) -> Option<Program>,
) -> (usize, usize) {
    let (mut candidates, mut made, mut caught) = (0, 0, 0);
    for listing in corpus {
        let table = LatencyTable::for_sm(Sm::new(listing.sm));
        for program in &listing.programs {
            for k in 0..program.steps.len() {
                if let Some(mutant) = mutate(table, program, k) {
                    candidates += 1;
                    if candidates % EVERY != 0 {
                        continue;
                    }
                    made += 1;
                    let found = check_program(&mutant, table);
                    if found.is_empty() {
                        println!("not caught: {} #{k} `{}`", program.name, program.steps[k].text);
                    }
                    caught += usize::from(!found.is_empty());
                }
            }
        }
    }
    (made, caught)
}

/// The first later step of the same block that reads a unit `k` writes,
/// with the stall sum up to it.
fn first_reader(p: &Program, k: usize) -> Option<(usize, u32)> {
    let block = p.blocks.iter().find(|b| b.contains(&k))?;
    let step = &p.steps[k];
    let mut distance = u32::from(step.ctrl.stall);
    for j in k + 1..block.end {
        let next = &p.steps[j];
        if next.reads.iter().any(|u| step.writes.contains(u)) {
            return Some((j, distance));
        }
        if next.writes.iter().any(|u| step.writes.contains(u)) {
            return None;
        }
        distance += u32::from(next.ctrl.stall);
    }
    None
}

#[test]
fn dropped_waits_are_caught() {
    let Some(corpus) = nvidia::corpus("dropped_waits_are_caught") else { return };
    // Drop the wait of the first reader of a scoreboarded result, when no
    // instruction in between waits on that scoreboard.
    let (made, caught) = mutants(corpus, |_, p, k| {
        let sb = p.steps[k].ctrl.write_sb?;
        let (reader, _) = first_reader(p, k)?;
        let bit = 1u8 << sb;
        if p.steps[k + 1..reader].iter().any(|s| s.ctrl.wait & bit != 0 || s.depbar.is_some()) {
            return None;
        }
        // The checker does not look into calls (see `hazard`).
        if p.steps[reader].ctrl.wait & bit == 0 || p.steps[reader].opcode() == "CALL" {
            return None;
        }
        let mut m = p.clone();
        m.steps[reader].ctrl.wait &= !bit;
        Some(m)
    });
    println!("dropped waits: {caught} of {made} mutants caught");
    assert!(made > 200, "too few mutants ({made})");
    assert_eq!(caught, made, "every dropped wait before a dependent read must be caught");
}

#[test]
fn shortened_stalls_are_caught() {
    let Some(corpus) = nvidia::corpus("shortened_stalls_are_caught") else { return };
    // Where a fixed-latency result is read exactly at the table's minimum
    // distance with no wait in between, one cycle less must be caught.
    let (made, caught) = mutants(corpus, |table, p, k| {
        let step = &p.steps[k];
        if step.ctrl.write_sb.is_some() || step.opcode() == "CALL" {
            return None;
        }
        let (reader, distance) = first_reader(p, k)?;
        let guard = p.steps[reader].guard.is_some_and(|g| step.writes.contains(&g));
        if table.fixed_latency(step.opcode(), guard, false) != Some(distance as u8) {
            return None;
        }
        let last = (k..reader).rev().find(|&j| p.steps[j].ctrl.stall > 0)?;
        let mut m = p.clone();
        m.steps[last].ctrl.stall -= 1;
        Some(m)
    });
    println!("shortened stalls: {caught} of {made} mutants caught");
    assert!(made > 200, "too few mutants ({made})");
    assert_eq!(caught, made, "a read one cycle sooner than NVIDIA's minimum must be caught");
}

#[test]
fn reused_busy_scoreboards_are_caught() {
    let Some(corpus) = nvidia::corpus("reused_busy_scoreboards_are_caught") else { return };
    // Move a variable-latency producer onto another scoreboard that is busy
    // (another operation is pending on it): its reader still waits on the
    // old one.
    let (made, caught) = mutants(corpus, |_, p, k| {
        let sb = p.steps[k].ctrl.write_sb?;
        let (reader, _) = first_reader(p, k)?;
        let busy = (0..6u8)
            .find(|&other| other != sb && p.steps[..k].iter().rev().take(8).any(|s| s.ctrl.write_sb == Some(other)))?;
        if p.steps[k + 1..=reader].iter().any(|s| s.ctrl.wait & (1 << busy) != 0 || s.depbar.is_some()) {
            return None;
        }
        let mut m = p.clone();
        m.steps[k].ctrl.write_sb = Some(busy);
        Some(m)
    });
    println!("reused busy scoreboards: {caught} of {made} mutants caught");
    assert!(made > 50, "too few mutants ({made})");
    assert_eq!(caught, made, "a result moved to a scoreboard its reader does not wait on must be caught");
}

#[test]
fn yield_rule_agrees_with_nvidia() {
    let Some(corpus) = nvidia::corpus("yield_rule_agrees_with_nvidia") else { return };
    let (mut total, mut agree) = (0usize, 0usize);
    for program in corpus.iter().flat_map(|l| &l.programs) {
        for (k, step) in program.steps.iter().enumerate() {
            let next_reads = program.steps.get(k + 1).is_some_and(|n| n.reads.iter().any(|u| step.writes.contains(u)));
            total += 1;
            agree += usize::from(sched::yield_bit(step.ctrl.stall, next_reads) == step.ctrl.yield_);
        }
    }
    let percent = agree as f64 * 100.0 / total as f64;
    println!("yield rule agrees with NVIDIA on {agree} of {total} instructions ({percent:.1} %)");
    assert!(percent > 85.0, "the yield rule drifted from NVIDIA's ({percent:.1} %)");
}
