//! Line tables (`-lineinfo`, or `.loc` in the PTX): every row of ours must
//! name the PTX statement and the `.loc` the code came from, and the
//! tables must have NVIDIA's form (sections, e_flags, file table, PTX
//! text) for the same PTX.
//!
//! Inputs: Triton fixtures (`tests/triton/`, whose PTX always has `.loc`s)
//! and `tests/lineinfo/calls.sm{80,90}.ptx`, NVRTC 13.5's
//! `--gpu-architecture=compute_{80,90} -lineinfo` output for `calls.cu`
//! (the `.file` path shortened).

use std::path::{Path, PathBuf};
use std::process::Command;

use nv_oracle::Oracle;

/// (PTX, `-arch`, extra options). Dropout and softmax have inlined code
/// (`.loc ..., inlined_at`): NVIDIA's inlining extension.
const CASES: &[(&str, &str, &[&str])] = &[
    ("triton/dropout.sm80.ptx", "sm_80", &["-lineinfo"]),
    ("triton/softmax.sm90a.ptx", "sm_90a", &[]),
    ("triton/add.sm80.ptx", "sm_80", &[]),
    ("triton/gelu.sm90a.ptx", "sm_90a", &["-lineinfo"]),
    ("triton/histogram.sm80.ptx", "sm_80", &["-lineinfo"]),
    ("triton/intdiv.sm90a.ptx", "sm_90a", &[]),
    ("lineinfo/calls.sm80.ptx", "sm_80", &["-lineinfo"]),
    ("triton/add.sm80.ptx", "sm_80", &["-lineinfo", "-c"]),
    ("lineinfo/calls.sm90.ptx", "sm_90", &["-lineinfo"]),
];

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests")
}

fn compile(ptxas: &Path, ptx: &Path, arch: &str, extra: &[&str], out: &Path) -> elfw::Cubin {
    let run = Command::new(ptxas).arg("-arch").arg(arch).args(extra).arg(ptx).arg("-o").arg(out).output().unwrap();
    assert!(run.status.success(), "{} {arch} {extra:?}: {}", ptx.display(), String::from_utf8_lossy(&run.stderr));
    elfw::read(&std::fs::read(out).unwrap()).unwrap()
}

fn section<'c>(cubin: &'c elfw::Cubin, prefix: &str) -> Option<&'c [u8]> {
    cubin.sections.iter().find(|s| s.name.starts_with(prefix)).and_then(|s| s.bytes())
}

fn uleb(b: &[u8], pos: &mut usize) -> u64 {
    let (mut v, mut shift) = (0, 0);
    loop {
        let byte = b[*pos];
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return v;
        }
    }
}

fn sleb(b: &[u8], pos: &mut usize) -> i64 {
    let (mut v, mut shift) = (0i64, 0);
    loop {
        let byte = b[*pos];
        *pos += 1;
        v |= i64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            if byte & 0x40 != 0 {
                v |= -1 << shift;
            }
            return v;
        }
    }
}

/// A decoded line program: the header bytes and per sequence its rows
/// (offset, file, line) and end offset.
struct Program {
    header: Vec<u8>,
    sequences: Vec<(Vec<(u64, u64, i64)>, u64)>,
}

fn decode(b: &[u8]) -> Program {
    let unit_end = 4 + u32::from_le_bytes(b[0..4].try_into().unwrap()) as usize;
    assert_eq!(unit_end, b.len(), "one unit per table");
    let start = 10 + u32::from_le_bytes(b[6..10].try_into().unwrap()) as usize;
    let (line_base, line_range, opcode_base) = (i64::from(b[12] as i8), u64::from(b[13]), b[14]);
    let mut pos = start;
    let mut sequences = Vec::new();
    let (mut rows, mut address, mut file, mut line) = (Vec::new(), 0u64, 1u64, 1i64);
    while pos < unit_end {
        let op = b[pos];
        pos += 1;
        match op {
            0 => {
                let len = uleb(b, &mut pos) as usize;
                match b[pos] {
                    1 => {
                        sequences.push((std::mem::take(&mut rows), address));
                        (address, file, line) = (0, 1, 1);
                    }
                    2 => address = u64::from_le_bytes(b[pos + 1..pos + 9].try_into().unwrap()),
                    // NVIDIA's inlining extension: the call site's row.
                    0x90 => {}
                    other => panic!("extended opcode {other:#x}"),
                }
                pos += len;
            }
            1 => rows.push((address, file, line)),
            2 => address = address.checked_add_signed(sleb(b, &mut pos)).unwrap(),
            3 => line += sleb(b, &mut pos),
            4 => file = uleb(b, &mut pos),
            10 => {}
            op if op >= opcode_base => {
                let adjusted = u64::from(op - opcode_base);
                address += adjusted / line_range;
                line += line_base + (adjusted % line_range) as i64;
                rows.push((address, file, line));
            }
            other => panic!("standard opcode {other}"),
        }
    }
    Program { header: b[..start].to_vec(), sequences }
}

/// The `.loc` (file, line) in force at 1-based PTX line `at`: the last one
/// before it in its function, or for the line of the body's `{` the
/// body's first.
fn loc_in_force(ptx: &[&str], at: usize) -> Option<(u64, i64)> {
    let parse = |l: &str| {
        let mut words = l.trim_start().strip_prefix(".loc")?.split_whitespace();
        let file = words.next()?.parse().ok()?;
        let line = words.next()?.trim_end_matches(',').parse().ok()?;
        Some((file, line))
    };
    let before = ptx[..at - 1].iter().rev().take_while(|l| !l.starts_with('}')).find_map(|l| parse(l));
    before.or_else(|| ptx[at..].iter().find_map(|l| parse(l)))
}

/// The last row at or before `offset`.
fn at(rows: &[(u64, u64, i64)], offset: u64) -> Option<(u64, i64)> {
    rows.iter().take_while(|r| r.0 <= offset).last().map(|r| (r.1, r.2))
}

#[test]
fn line_tables_name_the_ptx_statement_and_its_loc() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lineinfo");
    std::fs::create_dir_all(&out).unwrap();
    for (i, (file, arch, extra)) in CASES.iter().enumerate() {
        let ptx_path = tests_dir().join(file);
        let ptx_text = std::fs::read_to_string(&ptx_path).unwrap();
        let ptx: Vec<&str> = ptx_text.split('\n').collect();
        let ours =
            compile(Path::new(env!("CARGO_BIN_EXE_ptxas")), &ptx_path, arch, extra, &out.join(format!("{i}.cubin")));
        let case = format!("{file} {arch} {extra:?}");
        let text = section(&ours, ".nv_debug_ptx_txt").unwrap_or_else(|| panic!("{case}: no .nv_debug_ptx_txt"));
        let text: Vec<&[u8]> = text.split(|&b| b == 0).collect();
        let sass = decode(section(&ours, ".nv_debug_line_sass").unwrap());
        let source = decode(section(&ours, ".debug_line").unwrap());
        let functions = ours.sections.iter().filter(|s| s.name.starts_with(".text.")).count();
        assert_eq!(sass.sequences.len(), functions, "{case}: one .nv_debug_line_sass sequence per function");
        assert_eq!(source.sequences.len(), functions, "{case}: one .debug_line sequence per function");
        for ((ptx_rows, end), (source_rows, source_end)) in sass.sequences.iter().zip(&source.sequences) {
            assert_eq!(end, source_end, "{case}: sequences end together");
            assert!(ptx_rows.len() > 1, "{case}: a function with one row");
            for &(offset, _, line) in ptx_rows {
                let line = line as usize;
                let statement = ptx[line - 1].trim();
                assert!(!text[line - 1].is_empty(), "{case}: row at {offset:#x} names an empty text line {line}");
                assert!(
                    statement == "{" || !statement.starts_with(['.', '/', '$', '}']),
                    "{case}: row at {offset:#x} names PTX line {line}, not an instruction: {statement}"
                );
            }
            // Every instruction's source line is the `.loc` in force at its PTX line.
            for offset in (0..*end).step_by(16) {
                let Some((_, ptx_line)) = at(ptx_rows, offset) else { continue };
                let expected = loc_in_force(&ptx, ptx_line as usize);
                // Line 0 is LLVM's "no position": the row before stays.
                if expected.is_some_and(|(_, line)| line == 0) {
                    continue;
                }
                assert_eq!(
                    at(source_rows, offset),
                    expected,
                    "{case}: source line at {offset:#x} (PTX line {ptx_line})"
                );
            }
        }
    }
}

#[test]
fn line_tables_have_nvidias_form() {
    let Some(oracle) = Oracle::for_test("line_tables_have_nvidias_form") else { return };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lineinfo-nv");
    std::fs::create_dir_all(&out).unwrap();
    for (i, (file, arch, extra)) in CASES.iter().enumerate() {
        let ptx = tests_dir().join(file);
        let case = format!("{file} {arch} {extra:?}");
        let ours_path = out.join(format!("{i}.ours.cubin"));
        let ours = compile(Path::new(env!("CARGO_BIN_EXE_ptxas")), &ptx, arch, extra, &ours_path);
        let nv = compile(&oracle.ptxas(), &ptx, arch, extra, &out.join(format!("{i}.nv.cubin")));
        // Code relocation sections left out: NVIDIA calls calls.cu's
        // `__noinline__` helper where we inline it.
        let names = |c: &elfw::Cubin| {
            let code_relocations = |n: &str| n.starts_with(".rel.text.") || n.starts_with(".rela.text.");
            c.sections.iter().map(|s| s.name.clone()).filter(|n| !code_relocations(n)).collect::<Vec<_>>()
        };
        assert_eq!(names(&ours), names(&nv), "{case}: sections");
        assert_eq!(ours.header.flags, nv.header.flags, "{case}: e_flags");
        for name in [".nv_debug_ptx_txt", ".note.nv.tkinfo"] {
            assert_eq!(section(&ours, name), section(&nv, name), "{case}: {name}");
        }
        for name in [".debug_line", ".nv_debug_line_sass"] {
            let header = |c: &elfw::Cubin| decode(section(c, name).unwrap()).header[4..].to_vec();
            assert_eq!(header(&ours), header(&nv), "{case}: {name} header");
        }
        let listing = Command::new(oracle.nvdisasm()).arg("-g").arg(&ours_path).output().unwrap();
        assert!(listing.status.success(), "{case}: nvdisasm -g: {}", String::from_utf8_lossy(&listing.stderr));
        assert!(String::from_utf8_lossy(&listing.stdout).contains("//## File"), "{case}: nvdisasm -g shows no lines");
    }
}
