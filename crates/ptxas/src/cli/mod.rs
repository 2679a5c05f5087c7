//! The `ptxas` command line: NVIDIA's syntax, messages and exit codes over
//! the library API.

pub mod args;
pub mod embed;
mod help;
mod trace;
mod verbose;

use std::io::{Read, Write};
use std::path::Path;

use ori_ir::{Family, Sm};

use crate::diag::{ABORTED, Diagnostic, Severity};
use crate::manager::DumpAfter;
use crate::options::{CacheOp, ManifestSource, Options, RegLimit};
use crate::stats::{MemoryMeter, StatsRequest, format_size, phase_lines};
use crate::{Report, Source, compile_sources, version};

/// ptxas's exit status for every failure.
pub const EXIT_FAILURE: u8 = 255;

/// Every `-arch` value ptxas 13.5 accepts.
pub fn arch_names() -> impl Iterator<Item = String> {
    Sm::all().flat_map(|sm| {
        let real = sm.to_string();
        let tail = real.trim_start_matches("sm_").to_string();
        [real, format!("compute_{tail}"), format!("lto_{tail}")]
    })
}

/// Where the command line reads and writes; a struct so tests can run the
/// whole command line in-process.
pub struct Io<'a> {
    /// Standard input (for the `-` input file).
    pub stdin: &'a mut dyn Read,
    /// Standard output.
    pub stdout: &'a mut dyn Write,
    /// Standard error.
    pub stderr: &'a mut dyn Write,
}

/// How diagnostics are shown.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Format {
    Ptxas,
    Human,
}

/// Runs ptxas with `args` (without the program name); returns the exit
/// status.
pub fn run(args: &[String], io: &mut Io<'_>, meter: Option<&'static dyn MemoryMeter>) -> u8 {
    match run_inner(args, io, meter) {
        Ok(code) => code,
        Err(diags) => {
            for d in &diags {
                let _ = writeln!(io.stderr, "{d}");
            }
            EXIT_FAILURE
        }
    }
}

fn run_inner(args: &[String], io: &mut Io<'_>, meter: Option<&'static dyn MemoryMeter>) -> Result<u8, Vec<Diagnostic>> {
    let parsed = parse_with_option_files(args)?;
    for w in &parsed.warnings {
        let _ = writeln!(io.stderr, "{w}");
    }
    if parsed.has("version") {
        let _ = write!(io.stdout, "{}", version::banner());
        return Ok(0);
    }
    if parsed.has("help") {
        let _ = write!(io.stdout, "{}", help::text());
        return Ok(0);
    }
    if parsed.has("list-arch") {
        let _ = write!(io.stdout, "{}", version::list_arch());
        return Ok(0);
    }
    if parsed.has("list-version") {
        let _ = write!(io.stdout, "{}", version::list_version());
        return Ok(0);
    }
    let (mut options, warnings) = options_from(&parsed)?;
    options.meter = meter;
    // An option warning made an error (`-Werror`): ptxas still reads and
    // checks the PTX, printing its errors, then aborts without output.
    let option_errors = warnings.iter().any(Diagnostic::is_error);
    if option_errors {
        options.check_only = true;
    }
    let format = if parsed.value("diagnostics-format") == Some("human") { Format::Human } else { Format::Ptxas };
    if parsed.has("list-phases") {
        return list_phases(&options, io).map_err(|d| vec![d]);
    }
    let strings = parsed.texts("input-as-string");
    if parsed.inputs.is_empty() && strings.is_empty() {
        let _ = write!(io.stdout, "{}", help::text());
        return Ok(0);
    }
    let mut sources = Vec::new();
    for input in &parsed.inputs {
        sources.push(read_input(input, io)?);
    }
    // ptxas names such an input "application ptx input" in its messages.
    sources.extend(strings.into_iter().map(|text| Source { name: "application ptx input".into(), text }));
    let output = parsed.value("output-file").unwrap_or("elf.o").to_string();

    let mut report_warnings: Vec<Diagnostic> = warnings;
    let result = compile_sources(&sources, &options);
    let (report, cubin) = match result {
        Ok(out) => (out.report, Ok(out.cubin)),
        Err(failure) => (*failure.report, Err(failure.aborted)),
    };
    report_warnings.extend(report.diagnostics.iter().cloned());
    print_dumps(&report, io);
    for d in &report_warnings {
        print_diagnostic(d, format, &sources, io);
    }
    let cubin = match cubin {
        Ok(_) if option_errors => Err(true),
        other => other,
    };
    if options.verbose && cubin.is_ok() {
        let _ = verbose::write(&report, io.stderr);
    }
    print_stats(&report, &options, &parsed, &sources, io).map_err(|d| vec![d])?;
    match cubin {
        Err(aborted) => {
            if aborted {
                let _ = writeln!(io.stderr, "{}", Diagnostic::fatal(ABORTED));
            }
            Ok(EXIT_FAILURE)
        }
        Ok(None) => Ok(0),
        Ok(Some(bytes)) => {
            write_atomically(Path::new(&output), &bytes)
                .map_err(|_| vec![Diagnostic::fatal(format!("Output file '{output}' could not be opened"))])?;
            // ptxas writes the cubin first and the trace after it.
            if let Some(file) = parsed.value("fdevice-time-trace") {
                let input = sources.first().map_or("", |s| s.name.as_str());
                trace::append(file, input, &report).map_err(|d| vec![d])?;
            }
            Ok(0)
        }
    }
}

/// Parses the command line, reading `--options-file` files into it.
fn parse_with_option_files(args: &[String]) -> Result<args::Parsed, Vec<Diagnostic>> {
    let parsed = args::parse(args).map_err(|d| vec![d])?;
    let files = parsed.list("options-file");
    if files.is_empty() {
        return Ok(parsed);
    }
    let mut all = args.to_vec();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|_| vec![Diagnostic::fatal(format!("Options file '{file}' could not be opened"))])?;
        all.extend(text.split_whitespace().map(str::to_string));
    }
    let mut reparsed = args::parse(&all).map_err(|d| vec![d])?;
    reparsed.options.retain(|g| g.spec.long != "options-file");
    Ok(reparsed)
}

/// Maps parsed options onto the library's, with ptxas's checks and
/// warnings.
fn options_from(parsed: &args::Parsed) -> Result<(Options, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut options = Options::default();
    let mut warnings = Vec::new();
    if let Some(arch) = parsed.value("gpu-name") {
        let (real, check_only) = match arch.split_once('_') {
            Some(("compute" | "lto", tail)) => (format!("sm_{tail}"), true),
            _ => (arch.to_string(), false),
        };
        options.arch = real
            .parse()
            .map_err(|_| vec![Diagnostic::fatal(format!("Value '{arch}' is not defined for option 'gpu-name'"))])?;
        options.check_only = check_only;
    }
    if let Some(level) = parsed.value("opt-level") {
        options.opt_level = level.parse::<i64>().unwrap_or(3).clamp(0, 9) as u8;
        options.opt_level_given = true;
    }
    options.max_regs = parsed.value("maxrregcount").map(|v| match v {
        "archmax" => RegLimit::ArchMax,
        "archmin" => RegLimit::ArchMin,
        n => RegLimit::Count(n.parse().expect("checked while parsing")),
    });
    options.compile_only = parsed.has("compile-only");
    options.fmad = parsed.value("fmad") != Some("false");
    options.line_info = parsed.has("generate-line-info");
    options.device_debug = parsed.has("device-debug");
    if options.device_debug {
        // -g means -O0; ptxas refuses any other level given with it.
        if parsed.value("opt-level").and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l != 0) {
            return Err(vec![Diagnostic::fatal("Optimized debugging not supported")]);
        }
        options.opt_level = 0;
    }
    // The option warnings, in the order ptxas 13.5 prints them (measured
    // with all of them on one command line).
    if parsed.value("position-independent-code").is_some() {
        // `true` and `false` alike.
        warnings.push(Diagnostic::warning(
            "'--position-independent-code' is a deprecated option and is no longer functional. It will be removed in a future release",
        ));
    }
    if let Some(level) = parsed.value("register-usage-level").and_then(|v| v.parse::<i64>().ok())
        && !(0..=10).contains(&level)
    {
        warnings.push(Diagnostic::warning(format!(
            "Value of RegUsageLevel ({level}) is out of valid range {{0..10}}, option will be ignored"
        )));
    }
    if options.device_debug && options.line_info {
        warnings.push(Diagnostic::warning(
            "Conflicting options --device-debug and --generate-line-info specified, ignoring --generate-line-info option",
        ));
        options.line_info = false;
    }
    if options.device_debug && parsed.has("register-usage-level") {
        warnings.push(Diagnostic::warning(
            "Conflicting options '--device-debug' and '--register-usage-level' specified, ignoring '--register-usage-level' option",
        ));
    }
    if let Some(value) = parsed.value("device-function-maxrregcount") {
        if !parsed.has("compile-only") {
            warnings.push(Diagnostic::warning(
                "Command line option 'device-function-maxrregcount' not supported for 'whole program compilation', will be ignored",
            ));
        } else if !matches!(value, "archmax" | "archmin") && value.parse::<i64>().is_err() {
            return Err(vec![Diagnostic::fatal(format!(
                "Invalid value '{value}' for option 'device-function-maxrregcount'"
            ))]);
        }
    }
    // `--maxrregcount` wins over the occupancy options.
    if options.max_regs.is_some() {
        for ignored in ["minnctapersm", "maxntid"] {
            if parsed.has(ignored) {
                warnings.push(Diagnostic::warning(format!(
                    "Conflicting options -maxrregcount and -{ignored} specified, ignoring -{ignored} option"
                )));
            }
        }
    }
    options.entries = parsed.list("entry");
    options.threads = match parsed.value("split-compile").map(str::parse::<usize>) {
        Some(Ok(0)) => std::thread::available_parallelism().map_or(1, usize::from),
        Some(Ok(n)) => n,
        _ => 1,
    };
    options.jobserver = parsed.has("jobserver");
    options.verbose = parsed.has("verbose") || parsed.has("verbose2");
    options.warn_on_spills = parsed.has("warn-on-spills");
    options.warn_on_local_memory_usage = parsed.has("warn-on-local-memory-usage");
    options.warn_on_double_precision_use = parsed.has("warn-on-double-precision-use");
    options.warnings_as_errors = parsed.has("warning-as-error");
    options.disable_warnings = parsed.has("disable-warnings");
    let cache = |long: &str, kind: &str, allowed: &[&str]| -> Result<Option<CacheOp>, Vec<Diagnostic>> {
        match parsed.value(long) {
            None => Ok(None),
            Some(v) if allowed.contains(&v) => Ok(CacheOp::from_name(v)),
            Some(v) => Err(vec![
                Diagnostic::error(format!("Invalid default cache modifier on {kind} specified: {v}")),
                Diagnostic::fatal(ABORTED),
            ]),
        }
    };
    options.default_load_cache = cache("def-load-cache", "load", &["ca", "cg", "cs", "lu", "cv"])?;
    options.default_store_cache = cache("def-store-cache", "store", &["wb", "cg", "cs", "wt"])?;
    if let Some(file) = parsed.value("phases") {
        let text = std::fs::read_to_string(file)
            .map_err(|_| vec![Diagnostic::fatal(format!("Phase manifest '{file}' could not be opened"))])?;
        options.manifest = Some(ManifestSource { file: file.to_string(), text });
    }
    options.verify_each = parsed.has("verify-each");
    let dumps = parsed.list("dump-ir-after");
    options.dump_after = if dumps.iter().any(|d| d == "all") {
        DumpAfter::All
    } else if dumps.is_empty() {
        DumpAfter::None
    } else {
        DumpAfter::Phases(dumps)
    };
    let stats = parsed.list("compiler-stats");
    options.stats = StatsRequest {
        time: stats.iter().any(|s| s == "time" || s == "detailed"),
        memory: stats.iter().any(|s| s == "memory" || s == "detailed"),
    };
    if parsed.has("preserve-relocs") && PRESERVE_RELOCS_PARTIAL.contains(&options.arch.target().isa.generation) {
        let arch = parsed.value("gpu-name").unwrap_or_default();
        warnings.push(Diagnostic::warning(format!(
            "'--preserve-relocs' option is not fully implemented for '{arch}' and may not work as expected"
        )));
    }
    if parsed.has("suppress-debug-info") && !options.device_debug && !options.line_info {
        warnings.push(Diagnostic::warning(
            "Option suppress-debug-info requires option device-debug or lineinfo; ignoring since latter is not specified",
        ));
    }
    // The option warnings obey `-w` and `-Werror` as the PTX's do
    // (ptxas 13.5: `--position-independent-code=true -Werror` prints an
    // error and aborts), all but the one about `--compiler-stats-file`,
    // which ptxas prints first and always as a warning.
    let mut shown = Vec::new();
    if parsed.has("compiler-stats-file") && !parsed.has("compiler-stats") {
        shown.push(Diagnostic::warning(
            "Option '--compiler-stats-file' requires option '--compiler-stats'; ignoring since latter is not specified",
        ));
    }
    if !options.disable_warnings {
        for mut w in warnings {
            if options.warnings_as_errors {
                w.severity = Severity::Error;
            }
            shown.push(w);
        }
    }
    Ok((options, shown))
}

/// The SASS generations for which NVIDIA's ptxas 13.5 warns that
/// `--preserve-relocs` "is not fully implemented" (measured: sm_90,
/// sm_90a, sm_100, sm_100a, sm_103, sm_110, sm_120, sm_121 and
/// `compute_90` warn; sm_75 through sm_89 do not).
const PRESERVE_RELOCS_PARTIAL: &[Family] = &[Family::Hopper, Family::Blackwell];

fn read_input(name: &str, io: &mut Io<'_>) -> Result<Source, Vec<Diagnostic>> {
    let unreadable =
        || vec![Diagnostic::fatal(format!("Input file '{name}' could not be opened")), Diagnostic::fatal(ABORTED)];
    let bytes = if name == "-" {
        let mut bytes = Vec::new();
        io.stdin.read_to_end(&mut bytes).map_err(|_| unreadable())?;
        bytes
    } else {
        std::fs::read(name).map_err(|_| unreadable())?
    };
    // PTX is ASCII, but ptxas takes any byte in comments and strings; bytes
    // that are not UTF-8 become U+FFFD, which changes no line number.
    let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok(Source { name: if name == "-" { "<stdin>".into() } else { name.to_string() }, text })
}

/// Writes through a temporary file and a rename, so that a failure never
/// leaves a partial output behind. An output that exists and is not a
/// regular file (`-o /dev/null`, a FIFO) is written in place: a rename
/// would replace the device node itself with a regular file.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::write(path, bytes);
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().ok_or(std::io::ErrorKind::InvalidInput)?;
    let tmp = dir.join(format!(".{}.{}.tmp", file_name.to_string_lossy(), std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn print_dumps(report: &Report, io: &mut Io<'_>) {
    for dump in &report.dumps {
        let _ = writeln!(io.stdout, "// ---- IR after {} ----", dump.after);
        let _ = write!(io.stdout, "{}", dump.text);
    }
}

fn print_diagnostic(d: &Diagnostic, format: Format, sources: &[Source], io: &mut Io<'_>) {
    let located = d.location.as_ref().and_then(|loc| Some((loc, loc.column?)));
    match (format, located) {
        (Format::Human, Some((loc, column))) => {
            let _ = writeln!(io.stderr, "{}:{}:{column}: {}: {}", loc.file, loc.line, d.severity.word(), d.message);
            let text =
                sources.iter().find(|s| s.name == loc.file).and_then(|s| s.text.lines().nth(loc.line as usize - 1));
            if let Some(text) = text {
                let gutter = loc.line.to_string().len();
                let _ = writeln!(io.stderr, "{:gutter$} |", "");
                let _ = writeln!(io.stderr, "{} | {text}", loc.line);
                let _ = writeln!(io.stderr, "{:gutter$} | {:>width$}", "", "^", width = column as usize);
            }
        }
        _ => {
            let _ = writeln!(io.stderr, "{d}");
        }
    }
}

fn print_stats(
    report: &Report,
    options: &Options,
    parsed: &args::Parsed,
    sources: &[Source],
    io: &mut Io<'_>,
) -> Result<(), Diagnostic> {
    if !options.stats.any() {
        return Ok(());
    }
    let mut lines = phase_lines(&report.stats, options.stats);
    if options.stats.time {
        lines.push(format!("STAT: CompileTime = {:.6} ms", report.compile_time.as_secs_f64() * 1e3));
    }
    if options.stats.memory
        && let Some(peak) = report.peak_memory
    {
        lines.push(format!("STAT: PeakMemoryUsage = {}", format_size(peak)));
    }
    match parsed.value("compiler-stats-file") {
        Some(file) => {
            let input = sources.first().map_or("", |s| s.name.as_str());
            let body: String = lines.iter().map(|l| format!("{}\n", l.trim_start_matches("STAT: "))).collect();
            std::fs::write(file, format!("{input} >>\n\n{body}"))
                .map_err(|_| Diagnostic::fatal(format!("Output file '{file}' could not be opened")))
        }
        None => {
            for line in lines {
                let _ = writeln!(io.stderr, "{}", Diagnostic::info(line));
            }
            Ok(())
        }
    }
}

/// `--list-phases`: the registry, then the plan for the chosen target and
/// -O level.
fn list_phases(options: &Options, io: &mut Io<'_>) -> Result<u8, Diagnostic> {
    let registry = crate::Registry::standard();
    let manifest =
        crate::Manifest::load(options.manifest.as_ref(), &registry).map_err(|e| Diagnostic::fatal(e.to_string()))?;
    let _ = writeln!(io.stdout, "registered phases:");
    for phase in registry.iter() {
        let _ = writeln!(
            io.stdout,
            "  {:<28} requires {} establishes {} invalidates {}  {}",
            phase.name(),
            phase.requires(),
            phase.establishes(),
            phase.invalidates(),
            phase.description()
        );
    }
    let _ = writeln!(io.stdout, "plan for {} at -O{}:", options.arch, options.opt_level);
    for planned in manifest.plan(&registry, options.arch, options.opt_level).phases {
        let hook = planned.hook.map(|h| format!("  (from hook {h})")).unwrap_or_default();
        let _ = writeln!(io.stdout, "  [{}] {}{hook}", planned.stage, planned.phase.name());
    }
    Ok(0)
}
