//! PTX input: parse, check against the target, validate, and turn the
//! front end's diagnostics into the driver's.

use ptx_syntax::ast::{Item, Module};
use ptx_syntax::{FileId, LineIndex};

use crate::diag::{Diagnostic, Location};
use crate::{Options, Report, Source};

/// A parsed and validated PTX module.
pub struct Checked {
    /// The AST.
    pub module: Module,
}

/// Parses and validates one PTX input. Syntax errors stop before
/// validation, as in ptxas; every error found is pushed to `report`, and
/// `Ok(None)` means the input is rejected. `Err` is a fatal mismatch
/// between the PTX and the target, which ptxas reports on its own.
pub fn check(
    source: &Source,
    file: FileId,
    options: &Options,
    report: &mut Report,
) -> Result<Option<Checked>, Diagnostic> {
    let (module, syntax) = ptx_syntax::parse(&source.text, file);
    let index = LineIndex::new(&source.text);
    let convert = |d: &ptx_syntax::Diagnostic| Diagnostic {
        severity: d.severity,
        location: d.span.map(|span| {
            let at = index.line_col(&source.text, span.start as usize);
            Location { file: source.name.clone(), line: at.line, column: Some(at.col) }
        }),
        message: d.message.clone(),
    };
    let rejected = syntax.iter().any(ptx_syntax::Diagnostic::is_error);
    for d in &syntax {
        report.push(options, convert(d));
    }
    if rejected {
        return Ok(None);
    }
    let arch = ptx_syntax::Sm::parse(&options.arch.to_string());
    let validate_options =
        ptx_syntax::ValidateOptions { arch, file_name: Some(source.name.clone()), relocatable: options.compile_only };
    let semantic = ptx_syntax::validate(&module, &validate_options);
    // A fatal mismatch between the PTX and -arch carries no line; ptxas
    // prints it alone, without the closing "aborted" line.
    if let Some(mismatch) = semantic.iter().find(|d| d.severity == ptx_syntax::Severity::Fatal && d.span.is_none()) {
        return Err(convert(mismatch));
    }
    let rejected = semantic.iter().any(ptx_syntax::Diagnostic::is_error);
    for d in &semantic {
        report.push(options, convert(d));
    }
    let mut module = module;
    ptx_syntax::normalize(&mut module);
    Ok((!rejected).then_some(Checked { module }))
}

/// Names of the `.entry` functions defined in `module`.
pub fn entry_names(module: &Module) -> impl Iterator<Item = &str> {
    module.items.iter().filter_map(|item| match item {
        Item::Function(f) if f.kind == ptx_syntax::ast::FunctionKind::Entry && f.body.is_some() => {
            Some(f.name.name.as_str())
        }
        _ => None,
    })
}

/// `-g` takes its DWARF from the PTX: ptxas warns, for each of the two
/// sections it builds on, when the input has none.
pub fn missing_debug_sections(module: &Module) -> impl Iterator<Item = Diagnostic> + '_ {
    [".debug_abbrev", ".debug_info"]
        .into_iter()
        .filter(|name| !module.items.iter().any(|item| matches!(item, Item::Section(s) if s.name.name == *name)))
        // ptxas's message starts with a space.
        .map(|name| Diagnostic::warning(format!(" {name} section not found")))
}

/// `.target sm_XY, debug`: the PTX was made for debugging (NVRTC `-G`),
/// and ptxas compiles it as with `-g` (measured: the same cubin).
pub fn debug_target(module: &Module) -> bool {
    module.items.iter().any(|item| matches!(item, Item::Target(t) if t.names.iter().any(|n| n.name == "debug")))
}
