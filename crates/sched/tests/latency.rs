//! The latency table against NVIDIA's code (see `support/measure.rs`).
//!
//! `cargo test -p sched --test latency -- --nocapture` prints the
//! measurement and the rows it implies.

#[path = "support/measure.rs"]
mod measure;
#[path = "support/nvidia.rs"]
mod nvidia;

use ori_ir::Sm;
use sched::latency::LatencyTable;

#[test]
fn table_matches_measurement() {
    let Some(corpus) = nvidia::corpus("table_matches_measurement") else { return };
    let mut problems = Vec::new();
    for sm in [80, 90] {
        let m = measure::measure(corpus, sm);
        println!("{}", measure::report(&m, sm));
        let table = LatencyTable::for_sm(Sm::new(sm));
        let implied = measure::implied_rows(&m);
        println!("rows implied for sm_{sm}:");
        for row in &implied {
            println!("    {}", measure::row_source(row));
            if table.row(row.op) != row {
                problems.push(format!("{}: table has {:?}, measured {:?}", table.family, table.row(row.op), row));
            }
        }
        let (_, guard_safe) = m.guard();
        let guard_min = m.ops.values().filter(|s| s.guard.samples >= 3).filter_map(|s| s.guard.min).min();
        if guard_min.zip(guard_safe).map(|(a, b)| (a as u8, b as u8)) != Some((table.guard.min, table.guard.safe)) {
            problems.push(format!(
                "{}: table guard {:?}, measured {guard_min:?}/{guard_safe:?}",
                table.family, table.guard
            ));
        }
        if m.unsignalled().map(|v| v as u8) != Some(table.unsignalled) {
            problems.push(format!(
                "{}: table unsignalled {}, measured {:?}",
                table.family,
                table.unsignalled,
                m.unsignalled()
            ));
        }
        if m.sb_visible().map(|v| v as u8) != Some(table.sb_visible.min) {
            problems.push(format!("{}: table {:?}, measured {:?}", table.family, table.sb_visible, m.sb_visible()));
        }
    }
    assert!(problems.is_empty(), "the latency table differs from NVIDIA's code:\n{}", problems.join("\n"));
}
