//! The latency table against NVIDIA's code (see `support/measure.rs`).
//!
//! `cargo test -p sched --test latency -- --nocapture` prints the
//! measurement and the rows it implies.

#[path = "support/measure.rs"]
mod measure;
#[path = "support/nvidia.rs"]
mod nvidia;

use sched::latency::{LatencyTable, TABLES};

#[test]
fn table_matches_measurement() {
    let Some(corpus) = nvidia::corpus("table_matches_measurement") else { return };
    let Some(targets) = nvidia::targets("table_matches_measurement") else { return };
    let Some(triton) = nvidia::triton_sm100("table_matches_measurement") else { return };
    let mut problems = Vec::new();
    for table in TABLES {
        let m = measure::measure(corpus.iter().chain(targets), table.serves);
        let family = table.family;
        println!("{}", measure::report(&m, family));
        assert!(m.instructions > 0, "{family}: no NVIDIA code of {:?} to measure", table.serves);
        let mut implied = measure::implied_rows(&m);
        let mut pairs = measure::implied_pairs(&m, &implied);
        // Opcodes only Triton's sm_100a code uses (sm_100's packed f32):
        // their rows and pairs from the measurement with that code added,
        // every other row and pair from the corpus and targets alone.
        if table.serves.contains(&100) {
            let with = measure::measure(corpus.iter().chain(targets).chain(triton), table.serves);
            println!("{}", measure::report(&with, family));
            let only: Vec<_> = measure::implied_rows(&with).into_iter().filter(|r| !m.ops.contains_key(r.op)).collect();
            assert!(only.iter().any(|r| r.op == "FFMA2"), "{family}: no FFMA2 in Triton's sm_100a code");
            pairs.extend(measure::implied_pairs(&with, &only));
            pairs.sort_by_key(|p| (p.op, p.reader));
            implied.extend(only);
            implied.sort_by_key(|r| r.op);
        }
        println!("rows implied for {family}:");
        for row in &implied {
            println!("    {}", measure::row_source(row));
            if table.own_row(row.op) != Some(row) {
                problems.push(format!("{}: table has {:?}, measured {:?}", table.family, table.row(row.op), row));
            }
        }
        println!("pairs implied for {family}:");
        for pair in &pairs {
            println!("    {}", measure::pair_source(pair));
        }
        if table.pairs != pairs.as_slice() {
            let missing: Vec<_> = pairs.iter().filter(|p| !table.pairs.contains(p)).collect();
            let extra: Vec<_> = table.pairs.iter().filter(|p| !pairs.contains(p)).collect();
            problems.push(format!("{}: pairs differ: measured only {missing:?}, table only {extra:?}", table.family));
        }
        let (_, guard_safe) = m.guard();
        let guard_min = m.guard_producers().filter_map(|s| s.guard.min).min();
        if guard_min.zip(guard_safe).map(|(a, b)| (a as u8, b as u8)) != Some((table.guard.min, table.guard.safe)) {
            problems.push(format!(
                "{}: table guard {:?}, measured {guard_min:?}/{guard_safe:?}",
                table.family, table.guard
            ));
        }
        problems.extend(early_predicate_problems(&m, table));
        if m.unsignalled().map(|v| v as u8) != Some(table.unsignalled) {
            problems.push(format!(
                "{}: table unsignalled {}, measured {:?}",
                table.family,
                table.unsignalled,
                m.unsignalled()
            ));
        }
        let (guard_all, _) = m.guard();
        println!(
            "{family} facts: guard {guard_min:?}/{guard_safe:?} (all samples {guard_all:?}), sb_visible {:?}, unsignalled {:?}",
            m.sb_visible(),
            m.unsignalled()
        );
        if m.sb_visible().map(|v| v as u8) != Some(table.sb_visible.min) {
            problems.push(format!("{}: table {:?}, measured {:?}", table.family, table.sb_visible, m.sb_visible()));
        }
    }
    assert!(problems.is_empty(), "the latency table differs from NVIDIA's code:\n{}", problems.join("\n"));
}

/// The table's `early_predicates` against NVIDIA's code: a listed reader
/// never takes a fixed-latency predicate sooner than the guard latency
/// (counting every sample: waits only make the real distance longer), an
/// unlisted one that NVIDIA placed sooner (wait-free) is right to be
/// unlisted, and a reader seen at least twice, never sooner, is listed.
fn early_predicate_problems(m: &measure::Measured, table: &LatencyTable) -> Vec<String> {
    use sched::latency::Lat;
    let mut all: std::collections::BTreeMap<&str, (u32, u32, usize)> = Default::default();
    for (op, stats) in &m.ops {
        if !matches!(table.row(op).lat, Lat::Fixed { .. }) {
            continue;
        }
        for (reader, (every, free)) in &stats.pred_src {
            let e = all.entry(reader.as_str()).or_insert((u32::MAX, u32::MAX, 0));
            e.0 = e.0.min(every.min.unwrap_or(u32::MAX));
            e.1 = e.1.min(free.min.unwrap_or(u32::MAX));
            e.2 += every.samples;
        }
    }
    let guard = u32::from(table.guard.min);
    let mut problems = Vec::new();
    for (reader, (every, free, samples)) in all {
        let free = if free == u32::MAX { "-".to_string() } else { free.to_string() };
        println!("{}: predicate source of {reader}: min {every} ({samples} samples), wait-free {free}", table.family);
        let listed = table.reads_predicates_early(reader);
        if listed && every < guard {
            problems.push(format!(
                "{}: {reader} is in early_predicates but reads a predicate {every} cycles after it is written",
                table.family
            ));
        }
        if !listed && every >= guard && samples >= 2 {
            problems.push(format!("{}: {reader} never reads a predicate sooner than {every} cycles ({samples} samples): add it to early_predicates", table.family));
        }
    }
    problems
}

/// NVIDIA's code of the corpus and the Triton fixtures (sm_80, sm_90a:
/// `cp.async` pipelines, tensor cores, wgmma) against the distances we
/// emit: a reader NVIDIA never places closer to its fixed-latency producer
/// than some distance, over [`SPACING_SAMPLES`] samples or more, while we
/// emit less. `LDGSTS` reading its zero-fill predicate was such a reader
/// (306 samples, never sooner than 13 cycles, ours 5: tiles of zeros on an
/// H100) before it joined `early_predicates`.
#[test]
fn nvidia_code_keeps_no_spacing_we_shorten() {
    let test = "nvidia_code_keeps_no_spacing_we_shorten";
    let Some(corpus) = nvidia::corpus(test) else { return };
    let Some(triton) = nvidia::triton(test) else { return };
    let mut findings = Vec::new();
    for table in TABLES.iter().filter(|t| t.serves.iter().any(|sm| [80, 90].contains(sm))) {
        let m = measure::measure(corpus.iter().chain(triton), table.serves);
        assert!(m.instructions > 0, "{}: no NVIDIA code of the Triton fixtures", table.family);
        for f in measure::spacing_findings(&m, table, SPACING_SAMPLES) {
            println!("{}: {f}", table.family);
            findings.push(format!("{}: {f}", table.family));
        }
    }
    let unexplained: Vec<_> = findings.iter().filter(|f| !SPACING_KNOWN.iter().any(|k| f.starts_with(k))).collect();
    let stale: Vec<_> = SPACING_KNOWN.iter().filter(|k| !findings.iter().any(|f| f.starts_with(*k))).collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "NVIDIA's Triton code keeps spacing our table does not:\n{unexplained:#?}\nlisted but no longer found: {stale:#?}"
    );
}

/// Samples a reader class needs before its smallest distance counts.
const SPACING_SAMPLES: usize = 20;

/// Findings of [`nvidia_code_keeps_no_spacing_we_shorten`] (by prefix:
/// `family: producer -> reader (how it reads)`) reported to the lead and
/// not settled: no GPU run has shown any of them to be a latency, and the
/// table changes only on such evidence. `Register(None)` is mostly a
/// reader that overwrites its source (`MUFU.EX2 R4, R4`, an `HMMA`
/// accumulating in place), whose operand the slot search cannot place.
/// `FMUL -> HGMMA` is the accumulator scaling before a wgmma fence, and
/// NVIDIA's distance there is the fence's, not FMUL's.
const SPACING_KNOWN: &[&str] = &[
    "sm_80: FMUL -> HMMA (Register(None))",
    "sm_80: FMUL -> MUFU (Register(None))",
    "sm_80: FSEL -> FMNMX (Register(Some(0)))",
    "sm_80: LOP3 -> I2F (Register(None))",
    "sm_80: PRMT -> STS (Register(None))",
    "sm_90: FMUL -> HGMMA (Register(None))",
    "sm_90: FMUL -> MUFU (Register(None))",
    "sm_90: SHF -> STL (Register(None))",
    "sm_90: UMOV -> DFMA (Register(Some(1)))",
    "sm_90: UMOV -> DFMA (Register(Some(2)))",
];
