//! Our compiler, in process (the library: always the current sources),
//! and its intermediate forms for `difftest --manifest`: the Ori module
//! right after lowering and after every phase of the plan, each run on the
//! interpreter to name the first phase whose result differs from NVIDIA's.

use std::path::Path;

use ori_ir::{Module, Sm};
use ptxas::{DumpAfter, Options, Source};

/// Our cubin for `ptx` at the defaults (-O3), or our first error message.
pub(crate) fn compile_ours(ptx: &Path, arch: &str) -> Result<Vec<u8>, String> {
    let (name, text) = read(ptx)?;
    let options = Options { arch: sm(arch)?, ..Options::default() };
    match ptxas::compile_sources(&[Source { name, text }], &options) {
        Ok(output) => output.cubin.ok_or_else(|| "our ptxas made no cubin".to_string()),
        Err(failure) => Err(first_error(&failure.report)),
    }
}

fn read(ptx: &Path) -> Result<(String, String), String> {
    let text = std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let name = ptx.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok((name, text))
}

fn sm(arch: &str) -> Result<Sm, String> {
    arch.parse().map_err(|e| format!("{e:?}"))
}

fn first_error(report: &ptxas::Report) -> String {
    report.diagnostics.iter().find(|d| d.is_error()).map_or_else(|| "our ptxas failed".into(), ToString::to_string)
}

/// One form of our compile: its name (`lowering`, or the phase that just
/// ran) and the module, or why it could not be had.
pub(crate) struct Stage {
    pub name: String,
    pub module: Result<Module, String>,
}

/// Every form of `ptx` on its way through our pipeline: lowered, then after
/// each phase (the dumps of `--dump-ir-after all`, parsed back). A phase
/// that fails ends the list with its error.
pub(crate) fn stages(ptx: &Path, arch: &str) -> Result<Vec<Stage>, String> {
    let (name, text) = read(ptx)?;
    let target = sm(arch)?;
    let (mut ast, diags) = ptx_syntax::parse(&text, ptx_syntax::FileId(0));
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(format!("{d:?}"));
    }
    // As the driver does before lowering (ptxas's frontend::check): Triton's
    // `mov.b32 %r, 0fFF800000` lowers only once normalized.
    ptx_syntax::normalize(&mut ast);
    let lowered = ptx_lower::lower(&ast, &text, target)
        .map_err(|e| format!("lowering: {}", e.first().map_or_else(String::new, ToString::to_string)))?;
    let mut stages = vec![Stage { name: "lowering".into(), module: Ok(lowered) }];
    let options = Options { arch: target, dump_after: DumpAfter::All, ..Options::default() };
    let report = match ptxas::compile_sources(&[Source { name, text }], &options) {
        Ok(output) => output.report,
        Err(failure) => {
            let error = first_error(&failure.report);
            let mut report = *failure.report;
            // The phase after the last dump is the one that failed.
            report.dumps.push(ptxas::IrDump { after: "(the next phase)".into(), text: String::new() });
            stages.extend(parsed(&report));
            if let Some(last) = stages.last_mut() {
                last.module = Err(error);
            }
            return Ok(stages);
        }
    };
    stages.extend(parsed(&report));
    Ok(stages)
}

fn parsed(report: &ptxas::Report) -> Vec<Stage> {
    report
        .dumps
        .iter()
        .map(|d| Stage {
            name: d.after.clone(),
            module: ori_ir::text::parse_module(&d.text).map_err(|e| format!("its dump does not parse back: {e:?}")),
        })
        .collect()
}

/// Runs a stage's module on the launch: the buffers afterwards.
pub(crate) type StageRun<'a> = &'a dyn Fn(&Module) -> Result<Vec<Vec<u8>>, String>;

/// Whether a stage's buffers agree with the reference (the first difference when not).
pub(crate) type SameAsReference<'a> = &'a dyn Fn(&[Vec<u8>]) -> Result<(), String>;

/// The first stage whose result differs from the reference (`same` says
/// whether outputs agree, naming the first difference when not): `Some`
/// with a message naming the stage and the last good one, or `None` when
/// every stage agrees (the difference then lies in encoding or the cubin).
pub(crate) fn first_differing(stages: &[Stage], run: StageRun, same: SameAsReference) -> Option<String> {
    let mut last_good: Option<&str> = None;
    for stage in stages {
        let result = stage.module.as_ref().map_err(Clone::clone).and_then(run).and_then(|out| same(&out));
        if let Err(e) = result {
            let after = last_good.map_or_else(String::new, |g| format!(" (same up to {g})"));
            return Some(format!("first phase whose result differs: {}{after}: {e}", stage.name));
        }
        last_good = Some(&stage.name);
    }
    None
}
