//! The hazard checker on NVIDIA's own code: it must accept all of it
//! (which validates the latency table and the checker's model), and it
//! must reject NVIDIA's code once a wait is dropped, a stall shortened or
//! a busy scoreboard reused.

#[path = "support/nvidia.rs"]
mod nvidia;

use ori_ir::Sm;
use sched::hazard::check_program;
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
