//! Every corpus kernel compiled by NVIDIA's ptxas for sm_75..sm_120, whole
//! program and `-c`, read and re-written: the bytes must be identical.

mod common;

use common::{Mode, SMS};
use std::collections::BTreeMap;

#[test]
fn ptxas_cubins_roundtrip_identically() {
    let Some(oracle) = nv_oracle::Oracle::for_test("roundtrip") else { return };
    let Some(corpus) = common::corpus("roundtrip") else { return };
    let (cubins, rejected) = common::compile_all(&oracle, &corpus, &common::work_dir("roundtrip"), SMS);
    assert!(cubins.len() > 500, "only {} cubins compiled", cubins.len());
    let mut tally: BTreeMap<(u32, &str), (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut layout_failures = Vec::new();
    for c in &cubins {
        let bytes = std::fs::read(&c.path).expect("read cubin");
        let entry = tally.entry((c.sm, c.mode.name())).or_default();
        entry.0 += 1;
        let result = elfw::read(&bytes).and_then(|m| Ok((elfw::write(&m)?, m)));
        match result {
            Ok((again, model)) if again == bytes => {
                entry.1 += 1;
                if let Err(why) = relayout_matches(&model) {
                    layout_failures.push(format!("{}: {why}", c.path.display()));
                }
            }
            Ok((again, model)) => failures.push(format!(
                "{}: {}",
                c.path.display(),
                elfw::diff::byte_differences(&model, &bytes, &again, 5).join("; ")
            )),
            Err(e) => failures.push(format!("{}: {e}", c.path.display())),
        }
    }
    for ((sm, mode), (n, same)) in &tally {
        eprintln!("sm_{sm} {mode:>5}: {same}/{n} identical");
    }
    eprintln!("({rejected} kernel/mode pairs rejected by ptxas for sm_75)");
    assert!(tally.keys().any(|k| k.1 == Mode::Relocatable.name()));
    assert!(failures.is_empty(), "{} cubins differ:\n{}", failures.len(), failures.join("\n"));
    assert!(
        layout_failures.is_empty(),
        "layout::assign differs from ptxas on {} cubins:\n{}",
        layout_failures.len(),
        layout_failures.join("\n")
    );
}

/// Recomputing offsets and program headers with `layout::assign` gives ptxas's.
fn relayout_matches(model: &elfw::Cubin) -> Result<(), String> {
    let sm = model.header.eflags().sm();
    let arch = elfw::arch::arch(sm).ok_or(format!("no arch table for sm_{sm}"))?;
    let mut again = model.clone();
    for s in &mut again.sections[1..] {
        s.offset = 0;
    }
    again.program_headers.clear();
    elfw::layout::assign(&mut again, arch.segments).map_err(|e| e.to_string())?;
    if again == *model {
        return Ok(());
    }
    let a = elfw::write(model).map_err(|e| e.to_string())?;
    let b = elfw::write(&again).map_err(|e| e.to_string())?;
    Err(elfw::diff::byte_differences(model, &a, &b, 4).join("; "))
}
