//! `-g` DWARF (docs/elfw.md "DWARF"): the PTX's `.debug_*` sections
//! copied into the cubin as NVIDIA's ptxas copies them.
//!
//! Inputs: `tests/dwarf/*.ptx`, NVRTC 13.5's `-G` output for the `.cu`
//! beside them (`.target sm_XY, debug`, which ptxas compiles as with `-g`).
//! Compared with NVIDIA's cubin for the same PTX: the names and order of
//! the DWARF sections and their relocation sections, `e_flags`, every
//! byte outside the fields holding code addresses and frame offsets, and
//! the relocations' offsets, types and symbols (but for device functions
//! we place in their callers). The addresses themselves differ because
//! the code does; each must lie inside its function.

use std::path::{Path, PathBuf};
use std::process::Command;

use elfw::SectionData;
use nv_oracle::Oracle;

const CASES: &[(&str, &str)] = &[
    ("vadd.sm90.ptx", "sm_90"),
    ("local_array.sm90.ptx", "sm_90"),
    ("local_array.sm80.ptx", "sm_80"),
    ("multi_entry.sm90.ptx", "sm_90"),
];

const DW_OP_FBREG: u8 = 0x91;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/dwarf").join(name)
}

fn compile(ptxas: &Path, ptx: &Path, arch: &str, extra: &[&str], out: &Path) -> elfw::Cubin {
    let run = Command::new(ptxas).arg("-arch").arg(arch).args(extra).arg(ptx).arg("-o").arg(out).output().unwrap();
    assert!(run.status.success(), "{} {arch}: {}", ptx.display(), String::from_utf8_lossy(&run.stderr));
    elfw::read(&std::fs::read(out).unwrap()).unwrap()
}

fn is_dwarf(name: &str) -> bool {
    name.starts_with(".debug_") && name != ".debug_frame" && name != ".debug_line"
}

fn dwarf_names(cubin: &elfw::Cubin) -> Vec<&str> {
    cubin
        .sections
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| is_dwarf(n) || n.strip_prefix(".rela").or_else(|| n.strip_prefix(".rel")).is_some_and(is_dwarf))
        .collect()
}

fn bytes<'c>(cubin: &'c elfw::Cubin, name: &str) -> &'c [u8] {
    cubin.sections.iter().find(|s| s.name == name).and_then(|s| s.bytes()).unwrap()
}

/// The relocations of `.rel[a]<name>` as (offset, type, symbol name,
/// addend); a REL addend is the field's value.
fn relocations(cubin: &elfw::Cubin, name: &str) -> Vec<(u64, u32, String, i64)> {
    let symtab = cubin.sections.iter().find(|s| s.name == ".symtab").unwrap();
    let SectionData::Symbols(symbols) = &symtab.data else { panic!("no symbols") };
    let symbol = |i: u32| symbols[i as usize].name.clone();
    let field = |offset: u64| i64::from_le_bytes(bytes(cubin, name)[offset as usize..][..8].try_into().unwrap());
    let relocs = cubin.sections.iter().find(|s| s.name == format!(".rela{name}") || s.name == format!(".rel{name}"));
    match relocs.map(|s| &s.data) {
        None => vec![],
        Some(SectionData::Rela(list)) => list.iter().map(|r| (r.offset, r.kind, symbol(r.sym), r.addend)).collect(),
        Some(SectionData::Rel(list)) => {
            list.iter().map(|r| (r.offset, r.kind, symbol(r.sym), field(r.offset))).collect()
        }
        Some(_) => panic!("{name}'s relocations are not a relocation section"),
    }
}

#[test]
fn dwarf_sections_are_nvidias() {
    let Some(oracle) = Oracle::for_test("dwarf_sections_are_nvidias") else { return };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dwarf");
    std::fs::create_dir_all(&out).unwrap();
    for (i, (file, arch)) in CASES.iter().enumerate() {
        let ptx = fixture(file);
        let theirs = compile(&oracle.ptxas(), &ptx, arch, &[], &out.join(format!("{i}.nv.cubin")));
        let ours = compile(Path::new(env!("CARGO_BIN_EXE_ptxas")), &ptx, arch, &[], &out.join(format!("{i}.cubin")));
        let names = dwarf_names(&theirs);
        assert!(names.contains(&".debug_info"), "{file}: NVIDIA wrote no .debug_info");
        assert_eq!(dwarf_names(&ours), names, "{file}: DWARF sections");
        assert_eq!(ours.header.flags, theirs.header.flags, "{file}: e_flags");
        for name in names.iter().filter(|n| is_dwarf(n)) {
            let (a, b) = (bytes(&theirs, name), bytes(&ours, name));
            assert_eq!(a.len(), b.len(), "{file} {name}: size");
            let (nv_relocs, our_relocs) = (relocations(&theirs, name), relocations(&ours, name));
            let shape = |l: &[(u64, u32, String, i64)]| l.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>();
            assert_eq!(shape(&our_relocs), shape(&nv_relocs), "{file} {name}: relocations");
            // The same function, unless ours placed NVIDIA's (-O0 keeps
            // device functions apart, our whole programs place them in
            // their callers).
            let has_code = |f: &str| ours.sections.iter().any(|s| s.name == format!(".text.{f}"));
            let variable = |f: &str| !theirs.sections.iter().any(|s| s.name == format!(".text.{f}"));
            for (mine, theirs) in our_relocs.iter().zip(&nv_relocs) {
                if has_code(&theirs.2) || variable(&theirs.2) {
                    assert_eq!(mine.2, theirs.2, "{file} {name}+{:#x}: relocation symbol", mine.0);
                }
                if variable(&theirs.2) {
                    assert_eq!(mine.3, theirs.3, "{file} {name}+{:#x}: variable address", mine.0);
                }
            }
            // Code addresses: inside the function's code.
            for (offset, _, symbol, addend) in &our_relocs {
                let Some(code) = ours.sections.iter().find(|s| s.name == format!(".text.{symbol}")) else { continue };
                let size = code.data.size() as i64;
                assert!((0..=size).contains(addend), "{file} {name}+{offset:#x}: {symbol}+{addend:#x}");
                let field = &b[*offset as usize..][..8];
                assert_eq!(field, addend.to_le_bytes(), "{file} {name}+{offset:#x}: the field holds the address");
            }
            let mut masked = vec![false; a.len()];
            for (offset, ..) in &nv_relocs {
                masked[*offset as usize..][..8].fill(true);
            }
            // A local variable's `DW_OP_fbreg <frame offset>` (the frames differ).
            for at in 0..a.len() {
                if a[at] == DW_OP_FBREG
                    && b[at] == DW_OP_FBREG
                    && at + 9 <= a.len()
                    && a[at + 1..at + 9] != b[at + 1..at + 9]
                {
                    masked[at + 1..at + 9].fill(true);
                }
            }
            let differ: Vec<usize> = (0..a.len()).filter(|&k| !masked[k] && a[k] != b[k]).collect();
            assert!(differ.is_empty(), "{file} {name}: bytes differ at {differ:x?}");
        }
    }
}

/// `.target ..., debug` is `-g`: an explicit optimization level above 0
/// is refused with ptxas's message (measured with ptxas 13.5).
#[test]
fn debug_target_refuses_optimization() {
    let ptx = fixture("vadd.sm90.ptx");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dwarf-o3.cubin");
    let _ = std::fs::remove_file(&out);
    let run = |level: &str| {
        let args = ["-arch", "sm_90", level];
        Command::new(env!("CARGO_BIN_EXE_ptxas")).args(args).arg(&ptx).arg("-o").arg(&out).output().unwrap()
    };
    let refused = run("-O3");
    assert_eq!(refused.status.code(), Some(255));
    assert_eq!(String::from_utf8_lossy(&refused.stderr), "ptxas fatal   : Optimized debugging not supported\n");
    assert!(!out.exists());
    let compiled = run("-O0");
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    let cubin = elfw::read(&std::fs::read(&out).unwrap()).unwrap();
    assert!(cubin.sections.iter().any(|s| s.name == ".debug_info"));
}
