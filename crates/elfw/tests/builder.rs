//! The builder against NVIDIA: for every corpus kernel and SM, extract the
//! code bytes and metadata from ptxas's cubin, rebuild the cubin with
//! `elfw::build`, and compare bytes, `cuobjdump -elf` and `nvdisasm` output.

mod common;
#[path = "common/extract.rs"]
mod extract;

use common::SMS;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Output of `tool args... file` with the file name removed.
fn tool(tool: &Path, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool).args(args).arg(file).output().expect("run NVIDIA tool");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.replace(&file.display().to_string(), "FILE")
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
    let Some(oracle) = nv_oracle::Oracle::for_test("builder") else { return };
    let Some(corpus) = common::corpus("builder") else { return };
    let work = common::work_dir("builder");
    let (cubins, _) = common::compile_all(&oracle, &corpus, &work, SMS);
    let mut tally: BTreeMap<(u32, &str), Tally> = BTreeMap::new();
    let mut report = Vec::new();
    for c in &cubins {
        let bytes = std::fs::read(&c.path).expect("read cubin");
        let nv = elfw::read(&bytes).expect("read NVIDIA cubin");
        let module = extract::extract(&nv);
        let t = tally.entry((c.sm, c.mode.name())).or_default();
        t.total += 1;
        let ours = match elfw::build(&module) {
            Ok(b) => b,
            Err(e) => {
                report.push(format!("{}: build failed: {e}", c.path.display()));
                continue;
            }
        };
        let model = elfw::read(&ours).expect("our cubin reads back");
        assert_eq!(elfw::write(&model).as_deref(), Ok(ours.as_slice()), "our cubin round-trips");
        if ours == bytes {
            t.identical += 1;
            t.cuobjdump += 1;
            t.nvdisasm += 1;
            continue;
        }
        let path = c.path.with_extension("elfw.cubin");
        std::fs::write(&path, &ours).expect("write our cubin");
        let same_elf = tool(&oracle.cuobjdump(), &["-elf"], &c.path) == tool(&oracle.cuobjdump(), &["-elf"], &path);
        let same_sass = tool(&oracle.nvdisasm(), &[], &c.path) == tool(&oracle.nvdisasm(), &[], &path);
        t.cuobjdump += usize::from(same_elf);
        t.nvdisasm += usize::from(same_sass);
        let diff = elfw::diff::byte_differences(&nv, &bytes, &ours, 3).join("; ");
        report.push(format!("{}: cuobjdump {same_elf} nvdisasm {same_sass}: {diff}", c.path.display()));
    }
    for r in &report {
        eprintln!("{r}");
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
    assert!(sum.total > 500);
}
