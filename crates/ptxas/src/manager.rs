//! The phase manager: runs a plan over a module, one phase after another
//! over every function, with verification, IR dumps and per-phase
//! statistics.

use std::time::{Duration, Instant};

use ori_ir::text::print_module;
use ori_ir::{Function, Module, Phase, PhaseContext, PhaseError, verify_module};

use crate::manifest::Plan;
use crate::stats::{AllocSnapshot, MemoryMeter};

/// Which phases to dump the IR after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DumpAfter {
    /// No dumps.
    #[default]
    None,
    /// After every phase.
    All,
    /// After the phases with these names (case-insensitive).
    Phases(Vec<String>),
}

impl DumpAfter {
    fn wants(&self, phase: &str) -> bool {
        match self {
            DumpAfter::None => false,
            DumpAfter::All => true,
            DumpAfter::Phases(names) => names.iter().any(|n| n.eq_ignore_ascii_case(phase)),
        }
    }
}

/// The textual IR after one phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrDump {
    /// The phase that just ran.
    pub after: String,
    /// The module in Ori's textual form.
    pub text: String,
}

/// Time and memory one phase took (over all functions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseStat {
    /// The phase.
    pub phase: String,
    /// Wall time.
    pub time: Duration,
    /// Allocation counters over the phase, when a meter is installed.
    pub memory: Option<AllocSnapshot>,
}

/// How to run the phases.
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// Verify the IR after every phase (always on in debug builds).
    pub verify_each: bool,
    /// Which dumps to take.
    pub dump_after: Option<&'a DumpAfter>,
    /// Collect per-phase statistics.
    pub collect_stats: bool,
    /// Allocation counters, if the embedding program has them.
    pub meter: Option<&'a dyn MemoryMeter>,
    /// Asked before every phase: true stops the run with [`CANCELLED`].
    pub cancel: Option<&'a (dyn Fn() -> bool + Send + Sync)>,
    /// Threads that run a function phase over the module's functions
    /// (`--split-compile`); 0 and 1 both mean this thread alone. Functions
    /// are independent within a phase, so the result is the same for any
    /// count.
    pub threads: usize,
}

/// The message of a run stopped by [`RunOptions::cancel`].
pub const CANCELLED: &str = "compilation cancelled";

/// What a run produced besides the transformed module.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// IR dumps, in phase order.
    pub dumps: Vec<IrDump>,
    /// Statistics, in phase order.
    pub stats: Vec<PhaseStat>,
    /// Time spent in the phases per function, in module order.
    pub function_times: Vec<Duration>,
}

/// A phase failed, or left IR the verifier rejects.
#[derive(Clone, Debug)]
pub struct RunError {
    /// The phase.
    pub phase: String,
    /// What happened.
    pub message: String,
    /// Dumps and statistics up to the failure.
    pub report: RunReport,
}

/// Runs `plan` over `module`.
pub fn run(
    plan: &Plan<'_>,
    module: &mut Module,
    opt_level: u8,
    options: RunOptions<'_>,
) -> Result<RunReport, RunError> {
    let target = module.target.target();
    let encoder = mercury_encode::Sm::from_number(u32::from(target.sm.version)).map(mercury_encode::EncoderForms);
    let forms: &dyn ori_ir::Forms = match &encoder {
        Some(forms) => forms,
        None => &ori_ir::NoForms,
    };
    let verify = options.verify_each || cfg!(debug_assertions);
    let mut report = RunReport { function_times: vec![Duration::ZERO; module.functions.len()], ..RunReport::default() };
    for planned in &plan.phases {
        let phase = planned.phase;
        let name = phase.name();
        let fail = |report: &mut RunReport, message: String| RunError {
            phase: name.to_string(),
            message,
            report: std::mem::take(report),
        };
        if options.cancel.is_some_and(|cancel| cancel()) {
            return Err(fail(&mut report, CANCELLED.to_string()));
        }
        if let Some(missing) = phase.requires().minus(module.props).iter().next() {
            return Err(fail(&mut report, format!("requires {missing}, but the IR has {}", module.props)));
        }
        let cx = PhaseContext { target, opt_level, knobs: &planned.knobs, forms };
        let memory_before = options.meter.map(|m| m.snapshot());
        let start = Instant::now();
        // A module phase (placing callees in their callers) times as a whole.
        let result = match phase.run_module(module, &cx) {
            Some(whole) => whole,
            None => run_functions(phase, &cx, &mut module.functions, &mut report.function_times, options.threads),
        };
        let time = start.elapsed();
        if options.collect_stats {
            let memory = options.meter.zip(memory_before).map(|(m, before)| m.snapshot().since(&before));
            report.stats.push(PhaseStat { phase: name.to_string(), time, memory });
        }
        result.map_err(|e| fail(&mut report, e.to_string()))?;
        module.props = module.props.minus(phase.invalidates()).union(phase.establishes());
        if options.dump_after.is_some_and(|d| d.wants(name)) {
            report.dumps.push(IrDump { after: name.to_string(), text: print_module(module) });
        }
        if verify && let Err(errors) = verify_module(module) {
            let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Err(fail(&mut report, format!("the verifier rejects the result:\n  {}", lines.join("\n  "))));
        }
    }
    Ok(report)
}

/// Runs function phase `phase` over `functions` on up to `threads` threads,
/// adding each function's time to `times`. The error reported is the first
/// function's in module order, whichever thread met it first.
fn run_functions(
    phase: &dyn Phase,
    cx: &PhaseContext<'_>,
    functions: &mut [Function],
    times: &mut [Duration],
    threads: usize,
) -> Result<(), PhaseError> {
    let threads = threads.min(functions.len());
    if threads <= 1 {
        for (func, spent) in functions.iter_mut().zip(times) {
            let start = Instant::now();
            let result = phase.run(func, cx);
            *spent += start.elapsed();
            result?;
        }
        return Ok(());
    }
    // Functions are handed out one at a time, so that one large function
    // does not hold up a thread's share of small ones.
    let work: Vec<std::sync::Mutex<(&mut Function, &mut Duration)>> =
        functions.iter_mut().zip(times).map(std::sync::Mutex::new).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let errors = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(slot) = work.get(index) else { break };
                    let mut slot = slot.lock().expect("each function is taken once");
                    let (func, spent) = &mut *slot;
                    let start = Instant::now();
                    let result = phase.run(func, cx);
                    **spent += start.elapsed();
                    if let Err(e) = result {
                        errors.lock().expect("no thread panics holding it").push((index, e));
                    }
                }
            });
        }
    });
    let mut errors = errors.into_inner().expect("no thread panics holding it");
    errors.sort_by_key(|&(index, _)| index);
    errors.into_iter().next().map_or(Ok(()), |(_, e)| Err(e))
}
