//! Corpus PTX kernels through the whole compiler (ptx-lower, the phases,
//! the encoder, the cubin writer): the schedule passes the hazard checker,
//! NVIDIA's nvdisasm reads the cubin, and the register count is printed
//! beside NVIDIA's (ptxas-stats.tsv).

use std::path::{Path, PathBuf};
use std::process::Command;

use nv_oracle::Oracle;
use ptxas::{DumpAfter, Options, Source, compile_sources};

/// Kernels that compile end to end, with the SM they are checked for.
const KERNELS: &[(&str, &str)] = &[
    ("vadd", "sm_90"),
    ("saxpy", "sm_90"),
    ("fill_iota", "sm_90"),
    ("clamp_select", "sm_90"),
    ("reduce_smem", "sm_90"),
    ("reduce_shfl", "sm_90"),
    ("scan_block", "sm_90"),
    ("templates", "sm_90"),
    ("stencil2d", "sm_90"),
    ("histogram", "sm_90"),
    ("launch_bounds", "sm_90"),
    ("fp16_ops", "sm_90"),
    ("stencil3d", "sm_90"),
    ("warp_vote", "sm_90"),
    ("softmax_rows", "sm_90"),
    ("vadd", "sm_80"),
    ("saxpy", "sm_80"),
    ("fill_iota", "sm_80"),
    ("clamp_select", "sm_80"),
    ("reduce_smem", "sm_80"),
    ("reduce_shfl", "sm_80"),
    ("scan_block", "sm_80"),
    ("templates", "sm_80"),
    ("stencil2d", "sm_80"),
    ("launch_bounds", "sm_80"),
    ("fp16_ops", "sm_80"),
    ("stencil3d", "sm_80"),
    ("warp_vote", "sm_80"),
    ("atomics_mix", "sm_80"),
    ("atomics_mix", "sm_90"),
    ("recursion", "sm_90"),
    ("recursion", "sm_80"),
    ("device_calls", "sm_90"),
    ("device_calls", "sm_80"),
    ("printf_kernel", "sm_90"),
    ("printf_kernel", "sm_80"),
    ("globals_const", "sm_80"),
    ("globals_const", "sm_90"),
    ("unroll_loops", "sm_80"),
    ("unroll_loops", "sm_90"),
    ("local_array", "sm_80"),
    ("local_array", "sm_90"),
    ("dyn_smem", "sm_80"),
    ("dyn_smem", "sm_90"),
    ("softmax_rows", "sm_80"),
    ("mma_ldmatrix", "sm_80"),
    ("mma_ldmatrix", "sm_90"),
    ("wmma_gemm", "sm_80"),
    ("wmma_gemm", "sm_90"),
    ("cp_async_pipeline", "sm_90"),
    ("cp_async_pipeline", "sm_80"),
    ("cluster_dsmem", "sm_90"),
    ("struct_params", "sm_80"),
    ("struct_params", "sm_90"),
    ("histogram", "sm_80"),
    ("multi_entry", "sm_80"),
    ("multi_entry", "sm_90"),
    ("large_unroll", "sm_90"),
    ("fp_convert", "sm_80"),
    ("fp_convert", "sm_90"),
    ("math_float", "sm_80"),
    ("math_float", "sm_90"),
    ("spinlock_fence", "sm_80"),
    ("spinlock_fence", "sm_90"),
    ("math_double", "sm_80"),
    ("math_double", "sm_90"),
    ("tma_bulk_copy", "sm_90"),
    ("wgmma_m64n8k16", "sm_90a"),
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap().join("shared/corpus")
}

/// The corpus folder of `kernel`: `large/` for the large_* ones.
fn folder(kernel: &str) -> &'static str {
    if kernel.starts_with("large_") { "large" } else { "kernels" }
}

fn source(kernel: &str, sm: &str) -> Source {
    let name = format!("{kernel}.{}.ptx", sm.replace('_', ""));
    let text = std::fs::read_to_string(corpus().join(folder(kernel)).join(&name)).unwrap();
    Source { name, text }
}

/// Compiles at `opt`; returns the cubin, the final IR and the registers per function.
/// The lowered IR must read no register it never writes: the corpus PTX
/// does not, so such a read means a lowering bug (a missing `undef` flag
/// on the first write of a tuple makes the tuple live from the entry).
fn compile(kernel: &str, sm: &str, opt: u8) -> (Vec<u8>, ori_ir::Module, Vec<(String, u32)>) {
    let options = Options {
        arch: sm.parse().unwrap(),
        opt_level: opt,
        dump_after: DumpAfter::Phases(vec!["OriCheckInitialProgram".into(), "MercEncodeAndDecode".into()]),
        ..Options::default()
    };
    let output = compile_sources(&[source(kernel, sm)], &options)
        .unwrap_or_else(|f| panic!("{kernel} {sm} -O{opt}: {:#?}", f.report.diagnostics));
    let initial = output.report.dumps.iter().find(|d| d.after == "OriCheckInitialProgram").expect("a first dump");
    for func in &ori_ir::text::parse_module(&initial.text).unwrap().functions {
        let undefined = ori_ir::undefined_reads(func);
        assert!(undefined.is_empty(), "{kernel} {sm} -O{opt}: {undefined:#?}");
    }
    let dump = &output.report.dumps.last().expect("a dump after encoding").text;
    let regs = output.report.functions.iter().map(|f| (f.name.clone(), f.registers)).collect();
    (output.cubin.expect("a cubin"), ori_ir::text::parse_module(dump).unwrap(), regs)
}

/// NVIDIA's register count for `function` of `kernel` on `sm` (ptxas-stats.tsv).
fn nvidia_registers(kernel: &str, sm: &str, function: &str) -> Option<u32> {
    let stats = std::fs::read_to_string(corpus().join("ptxas-stats.tsv")).ok()?;
    let file = format!("{}/{kernel}.{}.ptx", folder(kernel), sm.replace('_', ""));
    stats
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|c| c.len() > 4 && c[0] == file && c[1] == sm && c[2] == function)?[4]
        .parse()
        .ok()
}

#[test]
fn corpus_kernels_compile_and_pass_the_hazard_checker() {
    for &(kernel, sm) in KERNELS {
        for opt in [0, 3] {
            let (_, module, regs) = compile(kernel, sm, opt);
            for func in &module.functions {
                let violations = sched::hazard::check_function(func, module.target);
                assert!(violations.is_empty(), "{kernel} {sm} -O{opt}: {violations:#?}");
            }
            for (function, ours) in regs {
                let theirs = nvidia_registers(kernel, sm, &function).map_or("?".into(), |n| n.to_string());
                println!("{kernel} {sm} -O{opt} {function}: {ours} registers (NVIDIA: {theirs})");
            }
        }
    }
}

#[test]
fn nvdisasm_reads_our_cubins() {
    let Some(oracle) = Oracle::for_test("nvdisasm_reads_our_cubins") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lower");
    std::fs::create_dir_all(&dir).unwrap();
    for &(kernel, sm) in KERNELS {
        let (cubin, module, _) = compile(kernel, sm, 3);
        let path = dir.join(format!("{kernel}.{sm}.cubin"));
        std::fs::write(&path, &cubin).unwrap();
        let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(&path).output().unwrap();
        assert!(listing.status.success(), "{kernel}: {}", String::from_utf8_lossy(&listing.stderr));
        assert!(listing.stderr.is_empty(), "{kernel}: {}", String::from_utf8_lossy(&listing.stderr));
        let text = String::from_utf8(listing.stdout).unwrap();
        let count = module.functions[0].inst_count();
        let listed = text.lines().filter(|l| l.trim_start().starts_with("/*") && l.contains(';')).count();
        assert!(listed >= count, "{kernel}: nvdisasm lists {listed} instructions, we encoded {count}");
    }
}

#[test]
fn unsupported_ptx_is_an_error_with_its_line() {
    let options = Options { arch: "sm_90".parse().unwrap(), ..Options::default() };
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n\
        \t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tdiscard.global.L2 [%rd1], 128;\n\tret;\n}\n";
    let source = Source { name: "discard.ptx".into(), text: text.into() };
    let failure = compile_sources(&[source], &options).expect_err("discard is not covered yet");
    let first = &failure.report.diagnostics[0];
    let location = first.location.as_ref().expect("a location");
    assert_eq!((location.file.as_str(), location.line), ("discard.ptx", 9));
    assert_eq!(first.message, "lowering of 'discard.global.L2' is not supported yet");
}

/// intdiv's `nchw_decompose` (32-bit division by runtime values) cut out of
/// its module, whose other kernel needs 64-bit arithmetic: hazard-free,
/// read by nvdisasm, registers beside NVIDIA's for the whole module.
#[test]
fn nchw_decompose_alone() {
    for sm in ["sm_90", "sm_80"] {
        let text = source("intdiv", sm).text;
        let header = &text[..text.find(".visible .entry intdiv(").unwrap()];
        let kernel = &text[text.find(".visible .entry nchw_decompose(").unwrap()..];
        let source = Source { name: "nchw.ptx".into(), text: format!("{header}{kernel}") };
        let options = Options {
            arch: sm.parse().unwrap(),
            dump_after: DumpAfter::Phases(vec!["MercEncodeAndDecode".into()]),
            ..Options::default()
        };
        let output = compile_sources(&[source], &options).unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics));
        let module = ori_ir::text::parse_module(&output.report.dumps.last().unwrap().text).unwrap();
        for func in &module.functions {
            let violations = sched::hazard::check_function(func, module.target);
            assert!(violations.is_empty(), "nchw_decompose {sm}: {violations:#?}");
        }
        let ours = output.report.functions[0].registers;
        let theirs = nvidia_registers("intdiv", sm, "nchw_decompose").map_or("?".into(), |n| n.to_string());
        println!("nchw_decompose {sm}: {ours} registers (NVIDIA: {theirs})");
        let Some(oracle) = Oracle::for_test("nchw_decompose_alone") else { continue };
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nchw.{sm}.cubin"));
        std::fs::write(&path, output.cubin.unwrap()).unwrap();
        let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(&path).output().unwrap();
        assert!(listing.status.success() && listing.stderr.is_empty(), "{}", String::from_utf8_lossy(&listing.stderr));
    }
}

#[path = "lower_kernels.rs"]
mod lower_kernels;

/// `tests/ptx/NAME.ptx` (written for sm_80) retargeted to `sm`.
fn test_ptx(name: &str, sm: u32) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join(format!("tests/ptx/{name}.ptx"));
    std::fs::read_to_string(path).unwrap().replace(".target sm_80", &format!(".target sm_{sm}"))
}

/// `tests/sweep/NAME.smNN.ptx`: NVRTC 13's PTX for `tests/sweep/NAME.cu`
/// (`-arch=compute_NN -std=c++17`), CUDA code written to cover the
/// language's intrinsics rather than taken from a project.
fn sweep_ptx(name: &str, sm: u32) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join("tests/sweep");
    std::fs::read_to_string(dir.join(format!("{name}.sm{sm}.ptx"))).unwrap()
}

/// The PTX text of a hand-written kernel for an SM.
type KernelText = fn(u32) -> String;

/// The hand-written kernels of the bit, division, conversion and
/// half-precision families (run by lower_semantics.rs): hazard-free at -O0
/// and -O3, and read by nvdisasm.
#[test]
fn hand_written_kernels_encode() {
    let oracle = Oracle::for_test("hand_written_kernels_encode");
    let kernels: &[(&str, KernelText)] = &[
        ("divs", lower_kernels::integer_division),
        ("fields", lower_kernels::bit_fields),
        ("cvts", lower_kernels::conversions),
        ("bf", lower_kernels::bf16),
        ("div64", |sm| lower_kernels::division_64(sm, false)),
        ("int16", |sm| test_ptx("int16", sm)),
        ("fbits", |sm| test_ptx("fbits", sm)),
        ("shared_atomics", |sm| test_ptx("shared_atomics", sm)),
        ("shared_atomics64", |sm| test_ptx("shared_atomics64", sm)),
        ("carry", |sm| test_ptx("carry", sm)),
        ("ddiv", |sm| test_ptx("ddiv", sm)),
        ("dminmax", |sm| test_ptx("dminmax", sm)),
        ("ieee2", |sm| test_ptx("ieee2", sm)),
        ("cp_async", |sm| test_ptx("cp_async", sm)),
        ("mma_forms", |sm| test_ptx("mma_forms", sm)),
        ("undefined_reads", |sm| test_ptx("undefined_reads", sm)),
        ("param_rewritten", |sm| test_ptx("param_rewritten", sm)),
        ("carry_blocks", |sm| test_ptx("carry_blocks", sm)),
        ("shared_atomics64_ops", |sm| test_ptx("shared_atomics64_ops", sm)),
        ("cp_async_ignore", |sm| test_ptx("cp_async_ignore", sm)),
        ("imma", |sm| test_ptx("imma", sm)),
        ("global_atomics_order", |sm| test_ptx("global_atomics_order", sm)),
        ("half_atomics", |sm| test_ptx("half_atomics", sm)),
        ("shared_atomics_order", |sm| test_ptx("shared_atomics_order", sm)),
        ("sm90_atomics", |sm| if sm == 90 { test_ptx("sm90_atomics", sm) } else { test_ptx("half_atomics", sm) }),
        ("aops", |sm| test_ptx("aops", sm)),
        ("aops.sm90", |sm| if sm == 90 { test_ptx("aops.sm90", sm) } else { test_ptx("aops", sm) }),
        ("special_regs", |sm| test_ptx("special_regs", sm)),
        ("sweep_ops", |sm| test_ptx("sweep_ops", sm)),
        ("sweep_tex", |sm| sweep_ptx("tex", sm)),
        ("sweep_mem", |sm| sweep_ptx("mem", sm)),
        ("warp_ops", |sm| test_ptx("warp_ops", sm)),
        ("sweep_warp", |sm| sweep_ptx("warp", sm)),
        ("half_scalar", |sm| test_ptx("half_scalar", sm)),
        ("int_sweep", |sm| test_ptx("int_sweep", sm)),
        ("sweep_ints", |sm| sweep_ptx("ints", sm)),
        ("sweep_math", |sm| sweep_ptx("math", sm)),
        ("int_bits", |sm| test_ptx("int_bits", sm)),
        ("sweep14", |sm| test_ptx("sweep14", sm)),
        ("sweep15", |sm| test_ptx("sweep15", sm)),
        ("sweep16", |sm| if sm == 90 { test_ptx("sweep16", sm) } else { test_ptx("sweep15", sm) }),
        ("isa16", |sm| test_ptx("isa16", sm)),
        ("int_sat", |sm| test_ptx("int_sat", sm)),
        ("cvt_int", |sm| test_ptx("cvt_int", sm)),
        ("cvt_pack", |sm| test_ptx("cvt_pack", sm)),
        ("sweep_conv", |sm| sweep_ptx("conv", sm)),
        ("sweep_ctrl", |sm| sweep_ptx("ctrl", sm)),
        ("bar_red", |sm| test_ptx("bar_red", sm)),
        ("cvt_sat", |sm| test_ptx("cvt_sat", sm)),
        ("cvt_fp8", |sm| if sm == 90 { test_ptx("cvt_fp8", sm) } else { test_ptx("cvt_pack", sm) }),
    ];
    for &(name, text) in kernels {
        for sm in [90, 80] {
            encodes_cleanly(oracle.as_ref(), name, sm, &text(sm));
        }
    }
}

/// Compiles `text` for `sm` at -O0 and -O3: hazard-free, and read by
/// nvdisasm when the oracle is there.
fn encodes_cleanly(oracle: Option<&Oracle>, name: &str, sm: u32, text: &str) {
    for opt in [0, 3] {
        let options = Options {
            arch: format!("sm_{sm}").parse().unwrap(),
            opt_level: opt,
            dump_after: DumpAfter::Phases(vec!["MercEncodeAndDecode".into()]),
            ..Options::default()
        };
        let source = Source { name: format!("{name}.ptx"), text: text.to_string() };
        let output = compile_sources(&[source], &options)
            .unwrap_or_else(|f| panic!("{name} sm_{sm} -O{opt}: {:#?}", f.report.diagnostics));
        let module = ori_ir::text::parse_module(&output.report.dumps.last().unwrap().text).unwrap();
        for func in &module.functions {
            let violations = sched::hazard::check_function(func, module.target);
            assert!(violations.is_empty(), "{name} sm_{sm} -O{opt}: {violations:#?}");
        }
        let Some(oracle) = oracle else { continue };
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.sm_{sm}.O{opt}.cubin"));
        std::fs::write(&path, output.cubin.unwrap()).unwrap();
        let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&listing.stderr);
        assert!(listing.status.success() && stderr.is_empty(), "{name} sm_{sm} -O{opt}: {stderr}");
    }
}

/// `tests/ptx/atomics.ptx` (global atomics of every operation, with and
/// without results): hazard-free, and read by nvdisasm, on both SMs.
#[test]
fn hand_written_atomics() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join("tests/ptx/atomics.ptx");
    let text = std::fs::read_to_string(path).unwrap();
    for sm in ["sm_90", "sm_80"] {
        let source =
            Source { name: "atomics.ptx".into(), text: text.replace(".target sm_80", &format!(".target {sm}")) };
        let options = Options {
            arch: sm.parse().unwrap(),
            dump_after: DumpAfter::Phases(vec!["MercEncodeAndDecode".into()]),
            ..Options::default()
        };
        let output = compile_sources(&[source], &options).unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics));
        let module = ori_ir::text::parse_module(&output.report.dumps.last().unwrap().text).unwrap();
        for func in &module.functions {
            let violations = sched::hazard::check_function(func, module.target);
            assert!(violations.is_empty(), "atomics {sm}: {violations:#?}");
        }
        let Some(oracle) = Oracle::for_test("hand_written_atomics") else { continue };
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("atomics.{sm}.cubin"));
        std::fs::write(&path, output.cubin.unwrap()).unwrap();
        let listing = Command::new(oracle.nvdisasm()).arg("-c").arg(&path).output().unwrap();
        assert!(listing.status.success() && listing.stderr.is_empty(), "{}", String::from_utf8_lossy(&listing.stderr));
        let text = String::from_utf8(listing.stdout).unwrap();
        for form in
            ["ATOMG.E.CAS.64.STRONG.GPU", "ATOMG.E.DEC.STRONG.GPU", "ATOMG.E.XOR.64.STRONG.GPU", "XOR.STRONG.GPU"]
        {
            assert!(text.contains(form), "atomics {sm}: no {form} in\n{text}");
        }
    }
}
