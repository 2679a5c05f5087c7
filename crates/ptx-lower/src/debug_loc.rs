//! What the PTX says about its source, for the line tables (`-lineinfo`;
//! docs/elfw.md "Line tables"): the `.file` table, every `.loc` by the
//! PTX line it is on, and the `.debug_str` section that `.loc`'s
//! `function_name` labels point into.

use ori_ir::{DebugInfo, LocDirective, SourceFile, SourcePos, SrcLoc};
use ptx_syntax::LineIndex;
use ptx_syntax::ast::{Block, DirArg, Directive, ExprKind, Item, Statement};

/// The integer argument `k` of a directive group.
fn int_arg(group: &[DirArg], k: usize) -> Option<u64> {
    match group.get(k)? {
        DirArg::Expr(e) => match e.kind {
            ExprKind::Int { value, .. } => Some(value),
            _ => None,
        },
        DirArg::Str(_) => None,
    }
}

/// The name argument `k` of a directive group.
fn name_arg(group: &[DirArg], k: usize) -> Option<&str> {
    match group.get(k)? {
        DirArg::Expr(e) => match &e.kind {
            ExprKind::Name(ident, _) => Some(ident.name.as_str()),
            _ => None,
        },
        DirArg::Str(_) => None,
    }
}

fn u32_arg(group: &[DirArg], k: usize) -> Option<u32> {
    int_arg(group, k).and_then(|v| u32::try_from(v).ok())
}

/// `file line [column]` starting at argument `from`.
fn pos(group: &[DirArg], from: usize) -> Option<SourcePos> {
    Some(SourcePos {
        file: u32_arg(group, from)?,
        line: u32_arg(group, from + 1)?,
        column: u32_arg(group, from + 2).unwrap_or(0),
    })
}

/// `.loc file line column [, function_name label, inlined_at file line column]`.
pub(crate) fn loc(d: &Directive) -> Option<LocDirective> {
    if d.name.name.as_str() != ".loc" {
        return None;
    }
    let mut out = LocDirective { pos: pos(d.args.first()?, 0)?, ..LocDirective::default() };
    for group in &d.args[1..] {
        match name_arg(group, 0) {
            Some("function_name") => out.function_name = name_arg(group, 1).map(str::to_string),
            Some("inlined_at") => out.inlined_at = pos(group, 1),
            _ => {}
        }
    }
    Some(out)
}

/// The module's `.file`s, `.loc`s, `.debug_str` and other DWARF sections.
pub(crate) fn info(items: &[Item], lines: &LineIndex) -> DebugInfo {
    let mut info = DebugInfo::default();
    for item in items {
        match item {
            Item::Directive(d) if d.name.name.as_str() == ".file" => {
                let Some(group) = d.args.first() else { continue };
                let (Some(index), Some(DirArg::Str(name))) = (u32_arg(group, 0), group.get(1)) else { continue };
                let number = |g: Option<&Vec<DirArg>>| g.and_then(|g| int_arg(g, 0)).unwrap_or(0);
                info.files.push(SourceFile {
                    index,
                    name: name.clone(),
                    mtime: number(d.args.get(1)),
                    size: number(d.args.get(2)),
                });
            }
            Item::Function(f) => {
                if let Some(body) = &f.body {
                    collect_locs(&body.statements, lines, &mut info);
                }
            }
            Item::Section(s) if s.name.name.as_str() == ".debug_str" => {
                let data = crate::dwarf::section_data(s);
                let bytes = info.strings.get_or_insert_with(Vec::new);
                let base = bytes.len() as u32;
                info.string_labels.extend(data.labels.into_iter().map(|(label, at)| (label, base + at)));
                bytes.extend(data.bytes);
            }
            _ => {}
        }
    }
    (info.dwarf, info.code_labels) = crate::dwarf::info(items, lines);
    info
}

fn collect_locs(statements: &[Statement], lines: &LineIndex, info: &mut DebugInfo) {
    for s in statements {
        match s {
            Statement::Directive(d) => {
                if let Some(l) = loc(d) {
                    info.locs.insert(lines.line(d.span.start as usize), l);
                }
            }
            Statement::Block(b) => collect_locs(&b.statements, lines, info),
            _ => {}
        }
    }
}

/// Where a function starts: the PTX line of its body's `{` and its first
/// `.loc` (NVIDIA's line tables open each function with it).
pub(crate) fn entry(body: &Block, lines: &LineIndex) -> SrcLoc {
    let first = body.statements.iter().find_map(|s| match s {
        Statement::Directive(d) if d.name.name.as_str() == ".loc" => Some(lines.line(d.span.start as usize)),
        _ => None,
    });
    SrcLoc { ptx_line: lines.line(body.span.start as usize), loc_line: first.unwrap_or(0) }
}
