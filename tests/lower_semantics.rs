//! What the lowered kernels compute: corpus kernels lowered by ptx-lower
//! run on the Ori interpreter (ori-interp), both as lowering leaves them
//! (virtual registers) and as the whole pipeline finishes them (allocated,
//! scheduled, encoded), for sm_90 and sm_80; the results must equal a
//! reference computed here. Inputs are small integers (also as floats) so
//! that sums are exact whatever the order.

use std::path::{Path, PathBuf};

#[path = "lower_kernels.rs"]
mod lower_kernels;

use ori_interp::{Global, Launch};
use ptxas::{DumpAfter, Options, Source, compile_sources};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap().join("shared/corpus/kernels")
}

fn ptx(kernel: &str, sm: u32) -> String {
    std::fs::read_to_string(corpus().join(format!("{kernel}.sm{sm}.ptx"))).unwrap()
}

/// The two forms of every function of `kernel`: lowered, and final.
fn stages(kernel: &str, sm: u32) -> [ori_ir::Module; 2] {
    stages_of(kernel, ptx(kernel, sm), sm)
}

/// A PTX file of `tests/ptx/` (written for sm_80) retargeted to `sm`.
fn test_ptx(name: &str, sm: u32) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join("tests/ptx").join(name);
    std::fs::read_to_string(path).unwrap().replace(".target sm_80", &format!(".target sm_{sm}"))
}

/// The lowered and final forms of PTX `text` compiled for `sm`.
fn stages_of(kernel: &str, text: String, sm: u32) -> [ori_ir::Module; 2] {
    let (mut ast, diags) = ptx_syntax::parse(&text, ptx_syntax::FileId(0));
    assert!(diags.is_empty(), "{diags:?}");
    ptx_syntax::normalize(&mut ast);
    let lowered = ptx_lower::lower(&ast, &text, ori_ir::Sm::new(sm as u16)).unwrap();
    let options = Options {
        arch: format!("sm_{sm}").parse().unwrap(),
        dump_after: DumpAfter::Phases(vec!["MercEncodeAndDecode".into()]),
        ..Options::default()
    };
    let source = Source { name: format!("{kernel}.sm{sm}.ptx"), text };
    let output = compile_sources(&[source], &options).unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics));
    let dump = &output.report.dumps.last().unwrap().text;
    [lowered, ori_ir::text::parse_module(dump).unwrap()]
}

/// A kernel argument.
enum Arg {
    /// A device buffer with its initial bytes.
    Buffer(Vec<u8>),
    /// A scalar passed by value.
    Value(Vec<u8>),
    /// A structure passed by value whose pointer fields (at the given
    /// offsets) address device buffers with these initial bytes.
    Struct(Vec<u8>, Vec<(usize, Vec<u8>)>),
}

fn words<T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    values.iter().flat_map(|&v| bytes(v)).collect()
}

fn i32s(values: &[i32]) -> Vec<u8> {
    words(values, i32::to_le_bytes)
}

fn f32s(values: &[f32]) -> Vec<u8> {
    words(values, f32::to_le_bytes)
}

/// The parameter block of `func` with `args` at its slots, each buffer
/// allocated in `global`; also the buffers' addresses.
fn lay_out(func: &ori_ir::Function, args: &[Arg], global: &mut Global) -> (Vec<u8>, Vec<u64>) {
    let mut params = vec![0u8; func.attrs.param_bytes() as usize];
    let mut buffers = Vec::new();
    for (slot, arg) in func.attrs.params.iter().zip(args) {
        let bytes = match arg {
            Arg::Buffer(init) => {
                let addr = global.alloc(init.clone());
                buffers.push(addr);
                addr.to_le_bytes().to_vec()
            }
            Arg::Value(v) => v.clone(),
            Arg::Struct(bytes, pointers) => {
                let mut bytes = bytes.clone();
                for (at, init) in pointers {
                    let addr = global.alloc(init.clone());
                    buffers.push(addr);
                    bytes[*at..at + 8].copy_from_slice(&addr.to_le_bytes());
                }
                bytes
            }
        };
        let at = slot.offset as usize;
        params[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    (params, buffers)
}

/// Runs function `entry` of `module` with `args` laid out at its parameter
/// slots; returns the final contents of every buffer argument.
fn run(module: &ori_ir::Module, entry: &str, grid: [u32; 3], block: [u32; 3], args: &[Arg]) -> Vec<Vec<u8>> {
    try_run(module, entry, grid, block, args).unwrap_or_else(|e| panic!("{e}"))
}

/// [`run`], with the interpreter's error (a fault, ...) as a value.
fn try_run(
    module: &ori_ir::Module,
    entry: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[Arg],
) -> Result<Vec<Vec<u8>>, String> {
    let func = module.function(entry).unwrap_or_else(|| panic!("no function {entry}"));
    let mut global = Global::new();
    let (params, buffers) = lay_out(func, args, &mut global);
    let mut launch = Launch::new(grid, block, params);
    launch.banks = ori_interp::Statics::of_module(module).place(&mut global);
    let sm = u32::from(module.target.version);
    ori_interp::run(func, sm, func.attrs.shared_bytes, &launch, &mut global)
        .map_err(|e| format!("{entry} (sm_{sm}): {e}"))?;
    Ok(buffers.iter().map(|&b| global.buffer(b).unwrap().to_vec()).collect())
}

/// Compiles `tests/ptx/NAME.ptx` for `sm` with NVIDIA's ptxas and runs its
/// kernel `NAME` on the interpreter like [`run`]: the reference for
/// functions only NVIDIA's code defines.
fn run_nvidia(
    oracle: &nv_oracle::Oracle,
    name: &str,
    sm: u32,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[Arg],
) -> Vec<Vec<u8>> {
    let dir = std::env::temp_dir().join(format!("ptxas-{name}-{}-{sm}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join(format!("{name}.ptx"));
    std::fs::write(&ptx, test_ptx(&format!("{name}.ptx"), sm)).unwrap();
    let kernel = ori_interp::corpus::compile_ptx(&oracle.ptxas(), &ptx, &format!("sm_{sm}"), &dir, name)
        .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
    let mut global = Global::new();
    let (params, buffers) = lay_out(&kernel.func, args, &mut global);
    let launch = Launch::new(grid, block, params);
    ori_interp::run_kernel(&kernel, &launch, &mut global).unwrap();
    buffers.iter().map(|&b| global.buffer(b).unwrap().to_vec()).collect()
}

/// Checks `kernel` on both SMs and both stages against `want`, with a
/// one-dimensional launch.
fn check(kernel: &str, sms: &[u32], entry: &str, grid: u32, block: u32, args: impl Fn() -> Vec<Arg>, want: &[Vec<u8>]) {
    check_2d(kernel, sms, entry, [grid, 1, 1], [block, 1, 1], args, want);
}

/// Checks `kernel` on both SMs and both stages against `want`.
fn check_2d(
    kernel: &str,
    sms: &[u32],
    entry: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: impl Fn() -> Vec<Arg>,
    want: &[Vec<u8>],
) {
    for &sm in sms {
        for (stage, module) in ["lowered", "final"].iter().zip(stages(kernel, sm)) {
            let got = run(&module, entry, grid, block, &args());
            assert!(got == want, "{kernel} sm_{sm} {stage}: results differ");
        }
    }
}

/// Small signed integers, a deterministic pattern.
fn pattern(n: usize, seed: i32) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 37 + seed) % 19 - 9).collect()
}

#[test]
fn vadd() {
    let n = 1000;
    let (a, b) = (pattern(n, 1), pattern(n, 5));
    let (a, b): (Vec<f32>, Vec<f32>) = (a.iter().map(|&v| v as f32).collect(), b.iter().map(|&v| v as f32).collect());
    let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let args = || {
        vec![Arg::Buffer(f32s(&a)), Arg::Buffer(f32s(&b)), Arg::Buffer(vec![0; 4 * n]), Arg::Value(i32s(&[n as i32]))]
    };
    check("vadd", &[90, 80], "vadd", 4, 256, args, &[f32s(&a), f32s(&b), f32s(&c)]);
}

#[test]
fn saxpy() {
    let n = 900;
    let x: Vec<f32> = pattern(1024, 2).iter().map(|&v| v as f32 * 0.25).collect();
    let y: Vec<f32> = pattern(1024, 7).iter().map(|&v| v as f32).collect();
    let a = 2.5f32;
    let out: Vec<f32> = (0..1024).map(|i| if i < n { a.mul_add(x[i], y[i]) } else { y[i] }).collect();
    let args =
        || vec![Arg::Value(i32s(&[n as i32])), Arg::Value(f32s(&[a])), Arg::Buffer(f32s(&x)), Arg::Buffer(f32s(&y))];
    check("saxpy", &[90, 80], "saxpy", 4, 256, args, &[f32s(&x), f32s(&out)]);
}

#[test]
fn fill_iota() {
    let n = 1000;
    let (start, step, scale) = (-17, 3, 0.5f32);
    let ints: Vec<i32> = (0..n as i32).map(|i| start + i * step).collect();
    let floats: Vec<f32> = ints.iter().map(|&v| v as f32 * scale).collect();
    let args = || {
        vec![
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Value(i32s(&[n as i32])),
            Arg::Value(i32s(&[start])),
            Arg::Value(i32s(&[step])),
            Arg::Value(f32s(&[scale])),
        ]
    };
    // Two CTAs of 128 threads: the grid-stride loop runs several times.
    check("fill_iota", &[90, 80], "fill_iota", 2, 128, args, &[i32s(&ints), f32s(&floats)]);
}

#[test]
fn clamp_select() {
    let n = 600;
    let x: Vec<f32> = pattern(n, 3).iter().map(|&v| v as f32 * 0.5).collect();
    let k: Vec<i32> = pattern(n, 11).iter().map(|&v| v * 23).collect();
    let (lo, hi) = (-2.0f32, 3.0f32);
    let y: Vec<f32> = x
        .iter()
        .map(|&v| {
            let c = v.max(lo).min(hi);
            if v < 0.0 { -c } else { c * 2.0 }
        })
        .collect();
    let z: Vec<i32> = k.iter().map(|&v| if v & 1 != 0 { v.abs().max(100) } else { v.abs().min(7) }).collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&x)),
            Arg::Buffer(i32s(&k)),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Value(f32s(&[lo])),
            Arg::Value(f32s(&[hi])),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    check("clamp_select", &[90, 80], "clamp_select", 3, 256, args, &[f32s(&x), i32s(&k), f32s(&y), i32s(&z)]);
}

#[test]
fn reduce_smem() {
    // blockDim must be 256; each block sums 512 inputs.
    let (blocks, n) = (3, 1400);
    let input: Vec<f32> = pattern(n, 4).iter().map(|&v| v as f32).collect();
    let sums: Vec<f32> =
        (0..blocks).map(|b| input[(512 * b).min(n)..(512 * b + 512).min(n)].iter().sum::<f32>()).collect();
    let args = || vec![Arg::Buffer(f32s(&input)), Arg::Buffer(vec![0; 4 * blocks]), Arg::Value(i32s(&[n as i32]))];
    check("reduce_smem", &[90, 80], "reduce_smem", blocks as u32, 256, args, &[f32s(&input), f32s(&sums)]);
}

#[test]
fn reduce_shfl() {
    let n = 3000;
    let input: Vec<f32> = pattern(n, 9).iter().map(|&v| v as f32).collect();
    let total: f32 = input.iter().sum();
    let args = || vec![Arg::Buffer(f32s(&input)), Arg::Buffer(vec![0; 4]), Arg::Value(i32s(&[n as i32]))];
    // 160 threads: the last warp of each CTA is the only one of its kind,
    // and the grid-stride loop leaves threads at different iterations.
    check("reduce_shfl", &[90, 80], "reduce_shfl", 2, 160, args, &[f32s(&input), f32s(&[total])]);
}

#[test]
fn histogram() {
    let n = 5000;
    let data: Vec<u8> = (0..n).map(|i| ((i * 131 + 7) % 256) as u8).collect();
    let mut bins = vec![0u32; 256];
    for &d in &data {
        bins[d as usize] += 1;
    }
    let args = || vec![Arg::Buffer(data.clone()), Arg::Value(i32s(&[n])), Arg::Buffer(vec![0; 4 * 256])];
    check("histogram", &[90, 80], "histogram256", 2, 256, args, &[data.clone(), words(&bins, u32::to_le_bytes)]);
}

/// struct_params: fields of by-value structures (padding, a float4, an
/// array indexed at run time through a local copy, pointers inside), and
/// big_param's 2 KiB array indexed through the address of the parameter
/// (`LDC R, c[0x0][R+base]`), with clamped out-of-range indices.
#[test]
fn struct_params() {
    let n = 4096usize;
    // struct Params {i8 tag; i16 s; i32 count; f64 scale; float4 bias; i32 idx[5]; src; dst; u8 flags}
    let params = |tag: i8, s: i16, count: i32, scale: f64, bias: [f32; 4], idx: [i32; 5], flags: u8| {
        let mut b = vec![0u8; 80];
        b[0] = tag as u8;
        b[2..4].copy_from_slice(&s.to_le_bytes());
        b[4..8].copy_from_slice(&count.to_le_bytes());
        b[8..16].copy_from_slice(&scale.to_le_bytes());
        b[16..32].copy_from_slice(&f32s(&bias));
        b[32..52].copy_from_slice(&i32s(&idx));
        b[72] = flags;
        b
    };
    let src: Vec<f32> = pattern(n, 3).iter().map(|&v| v as f32).collect();
    let (count, extra) = (3000, 3);
    let p = params(-5, -300, count, 2.0, [1.0, 2.0, 3.0, 4.0], [10, -20, 30, -40, 50], 2);
    let q = params(0, 0, 0, -7.0, [0.0; 4], [0, 0, 0, 0, 9], 0);
    let mut dst = vec![0f32; n];
    for (i, d) in dst.iter_mut().enumerate().take(count as usize) {
        let k = [10, -20, 30, -40, 50][i % 5];
        let b = if i & 1 == 1 { 1.0 } else { 2.0 };
        *d = src[i] * 2.0 + b + 3.0 + (k - 5 - 300 + extra) as f32 + 9.0 - 7.0;
    }
    let args = || {
        let p = Arg::Struct(p.clone(), vec![(56, f32s(&src)), (64, vec![0; 4 * n])]);
        vec![p, Arg::Value(i32s(&[extra])), Arg::Value(q.clone())]
    };
    check("struct_params", &[90, 80], "struct_param", 16, 256, args, &[f32s(&src), f32s(&dst)]);

    let w: Vec<f32> = (0..512).map(|i| (i % 23 - 11) as f32).collect();
    let len = 300;
    let mut table = f32s(&w);
    table.extend(i32s(&[len]));
    let sel: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 610 - 10).collect();
    let out: Vec<f32> = (0..n).map(|i| w[sel[i].clamp(0, len - 1) as usize] + 0.5 * w[i & 511]).collect();
    let args = || {
        let t = Arg::Value(table.clone());
        vec![t, Arg::Buffer(i32s(&sel)), Arg::Buffer(vec![0; 4 * n]), Arg::Value(i32s(&[n as i32]))]
    };
    check("struct_params", &[90, 80], "big_param", 16, 256, args, &[i32s(&sel), f32s(&out)]);
}

#[test]
fn templates() {
    let n = 1000;
    let xi = pattern(1024, 6);
    let yi = pattern(1024, 8);
    let below = |i: usize| i < n;
    // axpy_t<float, 4>: four elements per thread.
    let (x, y): (Vec<f32>, Vec<f32>) = (xi.iter().map(|&v| v as f32).collect(), yi.iter().map(|&v| v as f32).collect());
    let out: Vec<f32> = (0..1024).map(|i| if below(i) { 1.5f32.mul_add(x[i], y[i]) } else { y[i] }).collect();
    let args =
        || vec![Arg::Buffer(f32s(&x)), Arg::Buffer(f32s(&y)), Arg::Value(f32s(&[1.5])), Arg::Value(i32s(&[n as i32]))];
    check("templates", &[90, 80], "_Z6axpy_tIfLi4EEvPKT_PS0_S0_i", 1, 256, args, &[f32s(&x), f32s(&out)]);
    // axpy_t<double, 2>: two per thread.
    let f64s = |v: &[f64]| v.iter().flat_map(|d| d.to_le_bytes()).collect::<Vec<u8>>();
    let (x, y): (Vec<f64>, Vec<f64>) = (xi.iter().map(|&v| v as f64).collect(), yi.iter().map(|&v| v as f64).collect());
    let out: Vec<f64> = (0..1024).map(|i| if below(i) { 1.5f64.mul_add(x[i], y[i]) } else { y[i] }).collect();
    let args =
        || vec![Arg::Buffer(f64s(&x)), Arg::Buffer(f64s(&y)), Arg::Value(f64s(&[1.5])), Arg::Value(i32s(&[n as i32]))];
    check("templates", &[90, 80], "_Z6axpy_tIdLi2EEvPKT_PS0_S0_i", 2, 256, args, &[f64s(&x), f64s(&out)]);
    // axpy_t<int, 1>.
    let out: Vec<i32> = (0..1024).map(|i| if below(i) { 3 * xi[i] + yi[i] } else { yi[i] }).collect();
    let args =
        || vec![Arg::Buffer(i32s(&xi)), Arg::Buffer(i32s(&yi)), Arg::Value(i32s(&[3])), Arg::Value(i32s(&[n as i32]))];
    check("templates", &[90, 80], "_Z6axpy_tIiLi1EEvPKT_PS0_S0_i", 4, 256, args, &[i32s(&xi), i32s(&out)]);
    // ns::apply<Functor>: the functor is a 4-byte struct parameter.
    let x: Vec<f32> = xi.iter().map(|&v| v as f32).collect();
    let out: Vec<f32> = (0..1024).map(|i| if below(i) { x[i].mul_add(0.5, 1.0) } else { 0.0 }).collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&x)),
            Arg::Buffer(vec![0; 4 * 1024]),
            Arg::Value(f32s(&[0.5])),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    check("templates", &[90, 80], "_ZN2ns5applyINS_7FunctorEEEvPKfPfT_i", 4, 256, args, &[f32s(&x), f32s(&out)]);
}

#[test]
fn stencil2d() {
    let (nx, ny) = (70usize, 20usize);
    let input: Vec<f32> = pattern(nx * ny, 2).iter().map(|&v| v as f32).collect();
    let (wc, ws) = (0.5f32, 0.125f32);
    let at = |x: usize, y: usize| input[y * nx + x];
    let out: Vec<f32> = (0..nx * ny)
        .map(|i| {
            let (x, y) = (i % nx, i / nx);
            if x == 0 || y == 0 || x == nx - 1 || y == ny - 1 {
                return at(x, y);
            }
            let s = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1);
            wc * at(x, y) + ws * s
        })
        .collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&input)),
            Arg::Buffer(vec![0; 4 * nx * ny]),
            Arg::Value(i32s(&[nx as i32])),
            Arg::Value(i32s(&[ny as i32])),
            Arg::Value(f32s(&[wc])),
            Arg::Value(f32s(&[ws])),
        ]
    };
    // 32 x 8 tiles; the right and bottom tiles are partial.
    check_2d("stencil2d", &[90, 80], "jacobi5", [3, 3, 1], [32, 8, 1], args, &[f32s(&input), f32s(&out)]);
}

/// More than seven predicates live across the z loop: the allocator keeps
/// some of them in general registers (`SEL`/`ISETP.NE.U32`).
#[test]
fn stencil3d() {
    let (nx, ny, nz) = (20usize, 18usize, 4usize);
    let input: Vec<f32> = pattern(nx * ny * nz, 5).iter().map(|&v| v as f32).collect();
    let (c0, c1) = (0.5f32, 0.125f32);
    let at = |x: i64, y: i64, z: i64| {
        let inside = (0..nx as i64).contains(&x) && (0..ny as i64).contains(&y) && (0..nz as i64).contains(&z);
        if inside { input[(z as usize * ny + y as usize) * nx + x as usize] } else { 0.0 }
    };
    let out: Vec<f32> = (0..nx * ny * nz)
        .map(|i| {
            let (x, y, z) = ((i % nx) as i64, (i / nx % ny) as i64, (i / (nx * ny)) as i64);
            let lap = at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) + at(x, y + 1, z);
            c0 * at(x, y, z) + c1 * (lap + at(x, y, z - 1) + at(x, y, z + 1))
        })
        .collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&input)),
            Arg::Buffer(vec![0; 4 * nx * ny * nz]),
            Arg::Value(i32s(&[nx as i32])),
            Arg::Value(i32s(&[ny as i32])),
            Arg::Value(i32s(&[nz as i32])),
            Arg::Value(f32s(&[c0])),
            Arg::Value(f32s(&[c1])),
        ]
    };
    // 16 x 16 tiles; the right and bottom tiles are partial.
    check_2d("stencil3d", &[90, 80], "stencil7", [2, 2, 1], [16, 16, 1], args, &[f32s(&input), f32s(&out)]);
}

/// Votes, matches, shuffles and a warp-aggregated atomic: full warps with
/// mixed, all-positive and equal-key lanes, and a partial last warp.
#[test]
fn warp_vote() {
    let n = 100usize;
    let keys: Vec<i32> = (0..n as i32).map(|i| if i < 32 { i % 5 } else { (i * 7) % 13 - 2 }).collect();
    let vals: Vec<i32> =
        (0..n as i32).map(|i| if (32..64).contains(&i) { i % 5 + 1 } else { (i * 37 + 3) % 19 - 9 }).collect();
    let mut out = vec![0i32; 4 * n];
    let mut counters = vec![0i32; 64];
    for warp in 0..n.div_ceil(32) {
        let lane_of = |l: usize| warp * 32 + l;
        let key = |l: usize| if lane_of(l) < n { keys[lane_of(l)] } else { -1 };
        let val = |l: usize| if lane_of(l) < n { vals[lane_of(l)] } else { 0 };
        let ball = (0..32).filter(|&l| val(l) > 0).fold(0u32, |m, l| m | 1 << l);
        let any_neg = (0..32).any(|l| val(l) < 0) as i32;
        let all_pos = (0..32).all(|l| val(l) > 0) as i32;
        let all_same = (0..32).all(|l| key(l) & !7 == key(0) & !7) as i32;
        let same = |l: usize| (0..32).filter(|&m| key(m) == key(l)).fold(0u32, |m, x| m | 1 << x);
        for l in 0..32 {
            let i = lane_of(l);
            if i >= n {
                continue;
            }
            if key(l) >= 0 && same(l).trailing_zeros() as usize == l {
                counters[(key(l) & 63) as usize] += same(l).count_ones() as i32;
            }
            let scan: i32 = (0..=l).map(val).sum();
            out[4 * i] = ball as i32;
            out[4 * i + 1] = any_neg * 2 + all_pos + 4 * all_same;
            out[4 * i + 2] = scan;
            out[4 * i + 3] = val(0) + (same(l) & ((1u32 << l) - 1)).count_ones() as i32;
        }
    }
    let args = || {
        vec![
            Arg::Buffer(i32s(&keys)),
            Arg::Buffer(i32s(&vals)),
            Arg::Buffer(vec![0; 4 * 4 * n]),
            Arg::Buffer(vec![0; 4 * 64]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    let want = [i32s(&keys), i32s(&vals), i32s(&out), i32s(&counters)];
    check("warp_vote", &[90, 80], "warp_vote", 2, 64, args, &want);
}

#[test]
fn scan_block() {
    // Blocks of 128 threads scan 256 elements each; the last block is partial.
    let (block, n) = (128usize, 600usize);
    let chunk = 2 * block;
    let blocks = n.div_ceil(chunk);
    let input = pattern(n, 3);
    let mut out = vec![0i32; n];
    let mut totals = vec![0i32; blocks];
    for (b, total) in totals.iter_mut().enumerate() {
        let mut sum = 0;
        for (i, o) in out.iter_mut().enumerate().take(((b + 1) * chunk).min(n)).skip(b * chunk) {
            *o = sum;
            sum += input[i];
        }
        *total = sum;
    }
    let args = || {
        vec![
            Arg::Buffer(i32s(&input)),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(vec![0; 4 * blocks]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    let want = [i32s(&input), i32s(&out), i32s(&totals)];
    check("scan_block", &[90, 80], "scan_block", blocks as u32, block as u32, args, &want);
    // scan_add_offsets adds each block's offset to its elements.
    let offsets: Vec<i32> = (0..blocks as i32).map(|b| 1000 * b + 7).collect();
    let added: Vec<i32> = (0..n).map(|i| input[i] + offsets[i / chunk]).collect();
    let args = || vec![Arg::Buffer(i32s(&input)), Arg::Buffer(i32s(&offsets)), Arg::Value(i32s(&[n as i32]))];
    check(
        "scan_block",
        &[90, 80],
        "scan_add_offsets",
        blocks as u32,
        block as u32,
        args,
        &[i32s(&added), i32s(&offsets)],
    );
}

fn u64s(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The lowered and final forms of `tests/ptx/NAME.ptx` for `sm`.
fn test_stages(name: &str, sm: u32) -> [ori_ir::Module; 2] {
    stages_of(name, test_ptx(&format!("{name}.ptx"), sm), sm)
}

/// `tests/ptx/scoped_labels.ptx`: a label repeated in sibling `{ }` blocks
/// and in the block around them; each branch takes the innermost one. The
/// reference is NVIDIA's cubin too, on the interpreter.
#[test]
fn scoped_labels() {
    let n = 64usize;
    let want = [u32s(&(0..n as u32).map(|i| 2 * (i.max(1) + 300)).collect::<Vec<_>>())];
    let args = || vec![Arg::Buffer(vec![0; 4 * n])];
    let oracle = nv_oracle::Oracle::for_test("scoped_labels");
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("scoped_labels", sm)) {
            let got = run(&module, "scoped_labels", [1, 1, 1], [n as u32, 1, 1], &args());
            assert_eq!(got, want, "{stage} sm_{sm}");
        }
        if let Some(oracle) = &oracle {
            let nvidia = run_nvidia(oracle, "scoped_labels", sm, [1, 1, 1], [n as u32, 1, 1], &args());
            assert_eq!(nvidia, want, "NVIDIA's cubin, sm_{sm}");
        }
    }
}

/// atomics_mix (sm_80; its sm_90 file has a module-scope variable): every
/// kind of global atomic, a float-max CAS loop and a double CAS loop.
#[test]
fn atomics_mix() {
    let n = 300usize;
    let vi: Vec<i32> = pattern(n, 1).iter().map(|&v| v * 1000 + 3).collect();
    let vf: Vec<f32> = pattern(n, 4).iter().map(|&v| v as f32).collect();
    let counters_init = [5i32, i32::MAX, i32::MIN, 0, 0, 0, -1, 0];
    let (wrap0, fsum0, fmax0, dprod0) = (990u32, 0.5f32, -100.0f32, 2.0f64);
    let mut counters = counters_init;
    counters[0] += vi.iter().sum::<i32>();
    counters[1] = *vi.iter().min().unwrap();
    counters[2] = *vi.iter().max().unwrap();
    counters[3] = 1;
    counters[5] = vi.iter().filter(|&&x| x < 0).count() as i32;
    counters[6] = vi.iter().fold(-1, |a, &x| a & (x | 0xffff0000u32 as i32));
    counters[7] = vi.iter().fold(0, |a, &x| a | (x & 0xffff));
    let wrap = (0..n).fold(wrap0, |w, _| if w >= 999 { 0 } else { w + 1 });
    let fsum = vf.iter().fold(fsum0, |a, &f| a + f);
    let fmax = vf.iter().fold(fmax0, |a, &f| a.max(f));
    // Only thread 0 multiplies (i & 1023 == 0): 1 + f * 1e-3 as one fma.
    let dprod = dprod0 * f64::from(vf[0]).mul_add(f64::from_bits(0x3F50624DD2F1A9FC), 1.0);
    let args = || {
        vec![
            Arg::Buffer(i32s(&vi)),
            Arg::Buffer(f32s(&vf)),
            Arg::Value(i32s(&[n as i32])),
            Arg::Buffer(i32s(&counters_init)),
            Arg::Buffer(wrap0.to_le_bytes().to_vec()),
            Arg::Buffer(f32s(&[fsum0])),
            Arg::Buffer(f32s(&[fmax0])),
            Arg::Buffer(dprod0.to_le_bytes().to_vec()),
        ]
    };
    let want = [
        i32s(&vi),
        f32s(&vf),
        i32s(&counters),
        wrap.to_le_bytes().to_vec(),
        f32s(&[fsum]),
        f32s(&[fmax]),
        dprod.to_le_bytes().to_vec(),
    ];
    check("atomics_mix", &[90, 80], "atomics_mix", 3, 128, args, &want);
}

/// `tests/ptx/double.ptx`: `abs`/`neg.f64` (signed zeros), `setp.lt` and
/// the unordered `setp.geu` against an immediate, `selp.f64`, and an fma
/// whose factor is a constant with a non-zero low word.
#[test]
fn doubles() {
    let n = 128usize;
    let a: Vec<f64> =
        (0..n).map(|i| [-0.0, 0.0, 1.5, -2.25, 3.0, 1.0e300, -7.5, 1.25][i % 8] * (1 + i / 8) as f64).collect();
    let b: Vec<f64> = (0..n).map(|i| [1.0, -0.0, 1.5, -3.0, 0.0, -1.0e-300, 2.0, f64::NAN][(i * 3) % 8]).collect();
    let mut mem = vec![0f64; 7 * n];
    mem[..n].copy_from_slice(&a);
    mem[n..2 * n].copy_from_slice(&b);
    let mut want = mem.clone();
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let s1 = if x < y { x.abs() } else { -y };
        // geu: greater, equal or unordered.
        let s2 = if x.partial_cmp(&1.5) != Some(std::cmp::Ordering::Less) { x } else { y };
        let f = x.mul_add(f64::from_bits(0x3F50624DD2F1A9FC), 1.0);
        want[2 * n + i] = (s1 + s2) + f;
        want[4 * n + i] = x.abs();
        want[6 * n + i] = -y;
    }
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("double", sm)) {
            let got = run(&module, "doubles", [1, 1, 1], [n as u32, 1, 1], &[Arg::Buffer(bytes(&mem))]);
            let got: Vec<u64> = got[0].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                // NaN results compare as NaN (payloads are the hardware's).
                let same = *g == w.to_bits() || (f64::from_bits(*g).is_nan() && w.is_nan());
                assert!(same, "doubles sm_{sm} {stage}: element {i}: {} != {w}", f64::from_bits(*g));
            }
        }
    }
}

/// Every atomic of `tests/ptx/atomics.ptx`: returned old values and
/// memory, 32 and 64 bits, compare-and-swap hits and misses, wrapping
/// `inc`/`dec`, and reductions of all threads on shared totals.
#[test]
fn atomics() {
    let n = 100usize;
    let x: Vec<u32> = (0..n as u32)
        .map(|i| match i % 6 {
            0 => i,
            1 => u32::MAX - i,
            2 => 0x8000_0000 + i,
            3 => i.wrapping_mul(2_654_435_761),
            4 => 3,
            _ => 0,
        })
        .collect();
    // Each thread's slot: 32 words, the last 12 of them 64-bit values.
    let mut mem = vec![0u32; 32 * n];
    for i in 0..n {
        let w = &mut mem[32 * i..32 * i + 32];
        for (k, v) in w.iter_mut().enumerate() {
            *v = ((i * 32 + k) as u32).wrapping_mul(0x9e37_79b9) ^ 0x5a5a_0f0f;
        }
        w[3] = (i % 8) as u32;
        w[4] = (i % 8) as u32;
        w[9] = if i % 2 == 0 { x[i] } else { x[i] ^ 1 };
        if i % 3 == 0 {
            (w[20], w[21]) = (w[22], w[23]);
        }
    }
    let u64_at = |w: &[u32], k: usize| u64::from(w[k]) | u64::from(w[k + 1]) << 32;
    let mut want_mem = mem.clone();
    let mut out = vec![0u32; 32 * n];
    for i in 0..n {
        let (w, o, x) = (&mut want_mem[32 * i..32 * i + 32], &mut out[32 * i..32 * i + 32], x[i]);
        let y = u64::from(x) << 29;
        let old = w.to_vec();
        let new32 = [
            old[0].wrapping_add(x),
            (old[1] as i32).min(x as i32) as u32,
            old[2].max(x),
            if old[3] >= 5 { 0 } else { old[3] + 1 },
            if old[4] == 0 || old[4] > 5 { 5 } else { old[4] - 1 },
            old[5] & x,
            old[6] | x,
            old[7] ^ x,
            x,
            if old[9] == x { 7 } else { old[9] },
            old[10].min(x),
            (old[11] as i32).max(x as i32) as u32,
        ];
        w[..12].copy_from_slice(&new32);
        o[..12].copy_from_slice(&old[..12]);
        let cas = if u64_at(&old, 20) == u64_at(&old, 22) { y } else { u64_at(&old, 20) };
        let new64 = [
            u64_at(&old, 16).wrapping_add(y),
            y,
            cas,
            u64_at(&old, 22) ^ y,
            u64_at(&old, 24) | y,
            u64_at(&old, 26) & y,
        ];
        for (j, v) in new64.iter().enumerate() {
            (w[16 + 2 * j], w[17 + 2 * j]) = (*v as u32, (*v >> 32) as u32);
            (o[16 + 2 * j], o[17 + 2 * j]) = (old[16 + 2 * j], old[17 + 2 * j]);
        }
    }
    let small: u64 = x.iter().filter(|&&v| v < 16).map(|&v| u64::from(v)).sum();
    let total_init = [0u32, u32::MAX, i32::MIN as u32, 0, 5, 0, 0, 0];
    let total = [
        x.iter().fold(0, |a, v| a ^ v),
        *x.iter().min().unwrap(),
        x.iter().map(|&v| v as i32).max().unwrap() as u32,
        (0..n).fold(0u32, |v, _| if v == 0 || v > 1000 { 1000 } else { v - 1 }),
        0,
        0,
        small as u32,
        (small >> 32) as u32,
    ];
    let u32s = |v: &[u32]| words(v, u32::to_le_bytes);
    let args = || {
        vec![
            Arg::Buffer(u32s(&mem)),
            Arg::Buffer(vec![0; 128 * n]),
            Arg::Buffer(u32s(&x)),
            Arg::Buffer(u32s(&total_init)),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    let want = [u32s(&want_mem), u32s(&out), u32s(&x), u32s(&total)];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("atomics", sm)) {
            let got = run(&module, "atomics", [2, 1, 1], [64, 1, 1], &args());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(g == w, "atomics sm_{sm} {stage}: buffer {k} differs");
            }
        }
    }
}

/// Every 64-bit integer operation of `tests/ptx/int64.ptx` on values that
/// carry and borrow across the words, with shifts below and above 32.
#[test]
fn int64_ops() {
    let n = 64;
    let edge = [0, 1, u64::MAX, 0xffff_ffff, 0x1_0000_0000, 0x8000_0000_0000_0000, 0x7fff_ffff_ffff_ffff, 12345];
    let a: Vec<u64> =
        (0..n).map(|i| edge[i % 8].wrapping_add((i as u64 / 8).wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
    let b: Vec<u64> = (0..n).map(|i| edge[(i * 3 + 1) % 8] ^ ((i as u64) << 31)).collect();
    for shift in [5u32, 37] {
        let out: Vec<u64> = (0..n)
            .flat_map(|i| {
                let (x, y) = (a[i], b[i]);
                let (sx, sy) = (x as i64, y as i64);
                let sel = |p: bool, t: u64, f: u64| if p { t } else { f };
                let add = x.wrapping_add(y);
                let sub = x.wrapping_sub(y);
                let mul = x.wrapping_mul(y);
                let shl3 = x << 3;
                let shl = x << shift;
                [
                    sel(x < y, add, sub),
                    sel(sx >= sy, 7, sub),
                    sel(x == y, mul, 9),
                    sel(x != 0, shl3, shl),
                    sel(sy > -3, 1, 2),
                    y >> 5,
                    (sy >> shift) as u64,
                    x & y,
                    x | y,
                    x ^ 81985529216486895,
                    !x,
                    y.wrapping_neg(),
                    x.wrapping_sub(1),
                    x.wrapping_sub(1 << 32),
                    y.wrapping_mul(12),
                    y.rotate_left(32),
                    x.wrapping_add(1311768467463790320),
                    mul,
                    shl3,
                    shl,
                    sy.unsigned_abs(),
                    ((u128::from(x) * u128::from(y)) >> 64) as u64,
                    ((u128::from(x) * 0x9e37_79b9_7f4a_7c15) >> 64) as u64,
                    ((u128::from(x) * 0x9e37_79b9_7f4a_7c15) >> 64) as u64,
                ]
            })
            .collect();
        for sm in [90, 80] {
            for (stage, module) in ["lowered", "final"].iter().zip(test_stages("int64", sm)) {
                let args = vec![
                    Arg::Buffer(u64s(&a)),
                    Arg::Buffer(u64s(&b)),
                    Arg::Buffer(vec![0; 192 * n]),
                    Arg::Value(i32s(&[shift as i32])),
                ];
                let got = run(&module, "int64_ops", [1, 1, 1], [n as u32, 1, 1], &args);
                let got: Vec<u64> = got[2].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
                for (k, (g, w)) in got.iter().zip(&out).enumerate() {
                    assert_eq!(g, w, "sm_{sm} {stage}, shift {shift}: thread {}, output {}", k / 24, k % 24);
                }
            }
        }
    }
}

/// Vector accesses of `tests/ptx/vectors.ptx`: whole vectors, 64-bit
/// elements, bytes and halves cut out of their words (zero- and
/// sign-extended), and the cache operators.
#[test]
fn vectors() {
    let n = 32;
    let input: Vec<u8> = (0..64 * n).map(|i| (i * 37 + 11) as u8).collect();
    let mut want = vec![0u8; 64 * n];
    for t in 0..n {
        let inp = &input[64 * t..64 * t + 64];
        let out = &mut want[64 * t..64 * t + 64];
        for k in 0..4 {
            out[4 * k..4 * k + 4].copy_from_slice(&inp[4 * (3 - k)..4 * (3 - k) + 4]);
        }
        out[16..24].copy_from_slice(&inp[24..32]);
        out[24..32].copy_from_slice(&inp[16..24]);
        for k in 0..4 {
            out[32 + 2 * k..34 + 2 * k].copy_from_slice(&u16::from(inp[40 + k]).to_le_bytes());
        }
        out[40..44].copy_from_slice(&inp[44..48]);
        for k in 0..4 {
            out[44 + 2 * k..46 + 2 * k].copy_from_slice(&(i16::from(inp[48 + k] as i8)).to_le_bytes());
        }
        out[56..60].copy_from_slice(&inp[36..40]);
        out[60..64].copy_from_slice(&inp[32..36]);
    }
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("vectors", sm)) {
            let args = vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
            let got = run(&module, "vectors", [1, 1, 1], [n as u32, 1, 1], &args);
            for (t, (g, w)) in got[1].chunks(64).zip(want.chunks(64)).enumerate() {
                assert_eq!(g, w, "sm_{sm} {stage}: thread {t}");
            }
        }
    }
}

/// The per-thread bytecode interpreter (local stack array, dense switch as
/// a decision tree on 16-bit opcodes) and the sparse switch of
/// switch_dispatch.cu, against the same programs run here.
#[test]
fn switch_dispatch() {
    let code: [u8; 16] = [0, 69, 1, 4, 3, 0, 134, 8, 0, 130, 7, 6, 0, 128, 10, 12];
    let n = 512;
    let init = pattern(n, 13).iter().map(|&v| v * 37).collect::<Vec<i32>>();
    let run_code = |x: i32| -> i32 {
        let (mut stack, mut sp, mut pc, mut steps) = ([0i32; 8], 1usize, 0usize, 0);
        stack[0] = x;
        while pc < code.len() && steps < 256 {
            steps += 1;
            let op = code[pc];
            pc += 1;
            let pop = |sp: &mut usize| {
                *sp = sp.wrapping_sub(1);
                stack[*sp & 7]
            };
            match op {
                0 => {
                    stack[sp & 7] = i32::from(code[pc]) - 64;
                    sp += 1;
                    pc += 1;
                }
                1..=3 | 7..=10 => {
                    let b = pop(&mut sp);
                    let a = pop(&mut sp);
                    stack[sp & 7] = match op {
                        1 => a.wrapping_add(b),
                        2 => a.wrapping_sub(b),
                        3 => a.wrapping_mul(b),
                        7 => a << (b & 15),
                        8 => a ^ b,
                        9 => a.min(b),
                        _ => a.max(b),
                    };
                    sp += 1;
                }
                4 => {
                    stack[sp & 7] = stack[sp.wrapping_sub(1) & 7];
                    sp += 1;
                }
                5 => stack.swap(sp.wrapping_sub(1) & 7, sp.wrapping_sub(2) & 7),
                6 => stack[sp.wrapping_sub(1) & 7] = stack[sp.wrapping_sub(1) & 7].wrapping_neg(),
                11 => {
                    let a = pop(&mut sp);
                    let b = code[pc] as usize;
                    pc += 1;
                    if a != 0 {
                        pc = b;
                    }
                }
                12 => pc = code.len(),
                _ => {}
            }
            if (sp as isize) < 1 {
                sp = 1;
            }
        }
        stack[sp.wrapping_sub(1) & 7]
    };
    let want: Vec<i32> = init.iter().map(|&x| run_code(x)).collect();
    let args = || {
        vec![
            Arg::Buffer(code.to_vec()),
            Arg::Value(i32s(&[16])),
            Arg::Buffer(i32s(&init)),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    check("switch_dispatch", &[90, 80], "interp", 4, 128, args, &[code.to_vec(), i32s(&init), i32s(&want)]);

    let cases = [-100, 3, 17, 1024, 65536, 999999];
    let input: Vec<i32> =
        (0..n).map(|i| if i % 3 == 0 { cases[i / 3 % 6] } else { (i as i32 * 7919) ^ -(i as i32) }).collect();
    let mapped: Vec<i32> = input
        .iter()
        .map(|&v| match v {
            -100 => 1,
            3 => v * 7,
            17 => v + 1000,
            1024 => v >> 3,
            65536 => -v,
            999999 => 42,
            _ => v & 0xff,
        })
        .collect();
    let args = || vec![Arg::Buffer(i32s(&input)), Arg::Buffer(vec![0; 4 * n]), Arg::Value(i32s(&[n as i32]))];
    check("switch_dispatch", &[90, 80], "sparse_switch", 4, 128, args, &[i32s(&input), i32s(&mapped)]);
}

#[test]
fn launch_bounds() {
    // The same body under five launch bounds: 32 gathers x[(i + 977 k) % n]
    // (rem.s32 by a runtime n), four rounds of in-place fmaf * 0.5, and a
    // weighted sum that PTX contracts into fma. Inputs are multiples of
    // 1/8 in [-1, 1], so nothing reaches the subnormal range.
    let n = 300usize;
    let x: Vec<f32> = pattern(n, 5).iter().map(|&v| v as f32 / 8.0).collect();
    let y: Vec<f32> = (0..n)
        .map(|i| {
            let mut r: Vec<f32> = (0..32).map(|k| x[(i + k * 977) % n]).collect();
            for it in 0..4 {
                for k in 0..32 {
                    r[k] = r[k].mul_add(r[(k + 7) & 31], r[(k * 5 + it) & 31]) * 0.5;
                }
            }
            r.iter().enumerate().fold(0.0f32, |s, (k, &v)| v.mul_add(k as f32, s))
        })
        .collect();
    let args = || vec![Arg::Buffer(f32s(&x)), Arg::Buffer(vec![0; 4 * n]), Arg::Value(i32s(&[n as i32]))];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages("launch_bounds", sm)) {
            for entry in ["lb_none", "lb_256_4", "lb_1024_1", "lb_128_8", "lb_maxnreg40"] {
                let got = run(&module, entry, [3, 1, 1], [128, 1, 1], &args());
                assert!(got == [f32s(&x), f32s(&y)], "launch_bounds {entry} sm_{sm} {stage}: results differ");
            }
        }
    }
}

/// `div`/`rem` on s32 and u32 (register and immediate operands, a guarded
/// one), hand-written PTX run on edge cases: signs, `INT_MIN`, divisors 0,
/// 1, -1 and large ones. A zero divisor gives all ones, as NVIDIA's
/// sequence does (PTX leaves it unspecified).
#[test]
fn integer_division() {
    let text = lower_kernels::integer_division;
    let special = [0, 1, -1, 2, -2, 7, -7, i32::MIN, i32::MAX, i32::MIN + 1, 65536, -65537, 1 << 30, 3, 100_000];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &special {
        for &y in &special {
            a.push(x);
            b.push(y);
        }
    }
    for i in 0..100i32 {
        a.push(i.wrapping_mul(-1_640_531_527) >> (i % 7));
        b.push(i.wrapping_mul(40_503) >> (i % 23));
    }
    let n = a.len();
    let ones = u32::MAX as i32;
    let div_s = |x: i32, y: i32| if y == 0 { ones } else { x.wrapping_div(y) };
    let rem_s = |x: i32, y: i32| if y == 0 { ones } else { x.wrapping_rem(y) };
    let div_u = |x: i32, y: i32| if y == 0 { ones } else { (x as u32 / y as u32) as i32 };
    let rem_u = |x: i32, y: i32| if y == 0 { ones } else { (x as u32 % y as u32) as i32 };
    let out: Vec<i32> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            let guarded = if x < 0 { rem_s(5, y) } else { 5 };
            [div_s(x, y), rem_s(x, y), div_u(x, y), rem_u(x, y), x / 7, rem_u(x, 10), guarded, div_u(-1000, x)]
        })
        .collect();
    let args = || {
        vec![Arg::Buffer(i32s(&a)), Arg::Buffer(i32s(&b)), Arg::Buffer(vec![0; 32 * n]), Arg::Value(i32s(&[n as i32]))]
    };
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("divs", text(sm), sm)) {
            let got = run(&module, "divs", [2, 1, 1], [192, 1, 1], &args());
            let want = [i32s(&a), i32s(&b), i32s(&out)];
            if got != want {
                let got: Vec<i32> = got[2].chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
                let bad = (0..out.len()).find(|&i| got[i] != out[i]).unwrap();
                let (x, y) = (a[bad / 8], b[bad / 8]);
                panic!("sm_{sm} {stage}: result {} of ({x}, {y}) is {}, not {}", bad % 8, got[bad], out[bad]);
            }
        }
    }
}

/// Bytes of `u32`s.
fn u32s(values: &[u32]) -> Vec<u8> {
    words(values, u32::to_le_bytes)
}

#[test]
fn bitops() {
    // The kernel's o[6] is `(unsigned)(__brevll(z) >> 17)`; `shr.u64` is
    // not lowered here yet, so the shift is taken out of the PTX and o[6]
    // is the low word of `__brevll(z)`.
    let shift = "shr.u64 \t%rd21, %rd20, 17;";
    let n = 300usize;
    let mut x: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 3)).collect();
    let mut y: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x85eb_ca6b).rotate_left(i % 32)).collect();
    let mut z: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0xc2b2_ae3d_27d4_eb4f) >> (i % 64)).collect();
    for (i, (a, b, c)) in
        [(0, 0, 0), (u32::MAX, 1, u64::MAX), (1, u32::MAX, 1 << 32), (0x8000_0000, 31, 1 << 63)].into_iter().enumerate()
    {
        (x[i], y[i], z[i]) = (a, b, c);
    }
    let funnel_l = |lo: u32, hi: u32, s: u32| ((u64::from(hi) << 32 | u64::from(lo)) << s >> 32) as u32;
    let byte = |v: u32, k: u32| (v >> (8 * k)) & 0xff;
    let out: Vec<u32> = (0..n)
        .flat_map(|i| {
            let (x, y, z) = (x[i], y[i], z[i]);
            let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
            let perm = byte(x, 0) | byte(y, 0) << 8 | byte(x, 1) << 16 | byte(y, 1) << 24;
            let hi = ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32;
            let uhi = ((u64::from(x) * u64::from(y)) >> 32) as u32;
            [
                x.count_ones(),
                z.count_ones(),
                x.leading_zeros(),
                z.leading_zeros(),
                ffs,
                x.reverse_bits(),
                z.reverse_bits() as u32,
                perm,
                funnel_l(x, y, y & 31),
                ((u64::from(y) << 32 | u64::from(x)) >> 13) as u32,
                funnel_l(x, y, y.min(32)),
                x.abs_diff(y).wrapping_add(7),
                uhi ^ hi,
                x.wrapping_add(y),
                (x >> (y & 15)) & 31,
                (x & !0xff00) | ((y & 0xff) << 8),
            ]
        })
        .collect();
    let args = || {
        vec![
            Arg::Buffer(u32s(&x)),
            Arg::Buffer(u32s(&y)),
            Arg::Buffer(z.iter().flat_map(|v| v.to_le_bytes()).collect()),
            Arg::Buffer(vec![0; 64 * n]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    for sm in [90, 80] {
        let text = ptx("bitops", sm);
        assert!(text.contains(shift), "bitops.sm{sm}.ptx changed");
        let text = text.replace(shift, "mov.b64 \t%rd21, %rd20;");
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("bitops", text, sm)) {
            let got = run(&module, "bitops", [3, 1, 1], [128, 1, 1], &args());
            let got: Vec<u32> = got[3].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            if let Some(bad) = (0..out.len()).find(|&i| got[i] != out[i]) {
                panic!(
                    "sm_{sm} {stage}: o[{}] of element {} is {:#x}, not {:#x}",
                    bad % 16,
                    bad / 16,
                    got[bad],
                    out[bad]
                );
            }
        }
    }
}

/// The bit-field forms the corpus kernels do not all reach through
/// bitops: `bfi`/`bfe` with constant fields, `bfind.u32`, `bfi.b64` of two
/// copies of a low word, `brev.b64` into a pair, `sad` and `prmt` with register-held
/// constants, clamped funnel shifts, a guarded `clz.b64`.
#[test]
fn bit_fields() {
    let text = lower_kernels::bit_fields;
    let n = 200usize;
    let pairs: Vec<[u32; 2]> = (0..n as u32)
        .map(|i| [i.wrapping_mul(0x9e37_79b9) >> (i % 9), i.wrapping_mul(0x85eb_ca6b) ^ (i << 20)])
        .collect();
    let out: Vec<u32> = pairs
        .iter()
        .flat_map(|&[a, b]| {
            let field = |pos: u32, len: u32| {
                let mask = (((1u64 << len.min(32)) - 1) << pos) as u32;
                (a << pos & mask) | (b & !mask)
            };
            let pair = u64::from(a) << 32 | u64::from(a);
            let clz = if a < 0x8000_0000 { pair.leading_zeros() } else { 9 };
            let mut o = [0u32; 16];
            o[..14].copy_from_slice(&[
                field(2, 30),
                field(1, 1),
                field(8, 40),
                (a >> 3) & 31,
                ((a as i32) >> 20) as u32,
                if a == 0 { u32::MAX } else { 31 - a.leading_zeros() },
                pair.reverse_bits() as u32,
                a,
                a.abs_diff(b).wrapping_add(b),
                b,
                b,
                ((u64::from(b) << 32 | u64::from(a)) << 7 >> 32) as u32,
                clz,
                ((u64::from(a) * 3_000_000_000) >> 32) as u32,
            ]);
            o
        })
        .collect();
    let input: Vec<u32> = pairs.iter().flatten().copied().collect();
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 64 * n]), Arg::Value(i32s(&[n as i32]))];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("fields", text(sm), sm)) {
            let got = run(&module, "fields", [2, 1, 1], [128, 1, 1], &args());
            let got: Vec<u32> = got[1].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            if let Some(bad) = (0..out.len()).find(|&i| got[i] != out[i]) {
                panic!(
                    "sm_{sm} {stage}: o[{}] of element {} is {:#x}, not {:#x}",
                    bad % 16,
                    bad / 16,
                    got[bad],
                    out[bad]
                );
            }
        }
    }
}

/// Rounds `exact` to f32 up (`up`) or toward zero, from its nearest f32.
fn f32_directed(exact: f64, up: bool) -> f32 {
    let near = exact as f32;
    let off = f64::from(near) - exact;
    let step = if up { off < 0.0 } else { off.abs() > 0.0 && (f64::from(near).abs() > exact.abs()) };
    match (step, up) {
        (false, _) => near,
        (true, true) => f32::from_bits(if near >= 0.0 { near.to_bits() + 1 } else { near.to_bits() - 1 }),
        (true, false) => f32::from_bits(near.to_bits() - 1),
    }
}

/// f32 to binary16 and back, rounding to nearest even (normal range,
/// overflow to infinity).
fn through_f16(x: f32) -> f32 {
    if x == 0.0 {
        return x;
    }
    if x.abs() >= 65520.0 {
        return f32::INFINITY.copysign(x);
    }
    let ulp = 2f64.powi(f64::from(x.abs()).log2().floor() as i32 - 10);
    ((f64::from(x) / ulp).round_ties_even() * ulp) as f32
}

/// `cvt` in its rounding forms (f32/f64/s32/s64, integral roundings,
/// saturation, f16 and bf16), hand-written PTX with the forms the encoder
/// knows, run lowered and compiled.
#[test]
fn conversions() {
    let text = lower_kernels::conversions;
    let mut x: Vec<f32> = (0..300).map(|i| (i as f32 - 150.0) * 3.37 + 0.001 * i as f32).collect();
    x[..8].copy_from_slice(&[0.5, 1.5, 2.5, -0.5, -2.5, 0.99, -1e10, 1e10]);
    let xd: Vec<f64> = (0..300).map(|i| (i as f64 - 150.0) * 1234.5678 + 0.123 * i as f64).collect();
    let n = x.len();
    let out: Vec<u8> = x
        .iter()
        .zip(&xd)
        .flat_map(|(&v, &d)| {
            let r = v.round_ties_even() as i32;
            let s64 = d.trunc() as i64;
            let f64_s64 = v.floor() as i64;
            let m = (d.round_ties_even() as i32).wrapping_mul(33333);
            let mut o = Vec::new();
            for w in [r, v.floor() as i32, v.ceil() as i32, v.trunc() as i32] {
                o.extend(w.to_le_bytes());
            }
            for f in [
                v.round_ties_even(),
                v.trunc(),
                v.floor(),
                v.ceil(),
                v.clamp(0.0, 1.0),
                d as f32,
                f32_directed(d, true),
            ] {
                o.extend(f.to_le_bytes());
            }
            o.extend((d.round_ties_even() as i32).to_le_bytes());
            o.extend(f64::from(v).to_le_bytes());
            o.extend(s64.to_le_bytes());
            o.extend(f64_s64.to_le_bytes());
            o.extend((s64 as f32).to_le_bytes());
            o.extend((f64_s64 as u32).to_le_bytes());
            o.extend((f64_s64 as f64).to_le_bytes());
            o.extend(f32_directed(f64::from(m), false).to_le_bytes());
            o.extend(f32_directed(f64::from(m as u32), true).to_le_bytes());
            o.extend(i32::from(r as i8).to_le_bytes());
            o.extend(through_f16(v).to_le_bytes());
            o.extend(f32::from_bits((r as u32 & 0xffff) << 16).to_le_bytes());
            o.extend((r as u32 & 0xff).to_le_bytes());
            o.extend(f64::from(r).to_le_bytes());
            o.resize(128, 0);
            o
        })
        .collect();
    let f64s: Vec<u8> = xd.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&x)),
            Arg::Buffer(f64s.clone()),
            Arg::Buffer(vec![0; 128 * n]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("cvts", text(sm), sm)) {
            let got = run(&module, "cvts", [3, 1, 1], [128, 1, 1], &args());
            if let Some(bad) = (0..out.len()).step_by(4).find(|&i| got[2][i..i + 4] != out[i..i + 4]) {
                let word = |b: &[u8]| u32::from_le_bytes(b[bad..bad + 4].try_into().unwrap());
                let (g, w) = (word(&got[2]), word(&out));
                panic!("sm_{sm} {stage}: byte {} of element {} is {g:#x}, not {w:#x}", bad % 128, bad / 128);
            }
        }
    }
}

/// binary16 bits of `v`, a value exactly representable in binary16.
fn f16_bits(v: f64) -> u16 {
    if v == 0.0 {
        return if v.is_sign_negative() { 0x8000 } else { 0 };
    }
    let sign = if v < 0.0 { 0x8000 } else { 0 };
    let e = v.abs().log2().floor() as i32;
    let mantissa = (v.abs() / 2f64.powi(e) - 1.0) * 1024.0;
    assert!(mantissa.fract() == 0.0 && (-14..16).contains(&e), "{v} is not a binary16 value");
    sign | ((e + 15) as u16) << 10 | mantissa as u16
}

/// fp16_ops: packed half fma/mul, half comparisons, conversions, a
/// warp reduction and atomics. Inputs are multiples of 1/4 in [-2, 2] and
/// squares of multiples of 1/4, so every half operation and every sum is
/// exact.
#[test]
fn fp16_ops() {
    let n2 = 200usize;
    let quarter = |i: usize, seed: usize| ((i * 7 + seed) % 17) as f64 / 4.0 - 2.0;
    let x: Vec<[f64; 2]> = (0..n2).map(|i| [quarter(i, 1), quarter(i, 5)]).collect();
    let y: Vec<[f64; 2]> = (0..n2).map(|i| [quarter(i, 3), quarter(i, 11)]).collect();
    let halves = |v: &[[f64; 2]]| v.iter().flatten().flat_map(|&h| f16_bits(h).to_le_bytes()).collect::<Vec<u8>>();
    let (alpha, beta) = (0.5f32, -1.5f32);
    let relu = |v: f64| if v < 0.0 { 0.0 } else { v };
    let out: Vec<[f64; 2]> =
        x.iter().zip(&y).map(|(a, b)| [0, 1].map(|k| relu(0.5 * a[k] + (-1.5 * b[k])) + 0.0)).collect();
    let (blocks, block) = (2usize, 128usize);
    let dots: Vec<f32> = (0..blocks)
        .map(|b| {
            (b * block..(b + 1) * block)
                .filter(|&i| i < n2)
                .map(|i| (x[i][0] * y[i][0] + x[i][1] * y[i][1]) as f32)
                .sum()
        })
        .collect();
    let args = || {
        vec![
            Arg::Buffer(halves(&x)),
            Arg::Buffer(halves(&y)),
            Arg::Buffer(vec![0; 4 * n2]),
            Arg::Buffer(vec![0; 4 * blocks]),
            Arg::Value(f32s(&[alpha])),
            Arg::Value(f32s(&[beta])),
            Arg::Value(i32s(&[n2 as i32])),
        ]
    };
    let n = 150usize;
    let input: Vec<f32> =
        (0..n).map(|i| (((i % 17) as f32 / 4.0).powi(2)) * if i % 3 == 0 { -1.0 } else { 1.0 }).collect();
    let h: Vec<u8> = input.iter().flat_map(|&v| f16_bits(f64::from(v)).to_le_bytes()).collect();
    let back: Vec<f32> = input.iter().map(|&v| (v + 1.0) + v.abs().sqrt()).collect();
    let convert_args = || {
        vec![
            Arg::Buffer(f32s(&input)),
            Arg::Buffer(vec![0; 2 * n]),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages("fp16_ops", sm)) {
            let got = run(&module, "fp16_axpby", [blocks as u32, 1, 1], [block as u32, 1, 1], &args());
            assert!(got[2] == halves(&out), "fp16_axpby sm_{sm} {stage}: out differs");
            assert!(got[3] == f32s(&dots), "fp16_axpby sm_{sm} {stage}: dots differ");
            let got = run(&module, "fp16_convert", [2, 1, 1], [128, 1, 1], &convert_args());
            assert!(got[1] == h && got[2] == f32s(&back), "fp16_convert sm_{sm} {stage}: results differ");
        }
    }
}

/// bf16x2 fma and max (with the constant pair NVIDIA writes as an
/// immediate), as in bf16_ops' bf16_fma, plus bf16 to f32; hand-written
/// because bf16_ops' other kernel needs 64-bit arithmetic.
#[test]
fn bf16_arithmetic() {
    let text = lower_kernels::bf16;
    // Lanes are multiples of 1/8 in [-4, 4]: products and sums have few bits,
    // so bf16 rounds only where the exact result needs more than 8.
    let n = 250usize;
    let lane = |i: usize, seed: usize| ((i * 13 + seed * 7) % 65) as f32 / 8.0 - 4.0;
    let bf = |v: f32| (v.to_bits() >> 16) as u16;
    let round_bf = |v: f64| {
        let e = v.abs().log2().floor() as i32;
        let ulp = 2f64.powi(e - 7);
        if v == 0.0 { 0.0 } else { ((v / ulp).round_ties_even() * ulp) as f32 }
    };
    let mut input = Vec::new();
    let mut out = Vec::new();
    for i in 0..n {
        let [a, b, c] = [0, 1, 2].map(|k| [lane(i, 3 * k), lane(i, 3 * k + 1)]);
        let r = [0, 1].map(|j| round_bf(f64::from(a[j]) * f64::from(b[j]) + f64::from(c[j])).max(-4.0) + 0.0);
        for v in [a, b, c] {
            input.push(u32::from(bf(v[0])) | u32::from(bf(v[1])) << 16);
        }
        out.extend([u32::from(bf(r[0])) | u32::from(bf(r[1])) << 16, r[1].to_bits(), r[0].to_bits()]);
    }
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 12 * n]), Arg::Value(i32s(&[n as i32]))];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("bf", text(sm), sm)) {
            let got = run(&module, "bf", [2, 1, 1], [128, 1, 1], &args());
            assert!(got[1] == u32s(&out), "sm_{sm} {stage}: results differ");
        }
    }
}

/// intdiv's second kernel alone (its first needs 64-bit arithmetic): the
/// module header and `nchw_decompose` cut out of the corpus file.
fn nchw_only(sm: u32) -> String {
    let text = ptx("intdiv", sm);
    let header = &text[..text.find(".visible .entry intdiv(").expect("intdiv's first kernel")];
    let kernel = &text[text.find(".visible .entry nchw_decompose(").expect("nchw_decompose")..];
    format!("{header}{kernel}")
}

#[test]
fn nchw_decompose() {
    // Divisions by runtime C, H, W and their products (rem.s32, div.s32).
    let (c, h, w) = (3i32, 5i32, 7i32);
    let total = 2 * c * h * w + 11;
    let out: Vec<i32> = (0..total)
        .map(|idx| {
            let (x, y, ch, nn) = (idx % w, (idx / w) % h, (idx / (w * h)) % c, idx / (w * h * c));
            ((nn * 31 + ch) * 17 + y) * 13 + x
        })
        .collect();
    let args = || {
        vec![
            Arg::Buffer(vec![0; 4 * total as usize]),
            Arg::Value(i32s(&[total])),
            Arg::Value(i32s(&[c])),
            Arg::Value(i32s(&[h])),
            Arg::Value(i32s(&[w])),
        ]
    };
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(stages_of("nchw", nchw_only(sm), sm)) {
            let got = run(&module, "nchw_decompose", [2, 1, 1], [128, 1, 1], &args());
            assert!(got == [i32s(&out)], "nchw_decompose sm_{sm} {stage}: results differ");
        }
    }
}

/// `div.u64`/`div.s64` (NVIDIA's subroutine inline) and `mul.hi.u64`,
/// hand-written PTX on edge cases (zero, one, all ones, `i64::MIN`, values
/// that fit 32 bits) and a spread of magnitudes. A zero divisor gives all
/// ones, as NVIDIA's sequence does.
#[test]
fn division_64() {
    // `mul.hi.u64` of two registers lowers, but the encoder knows NVIDIA's
    // `IMAD.WIDE.U32.X` only with an immediate: that form runs lowered only.
    let text = lower_kernels::division_64;
    let special =
        [0u64, 1, 2, 3, 7, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1, 1 << 32, (1 << 32) - 1, 1000000007];
    let mut pairs: Vec<(u64, u64)> = special.iter().flat_map(|&a| special.iter().map(move |&b| (a, b))).collect();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..200 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (a, b) = (s, s.rotate_left(17) >> (i % 64));
        pairs.push((a, b));
    }
    let n = pairs.len();
    let k = (-8543223828751151131i64) as u64;
    let out: Vec<u64> = pairs
        .iter()
        .flat_map(|&(a, b)| {
            let du = a.checked_div(b).unwrap_or(u64::MAX);
            let ds = if b == 0 { u64::MAX } else { (a as i64).wrapping_div(b as i64) as u64 };
            let hi = |x: u64, y: u64| ((u128::from(x) * u128::from(y)) >> 64) as u64;
            [du, ds, hi(a, b), hi(a, k)]
        })
        .collect();
    let left: Vec<u8> = pairs.iter().flat_map(|&(a, _)| a.to_le_bytes()).collect();
    let right: Vec<u8> = pairs.iter().flat_map(|&(_, b)| b.to_le_bytes()).collect();
    let want: Vec<u8> = out.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = || {
        vec![
            Arg::Buffer(left.clone()),
            Arg::Buffer(right.clone()),
            Arg::Buffer(vec![0; 32 * n]),
            Arg::Value(i32s(&[n as i32])),
        ]
    };
    for sm in [90, 80] {
        let source = text(sm, true);
        let (ast, diags) = ptx_syntax::parse(&source, ptx_syntax::FileId(0));
        assert!(diags.is_empty(), "{diags:?}");
        let with_registers = ptx_lower::lower(&ast, &source, ori_ir::Sm::new(sm as u16)).unwrap();
        let [lowered, compiled] = stages_of("div64", text(sm, false), sm);
        for (stage, module, registers) in
            [("lowered", with_registers, true), ("lowered", lowered, false), ("final", compiled, false)]
        {
            let mut got = run(&module, "div64", [3, 1, 1], [128, 1, 1], &args());
            if !registers {
                // Result 2 is `mul.hi.u64` of two registers: not in this kernel.
                for i in 0..n {
                    got[2][32 * i + 16..32 * i + 24].copy_from_slice(&want[32 * i + 16..32 * i + 24]);
                }
            }
            if let Some(bad) = (0..out.len()).find(|&i| got[2][8 * i..8 * i + 8] != want[8 * i..8 * i + 8]) {
                let g = u64::from_le_bytes(got[2][8 * bad..8 * bad + 8].try_into().unwrap());
                let (a, b) = pairs[bad / 4];
                panic!("sm_{sm} {stage}: result {} of ({a:#x}, {b:#x}) is {g:#x}, not {:#x}", bad % 4, out[bad]);
            }
        }
    }
}

/// The `.approx` functions of `tests/ptx/approx.ptx`, whose results only
/// NVIDIA's code defines: ours (lowered and compiled) must equal what
/// NVIDIA's cubin for the same PTX computes on the interpreter, on normal,
/// subnormal, negative, large and special inputs.
#[test]
fn approx_functions_match_nvidia() {
    let Some(oracle) = nv_oracle::Oracle::for_test("approx_functions_match_nvidia") else { return };
    let mut floats: Vec<f32> = vec![0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -126.5, -130.0, 100.0, 1e-40, -1e-39, 1e30];
    floats.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 7.25, -0.75, 64.0, 1e-20]);
    floats.extend((0..12).map(|i| (i as f32 - 6.0) * 1.37));
    let n = floats.len();
    let doubles: Vec<f64> = floats.iter().map(|&f| f64::from(f) * 3.5).collect();
    let dbytes: Vec<u8> = doubles.iter().flat_map(|d| d.to_le_bytes()).collect();
    let args = || vec![Arg::Buffer(f32s(&floats)), Arg::Buffer(dbytes.clone()), Arg::Buffer(vec![0; 64 * n])];
    for sm in [90, 80] {
        let want = run_nvidia(&oracle, "approx", sm, [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(2);
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("approx", sm)) {
            let got = run(&module, "approx", [1, 1, 1], [n as u32, 1, 1], &args());
            for (t, (g, w)) in got[2].chunks(64).zip(want.chunks(64)).enumerate() {
                assert_eq!(g, w, "sm_{sm} {stage}: input {} ({:e})", t, floats[t]);
            }
        }
    }
}

/// Runs `tests/ptx/NAME.ptx`'s kernel `NAME` on one block of `threads`,
/// ours (lowered and compiled) and NVIDIA's cubin, on both SMs: argument
/// `out` must come out the same, compared in `stride`-byte records (one
/// per thread; `describe` names a record's inputs in a failure).
fn matches_nvidia(
    name: &str,
    threads: u32,
    args: impl Fn() -> Vec<Arg>,
    out: usize,
    stride: usize,
    describe: impl Fn(usize) -> String,
) {
    let Some(oracle) = nv_oracle::Oracle::for_test(name) else { return };
    for sm in [90, 80] {
        let want = run_nvidia(&oracle, name, sm, [1, 1, 1], [threads, 1, 1], &args()).swap_remove(out);
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages(name, sm)) {
            let got = run(&module, name, [1, 1, 1], [threads, 1, 1], &args()).swap_remove(out);
            for (t, (g, w)) in got.chunks(stride).zip(want.chunks(stride)).enumerate() {
                assert_eq!(g, w, "{name} sm_{sm} {stage}: thread {t} ({})", describe(t));
            }
        }
    }
}

/// `tests/ptx/param_rewritten.ptx`: a 64-bit parameter whose register is
/// converted in place and bumped in a loop (sm_80 could not lower it).
#[test]
fn rewritten_parameter_registers_match_nvidia() {
    let n = 13u32;
    let args = || vec![Arg::Buffer(vec![0xee; 64 * 32]), Arg::Value(n.to_le_bytes().to_vec())];
    matches_nvidia("param_rewritten", 32, args, 0, 64, |t| format!("thread {t}"));
}

/// `tests/ptx/reg_params.ptx`: device functions with `.reg` parameters
/// and results, inlined, recursive (through the ABI) and called through a
/// pointer, and aggregates by value through the ABI, on signed, unsigned
/// and equal pairs.
#[test]
fn register_parameters_match_nvidia() {
    let mut pairs: Vec<(u32, u32)> = vec![(0, 0), (5, 5), (0xffff_ffff, 1), (0x8000_0000, 0x7fff_ffff), (7, 0x1_0003)];
    let mut x = 0x2545_f491u32;
    for _ in 0..59 {
        xorshift(&mut x);
        pairs.push((x, x.rotate_left(7) >> (x & 15)));
    }
    let n = pairs.len();
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n])];
    let Some(oracle) = nv_oracle::Oracle::for_test("register_parameters_match_nvidia") else { return };
    // The calls through the ABI run only in the cubin (the interpreter does
    // not follow calls between Ori functions).
    for sm in [90, 80] {
        let block = [n as u32, 1, 1];
        let want = run_nvidia(&oracle, "reg_params", sm, [1, 1, 1], block, &args()).swap_remove(1);
        let options = Options { arch: format!("sm_{sm}").parse().unwrap(), ..Options::default() };
        let output = ptxas::compile(&test_ptx("reg_params.ptx", sm), &options)
            .unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics));
        let kernel = ori_interp::load_kernel(&output.cubin.unwrap(), "reg_params").unwrap();
        let mut global = Global::new();
        let (params, buffers) = lay_out(&kernel.func, &args(), &mut global);
        ori_interp::run_kernel(&kernel, &Launch::new([1, 1, 1], block, params), &mut global).unwrap();
        let got = global.buffer(buffers[1]).unwrap();
        for (t, (g, w)) in got.chunks(48).zip(want.chunks(48)).enumerate() {
            assert_eq!(g, w, "sm_{sm}: thread {t} ({:#x}, {:#x})", pairs[t].0, pairs[t].1);
        }
    }
}

/// `tests/ptx/int16.ptx`: 16-bit shifts (by constants and registers, large
/// amounts), comparisons, conversions and arithmetic on registers whose
/// upper halves hold garbage.
#[test]
fn int16_ops_match_nvidia() {
    let mut pairs: Vec<(u32, u32)> = vec![(0, 0), (0xffff, 1), (0x8000, 0x7fff), (0x1234_8001, 0xdead_0011)];
    pairs.extend([(0xffff_7fff, 0x0000_ffff), (0x8765_4321, 0x2f), (0x10, 0xffff_ffe0), (5, 16)]);
    let mut x = 0x9e37_79b9u32;
    for _ in 0..56 {
        xorshift(&mut x);
        pairs.push((x, x.rotate_left(11)));
    }
    let n = pairs.len();
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n])];
    matches_nvidia("int16", n as u32, args, 1, 48, |t| format!("{:#x}, {:#x}", pairs[t].0, pairs[t].1));
}

/// `tests/ptx/fbits.ptx`: `copysign` (registers and constants) and
/// float-to-unsigned conversions of plain sources, on zeros, infinities,
/// NaNs, subnormals, negative values and values past the integer ranges.
#[test]
fn float_bits_match_nvidia() {
    let mut floats: Vec<f32> = vec![0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.49, 1e-40, -1e-39, 3e9, 5e9, -7.0, 1e20, 4.5e15];
    floats.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN, f32::MIN_POSITIVE, 65535.7, 123456.5]);
    let pairs: Vec<(f32, f32)> = floats.iter().flat_map(|&a| floats.iter().map(move |&b| (a, b))).collect();
    let n = pairs.len();
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 40 * n])];
    matches_nvidia("fbits", n as u32, args, 1, 40, |t| format!("{:e}, {:e}", pairs[t].0, pairs[t].1));
}

/// `tests/ptx/shared_atomics.ptx`: every shared-memory atomic with its
/// result, a reduction, `atom.shared.add.f32` (NVIDIA's compare-and-swap
/// loop), fences and a sleep; four threads of a warp on each word.
#[test]
fn shared_atomics_match_nvidia() {
    let n = 64usize;
    let ints: Vec<i32> = (0..n as i32).map(|i| (i * 7919 + 13) % 201 - 100).collect();
    let floats: Vec<f32> = (0..n).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
    let input: Vec<u8> =
        ints.iter().zip(&floats).flat_map(|(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("shared_atomics", n as u32, args, 1, 64, |t| format!("{}, {}", ints[t], floats[t]));
}

/// `shared_atomics` lowered for sm_100, whose compare-and-swap loop tests
/// the predicate `ATOMS.CAST.SPIN` writes there, against NVIDIA's sm_90
/// code (the loop's outcome is the same on every SM).
#[test]
fn shared_atomics_on_blackwell() {
    let Some(oracle) = nv_oracle::Oracle::for_test("shared_atomics_on_blackwell") else { return };
    let n = 64usize;
    let ints: Vec<i32> = (0..n as i32).map(|i| (i * 7919 + 13) % 201 - 100).collect();
    let floats: Vec<f32> = (0..n).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
    let input: Vec<u8> =
        ints.iter().zip(&floats).flat_map(|(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    let want = run_nvidia(&oracle, "shared_atomics", 90, [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
    let text = test_ptx("shared_atomics.ptx", 100).replace(".version 8.0", ".version 8.8");
    for (stage, module) in ["lowered", "final"].iter().zip(stages_of("shared_atomics", text, 100)) {
        let text = ori_ir::text::print_module(&module);
        let cas = text.lines().find(|l| l.contains("= ATOMS.CAST.SPIN")).expect("a compare-and-swap loop");
        let def = cas.split(" = ATOMS").next().unwrap().split_whitespace().last().unwrap();
        assert!(def.starts_with("%p") || def.starts_with('P'), "{stage}: {cas}");
        let got = run(&module, "shared_atomics", [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
        assert!(got == want, "sm_100 {stage}: results differ");
    }
}

/// `tests/ptx/shared_atomics64.ptx`: 64-bit shared atomics (`cas`, `exch`,
/// the `add.u64` loop with a register and a constant addend whose low
/// word carries), eight threads of a warp on each word.
#[test]
fn shared_atomics64_match_nvidia() {
    let n = 64usize;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut words = Vec::with_capacity(2 * n);
    for i in 0..2 * n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Some all-ones low words, so that additions carry into the high word.
        words.push(if i % 5 == 0 { x | 0xffff_ffff } else { x });
    }
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("shared_atomics64", n as u32, args, 1, 64, |t| {
        format!("{:#x}, {:#x}", words[2 * t], words[2 * t + 1])
    });
}

/// `tests/ptx/carry.ptx`: carry chains through products (signed and
/// unsigned high words), sums and
/// differences (zero and constant operands, a borrow chain), and a `{ }`
/// block whose `.reg` shadows an outer register, against the arithmetic
/// done here (NVIDIA's cubin fuses the chains into forms our decoder does
/// not read).
#[test]
fn carry_chains() {
    let mut words: Vec<u32> = vec![0, 0, 0, 0, 0, 0, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX];
    words.extend([1, 0, u32::MAX, 0, 0x8000_0000, 0x8000_0000, 5, 5, 5, 5, 5, 5]);
    let mut x = 0x2545_f491u32;
    for _ in 0..62 * 6 {
        xorshift(&mut x);
        words.push(if x.is_multiple_of(7) { x % 3 } else { x });
    }
    let n = words.len() / 6;
    let mut want = Vec::with_capacity(80 * n);
    for w in words.chunks(6) {
        let [r1, r2, r3, r4, r5, r6] = [0, 1, 2, 3, 4, 5].map(|i| u64::from(w[i]));
        // A 128-bit number from its words, least significant first.
        let q = |a: u64, b: u64, c: u64, d: u64| {
            u128::from(d) << 96 | u128::from(c) << 64 | u128::from(b) << 32 | u128::from(a)
        };
        // (r2:r1) * (r4:r3) + (r6:r5), 128 bits.
        let prod = u128::from(r2 << 32 | r1) * u128::from(r4 << 32 | r3) + u128::from(r6 << 32 | r5);
        let diff = q(r1, r2, r5, r6).wrapping_sub(q(r3, r4, 0, 5));
        let sum = q(r1, r2, r5, r6).wrapping_add(q(r3, 3, r6, r1));
        let hi = (r1 * r2) >> 32;
        let carry = (hi + r3) >> 32;
        // The signed chain: high words of signed products.
        let shi = |a: u64, b: u64| u64::from(((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32);
        let s1 = shi(r1, r2) + r3;
        let s2 = shi(r2, r4) + r5 + (s1 >> 32);
        let s3 = u64::from((r6 as u32).wrapping_mul(-7i32 as u32)) + r1 + (s2 >> 32);
        let out: [u32; 20] = [
            prod as u32,
            (prod >> 32) as u32,
            (prod >> 64) as u32,
            (prod >> 96) as u32,
            diff as u32,
            (diff >> 32) as u32,
            (diff >> 64) as u32,
            (diff >> 96) as u32,
            sum as u32,
            (sum >> 32) as u32,
            (sum >> 64) as u32,
            (sum >> 96) as u32,
            r1 as u32,
            0,
            (hi + r3) as u32,
            (r4 + r5 + carry) as u32,
            7,
            s1 as u32,
            s2 as u32,
            s3 as u32,
        ];
        want.extend(out.iter().flat_map(|v| v.to_le_bytes()));
    }
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 80 * n])];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("carry", sm)) {
            let got = run(&module, "carry", [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
            for (t, (g, w)) in got.chunks(80).zip(want.chunks(80)).enumerate() {
                assert_eq!(g, w, "sm_{sm} {stage}: thread {t} ({:x?})", &words[6 * t..6 * t + 6]);
            }
        }
    }
}

/// `div.rn`/`.rz`/`.rm.f64` (tests/ptx/ddiv.ptx, NVIDIA's fast path and
/// slow path inline) on the f64 inputs of the IEEE test plus special and
/// extreme values: the same bits as NVIDIA's cubin, both stages, both SMs.
#[test]
fn f64_division_matches_nvidia() {
    let Some(oracle) = nv_oracle::Oracle::for_test("f64_division_matches_nvidia") else { return };
    let (a, b) = ieee_inputs();
    let mut da: Vec<u64> =
        a.iter().zip(&b).map(|(&x, &y)| u64::from(x) << 32 | u64::from(y ^ x.rotate_left(7))).collect();
    let mut db: Vec<u64> = da.iter().map(|d| d.rotate_left(29)).collect();
    let special: [f64; 12] = [
        0.0,
        -0.0,
        1.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1e300,
        1e-300,
    ];
    for x in special {
        for y in special {
            da.push(x.to_bits());
            db.push(y.to_bits());
        }
    }
    da.truncate(da.len() / 128 * 128);
    db.truncate(da.len());
    let n = da.len();
    let dwords = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let args = || vec![Arg::Buffer(dwords(&da)), Arg::Buffer(dwords(&db)), Arg::Buffer(vec![0; 24 * n])];
    let grid = [n as u32 / 128, 1, 1];
    for sm in [90, 80] {
        let want = run_nvidia(&oracle, "ddiv", sm, grid, [128, 1, 1], &args()).swap_remove(2);
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("ddiv", sm)) {
            let got = run(&module, "ddiv", grid, [128, 1, 1], &args()).swap_remove(2);
            for (t, (g, w)) in got.chunks(24).zip(want.chunks(24)).enumerate() {
                for (k, name) in ["div.rn", "div.rz", "div.rm"].iter().enumerate() {
                    let (g, w) = (&g[8 * k..8 * k + 8], &w[8 * k..8 * k + 8]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.f64 of {:#018x}, {:#018x}", da[t], db[t]);
                }
            }
        }
    }
}

/// `div`/`rcp`/`sqrt.{rn,rz,rm,rp}.ftz.f32` and
/// `rcp`/`sqrt.{rz,rm,rp}.f64`
/// (tests/ptx/ieee2.ptx) on the IEEE test's inputs and special values: the
/// same bits as NVIDIA's cubin, both stages, both SMs.
#[test]
fn ieee_ftz_and_f64_directed_match_nvidia() {
    let Some(oracle) = nv_oracle::Oracle::for_test("ieee_ftz_and_f64_directed_match_nvidia") else { return };
    let (mut a, mut b) = ieee_inputs();
    let mut da: Vec<u64> =
        a.iter().zip(&b).map(|(&x, &y)| u64::from(x) << 32 | u64::from(y ^ x.rotate_left(7))).collect();
    let special: [f64; 12] = [
        0.0,
        -0.0,
        1.0,
        4.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1e-310,
    ];
    for (i, x) in special.iter().enumerate() {
        da[i] = x.to_bits();
    }
    a.truncate(a.len() / 128 * 128);
    b.truncate(a.len());
    da.truncate(a.len());
    let n = a.len();
    let words = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let dwords = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let args = || {
        vec![Arg::Buffer(words(&a)), Arg::Buffer(words(&b)), Arg::Buffer(dwords(&da)), Arg::Buffer(vec![0; 100 * n])]
    };
    let grid = [n as u32 / 128, 1, 1];
    for sm in [90, 80] {
        let want = run_nvidia(&oracle, "ieee2", sm, grid, [128, 1, 1], &args()).swap_remove(3);
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("ieee2", sm)) {
            let got = run(&module, "ieee2", grid, [128, 1, 1], &args()).swap_remove(3);
            for (t, (g, w)) in got.chunks(100).zip(want.chunks(100)).enumerate() {
                for (k, name) in ["rcp.rn.ftz", "sqrt.rn.ftz"].iter().enumerate() {
                    let (g, w) = (&g[4 * k..4 * k + 4], &w[4 * k..4 * k + 4]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.f32 of {:#010x}", a[t]);
                }
                let names = ["rcp.rz", "rcp.rm", "rcp.rp", "sqrt.rz", "sqrt.rm", "sqrt.rp"];
                for (k, name) in names.iter().enumerate() {
                    let (g, w) = (&g[8 + 8 * k..16 + 8 * k], &w[8 + 8 * k..16 + 8 * k]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.f64 of {:#018x}", da[t]);
                }
                let (gd, wd) = (&g[56..60], &w[56..60]);
                assert_eq!(gd, wd, "sm_{sm} {stage}: div.rn.ftz.f32 of {:#010x}, {:#010x}", a[t], b[t]);
                let names = ["rcp.rz", "rcp.rm", "rcp.rp", "sqrt.rz", "sqrt.rm", "sqrt.rp"];
                for (k, name) in names.iter().enumerate() {
                    let (g, w) = (&g[60 + 4 * k..64 + 4 * k], &w[60 + 4 * k..64 + 4 * k]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.ftz.f32 of {:#010x}", a[t]);
                }
                // NVIDIA's code runs on the interpreter too: the truncated
                // quotient is also checked against the host's, where it is
                // normal (the f64 quotient is never within an f64 ulp of an
                // f32 value it is not equal to).
                let (x, y) = (f32::from_bits(a[t]), f32::from_bits(b[t]));
                let q = f64::from(x) / f64::from(y);
                let mut rz = q as f32;
                if f64::from(rz).abs() > q.abs() {
                    rz = f32::from_bits(rz.to_bits() - 1);
                }
                if x.is_normal() && y.is_normal() && rz.is_normal() {
                    assert_eq!(g[84..88], rz.to_le_bytes(), "sm_{sm} {stage}: div.rz.ftz.f32 of {x:e}, {y:e}");
                }
                for (k, name) in ["div.rz", "div.rm", "div.rp"].iter().enumerate() {
                    let (g, w) = (&g[84 + 4 * k..88 + 4 * k], &w[84 + 4 * k..88 + 4 * k]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.ftz.f32 of {:#010x}, {:#010x}", a[t], b[t]);
                }
                let (g, w) = (&g[96..100], &w[96..100]);
                assert_eq!(g, w, "sm_{sm} {stage}: div.rp.ftz.f32 of {:#010x}, {:#010x}", b[t], a[t]);
            }
        }
    }
}

/// `tests/ptx/dminmax.ptx`: `min`/`max.f64` (NaNs, signed zeros,
/// infinities, a constant bound), `copysign.f64`, `min`/`max` of u64 and
/// s64, on all pairs of special and ordinary values.
#[test]
fn f64_min_max_match_nvidia() {
    let values: [f64; 14] = [
        0.0,
        -0.0,
        1.5,
        -1.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MAX,
        5e-324,
        -1e300,
        3.0,
        3.0,
    ];
    let mut bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
    bits.extend([0x7ff0_0000_0000_0001, 0xfff4_0000_dead_beef, 0x8000_0000_0000_0001, 0x0000_0001_ffff_ffff]);
    let pairs: Vec<(u64, u64)> = bits.iter().flat_map(|&a| bits.iter().map(move |&b| (a, b))).collect();
    let n = pairs.len();
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("dminmax", n as u32, args, 1, 64, |t| format!("{:#x}, {:#x}", pairs[t].0, pairs[t].1));
}

/// Device functions of `tests/ptx/calls.ptx`, inlined at each call (two
/// calls of one function, a nested call, early returns, 64-bit and
/// aggregate parameters).
#[test]
fn inlined_calls() {
    let n = 64usize;
    let pairs: Vec<i32> = (0..2 * n as i32).map(|i| (i * 29) % 150 - 40).collect();
    let clampsum = |a: i32, b: i32| if a + b < 100 { a + b } else { 100 };
    let mut want = vec![0u8; 16 * n];
    for t in 0..n {
        let (a, b) = (pairs[2 * t], pairs[2 * t + 1]);
        let r4 = clampsum(a, b);
        let r6 = i64::from(a) + 3 * i64::from(clampsum(b, r4));
        want[16 * t..16 * t + 4].copy_from_slice(&r4.to_le_bytes());
        want[16 * t + 8..16 * t + 16].copy_from_slice(&r6.to_le_bytes());
    }
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("calls", sm)) {
            let args = vec![Arg::Buffer(i32s(&pairs)), Arg::Buffer(vec![0; 16 * n])];
            let got = run(&module, "calls", [1, 1, 1], [n as u32, 1, 1], &args);
            for (t, (g, w)) in got[1].chunks(16).zip(want.chunks(16)).enumerate() {
                assert_eq!(g, w, "sm_{sm} {stage}: thread {t}");
            }
        }
    }
}

/// Inputs for the IEEE division, reciprocal and square root tests: every
/// pair of special values (zeros, infinities, NaNs, subnormals, the extremes
/// of the normal range), random bit patterns, and random quotients near
/// overflow and underflow (the slow paths' rounding of huge and subnormal
/// results).
fn ieee_inputs() -> (Vec<u32>, Vec<u32>) {
    let specials = [
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x0000_0001,
        0x807f_ffff,
        0x0040_0000,
        0x0080_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7e80_0000,
        0x4040_0000,
        0x40e0_0000,
        0x3eaa_aaab,
        0x3f7f_ffff,
        0x0d00_0000,
        0x72ff_ffff,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &specials {
        for &y in &specials {
            a.push(x);
            b.push(y);
        }
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u32
    };
    for _ in 0..1200 {
        a.push(next());
        b.push(next());
    }
    // Quotients from 2^-150 to 2^-120 and from 2^124 to 2^128.
    for k in 0..600 {
        let (x, y) = (next(), next());
        let ea = 1 + next() % 253;
        let shift = if k % 2 == 0 { 120 + next() % 31 } else { 0 };
        let eb = if k % 2 == 0 { (ea + shift).min(254) } else { ea.saturating_sub(124 + next() % 5).max(1) };
        a.push((x & 0x807f_ffff) | (ea << 23));
        b.push((y & 0x807f_ffff) | (eb << 23));
    }
    let n = a.len().div_ceil(128) * 128;
    a.resize(n, 0x3f80_0000);
    b.resize(n, 0x4040_0000);
    (a, b)
}

/// `div`, `rcp` and `sqrt` in every rounding (tests/ptx/ieee.ptx): NVIDIA's
/// fast paths and their slow paths, which we place inline, give the same
/// bits as NVIDIA's cubin for every input, at both stages and on sm_90,
/// sm_80 and sm_75.
#[test]
fn ieee_functions_match_nvidia() {
    let Some(oracle) = nv_oracle::Oracle::for_test("ieee_functions_match_nvidia") else { return };
    let (a, b) = ieee_inputs();
    let n = a.len();
    let da: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| u64::from(x) << 32 | u64::from(y ^ x.rotate_left(7))).collect();
    let db: Vec<u64> = da.iter().map(|d| d.rotate_left(29)).collect();
    let words = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let dwords = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let args = || {
        vec![
            Arg::Buffer(words(&a)),
            Arg::Buffer(words(&b)),
            Arg::Buffer(dwords(&da)),
            Arg::Buffer(dwords(&db)),
            Arg::Buffer(vec![0; 88 * n]),
        ]
    };
    let grid = [n as u32 / 128, 1, 1];
    for sm in [90, 80, 75] {
        let want = run_nvidia(&oracle, "ieee", sm, grid, [128, 1, 1], &args()).swap_remove(4);
        // The forms, by their place in the output record.
        let names = [
            "div.rn",
            "div.rz",
            "div.rm",
            "div.rp",
            "div.full",
            "div.approx",
            "rcp.rn",
            "rcp.rz",
            "rcp.rm",
            "rcp.rp",
            "sqrt.rn",
            "sqrt.rz",
            "sqrt.rm",
            "sqrt.rp",
        ];
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("ieee", sm)) {
            let got = run(&module, "ieee", grid, [128, 1, 1], &args());
            for (t, (g, w)) in got[4].chunks(88).zip(want.chunks(88)).enumerate() {
                for (k, name) in names.iter().enumerate() {
                    let (g, w) = (&g[4 * k..4 * k + 4], &w[4 * k..4 * k + 4]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.f32 of {:#010x}, {:#010x}", a[t], b[t]);
                }
                for (k, name) in ["rcp.rn", "sqrt.rn"].iter().enumerate() {
                    let (g, w) = (&g[64 + 8 * k..72 + 8 * k], &w[64 + 8 * k..72 + 8 * k]);
                    assert_eq!(g, w, "sm_{sm} {stage}: {name}.f64 of {:#018x}", da[t]);
                }
                let (g, w) = (&g[80..88], &w[80..88]);
                assert_eq!(g, w, "sm_{sm} {stage}: div.rp.f64 of {:#018x}, {:#018x}", da[t], db[t]);
            }
        }
    }
}

/// The tensor-core GEMMs (ldmatrix + mma.sync, and wmma): `C = A * Bt^T`
/// with A M x K and Bt N x K in binary16 and C in binary32. Small integer
/// inputs keep every sum exact, so the results must be the reference's
/// bits. K = 80 runs the unrolled loop and its remainder; wmma_gemm's
/// extra column of blocks takes the early exit.
#[test]
fn tensor_core_gemms() {
    let (m, n, k) = (32usize, 64usize, 80usize);
    // -3..=3, in patterns that differ between rows and columns.
    let small = |i: usize, step: usize| ((i * step + i / 7) % 7) as f64 - 3.0;
    let gemm = |m: usize, n: usize| {
        let a: Vec<f64> = (0..m * k).map(|i| small(i, 5)).collect();
        let bt: Vec<f64> = (0..n * k).map(|i| small(i, 3)).collect();
        let c: Vec<f32> =
            (0..m * n).map(|ij| (0..k).map(|t| a[ij / n * k + t] * bt[ij % n * k + t]).sum::<f64>() as f32).collect();
        let halves = |v: &[f64]| v.iter().flat_map(|&h| f16_bits(h).to_le_bytes()).collect::<Vec<u8>>();
        (halves(&a), halves(&bt), f32s(&c))
    };
    let args = |a: &[u8], bt: &[u8], m: usize, n: usize| {
        vec![
            Arg::Buffer(a.to_vec()),
            Arg::Buffer(bt.to_vec()),
            Arg::Buffer(vec![0; 4 * m * n]),
            Arg::Value(i32s(&[m as i32])),
            Arg::Value(i32s(&[n as i32])),
            Arg::Value(i32s(&[k as i32])),
        ]
    };
    let (a, bt, c) = gemm(m, n);
    let want = [a.clone(), bt.clone(), c];
    let grid = [(n / 32) as u32, (m / 16) as u32, 1];
    check_2d("mma_ldmatrix", &[90, 80], "mma_m16n8k16", grid, [128, 1, 1], || args(&a, &bt, m, n), &want);
    let (m, n) = (64, 32);
    let (a, bt, c) = gemm(m, n);
    let want = [a.clone(), bt.clone(), c];
    let grid = [(n / 32 + 1) as u32, (m / 32) as u32, 1];
    check_2d("wmma_gemm", &[90, 80], "wmma_gemm", grid, [128, 1, 1], || args(&a, &bt, m, n), &want);
}

/// Calls through the ABI (`tests/ptx/abi_calls.ptx`): a recursive function
/// reading a local array through a generic pointer, indirect calls through
/// a table of function pointers in local memory. Only the final code runs
/// here: the lowered module keeps its device functions apart, and the
/// interpreter runs one function (the final kernel holds its callees).
/// NVIDIA's cubin gives the same results.
#[test]
fn abi_calls() {
    let n = 64usize;
    let input: Vec<i32> = (0..4 * n as i32).map(|i| (i * 37) % 101 - 50).collect();
    let mut want = Vec::new();
    for t in 0..n {
        let v = &input[4 * t..4 * t + 4];
        let s = v.iter().fold(0i32, |acc, &x| acc.wrapping_mul(3).wrapping_add(x));
        let tid = t as i32;
        let r = if t % 2 == 0 { s.wrapping_add(tid) } else { s.wrapping_mul(5).wrapping_sub(tid) };
        want.extend_from_slice(&s.to_le_bytes());
        want.extend_from_slice(&r.to_le_bytes());
    }
    let args = || vec![Arg::Buffer(i32s(&input)), Arg::Buffer(vec![0; 8 * n])];
    for sm in [90, 80] {
        let [_, module] = test_stages("abi_calls", sm);
        let got = run(&module, "abi_calls", [1, 1, 1], [n as u32, 1, 1], &args());
        assert!(got[1] == want, "sm_{sm} final: results differ");
        if let Some(oracle) = nv_oracle::Oracle::for_test("abi_calls") {
            let theirs = run_nvidia(&oracle, "abi_calls", sm, [1, 1, 1], [n as u32, 1, 1], &args());
            assert!(theirs[1] == want, "sm_{sm}: NVIDIA's cubin gives other results");
        }
    }
}

/// printf_kernel (sm_90, sm_80): `vprintf` with a generic pointer to the thread's
/// argument buffer in local memory. The interpreter formats what the
/// calls pass; our cubin must print what NVIDIA's prints.
#[test]
fn printf_kernel() {
    let Some(oracle) = nv_oracle::Oracle::for_test("printf_kernel") else { return };
    let n = 100i32;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 40.0) * 0.75).collect();
    let args = || vec![Arg::Buffer(f32s(&x)), Arg::Value(n.to_le_bytes().to_vec())];
    let printed = |module: &ori_ir::Module, sm: u32, kernel: Option<&ori_interp::Kernel>| {
        let mut global = Global::new();
        let stats = match kernel {
            Some(k) => {
                let (params, _) = lay_out(&k.func, &args(), &mut global);
                ori_interp::run_kernel(k, &Launch::new([2, 1, 1], [64, 1, 1], params), &mut global)
            }
            None => {
                let func = module.function("printf_kernel").unwrap();
                let (params, _) = lay_out(func, &args(), &mut global);
                let mut launch = Launch::new([2, 1, 1], [64, 1, 1], params);
                launch.banks = ori_interp::Statics::of_module(module).place(&mut global);
                ori_interp::run(func, sm, 0, &launch, &mut global)
            }
        };
        let mut lines = stats.unwrap().printf;
        lines.sort();
        lines
    };
    for sm in [90, 80] {
        let [_, ours] = stages("printf_kernel", sm);
        let dir = std::env::temp_dir().join(format!("ptxas-printf-{}-{sm}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = corpus().parent().unwrap().to_path_buf();
        let kernel = ori_interp::corpus::compile(&oracle.ptxas(), &root, "printf_kernel", "printf_kernel", sm, &dir)
            .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
        let theirs = printed(&ours, sm, Some(&kernel));
        assert_eq!(theirs.len(), 3, "sm_{sm}: {theirs:?}");
        let line = "thread 97 block 1: x=42.750000 (4.275000e+11) bits=0x422b0000 ll=9700000000000 pos";
        assert!(theirs.iter().any(|l| l.starts_with(line)), "sm_{sm}: {theirs:?}");
        assert_eq!(printed(&ours, sm, None), theirs, "sm_{sm}");
    }
}

/// `cp.async` double buffering (LDGSTS, LDGDEPBAR, DEPBAR): 3 CTAs over 7
/// chunks of 1024 floats, so copies are in flight while a chunk is used.
#[test]
fn cp_async_pipeline() {
    let nchunks = 7;
    let x: Vec<f32> = pattern(nchunks * 1024 + 8, 3).into_iter().map(|v| v as f32 / 4.0).collect();
    let w: Vec<f32> = pattern(7, 11).into_iter().map(|v| v as f32).collect();
    let y: Vec<f32> = (0..nchunks * 1024).map(|i| (0..7).fold(0f32, |s, t| w[t].mul_add(x[i + t], s))).collect();
    let args = || {
        vec![
            Arg::Buffer(f32s(&x)),
            Arg::Buffer(f32s(&w)),
            Arg::Buffer(vec![0; 4 * nchunks * 1024]),
            Arg::Value(i32s(&[nchunks as i32])),
        ]
    };
    check("cp_async_pipeline", &[90, 80], "conv1d_cp_async", 3, 256, args, &[f32s(&x), f32s(&w), f32s(&y)]);
}

/// Clusters of two CTAs (`.reqnctapercluster 2, 1, 1`): each bins half of
/// its cluster's bytes, rank 0 adds its peer's bins through distributed
/// shared memory after the cluster barrier.
#[test]
fn cluster_dsmem() {
    let (clusters, per_cluster) = (3, 1000);
    let data: Vec<u8> = (0..clusters * per_cluster).map(|i| ((i * 131 + 7) % 256) as u8).collect();
    let mut hist = vec![0u32; 64 * clusters];
    for (i, &b) in data.iter().enumerate() {
        hist[i / per_cluster * 64 + usize::from(b & 63)] += 1;
    }
    let args = || {
        vec![
            Arg::Buffer(data.clone()),
            Arg::Value(i32s(&[per_cluster as i32])),
            Arg::Buffer(vec![0; 4 * 64 * clusters]),
        ]
    };
    let want = [data.clone(), words(&hist, u32::to_le_bytes)];
    check("cluster_dsmem", &[90], "cluster_hist", 2 * clusters as u32, 256, args, &want);
}

/// `tests/ptx/contract.ptx`: FMA contraction of products into the adds
/// that read them, as NVIDIA's ptxas does by default (fused or not, and
/// with which signs); inputs whose products round.
#[test]
fn fma_contraction_matches_nvidia() {
    let mut x = 0x2545_f491u32;
    let mut next = || {
        xorshift(&mut x);
        x
    };
    let n = 64usize;
    let mut input = Vec::with_capacity(32 * n);
    for _ in 0..n {
        for _ in 0..4 {
            // Mantissas with every bit busy, exponents near 1.
            let f = f32::from_bits(0x3f00_0000 | (next() & 0x00ff_ffff)) * if next() & 1 == 0 { 1.0 } else { -3.0 };
            input.extend(f.to_le_bytes());
        }
        for _ in 0..2 {
            let d = f64::from_bits(0x3ff0_0000_0000_0000 | (u64::from(next()) << 20 | u64::from(next())));
            input.extend(d.to_le_bytes());
        }
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 80 * n])];
    matches_nvidia("contract", n as u32, args, 1, 80, |t| format!("thread {t}"));
}

/// tma_bulk_copy's arguments (8 tiles of 4096 floats over 4 CTAs, so each
/// CTA waits on its mbarrier in both phases) and the result `3x + 1`.
fn bulk_scale_case() -> (impl Fn() -> Vec<Arg>, Vec<Vec<u8>>) {
    let n = 8 * 4096;
    let x: Vec<f32> = pattern(n, 3).iter().map(|&v| v as f32 * 0.125).collect();
    let y: Vec<f32> = x.iter().map(|&v| 3.0f32.mul_add(v, 1.0)).collect();
    let want = vec![f32s(&x), f32s(&y)];
    let args = move || {
        vec![Arg::Buffer(f32s(&x)), Arg::Buffer(vec![0; 4 * n]), Arg::Value(f32s(&[3.0])), Arg::Value(i32s(&[8]))]
    };
    (args, want)
}

/// tma_bulk_copy: mbarriers, bulk copies both ways (in the ELECT loop),
/// bulk groups and `fence.proxy.async`, sm_90 only.
#[test]
fn tma_bulk_copy() {
    let (args, want) = bulk_scale_case();
    check("tma_bulk_copy", &[90], "bulk_scale", 4, 256, args, &want);
}

/// `tests/ptx/bulk_copy.ptx`'s arguments and results: `y = x`, and `z = x`
/// plus the number of the 16-word segment.
fn bulk_copy_case() -> (impl Fn() -> Vec<Arg>, Vec<Vec<u8>>) {
    let x: Vec<i32> = pattern(128, 11);
    let z: Vec<i32> = x.iter().enumerate().map(|(i, &v)| v + (i / 16) as i32).collect();
    let want = vec![i32s(&x), i32s(&x), i32s(&z)];
    let args = move || vec![Arg::Buffer(i32s(&x)), Arg::Buffer(vec![0; 512]), Arg::Buffer(vec![0; 512])];
    (args, want)
}

/// Per-thread mbarrier and bulk-copy operands: eight threads of one warp
/// each go once through the ELECT loops with their own addresses, the
/// other warp waits on their mbarriers. (NVIDIA's cubin is not run: its
/// `R2UR P, UR, R` uniformity loops are not decoded yet.)
#[test]
fn bulk_copy_per_thread() {
    let (args, want) = bulk_copy_case();
    for (stage, module) in ["lowered", "final"].iter().zip(stages_of("bulk_copy", test_ptx("bulk_copy.ptx", 90), 90)) {
        let got = run(&module, "bulk_copy", [1, 1, 1], [128, 1, 1], &args());
        assert!(got == want, "bulk_copy {stage}: results differ");
    }
}

/// Without the wait (its phase test always true), warp 0 reads its
/// segments before warp 1 has copied them: the mbarrier's phase is what
/// orders them, in our code and on the interpreter.
#[test]
fn bulk_copy_needs_its_phase_wait() {
    let text = test_ptx("bulk_copy.ptx", 90);
    let mutated =
        text.replace("mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r14], %r15;", "setp.eq.u32 %p5, %r15, 0;");
    assert_ne!(mutated, text, "the wait is in the kernel");
    let (args, want) = bulk_copy_case();
    // The interpreter lands a bulk copy only at its mbarrier's phase
    // check, so a read before it faults (naming the copy); other results
    // would do as well.
    for (stage, module) in ["lowered", "final"].iter().zip(stages_of("bulk_copy", mutated, 90)) {
        match try_run(&module, "bulk_copy", [1, 1, 1], [128, 1, 1], &args()) {
            Ok(got) => assert!(got != want, "bulk_copy without the wait, {stage}: same results"),
            Err(e) => assert!(e.contains("has not landed"), "bulk_copy without the wait, {stage}: {e}"),
        }
    }
}

/// `tests/ptx/widened_mul.ptx`: 64-bit products of zero- and
/// sign-extended words (one `IMAD.WIDE[.U32]` where both extend alike),
/// on words with the sign bit set or not.
#[test]
fn widened_multiplies_match_nvidia() {
    let words: [u32; 8] = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1234_5678, 0xdead_beef, 3];
    let mut input = Vec::new();
    for a in words {
        for b in words {
            input.extend(a.to_le_bytes());
            input.extend(b.to_le_bytes());
        }
    }
    let n = words.len() * words.len();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n])];
    matches_nvidia("widened_mul", n as u32, args, 1, 48, |t| format!("words {t}"));
}

/// `tests/ptx/cp_async.ptx`: every `cp.async` form (sizes, `.ca`/`.cg`,
/// L2 hints, source sizes in registers and constants, both waits). The
/// bytes each record must hold are computed here: what the copy reads,
/// zeros up to its size, the 0xaa fill elsewhere. NVIDIA's cubin must give
/// them on the interpreter (which checks the model of `LDGSTS.ZFILL` and
/// its predicate), and ours the same bytes.
#[test]
fn cp_async_forms_match_nvidia() {
    let n = 64usize;
    let mut x = 0x1234_5678u32;
    let input: Vec<u8> = (0..128 * n).map(|_| xorshift(&mut x) as u8).collect();
    let mut want = vec![0xaa; 128 * n];
    for t in 0..n {
        // (offset, size, bytes read) of each copy of thread t.
        let (s16, s8, s4) = ((t & 31).min(16), ((t >> 1) & 15).min(8), (t & 7).min(4));
        let copies = [
            (0, 16, s16),
            (16, 16, s16),
            (32, 8, s8),
            (40, 4, s4),
            (44, 4, 4),
            (48, 16, 8),
            (64, 16, 0),
            (80, 16, 16),
            (96, 8, 8),
            (104, 4, 4),
            (112, 16, s8),
        ];
        for (off, size, read) in copies {
            let at = 128 * t + off;
            want[at..at + read].copy_from_slice(&input[at..at + read]);
            want[at + read..at + size].fill(0);
        }
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 128 * n])];
    let Some(oracle) = nv_oracle::Oracle::for_test("cp_async") else { return };
    for sm in [90, 80] {
        let nvidia = run_nvidia(&oracle, "cp_async", sm, [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
        for (t, (g, w)) in nvidia.chunks(128).zip(want.chunks(128)).enumerate() {
            assert_eq!(g, w, "NVIDIA's cp_async sm_{sm}: thread {t}");
        }
    }
    matches_nvidia("cp_async", n as u32, args, 1, 128, |t| format!("thread {t}'s sizes"));
}

/// One `mma` form of `tests/ptx/mma_forms.ptx`: k, the input type
/// (16: f16, 'b': bf16, 't': tf32), binary32 accumulators, and the input
/// words of A, B and C (per lane, `tests/ptx/mma_forms.ptx`'s comment).
struct MmaCase {
    k: usize,
    input: char,
    f32_acc: bool,
    a: &'static [usize],
    b: &'static [usize],
    c: &'static [usize],
}

/// The forms in the order of their results.
const MMA_CASES: &[MmaCase] = &[
    MmaCase { k: 16, input: 'b', f32_acc: true, a: &[12, 13, 14, 15], b: &[16, 17], c: &[6, 7, 8, 9] },
    MmaCase { k: 8, input: 't', f32_acc: true, a: &[18, 19, 20, 21], b: &[22, 23], c: &[6, 7, 8, 9] },
    MmaCase { k: 16, input: 'h', f32_acc: false, a: &[0, 1, 2, 3], b: &[4, 5], c: &[10, 11] },
    MmaCase { k: 8, input: 'h', f32_acc: true, a: &[0, 1], b: &[4], c: &[6, 7, 8, 9] },
    MmaCase { k: 8, input: 'h', f32_acc: false, a: &[0, 1], b: &[4], c: &[10, 11] },
    MmaCase { k: 8, input: 'b', f32_acc: true, a: &[12, 13], b: &[16], c: &[6, 7, 8, 9] },
    MmaCase { k: 16, input: 'h', f32_acc: true, a: &[0, 1, 2, 3], b: &[4, 5], c: &[6, 7, 8, 9] },
];

/// The result words of every lane for one `mma` form, computed in f64
/// from the PTX ISA's fragment layouts ("Matrix fragments for
/// mma.m16n8k16 / mma.m16n8k8"): lane `4g + t`; 16-bit A register `r`
/// holds A[g + 8 (r % 2)][2t + 8 (r / 2) ..+1], B register `r`
/// B[2t + 8r ..+1][g]; tf32 A register `r` A[g + 8 (r % 2)][t + 4 (r / 2)],
/// B register `r` B[t + 4r][g]; binary32 C register `r` C[g + 8 (r / 2)]
/// [2t + r % 2], binary16 C register `r` C[g + 8r][2t ..+1].
fn mma_reference(case: &MmaCase, words: &[[u32; 32]]) -> Vec<Vec<u32>> {
    let value = |w: u32, half: usize| -> f64 {
        let h = (w >> (16 * half)) as u16;
        match case.input {
            'h' => f64::from(half_to_f32(h)),
            'b' => f64::from(f32::from_bits(u32::from(h) << 16)),
            _ => f64::from(f32::from_bits(w)),
        }
    };
    let (mut a, mut b, mut c) = (vec![[0f64; 16]; 16], vec![[0f64; 8]; 16], vec![[0f64; 8]; 16]);
    let c_at = |g: usize, t: usize, r: usize, e: usize| {
        if case.f32_acc { (g + 8 * (r / 2), 2 * t + r % 2) } else { (g + 8 * r, 2 * t + e) }
    };
    for (lane, w) in words.iter().enumerate() {
        let (g, t) = (lane / 4, lane % 4);
        for (r, &i) in case.a.iter().enumerate() {
            if case.input == 't' {
                a[g + 8 * (r % 2)][t + 4 * (r / 2)] = value(w[i], 0);
            } else {
                for e in 0..2 {
                    a[g + 8 * (r % 2)][2 * t + 8 * (r / 2) + e] = value(w[i], e);
                }
            }
        }
        for (r, &i) in case.b.iter().enumerate() {
            if case.input == 't' {
                b[t + 4 * r][g] = value(w[i], 0);
            } else {
                for e in 0..2 {
                    b[2 * t + 8 * r + e][g] = value(w[i], e);
                }
            }
        }
        for (r, &i) in case.c.iter().enumerate() {
            for e in 0..if case.f32_acc { 1 } else { 2 } {
                let (row, col) = c_at(g, t, r, e);
                c[row][col] = if case.f32_acc {
                    f64::from(f32::from_bits(w[i]))
                } else {
                    f64::from(half_to_f32((w[i] >> (16 * e)) as u16))
                };
            }
        }
    }
    let d = |row: usize, col: usize| (0..case.k).fold(c[row][col], |s, k| s + a[row][k] * b[k][col]);
    (0..32)
        .map(|lane| {
            let (g, t) = (lane / 4, lane % 4);
            (0..case.c.len())
                .map(|r| {
                    if case.f32_acc {
                        let (row, col) = c_at(g, t, r, 0);
                        (d(row, col) as f32).to_bits()
                    } else {
                        (0..2)
                            .map(|e| c_at(g, t, r, e))
                            .fold(0, |acc, (row, col)| acc | u32::from(f16_bits(d(row, col))) << (16 * (col % 2)))
                    }
                })
                .collect()
        })
        .collect()
}

/// binary16 bits to binary32.
fn half_to_f32(h: u16) -> f32 {
    let (sign, exp, man) = (u32::from(h >> 15), u32::from(h >> 10 & 0x1f), u32::from(h & 0x3ff));
    let v = match exp {
        0 => man as f32 / 1024.0 * 2f32.powi(-14),
        31 => {
            if man == 0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1.0 + man as f32 / 1024.0) * 2f32.powi(exp as i32 - 15),
    };
    if sign == 1 { -v } else { v }
}

/// The ldmatrix results of every lane (`tests/ptx/mma_forms.ptx`): lane
/// `l`'s words 0-15 are bytes `64 l ..` of the tile, lane `l` addresses
/// row `32 l` (`+16` where the PTX says so); destination register `i` of
/// lane `4g + t` holds row `g` of matrix `i`, elements `2t`, `2t + 1`, or
/// transposed, column `g` of rows `2t` and `2t + 1` (PTX ISA, ldmatrix).
fn ldmatrix_reference(words: &[[u32; 32]]) -> Vec<Vec<u32>> {
    let tile: Vec<u8> = words.iter().flat_map(|w| w[..16].iter().flat_map(|x| x.to_le_bytes())).collect();
    let half = |at: usize| u32::from(u16::from_le_bytes([tile[at], tile[at + 1]]));
    // (matrices, transposed, byte offset of the row addresses).
    let forms = [(4, false, 0), (4, true, 0), (2, false, 16), (2, true, 16), (1, false, 0), (1, true, 16)];
    (0..32)
        .map(|lane| {
            let (g, t) = (lane / 4, lane % 4);
            let mut out = Vec::new();
            for (n, trans, off) in forms {
                let row = |l: usize| 32 * l + off;
                for i in 0..n {
                    out.push(if trans {
                        half(row(8 * i + 2 * t) + 2 * g) | half(row(8 * i + 2 * t + 1) + 2 * g) << 16
                    } else {
                        half(row(8 * i + g) + 4 * t) | half(row(8 * i + g) + 4 * t + 2) << 16
                    });
                }
            }
            out
        })
        .collect()
}

/// `tests/ptx/mma_forms.ptx`: bf16, tf32 and f16-accumulating `mma`
/// forms of m16n8k16 and m16n8k8, and every ldmatrix variant. Inputs are
/// multiples of 1/2 in [-2, 2], so every product and sum is exact. NVIDIA's
/// cubin must give the references above on the interpreter (which checks
/// the interpreter's HMMA and LDSM forms), ours the same words.
#[test]
fn mma_forms_match_nvidia() {
    let mut x = 0x9e37_79b9u32;
    let mut next = || {
        xorshift(&mut x);
        x
    };
    let mut small = || (next() % 9) as f64 / 2.0 - 2.0;
    let words: Vec<[u32; 32]> = (0..32)
        .map(|_| {
            let mut w = [0u32; 32];
            let pair = |lo: u16, hi: u16| u32::from(lo) | u32::from(hi) << 16;
            let bf = |v: f64| ((v as f32).to_bits() >> 16) as u16;
            for (i, slot) in w.iter_mut().enumerate() {
                *slot = match i {
                    0..=5 | 10 | 11 => pair(f16_bits(small()), f16_bits(small())),
                    6..=9 | 18..=23 => (small() as f32).to_bits(),
                    12..=17 => pair(bf(small()), bf(small())),
                    _ => 0x5555_aaaa,
                };
            }
            w
        })
        .collect();
    let mma: Vec<Vec<Vec<u32>>> = MMA_CASES.iter().map(|c| mma_reference(c, &words)).collect();
    let ldsm = ldmatrix_reference(&words);
    let want: Vec<u8> = (0..32)
        .flat_map(|lane| {
            let mut out: Vec<u32> = mma.iter().flat_map(|m| m[lane].clone()).collect();
            out.extend(&ldsm[lane]);
            out.resize(40, 0);
            out.into_iter().flat_map(u32::to_le_bytes)
        })
        .collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes())).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 160 * 32])];
    let Some(oracle) = nv_oracle::Oracle::for_test("mma_forms") else { return };
    for sm in [90, 80] {
        let nvidia = run_nvidia(&oracle, "mma_forms", sm, [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
        for (lane, (g, w)) in nvidia.chunks(160).zip(want.chunks(160)).enumerate() {
            assert_eq!(g, w, "NVIDIA's mma_forms sm_{sm}: lane {lane}");
        }
    }
    matches_nvidia("mma_forms", 32, args, 1, 160, |lane| format!("lane {lane}"));
}

/// `tests/ptx/cvt_narrow64.ptx`: 8- and 16-bit values widened to 64 bits,
/// with the sign bits of each width set and clear.
#[test]
fn narrow_to_64_bit_conversions_match_nvidia() {
    let words: [u32; 8] = [0, 1, 0x0000_8000, 0x0080_0080, 0xffff_ffff, 0x1234_5678, 0x80ff_7f01, 0xdead_beef];
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let n = words.len();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n])];
    matches_nvidia("cvt_narrow64", n as u32, args, 1, 48, |t| format!("word {:#x}", words[t]));
}

/// Stack arguments (`tests/ptx/calls_stack_args.ptx`): a recursive device
/// function with 20 32-bit and 3 64-bit parameters; R4..R15 carry the
/// first 12 words, the rest go through the bottom of the caller's frame.
/// NVIDIA's cubin gives the same results.
#[test]
fn calls_stack_args() {
    fn many(a: &[u32; 20], x: &[u64; 3]) -> u32 {
        let mut s = a[0];
        for (i, &v) in a.iter().enumerate().skip(1) {
            s = s.wrapping_add(v.wrapping_mul(i as u32 + 1));
        }
        for (i, &v) in x.iter().enumerate() {
            s = s.wrapping_add((v as u32).wrapping_mul(31 + i as u32)) ^ (v >> 32) as u32;
        }
        if a[0] == 0 {
            return s;
        }
        let mut b = [0u32; 20];
        b[0] = a[0] - 1;
        for i in 1..20 {
            b[i] = a[if i + 1 < 20 { i + 1 } else { 1 }];
        }
        let y = [x[1], x[2], x[0]];
        many(&b, &y).wrapping_mul(3).wrapping_add(s)
    }
    let n = 64u32;
    let mut want = Vec::new();
    for t in 0..n {
        let k = t & 3;
        let mut a = [k; 20];
        for (i, v) in a.iter_mut().enumerate().skip(1) {
            *v = k + 7 * i as u32 + 1;
        }
        let x: [u64; 3] = std::array::from_fn(|i| u64::from(k) * (1_000_003 + i as u64) + ((i as u64 + 1) << 32));
        want.extend_from_slice(&many(&a, &x).to_le_bytes());
    }
    let args = || vec![Arg::Buffer(vec![0; 4 * n as usize])];
    for sm in [90, 80] {
        let [_, module] = test_stages("calls_stack_args", sm);
        let got = run(&module, "calls_stack_args", [1, 1, 1], [n, 1, 1], &args());
        assert!(got[0] == want, "sm_{sm} final: results differ");
        if let Some(oracle) = nv_oracle::Oracle::for_test("calls_stack_args") {
            let theirs = run_nvidia(&oracle, "calls_stack_args", sm, [1, 1, 1], [n, 1, 1], &args());
            assert!(theirs[0] == want, "sm_{sm}: NVIDIA's cubin gives other results");
        }
    }
}

/// `tests/ptx/carry_blocks.ptx`: carry chains across blocks (a multi-word
/// sum around a loop's back edge, a chain split by a conditional block, a
/// borrow chain into a join, an addition and a subtraction chain meeting at
/// a label, mixed chains in a block), the same words as NVIDIA's cubin.
#[test]
fn carry_blocks_match_nvidia() {
    let mut words: Vec<u32> = vec![u32::MAX; 8];
    words.extend([u32::MAX, u32::MAX, 200, 0, 1, 0, 0, 0]);
    words.extend([0, 1, 40, 7, 0, u32::MAX, 0, 9]);
    let mut x = 0x2545_f491u32;
    for i in 0..61 * 8 {
        xorshift(&mut x);
        // Small third words take both sides of the branches; all-ones words carry.
        words.push(match i % 8 {
            2 => x % 160,
            _ if x.is_multiple_of(3) => u32::MAX,
            _ => x,
        });
    }
    let n = words.len() / 8;
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let args =
        || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n]), Arg::Value(4u32.to_le_bytes().to_vec())];
    matches_nvidia("carry_blocks", n as u32, args, 1, 48, |t| format!("{:x?}", &words[8 * t..8 * t + 8]));
}

/// `tests/ptx/shared_atomics64_ops.ptx`: 64-bit shared `min`/`max`
/// (signed and unsigned, a constant bound), `and`/`or`/`xor` (a constant
/// operand) and `red`, eight threads of a warp on each word; inputs
/// spread over both signs and equal high words.
#[test]
fn shared_atomics64_ops_match_nvidia() {
    let n = 64usize;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut words = Vec::with_capacity(2 * n);
    for i in 0..2 * n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Some share their high word with a neighbour, so that the low
        // words decide the comparisons.
        words.push(if i % 3 == 0 { (0x5555_5555 << 32) | (x & 0xffff_ffff) } else { x });
    }
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 128 * n])];
    let describe = |t: usize| format!("{:#x}, {:#x}", words[2 * t], words[2 * t + 1]);
    matches_nvidia("shared_atomics64_ops", n as u32, args, 1, 128, describe);
}

/// `tests/ptx/cp_async_hint.ptx` (cp.async with an L2 cache policy from a
/// parameter and from a register, and with `ignore-src`; sm_80 marks the
/// policy with bit 101)
/// and `cp_async_ignore.ptx` (its `ignore-src` copies, sm_90 and sm_80):
/// NVIDIA's cubins leave the bytes computed here on the interpreter, and
/// ours the same, lowered and compiled.
#[test]
fn cp_async_hints_match_nvidia() {
    let n = 64usize;
    let mut x = 0x8765_4321u32;
    let input: Vec<u8> = (0..64 * n).map(|_| xorshift(&mut x) as u8).collect();
    // (offset, size, bytes read) of each copy of thread t.
    let ignoring = |t: usize| [(32, 16, if t & 1 == 1 { 0 } else { 16 }), (48, 4, if t & 2 != 0 { 0 } else { 4 })];
    let hinted = |t: usize| [(0, 16, 16), (16, 8, 8), (52, 4, 4)].into_iter().chain(ignoring(t)).collect::<Vec<_>>();
    let expect = |copies: &dyn Fn(usize) -> Vec<(usize, usize, usize)>| {
        let mut want = vec![0xaa; 64 * n];
        for t in 0..n {
            for (off, size, read) in copies(t) {
                let at = 64 * t + off;
                want[at..at + read].copy_from_slice(&input[at..at + read]);
                want[at + read..at + size].fill(0);
            }
        }
        want
    };
    // An evict-last policy as createpolicy makes it (a hint only).
    let policy = 0x14f0_0000_0000_0000u64.to_le_bytes().to_vec();
    let cases: [(&str, &[u32], Vec<u8>, bool); 2] = [
        ("cp_async_hint", &[90, 80], expect(&hinted), true),
        ("cp_async_ignore", &[90, 80], expect(&|t| ignoring(t).to_vec()), false),
    ];
    let Some(oracle) = nv_oracle::Oracle::for_test("cp_async_hint") else { return };
    for (name, sms, want, with_policy) in cases {
        let args = || {
            let mut args = vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
            args.extend(with_policy.then(|| Arg::Value(policy.clone())));
            args
        };
        for &sm in sms {
            let nvidia = run_nvidia(&oracle, name, sm, [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
            for (stage, module) in ["NVIDIA's", "lowered", "final"]
                .iter()
                .zip(std::iter::once(None).chain(test_stages(name, sm).into_iter().map(Some)))
            {
                let got = match module {
                    None => nvidia.clone(),
                    Some(m) => run(&m, name, [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1),
                };
                for (t, (g, w)) in got.chunks(64).zip(want.chunks(64)).enumerate() {
                    assert_eq!(g, w, "{name} sm_{sm} {stage}: thread {t}");
                }
            }
        }
    }
}

/// `tests/ptx/imma.ptx`: the sixteen 8-bit integer `mma` forms (k = 32 and
/// 16, `.s8`/`.u8` A and B, `.satfinite`) on NVIDIA's cubin against a
/// reference from the PTX ISA's fragment layouts, and ours against NVIDIA's.
/// Some accumulators lie near the ends of the 32-bit range, so that sums
/// overflow (wrap, or clamp with `.satfinite`).
#[test]
fn imma_matches_nvidia() {
    let mut x = 0x9e37_79b9u32;
    let mut words = [[0u32; 8]; 32];
    for (lane, w) in words.iter_mut().enumerate() {
        for v in w.iter_mut() {
            xorshift(&mut x);
            *v = x;
        }
        // C's first words near the ends of the range (lanes 0-7 high, 8-15 low).
        match lane / 8 {
            0 => w[6] = 0x7fff_0000 | (w[6] & 0xffff),
            1 => w[6] = 0x8000_ffff & w[6],
            _ => {}
        }
    }
    let input: Vec<u8> = words.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    // The reference, in the order of the file: k, .satfinite, A signed, B signed.
    let mut want = vec![0u8; 256 * 32];
    let mut case = 0;
    for k in [32usize, 16] {
        for sat in [false, true] {
            for a_signed in [true, false] {
                for b_signed in [true, false] {
                    let byte = |w: u32, e: usize, signed: bool| {
                        let b = (w >> (8 * e)) as u8;
                        if signed { i64::from(b as i8) } else { i64::from(b) }
                    };
                    let (mut am, mut bm) = ([[0i64; 32]; 16], [[0i64; 8]; 32]);
                    for (lane, w) in words.iter().enumerate() {
                        let (g, t) = (lane / 4, lane % 4);
                        for r in 0..k / 8 {
                            let (row, col) =
                                if k == 32 { (g + 8 * (r % 2), 4 * t + 16 * (r / 2)) } else { (g + 8 * r, 4 * t) };
                            for e in 0..4 {
                                am[row][col + e] = byte(w[r], e, a_signed);
                            }
                        }
                        for r in 0..k / 16 {
                            for e in 0..4 {
                                bm[4 * t + 16 * r + e][g] = byte(w[4 + r], e, b_signed);
                            }
                        }
                    }
                    for (lane, w) in words.iter().enumerate() {
                        let (g, t) = (lane / 4, lane % 4);
                        let c = [w[6], w[7], w[0], w[1]];
                        for r in 0..4 {
                            let (row, col) = (g + 8 * (r / 2), 2 * t + r % 2);
                            let sum = (0..k).fold(i64::from(c[r] as i32), |s, i| s + am[row][i] * bm[i][col]);
                            let v = if sat { sum.clamp(i32::MIN.into(), i32::MAX.into()) as u32 } else { sum as u32 };
                            let at = 256 * lane + 16 * case + 4 * r;
                            want[at..at + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                    case += 1;
                }
            }
        }
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 256 * 32])];
    let Some(oracle) = nv_oracle::Oracle::for_test("imma") else { return };
    for sm in [90, 80] {
        let nvidia = run_nvidia(&oracle, "imma", sm, [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
        for (lane, (g, w)) in nvidia.chunks(256).zip(want.chunks(256)).enumerate() {
            assert_eq!(g, w, "NVIDIA's imma sm_{sm}: lane {lane}");
        }
    }
    matches_nvidia("imma", 32, args, 1, 256, |t| format!("lane {t}: {:x?}", words[t]));
}

/// `tests/ptx/fp8_mma.ptx` (sm_90): fp8 `mma` with every pair of E4M3 and
/// E5M2 inputs, on NVIDIA's cubin against an exact reference (inputs whose
/// products and sums need no rounding in binary32) and ours against
/// NVIDIA's, lowered and compiled.
#[test]
fn fp8_mma_matches_nvidia() {
    let mut x = 0x2545_f491u32;
    let mut next = move || {
        xorshift(&mut x);
        x
    };
    // Bytes read as either format stay small: E4M3 exponents 6..=8 (bias
    // 7, values in [2^-1, 2^2)) with any mantissa are E5M2 exponents
    // 12..=17 (bias 15, [2^-3, 2^3)); products and sums of 32 then need
    // fewer than 24 bits, so every order of addition is exact.
    let mut words = [[0u32; 8]; 32];
    for w in words.iter_mut() {
        for v in w[..6].iter_mut() {
            *v = (0..4).fold(0, |acc, i| {
                let r = next();
                let byte = (r & 0x80) | ((6 + (r >> 8) % 3) << 3) | ((r >> 16) & 7);
                acc | byte << (8 * i)
            });
        }
        w[6] = ((next() % 64) as f32 / 4.0 - 8.0).to_bits();
        w[7] = ((next() % 64) as f32 / 4.0 - 8.0).to_bits();
    }
    let value = |b: u32, e4m3: bool| -> f64 {
        let b = b as u8;
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let (exp, man, bias, bits) = if e4m3 { ((b >> 3) & 0xf, b & 7, 7, 3) } else { ((b >> 2) & 0x1f, b & 3, 15, 2) };
        sign * (1.0 + f64::from(man) / f64::from(1u8 << bits)) * 2f64.powi(i32::from(exp) - bias)
    };
    let mut want = vec![0u8; 64 * 32];
    let cases = [(true, true), (false, true), (true, false), (false, false)];
    for (case, (a_e4m3, b_e4m3)) in cases.into_iter().enumerate() {
        let (mut am, mut bm) = ([[0f64; 32]; 16], [[0f64; 8]; 32]);
        for (lane, w) in words.iter().enumerate() {
            let (g, t) = (lane / 4, lane % 4);
            for r in 0..4 {
                for e in 0..4 {
                    am[g + 8 * (r % 2)][4 * t + 16 * (r / 2) + e] = value(w[r] >> (8 * e), a_e4m3);
                }
            }
            for r in 0..2 {
                for e in 0..4 {
                    bm[4 * t + 16 * r + e][g] = value(w[4 + r] >> (8 * e), b_e4m3);
                }
            }
        }
        for (lane, w) in words.iter().enumerate() {
            let (g, t) = (lane / 4, lane % 4);
            for r in 0..4 {
                let (row, col) = (g + 8 * (r / 2), 2 * t + r % 2);
                let c = f64::from(f32::from_bits(w[6 + r % 2]));
                let sum = (0..32).fold(c, |s, k| s + am[row][k] * bm[k][col]);
                let at = 64 * lane + 16 * case + 4 * r;
                want[at..at + 4].copy_from_slice(&(sum as f32).to_le_bytes());
            }
        }
    }
    let input: Vec<u8> = words.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * 32])];
    let Some(oracle) = nv_oracle::Oracle::for_test("fp8_mma") else { return };
    let nvidia = run_nvidia(&oracle, "fp8_mma", 90, [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
    for (lane, (g, w)) in nvidia.chunks(64).zip(want.chunks(64)).enumerate() {
        assert_eq!(g, w, "NVIDIA's fp8_mma: lane {lane}");
    }
    for (stage, module) in ["lowered", "final"].iter().zip(test_stages("fp8_mma", 90)) {
        let got = run(&module, "fp8_mma", [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
        for (lane, (g, w)) in got.chunks(64).zip(nvidia.chunks(64)).enumerate() {
            assert_eq!(g, w, "fp8_mma sm_90 {stage}: lane {lane}");
        }
    }
}

/// `tests/ptx/stmatrix.ptx` (sm_90): the six m8n8 `stmatrix` forms on
/// NVIDIA's cubin against the PTX ISA's fragment layout (lane `l` = group
/// `g = l / 4`, thread `t = l % 4`: its word `i` holds row `g`, columns
/// `2t` and `2t + 1` of matrix `i`; transposed, column `g` of rows `2t`
/// and `2t + 1`), and ours against NVIDIA's, lowered and compiled.
#[test]
fn stmatrix_matches_nvidia() {
    let mut x = 0x1234_5678u32;
    let words: Vec<[u32; 4]> = (0..32).map(|_| [0; 4].map(|_| xorshift(&mut x))).collect();
    let input: Vec<u8> = words.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    // Each form's block: which source word of each lane is matrix i, and
    // whether it is transposed.
    let forms: [(&[usize], bool); 6] =
        [(&[0], false), (&[0, 1], false), (&[0, 1, 2, 3], false), (&[1], true), (&[2, 3], true), (&[3, 2, 1, 0], true)];
    let mut want = vec![0u8; 6 * 512];
    for (block, (regs, trans)) in forms.iter().enumerate() {
        for (i, &reg) in regs.iter().enumerate() {
            for (lane, w) in words.iter().enumerate() {
                let (g, t) = (lane / 4, lane % 4);
                for half in 0..2 {
                    let (row, col) = if *trans { (2 * t + half, g) } else { (g, 2 * t + half) };
                    let at = block * 512 + i * 128 + row * 16 + col * 2;
                    want[at..at + 2].copy_from_slice(&((w[reg] >> (16 * half)) as u16).to_le_bytes());
                }
            }
        }
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0xa5; 6 * 512])];
    let Some(oracle) = nv_oracle::Oracle::for_test("stmatrix") else { return };
    let nvidia = run_nvidia(&oracle, "stmatrix", 90, [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
    for (block, (g, w)) in nvidia.chunks(512).zip(want.chunks(512)).enumerate() {
        assert_eq!(g, w, "NVIDIA's stmatrix: form {block}");
    }
    for (stage, module) in ["lowered", "final"].iter().zip(test_stages("stmatrix", 90)) {
        let got = run(&module, "stmatrix", [1, 1, 1], [32, 1, 1], &args()).swap_remove(1);
        for (block, (g, w)) in got.chunks(512).zip(nvidia.chunks(512)).enumerate() {
            assert_eq!(g, w, "stmatrix sm_90 {stage}: form {block}");
        }
    }
}

/// A Triton matmul fixture's NVIDIA cubin (`tests/triton/NAME.sm90a.ptx`,
/// Triton's `matmul_kernel`: row-major A (M x K) and B (K x N), C = A B
/// row-major), run on the interpreter by [`TritonMatmul::check`] against
/// the product computed here: this checks the interpreter's
/// `HGMMA`/`QGMMA` and its descriptor layouts (the swizzle modes, K- and
/// MN-major operands) on code we did not write
/// (`the_triton_manifest_passes` then compares ours with it).
struct TritonMatmul {
    name: &'static str,
    /// M, N, K.
    dims: (usize, usize, usize),
    /// CTAs (Triton's tiles over M x N).
    grid: u32,
    /// Triton's dynamic shared memory for it (gen.py prints it).
    dyn_shared: u32,
    in_bytes: usize,
    out_bytes: usize,
}

impl TritonMatmul {
    /// Runs the kernel on inputs `a`, `b` whose elements have the values
    /// `value` gives, and requires each element of C (whose value `out`
    /// gives) within `half_ulp(want)` of the exact product `want`. The
    /// inputs are chosen so that every sum is exact in binary32 and only
    /// C's own rounding remains.
    fn check(
        &self,
        (a, b): (&[u8], &[u8]),
        value: impl Fn(&[u8]) -> f64,
        out: impl Fn(&[u8]) -> f64,
        half_ulp: impl Fn(f64) -> f64,
    ) {
        let (m, n, k) = self.dims;
        let Some(oracle) = nv_oracle::Oracle::for_test(self.name) else { return };
        let dir = std::env::temp_dir().join(format!("ptxas-triton-{}-{}", self.name, std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/triton/{}.sm90a.ptx", self.name));
        let kernel = ori_interp::corpus::compile_ptx(&oracle.ptxas(), &ptx, "sm_90a", &dir, "matmul_kernel")
            .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
        let int = |v: usize| Arg::Value((v as u32).to_le_bytes().to_vec());
        let args = vec![
            Arg::Buffer(a.to_vec()),
            Arg::Buffer(b.to_vec()),
            Arg::Buffer(vec![0; self.out_bytes * m * n]),
            int(m),
            int(n),
            int(k),
            int(k),
            int(n),
            int(n),
            Arg::Value(vec![0; 8]),
            Arg::Value(vec![0; 8]),
        ];
        let mut global = Global::new();
        let (params, buffers) = lay_out(&kernel.func, &args, &mut global);
        let mut launch = Launch::new([self.grid, 1, 1], [128, 1, 1], params);
        launch.dyn_shared = self.dyn_shared;
        ori_interp::run_kernel(&kernel, &launch, &mut global).unwrap();
        let c = global.buffer(buffers[2]).unwrap();
        let elem = |bytes: &[u8], size: usize, i: usize| value(&bytes[size * i..size * (i + 1)]);
        for i in 0..m {
            for j in 0..n {
                let want: f64 =
                    (0..k).map(|l| elem(a, self.in_bytes, i * k + l) * elem(b, self.in_bytes, l * n + j)).sum();
                let at = self.out_bytes * (i * n + j);
                let got = out(&c[at..at + self.out_bytes]);
                assert!(
                    (got - want).abs() <= half_ulp(want),
                    "{}: c[{i}][{j}] = {got}, the product is {want}",
                    self.name
                );
            }
        }
    }
}

/// The value of binary16 bits.
fn f16_value(h: u16) -> f64 {
    let (e, f) = (i32::from(h >> 10 & 0x1f), f64::from(h & 0x3ff));
    let v = if e == 0 { f * 2f64.powi(-24) } else { (1024.0 + f) * 2f64.powi(e - 25) };
    if h & 0x8000 != 0 { -v } else { v }
}

/// Half an ulp of `v` in a format of `bits` significant bits (0 for 0).
fn half_ulp(v: f64, bits: i32) -> f64 {
    if v == 0.0 { 0.0 } else { 2f64.powi(v.abs().log2().floor() as i32 - bits) }
}

/// Multiples of 1/8 in [-1, 1]: products and sums of a few hundred of
/// them are exact in binary32, and the values exact in every input type.
fn eighths(seed: u32, count: usize) -> Vec<f64> {
    let mut x = seed;
    (0..count).map(|_| f64::from((xorshift(&mut x) % 17) as i32 - 8) / 8.0).collect()
}

/// fp8: 64x128 tiles, K blocks of 64, e4m3 inputs, f16 output; A and B
/// in the 64-byte swizzled K-major layout. Inputs are e4m3 values in
/// [2^-3, 2).
#[test]
fn triton_matmul_fp8_matches_the_product() {
    let (m, n, k) = (64usize, 128usize, 128usize);
    let mut x = 0x0bad_5eedu32;
    let mut byte = move || 0x20 + (xorshift(&mut x) % 0x20) as u8;
    let a: Vec<u8> = (0..m * k).map(|_| byte()).collect();
    let b: Vec<u8> = (0..k * n).map(|_| byte()).collect();
    let e4m3 = |v: &[u8]| f64::from(8 + (v[0] & 7)) / 8.0 * 2f64.powi(i32::from(v[0] >> 3) - 7);
    let f16 = |c: &[u8]| f16_value(u16::from_le_bytes([c[0], c[1]]));
    let shape =
        TritonMatmul { name: "matmul_fp8", dims: (m, n, k), grid: 1, dyn_shared: 12288, in_bytes: 1, out_bytes: 2 };
    shape.check((&a, &b), e4m3, f16, |v| half_ulp(v, 11));
}

/// f16: 128x128 tiles, K blocks of 32, f16 output; A K-major and B
/// MN-major (`.tnspB`), both 64-byte swizzled.
#[test]
fn triton_matmul_f16_matches_the_product() {
    let (m, n, k) = (128usize, 128usize, 96usize);
    let bits = |v: Vec<f64>| -> Vec<u8> { v.into_iter().flat_map(|v| f16_bits(v).to_le_bytes()).collect() };
    let (a, b) = (bits(eighths(7, m * k)), bits(eighths(11, k * n)));
    let f16 = |c: &[u8]| f16_value(u16::from_le_bytes([c[0], c[1]]));
    let shape =
        TritonMatmul { name: "matmul_f16", dims: (m, n, k), grid: 1, dyn_shared: 16384, in_bytes: 2, out_bytes: 2 };
    shape.check((&a, &b), f16, f16, |v| half_ulp(v, 11));
}

/// bf16: 64x128 tiles, K blocks of 32, f32 output (exact); B MN-major.
#[test]
fn triton_matmul_bf16_matches_the_product() {
    let (m, n, k) = (128usize, 128usize, 64usize);
    let bits = |v: Vec<f64>| -> Vec<u8> {
        v.into_iter().flat_map(|v| ((((v as f32).to_bits()) >> 16) as u16).to_le_bytes()).collect()
    };
    let (a, b) = (bits(eighths(13, m * k)), bits(eighths(17, k * n)));
    let bf16 = |v: &[u8]| f64::from(f32::from_bits(u32::from(u16::from_le_bytes([v[0], v[1]])) << 16));
    let f32v = |c: &[u8]| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let shape =
        TritonMatmul { name: "matmul_bf16", dims: (m, n, k), grid: 2, dyn_shared: 32768, in_bytes: 2, out_bytes: 4 };
    shape.check((&a, &b), bf16, f32v, |_| 0.0);
}

/// tf32: 64x64 tiles, K blocks of 32, f32 in and out (exact): A and B
/// K-major, 128-byte swizzled.
#[test]
fn triton_matmul_tf32_matches_the_product() {
    let (m, n, k) = (64usize, 64usize, 64usize);
    let bits = |v: Vec<f64>| -> Vec<u8> { v.into_iter().flat_map(|v| (v as f32).to_le_bytes()).collect() };
    let (a, b) = (bits(eighths(19, m * k)), bits(eighths(23, k * n)));
    let f32v = |c: &[u8]| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let shape =
        TritonMatmul { name: "matmul_tf32", dims: (m, n, k), grid: 1, dyn_shared: 49152, in_bytes: 4, out_bytes: 4 };
    shape.check((&a, &b), f32v, f32v, |_| 0.0);
}

/// int8: Triton's `tl.dot` of s8 into s32 on sm_90a (NVIDIA's
/// `IGMMA.64x64x32.S8.S8`): 64x64 tiles, K blocks of 32, every byte value
/// in A and B; C is the exact integer product.
#[test]
fn triton_matmul_i8_matches_the_product() {
    let (m, n, k) = (64usize, 64usize, 64usize);
    let Some(oracle) = nv_oracle::Oracle::for_test("matmul_i8") else { return };
    let dir = std::env::temp_dir().join(format!("ptxas-triton-matmul_i8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/triton/matmul_i8.sm90a.ptx");
    let kernel = ori_interp::corpus::compile_ptx(&oracle.ptxas(), &ptx, "sm_90a", &dir, "matmul_i8_kernel")
        .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
    let mut x = 0x5eed_1e55u32;
    let a: Vec<u8> = (0..m * k).map(|_| xorshift(&mut x) as u8).collect();
    let b: Vec<u8> = (0..k * n).map(|_| xorshift(&mut x) as u8).collect();
    let int = |v: usize| Arg::Value((v as u32).to_le_bytes().to_vec());
    let args = vec![
        Arg::Buffer(a.clone()),
        Arg::Buffer(b.clone()),
        Arg::Buffer(vec![0; 4 * m * n]),
        int(m),
        int(n),
        int(k),
        Arg::Value(vec![0; 8]),
        Arg::Value(vec![0; 8]),
    ];
    let mut global = Global::new();
    let (params, buffers) = lay_out(&kernel.func, &args, &mut global);
    let mut launch = Launch::new([1, 1, 1], [128, 1, 1], params);
    launch.dyn_shared = 16384;
    ori_interp::run_kernel(&kernel, &launch, &mut global).unwrap();
    let c = global.buffer(buffers[2]).unwrap();
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k).map(|l| i32::from(a[i * k + l] as i8) * i32::from(b[l * n + j] as i8)).sum();
            let at = 4 * (i * n + j);
            let got = i32::from_le_bytes([c[at], c[at + 1], c[at + 2], c[at + 3]]);
            assert_eq!(got, want, "matmul_i8: c[{i}][{j}]");
        }
    }
}

/// The next value of a xorshift32 sequence: reproducible test inputs.
fn xorshift(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}

/// Runs kernel `entry` of `tests/ptx/FILE.ptx` (retargeted to `sm`) on the
/// interpreter twice, compiled by us (lowered and final stages) and by
/// NVIDIA's ptxas, and requires every buffer argument to end the same.
fn file_matches_nvidia(file: &str, entry: &str, sm: u32, grid: u32, block: u32, args: impl Fn() -> Vec<Arg>) {
    text_matches_nvidia(file, test_ptx(&format!("{file}.ptx"), sm), entry, sm, grid, block, args);
}

/// [`file_matches_nvidia`] for PTX `text` (named `file` in messages).
fn text_matches_nvidia(
    file: &str,
    text: String,
    entry: &str,
    sm: u32,
    grid: u32,
    block: u32,
    args: impl Fn() -> Vec<Arg>,
) {
    let Some(oracle) = nv_oracle::Oracle::for_test(file) else { return };
    let dir = std::env::temp_dir().join(format!("ptxas-{file}-{}-{sm}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join(format!("{file}.ptx"));
    std::fs::write(&ptx, &text).unwrap();
    let kernel = ori_interp::corpus::compile_ptx(&oracle.ptxas(), &ptx, &format!("sm_{sm}"), &dir, entry)
        .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
    let mut global = Global::new();
    let (params, buffers) = lay_out(&kernel.func, &args(), &mut global);
    let launch = Launch::new([grid, 1, 1], [block, 1, 1], params);
    ori_interp::run_kernel(&kernel, &launch, &mut global).unwrap();
    let want: Vec<Vec<u8>> = buffers.iter().map(|&b| global.buffer(b).unwrap().to_vec()).collect();
    for (stage, module) in ["lowered", "final"].iter().zip(stages_of(entry, text, sm)) {
        let got = run(&module, entry, [grid, 1, 1], [block, 1, 1], &args());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let first = g.chunks(16).zip(w.chunks(16)).position(|(a, b)| a != b);
            let at = first.map(|i| 16 * i).unwrap_or(0);
            let (gs, ws) = (&g[at..(at + 16).min(g.len())], &w[at..(at + 16).min(w.len())]);
            assert!(g == w, "{file} sm_{sm} {stage}: buffer {k} differs at byte {at}: {gs:02x?}, NVIDIA's {ws:02x?}");
        }
    }
}

/// `tests/ptx/aops.ptx` and `aops.sm90.ptx` (NVRTC's PTX of every CUDA
/// atomic intrinsic, global and shared, with the `.cta`/`.sys` scopes):
/// every buffer as NVIDIA's cubin leaves it. Inputs are small integers,
/// so that float and double sums are exact in any order.
#[test]
fn aops_match_nvidia() {
    let n = 96usize;
    let a: Vec<i32> = (0..n as i32).map(|i| (i * 7919 + 13) % 41 - 20).collect();
    let args = || {
        vec![
            Arg::Buffer(i32s(&(0..72).map(|i| i * 3 - 50).collect::<Vec<_>>())),
            Arg::Buffer(i32s(&[-1, 0x0f0f, 0x1234, 7, 3])),
            Arg::Buffer(vec![0; 4 * 65]),
            Arg::Buffer(vec![0; 8]),
            Arg::Buffer(u64s(&(0..67).map(|i| i * 0x1_0000_0001).collect::<Vec<_>>())),
            Arg::Buffer(i32s(&a)),
            Arg::Value(i32s(&[n as i32 - 5])),
        ]
    };
    for (file, sm) in [("aops", 90), ("aops.sm90", 90)] {
        file_matches_nvidia(file, "aops", sm, 1, n as u32, args);
    }
}

/// `tests/ptx/global_atomics_order.ptx`: global and generic atomics with
/// every scope and semantics, 64-bit min/max, f32/f64 additions with and
/// without results; one record per thread, so results do not depend on
/// the order of the threads.
#[test]
fn global_atomics_order_match_nvidia() {
    let n = 64usize;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut input = Vec::with_capacity(48 * n);
    for t in 0..n {
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (a, c) = (next() as u32, if t % 3 == 0 { 0 } else { next() as u32 % 200 });
        // Every fourth thread compares equal in its compare-and-swaps.
        let c = if t % 4 == 1 { a } else { c };
        let (b, e) = (next(), if t % 5 == 0 { next() | 0xffff_ffff } else { next() });
        let f = (next() % 2001) as f32 / 8.0 - 125.0;
        let g = if t % 7 == 0 { 1e-40 } else { (next() % 301) as f32 * 0.375 };
        let d = (next() % 100_001) as f64 / 16.0 - 3000.0;
        let h = (next() % 77) as f64 * 1.0e10;
        for w in [a.to_le_bytes(), c.to_le_bytes()] {
            input.extend(w);
        }
        input.extend(b.to_le_bytes());
        input.extend(e.to_le_bytes());
        input.extend(f.to_le_bytes());
        input.extend(g.to_le_bytes());
        input.extend(d.to_le_bytes());
        input.extend(h.to_le_bytes());
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 256 * n])];
    matches_nvidia("global_atomics_order", n as u32, args, 1, 256, |t| format!("thread {t}"));
}

/// Pairs of random binary16 (or bfloat16) values for the half-precision
/// atomics, with subnormals, signed zeros, large values whose sums
/// overflow and values that cancel: one (operand, seed) pair per thread.
fn half_pairs(n: usize, bf16: bool) -> Vec<u8> {
    let mut x = 0x853c_49e6_748f_ea9bu64;
    let mut out = Vec::with_capacity(8 * n);
    for t in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // An all-ones exponent (infinity, NaN) loses its lowest bit: the
        // largest finite values, whose sums overflow.
        let (exp, low) = if bf16 { (0x7f80u32, 0x80u32) } else { (0x7c00, 0x400) };
        let finite = |w: u32| [0, 16].iter().fold(w, |w, &k| if (w >> k) & exp == exp { w & !(low << k) } else { w });
        let (a, b) = (finite(x as u32), finite((x >> 32) as u32));
        let (a, b) = match t % 4 {
            0 => (a, a ^ 0x8000_8000),
            1 => (a & 0x83ff_83ff, b & 0x83ff_83ff),
            _ => (a, b),
        };
        out.extend(a.to_le_bytes());
        out.extend(b.to_le_bytes());
    }
    out
}

/// `tests/ptx/half_atomics.ptx`: `atom`/`red.global.add.noftz.f16x2`.
#[test]
fn half_atomics_match_nvidia() {
    let input = half_pairs(64, false);
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 32 * 64])];
    matches_nvidia("half_atomics", 64, args, 1, 32, |t| format!("thread {t}"));
}

/// `tests/ptx/sm90_atomics.ptx`: `atom`/`red.global.add.noftz.bf16x2`
/// and the cluster scope.
#[test]
fn sm90_atomics_match_nvidia() {
    let input = half_pairs(64, true);
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * 64])];
    file_matches_nvidia("sm90_atomics", "sm90_atomics", 90, 1, 64, args);
}

/// `tests/ptx/shared_atomics_order.ptx`: shared atomics with scopes and
/// semantics, a guarded float addition (threads 37.. skip it), binary64
/// additions and 64-bit constant operands (every third thread's words
/// equal the compare-and-swap's constant).
#[test]
fn shared_atomics_order_match_nvidia() {
    let n = 64usize;
    let mut input = Vec::with_capacity(24 * n);
    for t in 0..n as u32 {
        let a = t.wrapping_mul(0x9e37_79b9) ^ 0x1234_5678;
        let c = if t % 4 == 1 { a } else { t * 1000 + 7 };
        input.extend(a.to_le_bytes());
        input.extend(c.to_le_bytes());
        input.extend((t as f32 * 0.75 - 20.0).to_le_bytes());
        input.extend([0; 4]);
        let d = if t % 3 == 0 { 2.0f64 } else { f64::from(t) * 1.0e-3 - 0.02 };
        input.extend(d.to_le_bytes());
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 160 * n])];
    matches_nvidia("shared_atomics_order", n as u32, args, 1, 160, |t| format!("thread {t}"));
}

/// `tests/ptx/special_regs.ptx`: `%smid`, `%warpid`, `%nsmid`, `%tid.z`,
/// the clocks and the timer (only their order: the values differ between
/// runs), and a guarded `trap` that no thread takes.
#[test]
fn special_regs_match_nvidia() {
    let input: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 32 * 64])];
    matches_nvidia("special_regs", 64, args, 1, 32, |t| format!("thread {t}"));
}

/// `tests/ptx/sweep_ops.ptx`: the floating-point forms the NVRTC sweep
/// needed (`div.approx.ftz.f32`, `sqrt.approx.f32`, ...) on normal,
/// subnormal, negative, huge and special inputs.
#[test]
fn sweep_ops_match_nvidia() {
    let mut floats: Vec<f32> = vec![0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e-40, -1e-39, 1e30, 1e38, 7.25, -0.75];
    floats.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 2e-38, 64.0, 1e-20, 3e-45]);
    floats.extend((0..24).map(|i| (i as f32 - 12.0) * 1.37));
    // 7.25 (0x4740 in binary16) compared with itself by set.eq.f16.
    floats.extend([7.25, 7.25, -7.25, 7.2500005]);
    let pairs: Vec<(f32, f32)> = floats.iter().zip(floats.iter().rev()).map(|(&a, &b)| (a, b)).collect();
    let input: Vec<u8> = pairs.iter().flat_map(|&(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat()).collect();
    let n = pairs.len();
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("sweep_ops", n as u32, args, 1, 64, |t| format!("{:e}, {:e}", pairs[t].0, pairs[t].1));
}

/// `tests/ptx/warp_ops.ptx`: `redux.sync` (add, min, max, or, and), a
/// butterfly shuffle with member mask 0xff and width 8, a shuffle from a
/// constant lane, `bar.warp.sync`, on one warp of varied signed values.
#[test]
fn warp_ops_match_nvidia() {
    let input: Vec<u32> = (0..32u32).map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(i) ^ (i << 30)).collect();
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 64 * 32])];
    matches_nvidia("warp_ops", 32, args, 1, 64, |t| format!("{:#x}", input[t]));
}

/// `tests/ptx/half_scalar.ptx`: binary16 add/sub/mul/fma and bfloat16 fma
/// of scalar registers, a binary16 minimum with 1.0, f32 to bfloat16, and
/// f64 roundings to integral values, on ordinary, tiny, huge, negative,
/// infinite and NaN inputs.
#[test]
fn half_scalar_match_nvidia() {
    let halves: [u16; 16] = [
        0, 0x8000, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x4740, 0xc0f0, 0x2e66, 0x5a3f,
        0x03ff, 0x3f80,
    ];
    let floats: [f32; 8] = [0.5, -1.5, 2.5, 1e30, -3.75e-3, f32::NAN, 1234.567, -65519.0];
    let n = 48usize;
    let mut input = Vec::new();
    for t in 0..n {
        let (a, b, c) = (halves[t % 16], halves[(t * 7 + 3) % 16], halves[(t * 5 + 1) % 16]);
        for h in [a, b, c] {
            input.extend(u32::from(h).to_le_bytes());
        }
        input.extend((floats[t % 8] * (t as f32 + 1.0)).to_le_bytes());
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("half_scalar", n as u32, args, 1, 64, |t| format!("record {t}"));
}

/// `tests/ptx/int_sweep.ptx`: `prmt.b32` with a register selector,
/// `sad.s32`, `dp4a` and `dp2a` of every signedness and `mul.hi.s64`, on
/// random words (the selector's mode bits and both signs included).
#[test]
fn int_sweep_match_nvidia() {
    let mut x = 0x2545_f491u32;
    let mut input = Vec::new();
    for _ in 0..64 * 4 {
        xorshift(&mut x);
        input.push(x);
    }
    input[0..4].copy_from_slice(&[0x8000_0000, 0x7fff_ffff, 0x3210, 0]);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 48 * 64])];
    matches_nvidia("int_sweep", 64, args, 1, 48, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// Words for the integer forms: random ones, the extremes, and small
/// positions and lengths with garbage above their low byte (PTX reads
/// only that byte), one record of four per thread.
fn int_edge_records(n: usize) -> Vec<u32> {
    const EDGES: [u32; 10] =
        [0, 1, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0x7fff_fff0, 0x0080_0000, 0xff80_0000, 32, 31];
    let mut x = 0x9e37_79b9u32;
    let mut out = Vec::with_capacity(4 * n);
    for t in 0..n {
        let (a, b) = match t % 4 {
            0 => (EDGES[t / 4 % 10], EDGES[(t / 4 + 3) % 10]),
            1 => (xorshift(&mut x), EDGES[t / 4 % 10]),
            _ => (xorshift(&mut x), xorshift(&mut x)),
        };
        let small =
            |k: usize, x: &mut u32| if t % 3 == 2 { xorshift(x) } else { (xorshift(x) & !0xff) | (k % 41) as u32 };
        let (c, d) = (small(t * 7, &mut x), small(t * 11 + 5, &mut x));
        out.extend([a, b, c, d]);
    }
    out
}

/// `tests/ptx/int_bits.ptx`: saturating adds, `bfe`/`bfi`/`bmsk` with
/// run-time operands, `mul24`/`mad24`, `shf.r` by a register, `bfind`
/// signed and 64-bit.
#[test]
fn int_bits_match_nvidia() {
    let n = 128;
    let input = int_edge_records(n);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 128 * n])];
    matches_nvidia("int_bits", n as u32, args, 1, 128, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// `tests/ptx/sweep14.ptx`: the forms session 14 lowered from the ISA
/// sweep (64-bit `bfe`/`bfi`/`cnot`, `mad.hi` by an immediate, 16-bit
/// parts of `mov.b64`, `mov.b128`, `match.any.b64`, f16 `neg`/`abs` of
/// NaNs, half `tanh`/`ex2`, `div.approx.ftz` by constants).
#[test]
fn sweep14_forms_match_nvidia() {
    let n = 128;
    let input = int_edge_records(n);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 128 * n])];
    matches_nvidia("sweep14", n as u32, args, 1, 128, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// `tests/ptx/sweep15.ptx`: the forms session 15 lowered from the ISA
/// sweep (`prefetch`/`prefetchu`, `isspacep` of global, generic shared,
/// generic local and arbitrary addresses, guarded, `.param`,
/// `%total_smem_size`, `fma` of halves with constant operands, bfloat16
/// `neg`/`abs`).
#[test]
fn sweep15_forms_match_nvidia() {
    let n = 128;
    let input = int_edge_records(n);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 48 * n])];
    matches_nvidia("sweep15", n as u32, args, 1, 48, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// `tests/ptx/sweep16.ptx` (sm_90): the forms session 16 lowered from the
/// ISA sweep (`add`/`min`/`max[.relu]` of `.u16x2`/`.s16x2`, guarded too;
/// `%clusterid`, `%cluster_ctaid` and `%is_explicit_cluster` in clusters
/// of 2 x 3 x 1 CTAs on a 4 x 6 x 2 grid).
#[test]
fn sweep16_forms_match_nvidia() {
    let Some(oracle) = nv_oracle::Oracle::for_test("sweep16") else { return };
    let (grid, block) = ([4, 6, 2], [32, 1, 1]);
    let n = 4 * 6 * 2 * 32;
    let input = int_edge_records(n);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 96 * n])];
    let want = run_nvidia(&oracle, "sweep16", 90, grid, block, &args()).swap_remove(1);
    for (stage, module) in ["lowered", "final"].iter().zip(test_stages("sweep16", 90)) {
        let got = run(&module, "sweep16", grid, block, &args()).swap_remove(1);
        for (t, (g, w)) in got.chunks(96).zip(want.chunks(96)).enumerate() {
            assert_eq!(g, w, "sweep16 sm_90 {stage}: thread {t} ({:#x?})", &input[4 * t..4 * t + 4]);
        }
    }
}

/// `tests/ptx/isa16.ptx`: `cvt.sat` from `s32`/`s64` to 8 and 16 bits
/// (NVIDIA's `I2I.*.S32.SAT`, which ours writes too), guarded and into
/// 16-bit registers, and the saturating video additions NVIDIA clamps
/// with `I2I`, on integer edge values.
#[test]
fn isa16_forms_match_nvidia() {
    let n = 128;
    let input = int_edge_records(n);
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("isa16", n as u32, args, 1, 64, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// `tests/ptx/int_sat.ptx` against the PTX ISA's definitions (NVIDIA's
/// cubin uses a `PLOP3` form our decoder does not read yet).
#[test]
fn saturating_adds() {
    let n = 128;
    let input = int_edge_records(n);
    let sat = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32;
    let ext24 = |v: u32| i64::from(((v << 8) as i32) >> 8);
    let want: Vec<u32> = input
        .chunks(4)
        .flat_map(|r| {
            let (a, b, c) = (i64::from(r[0] as i32), i64::from(r[1] as i32), i64::from(r[2] as i32));
            let hi = ((ext24(r[0]) * ext24(r[1])) >> 16) as i32;
            [sat(a + b), sat(a - b), sat(a + 0x7fff_fff0), sat(c + i64::from(hi))]
        })
        .collect();
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 16 * n])];
    for sm in [90, 80] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("int_sat", sm)) {
            let got = run(&module, "int_sat", [1, 1, 1], [n as u32, 1, 1], &args()).swap_remove(1);
            for (t, (g, w)) in got.chunks(16).zip(u32s(&want).chunks(16)).enumerate() {
                assert_eq!(g, w, "sm_{sm} {stage}: thread {t} {:#x?}", &input[4 * t..4 * t + 4]);
            }
        }
    }
}

/// `tests/ptx/cvt_int.ptx`: every float-integer conversion, all widths
/// and roundings, on values at and past every integer range's ends,
/// halfway cases, signed zeros, infinities, NaNs with payloads,
/// subnormals and random bits.
#[test]
fn int_conversions_match_nvidia() {
    let floats: [f64; 36] = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        127.5,
        128.0,
        -128.5,
        -129.0,
        255.5,
        256.0,
        32767.5,
        -32768.5,
        65535.5,
        65536.0,
        2147483647.5,
        -2147483648.5,
        4294967295.5,
        4294967296.0,
        9.3e18,
        -9.3e18,
        1.9e19,
        3e19,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        1e-40,
        -1e-310,
        16777217.0,
        9007199254740993.0,
        0.49999999999999994,
        -7.75,
    ];
    let ints: [u64; 12] = [
        0,
        u64::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0x0100_0001,
        0x0020_0000_0000_0001,
        i64::MIN as u64,
        i64::MAX as u64,
        0xffff_ffff_8000_0080,
        0x1234_5678_9abc_def1,
        0x0000_0000_0000_ff7f,
        0xfedc_ba98_7654_3211,
    ];
    let n = 96;
    let mut x = 0x1234_5678u32;
    let mut input = Vec::new();
    for t in 0..n {
        let f = if t < floats.len() { floats[t] } else { f64::from(xorshift(&mut x) as i32) * 1.37 };
        let mut f32_bits = (f as f32).to_bits();
        if t == 28 {
            f32_bits = 0x7fc1_2345; // a quiet NaN with a payload
        }
        let z = if t < 12 { ints[t] } else { u64::from(xorshift(&mut x)) << 32 | u64::from(xorshift(&mut x)) };
        let z = if t % 5 == 3 { z >> (t % 61) } else { z };
        input.extend(f32_bits.to_le_bytes());
        input.extend((z as u32).to_le_bytes());
        input.extend(f.to_le_bytes());
        input.extend(z.to_le_bytes());
    }
    let args = || vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 1024 * n])];
    matches_nvidia("cvt_int", n as u32, args, 1, 1024, |t| format!("record {t}: {:x?}", &input[24 * t..24 * t + 24]));
}

/// binary32 values at the edges of the narrow float formats: signed
/// zeros, infinities, NaNs with payloads, binary32 subnormals, the largest
/// binary16/E4M3/E5M2 values and the halfway points past them, halfway
/// cases of binary16 and bfloat16, tiny values near the 8-bit formats'
/// subnormals, negative values (for `.relu`) and random bits.
fn narrow_float_inputs(n: usize) -> Vec<u32> {
    let edges: [f32; 28] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        65504.0,
        65519.99,
        65520.0,
        -65520.0,
        448.0,
        464.0,
        480.0,
        -500.0,
        57344.0,
        61440.0,
        -61441.0,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        1.0 + 1.0 / 256.0,
        -(1.0 + 3.0 / 256.0),
        0.001953125,
        0.0009765625,
        7.62939453125e-06,
        1.52587890625e-05,
        3.0e-8,
        1e-40,
        -1e-39,
        3.4e38,
        -0.3,
    ];
    let mut bits: Vec<u32> = edges.iter().map(|f| f.to_bits()).collect();
    bits.extend([0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_1234, 0x7f80_0001, 0x7fa0_0000]);
    let mut x = 0x2468_ace1u32;
    while bits.len() < 2 * n {
        let r = xorshift(&mut x);
        // Mostly values within the formats' ranges: exponents near 127.
        bits.push(if r % 4 == 0 { r } else { (r & 0x807f_ffff) | ((r >> 8) % 40 + 107) << 23 });
    }
    bits
}

/// `tests/ptx/cvt_pack.ptx`: f16x2/bf16x2 packs in every rounding and
/// `.relu`, the directed single conversions, binary16 to binary64.
#[test]
fn pack_conversions_match_nvidia() {
    let n = 96;
    let bits = narrow_float_inputs(n);
    // Pairs: each value with one from elsewhere in the list.
    let input: Vec<u32> = (0..n).flat_map(|t| [bits[t], bits[(t * 7 + 5) % (2 * n)]]).collect();
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 64 * n])];
    matches_nvidia("cvt_pack", n as u32, args, 1, 64, |t| format!("{:#x?}", &input[2 * t..2 * t + 2]));
}

/// `tests/ptx/cvt_fp8.ptx` (sm_90): the E4M3/E5M2 packs and unpacks on
/// the edge values; unpacked bytes avoid E4M3's NaN, whose binary16
/// pattern the interpreter does not know.
#[test]
fn fp8_conversions_match_nvidia() {
    let n = 96;
    let bits = narrow_float_inputs(n);
    let mut input = Vec::new();
    for t in 0..n {
        let packed = bits[(t * 3 + 1) % (2 * n)] ^ bits[t].rotate_left(t as u32);
        let packed =
            [0, 8].iter().fold(packed & 0xffff, |p, &k| if (p >> k) & 0x7f == 0x7f { p ^ (1 << k) } else { p });
        input.extend([bits[t], bits[(t * 7 + 5) % (2 * n)], packed]);
    }
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 32 * n])];
    file_matches_nvidia("cvt_fp8", "cvt_fp8", 90, 1, n as u32, args);
}

/// `tests/sweep/NAME.smNN.ptx`, NVRTC's PTX of `tests/sweep/NAME.cu`.
fn sweep_text(name: &str, sm: u32) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().join("tests/sweep");
    std::fs::read_to_string(dir.join(format!("{name}.sm{sm}.ptx"))).unwrap()
}

/// `tests/sweep/conv.cu`'s `cvops` (CUDA's conversion intrinsics: every
/// rounding of float/double to and from 32- and 64-bit integers, half,
/// bfloat16 and fp8, `__saturatef`, bit casts) on values of both signs
/// and many magnitudes, halfway cases and infinities (no NaN: its E4M3
/// byte read back to binary16 is a pattern the interpreter does not know).
#[test]
fn sweep_conversions_match_nvidia() {
    let n = 96usize;
    let mut x = 0x0bad_5eedu32;
    let specials = [0.5, -0.5, 2.5, -3.5, 1e10, -1e19, 7e18, f64::INFINITY, -0.0, 65519.0, 300.7, 1e-300];
    let doubles: Vec<f64> = (0..n)
        .map(|t| {
            if t < specials.len() {
                specials[t]
            } else {
                f64::from(xorshift(&mut x) as i32) / f64::from(1u32 << (t % 29))
            }
        })
        .collect();
    let floats: Vec<f32> = (0..n).map(|t| (doubles[(t * 5 + 3) % n] * 0.75) as f32).collect();
    let dbytes: Vec<u8> = doubles.iter().flat_map(|d| d.to_le_bytes()).collect();
    let args = || {
        vec![
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(dbytes.clone()),
            Arg::Buffer(f32s(&floats)),
            Arg::Buffer(vec![0; 8 * n]),
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(vec![0; 2 * n]),
            Arg::Value(i32s(&[n as i32 - 3])),
        ]
    };
    // sm_80: NVIDIA's cubin has `ISETP.EQ.AND.EX P2, PT, R8, 0x10000, !P2,
    // P3`, which our decoder does not read yet (ours compiles and encodes,
    // tests/lower.rs).
    text_matches_nvidia("sweep_conv", sweep_text("conv", 90), "cvops", 90, 2, 64, args);
}

/// `tests/ptx/bar_red.ptx`: barrier reductions over a CTA of two warps,
/// in blocks where every, some or no thread's predicate holds.
#[test]
fn barrier_reductions_match_nvidia() {
    for (k, pattern) in [|t: u32| t * 37 % 11, |t: u32| 2 * t, |_| 2000, |t: u32| 999 + (t & 1)].iter().enumerate() {
        let input: Vec<u32> = (0..64).map(pattern).collect();
        let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 32 * 64])];
        for sm in [90, 80] {
            let text = test_ptx("bar_red.ptx", sm);
            text_matches_nvidia(&format!("bar_red{k}"), text, "bar_red", sm, 1, 64, args);
        }
    }
}

/// `tests/sweep/ctrl.cu`'s `cops`: a switch, loops with `continue` and
/// `break`, a `goto`, calls (one recursive) and `__syncthreads_count/or/
/// and`, on two CTAs of values of both signs.
#[test]
fn sweep_control_matches_nvidia() {
    let n = 128usize;
    let a: Vec<i32> = (0..n as i32).map(|i| (i * 7919 + 13) % 97 - 40).collect();
    let args = || vec![Arg::Buffer(vec![0; 4 * n]), Arg::Buffer(i32s(&a)), Arg::Value(i32s(&[n as i32 - 5]))];
    for sm in [90, 80] {
        text_matches_nvidia("sweep_ctrl", sweep_text("ctrl", sm), "cops", sm, 2, 64, args);
    }
}

/// `tests/ptx/cvt_sat.ptx`: `cvt.sat` between 32- and 64-bit integers on
/// values at and past every range's ends, and `setp.*.ftz.f32` on
/// subnormals, zeros, infinities and NaN.
#[test]
fn saturating_conversions_match_nvidia() {
    let n = 128;
    let mut input = int_edge_records(n);
    let floats = [0x0000_0001, 0x8000_0001, 0, 0x8000_0000, 0x007f_ffff, 0x7f80_0000, 0x7fc0_0000, 0x3f80_0000];
    for t in 0..n {
        if t % 4 == 3 {
            input[4 * t] = floats[t / 4 % 8];
            input[4 * t + 1] = floats[(t / 4 + 3) % 8];
        }
        if t % 8 == 5 {
            input[4 * t + 1] = 0xffff_ffff; // a sign-extended negative low word
            input[4 * t + 3] = 0;
        }
    }
    let args = || vec![Arg::Buffer(u32s(&input)), Arg::Buffer(vec![0; 96 * n])];
    matches_nvidia("cvt_sat", n as u32, args, 1, 96, |t| format!("{:#x?}", &input[4 * t..4 * t + 4]));
}

/// Literal stores (`st.shared.b32 [r], 0`: `RZ`; other literals moved into
/// a register) and a 12-byte structure passed to and returned from a
/// device function by `st.param.v2.b32`, read back as one `.b64`
/// (`tests/ptx/store_literals.ptx`, NVRTC's forms on sm_100).
#[test]
fn store_literals() {
    let n = 64usize;
    let input: Vec<i32> = (0..6 * n as i32).map(|i| (i * 53) % 97 - 48).collect();
    let mut want = Vec::new();
    for v in input.chunks(6) {
        let (a, b) = (&v[0..3], &v[3..6]);
        let x = a[1].wrapping_mul(b[2]).wrapping_sub(a[2].wrapping_mul(b[1]));
        let y = a[2].wrapping_mul(b[0]).wrapping_sub(a[0].wrapping_mul(b[2]));
        let z = a[0].wrapping_mul(b[1]).wrapping_sub(a[1].wrapping_mul(b[0]));
        // Bytes 20..24 are not written: the buffer's 0xff stays.
        for w in [x, y, z, 0, -7, -1, 0, 0xbeef] {
            want.extend_from_slice(&w.to_le_bytes());
        }
        want.extend_from_slice(&0x0123_4567_89ab_cdef_u64.to_le_bytes());
    }
    let args = || vec![Arg::Buffer(i32s(&input)), Arg::Buffer(vec![0xff; 40 * n])];
    for sm in [80, 90, 100, 120] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("store_literals", sm)) {
            let got = run(&module, "store_literals", [1, 1, 1], [n as u32, 1, 1], &args());
            assert!(got[1] == want, "sm_{sm} {stage}: results differ");
        }
    }
}

/// `fma.rn.f32 d, imm, imm, c` and `fma.rn.f32 d, imm, r, imm`
/// (`tests/ptx/fma_immediates.ptx`): one rounding, as `f32::mul_add`.
#[test]
fn fma_immediates() {
    let n = 64usize;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 - 31.5) * 0.37).collect();
    let (a, b) = (f32::from_bits(0x3F6E_E581), f32::from_bits(0x3FD7_74EB));
    let input: Vec<u8> = xs.iter().flat_map(|x| [x.to_le_bytes(), [0; 4]].concat()).collect();
    let want: Vec<u8> =
        xs.iter().flat_map(|&x| [a.mul_add(b, x).to_le_bytes(), a.mul_add(x, b).to_le_bytes()].concat()).collect();
    for sm in [80, 90, 100] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("fma_immediates", sm)) {
            let got = run(&module, "fma_immediates", [1, 1, 1], [n as u32, 1, 1], &[Arg::Buffer(input.clone())]);
            assert!(got[0] == want, "sm_{sm} {stage}: results differ");
        }
    }
}

/// Packed f32 arithmetic (`tests/ptx/f32x2.ptx`): sm_100's `FADD2`/
/// `FMUL2`/`FFMA2` on register pairs, sm_120's f32 instruction a half, the
/// products contracted into FMAs as NVIDIA contracts them. The
/// round-to-nearest results against the exact reference (`mul_add` is
/// one rounding), every result against NVIDIA's cubin for the same SM on
/// the interpreter.
#[test]
fn packed_f32_halves_match_the_reference() {
    const THREADS: usize = 64;
    // Per thread: a, b, c (two floats each), then four results.
    let value = |i: usize| {
        let m = 1.0 + ((i * 2_654_435_761) % 1_000_003) as f32 / 1_000_003.0;
        let e = (i % 11) as i32 - 5;
        if i % 3 == 0 { -m * 2f32.powi(e) } else { m * 2f32.powi(e) }
    };
    let mut mem = vec![0f32; THREADS * 14];
    for t in 0..THREADS {
        for k in 0..6 {
            mem[t * 14 + k] = value(t * 6 + k + 1);
        }
    }
    let bytes: Vec<u8> = mem.iter().flat_map(|x| x.to_le_bytes()).collect();
    let floats = |b: &[u8]| b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<f32>>();
    let mut results = Vec::new();
    for sm in [100, 120] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("f32x2", sm)) {
            let got =
                floats(&run(&module, "f32x2", [1, 1, 1], [THREADS as u32, 1, 1], &[Arg::Buffer(bytes.clone())])[0]);
            for t in 0..THREADS {
                for h in 0..2 {
                    let at = |k: usize| got[t * 14 + 2 * k + h];
                    let (a, b, c) = (at(0), at(1), at(2));
                    let fused = a.mul_add(b, c);
                    let want = [(3, fused), (4, fused - a), (6, (-a).mul_add(b, c))];
                    for (k, w) in want {
                        assert_eq!(at(k).to_bits(), w.to_bits(), "sm_{sm} {stage}: thread {t} half {h} result {k}");
                    }
                }
            }
            results.push(got);
        }
    }
    let Some(oracle) = nv_oracle::Oracle::for_test("packed_f32_halves_match_the_reference") else { return };
    for (sm, ours) in [100, 120].into_iter().zip(results.chunks(2)) {
        let launch = [Arg::Buffer(bytes.clone())];
        let nvidia = floats(&run_nvidia(&oracle, "f32x2", sm, [1, 1, 1], [THREADS as u32, 1, 1], &launch)[0]);
        for got in ours {
            let differ = got.iter().zip(&nvidia).position(|(g, n)| g.to_bits() != n.to_bits());
            assert_eq!(differ, None, "sm_{sm}: element {differ:?} differs from NVIDIA's");
        }
    }
}

/// `tests/ptx/fn_table.ptx`: function addresses as NVIDIA numbers them in
/// a module with two kernels (a table and a vtable in `.global`
/// initialisers, `mov` of a function, indirect calls from a kernel and from
/// a function the table holds, a bank-2 constant after the table on
/// sm_80): both kernels' outputs, the stored addresses included, equal
/// NVIDIA's cubin's on the interpreter (sm_90, sm_80, sm_75).
#[test]
fn function_tables_match_nvidia() {
    let mut inputs: Vec<i32> = vec![0, 1, -1, 7, i32::MIN, i32::MAX, -123_456];
    let mut x = 0x1234_5678u32;
    for _ in 0..57 {
        inputs.push(xorshift(&mut x) as i32);
    }
    let n = inputs.len();
    let input: Vec<u8> = inputs.iter().flat_map(|v| v.to_le_bytes()).collect();
    let Some(oracle) = nv_oracle::Oracle::for_test("function_tables_match_nvidia") else { return };
    let launches: [(&str, u32, Box<dyn Fn() -> Vec<Arg>>); 2] = [
        ("fn_table", n as u32, Box::new(|| vec![Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 48 * n])])),
        ("fn_table_other", 1, Box::new(|| vec![Arg::Buffer(vec![0; 4])])),
    ];
    for sm in [90, 80, 75] {
        let dir = std::env::temp_dir().join(format!("ptxas-fn_table-{}-{sm}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ptx = dir.join("fn_table.ptx");
        std::fs::write(&ptx, test_ptx("fn_table.ptx", sm)).unwrap();
        let options = Options { arch: format!("sm_{sm}").parse().unwrap(), ..Options::default() };
        let ours = ptxas::compile(&test_ptx("fn_table.ptx", sm), &options)
            .unwrap_or_else(|f| panic!("{:#?}", f.report.diagnostics))
            .cubin
            .unwrap();
        for (entry, threads, args) in &launches {
            let nvidia = ori_interp::corpus::compile_ptx(&oracle.ptxas(), &ptx, &format!("sm_{sm}"), &dir, entry)
                .unwrap_or_else(|e| panic!("NVIDIA's ptxas: {e}"));
            let mine = ori_interp::load_kernel(&ours, entry).unwrap();
            let mut outputs = Vec::new();
            for kernel in [&nvidia, &mine] {
                let mut global = Global::new();
                let (params, buffers) = lay_out(&kernel.func, &args(), &mut global);
                let launch = Launch::new([1, 1, 1], [*threads, 1, 1], params);
                ori_interp::run_kernel(kernel, &launch, &mut global).unwrap();
                outputs.push(global.buffer(*buffers.last().unwrap()).unwrap().to_vec());
            }
            for (t, (g, w)) in outputs[1].chunks(48).zip(outputs[0].chunks(48)).enumerate() {
                assert_eq!(g, w, "{entry} sm_{sm}: thread {t} ({:#x})", inputs[t]);
            }
        }
    }
}

/// `tests/ptx/minmax3.ptx`: `max`/`min.f32` of three sources (Triton's row
/// maxima on Blackwell) give the maximum and minimum of all three, NaN
/// ignored, on sm_100 (one `FMNMX3`) and sm_120 (two `FMNMX`, NVIDIA's
/// code there), lowered and final, and NVIDIA's sm_100 cubin agrees.
/// Before session 14 the third source was dropped.
#[test]
fn three_source_minmax() {
    let n = 32usize;
    let values = [1.5f32, -2.0, 3.25, f32::NEG_INFINITY, f32::NAN, 0.75, 7.0, -0.5, 100.0, -9.5, 2.5];
    // Consecutive values: 11 is prime to 3, so the maximum, the minimum
    // and the NaN take every position of a triple.
    let input: Vec<f32> = (0..3 * n).map(|i| values[i % values.len()]).collect();
    let fold = |t: &[f32], pick: fn(f32, f32) -> f32| {
        t.iter().copied().filter(|x| !x.is_nan()).reduce(pick).unwrap_or(f32::from_bits(0x7fff_ffff))
    };
    let mut want = Vec::new();
    for t in input.chunks(3) {
        let max = fold(t, f32::max);
        want.extend([max, fold(t, f32::min), max]);
    }
    let want = [f32s(&input), f32s(&want)];
    assert!(input.chunks(3).any(|t| t.iter().any(|x| x.is_nan())), "no NaN among the inputs");
    assert!(input.chunks(3).all(|t| t.iter().any(|x| !x.is_nan())), "three NaNs: which NaN is not checked");
    let args = || vec![Arg::Buffer(f32s(&input)), Arg::Buffer(vec![0; 12 * n])];
    let oracle = nv_oracle::Oracle::for_test("three_source_minmax");
    for sm in [100, 120] {
        for (stage, module) in ["lowered", "final"].iter().zip(test_stages("minmax3", sm)) {
            let got = run(&module, "minmax3", [1, 1, 1], [n as u32, 1, 1], &args());
            assert_eq!(got, want, "{stage} sm_{sm}");
        }
        // NVIDIA's sm_120 code of the `.ftz` maximum parks a register in
        // the PC's low word (`RPCMOV.32 Rpc.LO, R2` .. `RPCMOV.32 R2,
        // Rpc.LO`), which the SASS decoder does not know yet.
        if let Some(oracle) = oracle.as_ref().filter(|_| sm == 100) {
            let nvidia = run_nvidia(oracle, "minmax3", sm, [1, 1, 1], [n as u32, 1, 1], &args());
            assert_eq!(nvidia, want, "NVIDIA's cubin, sm_{sm}");
        }
    }
}
