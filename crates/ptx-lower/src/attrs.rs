//! Performance directives (`.maxntid`, `.reqntid`, `.maxnreg`,
//! `.minnctapersm`) -> `FunctionAttrs`.

use ori_ir::FunctionAttrs;
use ptx_syntax::ast::{DirArg, Directive, ExprKind};

use crate::error::{Lowered, at};

/// The attributes the directives of a function set (parameters excluded).
pub(crate) fn lower(directives: &[Directive]) -> Lowered<FunctionAttrs> {
    let mut attrs = FunctionAttrs::default();
    for d in directives {
        let values = numbers(d)?;
        let dims = || {
            let mut xyz = [1u32; 3];
            for (slot, v) in xyz.iter_mut().zip(&values) {
                *slot = *v;
            }
            xyz
        };
        match d.name.name.as_str() {
            ".maxntid" => attrs.maxntid = Some(dims()),
            ".reqntid" => attrs.reqntid = Some(dims()),
            ".maxnreg" => attrs.maxnreg = values.first().copied(),
            ".minnctapersm" => attrs.minnctapersm = values.first().copied(),
            ".reqnctapercluster" => attrs.cluster_dims = Some(dims()),
            // .noreturn, .maxclusterrank, ... do not change the code yet.
            _ => {}
        }
    }
    Ok(attrs)
}

/// The integer arguments of a directive, in order.
fn numbers(d: &Directive) -> Lowered<Vec<u32>> {
    let mut out = Vec::new();
    for arg in d.args.iter().flatten() {
        match arg {
            DirArg::Expr(e) => match e.kind {
                ExprKind::Int { value, .. } => {
                    out.push(u32::try_from(value).map_err(|_| at(e.span, "directive value is too large"))?)
                }
                _ => return Err(at(e.span, format!("unexpected argument of {}", d.name.name.as_str()))),
            },
            DirArg::Str(_) => return Err(at(d.span, format!("unexpected argument of {}", d.name.name.as_str()))),
        }
    }
    Ok(out)
}
