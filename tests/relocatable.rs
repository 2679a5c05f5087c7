//! Relocatable (`-c`) output of modules with device functions: our object
//! has the sections, symbols and relocations of NVIDIA's for the same PTX,
//! nvlink links it, and the linked cubin computes what NVIDIA's whole
//! program computes (both run on the interpreter, which places and
//! relocates the functions of a linked cubin as the driver does).

use std::path::{Path, PathBuf};

use elfw::section::SectionData;
use nv_oracle::Oracle;
use ori_interp::{Global, Launch};

fn test_ptx(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx").join(file)
}

fn corpus(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels").join(file)
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("relocatable-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tool` with `args`; its stderr on failure.
fn run(tool: &Path, args: &[&Path]) -> Result<(), String> {
    let out = std::process::Command::new(tool).args(args).output().map_err(|e| e.to_string())?;
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// `ptxas -c -arch=sm_90 ptx -o out` with `ptxas`.
fn compile(ptxas: &Path, ptx: &Path, out: &Path, relocatable: bool) {
    compile_for(ptxas, Path::new("-arch=sm_90"), ptx, out, relocatable);
}

/// `ptxas [-c] ARCH ptx -o out` with `ptxas`.
fn compile_for(ptxas: &Path, arch: &Path, ptx: &Path, out: &Path, relocatable: bool) {
    let mut args = vec![arch];
    if relocatable {
        args.push(Path::new("-c"));
    }
    args.extend([ptx, Path::new("-o"), out]);
    run(ptxas, &args).unwrap_or_else(|e| panic!("{} {}: {e}", ptxas.display(), ptx.display()));
}

/// What must agree with NVIDIA's object: section names in order, symbols
/// (name, binding, type, `st_other`, section), and per relocation section
/// the (type, symbol) of every relocation in order. Offsets, sizes and
/// addends depend on the code, which is ours.
fn shape(bytes: &[u8]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let cubin = elfw::read(bytes).unwrap();
    let sections: Vec<String> = cubin.sections.iter().map(|s| s.name.clone()).collect();
    let symbols = cubin.symbols();
    let section_of = |i: u16| sections.get(usize::from(i)).cloned().unwrap_or_default();
    let syms = symbols
        .iter()
        .map(|s| {
            format!("{} bind {} type {} other {:#x} in {}", s.name, s.bind(), s.kind(), s.other, section_of(s.shndx))
        })
        .collect();
    let mut relocations = Vec::new();
    for s in &cubin.sections {
        if let SectionData::Rela(list) = &s.data {
            for r in list {
                let name = symbols.get(r.sym as usize).map_or("?", |y| y.name.as_str());
                relocations.push(format!("{}: {} -> {name}", s.name, elfw::reloc::name(r.kind).unwrap_or("?")));
            }
        }
    }
    (sections, syms, relocations)
}

/// The manifest's launch of `recursion` (grid 8 x 128, `in: i32[16384] in
/// randint(-1000,1000)`, `out: i32[18432]`, `n = 1024`) on the cubin
/// `bytes`; returns `out`.
fn run_recursion(bytes: &[u8]) -> Vec<u8> {
    let kernel = ori_interp::load_kernel(bytes, "recursion").unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let input: Vec<u8> = (0..16384)
        .flat_map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % 2000) as i32 - 1000).to_le_bytes()
        })
        .collect();
    let mut global = Global::new();
    let (a, b) = (global.alloc(input), global.alloc(vec![0; 4 * 18432]));
    let mut params = vec![0u8; kernel.func.attrs.param_bytes() as usize];
    for (slot, value) in kernel.func.attrs.params.iter().zip([a.to_le_bytes().to_vec(), b.to_le_bytes().to_vec()]) {
        params[slot.offset as usize..][..8].copy_from_slice(&value);
    }
    let n = &kernel.func.attrs.params[2];
    params[n.offset as usize..][..4].copy_from_slice(&1024i32.to_le_bytes());
    ori_interp::run_kernel(&kernel, &Launch::new([8, 1, 1], [128, 1, 1], params), &mut global).unwrap();
    global.buffer(b).unwrap().to_vec()
}

/// recursion (fib, qsort_local: recursive device functions), sm_90 and
/// sm_80 (whose call targets are R_CUDA_ABS47_34 in `.rel.text`): our `-c`
/// object against NVIDIA's, then linked and run.
#[test]
fn recursion_links_and_runs() {
    let Some(oracle) = Oracle::for_test("recursion_links_and_runs") else { return };
    let dir = scratch("recursion");
    let ours = Path::new(env!("CARGO_BIN_EXE_ptxas"));
    for sm in [90, 80] {
        let ptx = corpus(&format!("recursion.sm{sm}.ptx"));
        let arch = format!("-arch=sm_{sm}");
        let arch = Path::new(&arch);
        let at = |name: &str| dir.join(format!("sm{sm}.{name}"));
        let (our_obj, nv_obj, nv_whole) = (at("ours.o"), at("nv.o"), at("nv.cubin"));
        compile_for(ours, arch, &ptx, &our_obj, true);
        compile_for(&oracle.ptxas(), arch, &ptx, &nv_obj, true);
        compile_for(&oracle.ptxas(), arch, &ptx, &nv_whole, false);
        let (a, b) = (std::fs::read(&our_obj).unwrap(), std::fs::read(&nv_obj).unwrap());
        let (ours_shape, nv_shape) = (shape(&a), shape(&b));
        assert_eq!(ours_shape.0, nv_shape.0, "sm_{sm}: section names");
        assert_eq!(ours_shape.1, nv_shape.1, "sm_{sm}: symbols");
        assert_eq!(ours_shape.2, nv_shape.2, "sm_{sm}: relocations");

        let reference = run_recursion(&std::fs::read(&nv_whole).unwrap());
        assert!(reference.iter().any(|&b| b != 0), "NVIDIA's whole program wrote nothing");
        for (obj, linked) in [(&nv_obj, at("nv.linked.cubin")), (&our_obj, at("ours.linked.cubin"))] {
            run(&oracle.nvlink(), &[arch, obj, Path::new("-o"), &linked])
                .unwrap_or_else(|e| panic!("nvlink {}: {e}", obj.display()));
            let out = run_recursion(&std::fs::read(&linked).unwrap());
            assert!(out == reference, "{}: outputs differ from NVIDIA's whole program", linked.display());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `out[i] = ext_mix(i, 7 i)` for `i < n` on the linked cubin `bytes`.
fn run_calls_extern(bytes: &[u8], n: u32) -> Vec<u32> {
    let kernel = ori_interp::load_kernel(bytes, "calls_extern").unwrap();
    let mut global = Global::new();
    let out = global.alloc(vec![0; 4 * 64]);
    let mut params = vec![0u8; kernel.func.attrs.param_bytes() as usize];
    let [p_out, p_n] = &kernel.func.attrs.params[..] else { panic!("calls_extern has two parameters") };
    params[p_out.offset as usize..][..8].copy_from_slice(&out.to_le_bytes());
    params[p_n.offset as usize..][..4].copy_from_slice(&n.to_le_bytes());
    ori_interp::run_kernel(&kernel, &Launch::new([1, 1, 1], [64, 1, 1], params), &mut global).unwrap();
    global.buffer(out).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A call of an `.extern .func` defined in another module
/// (`tests/ptx/calls_extern*.ptx`): an undefined GLOBAL FUNC symbol, the
/// call's relocations against it and its `.nv.prototype` entry, as NVIDIA's;
/// the defining module's `.visible .func` is a GLOBAL symbol; nvlink links
/// the two objects and the result computes `ext_mix`.
#[test]
fn extern_function_links_and_runs() {
    let Some(oracle) = Oracle::for_test("extern_function_links_and_runs") else { return };
    let dir = scratch("extern");
    let ours = Path::new(env!("CARGO_BIN_EXE_ptxas"));
    let mut objects = Vec::new();
    for file in ["calls_extern", "calls_extern_def"] {
        let ptx = test_ptx(&format!("{file}.ptx"));
        let (our_obj, nv_obj) = (dir.join(format!("{file}.ours.o")), dir.join(format!("{file}.nv.o")));
        compile(ours, &ptx, &our_obj, true);
        compile(&oracle.ptxas(), &ptx, &nv_obj, true);
        let ours_shape = shape(&std::fs::read(&our_obj).unwrap());
        let nv_shape = shape(&std::fs::read(&nv_obj).unwrap());
        assert_eq!(ours_shape.0, nv_shape.0, "{file}: section names");
        assert_eq!(ours_shape.2, nv_shape.2, "{file}: relocations");
        // NVIDIA places a GLOBAL device function's symbol after the unified
        // table symbols; the builder puts it before them (the same set).
        let (mut a, mut b) = (ours_shape.1, nv_shape.1);
        if file == "calls_extern" {
            assert_eq!(a, b, "{file}: symbols");
        }
        a.sort();
        b.sort();
        assert_eq!(a, b, "{file}: symbols");
        objects.push((our_obj, nv_obj));
    }
    let want: Vec<u32> = (0..64u32).map(|i| if i < 50 { ((i * i) ^ (7 * i)).wrapping_add(12345) } else { 0 }).collect();
    for (k, pick) in [|o: &(PathBuf, PathBuf)| o.0.clone(), |o: &(PathBuf, PathBuf)| o.1.clone()].iter().enumerate() {
        let linked = dir.join(format!("linked{k}.cubin"));
        let (a, b) = (pick(&objects[0]), pick(&objects[1]));
        run(&oracle.nvlink(), &[Path::new("-arch=sm_90"), &a, &b, Path::new("-o"), &linked])
            .unwrap_or_else(|e| panic!("nvlink: {e}"));
        assert_eq!(run_calls_extern(&std::fs::read(&linked).unwrap(), 50), want, "{}", linked.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `calls_stack_args` (one pointer parameter) with 64 threads; returns
/// `out[0..64]`.
fn run_stack_args(bytes: &[u8]) -> Vec<u8> {
    let kernel = ori_interp::load_kernel(bytes, "calls_stack_args").unwrap();
    let mut global = Global::new();
    let out = global.alloc(vec![0; 4 * 64]);
    let mut params = vec![0u8; kernel.func.attrs.param_bytes() as usize];
    params[kernel.func.attrs.params[0].offset as usize..][..8].copy_from_slice(&out.to_le_bytes());
    ori_interp::run_kernel(&kernel, &Launch::new([1, 1, 1], [64, 1, 1], params), &mut global).unwrap();
    global.buffer(out).unwrap().to_vec()
}

/// Stack arguments through the linker (`tests/ptx/calls_stack_args.ptx`,
/// 20 + 3 parameters of a recursive function): NVIDIA's sections, symbols
/// and relocations; linked, the results of NVIDIA's whole program.
#[test]
fn stack_arguments_link_and_run() {
    let Some(oracle) = Oracle::for_test("stack_arguments_link_and_run") else { return };
    let dir = scratch("stack-args");
    let text =
        std::fs::read_to_string(test_ptx("calls_stack_args.ptx")).unwrap().replace(".target sm_80", ".target sm_90");
    let ptx = dir.join("calls_stack_args.ptx");
    std::fs::write(&ptx, text).unwrap();
    let ours = Path::new(env!("CARGO_BIN_EXE_ptxas"));
    let (our_obj, nv_obj, nv_whole) = (dir.join("ours.o"), dir.join("nv.o"), dir.join("nv.cubin"));
    compile(ours, &ptx, &our_obj, true);
    compile(&oracle.ptxas(), &ptx, &nv_obj, true);
    compile(&oracle.ptxas(), &ptx, &nv_whole, false);
    let (a, b) = (shape(&std::fs::read(&our_obj).unwrap()), shape(&std::fs::read(&nv_obj).unwrap()));
    assert_eq!(a, b, "sections, symbols, relocations");
    let reference = run_stack_args(&std::fs::read(&nv_whole).unwrap());
    assert!(reference.iter().any(|&b| b != 0), "NVIDIA's whole program wrote nothing");
    let linked = dir.join("ours.linked.cubin");
    run(&oracle.nvlink(), &[Path::new("-arch=sm_90"), &our_obj, Path::new("-o"), &linked])
        .unwrap_or_else(|e| panic!("nvlink: {e}"));
    assert!(run_stack_args(&std::fs::read(&linked).unwrap()) == reference, "linked: outputs differ");
    std::fs::remove_dir_all(&dir).ok();
}
