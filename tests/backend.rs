//! Ori through the whole back end (allocation, scheduling, scoreboards,
//! encoding, ELF) to a cubin: the schedule passes the hazard checker and
//! NVIDIA's tools read the cubin as what we meant.

use std::path::{Path, PathBuf};
use std::process::Command;

use nv_oracle::Oracle;
use ptxas::{DumpAfter, Options, Source, compile_sources};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_path_buf()
}

fn example() -> Source {
    let path = repo().join("examples/vadd.sm90.ori");
    Source { name: "vadd.sm90.ori".into(), text: std::fs::read_to_string(path).unwrap() }
}

/// Compiles the example at `opt`; returns the cubin and the final IR.
fn compile(opt: u8) -> (Vec<u8>, ori_ir::Module) {
    let options = Options {
        arch: "sm_90".parse().unwrap(),
        opt_level: opt,
        dump_after: DumpAfter::Phases(vec!["MercEncodeAndDecode".into()]),
        ..Options::default()
    };
    let output = compile_sources(&[example()], &options).unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics));
    let dump = &output.report.dumps.last().expect("a dump after encoding").text;
    (output.cubin.expect("a cubin"), ori_ir::text::parse_module(dump).unwrap())
}

#[test]
fn schedules_pass_the_hazard_checker() {
    for opt in [0, 3] {
        let (_, module) = compile(opt);
        for func in &module.functions {
            let violations = sched::hazard::check_function(func, module.target);
            assert!(violations.is_empty(), "-O{opt}: {violations:#?}");
        }
    }
}

#[test]
fn register_count_is_reported() {
    let options = Options { arch: "sm_90".parse().unwrap(), ..Options::default() };
    let output = compile_sources(&[example()], &options).unwrap();
    let vadd = &output.report.functions[0];
    // NVIDIA's ptxas needs 12 for the same kernel from PTX (ptxas-stats.tsv).
    assert!(vadd.registers <= 12, "{} registers", vadd.registers);
    assert_eq!(vadd.cmem0, 0x210 + 28);
}

#[test]
fn nvidia_tools_read_our_cubin_as_we_meant_it() {
    let Some(oracle) = Oracle::for_test("nvidia_tools_read_our_cubin_as_we_meant_it") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("backend");
    std::fs::create_dir_all(&dir).unwrap();
    for opt in [0, 3] {
        let (cubin, module) = compile(opt);
        let path = dir.join(format!("vadd.O{opt}.cubin"));
        std::fs::write(&path, &cubin).unwrap();
        let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(&path).output().unwrap();
        assert!(listing.status.success(), "{}", String::from_utf8_lossy(&listing.stderr));
        assert!(listing.stderr.is_empty(), "{}", String::from_utf8_lossy(&listing.stderr));
        let text = String::from_utf8(listing.stdout).unwrap();
        let mnemonics: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("/*").and_then(|l| l.split_once("*/")).map(|(_, rest)| rest))
            .map(|rest| {
                let rest = rest.trim_start();
                let rest = if rest.starts_with('@') { rest.split_once(' ').unwrap().1 } else { rest };
                rest.split([' ', ';']).next().unwrap()
            })
            .collect();
        let ours: Vec<String> = module.functions[0]
            .insts_in_order()
            .map(|(_, _, i)| {
                std::iter::once(i.op.name()).chain(i.mods.iter().map(|m| m.name())).collect::<Vec<_>>().join(".")
            })
            .collect();
        assert_eq!(&mnemonics[..ours.len()], ours.as_slice(), "-O{opt}: nvdisasm reads what we encoded");
        assert!(mnemonics[ours.len()..].iter().all(|m| ["BRA", "NOP"].contains(m)), "padding: {mnemonics:?}");
        assert_eq!(mnemonics.len() % 8, 0, "code is padded to 128 bytes");

        // The same sections as NVIDIA's cubin of the same kernel from PTX.
        let nvidia = dir.join("nvidia_vadd.cubin");
        let ptx = repo().join("examples/vadd.sm90.ptx");
        let out =
            oracle.run_ptxas(&["-arch=sm_90", ptx.to_str().unwrap(), "-o", nvidia.to_str().unwrap()], &dir).unwrap();
        assert!(out.status.success());
        let sections = |cubin: &Path| {
            let out = Command::new(oracle.cuobjdump()).arg("-elf").arg(cubin).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8(out.stdout).unwrap();
            let mut names: Vec<String> = text
                .lines()
                .skip_while(|l| !l.starts_with("Sections:"))
                .skip(2)
                .take_while(|l| !l.trim().is_empty())
                .filter_map(|l| l.split_whitespace().last().map(str::to_string))
                .collect();
            names.sort();
            names
        };
        assert_eq!(sections(&path), sections(&nvidia));
    }
}
