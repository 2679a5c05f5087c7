//! The builder against NVIDIA: for every corpus kernel and SM, extract the
//! code bytes and metadata from ptxas's cubin, rebuild the cubin with
//! `elfw::build`, and compare bytes, `cuobjdump -elf` and `nvdisasm` output.
//! Every cubin the builder writes must also be accepted by `readelf -a`,
//! `cuobjdump -elf` and `nvdisasm` without warnings.

mod common;
#[path = "common/extract.rs"]
mod extract;

use common::Compiled;
use nv_oracle::Oracle;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Exit status and output (stdout + stderr) of `tool args... file`, the file
/// name replaced by FILE.
fn tool(tool: &Path, args: &[&str], file: &Path) -> (bool, String) {
    match Command::new(tool).args(args).arg(file).output() {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
            (out.status.success(), text.replace(&file.display().to_string(), "FILE"))
        }
        Err(e) => (false, format!("cannot run {}: {e}", tool.display())),
    }
}

/// Warnings and errors in a tool's output. readelf's "Unexpected value (N)
/// in info field" is allowed: it is how readelf sees ptxas's `.text.<fn>`
/// sh_info (symbol index, with the register count on sm_7x/sm_8x) in
/// NVIDIA's own cubins too.
fn complaints(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            (l.contains("warning") || l.contains("error") || l.contains("fatal")) && !l.contains("in info field")
        })
        .map(str::to_string)
        .collect()
}

/// Whether binutils' readelf is installed (it is not part of NVIDIA's tools).
fn has_readelf() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        let found = Command::new("readelf").arg("--version").output().is_ok_and(|o| o.status.success());
        if !found {
            eprintln!("builder: readelf not found, its check is skipped");
        }
        found
    })
}

/// What one built cubin gave.
struct Outcome {
    sm: u32,
    mode: &'static str,
    identical: bool,
    same_elf: bool,
    same_sass: bool,
    problems: Vec<String>,
}

fn check(oracle: &Oracle, c: &Compiled, check_sass: bool) -> Outcome {
    let mut problems = Vec::new();
    let bytes = std::fs::read(&c.path).expect("read NVIDIA cubin");
    let nv = elfw::read(&bytes).expect("read NVIDIA cubin");
    let module = extract::extract(&nv);
    let built = match extract::extract_mercury(&nv) {
        Some(mercury) => elfw::build_with_mercury(&module, &mercury),
        None => elfw::build(&module),
    };
    let ours = match built {
        Ok(b) => b,
        Err(e) => {
            problems.push(format!("build failed: {e}"));
            return Outcome {
                sm: c.sm,
                mode: c.mode.name(),
                identical: false,
                same_elf: false,
                same_sass: false,
                problems,
            };
        }
    };
    match elfw::read(&ours) {
        Ok(model) if elfw::write(&model).as_deref() == Ok(ours.as_slice()) => {}
        _ => problems.push("our cubin does not round-trip".into()),
    }
    let identical = ours == bytes;
    let path: PathBuf = c.path.with_extension("elfw.cubin");
    std::fs::write(&path, &ours).expect("write our cubin");
    if has_readelf() {
        let (ok, readelf) = tool(Path::new("readelf"), &["-a", "-W"], &path);
        if !ok || !complaints(&readelf).is_empty() {
            problems.push(format!("readelf -a: {:?}", complaints(&readelf)));
        }
    }
    let ours_elf = tool(&oracle.cuobjdump(), &["-elf"], &path);
    if !ours_elf.0 || !complaints(&ours_elf.1).is_empty() {
        problems.push(format!("cuobjdump -elf: {:?}", complaints(&ours_elf.1)));
    }
    let same_elf = identical || tool(&oracle.cuobjdump(), &["-elf"], &c.path).1 == ours_elf.1;
    let mut same_sass = identical;
    if !identical || check_sass {
        let ours_sass = tool(&oracle.nvdisasm(), &[], &path);
        if !ours_sass.0 || !complaints(&ours_sass.1).is_empty() {
            problems.push(format!("nvdisasm: {:?}", complaints(&ours_sass.1)));
        }
        same_sass = identical || tool(&oracle.nvdisasm(), &[], &c.path).1 == ours_sass.1;
    }
    if !identical {
        let diff = elfw::diff::byte_differences(&nv, &bytes, &ours, 2).join("; ");
        eprintln!("{}: cuobjdump same {same_elf}, nvdisasm same {same_sass}: {diff}", c.path.display());
    }
    Outcome { sm: c.sm, mode: c.mode.name(), identical, same_elf, same_sass, problems }
}

#[derive(Default)]
struct Tally {
    total: usize,
    identical: usize,
    cuobjdump: usize,
    nvdisasm: usize,
}

#[test]
fn builder_reproduces_ptxas() {
    let Some(oracle) = Oracle::for_test("builder") else { return };
    let Some(corpus) = common::corpus("builder") else { return };
    let work = common::work_dir("builder");
    let (cubins, _) = common::compile_all(&oracle, &corpus, &work, &common::sms());
    // nvdisasm is slow (~0.3 s a file): it runs on every cubin that differs
    // and on the first kernel of each SM and mode.
    let mut first = std::collections::HashSet::new();
    let jobs: Vec<(&Compiled, bool)> = cubins.iter().map(|c| (c, first.insert((c.sm, c.mode.name())))).collect();
    let queue = Mutex::new(jobs.into_iter());
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some((c, sass)) = { queue.lock().unwrap().next() } {
                    let o = check(&oracle, c, sass);
                    outcomes.lock().unwrap().push((c.path.clone(), o));
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    let mut tally: BTreeMap<(u32, &str), Tally> = BTreeMap::new();
    let mut problems = Vec::new();
    for (path, o) in &outcomes {
        let t = tally.entry((o.sm, o.mode)).or_default();
        t.total += 1;
        t.identical += usize::from(o.identical);
        t.cuobjdump += usize::from(o.same_elf);
        t.nvdisasm += usize::from(o.same_sass);
        problems.extend(o.problems.iter().map(|p| format!("{}: {p}", path.display())));
    }
    let mut sum = Tally::default();
    for ((sm, mode), t) in &tally {
        eprintln!(
            "sm_{sm} {mode:>5}: {}/{} identical, cuobjdump -elf same {}, nvdisasm same {}",
            t.identical, t.total, t.cuobjdump, t.nvdisasm
        );
        sum.total += t.total;
        sum.identical += t.identical;
        sum.cuobjdump += t.cuobjdump;
        sum.nvdisasm += t.nvdisasm;
    }
    eprintln!(
        "all: {}/{} identical, cuobjdump -elf same {}, nvdisasm same {}",
        sum.identical, sum.total, sum.cuobjdump, sum.nvdisasm
    );
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    // Every corpus cubin of every SM checked is rebuilt byte for byte (sm_110
    // is not checked: its Mercury sections are not modelled, docs/elfw.md).
    let differing: Vec<_> = outcomes.iter().filter(|(_, o)| !o.identical).map(|(p, _)| p.display()).collect();
    assert!(differing.is_empty(), "{} cubins differ: {differing:?}", differing.len());
}
