//! Corpus kernels with their launches (from `corpus/manifest.toml`, grids
//! made smaller where an interpreter would be slow) and CPU references of
//! the manifest's `check`, hand-translated. Used by the tests and by
//! `cargo xtask difftest`.

use std::path::Path;

use crate::{Global, Kernel, Launch, Stats};

/// One launch of a corpus kernel.
pub struct Case {
    /// The kernel's file name in `corpus/kernels` (`vadd` -> `vadd.sm90.ptx`).
    pub file: &'static str,
    /// The entry to run.
    pub entry: &'static str,
    /// Sets up memory and parameters, runs, checks.
    pub run: fn(&Kernel) -> Result<Stats, String>,
}

/// Every case, in the manifest's order.
pub const CASES: &[Case] = &[
    Case { file: "vadd", entry: "vadd", run: vadd },
    Case { file: "saxpy", entry: "saxpy", run: saxpy },
    Case { file: "fill_iota", entry: "fill_iota", run: fill_iota },
    Case { file: "clamp_select", entry: "clamp_select", run: clamp_select },
    Case { file: "copy_vec", entry: "copy_bytes", run: copy_bytes },
    Case { file: "copy_vec", entry: "copy_int4", run: copy_int4 },
    Case { file: "reduce_smem", entry: "reduce_smem", run: reduce_smem },
    Case { file: "reduce_shfl", entry: "reduce_shfl", run: reduce_shfl },
    Case { file: "histogram", entry: "histogram256", run: histogram },
    Case { file: "atomics_mix", entry: "atomics_mix", run: atomics_mix },
    Case { file: "sum64", entry: "sum64", run: sum64 },
    Case { file: "intdiv", entry: "intdiv", run: intdiv },
    Case { file: "intdiv", entry: "nchw_decompose", run: nchw_decompose },
    Case { file: "transpose", entry: "transpose_padded", run: transpose_padded },
    Case { file: "transpose", entry: "transpose_naive", run: transpose_naive },
    Case { file: "bitops", entry: "bitops", run: bitops },
    Case { file: "vec_loads", entry: "vec_loads", run: vec_loads },
    Case { file: "templates", entry: "_Z6axpy_tIfLi4EEvPKT_PS0_S0_i", run: axpy_f32 },
    Case { file: "templates", entry: "_Z6axpy_tIdLi2EEvPKT_PS0_S0_i", run: axpy_f64 },
    Case { file: "templates", entry: "_Z6axpy_tIiLi1EEvPKT_PS0_S0_i", run: axpy_i32 },
    Case { file: "templates", entry: "_ZN2ns5applyINS_7FunctorEEEvPKfPfT_i", run: apply_functor },
    Case { file: "scan_block", entry: "scan_block", run: scan_block },
    Case { file: "scan_block", entry: "scan_add_offsets", run: scan_add_offsets },
    Case { file: "matmul_tiled", entry: "sgemm_tiled", run: sgemm_tiled },
    Case { file: "stencil2d", entry: "jacobi5", run: jacobi5 },
    Case { file: "local_array", entry: "local_array", run: local_array },
    Case { file: "dyn_smem", entry: "block_sort_kv", run: block_sort_kv },
    Case { file: "warp_vote", entry: "warp_vote", run: warp_vote },
    Case { file: "softmax_rows", entry: "softmax_rows", run: softmax_rows },
    Case { file: "layernorm_rows", entry: "layernorm_rows", run: layernorm_rows },
    Case { file: "unroll_loops", entry: "poly_fir", run: poly_fir },
    Case { file: "unroll_loops", entry: "dot_unroll4", run: dot_unroll4 },
    Case { file: "math_float", entry: "math_float", run: math_float },
    Case { file: "wmma_gemm", entry: "wmma_gemm", run: wmma_gemm },
    Case { file: "mma_ldmatrix", entry: "mma_m16n8k16", run: mma_m16n8k16 },
    Case { file: "cp_async_pipeline", entry: "conv1d_cp_async", run: conv1d_cp_async },
];

/// Cases of kernels that exist for sm_90 only (`archs = ["compute_90"]`).
pub const SM90_CASES: &[Case] = &[
    Case { file: "tma_bulk_copy", entry: "bulk_scale", run: bulk_scale },
    Case { file: "cluster_dsmem", entry: "cluster_hist", run: cluster_hist },
];

/// Cases of kernels that exist for sm_90a only (`archs = ["compute_90a"]`,
/// the architecture-specific features: wgmma).
pub const SM90A_CASES: &[Case] = &[Case { file: "wgmma_m64n8k16", entry: "wgmma_gemm_64x8", run: wgmma_gemm_64x8 }];

/// Compiles `corpus/kernels/<file>.sm<sm>.ptx` with `ptxas` into `dir`
/// and loads `entry`.
pub fn compile(ptxas: &Path, corpus: &Path, file: &str, entry: &str, sm: u32, dir: &Path) -> Result<Kernel, String> {
    compile_arch(ptxas, corpus, file, entry, &format!("sm_{sm}"), dir)
}

/// Compiles `corpus/kernels/<file>.<arch without '_'>.ptx` (`sm_90a` ->
/// `.sm90a.ptx`) for `arch` into `dir` and loads `entry`.
pub fn compile_arch(ptxas: &Path, corpus: &Path, file: &str, entry: &str, arch: &str, dir: &Path) -> Result<Kernel, String> {
    let ptx = corpus.join("kernels").join(format!("{file}.{}.ptx", arch.replace('_', "")));
    compile_ptx(ptxas, &ptx, arch, dir, entry)
}

/// Compiles `ptx` for `arch` (`sm_90`, `sm_90a`, ...) with `ptxas` into
/// `dir` and loads `entry`.
pub fn compile_ptx(ptxas: &Path, ptx: &Path, arch: &str, dir: &Path, entry: &str) -> Result<Kernel, String> {
    // A name of its own per call: tests compile the same kernel in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stem = ptx.file_stem().map_or_else(|| "kernel".into(), |s| s.to_string_lossy().into_owned());
    let out = dir.join(format!("{stem}.{arch}.{}.{n}.cubin", std::process::id()));
    let status = std::process::Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    if !status.status.success() {
        return Err(format!("{} failed: {}", ptxas.display(), String::from_utf8_lossy(&status.stderr)));
    }
    let bytes = std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    // The cubin is not needed once read; a failed removal only leaves a file.
    let _ = std::fs::remove_file(&out);
    crate::load_kernel(&bytes, entry).map_err(|e| e.to_string())
}

/// A deterministic generator (xorshift64*) for inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// `uniform(lo, hi)` as f32.
    fn uniform(&mut self, lo: f32, hi: f32, n: usize) -> Vec<f32> {
        (0..n).map(|_| lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)).collect()
    }
    /// `randint(lo, hi)`, `hi` excluded.
    fn randint(&mut self, lo: i64, hi: i64, n: usize) -> Vec<i64> {
        (0..n).map(|_| lo + (self.next() % (hi - lo) as u64) as i64).collect()
    }
}

/// Parameter bytes laid out by the kernel's parameter slots.
struct Params<'k> {
    kernel: &'k Kernel,
    bytes: Vec<u8>,
}

impl<'k> Params<'k> {
    fn new(kernel: &'k Kernel) -> Params<'k> {
        Params { kernel, bytes: vec![0; kernel.func.attrs.param_bytes() as usize] }
    }
    fn set(mut self, i: usize, v: &[u8]) -> Result<Self, String> {
        let slot = self.kernel.func.attrs.params.get(i).ok_or(format!("no parameter {i}"))?;
        let at = slot.offset as usize;
        self.bytes[at..at + v.len().min(slot.size as usize)].copy_from_slice(&v[..v.len().min(slot.size as usize)]);
        Ok(self)
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn read_u32(g: &Global, addr: u64) -> Vec<u32> {
    g.buffer(addr).unwrap_or(&[]).chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Compares bit patterns element by element; names the first difference.
fn exact(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => {
            let bad = got.iter().zip(want).filter(|(a, b)| a != b).count();
            Err(format!("{what}[{i}] = {:#010x}, expected {:#010x} ({bad} elements differ)", got[i], want[i]))
        }
    }
}

fn launch(kernel: &Kernel, global: &mut Global, grid: u32, block: u32, params: Params) -> Result<Stats, String> {
    launch_2d(kernel, global, [grid, 1], [block, 1], params)
}

fn launch_2d(
    kernel: &Kernel,
    global: &mut Global,
    grid: [u32; 2],
    block: [u32; 2],
    params: Params,
) -> Result<Stats, String> {
    let l = Launch::new([grid[0], grid[1], 1], [block[0], block[1], 1], params.bytes);
    crate::run_kernel(kernel, &l, global).map_err(|e| e.to_string())
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn read_u64(g: &Global, addr: u64) -> Vec<u64> {
    g.buffer(addr).unwrap_or(&[]).chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()
}

/// `float(R)` of the manifest: each element within relative error `rel`
/// (fma contraction may differ from the reference).
fn close(what: &str, got: &[f64], want: &[f64], rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| (a - b).abs() > rel * b.abs().max(1.0)) {
        None => Ok(()),
        Some(i) => Err(format!("{what}[{i}] = {}, expected {}", got[i], want[i])),
    }
}

fn vadd(k: &Kernel) -> Result<Stats, String> {
    let n = 16_384 + 77;
    let mut r = Rng(1);
    let (a, b) = (r.uniform(-1.0, 1.0, n), r.uniform(-1.0, 1.0, n));
    let mut g = Global::new();
    let (pa, pb, pc) = (g.alloc(f32s(&a)), g.alloc(f32s(&b)), g.alloc(vec![0; 4 * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect();
    exact("c", &read_u32(&g, pc), &want).map(|_| stats)
}

fn saxpy(k: &Kernel) -> Result<Stats, String> {
    let (n, len, alpha) = (10_000, 10_240, 2.5f32);
    let mut r = Rng(2);
    let (x, y) = (r.uniform(-1.0, 1.0, len), r.uniform(-1.0, 1.0, len));
    let mut g = Global::new();
    let (px, py) = (g.alloc(f32s(&x)), g.alloc(f32s(&y)));
    let p = Params::new(k).set(0, &(n as i32).to_le_bytes())?.set(1, &alpha.to_le_bytes())?;
    let p = p.set(2, &px.to_le_bytes())?.set(3, &py.to_le_bytes())?;
    let stats = launch(k, &mut g, len.div_ceil(256) as u32, 256, p)?;
    let want: Vec<u32> =
        (0..len).map(|i| if i < n { alpha.mul_add(x[i], y[i]).to_bits() } else { y[i].to_bits() }).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

fn fill_iota(k: &Kernel) -> Result<Stats, String> {
    let n = 100_000usize;
    let mut g = Global::new();
    let (pi, pf) = (g.alloc(vec![0; 4 * n]), g.alloc(vec![0; 4 * n]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &pf.to_le_bytes())?.set(2, &(n as i32).to_le_bytes())?;
    let p = p.set(3, &(-17i32).to_le_bytes())?.set(4, &3i32.to_le_bytes())?.set(5, &0.5f32.to_le_bytes())?;
    let stats = launch(k, &mut g, 64, 128, p)?;
    let wi: Vec<u32> = (0..n as i32).map(|i| (-17 + 3 * i) as u32).collect();
    let wf: Vec<u32> = wi.iter().map(|&v| (v as i32 as f32 * 0.5).to_bits()).collect();
    exact("out_i", &read_u32(&g, pi), &wi)?;
    exact("out_f", &read_u32(&g, pf), &wf).map(|_| stats)
}

fn clamp_select(k: &Kernel) -> Result<Stats, String> {
    let n = 16_384;
    let mut r = Rng(3);
    let x = r.uniform(-4.0, 4.0, n);
    let kk: Vec<i32> = r.randint(-1000, 1000, n).into_iter().map(|v| v as i32).collect();
    let (lo, hi) = (-1.5f32, 2.0f32);
    let mut g = Global::new();
    let (px, pk, py, pz) = (g.alloc(f32s(&x)), g.alloc(i32s(&kk)), g.alloc(vec![0; 4 * n]), g.alloc(vec![0; 4 * n]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &pk.to_le_bytes())?.set(2, &py.to_le_bytes())?;
    let p = p.set(3, &pz.to_le_bytes())?.set(4, &lo.to_le_bytes())?.set(5, &hi.to_le_bytes())?;
    let stats = launch(k, &mut g, (n / 256) as u32, 256, p.set(6, &(n as i32).to_le_bytes())?)?;
    let wy: Vec<u32> = x
        .iter()
        .map(|&v| {
            let c = v.max(lo).min(hi);
            (if v < 0.0 { -c } else { c * 2.0 }).to_bits()
        })
        .collect();
    let wz: Vec<u32> =
        kk.iter().map(|&v| (if v & 1 != 0 { v.abs().max(100) } else { v.abs().min(7) }) as u32).collect();
    exact("y", &read_u32(&g, py), &wy)?;
    exact("z", &read_u32(&g, pz), &wz).map(|_| stats)
}

fn copy_bytes(k: &Kernel) -> Result<Stats, String> {
    let n = 100_003usize;
    let src: Vec<u8> = Rng(4).randint(0, 256, n).into_iter().map(|v| v as u8).collect();
    let mut g = Global::new();
    let (ps, pd) = (g.alloc(src.clone()), g.alloc(vec![0; n]));
    let p = Params::new(k).set(0, &ps.to_le_bytes())?.set(1, &pd.to_le_bytes())?.set(2, &(n as u64).to_le_bytes())?;
    let stats = launch(k, &mut g, 12, 256, p)?;
    if g.buffer(pd) == Some(&src[..]) { Ok(stats) } else { Err("dst != src".into()) }
}

fn copy_int4(k: &Kernel) -> Result<Stats, String> {
    let n_vec = 16_384 + 5;
    let src: Vec<i32> = Rng(5).randint(-1_000_000, 1_000_000, 4 * n_vec).into_iter().map(|v| v as i32).collect();
    let mut g = Global::new();
    let (ps, pd) = (g.alloc(i32s(&src)), g.alloc(vec![0; 16 * n_vec]));
    let (pst, pdt) = (g.alloc(i32s(&[0, 1, 2])), g.alloc(vec![0; 12]));
    let p = Params::new(k).set(0, &ps.to_le_bytes())?.set(1, &pd.to_le_bytes())?.set(2, &pst.to_le_bytes())?;
    let p = p.set(3, &pdt.to_le_bytes())?.set(4, &(n_vec as i32).to_le_bytes())?.set(5, &3i32.to_le_bytes())?;
    let stats = launch(k, &mut g, 12, 256, p)?;
    exact("dst", &read_u32(&g, pd), &src.iter().map(|&v| v as u32).collect::<Vec<_>>())?;
    exact("dst_tail", &read_u32(&g, pdt), &[0, 1, 2]).map(|_| stats)
}

fn reduce_smem(k: &Kernel) -> Result<Stats, String> {
    let blocks = 64usize;
    let n = blocks * 512 - 300;
    let x = Rng(6).uniform(-1.0, 1.0, n);
    let mut g = Global::new();
    let (pi, po) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * blocks]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &po.to_le_bytes())?.set(2, &(n as i32).to_le_bytes())?;
    let stats = launch(k, &mut g, blocks as u32, 256, p)?;
    // The same tree, in the same order: exact.
    let want: Vec<u32> = (0..blocks)
        .map(|b| {
            let mut s: Vec<f32> = (0..256)
                .map(|t| {
                    let i = b * 512 + t;
                    let v = if i < n { x[i] } else { 0.0 };
                    if i + 256 < n { v + x[i + 256] } else { v }
                })
                .collect();
            let mut stride = 128;
            while stride > 0 {
                for t in 0..stride {
                    s[t] += s[t + stride];
                }
                stride /= 2;
            }
            s[0].to_bits()
        })
        .collect();
    exact("block_sums", &read_u32(&g, po), &want).map(|_| stats)
}

fn reduce_shfl(k: &Kernel) -> Result<Stats, String> {
    let n = 65_536 + 100;
    let x = Rng(7).uniform(-1.0, 1.0, n);
    let mut g = Global::new();
    let (pi, po) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &po.to_le_bytes())?.set(2, &(n as i32).to_le_bytes())?;
    let stats = launch(k, &mut g, 16, 256, p)?;
    let got = f64::from(f32::from_bits(read_u32(&g, po)[0]));
    let want: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let scale: f64 = x.iter().map(|&v| f64::from(v.abs())).sum();
    // float(1e-4): the order of the float atomics is free.
    if (got - want).abs() <= 1e-4 * scale { Ok(stats) } else { Err(format!("out = {got}, expected {want}")) }
}

fn histogram(k: &Kernel) -> Result<Stats, String> {
    let n = 65_536 + 17;
    let data: Vec<u8> = Rng(8).randint(0, 256, n).into_iter().map(|v| v as u8).collect();
    let mut g = Global::new();
    let (pd, ph) = (g.alloc(data.clone()), g.alloc(vec![0; 4 * 256]));
    let p = Params::new(k).set(0, &pd.to_le_bytes())?.set(1, &(n as i32).to_le_bytes())?.set(2, &ph.to_le_bytes())?;
    let stats = launch(k, &mut g, 16, 256, p)?;
    let mut want = vec![0u32; 256];
    for &b in &data {
        want[usize::from(b)] += 1;
    }
    exact("hist", &read_u32(&g, ph), &want).map(|_| stats)
}

fn atomics_mix(k: &Kernel) -> Result<Stats, String> {
    let n = 8192 + 100;
    let mut r = Rng(9);
    let vi: Vec<i32> = r.randint(-100_000, 100_000, n).into_iter().map(|v| v as i32).collect();
    let vf = r.uniform(-1.0, 1.0, n);
    let counters = [0, i32::MAX, i32::MIN, 0, 0, 0, -1, 0];
    let mut g = Global::new();
    let (pvi, pvf, pc) = (g.alloc(i32s(&vi)), g.alloc(f32s(&vf)), g.alloc(i32s(&counters)));
    let (pw, ps) = (g.alloc(vec![0; 4]), g.alloc(vec![0; 4]));
    let (pm, pd) = (g.alloc(f32s(&[f32::NEG_INFINITY])), g.alloc(1f64.to_le_bytes().to_vec()));
    let p = Params::new(k).set(0, &pvi.to_le_bytes())?.set(1, &pvf.to_le_bytes())?.set(2, &(n as i32).to_le_bytes())?;
    let p = p.set(3, &pc.to_le_bytes())?.set(4, &pw.to_le_bytes())?.set(5, &ps.to_le_bytes())?;
    let p = p.set(6, &pm.to_le_bytes())?.set(7, &pd.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p)?;
    // Integer atomics commute: exact. `atomicSub(&c[5], -1)` adds one per
    // negative element.
    let want = [
        vi.iter().fold(0i32, |a, &x| a.wrapping_add(x)),
        vi.iter().fold(i32::MAX, |a, &x| a.min(x)),
        vi.iter().fold(i32::MIN, |a, &x| a.max(x)),
        1,
        0,
        vi.iter().filter(|&&x| x < 0).count() as i32,
        vi.iter().fold(-1, |a, &x| a & (x | 0xffff_0000u32 as i32)),
        vi.iter().fold(0, |a, &x| a | (x & 0xffff)),
    ];
    exact("counters", &read_u32(&g, pc), &want.map(|v| v as u32))?;
    exact("wrap", &read_u32(&g, pw), &[(n % 1000) as u32])?;
    let fmax = vf.iter().fold(f32::NEG_INFINITY, |a, &x| a.max(x));
    exact("fmax", &read_u32(&g, pm), &[fmax.to_bits()])?;
    let fsum = f64::from(f32::from_bits(read_u32(&g, ps)[0]));
    let want_sum: f64 = vf.iter().map(|&v| f64::from(v)).sum();
    let scale: f64 = vf.iter().map(|&v| f64::from(v.abs())).sum();
    if (fsum - want_sum).abs() > 1e-4 * scale {
        return Err(format!("fsum = {fsum}, expected {want_sum}"));
    }
    let dprod = f64::from_le_bytes(g.buffer(pd).and_then(|b| b.try_into().ok()).unwrap_or([0; 8]));
    let want_prod: f64 = (0..n).step_by(1024).map(|i| 1.0 + f64::from(vf[i]) * 1e-3).product();
    if (dprod - want_prod).abs() > 1e-12 * want_prod.abs() {
        return Err(format!("dprod = {dprod}, expected {want_prod}"));
    }
    Ok(stats)
}

fn sum64(k: &Kernel) -> Result<Stats, String> {
    let (n, blocks) = (20_000usize, 8u32);
    let mut r = Rng(10);
    let v: Vec<u64> = (0..n).map(|_| r.next()).collect();
    let mut g = Global::new();
    let (pi, pt, pm) = (g.alloc(u64s(&v)), g.alloc(vec![0; 8]), g.alloc(vec![0; 8]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &(n as u64).to_le_bytes())?;
    let stats = launch(k, &mut g, blocks, 256, p.set(2, &pt.to_le_bytes())?.set(3, &pm.to_le_bytes())?)?;
    let threads = blocks as usize * 256;
    let mut mixed = 0u64;
    for t in 0..threads {
        let mut sacc = 0i64;
        for i in (t..n).step_by(threads) {
            let hi = ((u128::from(v[i]) * 0x9E37_79B9_7F4A_7C15u128) >> 64) as u64;
            let s = ((v[i] ^ hi) as i64) >> 7;
            sacc = sacc.wrapping_add(s.wrapping_abs());
            sacc ^= (v[i] << (i & 31)) as i64;
        }
        mixed = mixed.wrapping_add(sacc as u64);
    }
    let total = v.iter().fold(0u64, |a, &x| a.wrapping_add(x));
    let got = [read_u64(&g, pt), read_u64(&g, pm)].concat();
    if got == [total, mixed] {
        Ok(stats)
    } else {
        Err(format!("total, mixed = {got:x?}, expected {:x?}", [total, mixed]))
    }
}

fn intdiv(k: &Kernel) -> Result<Stats, String> {
    let n = 4096 + 3;
    let mut r = Rng(11);
    let a: Vec<i32> = r.randint(i64::from(i32::MIN), i64::from(i32::MAX), n).into_iter().map(|v| v as i32).collect();
    let b: Vec<i32> = r.randint(-70_000, 70_000, n).into_iter().map(|v| v as i32).collect();
    let la: Vec<i64> = (0..n).map(|_| r.next() as i64).collect();
    let lb: Vec<i64> = r.randint(-5_000_000_000, 5_000_000_000, n);
    let mut g = Global::new();
    let (pa, pb) = (g.alloc(i32s(&a)), g.alloc(i32s(&b)));
    let (pla, plb) = (
        g.alloc(u64s(&la.iter().map(|&v| v as u64).collect::<Vec<_>>())),
        g.alloc(u64s(&lb.iter().map(|&v| v as u64).collect::<Vec<_>>())),
    );
    let (pq32, pq64) = (g.alloc(vec![0; 16 * n]), g.alloc(vec![0; 24 * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pla.to_le_bytes())?;
    let p = p.set(3, &plb.to_le_bytes())?.set(4, &pq32.to_le_bytes())?.set(5, &pq64.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p.set(6, &(n as i32).to_le_bytes())?)?;
    let mut w32 = Vec::with_capacity(4 * n);
    let mut w64 = Vec::with_capacity(3 * n);
    for i in 0..n {
        let (x, d) = (a[i], if b[i] == 0 { 1 } else { b[i] });
        let (ux, ud) = (x as u32, d as u32);
        w32.extend([
            x.wrapping_div(d) as u32,
            x.wrapping_rem(d) as u32,
            (ux / ud).wrapping_add(ux % ud),
            (x / 7).wrapping_add(x % 13).wrapping_add((ux / 10) as i32) as u32,
        ]);
        let (y, e) = (la[i], if lb[i] == 0 { 3 } else { lb[i] });
        let (uy, ue) = (y as u64, e as u64);
        w64.extend([y.wrapping_div(e) as u64, y.wrapping_rem(e) as u64, (uy / ue) ^ (uy % 1_000_000_007)]);
    }
    exact("q32", &read_u32(&g, pq32), &w32)?;
    let got64 = read_u64(&g, pq64);
    match got64.iter().zip(&w64).position(|(x, y)| x != y) {
        None => Ok(stats),
        Some(i) => Err(format!("q64[{i}] = {:#x}, expected {:#x}", got64[i], w64[i])),
    }
}

fn nchw_decompose(k: &Kernel) -> Result<Stats, String> {
    let (c, h, w) = (3i32, 20i32, 17i32);
    let total = 2 * c * h * w + 5;
    let mut g = Global::new();
    let po = g.alloc(vec![0; 4 * total as usize]);
    let p = Params::new(k).set(0, &po.to_le_bytes())?.set(1, &total.to_le_bytes())?.set(2, &c.to_le_bytes())?;
    let stats =
        launch(k, &mut g, (total as u32).div_ceil(256), 256, p.set(3, &h.to_le_bytes())?.set(4, &w.to_le_bytes())?)?;
    let want: Vec<u32> = (0..total)
        .map(|idx| {
            let (ww, hh, cc, nn) = (idx % w, (idx / w) % h, (idx / (w * h)) % c, idx / (w * h * c));
            (((nn * 31 + cc) * 17 + hh) * 13 + ww) as u32
        })
        .collect();
    exact("out", &read_u32(&g, po), &want).map(|_| stats)
}

fn transpose(k: &Kernel, tile: [u32; 2], block: [u32; 2]) -> Result<Stats, String> {
    let (width, height) = (100usize, 70usize);
    let x = Rng(12).uniform(-1.0, 1.0, width * height);
    let mut g = Global::new();
    let (pi, po) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * width * height]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &po.to_le_bytes())?;
    let p = p.set(2, &(width as i32).to_le_bytes())?.set(3, &(height as i32).to_le_bytes())?;
    let grid = [(width as u32).div_ceil(tile[0]), (height as u32).div_ceil(tile[1])];
    let stats = launch_2d(k, &mut g, grid, block, p)?;
    let mut want = vec![0u32; width * height];
    for y in 0..height {
        for xx in 0..width {
            want[xx * height + y] = x[y * width + xx].to_bits();
        }
    }
    exact("out", &read_u32(&g, po), &want).map(|_| stats)
}

fn transpose_padded(k: &Kernel) -> Result<Stats, String> {
    transpose(k, [32, 32], [32, 8])
}

fn transpose_naive(k: &Kernel) -> Result<Stats, String> {
    transpose(k, [16, 16], [16, 16])
}

fn bitops(k: &Kernel) -> Result<Stats, String> {
    let n = 2048 + 9;
    let mut r = Rng(13);
    let mut a: Vec<u32> = (0..n).map(|_| r.next() as u32).collect();
    let b: Vec<u32> = (0..n).map(|_| r.next() as u32).collect();
    let mut c: Vec<u64> = (0..n).map(|_| r.next()).collect();
    // Edge cases for clz/ffs/brev.
    a[0] = 0;
    c[0] = 0;
    a[1] = u32::MAX;
    let mut g = Global::new();
    let (pa, pb, pc, po) = (g.alloc(u32s(&a)), g.alloc(u32s(&b)), g.alloc(u64s(&c)), g.alloc(vec![0; 64 * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let stats = launch(
        k,
        &mut g,
        n.div_ceil(256) as u32,
        256,
        p.set(3, &po.to_le_bytes())?.set(4, &(n as i32).to_le_bytes())?,
    )?;
    let mut want = Vec::with_capacity(16 * n);
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let funnel = |s: u32| (((u64::from(y) << 32 | u64::from(x)) << s) >> 32) as u32;
        let bytes = (u64::from(y) << 32 | u64::from(x)).to_le_bytes();
        let perm = (0..4).fold(0u32, |acc, j| acc | u32::from(bytes[(0x5140 >> (4 * j) & 7) as usize]) << (8 * j));
        let (sx, sy) = (i64::from(x as i32), i64::from(y as i32));
        want.extend([
            x.count_ones(),
            z.count_ones(),
            x.leading_zeros(),
            z.leading_zeros(),
            if x == 0 { 0 } else { x.trailing_zeros() + 1 },
            x.reverse_bits(),
            (z.reverse_bits() >> 17) as u32,
            perm,
            funnel(y & 31),
            ((u64::from(y) << 32 | u64::from(x)) >> 13) as u32,
            funnel(y.min(32)),
            x.abs_diff(y).wrapping_add(7),
            ((u64::from(x) * u64::from(y)) >> 32) as u32 ^ ((sx * sy) >> 32) as u32,
            (((sx + sy) >> 1) as u32).wrapping_add(((sx + sy + 1) >> 1) as u32),
            (x >> (y & 15)) & 31,
            (x & !(0xff << 8)) | ((y & 0xff) << 8),
        ]);
    }
    exact("out", &read_u32(&g, po), &want).map(|_| stats)
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vec_loads(k: &Kernel) -> Result<Stats, String> {
    let n4 = 4096 + 7;
    let mut r = Rng(14);
    let (a, b) = (r.uniform(-1.0, 1.0, 4 * n4), r.uniform(-1.0, 1.0, 4 * n4));
    let c: Vec<i32> = r.randint(-100, 100, 2 * n4).into_iter().map(|v| v as i32).collect();
    let d: Vec<u8> = r.randint(0, 256, 4 * n4).into_iter().map(|v| v as u8).collect();
    let mut g = Global::new();
    let (pa, pb, pc, pd) = (g.alloc(f32s(&a)), g.alloc(f32s(&b)), g.alloc(i32s(&c)), g.alloc(d.clone()));
    let (p4, p1) = (g.alloc(vec![0; 16 * n4]), g.alloc(vec![0; 4 * n4]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let p = p.set(3, &pd.to_le_bytes())?.set(4, &p4.to_le_bytes())?.set(5, &p1.to_le_bytes())?;
    let stats = launch(k, &mut g, n4.div_ceil(256) as u32, 256, p.set(6, &(n4 as i32).to_le_bytes())?)?;
    let (mut w4, mut w1) = (Vec::new(), Vec::new());
    for i in 0..n4 {
        let r4 = [
            a[4 * i].mul_add(b[4 * i], c[2 * i] as f32),
            a[4 * i + 1].mul_add(b[4 * i + 1], c[2 * i + 1] as f32),
            a[4 * i + 2].mul_add(b[4 * i + 2], f32::from(d[4 * i])),
            a[4 * i + 3].mul_add(
                b[4 * i + 3],
                (u32::from(d[4 * i + 1]) + u32::from(d[4 * i + 2]) + u32::from(d[4 * i + 3])) as f32,
            ),
        ];
        w1.push(f64::from(r4[0] + r4[1] + r4[2] + r4[3]));
        w4.extend(r4.map(f64::from));
    }
    let as_f64 = |v: Vec<u32>| v.into_iter().map(|b| f64::from(f32::from_bits(b))).collect::<Vec<_>>();
    close("out4", &as_f64(read_u32(&g, p4)), &w4, 1e-6)?;
    close("out1", &as_f64(read_u32(&g, p1)), &w1, 1e-6).map(|_| stats)
}

fn axpy_f32(k: &Kernel) -> Result<Stats, String> {
    let n = 8192 + 3;
    let mut r = Rng(15);
    let (x, y) = (r.uniform(-1.0, 1.0, n), r.uniform(-1.0, 1.0, n));
    let mut g = Global::new();
    let (px, py) = (g.alloc(f32s(&x)), g.alloc(f32s(&y)));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &1.5f32.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(4 * 256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u32> = (0..n).map(|i| 1.5f32.mul_add(x[i], y[i]).to_bits()).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

fn axpy_f64(k: &Kernel) -> Result<Stats, String> {
    let n = 8192 + 3;
    let mut r = Rng(16);
    let x: Vec<f64> = r.uniform(-1.0, 1.0, n).into_iter().map(f64::from).collect();
    let y: Vec<f64> = r.uniform(-1.0, 1.0, n).into_iter().map(|v| f64::from(v) / 3.0).collect();
    let mut g = Global::new();
    let (px, py) = (
        g.alloc(u64s(&x.iter().map(|v| v.to_bits()).collect::<Vec<_>>())),
        g.alloc(u64s(&y.iter().map(|v| v.to_bits()).collect::<Vec<_>>())),
    );
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &(-0.75f64).to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(2 * 256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u64> = (0..n).map(|i| (-0.75f64).mul_add(x[i], y[i]).to_bits()).collect();
    let got = read_u64(&g, py);
    match got.iter().zip(&want).position(|(a, b)| a != b) {
        None => Ok(stats),
        Some(i) => Err(format!("y[{i}] = {:#x}, expected {:#x}", got[i], want[i])),
    }
}

fn axpy_i32(k: &Kernel) -> Result<Stats, String> {
    let n = 8192 + 3;
    let mut r = Rng(17);
    let x: Vec<i32> = r.randint(-1000, 1000, n).into_iter().map(|v| v as i32).collect();
    let y: Vec<i32> = r.randint(-1000, 1000, n).into_iter().map(|v| v as i32).collect();
    let mut g = Global::new();
    let (px, py) = (g.alloc(i32s(&x)), g.alloc(i32s(&y)));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &7i32.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u32> = (0..n).map(|i| (7 * x[i] + y[i]) as u32).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

fn apply_functor(k: &Kernel) -> Result<Stats, String> {
    let n = 8192 + 3;
    let x = Rng(18).uniform(-1.0, 1.0, n);
    let mut g = Global::new();
    let (px, py) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * n]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &3f32.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u32> = x.iter().map(|&v| v.mul_add(3.0, 1.0).to_bits()).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

fn scan_block(k: &Kernel) -> Result<Stats, String> {
    let (blocks, n) = (4usize, 4 * 1024 - 100);
    let x: Vec<i32> = Rng(19).randint(0, 100, n).into_iter().map(|v| v as i32).collect();
    let mut g = Global::new();
    let (pi, po, pt) = (g.alloc(i32s(&x)), g.alloc(vec![0; 4 * n]), g.alloc(vec![0; 4 * blocks]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &po.to_le_bytes())?.set(2, &pt.to_le_bytes())?;
    let stats = launch(k, &mut g, blocks as u32, 512, p.set(3, &(n as i32).to_le_bytes())?)?;
    let (mut out, mut totals) = (Vec::new(), Vec::new());
    for b in 0..blocks {
        let mut sum = 0i32;
        for j in 0..1024 {
            if b * 1024 + j < n {
                out.push(sum as u32);
                sum += x[b * 1024 + j];
            }
        }
        totals.push(sum as u32);
    }
    exact("out", &read_u32(&g, po), &out)?;
    exact("block_totals", &read_u32(&g, pt), &totals).map(|_| stats)
}

fn scan_add_offsets(k: &Kernel) -> Result<Stats, String> {
    let (blocks, n) = (4usize, 4 * 1024 - 100);
    let mut r = Rng(20);
    let data: Vec<i32> = r.randint(0, 100, n).into_iter().map(|v| v as i32).collect();
    let offsets: Vec<i32> = r.randint(0, 1000, blocks).into_iter().map(|v| v as i32).collect();
    let mut g = Global::new();
    let (pd, po) = (g.alloc(i32s(&data)), g.alloc(i32s(&offsets)));
    let p = Params::new(k).set(0, &pd.to_le_bytes())?.set(1, &po.to_le_bytes())?;
    let stats = launch(k, &mut g, blocks as u32, 512, p.set(2, &(n as i32).to_le_bytes())?)?;
    let want: Vec<u32> = (0..n).map(|i| (data[i] + offsets[i / 1024]) as u32).collect();
    exact("data", &read_u32(&g, pd), &want).map(|_| stats)
}

fn sgemm_tiled(k: &Kernel) -> Result<Stats, String> {
    let (m, n, kk) = (40usize, 50usize, 37usize);
    let (alpha, beta) = (1.25f32, -0.5f32);
    let mut r = Rng(21);
    let (a, b, c) = (r.uniform(-1.0, 1.0, m * kk), r.uniform(-1.0, 1.0, kk * n), r.uniform(-1.0, 1.0, m * n));
    let mut g = Global::new();
    let (pa, pb, pc) = (g.alloc(f32s(&a)), g.alloc(f32s(&b)), g.alloc(f32s(&c)));
    let p = Params::new(k).set(0, &(m as i32).to_le_bytes())?.set(1, &(n as i32).to_le_bytes())?;
    let p = p.set(2, &(kk as i32).to_le_bytes())?.set(3, &alpha.to_le_bytes())?.set(4, &pa.to_le_bytes())?;
    let p = p.set(5, &pb.to_le_bytes())?.set(6, &beta.to_le_bytes())?.set(7, &pc.to_le_bytes())?;
    let stats = launch_2d(k, &mut g, [n.div_ceil(16) as u32, m.div_ceil(16) as u32], [16, 16], p)?;
    let mut want = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..kk).map(|t| f64::from(a[i * kk + t]) * f64::from(b[t * n + j])).sum();
            want.push(f64::from(alpha) * dot + f64::from(beta) * f64::from(c[i * n + j]));
        }
    }
    let got: Vec<f64> = read_u32(&g, pc).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("C", &got, &want, 1e-5).map(|_| stats)
}

fn jacobi5(k: &Kernel) -> Result<Stats, String> {
    let (nx, ny) = (50usize, 45usize);
    let (wc, ws) = (0.2f32, 0.2f32);
    let x = Rng(22).uniform(0.0, 1.0, nx * ny);
    let mut g = Global::new();
    let (pi, po) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * nx * ny]));
    let p = Params::new(k).set(0, &pi.to_le_bytes())?.set(1, &po.to_le_bytes())?;
    let p = p.set(2, &(nx as i32).to_le_bytes())?.set(3, &(ny as i32).to_le_bytes())?;
    let p = p.set(4, &wc.to_le_bytes())?.set(5, &ws.to_le_bytes())?;
    let stats = launch_2d(k, &mut g, [nx.div_ceil(32) as u32, ny.div_ceil(8) as u32], [32, 8], p)?;
    let at = |xx: usize, yy: usize| x[yy * nx + xx];
    let mut want = Vec::with_capacity(nx * ny);
    for yy in 0..ny {
        for xx in 0..nx {
            let c = at(xx, yy);
            want.push(f64::from(if xx == 0 || yy == 0 || xx == nx - 1 || yy == ny - 1 {
                c
            } else {
                let s = at(xx - 1, yy) + at(xx + 1, yy) + at(xx, yy - 1) + at(xx, yy + 1);
                wc * c + ws * s
            }));
        }
    }
    let got: Vec<f64> = read_u32(&g, po).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("out", &got, &want, 1e-6).map(|_| stats)
}

fn local_array(k: &Kernel) -> Result<Stats, String> {
    let (n, salt) = (2048 + 11, 12345i32);
    let mut r = Rng(23);
    let keys: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
    let x = r.uniform(-1.0, 1.0, n);
    let mut g = Global::new();
    let (pk, px, po) = (g.alloc(i32s(&keys)), g.alloc(f32s(&x)), g.alloc(vec![0; 8 * n]));
    let p = Params::new(k).set(0, &pk.to_le_bytes())?.set(1, &px.to_le_bytes())?.set(2, &po.to_le_bytes())?;
    let p = p.set(3, &(n as i32).to_le_bytes())?.set(4, &salt.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p)?;
    let lut: Vec<i32> =
        (0..64u32).map(|kk| (kk.wrapping_mul(2_654_435_761).wrapping_add(salt as u32) >> 7) as i32).collect();
    let mut want = Vec::with_capacity(2 * n);
    for i in 0..n {
        let (mut key, mut acc) = (keys[i], 0i32);
        for rr in 0..8 {
            acc = acc.wrapping_add(lut[((key >> (rr * 4)) & 63) as usize]);
            key = key.wrapping_mul(1_103_515_245).wrapping_add(12345);
        }
        let mut w: Vec<f32> = (0..9).map(|kk| x[(i as i64 + kk - 4).clamp(0, n as i64 - 1) as usize]).collect();
        w.sort_by(|a, b| a.total_cmp(b));
        want.extend([w[4].to_bits(), ((acc & 0xffff) as f32).to_bits()]);
    }
    exact("out", &read_u32(&g, po), &want).map(|_| stats)
}

fn block_sort_kv(k: &Kernel) -> Result<Stats, String> {
    let (blocks, nb) = (4usize, 512usize);
    let mut r = Rng(24);
    let keys: Vec<u32> = (0..blocks * nb).map(|_| r.next() as u32).collect();
    let vals = r.uniform(-1.0, 1.0, blocks * nb);
    let mut g = Global::new();
    let (pk, pv) = (g.alloc(u32s(&keys)), g.alloc(f32s(&vals)));
    let (pko, pvo) = (g.alloc(vec![0; 4 * blocks * nb]), g.alloc(vec![0; 4 * blocks * nb]));
    let p = Params::new(k).set(0, &pk.to_le_bytes())?.set(1, &pv.to_le_bytes())?;
    let p = p.set(2, &pko.to_le_bytes())?.set(3, &pvo.to_le_bytes())?;
    let mut l = Launch::new([blocks as u32, 1, 1], [nb as u32, 1, 1], p.bytes);
    l.dyn_shared = 8 * nb as u32;
    let stats = crate::run_kernel(k, &l, &mut g).map_err(|e| e.to_string())?;
    let (mut wk, mut wv) = (Vec::new(), Vec::new());
    for b in 0..blocks {
        let mut pairs: Vec<(u32, u32)> = (b * nb..(b + 1) * nb).map(|i| (keys[i], vals[i].to_bits())).collect();
        pairs.sort();
        wk.extend(pairs.iter().map(|p| p.0));
        wv.extend(pairs.iter().map(|p| p.1));
    }
    exact("keys_out", &read_u32(&g, pko), &wk)?;
    exact("vals_out", &read_u32(&g, pvo), &wv).map(|_| stats)
}

fn warp_vote(k: &Kernel) -> Result<Stats, String> {
    let n = 1000usize;
    let mut r = Rng(25);
    let keys: Vec<i32> = r.randint(0, 20, n).into_iter().map(|v| v as i32).collect();
    let vals: Vec<i32> = r.randint(-3, 50, n).into_iter().map(|v| v as i32).collect();
    let mut g = Global::new();
    let (pk, pv, po, pc) =
        (g.alloc(i32s(&keys)), g.alloc(i32s(&vals)), g.alloc(vec![0; 16 * n]), g.alloc(vec![0; 256]));
    let p = Params::new(k).set(0, &pk.to_le_bytes())?.set(1, &pv.to_le_bytes())?.set(2, &po.to_le_bytes())?;
    let blocks = n.div_ceil(256);
    let stats = launch(k, &mut g, blocks as u32, 256, p.set(3, &pc.to_le_bytes())?.set(4, &(n as i32).to_le_bytes())?)?;
    let (mut out, mut counters) = (Vec::new(), [0i32; 64]);
    for w in 0..blocks * 8 {
        let idx = |l: usize| w * 32 + l;
        let key = |l: usize| if idx(l) < n { keys[idx(l)] } else { -1 };
        let val = |l: usize| if idx(l) < n { vals[idx(l)] } else { 0 };
        let ball = (0..32).filter(|&l| val(l) > 0).fold(0u32, |m, l| m | 1 << l);
        let any_neg = (0..32).any(|l| val(l) < 0);
        let all_pos = (0..32).all(|l| val(l) > 0);
        let all_same = (0..32).all(|l| key(l) & !7 == key(0) & !7);
        for l in 0..32 {
            if idx(l) >= n {
                continue;
            }
            let same = (0..32).filter(|&o| key(o) == key(l)).fold(0u32, |m, o| m | 1 << o);
            if key(l) >= 0 && l == same.trailing_zeros() as usize {
                counters[(key(l) & 63) as usize] += same.count_ones() as i32;
            }
            let scan: i32 = (0..=l).map(val).sum();
            out.extend([
                ball,
                (i32::from(any_neg) * 2 + i32::from(all_pos) + 4 * i32::from(all_same)) as u32,
                scan as u32,
                (val(0) + (same & ((1u32 << l) - 1)).count_ones() as i32) as u32,
            ]);
        }
    }
    exact("out", &read_u32(&g, po), &out)?;
    exact("counters", &read_u32(&g, pc), &counters.map(|c| c as u32)).map(|_| stats)
}

fn softmax_rows(k: &Kernel) -> Result<Stats, String> {
    let (rows, cols) = (13usize, 1000usize);
    let x = Rng(26).uniform(-8.0, 8.0, rows * cols);
    let mut g = Global::new();
    let (px, py) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * rows * cols]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?;
    let p = p.set(2, &(rows as i32).to_le_bytes())?.set(3, &(cols as i32).to_le_bytes())?;
    let stats = launch(k, &mut g, rows.div_ceil(8) as u32, 256, p)?;
    let mut want = Vec::with_capacity(rows * cols);
    for row in x.chunks(cols) {
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v));
        let s: f64 = row.iter().map(|&v| f64::from(v - m).exp()).sum();
        want.extend(row.iter().map(|&v| f64::from(v - m).exp() / s));
    }
    let got: Vec<f64> = read_u32(&g, py).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    // float(1e-5), relative to each element (the values are far below 1).
    match got.iter().zip(&want).position(|(a, b)| (a - b).abs() > 1e-5 * b.abs()) {
        None => Ok(stats),
        Some(i) => Err(format!("y[{i}] = {}, expected {}", got[i], want[i])),
    }
}

fn layernorm_rows(k: &Kernel) -> Result<Stats, String> {
    let (rows, cols, eps) = (6usize, 768usize, 1e-5f32);
    let mut r = Rng(27);
    let x = r.uniform(-2.0, 2.0, rows * cols);
    let (gamma, beta) = (r.uniform(0.5, 1.5, cols), r.uniform(-0.1, 0.1, cols));
    let mut g = Global::new();
    let (px, pg, pb) = (g.alloc(f32s(&x)), g.alloc(f32s(&gamma)), g.alloc(f32s(&beta)));
    let (py, pm, pr) = (g.alloc(vec![0; 4 * rows * cols]), g.alloc(vec![0; 4 * rows]), g.alloc(vec![0; 4 * rows]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &pg.to_le_bytes())?.set(2, &pb.to_le_bytes())?;
    let p = p.set(3, &py.to_le_bytes())?.set(4, &pm.to_le_bytes())?.set(5, &pr.to_le_bytes())?;
    let p = p.set(6, &(cols as i32).to_le_bytes())?.set(7, &eps.to_le_bytes())?;
    let stats = launch(k, &mut g, rows as u32, 256, p)?;
    let (mut wy, mut wm, mut wr) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(cols) {
        let mean = row.iter().map(|&v| f64::from(v)).sum::<f64>() / cols as f64;
        let var = row.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + f64::from(eps)).sqrt();
        wy.extend(
            row.iter()
                .enumerate()
                .map(|(c, &v)| (f64::from(v) - mean) * rstd * f64::from(gamma[c]) + f64::from(beta[c])),
        );
        wm.push(mean);
        wr.push(rstd);
    }
    let f = |v: Vec<u32>| v.into_iter().map(|b| f64::from(f32::from_bits(b))).collect::<Vec<_>>();
    close("mean_out", &f(read_u32(&g, pm)), &wm, 1e-5)?;
    close("rstd_out", &f(read_u32(&g, pr)), &wr, 1e-5)?;
    close("y", &f(read_u32(&g, py)), &wy, 1e-5).map(|_| stats)
}

fn poly_fir(k: &Kernel) -> Result<Stats, String> {
    let n = 2048 + 5;
    let x = Rng(28).uniform(-1.0, 1.0, n);
    let (bank, at) = k.constant_symbol("c_taps").ok_or("no __constant__ c_taps in the cubin")?;
    let taps: Vec<f32> = (0..16).map(|t| 1.0 / (t as f32 + 1.0)).collect();
    let mut consts = k.banks.iter().find(|b| b.0 == bank).map(|b| b.1.clone()).unwrap_or_default();
    let at = at as usize;
    consts.resize(consts.len().max(at + 64), 0);
    consts[at..at + 64].copy_from_slice(&f32s(&taps));
    let mut g = Global::new();
    let (px, py, pp) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * n]), g.alloc(vec![0; 4 * n]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &pp.to_le_bytes())?;
    let p = p.set(3, &(n as i32).to_le_bytes())?;
    let mut l = Launch::new([n.div_ceil(256) as u32, 1, 1], [256, 1, 1], p.bytes);
    l.banks.push((bank, consts));
    let stats = crate::run_kernel(k, &l, &mut g).map_err(|e| e.to_string())?;
    let coef: [f32; 12] = [
        1.0,
        -0.5,
        0.25,
        -0.125,
        0.0625,
        -0.03125,
        0.015625,
        -0.0078125,
        0.00390625,
        -0.001953125,
        0.0009765625,
        -0.00048828125,
    ];
    let (mut wp, mut wy) = (Vec::new(), Vec::new());
    for i in 0..n {
        wp.push(f64::from((0..11).rev().fold(coef[11], |acc, c| acc.mul_add(x[i], coef[c]))));
        wy.push(f64::from((0..16).fold(0f32, |s, t| if i >= t { taps[t].mul_add(x[i - t], s) } else { s })));
    }
    let f = |v: Vec<u32>| v.into_iter().map(|b| f64::from(f32::from_bits(b))).collect::<Vec<_>>();
    close("p", &f(read_u32(&g, pp)), &wp, 1e-6)?;
    close("y", &f(read_u32(&g, py)), &wy, 1e-6).map(|_| stats)
}

fn dot_unroll4(k: &Kernel) -> Result<Stats, String> {
    let (n, blocks) = (10_000 + 7, 4usize);
    let mut r = Rng(29);
    let (a, b) = (r.uniform(-1.0, 1.0, n), r.uniform(-1.0, 1.0, n));
    let threads = blocks * 256;
    let mut g = Global::new();
    let (pa, pb, pp) = (g.alloc(f32s(&a)), g.alloc(f32s(&b)), g.alloc(vec![0; 4 * threads]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pp.to_le_bytes())?;
    let stats = launch(k, &mut g, blocks as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    let s: Vec<f32> = (0..threads).map(|t| (t..n).step_by(threads).fold(0f32, |s, i| a[i].mul_add(b[i], s))).collect();
    let want: Vec<f64> =
        (0..threads).map(|t| f64::from(s[t] + (0..3).fold(0f32, |acc, kk| acc + s[t ^ (1 << kk)]))).collect();
    let got: Vec<f64> = read_u32(&g, pp).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("partial", &got, &want, 1e-6).map(|_| stats)
}

fn math_float(k: &Kernel) -> Result<Stats, String> {
    let n = 2048 + 3;
    let mut r = Rng(30);
    let (x, y) = (r.uniform(-10.0, 10.0, n), r.uniform(-3.0, 3.0, n));
    let mut g = Global::new();
    let (px, py, po) = (g.alloc(f32s(&x)), g.alloc(f32s(&y)), g.alloc(vec![0; 64 * n]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &po.to_le_bytes())?;
    let stats = launch(k, &mut g, n.div_ceil(256) as u32, 256, p.set(3, &(n as i32).to_le_bytes())?)?;
    // f32 operations of the source are done in f32, the functions in f64.
    let d = f64::from;
    let mut want = Vec::with_capacity(16 * n);
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        want.extend([
            d(a).exp(),
            d(a.abs() + 1e-3).ln(),
            d(a).sin(),
            d(b).cos(),
            d(a * 0.25).tan(),
            d(b.abs()).sqrt(),
            1.0 / d(a.abs() + 1.0).sqrt(),
            d(a.abs() + 0.5).powf(d(b)),
            d(a).atan2(d(b)),
            erf(d(a)),
            d(b).tanh(),
            d(a).cbrt(),
            d(a * 10.0) % d(b + 3.5),
            d(a) / d(b + 4.0),
            d(a).exp() + d(b.abs() + 1.0).ln(),
            d(a).sin() * d(b).cos() + d(a) / d(b),
        ]);
    }
    let got: Vec<f64> = read_u32(&g, po).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    // float(1e-6) of the manifest, relative above 1 and absolute below:
    // CUDA's bounds are a few ulp (more for the __ intrinsics).
    close("out", &got, &want, 1e-6).map(|_| stats)
}

/// `C[m][n] = sum_k A[m][k] * Bt[n][k]` of binary16 inputs `uniform(-1,
/// 1)`, in f64: both tensor-core kernels take B as N rows of K.
fn half_gemm(m: usize, n: usize, kk: usize, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<f64>) {
    let mut r = Rng(seed);
    let to_half =
        |v: Vec<f32>| -> Vec<u16> { v.into_iter().map(|x| crate::sem::half::from_f64(f64::from(x))).collect() };
    let (a, bt) = (to_half(r.uniform(-1.0, 1.0, m * kk)), to_half(r.uniform(-1.0, 1.0, n * kk)));
    let val = |h: u16| f64::from(crate::sem::half::to_f32(h));
    let mut want = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            want.push((0..kk).map(|t| val(a[i * kk + t]) * val(bt[j * kk + t])).sum());
        }
    }
    let bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    (bytes(&a), bytes(&bt), want)
}

/// wmma_gemm: one warp per 16x16 tile, 2x2 warps per block. K = 80 runs
/// the 4-times unrolled loop once and its remainder loop once; the extra
/// column of blocks has every warp take the early exit.
fn wmma_gemm(k: &Kernel) -> Result<Stats, String> {
    let (m, n, kk) = (64usize, 32usize, 80usize);
    let (a, b, want) = half_gemm(m, n, kk, 31);
    let mut g = Global::new();
    let (pa, pb, pc) = (g.alloc(a), g.alloc(b), g.alloc(vec![0; 4 * m * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let p =
        p.set(3, &(m as i32).to_le_bytes())?.set(4, &(n as i32).to_le_bytes())?.set(5, &(kk as i32).to_le_bytes())?;
    let stats = launch_2d(k, &mut g, [(n / 32 + 1) as u32, (m / 32) as u32], [128, 1], p)?;
    let got: Vec<f64> = read_u32(&g, pc).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("C", &got, &want, 1e-5).map(|_| stats)
}

/// mma_ldmatrix: 16x32 tiles per block of 4 warps; K = 80 as for
/// wmma_gemm.
fn mma_m16n8k16(k: &Kernel) -> Result<Stats, String> {
    let (m, n, kk) = (32usize, 64usize, 80usize);
    let (a, bt, want) = half_gemm(m, n, kk, 32);
    let mut g = Global::new();
    let (pa, pb, pc) = (g.alloc(a), g.alloc(bt), g.alloc(vec![0; 4 * m * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let p =
        p.set(3, &(m as i32).to_le_bytes())?.set(4, &(n as i32).to_le_bytes())?.set(5, &(kk as i32).to_le_bytes())?;
    let stats = launch_2d(k, &mut g, [(n / 32) as u32, (m / 16) as u32], [128, 1], p)?;
    let got: Vec<f64> = read_u32(&g, pc).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("C", &got, &want, 1e-5).map(|_| stats)
}

/// wgmma_m64n8k16: one warpgroup per 64x8 tile, K in steps of 16 through
/// shared memory. 2 x 3 tiles, K = 48: three HGMMAs accumulate per tile.
fn wgmma_gemm_64x8(k: &Kernel) -> Result<Stats, String> {
    let (m, n, kk) = (128usize, 24usize, 48usize);
    let (a, bt, want) = half_gemm(m, n, kk, 33);
    let mut g = Global::new();
    let (pa, pb, pc) = (g.alloc(a), g.alloc(bt), g.alloc(vec![0; 4 * m * n]));
    let p = Params::new(k).set(0, &pa.to_le_bytes())?.set(1, &pb.to_le_bytes())?.set(2, &pc.to_le_bytes())?;
    let p =
        p.set(3, &(m as i32).to_le_bytes())?.set(4, &(n as i32).to_le_bytes())?.set(5, &(kk as i32).to_le_bytes())?;
    let stats = launch_2d(k, &mut g, [(n / 8) as u32, (m / 64) as u32], [128, 1], p)?;
    let got: Vec<f64> = read_u32(&g, pc).into_iter().map(|v| f64::from(f32::from_bits(v))).collect();
    close("C", &got, &want, 1e-5).map(|_| stats)
}

/// The error function (Abramowitz-Stegun 7.1.26 is too coarse; this is the
/// series / continued fraction pair, accurate to f64 rounding).
fn erf(x: f64) -> f64 {
    if x.abs() < 2.5 {
        // Maclaurin series: erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let (mut term, mut sum) = (x, x);
        for n in 1..60 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // Continued fraction for erfc, evaluated backwards.
        let ax = x.abs();
        let mut f = 0.0;
        for k in (1..60).rev() {
            f = k as f64 / 2.0 / (ax + f);
        }
        let erfc = (-ax * ax).exp() / std::f64::consts::PI.sqrt() / (ax + f);
        (1.0 - erfc).copysign(x)
    }
}

/// Chunks of 1024 floats streamed through shared memory by `cp.async`
/// (LDGSTS), double-buffered: 4 CTAs over 12 chunks, so every CTA runs the
/// steady state with a copy in flight during each convolution.
fn conv1d_cp_async(k: &Kernel) -> Result<Stats, String> {
    let nchunks = 12;
    let mut r = Rng(40);
    let x = r.uniform(-1.0, 1.0, nchunks * 1024 + 8);
    let w = r.uniform(-1.0, 1.0, 7);
    let mut g = Global::new();
    let (px, pw, py) = (g.alloc(f32s(&x)), g.alloc(f32s(&w)), g.alloc(vec![0; 4 * nchunks * 1024]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &pw.to_le_bytes())?.set(2, &py.to_le_bytes())?;
    let stats = launch(k, &mut g, 4, 256, p.set(3, &(nchunks as i32).to_le_bytes())?)?;
    let want: Vec<u32> =
        (0..nchunks * 1024).map(|i| (0..7).fold(0f32, |s, t| w[t].mul_add(x[i + t], s)).to_bits()).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

/// 4096-float tiles brought into shared memory by a bulk copy that
/// completes on an mbarrier, scaled, and written back by a bulk copy: 4 CTAs
/// over 6 tiles (two CTAs take a second tile, the mbarrier's second phase).
fn bulk_scale(k: &Kernel) -> Result<Stats, String> {
    let ntiles = 6;
    let x = Rng(41).uniform(-1.0, 1.0, ntiles * 4096);
    let mut g = Global::new();
    let (px, py) = (g.alloc(f32s(&x)), g.alloc(vec![0; 4 * ntiles * 4096]));
    let p = Params::new(k).set(0, &px.to_le_bytes())?.set(1, &py.to_le_bytes())?.set(2, &3f32.to_le_bytes())?;
    let stats = launch(k, &mut g, 4, 256, p.set(3, &(ntiles as i32).to_le_bytes())?)?;
    let want: Vec<u32> = x.iter().map(|v| 3f32.mul_add(*v, 1.0).to_bits()).collect();
    exact("y", &read_u32(&g, py), &want).map(|_| stats)
}

/// Per-cluster histograms (clusters of two CTAs from `.reqnctapercluster`):
/// rank 0 adds the bins of rank 1 read through distributed shared memory.
fn cluster_hist(k: &Kernel) -> Result<Stats, String> {
    let (clusters, per_cluster) = (3, 3000);
    let data: Vec<u8> = Rng(42).randint(0, 256, clusters * per_cluster).into_iter().map(|v| v as u8).collect();
    let mut g = Global::new();
    let (pd, ph) = (g.alloc(data.clone()), g.alloc(vec![0; 4 * 64 * clusters]));
    let p = Params::new(k).set(0, &pd.to_le_bytes())?.set(1, &(per_cluster as i32).to_le_bytes())?;
    let stats = launch(k, &mut g, 2 * clusters as u32, 256, p.set(2, &ph.to_le_bytes())?)?;
    let mut want = vec![0u32; 64 * clusters];
    for (i, b) in data.iter().enumerate() {
        want[i / per_cluster * 64 + usize::from(b & 63)] += 1;
    }
    exact("hist_out", &read_u32(&g, ph), &want).map(|_| stats)
}
