//! `difftest --manifest`: every launch of a corpus manifest, its inputs
//! built from the argument mini-language (`corpus/README.md`), run on
//! NVIDIA's cubin and on ours with the same inputs, outputs compared by the
//! launch's `compare` mode. Without a cubin of ours, NVIDIA's must still
//! run to completion (no fault, no unmodelled instruction).

use std::path::{Path, PathBuf};
use std::time::Instant;

use ori_interp::{Global, Kernel, Launch};
use ori_ir::Function;

use super::phases;

/// An element type of the mini-language.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
}

impl Ty {
    pub(crate) fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "u8" => Ty::U8,
            "i8" => Ty::I8,
            "u16" => Ty::U16,
            "i16" => Ty::I16,
            "u32" => Ty::U32,
            "i32" => Ty::I32,
            "u64" => Ty::U64,
            "i64" => Ty::I64,
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    pub(crate) fn size(self) -> usize {
        match self {
            Ty::U8 | Ty::I8 => 1,
            Ty::U16 | Ty::I16 | Ty::F16 | Ty::Bf16 => 2,
            Ty::U32 | Ty::I32 | Ty::F32 => 4,
            Ty::U64 | Ty::I64 | Ty::F64 => 8,
        }
    }

    pub(crate) fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64)
    }

    /// The bytes of `v` (integers wrap to the width; floats round).
    pub(crate) fn encode(self, v: f64, int: i128) -> Vec<u8> {
        let n = self.size();
        match self {
            Ty::F16 => ori_interp::sem::half::from_f64(v).to_le_bytes().to_vec(),
            Ty::Bf16 => {
                let b = (v as f32).to_bits();
                (((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16).to_le_bytes().to_vec()
            }
            Ty::F32 => (v as f32).to_le_bytes().to_vec(),
            Ty::F64 => v.to_le_bytes().to_vec(),
            _ => int.to_le_bytes()[..n].to_vec(),
        }
    }

    /// Element `bytes` as f64 (for tolerances).
    pub(crate) fn decode_float(self, b: &[u8]) -> f64 {
        match self {
            Ty::F16 => f64::from(ori_interp::sem::half::to_f32(u16::from_le_bytes([b[0], b[1]]))),
            Ty::Bf16 => f64::from(f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16)),
            Ty::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => f64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        }
    }
}

/// How a buffer starts.
#[derive(Clone, Debug)]
pub(crate) enum Init {
    Zeros,
    Iota,
    Const(f64, i128),
    Uniform(f64, f64),
    Randint(i128, i128),
    Custom,
}

/// One kernel argument.
#[derive(Clone, Debug)]
pub(crate) enum Arg {
    Buffer {
        name: String,
        ty: Ty,
        count: usize,
        output: bool,
        init: Init,
    },
    Scalar {
        ty: Ty,
        value: f64,
        int: i128,
    },
    /// A by-value struct (always `custom` in the corpus).
    Struct,
}

fn number(s: &str) -> Result<(f64, i128), String> {
    let s = s.trim();
    let int = s.parse::<i128>().ok();
    let f = s.parse::<f64>().map_err(|_| format!("bad number `{s}`"))?;
    Ok((f, int.unwrap_or(f as i128)))
}

fn parse_arg(s: &str) -> Result<Arg, String> {
    let (name, rest) = s.split_once(':').ok_or_else(|| format!("argument `{s}` has no type"))?;
    let rest = rest.trim();
    if rest.starts_with("struct(") {
        return Ok(Arg::Struct);
    }
    if let Some((ty, value)) = rest.split_once('=').filter(|_| !rest.contains('[')) {
        let ty = Ty::parse(ty.trim()).ok_or_else(|| format!("bad type in `{s}`"))?;
        let (value, int) = number(value)?;
        return Ok(Arg::Scalar { ty, value, int });
    }
    let (ty, rest) = rest.split_once('[').ok_or_else(|| format!("bad argument `{s}`"))?;
    let (count, rest) = rest.split_once(']').ok_or_else(|| format!("bad argument `{s}`"))?;
    let ty = Ty::parse(ty.trim()).ok_or_else(|| format!("bad type in `{s}`"))?;
    let count = count.trim().parse().map_err(|_| format!("bad count in `{s}`"))?;
    let mut words = rest.split_whitespace();
    let dir = words.next().unwrap_or("");
    let init: String = words.collect();
    let inner =
        |p: &str| init.strip_prefix(p).and_then(|r| r.strip_suffix(')')).map(|r| r.split(',').collect::<Vec<_>>());
    let init = if init == "zeros" {
        Init::Zeros
    } else if init == "iota" {
        Init::Iota
    } else if init == "custom" {
        Init::Custom
    } else if let Some(v) = inner("const(") {
        let (f, i) = number(v[0])?;
        Init::Const(f, i)
    } else if let Some(v) = inner("uniform(").filter(|v| v.len() == 2) {
        Init::Uniform(number(v[0])?.0, number(v[1])?.0)
    } else if let Some(v) = inner("randint(").filter(|v| v.len() == 2) {
        Init::Randint(number(v[0])?.1, number(v[1])?.1)
    } else {
        return Err(format!("bad initialiser in `{s}`"));
    };
    Ok(Arg::Buffer { name: name.trim().to_string(), ty, count, output: dir != "in", init })
}

/// How the two cubins' outputs must agree.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Compare {
    Exact,
    Float(f64),
    Set,
    Stdout,
}

pub(crate) fn parse_compare(s: &str) -> Result<Compare, String> {
    Ok(match s {
        "exact" => Compare::Exact,
        "set" => Compare::Set,
        "stdout" => Compare::Stdout,
        _ => Compare::Float(
            s.strip_prefix("float(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|r| r.parse().ok())
                .ok_or_else(|| format!("bad compare `{s}`"))?,
        ),
    })
}

/// One launch of the manifest.
pub(crate) struct Case {
    /// The `[[kernel]]`'s name (its PTX files' stem).
    pub kernel: String,
    /// The folder of its PTX files, relative to the manifest.
    pub ptx_dir: String,
    /// `sm_80`, `sm_90`, `sm_90a`: the PTX files there are.
    pub archs: Vec<String>,
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub shared: u32,
    pub args: Vec<Arg>,
    /// The `compare` text, as written (for job files).
    pub compare_text: String,
    pub compare: Compare,
}

impl Case {
    /// Why the launch cannot be built from the manifest alone, if it cannot.
    pub(crate) fn skip_reason(&self) -> Option<&'static str> {
        if self.args.iter().any(|a| matches!(a, Arg::Struct | Arg::Buffer { init: Init::Custom, .. })) {
            Some("custom inputs")
        } else if matches!(self.compare, Compare::Stdout) {
            Some("printf output")
        } else {
            None
        }
    }

    /// The PTX file for `arch`.
    pub(crate) fn ptx(&self, root: &Path, arch: &str) -> PathBuf {
        root.join(&self.ptx_dir).join(format!("{}.{}.ptx", self.kernel, arch.replace('_', "")))
    }
}

fn dims(v: Option<&toml::Value>) -> Result<[u32; 3], String> {
    let a = v.and_then(|v| v.as_array()).ok_or("a launch needs grid and block")?;
    let mut d = [1u32; 3];
    for (k, x) in a.iter().take(3).enumerate() {
        d[k] = x.as_integer().and_then(|i| u32::try_from(i).ok()).ok_or("bad dimension")?;
    }
    Ok(d)
}

pub(crate) fn parse_manifest(text: &str) -> Result<Vec<Case>, String> {
    let doc: toml::Table = text.parse().map_err(|e| format!("manifest: {e}"))?;
    let mut cases = Vec::new();
    let kernels = doc.get("kernel").and_then(|k| k.as_array()).ok_or("manifest has no [[kernel]]")?;
    for k in kernels {
        let name = k.get("name").and_then(|v| v.as_str()).ok_or("a kernel without a name")?;
        let ptx_dir = k.get("dir").and_then(|v| v.as_str()).unwrap_or("kernels").to_string();
        let archs: Vec<String> = match k.get("archs").and_then(|v| v.as_array()) {
            Some(a) => a.iter().filter_map(|x| x.as_str()).map(|x| x.replace("compute_", "sm_")).collect(),
            None => vec!["sm_90".into(), "sm_80".into()],
        };
        for l in k.get("launch").and_then(|v| v.as_array()).into_iter().flatten() {
            let text = |key: &str| l.get(key).and_then(|v| v.as_str()).unwrap_or("");
            let args = l
                .get("args")
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
                .map(|a| parse_arg(a.as_str().unwrap_or("")))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("{name}: {e}"))?;
            cases.push(Case {
                kernel: name.to_string(),
                ptx_dir: ptx_dir.clone(),
                archs: archs.clone(),
                entry: text("entry").to_string(),
                grid: dims(l.get("grid"))?,
                block: dims(l.get("block"))?,
                shared: l.get("shared_bytes").and_then(|v| v.as_integer()).unwrap_or(0) as u32,
                args,
                compare_text: text("compare").to_string(),
                compare: parse_compare(text("compare")).map_err(|e| format!("{name}: {e}"))?,
            });
        }
    }
    Ok(cases)
}

/// The launches of `cases` for another target: those of the kernels
/// whose PTX for `arch` (`sm_75`) is in `dir` (`tests/targets/sm75`,
/// `NAME.sm75.ptx`), each for `arch` alone.
pub(crate) fn retarget(cases: Vec<Case>, dir: &Path, arch: &str) -> Vec<Case> {
    cases
        .into_iter()
        .map(|c| Case { ptx_dir: dir.display().to_string(), archs: vec![arch.to_string()], ..c })
        .filter(|c| c.ptx(Path::new(""), arch).is_file())
        .collect()
}

/// A deterministic generator (xorshift64*), seeded per launch.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// What identifies each buffer argument's initial contents (`None` for
/// scalars and for buffers that start as zeros): its type, length,
/// initialiser and how many identical buffers come before it in the
/// launch. Equal keys give equal bytes, in any launch, so that job
/// directories store a shared input once (`gpu-check`), while two
/// identically described buffers of one launch (`a` and `b` of vadd)
/// still differ.
pub(crate) fn input_keys(case: &Case) -> Vec<Option<String>> {
    let mut seen: Vec<String> = Vec::new();
    case.args
        .iter()
        .map(|a| match a {
            Arg::Buffer { ty, count, init, .. } if !matches!(init, Init::Zeros | Init::Custom) => {
                let base = format!("{ty:?}[{count}] {init:?}");
                let n = seen.iter().filter(|k| **k == base).count();
                seen.push(base.clone());
                Some(format!("{base} #{n}"))
            }
            _ => None,
        })
        .collect()
}

/// FNV-1a: a stable hash of a key (std's hasher may change between releases).
pub(crate) fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// splitmix64's finaliser: FNV hashes of keys that differ in one character
/// differ in few bits, and xorshift states that close stay correlated.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The initial bytes of every buffer argument (`None` for scalars), each
/// buffer generated from its own seed ([`input_keys`]).
pub(crate) fn make_inputs(case: &Case) -> Vec<Option<Vec<u8>>> {
    case.args
        .iter()
        .zip(input_keys(case))
        .map(|(a, key)| match a {
            Arg::Buffer { ty, count, init, .. } => {
                let mut rng = Rng(key.as_deref().map_or(1, |k| mix(fnv1a(k))) | 1);
                Some(
                    (0..*count)
                        .flat_map(|i| match *init {
                            Init::Zeros | Init::Custom => vec![0; ty.size()],
                            Init::Iota => ty.encode(i as f64, i as i128),
                            Init::Const(f, n) => ty.encode(f, n),
                            Init::Uniform(lo, hi) => {
                                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                                let v = lo + (hi - lo) * u;
                                ty.encode(v, v as i128)
                            }
                            Init::Randint(lo, hi) => {
                                let span = u128::try_from(hi - lo).unwrap_or(1).max(1);
                                let v = lo + ((u128::from(rng.next()) << 64 | u128::from(rng.next())) % span) as i128;
                                ty.encode(v as f64, v)
                            }
                        })
                        .collect(),
                )
            }
            _ => None,
        })
        .collect()
}

/// What one launch on the interpreter gave.
struct Ran {
    /// The buffers afterwards.
    outputs: Vec<Vec<u8>>,
    /// Warp-instructions executed.
    warp_insts: u64,
    /// The schedule's issue cycles ([`ori_interp::Stats::issue_cycles`]).
    issue_cycles: u64,
    /// The estimate with memory latency ([`ori_interp::Stats::est_cycles`]).
    est_cycles: u64,
}

/// Runs `kernel` on copies of `inputs`.
fn run(kernel: &Kernel, case: &Case, inputs: &[Option<Vec<u8>>]) -> Result<Ran, String> {
    run_function(&kernel.func, kernel.sm, kernel.static_shared, &kernel.banks, &kernel.statics, case, inputs)
}

/// Runs `func` (its parameter slots from `func.attrs.params`) on copies of
/// `inputs`, with constant `banks` and the module variables `statics`
/// (placed in memory, their banks taking precedence); returns the buffers
/// afterwards.
fn run_function(
    func: &Function,
    sm: u32,
    static_shared: u32,
    banks: &[(u8, Vec<u8>)],
    statics: &ori_interp::Statics,
    case: &Case,
    inputs: &[Option<Vec<u8>>],
) -> Result<Ran, String> {
    let mut g = Global::new();
    let mut banks_here = statics.place(&mut g);
    banks_here.extend(banks.iter().filter(|b| !banks_here.iter().any(|p| p.0 == b.0)).cloned().collect::<Vec<_>>());
    let mut params = vec![0u8; func.attrs.param_bytes() as usize];
    let mut addrs = Vec::new();
    for (i, (arg, input)) in case.args.iter().zip(inputs).enumerate() {
        let slot = func.attrs.params.get(i).ok_or_else(|| format!("the function has no parameter {i}"))?;
        let bytes = match (arg, input) {
            (Arg::Buffer { .. }, Some(data)) => {
                let a = g.alloc(data.clone());
                addrs.push(a);
                a.to_le_bytes().to_vec()
            }
            (Arg::Scalar { ty, value, int }, _) => ty.encode(*value, *int),
            _ => vec![0; slot.size as usize],
        };
        let at = slot.offset as usize;
        let n = bytes.len().min(slot.size as usize);
        params.get_mut(at..at + n).ok_or("parameter outside the block")?.copy_from_slice(&bytes[..n]);
    }
    let mut launch = Launch::new(case.grid, case.block, params);
    launch.dyn_shared = case.shared;
    launch.banks = banks_here;
    let stats = ori_interp::run(func, sm, static_shared, &launch, &mut g).map_err(|e| e.to_string())?;
    Ok(Ran {
        outputs: addrs.iter().map(|&a| g.buffer(a).unwrap_or(&[]).to_vec()).collect(),
        warp_insts: stats.warp_insts,
        issue_cycles: stats.issue_cycles,
        est_cycles: stats.est_cycles,
    })
}

/// Runs each of our intermediate forms of the kernel (`stages`: after
/// lowering, after every phase) on `inputs` and names the first whose
/// outputs differ from `reference` (NVIDIA's). `final_differs`: our cubin's
/// result differed, so forms that all agree point at encoding or the cubin.
fn phase_report(
    case: &Case,
    stages: Result<Vec<phases::Stage>, String>,
    inputs: &[Option<Vec<u8>>],
    reference: &[Vec<u8>],
    final_differs: bool,
) -> String {
    let stages = match stages {
        Ok(s) => s,
        Err(e) => return format!("no intermediate forms: {e}"),
    };
    let run = |module: &ori_ir::Module| -> Result<Vec<Vec<u8>>, String> {
        let func = module.function(&case.entry).ok_or_else(|| format!("no function {}", case.entry))?;
        let sm = u32::from(module.target.version);
        let statics = ori_interp::Statics::of_module(module);
        run_function(func, sm, func.attrs.shared_bytes, &[], &statics, case, inputs).map(|r| r.outputs)
    };
    let same = |out: &[Vec<u8>]| compare(case, reference, out);
    phases::first_differing(&stages, &run, &same).unwrap_or_else(|| {
        let why = if final_differs { ": the difference lies in encoding or the cubin" } else { "" };
        format!("all {} intermediate forms agree with NVIDIA's{why}", stages.len())
    })
}

/// Compares the output buffers of two runs; names the first difference.
fn compare(case: &Case, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<(), String> {
    let buffers: Vec<(&str, Ty, bool)> = case
        .args
        .iter()
        .filter_map(|x| match x {
            Arg::Buffer { name, ty, output, .. } => Some((name.as_str(), *ty, *output)),
            _ => None,
        })
        .collect();
    compare_buffers(case.compare, &buffers, a, b, ("nvidia", "ours"))
}

/// Compares two runs' buffers (`(name, type, is an output)`, in argument
/// order) by `mode`; names the first difference, with `labels` for the two
/// runs.
pub(crate) fn compare_buffers(
    mode: Compare,
    buffers: &[(&str, Ty, bool)],
    a: &[Vec<u8>],
    b: &[Vec<u8>],
    labels: (&str, &str),
) -> Result<(), String> {
    for (&(name, ty, output), (x, y)) in buffers.iter().zip(a.iter().zip(b)) {
        if !output {
            continue;
        }
        if x.len() != y.len() {
            return Err(format!("{name}: {} {} bytes, {} {} bytes", labels.0, x.len(), labels.1, y.len()));
        }
        let n = ty.size();
        let (mut xs, mut ys): (Vec<&[u8]>, Vec<&[u8]>) = (x.chunks(n).collect(), y.chunks(n).collect());
        if matches!(mode, Compare::Set) {
            xs.sort();
            ys.sort();
        }
        for (i, (p, q)) in xs.iter().zip(&ys).enumerate() {
            let same = match mode {
                Compare::Float(r) if ty.is_float() => {
                    let (u, v) = (ty.decode_float(p), ty.decode_float(q));
                    (u.is_nan() && v.is_nan()) || (u - v).abs() <= r * u.abs().max(v.abs()) || u == v
                }
                _ => p == q,
            };
            if !same {
                let bad = xs.iter().zip(&ys).filter(|(p, q)| p != q).count();
                return Err(format!(
                    "{name}[{i}]: {} {p:02x?}, {} {q:02x?} ({bad} of {} elements differ in their bits)",
                    labels.0,
                    labels.1,
                    xs.len()
                ));
            }
        }
    }
    Ok(())
}

/// Runs the manifest's launches (those of `names`, or all). Our cubins come
/// from the library in process; when one fails (or `all_phases`), each of
/// our intermediate forms is run too and the first phase that changes the
/// result is named.
/// `target`: the launches of [`retarget`] for that SM (`sm_75`), from
/// `tests/targets/sm75`.
pub fn run_manifest(
    manifest: &Path,
    target: Option<&str>,
    names: &[String],
    ptxas: &Path,
    dir: &Path,
    all_phases: bool,
) -> Result<(), String> {
    let outcomes = run_launches(manifest, target, names, ptxas, dir, all_phases)?;
    let failed = outcomes.iter().filter(|(_, f)| f.is_some_and(Failure::counts)).count();
    if failed == 0 { Ok(()) } else { Err(format!("{failed} kernel(s) failed")) }
}

/// Why a launch's two cubins were not found to give the same outputs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// NVIDIA's ptxas failed, or its cubin does not load: most often a word
    /// the SASS decoder cannot read.
    NvidiaUnreadable,
    /// The interpreter stops on NVIDIA's cubin: an instruction it has no
    /// model of (or a fault).
    NvidiaNotRun,
    /// Our ptxas made no cubin; NVIDIA's ran.
    OursUncompiled,
    /// Our cubin does not load or stops in the interpreter.
    OursFails,
    /// Both ran and their outputs differ.
    Differ,
}

impl Failure {
    /// Whether `cargo xtask difftest` counts the launch as failing: a
    /// kernel our ptxas does not compile yet is not compared, not failed.
    pub(crate) fn counts(self) -> bool {
        self != Failure::OursUncompiled
    }
}

/// [`run_manifest`]'s work: prints a line per launch and returns each
/// launch's label (`kernel/entry arch`) and why it did not give the same
/// outputs (`None`: it did).
pub(crate) fn run_launches(
    manifest: &Path,
    target: Option<&str>,
    names: &[String],
    ptxas: &Path,
    dir: &Path,
    all_phases: bool,
) -> Result<Vec<(String, Option<Failure>)>, String> {
    let mut outcomes = Vec::new();
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let root: PathBuf = manifest.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut cases = parse_manifest(&text)?;
    if let Some(arch) = target {
        let ptx_dir = crate::workspace_root().join("tests/targets").join(arch.replace('_', ""));
        cases = retarget(cases, &ptx_dir, arch);
        if cases.is_empty() {
            return Err(format!("no PTX for {arch} in {}", ptx_dir.display()));
        }
    }
    let (mut pass, mut fail, mut skipped, mut ours_match, mut ours_none) = (0, 0, 0, 0, 0);
    let (mut insts, mut secs) = (0u64, 0f64);
    // ln(ours / NVIDIA's) issue cycles and estimated cycles of each
    // launch whose outputs agree.
    let (mut issue_logs, mut est_logs) = (Vec::new(), Vec::new());
    for case in &cases {
        if !names.is_empty() && !names.iter().any(|n| *n == case.kernel || *n == case.entry) {
            continue;
        }
        for arch in &case.archs {
            let label = format!("{}/{} {arch}", case.kernel, case.entry);
            if let Some(why) = case.skip_reason() {
                println!("{label:<40} skipped ({why})");
                skipped += 1;
                continue;
            }
            let ptx = case.ptx(&root, arch);
            let inputs = make_inputs(case);
            let nv_kernel = ori_interp::corpus::compile_ptx(ptxas, &ptx, arch, dir, &case.entry)
                .map_err(|e| (Failure::NvidiaUnreadable, e));
            let start = Instant::now();
            let nv = nv_kernel.and_then(|k| run(&k, case, &inputs).map_err(|e| (Failure::NvidiaNotRun, e)));
            let took = start.elapsed().as_secs_f64();
            secs += took;
            // Ours is compared with NVIDIA's outputs only: without them
            // compiling it is wasted (libm's debug-build compile: ~100 s).
            let mine = match &nv {
                Ok(_) => phases::compile_ours(&ptx, arch),
                Err(_) => Err("not compiled: NVIDIA's cubin did not run".to_string()),
            }
            .map(|cubin| {
                ori_interp::load_kernel(&cubin, &case.entry)
                    .map_err(|e| e.to_string())
                    .and_then(|k| run(&k, case, &inputs))
            });
            let (failure, text) = match (&nv, &mine) {
                (Err((kind, e)), _) => (Some(*kind), format!("nvidia FAIL: {e}")),
                (Ok(Ran { warp_insts: n, .. }), Err(e)) => {
                    ours_none += 1;
                    (
                        Some(Failure::OursUncompiled),
                        format!("nvidia ran ({n} warp-insts, {took:.2} s); ours: no cubin ({e})"),
                    )
                }
                (Ok(Ran { warp_insts: n, .. }), Ok(Err(e))) => {
                    (Some(Failure::OursFails), format!("nvidia ran ({n} warp-insts); ours FAIL: {e}"))
                }
                (Ok(a), Ok(Ok(b))) => match compare(case, &a.outputs, &b.outputs) {
                    Ok(()) => {
                        ours_match += 1;
                        let ratio = b.issue_cycles as f64 / a.issue_cycles.max(1) as f64;
                        issue_logs.push(ratio.ln());
                        let est = b.est_cycles as f64 / a.est_cycles.max(1) as f64;
                        est_logs.push(est.ln());
                        let n = a.warp_insts;
                        (
                            None,
                            format!(
                                "nvidia ran ({n} warp-insts, {took:.2} s); ours: same outputs, issue cycles {ratio:.3}x, estimated cycles {est:.3}x"
                            ),
                        )
                    }
                    Err(e) => {
                        (Some(Failure::Differ), format!("nvidia ran ({} warp-insts); ours DIFFER: {e}", a.warp_insts))
                    }
                },
            };
            if let Ok(ran) = &nv {
                insts += ran.warp_insts;
            }
            println!("{label:<40} {text}");
            let ok = !failure.is_some_and(Failure::counts);
            if let Ok(Ran { outputs: reference, .. }) = &nv
                && mine.is_ok()
                && (!ok || all_phases)
            {
                let stages = phases::stages(&ptx, arch);
                println!("{:<40} {}", "", phase_report(case, stages, &inputs, reference, !ok));
            }
            if ok {
                pass += 1;
            } else {
                fail += 1;
            }
            outcomes.push((label, failure));
        }
    }
    println!(
        "interpreted {insts} warp-instructions of NVIDIA's code in {secs:.1} s; \
         our cubins: {ours_match} same outputs, {ours_none} not produced; skipped {skipped}"
    );
    let geomean = |logs: &[f64]| (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    if !issue_logs.is_empty() {
        println!(
            "issue cycles ours/NVIDIA's (control-word stalls of the executed instructions): geometric mean {:.3} over {} launches",
            geomean(&issue_logs),
            issue_logs.len()
        );
        println!(
            "estimated cycles ours/NVIDIA's (stalls and scoreboard waits with modelled memory latency): geometric mean {:.3}",
            geomean(&est_logs)
        );
    }
    println!("{} kernels: pass {pass}, fail {fail}", pass + fail);
    Ok(outcomes)
}

/// What a test's list of launches known not to compare (label, how it
/// fails, why) says against `outcomes`: a launch that fails and is not
/// listed, or fails otherwise than listed (a launch NVIDIA's cubin could
/// not run on that now differs from ours), or passes and is listed, or a
/// listed launch the manifest does not have. Every launch must give the
/// same outputs (ours not compiling is a failure here).
#[cfg(test)]
pub(crate) fn known_problems(
    outcomes: &[(String, Option<Failure>)],
    known: &[(&str, Failure, &str)],
    list: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (label, failure) in outcomes {
        match (failure, known.iter().find(|(k, ..)| k == label)) {
            (None, Some(_)) => problems.push(format!("{label} passes now: remove it from {list}")),
            (Some(f), None) => problems.push(format!("{label} fails ({f:?})")),
            (Some(f), Some((_, k, why))) if f != k => {
                problems.push(format!("{label} fails as {f:?}, {list} says {k:?} ({why})"))
            }
            _ => {}
        }
    }
    for (k, ..) in known {
        if !outcomes.iter().any(|(l, _)| l == k) {
            problems.push(format!("{list} names {k}, which the manifest does not launch"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test command's difftest: every launch of the corpus manifest,
    /// NVIDIA's cubin and ours (compiled in process) on the interpreter,
    /// each against the manifest's check and against each other.
    #[test]
    fn the_corpus_manifest_passes() {
        let Some(oracle) = nv_oracle::Oracle::for_test("the_corpus_manifest_passes") else { return };
        let manifest = crate::workspace_root().join("../shared/corpus/manifest.toml");
        let dir = std::env::temp_dir().join(format!("difftest-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        run_manifest(&manifest, None, &[], &oracle.ptxas(), &dir, false).unwrap();
    }

    /// Kernels written for the targets check and kept out of the corpus
    /// (`tests/targets/unseen`, NVRTC's PTX: session 15's for
    /// compute_75/86/89, session 16's for compute_80/87/88/90/100a/120a):
    /// every launch gives NVIDIA's outputs but for [`UNSEEN_KNOWN`].
    #[test]
    fn the_unseen_kernels_pass() {
        let Some(oracle) = nv_oracle::Oracle::for_test("the_unseen_kernels_pass") else { return };
        let manifest = crate::workspace_root().join("tests/targets/unseen/manifest.toml");
        let dir = std::env::temp_dir().join(format!("difftest-unseen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let outcomes = run_launches(&manifest, None, &[], &oracle.ptxas(), &dir, false).unwrap();
        assert!(outcomes.len() >= 65, "{outcomes:?}");
        let problems = known_problems(&outcomes, UNSEEN_KNOWN, "UNSEEN_KNOWN");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Unseen launches that cannot be compared yet, each with how it fails
    /// and the first thing that stops it. The list only shrinks: session
    /// 16 emptied it of session 15's batch; these are of session 16's
    /// (our cubin compiles for every one).
    const UNSEEN_KNOWN: &[(&str, Failure, &str)] = &[
        ("simd_video/simd_video sm_90", Failure::NvidiaUnreadable, "VIADD.16x2 R17, R13, -R18"),
        ("simd_video/simd_video sm_100a", Failure::NvidiaUnreadable, "IDP.2A.LO.U16.U8 R12, R14, R17, R12"),
        ("simd_video/simd_video sm_120a", Failure::NvidiaUnreadable, "IDP.2A.LO.U16.U8 R8, R13, R16, R8"),
        ("float_rounding/float_rounding sm_100a", Failure::NvidiaUnreadable, "F2I.F64.CEIL R5, R14"),
        ("float_rounding/float_rounding sm_120a", Failure::NvidiaUnreadable, "F2I.F64.CEIL (sm_120's word)"),
        ("shared_atomics/shared_atomics sm_100a", Failure::NvidiaUnreadable, "I2F.U8 R9, R7"),
        ("shared_atomics/shared_atomics sm_120a", Failure::NvidiaUnreadable, "I2F.U8 (sm_120's word)"),
        ("control_local/control_local sm_100a", Failure::NvidiaNotRun, "the interpreter has no model of BRX"),
        ("control_local/control_local sm_120a", Failure::NvidiaNotRun, "the interpreter has no model of BRX"),
    ];

    /// NVIDIA's cubins of `tests/targets` run on the interpreter and ours,
    /// where we compile the file, give their outputs: for sm_75 a sample of
    /// kernels with Turing's uniform-base global addresses (`[UR4]`,
    /// `[R2.64+UR8]`, `[R8.U32+UR4]`), half conversions and IEEE
    /// divisions; for sm_86 and sm_89 fp16_ops (`F2FP.MERGE_C`). `cargo
    /// xtask difftest --target sm_XY` runs every launch.
    #[test]
    fn the_targets_samples_pass() {
        let Some(oracle) = nv_oracle::Oracle::for_test("the_targets_samples_pass") else { return };
        let manifest = crate::workspace_root().join("../shared/corpus/manifest.toml");
        let dir = std::env::temp_dir().join(format!("difftest-targets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sm75 = [
            "copy_vec",
            "globals_const",
            "fp16_ops",
            "multi_entry",
            "spinlock_fence",
            "reduce_shfl",
            "math_float",
            "warp_vote",
        ];
        for (arch, names, at_least) in
            [("sm_75", &sm75[..], 15), ("sm_86", &["fp16_ops"], 2), ("sm_89", &["fp16_ops"], 2)]
        {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            let outcomes = run_launches(&manifest, Some(arch), &names, &oracle.ptxas(), &dir, false).unwrap();
            let failed: Vec<&String> =
                outcomes.iter().filter(|(_, f)| f.is_some_and(Failure::counts)).map(|(l, _)| l).collect();
            assert!(outcomes.len() >= at_least, "{arch}: {outcomes:?}");
            assert!(failed.is_empty(), "{arch}: failed: {failed:?}");
        }
    }

    /// vadd at 1000 elements, from the corpus.
    fn vadd() -> (Case, PathBuf) {
        let kernels = crate::workspace_root().join("../shared/corpus/kernels");
        let text = format!(
            "[[kernel]]\nname = \"vadd\"\ndir = \"{}\"\n[[kernel.launch]]\nentry = \"vadd\"\ngrid = [4, 1, 1]\n\
             block = [256, 1, 1]\nargs = [\"a: f32[1000] in uniform(-1,1)\", \"b: f32[1000] in uniform(-1,1)\", \
             \"c: f32[1000] out zeros\", \"n: i32 = 1000\"]\ncompare = \"exact\"\n",
            kernels.display()
        );
        let case = parse_manifest(&text).unwrap().remove(0);
        let ptx = case.ptx(Path::new(""), "sm_90");
        (case, ptx)
    }

    fn f32s(b: &[u8]) -> Vec<f32> {
        b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    /// `module` with its first FADD turned into an FMUL: what a broken
    /// phase could do.
    fn broken(module: &ori_ir::Module) -> ori_ir::Module {
        let text = ori_ir::text::print_module(module);
        assert!(text.contains(" FADD"), "{text}");
        ori_ir::text::parse_module(&text.replacen(" FADD", " FMUL", 1)).unwrap()
    }

    #[test]
    fn inputs_are_shared_by_description_but_differ_within_a_launch() {
        let (case, _) = vadd();
        let inputs = make_inputs(&case);
        let keys = input_keys(&case);
        assert_eq!(keys[0].as_deref(), Some("F32[1000] Uniform(-1.0, 1.0) #0"));
        assert_eq!(keys[1].as_deref(), Some("F32[1000] Uniform(-1.0, 1.0) #1"));
        assert_eq!(keys[2], None);
        assert_ne!(inputs[0], inputs[1]);
        assert_eq!(inputs[0], make_inputs(&case)[0]);
        assert!(f32s(inputs[0].as_ref().unwrap()).iter().all(|x| (-1.0..1.0).contains(x)));
    }

    #[test]
    fn the_first_phase_that_changes_the_result_is_named() {
        let (case, ptx) = vadd();
        let inputs = make_inputs(&case);
        let (a, b) = (f32s(inputs[0].as_ref().unwrap()), f32s(inputs[1].as_ref().unwrap()));
        let c: Vec<u8> = a.iter().zip(&b).flat_map(|(x, y)| (x + y).to_le_bytes()).collect();
        let reference = vec![inputs[0].clone().unwrap(), inputs[1].clone().unwrap(), c];
        let stages = phases::stages(&ptx, "sm_90").unwrap();
        assert!(
            stages.len() > 5 && stages[0].name == "lowering",
            "{:?}",
            stages.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        let names: Vec<String> = stages.iter().map(|s| s.name.clone()).collect();
        let report = phase_report(&case, Ok(stages), &inputs, &reference, false);
        assert_eq!(report, format!("all {} intermediate forms agree with NVIDIA's", names.len()));

        // A phase in the middle breaks the kernel; the ones after it carry the damage.
        for k in [0, names.len() / 2, names.len() - 1] {
            let mut stages = phases::stages(&ptx, "sm_90").unwrap();
            for s in &mut stages[k..] {
                s.module = Ok(broken(s.module.as_ref().unwrap()));
            }
            let report = phase_report(&case, Ok(stages), &inputs, &reference, true);
            let after = if k == 0 { String::new() } else { format!(" (same up to {})", names[k - 1]) };
            let want = format!("first phase whose result differs: {}{after}: c[0]: nvidia", names[k]);
            assert!(report.starts_with(&want), "{report}\nshould start with\n{want}");
        }

        // A phase whose dump cannot be had is named with the reason.
        let mut stages = phases::stages(&ptx, "sm_90").unwrap();
        stages[3].module = Err("its dump does not parse back: test".into());
        let report = phase_report(&case, Ok(stages), &inputs, &reference, true);
        assert!(
            report.starts_with(&format!("first phase whose result differs: {} (same up to {})", names[3], names[2]))
        );
        assert!(report.ends_with("its dump does not parse back: test"), "{report}");
    }
}
