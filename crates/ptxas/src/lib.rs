//! The compiler as a library: [`compile`] turns PTX (or Ori text) into a
//! cubin, returning diagnostics, IR dumps and statistics as data. There is
//! no global state, so several compilations may run at once on different
//! threads. The `ptxas` binary is a thin command-line layer over this.
//!
//! The pipeline: front end → lowering → the phases `phases.ron` lists
//! (see [`manifest`]), run by the [`manager`] → cubin.

mod builtin;
pub mod cli;
pub mod diag;
mod frontend;
mod jobserver;
pub mod manager;
pub mod manifest;
mod object;
pub mod options;
pub mod registry;
pub mod stats;
pub mod version;

use std::time::{Duration, Instant};

use ori_ir::Module;

pub use diag::{Diagnostic, Location, Severity};
pub use manager::{DumpAfter, IrDump, PhaseStat};
pub use manifest::{Manifest, ManifestError};
pub use options::{CacheOp, Cancel, ManifestSource, Options, RegLimit};
pub use registry::Registry;
pub use stats::{AllocSnapshot, CountingAlloc, MemoryMeter, StatsRequest};

/// One input: its name (for messages) and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// File name as the user gave it.
    pub name: String,
    /// Contents.
    pub text: String,
}

impl Source {
    /// True for Ori text (a `.ori` file) rather than PTX.
    pub fn is_ori(&self) -> bool {
        self.name.ends_with(".ori")
    }
}

/// What a compilation reports besides its result.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Messages for the user, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// IR dumps asked for with [`Options::dump_after`].
    pub dumps: Vec<IrDump>,
    /// Per-phase statistics, when asked for.
    pub stats: Vec<PhaseStat>,
    /// Wall time of the whole compilation.
    pub compile_time: Duration,
    /// Highest number of bytes live at once, when a meter is installed.
    pub peak_memory: Option<u64>,
    /// When each part of the compilation ran (`--fdevice-time-trace`).
    pub timeline: Vec<Span>,
    /// Resource usage per function, in input order (what `-v` prints).
    pub functions: Vec<FunctionReport>,
    /// The module data `-v`'s first line reports.
    pub module_data: ModuleData,
}

/// Module data sizes, as the first line of `ptxas -v` gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleData {
    /// Bytes of `.global` data (`gmem`).
    pub gmem: u64,
    /// Bytes per constant bank, for the banks the target reports
    /// (`cmem[3]`: `.const` data, `cmem[4]`: the address table), in bank
    /// order, those with no bytes left out.
    pub cmem: Vec<(u8, u64)>,
}

impl ModuleData {
    /// Adds another module's sizes.
    fn add(&mut self, other: ModuleData) {
        self.gmem += other.gmem;
        for (bank, bytes) in other.cmem {
            match self.cmem.iter_mut().find(|(b, _)| *b == bank) {
                Some((_, total)) => *total += bytes,
                None => self.cmem.push((bank, bytes)),
            }
        }
        self.cmem.sort_unstable();
    }
}

/// The resources one compiled function uses, as `ptxas -v` reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionReport {
    /// The function's name.
    pub name: String,
    /// A kernel (`.entry`) rather than a device function.
    pub entry: bool,
    /// The architecture compiled for.
    pub sm: ori_ir::Sm,
    /// Registers per thread.
    pub registers: u32,
    /// Named barriers.
    pub barriers: u32,
    /// Stack frame bytes.
    pub stack_frame: u32,
    /// Static shared memory bytes of the function's variables (without the
    /// part of the section ptxas reserves).
    pub shared: u32,
    /// Bytes written by spill stores.
    pub spill_stores: u32,
    /// Bytes read by spill loads.
    pub spill_loads: u32,
    /// Bytes of constant bank 0 (driver area and parameters).
    pub cmem0: u32,
    /// Time the phases spent on this function.
    pub compile_time: Duration,
}

/// A part of the compilation and when it ran, measured from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// What ran: `PTX parsing and setup time`, `Optimizing compilation
    /// unit`, `Post processing` (ptxas's names for its trace events).
    pub name: &'static str,
    /// What it ran on (the entries of a module), or empty.
    pub detail: String,
    /// Start, from the start of the compilation.
    pub start: Duration,
    /// How long it took.
    pub duration: Duration,
}

impl Report {
    pub(crate) fn push(&mut self, options: &Options, mut diag: Diagnostic) {
        if diag.severity == Severity::Warning {
            if options.disable_warnings {
                return;
            }
            if options.warnings_as_errors {
                diag.severity = Severity::Error;
            }
        }
        self.diagnostics.push(diag);
    }

    fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// A successful compilation.
#[derive(Clone, Debug)]
pub struct Output {
    /// The cubin; `None` when only checking (`-arch=compute_XY`).
    pub cubin: Option<Vec<u8>>,
    /// Diagnostics (warnings, `-v` information), dumps and statistics.
    pub report: Report,
}

/// A failed compilation: no output, and why.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The errors (and everything reported before them); boxed to keep
    /// `Result<Output, Failure>` small.
    pub report: Box<Report>,
    /// Whether ptxas would close with "Ptx assembly aborted due to
    /// errors"; it does not after a mismatch between the input and the
    /// target or the `-e` list, which it reports alone.
    pub aborted: bool,
}

/// Why the pipeline stopped early.
enum Stop {
    /// An error that ptxas reports alone.
    Quiet(Diagnostic),
    /// An error followed by ptxas's closing "aborted" line.
    Aborted(Diagnostic),
}

impl From<Diagnostic> for Stop {
    fn from(diag: Diagnostic) -> Stop {
        Stop::Aborted(diag)
    }
}

/// Compiles one PTX module.
pub fn compile(ptx: &str, options: &Options) -> Result<Output, Failure> {
    compile_sources(&[Source { name: "<input>".into(), text: ptx.into() }], options)
}

/// Compiles several inputs into one cubin, as `ptxas a.ptx b.ptx` does.
pub fn compile_sources(sources: &[Source], options: &Options) -> Result<Output, Failure> {
    let start = Instant::now();
    let mut report = Report::default();
    let result = compile_into(sources, options, &mut report);
    report.compile_time = start.elapsed();
    report.peak_memory = options.meter.map(|m| m.snapshot().peak);
    match result {
        Ok(cubin) if !report.has_errors() => Ok(Output { cubin, report }),
        Ok(_) => Err(Failure { report: Box::new(report), aborted: true }),
        Err(stop) => {
            let (diag, aborted) = match stop {
                Stop::Quiet(diag) => (diag, false),
                Stop::Aborted(diag) => (diag, true),
            };
            report.diagnostics.push(diag);
            Err(Failure { report: Box::new(report), aborted })
        }
    }
}

/// The pipeline; an `Err` is the fatal diagnostic that stopped it.
fn compile_into(sources: &[Source], options: &Options, report: &mut Report) -> Result<Option<Vec<u8>>, Stop> {
    for diag in register_limit_warnings(options) {
        report.push(options, diag);
    }
    // Held until the compile ends: its tokens allow the extra threads.
    let (grant, warning) = jobserver::grant(options.jobserver, options.threads).map_err(Stop::Quiet)?;
    if let Some(diag) = warning {
        report.push(options, diag);
    }
    let registry = Registry::standard();
    let manifest =
        Manifest::load(options.manifest.as_ref(), &registry).map_err(|e| Diagnostic::fatal(e.to_string()))?;
    let started = Instant::now();
    let mut modules = Vec::new();
    let mut ptx_sources = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        if source.is_ori() {
            modules.push(parse_ori(source, options)?);
        } else {
            ptx_sources.push((index, source));
        }
    }
    // Every PTX input goes into one module, as in ptxas.
    let mut ptx = Vec::new();
    if !ptx_sources.is_empty()
        && let Some(checked) = frontend::check(&ptx_sources, options, report).map_err(Stop::Quiet)?
    {
        ptx.push((ptx_sources[0].1, checked));
    }
    if report.has_errors() {
        return Ok(None);
    }
    report.timeline.push(Span {
        name: "PTX parsing and setup time",
        detail: String::new(),
        start: Duration::ZERO,
        duration: started.elapsed(),
    });
    for entry in &options.entries {
        let in_ptx = ptx.iter().any(|(_, c)| frontend::entry_names(&c.module).any(|e| e == entry));
        let in_ori = modules
            .iter()
            .any(|m| m.functions.iter().any(|f| &f.name == entry && f.kind == ori_ir::FunctionKind::Entry));
        if !in_ptx && !in_ori {
            return Err(Stop::Quiet(Diagnostic::fatal(format!("Unknown function {entry}"))));
        }
    }
    if options.check_only {
        return Ok(None);
    }
    let debug_options;
    let options = if !options.device_debug && ptx.iter().any(|(_, c)| frontend::debug_target(&c.module)) {
        if options.opt_level_given && options.opt_level != 0 {
            return Err(Stop::Quiet(Diagnostic::fatal("Optimized debugging not supported")));
        }
        debug_options = Options { device_debug: true, opt_level: 0, ..options.clone() };
        &debug_options
    } else {
        options
    };
    if options.device_debug {
        for (_, checked) in &ptx {
            for d in frontend::missing_debug_sections(&checked.module) {
                report.push(options, d);
            }
        }
    }
    // The PTX text of each module, for its line tables.
    let mut texts: Vec<Option<&str>> = vec![None; modules.len()];
    for (source, checked) in &ptx {
        // Line tables read lines from one text: with several files, the
        // first's (known limit: `-lineinfo` over several files).
        match ptx_lower::lower(&checked.module, &source.text, options.arch) {
            Ok(module) => {
                modules.push(module);
                texts.push(Some(&source.text));
            }
            Err(errors) => {
                for e in errors {
                    // The error's own file, its line there.
                    let file = sources.get(e.span.file.0 as usize).unwrap_or(source);
                    let at = ptx_syntax::LineIndex::new(&file.text).line_col(&file.text, e.span.start as usize);
                    report.push(
                        options,
                        Diagnostic {
                            severity: Severity::Error,
                            location: Some(Location { file: file.name.clone(), line: at.line, column: Some(at.col) }),
                            message: e.message,
                        },
                    );
                }
            }
        }
    }
    if report.has_errors() {
        return Ok(None);
    }
    for module in &mut modules {
        let mut plan = manifest.plan(&registry, module.target, options.opt_level);
        if let Some(limit) = register_limit(options) {
            plan.override_knob("MaxRegs", ori_ir::KnobValue::Int(limit.into()));
        }
        // `-c`: functions keep their own sections, calls go through the linker.
        plan.override_knob("Relocatable", ori_ir::KnobValue::Bool(options.compile_only));
        plan.check(module.props).map_err(|e| Diagnostic::fatal(e.to_string()))?;
        let run_options = manager::RunOptions {
            verify_each: options.verify_each,
            dump_after: Some(&options.dump_after),
            collect_stats: options.stats.any(),
            meter: options.meter,
            cancel: options.cancel.as_deref(),
            threads: grant.threads,
        };
        let optimize_start = started.elapsed();
        let run = manager::run(&plan, module, options.opt_level, run_options);
        let entries: Vec<&str> = module
            .functions
            .iter()
            .filter(|f| f.kind == ori_ir::FunctionKind::Entry)
            .map(|f| f.name.as_str())
            .collect();
        report.timeline.push(Span {
            name: "Optimizing compilation unit",
            detail: entries.join(","),
            start: optimize_start,
            duration: started.elapsed() - optimize_start,
        });
        let run_report = match run {
            Ok(r) => r,
            Err(e) => {
                report.dumps.extend(e.report.dumps);
                report.stats.extend(e.report.stats);
                return Err(Diagnostic::fatal(format!("phase {} failed: {}", e.phase, e.message)).into());
            }
        };
        report.dumps.extend(run_report.dumps);
        report.stats.extend(run_report.stats);
        for (func, time) in module.functions.iter().zip(run_report.function_times) {
            report_function(report, options, module.target, func, time);
        }
        report.module_data.add(object::module_data(module));
    }
    let unencoded: Vec<String> =
        modules.iter().filter(|m| !m.props.contains(ori_ir::Property::Encoded)).map(|m| m.props.to_string()).collect();
    if let Some(props) = unencoded.first() {
        return Err(Diagnostic::fatal(format!(
            "the pipeline ended with the IR at {props}; a cubin needs Encoded code, so none was written"
        ))
        .into());
    }
    let post_start = started.elapsed();
    let mut cubin = None;
    for (module, text) in modules.iter().zip(texts) {
        let mut object = object::object_module(module, options, text)?;
        if options.compile_only {
            object::ptx_facts(&mut object, ptx.iter().map(|(_, checked)| &checked.module))?;
        }
        let bytes = elfw::build(&object).map_err(|e| Diagnostic::fatal(format!("writing the cubin failed: {e}")))?;
        if cubin.replace(bytes).is_some() {
            return Err(Diagnostic::fatal("several Ori modules cannot go into one cubin yet").into());
        }
    }
    report.timeline.push(Span {
        name: "Post processing",
        detail: String::new(),
        start: post_start,
        duration: started.elapsed() - post_start,
    });
    Ok(cubin)
}

/// Records what `-v` reports about `func`, and the warnings
/// `--warn-on-spills` and `--warn-on-local-memory-usage` ask for.
fn report_function(report: &mut Report, options: &Options, sm: ori_ir::Sm, func: &ori_ir::Function, time: Duration) {
    let target = sm.target();
    let attrs = &func.attrs;
    let (stores, loads) = (attrs.spill_store_bytes, attrs.spill_load_bytes);
    if options.warn_on_spills && (stores != 0 || loads != 0) {
        let message = format!(
            "Registers are spilled to local memory in function '{}', {stores} bytes spill stores, {loads} bytes spill loads",
            func.name
        );
        report.push(options, Diagnostic::warning(message));
    }
    if options.warn_on_local_memory_usage && attrs.frame_bytes != 0 {
        let message =
            format!("Local memory used for function '{}', size of stack frame: {} bytes", func.name, attrs.frame_bytes);
        report.push(options, Diagnostic::warning(message));
    }
    if attrs.subroutines.iter().any(|s| s.recursive) {
        // ptxas prints this even without -v (recursion).
        let message = format!("Stack size for entry function '{}' cannot be statically determined", func.name);
        report.push(options, Diagnostic::warning(message));
    }
    let usage = object::Usage::of(func, &target);
    report.functions.push(FunctionReport {
        name: func.name.clone(),
        entry: func.kind == ori_ir::FunctionKind::Entry,
        sm,
        registers: usage.registers,
        barriers: usage.barriers,
        stack_frame: attrs.frame_bytes,
        shared: attrs.shared_bytes.saturating_sub(target.reserved_shared),
        spill_stores: stores,
        spill_loads: loads,
        cmem0: target.param_base + attrs.param_bytes(),
        compile_time: time,
    });
    // The device functions cloned into the kernel, each once (ptxas lists
    // them after the kernels).
    for sub in &attrs.subroutines {
        if report.functions.iter().any(|f| !f.entry && f.name == sub.name) {
            continue;
        }
        report.functions.push(FunctionReport {
            name: sub.name.clone(),
            entry: false,
            sm,
            registers: 0,
            barriers: 0,
            stack_frame: sub.frame_bytes,
            shared: 0,
            spill_stores: sub.spill_bytes.0,
            spill_loads: sub.spill_bytes.1,
            cmem0: 0,
            compile_time: Duration::ZERO,
        });
    }
}

fn parse_ori(source: &Source, options: &Options) -> Result<Module, Diagnostic> {
    let module = ori_ir::text::parse_module(&source.text).map_err(|e| Diagnostic {
        severity: Severity::Error,
        location: Some(Location { file: source.name.clone(), line: e.line as u32, column: Some(e.column as u32) }),
        message: e.message,
    })?;
    if module.target != options.arch {
        return Err(Diagnostic::fatal(format!(
            "{} is Ori for {}; compile it with -arch={}",
            source.name, module.target, module.target
        )));
    }
    Ok(module)
}

/// The register limit `--maxrregcount` asks for, as ptxas applies it:
/// `archmax` and values above the maximum impose nothing, `archmin` is 32
/// (measured: ptxas 13.5 reports "with 32 of maxrregcount option"), and
/// values below the lower bound are raised to it.
fn register_limit(options: &Options) -> Option<u32> {
    let target = options.arch.target();
    match options.max_regs? {
        RegLimit::ArchMax => None,
        RegLimit::ArchMin => Some(32),
        RegLimit::Count(n) if n < 0 || n > i64::from(target.max_regs) => None,
        RegLimit::Count(n) => Some((n as u32).max(target.min_regs)),
    }
}

/// The warnings ptxas gives about `--maxrregcount` before compiling.
fn register_limit_warnings(options: &Options) -> Vec<Diagnostic> {
    let target = options.arch.target();
    match options.max_regs {
        Some(RegLimit::Count(n)) if n > i64::from(target.max_regs) || n < 0 => {
            vec![Diagnostic::warning(format!("Too big maxrregcount value specified {n}, will be ignored"))]
        }
        Some(RegLimit::Count(n)) if n < i64::from(target.min_regs) => vec![Diagnostic::warning(format!(
            "For profile {} adjusting per thread register count of {n} to lower bound of {}",
            options.arch, target.min_regs
        ))],
        _ => Vec::new(),
    }
}
