//! PTX input: parse, check against the target, validate, and turn the
//! front end's diagnostics into the driver's.

use ptx_syntax::ast::{Item, Module, ScalarType, Statement};
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
    // Each file's messages in turn, as ptxas reads the files one by one;
    // `--warn-on-double-precision-use`'s warnings among them, by position.
    let mut errors_seen = false;
    for (index, diags) in &syntax {
        for d in diags {
            errors_seen |= d.is_error();
            report.push(options, convert(d));
        }
        let module = parsed.iter().find(|(i, _, _)| i == index).map(|(_, _, m)| m);
        let uses = match module {
            Some(module) if options.warn_on_double_precision_use => double_precision_uses(module),
            _ => Vec::new(),
        };
        let mut uses = uses.into_iter().peekable();
        // Where this file's errors start, in order.
        let mut errors: Vec<u32> = semantic
            .iter()
            .filter(|d| d.is_error())
            .filter_map(|d| d.span.filter(|s| s.file.0 as usize == *index).map(|s| s.start))
            .collect();
        errors.sort_unstable();
        let warn = |report: &mut Report, errors_seen: bool, (span, count): (ptx_syntax::Span, u32)| {
            // After an error (a warning made one by -Werror included), or
            // on an instruction with one, ptxas warns once per
            // instruction: it expands no more.
            let own_error = errors.get(errors.partition_point(|&e| e < span.start)).is_some_and(|&e| e < span.end);
            let count = if errors_seen || own_error || options.warnings_as_errors { 1 } else { count };
            let message = ptx_syntax::Diagnostic::warning(span, DOUBLE_PRECISION_WARNING);
            for _ in 0..count {
                report.push(options, convert(&message));
            }
        };
        for d in semantic.iter().filter(|d| d.span.is_some_and(|s| s.file.0 as usize == *index)) {
            let at = d.span.map_or(0, |s| s.start);
            while let Some(found) = uses.next_if(|(span, _)| span.start <= at) {
                warn(report, errors_seen, found);
                errors_seen |= options.warnings_as_errors;
            }
            errors_seen |= d.is_error();
            report.push(options, convert(d));
        }
        for found in uses {
            warn(report, errors_seen, found);
            errors_seen |= options.warnings_as_errors;
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

/// `--warn-on-double-precision-use`'s message.
const DOUBLE_PRECISION_WARNING: &str = "Program is doing double precision computations.";

/// How many times ptxas 13.5 warns on an instruction with an `.f64` type
/// (measured one instruction at a time): once as it reads the instruction,
/// then once more for each double-precision instruction its expansion
/// makes beyond the first. First matching row wins; the opcode, modifiers
/// it must have, and the type it must write (the first type modifier).
/// Any other `.f64` instruction warns once. Not here: what ptxas expands
/// through its macro library (`div.f64`, `rcp.f64` and `sqrt.f64` but for
/// `rcp.approx.ftz`, `rsqrt.approx.f64`): their warnings depend on the
/// operands and name lines of that library (`<macro util>, line 12`),
/// so they warn once, as after an error.
const DOUBLE_PRECISION_COUNTS: &[(&str, &[&str], Option<ScalarType>, u32)] = &[
    ("cvt", &["ftz"], Some(ScalarType::F32), 6),
    ("cvt", &["ftz"], Some(ScalarType::F64), 4),
    ("cvt", &[], None, 2),
    ("testp", &[], None, 2),
    ("copysign", &[], None, 3),
    ("rcp", &["approx", "ftz"], None, 2),
    ("rsqrt", &["approx", "ftz"], None, 2),
];

/// Each instruction of `module` with an `.f64` type modifier, in source
/// order, with the number of warnings ptxas gives it in a program without
/// errors. Blocks nest as deep as the input does, so no recursion.
fn double_precision_uses(module: &Module) -> Vec<(ptx_syntax::Span, u32)> {
    let mut uses = Vec::new();
    for item in &module.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        let mut blocks = vec![body.statements.iter()];
        while let Some(top) = blocks.last_mut() {
            let Some(statement) = top.next() else {
                blocks.pop();
                continue;
            };
            match statement {
                Statement::Block(b) => blocks.push(b.statements.iter()),
                Statement::Instruction(inst) if inst.types().any(|t| t == ScalarType::F64) => {
                    let count = DOUBLE_PRECISION_COUNTS
                        .iter()
                        .find(|(opcode, with, writes, _)| {
                            inst.opcode.name == *opcode
                                && with.iter().all(|m| inst.has(m))
                                && writes.is_none_or(|t| inst.types().next() == Some(t))
                        })
                        .map_or(1, |row| row.3);
                    uses.push((inst.span, count));
                }
                _ => {}
            }
        }
    }
    uses
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
