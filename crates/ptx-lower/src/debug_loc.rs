//! Source positions for the line tables: the `.file` table of the module
//! and the `.loc` in force at each instruction (`-lineinfo`; see
//! docs/elfw.md "Line tables").

use ori_ir::{SourceFile, SrcLoc};
use ptx_syntax::ast::{Block, DirArg, Directive, ExprKind, Item, Statement};

/// The integer argument `k` of a directive's first group.
fn int_arg(group: &[DirArg], k: usize) -> Option<u64> {
    match group.get(k)? {
        DirArg::Expr(e) => match e.kind {
            ExprKind::Int { value, .. } => Some(value),
            _ => None,
        },
        DirArg::Str(_) => None,
    }
}

/// `.loc file line [column]`: the file and line. The `inlined_at` and
/// `function_name` groups are left out: the line tables give the
/// innermost position.
pub(crate) fn loc(d: &Directive) -> Option<(u32, u32)> {
    if d.name.name.as_str() != ".loc" {
        return None;
    }
    let group = d.args.first()?;
    let file = u32::try_from(int_arg(group, 0)?).ok()?;
    let line = u32::try_from(int_arg(group, 1)?).ok()?;
    Some((file, line))
}

/// The module's `.file N "name" [, mtime, size]` directives, in order.
pub(crate) fn source_files(items: &[Item]) -> Vec<SourceFile> {
    let mut files = Vec::new();
    for item in items {
        let Item::Directive(d) = item else { continue };
        if d.name.name.as_str() != ".file" {
            continue;
        }
        let Some(group) = d.args.first() else { continue };
        let (Some(index), Some(DirArg::Str(name))) = (int_arg(group, 0), group.get(1)) else { continue };
        let number = |g: Option<&Vec<DirArg>>| g.and_then(|g| int_arg(g, 0)).unwrap_or(0);
        files.push(SourceFile {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            name: name.clone(),
            mtime: number(d.args.get(1)),
            size: number(d.args.get(2)),
        });
    }
    files
}

/// Where a function starts: the PTX line of its body's `{` and the first
/// `.loc` of the body (NVIDIA's line tables open each function with it).
pub(crate) fn entry(body: &Block, line_of: impl Fn(usize) -> u32) -> SrcLoc {
    let first = body.statements.iter().find_map(|s| match s {
        Statement::Directive(d) => loc(d),
        _ => None,
    });
    let (file, line) = first.unwrap_or((0, 0));
    SrcLoc { ptx_line: line_of(body.span.start as usize), file, line }
}
