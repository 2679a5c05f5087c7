//! What the lowered kernels compute: corpus kernels lowered by ptx-lower
//! run on the Ori interpreter (ori-interp), both as lowering leaves them
//! (virtual registers) and as the whole pipeline finishes them (allocated,
//! scheduled, encoded), for sm_90 and sm_80; the results must equal a
//! reference computed here. Inputs are small integers (also as floats) so
//! that sums are exact whatever the order.

use std::path::{Path, PathBuf};

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
    let (ast, diags) = ptx_syntax::parse(&text, ptx_syntax::FileId(0));
    assert!(diags.is_empty(), "{diags:?}");
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

/// Runs function `entry` of `module` with `args` laid out at its parameter
/// slots; returns the final contents of every buffer argument.
fn run(module: &ori_ir::Module, entry: &str, grid: [u32; 3], block: [u32; 3], args: &[Arg]) -> Vec<Vec<u8>> {
    let func = module.function(entry).unwrap_or_else(|| panic!("no function {entry}"));
    let mut global = Global::new();
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
        };
        let at = slot.offset as usize;
        params[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    let launch = Launch::new(grid, block, params);
    let sm = u32::from(module.target.version);
    ori_interp::run(func, sm, func.attrs.shared_bytes, &launch, &mut global)
        .unwrap_or_else(|e| panic!("{entry} (sm_{sm}): {e}"));
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
    check("histogram", &[90], "histogram256", 2, 256, args, &[data.clone(), words(&bins, u32::to_le_bytes)]);
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
