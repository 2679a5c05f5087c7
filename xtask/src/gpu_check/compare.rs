//! `gpu-check --compare DIR`: reads the jobs and the runner's results,
//! checks each launch's outputs (ours against NVIDIA's by the manifest's
//! `compare` rule; optionally NVIDIA's GPU outputs against the Ori
//! interpreter running the same cubin), and tabulates the timings.

use std::fmt::Write as _;
use std::path::Path;

use super::interp;
use super::job::{Job, Jobs, Output, Results, RunResult};
use super::sha256;
use crate::difftest::manifest::{Compare, Ty, compare_buffers, parse_compare};

/// How one job came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Ours ran and gave NVIDIA's outputs (bit for bit, or within the tolerance).
    Same,
    /// NVIDIA's cubin ran; we made no cubin (lowering not there yet).
    NoCubin(String),
    /// Our outputs differ from NVIDIA's.
    Differ(String),
    /// Our cubin failed to load, faulted or timed out.
    OursFailed(String),
    /// NVIDIA's cubin failed: the job or the runner is wrong.
    NvidiaFailed(String),
    /// Not run: skipped by the manifest, by the runner (architecture), or
    /// missing from the results (a partial run).
    NotRun(String),
}

impl Verdict {
    /// Counted as a pass (`Some(true)`), a failure, or not at all.
    pub fn passed(&self) -> Option<bool> {
        match self {
            Verdict::Same | Verdict::NoCubin(_) => Some(true),
            Verdict::Differ(_) | Verdict::OursFailed(_) | Verdict::NvidiaFailed(_) => Some(false),
            Verdict::NotRun(_) => None,
        }
    }

    fn short(&self) -> &'static str {
        match self {
            Verdict::Same => "pass",
            Verdict::NoCubin(_) => "pass (no cubin of ours)",
            Verdict::Differ(_) => "FAIL (outputs differ)",
            Verdict::OursFailed(_) => "FAIL (ours)",
            Verdict::NvidiaFailed(_) => "FAIL (NVIDIA's)",
            Verdict::NotRun(_) => "not run",
        }
    }

    fn detail(&self) -> &str {
        match self {
            Verdict::Same => "",
            Verdict::NoCubin(s)
            | Verdict::Differ(s)
            | Verdict::OursFailed(s)
            | Verdict::NvidiaFailed(s)
            | Verdict::NotRun(s) => s,
        }
    }
}

/// One job's line of the report.
#[derive(Clone, Debug)]
pub struct Row {
    pub job: Job,
    pub verdict: Verdict,
    /// Median launch times, milliseconds.
    pub nvidia_ms: Option<f64>,
    pub ours_ms: Option<f64>,
    pub registers: (Option<u32>, Option<u32>),
    /// NVIDIA's GPU outputs against the interpreter's, when checked.
    pub interp: Option<String>,
}

/// The whole comparison.
pub struct Report {
    pub device: String,
    pub rows: Vec<Row>,
}

fn median(times: &[f64]) -> Option<f64> {
    let mut t: Vec<f64> = times.iter().copied().filter(|x| x.is_finite()).collect();
    if t.is_empty() {
        return None;
    }
    t.sort_by(f64::total_cmp);
    let n = t.len();
    Some(if n % 2 == 1 { t[n / 2] } else { (t[n / 2 - 1] + t[n / 2]) / 2.0 })
}

/// The bytes of an output, if the runner kept them (checked against the digest).
fn bytes_of(dir: &Path, out: &Output) -> Result<Option<Vec<u8>>, String> {
    let Some(rel) = &out.file else { return Ok(None) };
    let data = std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    if data.len() as u64 != out.bytes || sha256::hex(&data) != out.sha256 {
        return Err(format!("{rel} does not match its size and digest in results.json"));
    }
    Ok(Some(data))
}

/// The (name, type, is an output) of each buffer, for `compare_buffers`.
fn buffer_types(job: &Job) -> Result<Vec<(&str, Ty, bool)>, String> {
    job.buffers
        .iter()
        .map(|b| Ok((b.name.as_str(), Ty::parse(&b.ty).ok_or_else(|| format!("bad type `{}`", b.ty))?, b.output)))
        .collect()
}

/// Compares two runs' outputs (digests first, bytes where they differ).
/// `a` is a GPU run; `b` either a GPU run or the interpreter's buffers.
fn compare_outputs(
    dir: &Path,
    job: &Job,
    a: &RunResult,
    b: Either,
    labels: (&str, &str),
) -> Result<Result<(), String>, String> {
    let mode: Compare = parse_compare(&job.compare)?;
    let types = buffer_types(job)?;
    for out in &a.outputs {
        let (name, ty, _) = *types.get(out.buffer).ok_or("an output names a missing buffer")?;
        let (b_sha, b_bytes) = match &b {
            Either::Run(r) => {
                let Some(o) = r.outputs.iter().find(|o| o.buffer == out.buffer) else {
                    return Ok(Err(format!("{name}: no output from {}", labels.1)));
                };
                (o.sha256.clone(), bytes_of(dir, o)?)
            }
            Either::Buffers(bufs) => {
                let data = bufs.get(out.buffer).ok_or("the interpreter lost a buffer")?;
                (sha256::hex(data), Some(data.clone()))
            }
        };
        if b_sha == out.sha256 {
            continue;
        }
        let (Some(x), Some(y)) = (bytes_of(dir, out)?, b_bytes) else {
            return Ok(Err(format!("{name}: digests differ (bytes not kept: run the runner with a larger --keep)")));
        };
        let one = [(name, ty, true)];
        if let Err(e) = compare_buffers(mode, &one, &[x], &[y], labels) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

enum Either<'a> {
    Run(&'a RunResult),
    Buffers(Vec<Vec<u8>>),
}

fn failure(r: &RunResult) -> String {
    let status = if r.status == "ok" { "error" } else { r.status.as_str() };
    format!("{status}: {}", r.error.as_deref().unwrap_or("(no message)"))
}

fn check(dir: &Path, job: &Job, results: &Results, with_interp: bool) -> Result<Row, String> {
    let mut row = Row {
        job: job.clone(),
        verdict: Verdict::Same,
        nvidia_ms: None,
        ours_ms: None,
        registers: (None, None),
        interp: None,
    };
    if let Some(why) = &job.skip {
        row.verdict = Verdict::NotRun(format!("skipped: {why}"));
        return Ok(row);
    }
    if job.nvidia.path.is_none() {
        let why = job.nvidia.error.as_deref().unwrap_or("no cubin");
        row.verdict = Verdict::NvidiaFailed(format!("no cubin: {why}"));
        return Ok(row);
    }
    let Some(r) = results.jobs.get(&job.id) else {
        row.verdict = Verdict::NotRun("not in the results".into());
        return Ok(row);
    };
    row.nvidia_ms = median(&r.nvidia.times_ms);
    row.ours_ms = median(&r.ours.times_ms);
    row.registers = (r.nvidia.registers, r.ours.registers);
    if r.nvidia.status == "skipped" {
        row.verdict = Verdict::NotRun(r.nvidia.error.clone().unwrap_or_else(|| "skipped by the runner".into()));
        return Ok(row);
    }
    if r.nvidia.status != "ok" {
        row.verdict = Verdict::NvidiaFailed(failure(&r.nvidia));
        return Ok(row);
    }
    if with_interp {
        row.interp = Some(match interp::run(dir, job, &job.nvidia) {
            Ok(buffers) => {
                match compare_outputs(dir, job, &r.nvidia, Either::Buffers(buffers), ("GPU", "interpreter"))? {
                    Ok(()) => "same".into(),
                    Err(e) => format!("differs: {e}"),
                }
            }
            Err(e) => format!("not run: {e}"),
        });
    }
    row.verdict = if job.ours.path.is_none() {
        Verdict::NoCubin(job.ours.error.clone().unwrap_or_default())
    } else if r.ours.status != "ok" {
        Verdict::OursFailed(failure(&r.ours))
    } else {
        match compare_outputs(dir, job, &r.nvidia, Either::Run(&r.ours), ("nvidia", "ours"))? {
            Ok(()) => Verdict::Same,
            Err(e) => Verdict::Differ(e),
        }
    };
    Ok(row)
}

/// Checks every job of `dir` against `dir/results`.
pub fn compare(dir: &Path, with_interp: bool) -> Result<Report, String> {
    let jobs = Jobs::read(dir)?;
    let results = Results::read(dir)?;
    let d = &results.device;
    let device = format!("{} (compute capability {}.{}, driver {})", d.name, d.cc[0], d.cc[1], d.driver);
    let rows = jobs.jobs.iter().map(|job| check(dir, job, &results, with_interp)).collect::<Result<_, _>>()?;
    Ok(Report { device, rows })
}

fn micros(ms: Option<f64>) -> String {
    ms.map_or_else(|| "-".into(), |t| format!("{:.1}", t * 1000.0))
}

fn ratio(row: &Row) -> Option<f64> {
    Some(row.ours_ms? / row.nvidia_ms?).filter(|r| r.is_finite())
}

impl Report {
    /// (pass, fail) over the jobs that ran.
    pub fn counts(&self) -> (usize, usize) {
        let pass = self.rows.iter().filter(|r| r.verdict.passed() == Some(true)).count();
        let fail = self.rows.iter().filter(|r| r.verdict.passed() == Some(false)).count();
        (pass, fail)
    }

    /// Geometric mean of ours/NVIDIA over the jobs timed on both.
    pub fn geomean_ratio(&self) -> Option<f64> {
        let logs: Vec<f64> = self.rows.iter().filter_map(ratio).map(f64::ln).collect();
        (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
    }

    /// The closing line: `N kernels: pass P, fail F`.
    pub fn summary(&self) -> String {
        let (pass, fail) = self.counts();
        format!("{} kernels: pass {pass}, fail {fail}", pass + fail)
    }

    /// The terminal table, one line per job, details on indented lines.
    pub fn text(&self) -> String {
        let mut s = format!("device: {}\n", self.device);
        let _ = writeln!(s, "{:<44} {:<24} {:>10} {:>10} {:>7}", "job", "result", "NVIDIA us", "ours us", "ratio");
        for row in &self.rows {
            let name = format!("{}/{} {}", row.job.kernel, row.job.entry, row.job.arch);
            let name: String = name.chars().take(44).collect();
            let r = ratio(row).map_or_else(|| "-".into(), |r| format!("{r:.2}"));
            let _ = writeln!(
                s,
                "{name:<44} {:<24} {:>10} {:>10} {r:>7}",
                row.verdict.short(),
                micros(row.nvidia_ms),
                micros(row.ours_ms)
            );
            if !row.verdict.detail().is_empty() {
                let _ = writeln!(s, "    {}", row.verdict.detail().lines().next().unwrap_or(""));
            }
            if let Some(i) = row.interp.as_ref().filter(|i| *i != "same") {
                let _ = writeln!(s, "    interpreter vs GPU (NVIDIA's cubin): {i}");
            }
        }
        let ours: Vec<&Row> = self.rows.iter().filter(|r| r.verdict.passed().is_some()).collect();
        let count = |f: fn(&Verdict) -> bool| ours.iter().filter(|r| f(&r.verdict)).count();
        let _ = writeln!(
            s,
            "ours: {} same outputs, {} differ, {} failed, {} no cubin; not run {}",
            count(|v| *v == Verdict::Same),
            count(|v| matches!(v, Verdict::Differ(_))),
            count(|v| matches!(v, Verdict::OursFailed(_))),
            count(|v| matches!(v, Verdict::NoCubin(_))),
            self.rows.len() - ours.len()
        );
        let checked: Vec<&String> = self.rows.iter().filter_map(|r| r.interp.as_ref()).collect();
        if !checked.is_empty() {
            let _ = writeln!(
                s,
                "interpreter vs GPU on NVIDIA's cubins: {} same, {} differ, {} not run",
                checked.iter().filter(|i| i.as_str() == "same").count(),
                checked.iter().filter(|i| i.starts_with("differs")).count(),
                checked.iter().filter(|i| i.starts_with("not run")).count()
            );
        }
        if let Some(g) = self.geomean_ratio() {
            let _ = writeln!(s, "run time ours/NVIDIA: geometric mean {g:.3}");
        }
        s + &self.summary()
    }

    /// The table in Markdown, for `docs/gpu-check.md`.
    pub fn markdown(&self) -> String {
        let mut s = format!("Device: {}.\n\n", self.device);
        s += "| kernel | entry | arch | result | NVIDIA (µs) | ours (µs) | ours/NVIDIA | registers NVIDIA/ours | interpreter vs GPU |\n";
        s += "|---|---|---|---|---:|---:|---:|---|---|\n";
        let cell = |t: &str| t.replace('|', "\\|").lines().next().unwrap_or("").chars().take(120).collect::<String>();
        for row in &self.rows {
            let result = match row.verdict.detail() {
                "" => row.verdict.short().to_string(),
                d => format!("{}: {}", row.verdict.short(), cell(d)),
            };
            let regs = |r: Option<u32>| r.map_or_else(|| "-".into(), |n| n.to_string());
            let _ = writeln!(
                s,
                "| {} | `{}` | {} | {} | {} | {} | {} | {}/{} | {} |",
                row.job.kernel,
                row.job.entry,
                row.job.arch,
                result,
                micros(row.nvidia_ms),
                micros(row.ours_ms),
                ratio(row).map_or_else(|| "-".into(), |r| format!("{r:.2}")),
                regs(row.registers.0),
                regs(row.registers.1),
                row.interp.as_deref().map_or_else(|| "-".into(), cell),
            );
        }
        let _ = write!(s, "\n{}", self.summary());
        if let Some(g) = self.geomean_ratio() {
            let _ = write!(s, "; run time ours/NVIDIA, geometric mean: {g:.3}");
        }
        s + ".\n"
    }
}
