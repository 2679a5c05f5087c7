//! Issue 6's cubin check: for every corpus kernel our cubin has the same
//! sections and, per attribute section (`.nv.info*`, `.nv.compat`), the
//! same set of record codes as NVIDIA's ptxas 13.5 writes for it, the
//! records both have in NVIDIA's order, and its kernels' code in NVIDIA's
//! order. Read with
//! our ELF reader (`elfw::read`). Differences we keep on purpose are listed
//! in [`ALLOWED`], each with its reason; an allowed difference that no
//! longer occurs fails the test too, so the list stays true.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use nv_oracle::Oracle;
use ptxas::{Options, Source, compile_sources};

/// Which compiler has what the other lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Only {
    /// NVIDIA's cubin has it, ours does not.
    Nvidia,
    /// Ours has it, NVIDIA's does not.
    Ours,
}

/// One difference: a section, or a record code in an attribute section.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Difference {
    /// Corpus file name, e.g. `vadd.sm90.ptx`.
    file: String,
    /// `None` for a section; the attribute section holding the record.
    section: Option<String>,
    /// The section name, or the record's code (`0x1e`).
    item: String,
    only: Only,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whose = match self.only {
            Only::Nvidia => "only NVIDIA's",
            Only::Ours => "only ours",
        };
        match &self.section {
            None => write!(f, "{}: section {} ({whose})", self.file, self.item),
            Some(s) => write!(f, "{}: {s} record {} ({whose})", self.file, self.item),
        }
    }
}

/// An allowed difference: file, attribute section (`""`: the section
/// list), section name or record code, who has it. Reasons in comments.
type Allowed = (&'static str, &'static str, &'static str, Only);

const ALLOWED: &[Allowed] = &[
    // EIATTR_CRS_STACK_SIZE follows the final code: written when it calls
    // or keeps a branch that may split a warp (docs/elfw.md). OriDoPredication
    // if-converts short triangles and diamonds, but not every region NVIDIA
    // predicates (longer bodies, regions with guarded instructions)...
    ("globals_const.sm80.ptx", ".nv.info.globals_const", "0x1e", Only::Ours),
    ("matmul_tiled.sm80.ptx", ".nv.info.sgemm_tiled", "0x1e", Only::Ours),
    ("matmul_tiled.sm90.ptx", ".nv.info.sgemm_tiled", "0x1e", Only::Ours),
    // ... and it predicates some NVIDIA keeps as branches (NVIDIA weighs
    // the loads in a region; ours only counts instructions).
    ("templates.sm80.ptx", ".nv.info._Z6axpy_tIdLi2EEvPKT_PS0_S0_i", "0x1e", Only::Nvidia),
    ("templates.sm90.ptx", ".nv.info._Z6axpy_tIdLi2EEvPKT_PS0_S0_i", "0x1e", Only::Nvidia),
    ("transpose.sm80.ptx", ".nv.info.transpose_padded", "0x1e", Only::Nvidia),
    ("transpose.sm90.ptx", ".nv.info.transpose_padded", "0x1e", Only::Nvidia),
    // NVIDIA calls device functions and its library routines
    // (`__cuda_sm20_*` slow paths) that we inline: no call, so no CRS record
    // where nothing else needs it, and on sm_90 no resolved call
    // relocation, hence no empty `.rela.text.<fn>`. device_calls: besides,
    // the function addresses it takes are relocations NVIDIA resolves
    // (R_CUDA_UNIFIED32_*); OriResolveCallAddresses writes them as plain
    // immediates without telling the writer.
    ("device_calls.sm90.ptx", "", ".rela.text.device_calls", Only::Nvidia),
    ("multi_entry.sm80.ptx", ".nv.info.k_hash", "0x1e", Only::Nvidia),
    ("multi_entry.sm90.ptx", ".nv.info.k_hash", "0x1e", Only::Nvidia),
    ("multi_entry.sm90.ptx", "", ".rela.text.k_both", Only::Nvidia),
    ("multi_entry.sm90.ptx", "", ".rela.text.k_hash", Only::Nvidia),
    ("multi_entry.sm90.ptx", "", ".rela.text.k_smooth", Only::Nvidia),
    ("fp_convert.sm90.ptx", "", ".rela.text.fp_convert", Only::Nvidia),
    ("intdiv.sm90.ptx", "", ".rela.text.intdiv", Only::Nvidia),
    ("math_double.sm90.ptx", "", ".rela.text.math_double", Only::Nvidia),
    ("math_float.sm90.ptx", "", ".rela.text.math_float", Only::Nvidia),
    ("softmax_rows.sm90.ptx", "", ".rela.text.softmax_rows", Only::Nvidia),
    // EIATTR_INT_WARP_WIDE_INSTR_OFFSETS lists warp-wide instructions
    // ptxas adds itself (VOTEU/REDUX of its atomic aggregation, VOTEU.ALL
    // in tma_bulk_copy); our code has none of them.
    ("atomics_mix.sm80.ptx", ".nv.info.atomics_mix", "0x31", Only::Nvidia),
    ("atomics_mix.sm90.ptx", ".nv.info.atomics_mix", "0x31", Only::Nvidia),
    ("tma_bulk_copy.sm90.ptx", ".nv.info.bulk_scale", "0x31", Only::Nvidia),
    // EIATTR_ANNOTATIONS of a `.maxnreg` kernel that spills: payload not
    // decoded.
    ("launch_bounds.sm90.ptx", ".nv.info.lb_maxnreg40", "0x55", Only::Nvidia),
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap().join("shared/corpus/kernels")
}

/// `sm_90` from `vadd.sm90.ptx`, `sm_90a` from `x.sm90a.ptx`.
fn arch_of(file: &str) -> String {
    let stem = file.trim_end_matches(".ptx");
    let sm = stem.rsplit('.').next().unwrap();
    format!("sm_{}", sm.trim_start_matches("sm"))
}

/// Section names, the code sections in file order and, per attribute
/// section, its record codes in file order.
struct Shape {
    sections: BTreeSet<String>,
    code: Vec<String>,
    records: Vec<(String, Vec<String>)>,
}

fn shape(cubin: &[u8], what: &str) -> Shape {
    let cubin = elfw::read(cubin).unwrap_or_else(|e| panic!("{what}: our reader refuses the cubin: {e}"));
    let sections = cubin.sections.iter().map(|s| s.name.clone()).filter(|n| !n.is_empty()).collect();
    let code = cubin.sections.iter().map(|s| s.name.clone()).filter(|n| n.starts_with(".text.")).collect();
    let records = cubin
        .sections
        .iter()
        .filter_map(|s| {
            let codes = s.attributes()?.iter().map(|a| format!("{:#04x}", a.code)).collect();
            Some((s.name.clone(), codes))
        })
        .collect();
    Shape { sections, code, records }
}

/// What one side has that the other lacks.
fn differences(file: &str, ours: &Shape, theirs: &Shape) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut add = |section: Option<&str>, a: &BTreeSet<String>, b: &BTreeSet<String>| {
        for (only, from, other) in [(Only::Ours, a, b), (Only::Nvidia, b, a)] {
            for item in from.difference(other) {
                out.push(Difference {
                    file: file.to_string(),
                    section: section.map(str::to_string),
                    item: item.clone(),
                    only,
                });
            }
        }
    };
    add(None, &ours.sections, &theirs.sections);
    let names: BTreeSet<&String> = ours.records.iter().chain(&theirs.records).map(|(n, _)| n).collect();
    for name in names {
        let find = |s: &Shape| s.records.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap_or_default();
        // A section one side lacks is already reported as such.
        if ours.sections.contains(name) && theirs.sections.contains(name) {
            let set = |codes: &[String]| codes.iter().cloned().collect::<BTreeSet<String>>();
            add(Some(name), &set(&find(ours)), &set(&find(theirs)));
        }
    }
    out
}

/// Attribute sections whose records both sides have come in a different
/// order (ptxas's order is fixed per architecture, oracle-facts 5.3).
fn order_differences(file: &str, ours: &Shape, theirs: &Shape) -> Vec<String> {
    let mut out = Vec::new();
    for (name, codes) in &ours.records {
        let Some((_, other)) = theirs.records.iter().find(|(n, _)| n == name) else { continue };
        let common = |a: &[String], b: &[String]| {
            let mut seq: Vec<String> = a.iter().filter(|c| b.contains(c)).cloned().collect();
            seq.dedup();
            seq
        };
        let (a, b) = (common(codes, other), common(other, codes));
        if a != b {
            out.push(format!("{file}: {name} records in another order: ours {a:?}, NVIDIA's {b:?}"));
        }
    }
    out
}

fn allowed(d: &Difference) -> bool {
    ALLOWED.iter().any(|&(file, section, item, only)| {
        d.file == file && d.section.as_deref().unwrap_or("") == section && d.item == item && d.only == only
    })
}

#[test]
fn corpus_cubins_have_nvidias_sections_and_records() {
    let Some(oracle) = Oracle::for_test("corpus_cubins_have_nvidias_sections_and_records") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("elf_parity");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ptx"))
        .collect();
    files.sort();
    assert!(files.len() > 80, "the corpus has {} kernels", files.len());
    let mut found = Vec::new();
    let mut failures = Vec::new();
    for file in &files {
        let arch = arch_of(file);
        let path = corpus().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let options = Options { arch: arch.parse().unwrap(), ..Options::default() };
        let ours = match compile_sources(&[Source { name: file.clone(), text }], &options) {
            Ok(out) => out.cubin.expect("a cubin"),
            Err(f) => {
                failures.push(format!("{file}: we do not compile it: {:?}", f.report.diagnostics));
                continue;
            }
        };
        let out = dir.join(format!("{file}.cubin"));
        let run = oracle
            .run_ptxas(&[&format!("-arch={arch}"), path.to_str().unwrap(), "-o", out.to_str().unwrap()], &dir)
            .unwrap();
        assert!(run.status.success(), "NVIDIA's ptxas on {file}: {}", String::from_utf8_lossy(&run.stderr));
        let theirs = std::fs::read(&out).unwrap();
        let (ours, theirs) = (shape(&ours, file), shape(&theirs, file));
        found.extend(differences(file, &ours, &theirs));
        failures.extend(order_differences(file, &ours, &theirs));
        if ours.code != theirs.code && ours.code.len() == theirs.code.len() {
            failures.push(format!(
                "{file}: code sections in another order: ours {:?}, NVIDIA's {:?}",
                ours.code, theirs.code
            ));
        }
    }
    failures.extend(found.iter().filter(|d| !allowed(d)).map(|d| format!("not allowed: {d}")));
    for &(file, section, item, only) in ALLOWED {
        let occurs = found.iter().any(|d| {
            d.file == file && d.section.as_deref().unwrap_or("") == section && d.item == item && d.only == only
        });
        if !occurs {
            failures.push(format!("allowed but gone (remove it from ALLOWED): {file} {section} {item} {only:?}"));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

/// sm_86, sm_87, sm_88 and sm_89 on their own: the sm_80 corpus PTX
/// compiled for each, our cubin against NVIDIA's for the same target
/// (sections, records, their order), with the differences [`ALLOWED`] for
/// the file on sm_80; nvdisasm reads ours without complaint. A sample: every fourth file, a different quarter per
/// target, so that the four targets together cover the sm_80 corpus.
#[test]
fn ampere_and_ada_targets_have_nvidias_sections_and_records() {
    let Some(oracle) = Oracle::for_test("ampere_and_ada_targets_have_nvidias_sections_and_records") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("elf_parity_targets");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sm80.ptx"))
        .collect();
    files.sort();
    assert!(files.len() > 40, "the corpus has {} sm_80 kernels", files.len());
    let mut failures = Vec::new();
    for (quarter, arch) in ["sm_86", "sm_87", "sm_88", "sm_89"].into_iter().enumerate() {
        for file in files.iter().skip(quarter).step_by(4) {
            let path = corpus().join(file);
            let text = std::fs::read_to_string(&path).unwrap().replace(".target sm_80", &format!(".target {arch}"));
            let options = Options { arch: arch.parse().unwrap(), ..Options::default() };
            let ours = match compile_sources(&[Source { name: file.clone(), text: text.clone() }], &options) {
                Ok(out) => out.cubin.expect("a cubin"),
                Err(f) => {
                    failures.push(format!("{file} ({arch}): we do not compile it: {:?}", f.report.diagnostics));
                    continue;
                }
            };
            let ptx = dir.join(format!("{file}.{arch}.ptx"));
            std::fs::write(&ptx, text).unwrap();
            let out = dir.join(format!("{file}.{arch}.cubin"));
            let run = oracle
                .run_ptxas(&[&format!("-arch={arch}"), ptx.to_str().unwrap(), "-o", out.to_str().unwrap()], &dir)
                .unwrap();
            assert!(
                run.status.success(),
                "NVIDIA's ptxas on {file} ({arch}): {}",
                String::from_utf8_lossy(&run.stderr)
            );
            let what = format!("{file} ({arch})");
            let mine = dir.join(format!("{file}.{arch}.ours.cubin"));
            std::fs::write(&mine, &ours).unwrap();
            let listing = std::process::Command::new(oracle.nvdisasm()).arg(&mine).output().unwrap();
            if !listing.status.success() || !listing.stderr.is_empty() {
                failures.push(format!("{what}: nvdisasm: {}", String::from_utf8_lossy(&listing.stderr)));
            }
            let (ours, theirs) = (shape(&ours, &what), shape(&std::fs::read(&out).unwrap(), &what));
            failures.extend(
                differences(file, &ours, &theirs).iter().filter(|d| !allowed(d)).map(|d| format!("{arch}: {d}")),
            );
            failures.extend(order_differences(&what, &ours, &theirs));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_missing_or_moved_record_is_a_difference() {
    // The comparison itself: a record only one side has is reported, with
    // the side that has it; records in another order are reported.
    let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let sections: BTreeSet<String> = list(&[".nv.info.k", ".text.k"]).into_iter().collect();
    let ours =
        Shape { sections: sections.clone(), code: Vec::new(), records: vec![(".nv.info.k".into(), list(&["0x1c"]))] };
    let theirs = Shape { sections, code: Vec::new(), records: vec![(".nv.info.k".into(), list(&["0x1c", "0x1e"]))] };
    let found = differences("k.sm90.ptx", &ours, &theirs);
    assert_eq!(
        found,
        vec![Difference {
            file: "k.sm90.ptx".into(),
            section: Some(".nv.info.k".into()),
            item: "0x1e".into(),
            only: Only::Nvidia
        }]
    );
    assert!(!allowed(&found[0]));
    let swapped = Shape {
        sections: ours.sections.clone(),
        code: Vec::new(),
        records: vec![(".nv.info.k".into(), list(&["0x1e", "0x1c"]))],
    };
    assert!(order_differences("k.sm90.ptx", &theirs, &theirs).is_empty());
    assert_eq!(order_differences("k.sm90.ptx", &swapped, &theirs).len(), 1);
}
