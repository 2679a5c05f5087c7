//! PTX input: parse, check against the target, validate, and turn the
//! front end's diagnostics into the driver's.

use ptx_syntax::ast::{Item, Module};
use ptx_syntax::{FileId, LineIndex};

use crate::diag::{Diagnostic, Location};
use crate::{Options, Report, Source};

/// The PTX inputs of one compilation, parsed, validated and merged into
/// one module (ptxas treats `ptxas a.ptx b.ptx` as one program: its cubin
/// equals that of `a.ptx` with `b.ptx`'s functions appended).
pub struct Checked {
    /// The AST: every file's items, in input order. Spans keep their
    /// file's [`FileId`], the index of its source in `sources`.
    pub module: Module,
}

/// Parses and validates the PTX inputs `(index, source)` (the index is the
/// source's [`FileId`]). A file with syntax errors is reported and left out
/// of validation (ptxas stops reading a file at its first syntax error);
/// the others are checked together ([`ptx_syntax::validate_files`]), their
/// messages in file order. Every error found is pushed to `report`, and
/// `Ok(None)` means the input is rejected. `Err` is a fatal message ptxas
/// prints alone (a mismatch between the PTX and the target, an unresolved
/// function).
pub fn check(
    sources: &[(usize, &Source)],
    options: &Options,
    report: &mut Report,
) -> Result<Option<Checked>, Diagnostic> {
    let lines: Vec<LineIndex> = sources.iter().map(|(_, source)| LineIndex::new(&source.text)).collect();
    let convert = |d: &ptx_syntax::Diagnostic| Diagnostic {
        severity: d.severity,
        location: d.span.and_then(|span| {
            let at = sources.iter().position(|(index, _)| *index == span.file.0 as usize)?;
            let source = sources[at].1;
            let at = lines[at].line_col(&source.text, span.start as usize);
            Some(Location { file: source.name.clone(), line: at.line, column: Some(at.col) })
        }),
        message: d.message.clone(),
    };
    let mut parsed = Vec::new();
    let mut syntax = Vec::new();
    let mut rejected = false;
    for &(index, source) in sources {
        let (module, diags) = ptx_syntax::parse(&source.text, FileId(index as u32));
        let bad = diags.iter().any(ptx_syntax::Diagnostic::is_error);
        rejected |= bad;
        syntax.push((index, diags));
        if !bad {
            parsed.push((index, source, module));
        }
    }
    let arch = ptx_syntax::Sm::parse(&options.arch.to_string());
    let validate_options = ptx_syntax::ValidateOptions { arch, file_name: None, relocatable: options.compile_only };
    let files: Vec<(&Module, Option<&str>)> =
        parsed.iter().map(|(_, source, module)| (module, Some(source.name.as_str()))).collect();
    let semantic = if files.is_empty() { Vec::new() } else { ptx_syntax::validate_files(&files, &validate_options) };
    // A fatal message without a line (a mismatch between the PTX and
    // -arch, an unresolved function): ptxas prints it alone, without the
    // closing "aborted" line.
    if !rejected
        && let Some(alone) = semantic.iter().find(|d| d.severity == ptx_syntax::Severity::Fatal && d.span.is_none())
    {
        return Err(convert(alone));
    }
    rejected |= semantic.iter().any(ptx_syntax::Diagnostic::is_error);
    // Each file's messages in turn, as ptxas reads the files one by one.
    for (index, diags) in &syntax {
        for d in diags {
            report.push(options, convert(d));
        }
        for d in semantic.iter().filter(|d| d.span.is_some_and(|s| s.file.0 as usize == *index)) {
            report.push(options, convert(d));
        }
    }
    for d in semantic.iter().filter(|d| d.span.is_none()) {
        report.push(options, convert(d));
    }
    if rejected {
        return Ok(None);
    }
    let mut module = Module { items: parsed.into_iter().flat_map(|(_, _, m)| m.items).collect() };
    ptx_syntax::normalize(&mut module);
    Ok(Some(Checked { module }))
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
