//! The verdict on each form for one target: NVIDIA's ptxas decides
//! whether the form is PTX; where it is, our cubin must compute what
//! NVIDIA's computes on the interpreter; where it is not, ours must reject
//! it with NVIDIA's messages.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::Command;

use ori_interp::{Global, Launch};

use super::kernel::{self, BLOCK, GRID, Kernel, THREADS};
use super::table::Form;

/// What happened to one form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// NVIDIA rejects it and so do we, with the same messages (these).
    BothReject(String),
    /// NVIDIA rejects it; ours accepts it or says something else.
    RejectDiffers(String),
    /// NVIDIA accepts it; ours does not compile it.
    OursFails(String),
    /// NVIDIA's cubin does not run on the interpreter (a decoder gap).
    NvidiaDoesNotRun(String),
    /// Ours compiles but does not run, or computes something else.
    Differs(String),
    /// Bit for bit NVIDIA's results.
    Same,
}

impl Verdict {
    pub fn nvidia_accepts(&self) -> bool {
        !matches!(self, Verdict::BothReject(_) | Verdict::RejectDiffers(_))
    }

    pub fn ours_compiles(&self) -> bool {
        matches!(self, Verdict::NvidiaDoesNotRun(_) | Verdict::Differs(_) | Verdict::Same)
    }

    /// Why it fails, if it does.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::RejectDiffers(r) | Verdict::OursFails(r) | Verdict::Differs(r) => Some(r),
            _ => None,
        }
    }
}

/// Checks `forms` for `target` (`sm_90a`, ...), working in `dir`.
pub fn check(ptxas: &Path, forms: &[&Form], target: &str, dir: &Path) -> Result<Vec<Verdict>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let kernels: Vec<Kernel> = forms.iter().enumerate().map(|(i, f)| kernel::kernel(f, &format!("k{i}"))).collect();
    let mut verdicts: Vec<Option<Verdict>> = vec![None; kernels.len()];
    // NVIDIA's verdicts, many kernels per ptxas run: a batch that fails
    // loses the kernels its errors point at and runs again.
    let mut pending: Vec<usize> = (0..kernels.len()).collect();
    let mut rejected = Vec::new();
    let mut cubin = Vec::new();
    while !pending.is_empty() {
        let (text, starts) = module(target, pending.iter().map(|&i| &kernels[i]));
        let path = dir.join("batch.ptx");
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        let out = nvidia(ptxas, dir, "batch.ptx", target)?;
        if let Ok(bytes) = out {
            cubin = bytes;
            break;
        }
        let stderr = out.unwrap_err();
        let lines = error_lines(&stderr);
        let mut bad: Vec<usize> =
            lines.iter().filter_map(|&l| starts.iter().rposition(|&s| s <= l).map(|k| pending[k])).collect();
        bad.sort_unstable();
        bad.dedup();
        if bad.is_empty() {
            // Nothing to point at (a fatal error without a line): the
            // kernels NVIDIA rejects on their own.
            for &i in &pending {
                let (text, _) = module(target, std::iter::once(&kernels[i]));
                std::fs::write(dir.join("form.ptx"), &text).map_err(|e| format!("form.ptx: {e}"))?;
                if nvidia(ptxas, dir, "form.ptx", target)?.is_err() {
                    bad.push(i);
                }
            }
            if bad.is_empty() {
                bad.clone_from(&pending);
            }
        }
        pending.retain(|i| !bad.contains(i));
        rejected.extend(bad);
    }
    for &i in &rejected {
        verdicts[i] = Some(rejection(ptxas, &kernels[i], target, dir)?);
    }
    for i in 0..kernels.len() {
        if verdicts[i].is_none() {
            verdicts[i] = Some(run_both(&cubin, &kernels[i], target));
        }
    }
    Ok(verdicts.into_iter().map(|v| v.expect("every kernel has a verdict")).collect())
}

/// A module of `kernels` and the first line of each.
fn module<'k>(target: &str, kernels: impl Iterator<Item = &'k Kernel>) -> (String, Vec<usize>) {
    let mut text = kernel::header(target);
    let mut starts = Vec::new();
    for k in kernels {
        starts.push(text.lines().count() + 1);
        text.push_str(&k.text);
    }
    (text, starts)
}

/// Runs NVIDIA's ptxas on `dir/file`: the cubin, or its error output
/// (a rejection is exit code 255, anything else is an error of the sweep).
fn nvidia(ptxas: &Path, dir: &Path, file: &str, target: &str) -> Result<Result<Vec<u8>, String>, String> {
    let cubin = dir.join("out.cubin");
    let _ = std::fs::remove_file(&cubin);
    let out = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(file)
        .arg("-o")
        .arg("out.cubin")
        .current_dir(dir)
        .output()
        .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.code() {
        Some(0) => Ok(Ok(std::fs::read(&cubin).map_err(|e| format!("{}: {e}", cubin.display()))?)),
        Some(255) => Ok(Err(stderr)),
        _ => Err(format!("NVIDIA's ptxas failed on {}: {:?} {stderr}", dir.join(file).display(), out.status)),
    }
}

/// The lines of `ptxas FILE, line N; error ...` messages.
fn error_lines(stderr: &str) -> Vec<usize> {
    stderr
        .lines()
        .filter(|l| l.contains("; error") || l.contains("; fatal"))
        .filter_map(|l| l.split_once(", line ")?.1.split_once(';')?.0.parse().ok())
        .collect()
}

/// The error and fatal lines of a ptxas output, in order, without the
/// file name (`line 33; error   : ...`).
fn errors(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("error   :") || l.contains("fatal   :"))
        .map(|l| {
            l.split_once(", line ").map_or(l, |x| x.1).trim_start_matches("ptxas ").replace("line ", "").to_owned()
        })
        .collect()
}

/// The verdict on a kernel NVIDIA's ptxas rejected: compiled alone by
/// both, ours must fail with the same messages.
fn rejection(ptxas: &Path, k: &Kernel, target: &str, dir: &Path) -> Result<Verdict, String> {
    let (text, _) = module(target, std::iter::once(k));
    let file = "form.ptx";
    std::fs::write(dir.join(file), &text).map_err(|e| format!("{file}: {e}"))?;
    let want = match nvidia(ptxas, dir, file, target)? {
        Ok(_) => return Ok(Verdict::RejectDiffers("NVIDIA accepts it alone, not in a batch".into())),
        Err(stderr) => errors(&stderr),
    };
    let got = match ours(&text, file, target) {
        Ok(_) => return Ok(Verdict::RejectDiffers(format!("ours accepts it; NVIDIA: {}", want.join(" | ")))),
        Err(lines) => errors(&lines),
    };
    Ok(match want.iter().zip(&got).find(|(w, g)| w != g) {
        None if got.len() == want.len() => Verdict::BothReject(want.join(" | ")),
        None => Verdict::RejectDiffers(format!("NVIDIA: {} -- ours: {}", want.join(" | "), got.join(" | "))),
        Some((w, g)) => Verdict::RejectDiffers(format!("NVIDIA: {w} -- ours: {g}")),
    })
}

/// Our ptxas on one module: the cubin, or the lines it would print.
fn ours(text: &str, file: &str, target: &str) -> Result<Vec<u8>, String> {
    let arch = target.parse().map_err(|e| format!("{target}: {e:?}"))?;
    let options = ptxas::Options { arch, ..ptxas::Options::default() };
    let source = ptxas::Source { name: file.to_string(), text: text.to_string() };
    match catch_unwind(AssertUnwindSafe(|| ptxas::compile_sources(&[source], &options))) {
        Err(payload) => Err(format!("ptxas fatal   : panic in our ptxas: {}", panic_message(&*payload))),
        Ok(Ok(out)) => out.cubin.ok_or_else(|| "ptxas fatal   : no cubin".into()),
        Ok(Err(failure)) => {
            let mut lines: Vec<String> = failure.report.diagnostics.iter().map(|d| d.to_ptxas_line()).collect();
            if failure.aborted {
                lines.push(format!("ptxas fatal   : {}", ptxas::diag::ABORTED));
            }
            Err(lines.join("\n"))
        }
    }
}

/// Compiles `k` with ours, runs both cubins, compares the outputs. Ours
/// is compiled first: a form whose NVIDIA cubin the interpreter cannot
/// run still counts as compiled only if ours compiles it.
fn run_both(nv_cubin: &[u8], k: &Kernel, target: &str) -> Verdict {
    let (text, _) = module(target, std::iter::once(k));
    let cubin = match ours(&text, "form.ptx", target) {
        Ok(c) => c,
        Err(lines) => return Verdict::OursFails(errors(&lines).join(" | ")),
    };
    let input = kernel::inputs(&k.layout);
    let want = match load_and_run(nv_cubin, &k.name, &input, k.layout.out_stride) {
        Ok(out) => out,
        Err(e) => return Verdict::NvidiaDoesNotRun(e),
    };
    let got = match load_and_run(&cubin, &k.name, &input, k.layout.out_stride) {
        Ok(out) => out,
        Err(e) => return Verdict::Differs(format!("our cubin does not run: {e}")),
    };
    match first_difference(k, &input, &want, &got) {
        None => Verdict::Same,
        Some(why) => Verdict::Differs(why),
    }
}

fn load_and_run(cubin: &[u8], name: &str, input: &[u8], out_stride: usize) -> Result<Vec<u8>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let kernel = ori_interp::load_kernel(cubin, name).map_err(|e| e.to_string())?;
        let mut global = Global::new();
        let a = global.alloc(input.to_vec());
        let b = global.alloc(vec![0xee; THREADS * out_stride]);
        let mut params = vec![0u8; kernel.func.attrs.param_bytes() as usize];
        for (slot, addr) in kernel.func.attrs.params.iter().zip([a, b]) {
            let at = slot.offset as usize;
            params.get_mut(at..at + 8).ok_or("parameter block too small")?.copy_from_slice(&addr.to_le_bytes());
        }
        let launch = Launch::new([GRID, 1, 1], [BLOCK, 1, 1], params);
        ori_interp::run_kernel(&kernel, &launch, &mut global).map_err(|e| e.to_string())?;
        Ok(global.buffer(b).ok_or("no output buffer")?.to_vec())
    }))
    .unwrap_or_else(|payload| Err(format!("panic in the interpreter: {}", panic_message(&*payload))))
}

/// The text of a panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// The first result that differs: thread, copy, inputs and both values.
fn first_difference(k: &Kernel, input: &[u8], want: &[u8], got: &[u8]) -> Option<String> {
    let l = &k.layout;
    for t in 0..THREADS {
        for (r, (label, ty)) in l.results.iter().enumerate() {
            let at = t * l.out_stride + l.result_at[r];
            let n = if *ty == super::ty::Ty::Pred { 4 } else { (ty.reg_bits() / 8) as usize };
            if want[at..at + n] != got[at..at + n] {
                let row = &input[t * l.in_stride..];
                let srcs: Vec<String> = l.sources[1..]
                    .iter()
                    .zip(&l.source_at[1..])
                    .map(|(ty, &s)| hex(&row[s..s + (ty.reg_bits() / 8).max(4) as usize]))
                    .collect();
                return Some(format!(
                    "thread {t} ({label}, result {r}, guard {}), sources [{}]: NVIDIA {}, ours {}",
                    row[0],
                    srcs.join(", "),
                    hex(&want[at..at + n]),
                    hex(&got[at..at + n])
                ));
            }
        }
    }
    None
}

fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}
