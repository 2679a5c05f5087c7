//! ptxas's command-line syntax, reproduced from NVIDIA's ptxas 13.5:
//! `--long[=value]` or `--long value`, `-short[=value]` or `-short value`,
//! `-O<digit>` attached, comma lists, and ptxas's exact messages for
//! unknown options, missing or unexpected arguments and bad values.

use crate::diag::Diagnostic;

/// How an option takes its argument.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// No argument.
    Flag,
    /// `true` or `false`.
    Bool,
    /// An integer.
    Number,
    /// Free text.
    Text,
    /// A comma-separated list; repeated uses accumulate.
    List,
    /// Free text taken whole, commas included; repeated uses accumulate
    /// (`--input-as-string`: PTX has commas, and ptxas compiles it).
    Texts,
    /// One of the given words.
    Enum(&'static [&'static str]),
    /// An integer, and one of the given ones.
    NumberIn(&'static [&'static str]),
    /// A comma-separated list of the given words.
    EnumList(&'static [&'static str]),
    /// `archmax`, `archmin` or a number.
    RegLimit,
}

/// One option of the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OptSpec {
    /// Name after `--`.
    pub long: &'static str,
    /// Name after `-` (may equal `long`).
    pub short: &'static str,
    /// Argument form.
    pub arg: ArgKind,
    /// Placeholder for the argument in `--help`.
    pub meta: &'static str,
    /// One line for `--help`; hidden options have none.
    pub help: Option<&'static str>,
}

const fn opt(long: &'static str, short: &'static str, arg: ArgKind, meta: &'static str, help: &'static str) -> OptSpec {
    OptSpec { long, short, arg, meta, help: Some(help) }
}

/// An option missing from `--help`, spelled the same after `-` and `--`.
const fn hidden(long: &'static str, arg: ArgKind) -> OptSpec {
    OptSpec { long, short: long, arg, meta: "", help: None }
}

/// An option missing from `--help` that ptxas reads only after `--`
/// (`-fast-compile` is an unknown option).
const fn hidden_long_only(long: &'static str, arg: ArgKind) -> OptSpec {
    OptSpec { long, short: "", arg, meta: "", help: None }
}

use ArgKind::*;

const CACHE_OPS: &[&str] = &["ca", "cg", "cs", "lu", "cv", "wb", "wt"];
const STATS: &[&str] = &["time", "memory", "detailed"];

/// Every option ptxas 13.5 accepts, plus this compiler's own (at the end).
pub static OPTIONS: &[OptSpec] = &[
    opt("Ofast-compile", "Ofc", Text, "0|min|mid|max", "Trade generated-code quality for compile speed."),
    opt(
        "allow-expensive-optimizations",
        "allow-expensive-optimizations",
        Bool,
        "true|false",
        "Allow optimizations that cost more compile time (default on at -O2 and above).",
    ),
    opt("apply-controls", "apply-controls", Text, "file", "Apply the compiler controls in the file."),
    opt("compile-as-tools-patch", "astoolspatch", Flag, "", "Compile patch code for CUDA tools."),
    opt("compile-only", "c", Flag, "", "Write a relocatable object for nvlink instead of a whole program."),
    opt("compiler-annotations", "annotate", Flag, "", "Emit compiler annotations."),
    opt("def-load-cache", "dlcm", Text, "ca|cg|cs|lu|cv", "Default cache operator of global loads."),
    opt("def-store-cache", "dscm", Text, "wb|cg|cs|wt", "Default cache operator of global stores."),
    opt("device-debug", "g", Flag, "", "Generate debug information (implies -O0)."),
    // Its value is checked only with -c (mod.rs): without, ptxas 13.5
    // warns that it ignores the option, whatever the value.
    opt(
        "device-function-maxrregcount",
        "func-maxrregcount",
        Text,
        "archmax|archmin|N",
        "Register limit of device functions with -c.",
    ),
    opt("device-stack-protector", "device-stack-protector", Bool, "true|false", "Add stack canaries."),
    opt("disable-optimizer-constants", "disable-optimizer-consts", Flag, "", "Do not use the optimizer constant bank."),
    opt("disable-warnings", "w", Flag, "", "Print no warnings."),
    opt("dont-merge-basicblocks", "no-bb-merge", Flag, "", "Keep the PTX basic blocks (for debugging)."),
    opt(
        "enable-func-clone-sc",
        "enable-func-clone-sc",
        Bool,
        "true|false",
        "Clone static functions per entry with -c.",
    ),
    opt("entry", "e", List, "name,...", "Compile only these entry functions."),
    opt("extensible-whole-program", "ewp", Flag, "", "Whole-program output that can still be linked."),
    opt("fmad", "fmad", Bool, "true|false", "Contract multiplies and adds into fused multiply-adds (default true)."),
    opt("force-load-cache", "flcm", Text, "ca|cg|cs|lu|cv", "Force the cache operator of all global loads."),
    opt("force-store-cache", "fscm", Text, "wb|cg|cs|wt", "Force the cache operator of all global stores."),
    opt("g-tensor-memory-access-check", "g-tmem-access-check", Flag, "", "Check tensor-memory accesses."),
    opt("generate-line-info", "lineinfo", Flag, "", "Generate line-number information."),
    opt("gno-fabric-access-check", "gno-fabric-access-check", Flag, "", "No fabric access checks."),
    opt("gno-tensor-memory-access-check", "gno-tmem-access-check", Flag, "", "No tensor-memory access checks."),
    opt(
        "gpu-name",
        "arch",
        Text,
        "sm_XY|compute_XY|lto_XY",
        "Target architecture (default sm_75); compute_XY and lto_XY only check the input.",
    ),
    opt("help", "h", Flag, "", "Print this help."),
    opt("input-as-string", "ias", Texts, "ptx", "Take PTX from the command line instead of a file."),
    opt("jobserver", "jobserver", Flag, "", "Take part in GNU make's jobserver."),
    opt(
        "legacy-bar-warp-wide-behavior",
        "legacy-bar-warp-wide-behavior",
        Flag,
        "",
        "Pre-sm_70 bar semantics (ignored on sm_70 and later).",
    ),
    opt("list-arch", "arch-ls", Flag, "", "List the supported architectures."),
    opt("list-version", "version-ls", Flag, "", "List the supported PTX ISA versions."),
    opt("machine", "m", NumberIn(&["64"]), "64", "Host pointer size (only 64)."),
    opt("make-errors-visible-at-exit", "make-errors-visible-at-exit", Flag, "", "Make memory errors visible at exit."),
    opt("maxntid", "maxntid", List, "x,y,z", "Like .maxntid for entries without it."),
    opt("maxrregcount", "maxrregcount", RegLimit, "archmax|archmin|N", "Limit registers per thread."),
    opt("minnctapersm", "minnctapersm", Number, "N", "Like .minnctapersm for entries without it."),
    opt("opt-level", "O", Number, "N", "Optimization level (default 3)."),
    opt("optimize-float-atomics", "opt-fp-atomics", Flag, "", "Optimize floating-point atomics."),
    opt("options-file", "optf", List, "file,...", "Read more options from files."),
    opt("output-file", "o", Text, "file", "Output file (default elf.o)."),
    opt(
        "override-directive-values",
        "override-directive-values",
        Flag,
        "",
        "Let options override .maxntid, .minnctapersm and .maxnreg.",
    ),
    opt("position-independent-code", "pic", Bool, "true|false", "Deprecated; has no effect."),
    opt("preserve-relocs", "preserve-relocs", Flag, "", "Keep relocations of variables in the output."),
    opt("register-usage-level", "regUsageLevel", Number, "0..10", "How hard to economise registers (default 5)."),
    opt("return-at-end", "ret-end", Flag, "", "Keep the final return (for debugging)."),
    opt("sanitize", "sanitize", Enum(&["memcheck", "threadsteer"]), "memcheck|threadsteer", "Instrument the code."),
    opt("sp-bounds-check", "sp-bounds-check", Flag, "", "Check the stack pointer against its bounds."),
    opt("split-compile", "split-compile", Number, "N", "Threads for optimization (0: one per CPU)."),
    opt(
        "suppress-async-bulk-multicast-advisory-warning",
        "suppress-async-bulk-multicast-advisory-warning",
        Flag,
        "",
        "No multicast advisory.",
    ),
    opt("suppress-debug-info", "suppress-debug-info", Flag, "", "Drop debug sections."),
    opt("suppress-double-demote-warning", "suppress-double-demote-warning", Flag, "", "No double-demotion warning."),
    opt(
        "suppress-position-independent-code-warning",
        "suppress-position-independent-code-warning",
        Flag,
        "",
        "No -pic deprecation warning.",
    ),
    opt("suppress-sparse-mma-advisory-info", "suppress-sparse-mma-advisory-info", Flag, "", "No sparse MMA advisory."),
    opt(
        "suppress-stack-size-warning",
        "suppress-stack-size-warning",
        Flag,
        "",
        "No warning when the stack size cannot be determined.",
    ),
    opt("verbose", "v", Flag, "", "Report resource usage per function."),
    opt("verbose2", "v2", Flag, "", "Like -v, with progress lines."),
    opt("version", "V", Flag, "", "Print the version."),
    opt("warn-on-double-precision-use", "warn-double-usage", Flag, "", "Warn about each line doing double precision."),
    opt("warn-on-local-memory-usage", "warn-lmem-usage", Flag, "", "Warn about functions with a stack frame."),
    opt("warn-on-spills", "warn-spills", Flag, "", "Warn about functions that spill registers."),
    opt("warning-as-error", "Werror", Flag, "", "Make warnings errors."),
    hidden_long_only("compiler-stats", EnumList(STATS)),
    hidden("compiler-stats-file", Text),
    hidden_long_only("fast-compile", Flag),
    hidden("fdevice-time-trace", Text),
    // Hidden options real callers pass: Triton 3.x always gives
    // `--regAllocOptLevel=2`; TensorFlow/XLA users `-sw200428197=true`
    // (through TF_EXTRA_PTXAS_OPTIONS). ptxas takes both without a word.
    hidden("regAllocOptLevel", Number),
    hidden("sw200428197", Bool),
    // Accepted by ptxas 13.5 without a word (a hidden switch, "no forward
    // progress"), both `-noFwdPrg` and `--noFwdPrg`; it takes no value.
    hidden("noFwdPrg", Flag),
    // This compiler's own options.
    opt("phases", "phases", Text, "file", "Use this phase manifest instead of the built-in phases.ron."),
    opt("list-phases", "list-phases", Flag, "", "List the registered phases and the phase plan for the target."),
    opt("verify-each", "verify-each", Flag, "", "Run the IR verifier after every phase."),
    opt(
        "dump-ir-after",
        "dump-ir-after",
        List,
        "phase,...|all",
        "Print the IR after the named phases (or all) to stdout.",
    ),
    opt(
        "diagnostics-format",
        "diagnostics-format",
        Enum(&["ptxas", "human"]),
        "ptxas|human",
        "ptxas's one-line messages, or file:line:column with the source line.",
    ),
];

/// Cache-operator names accepted by `--def-load-cache` and friends.
pub const CACHE_OPERATORS: &[&str] = CACHE_OPS;

/// One option occurrence after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    /// The option.
    pub spec: &'static OptSpec,
    /// Its argument, if it takes one.
    pub value: Option<String>,
}

/// The command line, split into options and input files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Options in order.
    pub options: Vec<Given>,
    /// Input files (`-` is standard input).
    pub inputs: Vec<String>,
    /// Warnings about the command line itself.
    pub warnings: Vec<Diagnostic>,
}

impl Parsed {
    /// The last value given for an option (by long name).
    pub fn value(&self, long: &str) -> Option<&str> {
        self.options.iter().rev().find(|g| g.spec.long == long).and_then(|g| g.value.as_deref())
    }

    /// True when the option was given.
    pub fn has(&self, long: &str) -> bool {
        self.options.iter().any(|g| g.spec.long == long)
    }

    /// Every value given to `long`, each whole.
    pub fn texts(&self, long: &str) -> Vec<String> {
        self.options.iter().filter(|g| g.spec.long == long).filter_map(|g| g.value.clone()).collect()
    }

    /// Every element of a list option, over all its occurrences.
    pub fn list(&self, long: &str) -> Vec<String> {
        self.options
            .iter()
            .filter(|g| g.spec.long == long)
            .filter_map(|g| g.value.as_deref())
            .flat_map(|v| v.split(',').map(str::to_string))
            .collect()
    }
}

/// Parses the arguments (without the program name). An `Err` is the fatal
/// message ptxas would print.
pub fn parse(args: &[String]) -> Result<Parsed, Diagnostic> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let token = &args[i];
        i += 1;
        let (dashes, body) = if let Some(body) = token.strip_prefix("--") {
            (2, body)
        } else if let Some(body) = token.strip_prefix('-').filter(|b| !b.is_empty()) {
            (1, body)
        } else {
            parsed.inputs.push(token.clone());
            continue;
        };
        let (name, attached) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let (spec, attached) = match lookup(dashes, name) {
            Some(spec) => (spec, attached),
            // `-O3`, `-m64`: a value attached to a short name.
            // The rest of the word is the value, `=` and all: ptxas 13.5
            // says `'3=4': expected a number` for `-O3=4`.
            None if let Some(spec) = attached_value_option(dashes, body) => {
                (spec, Some(body[spec.short.len()..].to_string()))
            }
            None => {
                let shown = if dashes == 2 { format!("-{name}") } else { name.to_string() };
                return Err(Diagnostic::fatal(format!("Unknown option '{shown}'")));
            }
        };
        let spelled = format!("{}{name}", "-".repeat(dashes));
        let value = if spec.arg == Flag {
            if attached.is_some() {
                return Err(Diagnostic::fatal(format!("no argument expected after '{spelled}'")));
            }
            None
        } else if spec.long == "opt-level" && dashes == 1 {
            // `-O` never takes the next word (`-O 2` makes 2 an input), and
            // alone it means level 0, as NVIDIA's -v figures show.
            Some(attached.filter(|v| !v.is_empty()).unwrap_or_else(|| "0".to_string()))
        } else if let Some(v) = attached {
            Some(v)
        } else if i < args.len() {
            i += 1;
            Some(args[i - 1].clone())
        } else {
            return Err(Diagnostic::fatal(format!("argument expected after '{spelled}'")));
        };
        if let Some(v) = &value {
            check_value(spec, v)?;
        }
        let redefined = !matches!(spec.arg, Flag | List | Texts | EnumList(_))
            && parsed.options.iter().any(|g| g.spec.long == spec.long && g.value != value);
        if redefined {
            parsed.warnings.push(Diagnostic::warning(format!(
                "incompatible redefinition for option '{}', the last value of this option was used",
                spec.long
            )));
        }
        parsed.options.push(Given { spec, value });
    }
    Ok(parsed)
}

/// The option a single-dash word starts with when the rest of the word is
/// its value: only the one-letter numeric options take that (`-O3`,
/// `-m64`; ptxas rejects `-ofile` and `-e2`).
fn attached_value_option(dashes: usize, word: &str) -> Option<&'static OptSpec> {
    if dashes != 1 {
        return None;
    }
    OPTIONS.iter().find(|s| s.short.len() == 1 && matches!(s.arg, Number | NumberIn(_)) && word.starts_with(s.short))
}

fn lookup(dashes: usize, name: &str) -> Option<&'static OptSpec> {
    OPTIONS.iter().find(|s| if dashes == 2 { s.long == name } else { s.short == name })
}

/// The value checks ptxas makes while parsing, with its messages.
fn check_value(spec: &OptSpec, value: &str) -> Result<(), Diagnostic> {
    let not_defined = |v: &str| Diagnostic::fatal(format!("Value '{v}' is not defined for option '{}'", spec.long));
    match spec.arg {
        Bool if value != "true" && value != "false" => {
            Err(Diagnostic::fatal(format!("'{value}': expected true or false")))
        }
        Number | NumberIn(_) if value.parse::<i64>().is_err() => {
            Err(Diagnostic::fatal(format!("'{value}': expected a number")))
        }
        NumberIn(words) if !words.contains(&value) => Err(not_defined(value)),
        Enum(words) if !words.contains(&value) => Err(not_defined(value)),
        EnumList(words) => match value.split(',').find(|v| !words.contains(v)) {
            Some(bad) => Err(not_defined(bad)),
            None => Ok(()),
        },
        RegLimit if !matches!(value, "archmax" | "archmin") && value.parse::<i64>().is_err() => {
            Err(Diagnostic::fatal(format!("Invalid value '{value}' for option '{}'", spec.long)))
        }
        _ if spec.long == "gpu-name" && !crate::cli::arch_names().any(|a| a == value) => Err(not_defined(value)),
        _ if spec.long == "Ofast-compile" && !matches!(value, "0" | "min" | "mid" | "max") => Err(Diagnostic::fatal(
            format!("Invalid value for --Ofast-compile/-Ofc ({value}), is not 'max', 'mid', 'min', or '0'"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn fatal(line: &str) -> String {
        parse(&args(line)).expect_err(line).message
    }

    #[test]
    fn option_forms() {
        let p = parse(&args("-arch sm_90 --output-file=a.cubin -O2 k.ptx -e a,b --entry c -v")).unwrap();
        assert_eq!(p.value("gpu-name"), Some("sm_90"));
        assert_eq!(p.value("output-file"), Some("a.cubin"));
        assert_eq!(p.value("opt-level"), Some("2"));
        assert_eq!(p.list("entry"), ["a", "b", "c"]);
        assert!(p.has("verbose"));
        assert_eq!(p.inputs, ["k.ptx"]);
        let p = parse(&args("-O 2")).unwrap();
        assert_eq!(p.inputs, ["2"], "`-O 2` makes 2 an input file, as in ptxas");
        assert_eq!(p.value("opt-level"), Some("0"));
        assert_eq!(parse(&args("-m64")).unwrap().value("machine"), Some("64"));
    }

    #[test]
    fn messages_match_ptxas() {
        assert_eq!(fatal("--foo k.ptx"), "Unknown option '-foo'");
        assert_eq!(fatal("-foo k.ptx"), "Unknown option 'foo'");
        assert_eq!(fatal("--arch=sm_90"), "Unknown option '-arch'");
        assert_eq!(fatal("-arch"), "argument expected after '-arch'");
        assert_eq!(fatal("-v=1"), "no argument expected after '-v'");
        assert_eq!(fatal("--verbose=true"), "no argument expected after '--verbose'");
        assert_eq!(fatal("--maxrregcount abc"), "Invalid value 'abc' for option 'maxrregcount'");
        assert_eq!(fatal("-Ox"), "'x': expected a number");
        assert_eq!(fatal("-m32"), "Value '32' is not defined for option 'machine'");
        assert_eq!(fatal("--fmad=yes"), "'yes': expected true or false");
        assert_eq!(fatal("-arch=sm_70"), "Value 'sm_70' is not defined for option 'gpu-name'");
        assert_eq!(fatal("--compiler-stats=time,foo"), "Value 'foo' is not defined for option 'compiler-stats'");
        assert_eq!(fatal("-vc"), "Unknown option 'vc'");
        assert_eq!(fatal("-mfoo"), "'foo': expected a number");
        assert_eq!(fatal("-o/tmp/x.cubin"), "Unknown option 'o/tmp/x.cubin'");
        assert_eq!(fatal("-e2"), "Unknown option 'e2'");
    }

    #[test]
    fn hidden_options_of_real_callers() {
        let p = parse(&args("-lineinfo -v --regAllocOptLevel=2 --gpu-name=sm_90a k.ptx -o k.o")).unwrap();
        assert_eq!(p.value("regAllocOptLevel"), Some("2"));
        assert!(parse(&args("-regAllocOptLevel 3 -sw200428197=true --fast-compile")).is_ok());
        assert_eq!(fatal("--regAllocOptLevel=x"), "'x': expected a number");
        assert_eq!(fatal("-sw200428197=yes"), "'yes': expected true or false");
        assert_eq!(fatal("-fast-compile"), "Unknown option 'fast-compile'");
        assert_eq!(fatal("--fast-compile=1"), "no argument expected after '--fast-compile'");
        assert_eq!(fatal("-compiler-stats=time"), "Unknown option 'compiler-stats'");
    }

    #[test]
    fn redefinition_warns() {
        let p = parse(&args("--gpu-name=sm_90 --gpu-name=sm_80")).unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.value("gpu-name"), Some("sm_80"));
        assert!(parse(&args("-arch=sm_90 -arch=sm_90")).unwrap().warnings.is_empty());
    }
}
