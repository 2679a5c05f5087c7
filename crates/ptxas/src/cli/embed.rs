//! The command line as NVIDIA's in-process compiler (nvPTXCompiler) runs
//! it: the same option strings, PTX from memory, the cubin and the logs
//! returned instead of written. What differs from the command line was
//! measured on NVIDIA's `libnvptxcompiler_static.a` 13.5:
//!
//! - the input is named `application ptx input` in messages;
//! - `-o` is ignored (nothing is written); other arguments that are not
//!   options are input files, read like the command line's;
//! - on success, warnings and the `-v` report go to the info log, the
//!   report's frame lines prefixed `ptxas         .` ([`verbose::Layout`]);
//!   on failure every message, and the closing "aborted" line, go to the
//!   error log;
//! - `-arch=compute_XX` only checks the PTX: [`Outcome::ParseOnly`];
//! - a flow callback asked before every phase may stop the compilation:
//!   [`Outcome::Cancelled`], and nothing is added to the logs.

use crate::cli::verbose::{self, Layout};
use crate::cli::{Io, options_from, parse_with_option_files, read_input};
use crate::diag::{ABORTED, Diagnostic};
use crate::{Cancel, Source, compile_sources, version};

/// The name NVIDIA's library gives its in-memory input.
pub const INPUT_NAME: &str = "application ptx input";

/// How an in-memory compilation ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The cubin.
    Compiled(Vec<u8>),
    /// `compute_XX`: the PTX was checked, no code was generated.
    ParseOnly,
    /// Errors (in the error log).
    Failed,
    /// The cancellation check said stop.
    Cancelled,
}

/// One in-memory compilation.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// Warnings and `-v` output, one message per line.
    pub info_log: String,
    /// Errors, one message per line.
    pub error_log: String,
}

/// Compiles `ptx` with command-line `options` (no program name), as
/// nvPTXCompiler's `nvPTXCompilerCompile` does; `cancel`, if any, is asked
/// first and before every phase.
pub fn compile(options: &[String], ptx: &str, cancel: Option<Cancel>) -> Run {
    let cancelled = || cancel.as_ref().is_some_and(|c| c());
    let mut info = Vec::new();
    let mut error = Vec::new();
    let outcome = if cancelled() {
        Outcome::Cancelled
    } else {
        match compile_inner(options, ptx, cancel.clone(), &mut info) {
            Ok(outcome) => outcome,
            // The callback's answer is final once it says stop.
            Err(_) if cancelled() => Outcome::Cancelled,
            Err(diagnostics) => {
                error = diagnostics;
                Outcome::Failed
            }
        }
    };
    Run { outcome, info_log: lines(&info), error_log: lines(&error) }
}

/// Ok with the messages for the info log, or Err with those for the error log.
fn compile_inner(
    options: &[String],
    ptx: &str,
    cancel: Option<Cancel>,
    info: &mut Vec<String>,
) -> Result<Outcome, Vec<String>> {
    let texts = |diags: Vec<Diagnostic>| diags.iter().map(Diagnostic::to_string).collect::<Vec<_>>();
    let mut parsed = parse_with_option_files(options).map_err(texts)?;
    parsed.options.retain(|g| g.spec.long != "output-file");
    let (mut options, warnings) = options_from(&parsed).map_err(texts)?;
    options.cancel = cancel;
    let mut sources = vec![Source { name: INPUT_NAME.into(), text: ptx.into() }];
    let mut no_stdin = std::io::empty();
    let (mut sink_out, mut sink_err) = (Vec::new(), Vec::new());
    let mut io = Io { stdin: &mut no_stdin, stdout: &mut sink_out, stderr: &mut sink_err };
    for input in &parsed.inputs {
        sources.push(read_input(input, &mut io).map_err(texts)?);
    }
    let mut messages = texts(warnings);
    match compile_sources(&sources, &options) {
        Ok(output) => {
            messages.extend(texts(output.report.diagnostics.clone()));
            if options.verbose && output.cubin.is_some() {
                let mut report = Vec::new();
                verbose::write_as(&output.report, Layout::Library, &mut report).expect("writing to memory");
                messages.extend(String::from_utf8_lossy(&report).lines().map(str::to_string));
            }
            info.extend(messages);
            Ok(output.cubin.map_or(Outcome::ParseOnly, Outcome::Compiled))
        }
        Err(failure) => {
            messages.extend(texts(failure.report.diagnostics.clone()));
            if failure.aborted {
                messages.push(Diagnostic::fatal(ABORTED).to_string());
            }
            Err(messages)
        }
    }
}

/// `messages` as a log: each on its own line.
fn lines(messages: &[String]) -> String {
    messages.iter().map(|m| format!("{m}\n")).collect()
}

/// The `major.minor` of the ptxas this library stands in for.
pub fn version() -> (u32, u32) {
    let (major, minor) = version::COMPATIBLE_RELEASE.split_once('.').expect("release is major.minor");
    (major.parse().expect("a number"), minor.parse().expect("a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n \
                          .reg .b64 a;\n .reg .f64 r;\n ld.param.u64 a, [p];\n cvta.to.global.u64 a, a;\n \
                          ld.global.f64 r, [a];\n add.f64 r, r, 0d3FF0000000000000;\n st.global.f64 [a], r;\n \
                          ret;\n}\n";

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn verbose_goes_to_the_info_log_in_the_library_layout() {
        let run = compile(&args(&["--gpu-name=sm_90", "-v", "-o", "/nonexistent/x.cubin"]), KERNEL, None);
        assert!(matches!(run.outcome, Outcome::Compiled(_)), "{run:?}");
        assert_eq!(run.error_log, "");
        let lines: Vec<&str> = run.info_log.lines().collect();
        assert_eq!(lines[0], "ptxas info    : 0 bytes gmem");
        assert_eq!(lines[1], "ptxas info    : Compiling entry function 'k' for 'sm_90'");
        assert!(lines[3].starts_with("ptxas         .     0 bytes stack frame"), "{lines:?}");
    }

    #[test]
    fn errors_and_the_closing_line_go_to_the_error_log() {
        let bad = KERNEL.replace("add.f64", "foo.f64");
        let run = compile(&args(&["--gpu-name=sm_90"]), &bad, None);
        assert_eq!(run.outcome, Outcome::Failed);
        assert_eq!(run.info_log, "");
        assert!(run.error_log.starts_with("ptxas application ptx input, line 11; error   : "), "{}", run.error_log);
        assert!(run.error_log.ends_with("ptxas fatal   : Ptx assembly aborted due to errors\n"));
        let unknown = compile(&args(&["--bogus"]), KERNEL, None);
        assert_eq!(unknown.outcome, Outcome::Failed);
        assert_eq!(unknown.error_log, "ptxas fatal   : Unknown option '-bogus'\n");
    }

    #[test]
    fn compute_targets_only_check() {
        assert_eq!(compile(&args(&["--gpu-name=compute_90"]), KERNEL, None).outcome, Outcome::ParseOnly);
    }

    #[test]
    fn the_callback_stops_between_phases() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let asked = Arc::new(AtomicUsize::new(0));
        let counter = asked.clone();
        // Stop at the third question: after two phases have run.
        let cancel: Cancel = Arc::new(move || counter.fetch_add(1, Ordering::SeqCst) >= 2);
        let run = compile(&args(&["--gpu-name=sm_90"]), KERNEL, Some(cancel));
        assert_eq!(run.outcome, Outcome::Cancelled);
        assert_eq!((run.info_log.as_str(), run.error_log.as_str()), ("", ""));
        assert!(asked.load(Ordering::SeqCst) >= 3);
        let never: Cancel = Arc::new(|| false);
        assert!(matches!(compile(&args(&["--gpu-name=sm_90"]), KERNEL, Some(never)).outcome, Outcome::Compiled(_)));
    }
}
