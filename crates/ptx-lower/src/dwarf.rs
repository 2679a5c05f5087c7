//! The PTX's DWARF data for `-g` (docs/elfw.md "DWARF"): the bytes of
//! each `.section .debug_*` with the values written as names (labels of
//! function bodies, sections, the local depot) kept aside, and where each
//! label of a function body is.

use std::collections::HashMap;

use ori_ir::{CodeLabel, DwarfRef, DwarfSection};
use ptx_syntax::LineIndex;
use ptx_syntax::ast::{BinaryOp, Expr, ExprKind, Item, ScalarType, Section, SectionEntry, Statement, UnaryOp};

/// Sections ptxas does not copy: it writes `.debug_line` itself and copies
/// `.debug_str` with the line tables (`debug_loc.rs`).
const NOT_COPIED: [&str; 2] = [".debug_line", ".debug_str"];

/// A section's contents: bytes, labels by offset, and symbolic values.
#[derive(Default)]
pub(crate) struct SectionData {
    pub bytes: Vec<u8>,
    pub labels: Vec<(String, u32)>,
    pub refs: Vec<DwarfRef>,
}

/// Lays out the data lines of `s`; a value that is neither a number nor a
/// name plus a number is written as zeros.
pub(crate) fn section_data(s: &Section) -> SectionData {
    let mut out = SectionData::default();
    for entry in &s.entries {
        match entry {
            SectionEntry::Label(l) => out.labels.push((l.name.as_str().to_string(), out.bytes.len() as u32)),
            SectionEntry::Data { ty, values, .. } => {
                let width = width(*ty);
                for v in values {
                    let offset = out.bytes.len() as u32;
                    let (name, value) = symbolic(v).unwrap_or((None, 0));
                    match name {
                        Some(name) => {
                            out.refs.push(DwarfRef { offset, width, name: name.to_string(), addend: value });
                            out.bytes.resize(out.bytes.len() + usize::from(width), 0);
                        }
                        None => out.bytes.extend_from_slice(&value.to_le_bytes()[..usize::from(width)]),
                    }
                }
            }
        }
    }
    out
}

fn width(ty: ScalarType) -> u8 {
    match ty {
        ScalarType::B16 | ScalarType::U16 | ScalarType::S16 => 2,
        ScalarType::B32 | ScalarType::U32 | ScalarType::S32 => 4,
        ScalarType::B64 | ScalarType::U64 | ScalarType::S64 => 8,
        _ => 1,
    }
}

/// `name`, `name + k`, `name - k`, `k`: the name and the constant. Walks
/// the expression without recursion (a long `a+1+1+...` is a deep tree).
fn symbolic(e: &Expr) -> Option<(Option<&str>, i64)> {
    let mut addend: i64 = 0;
    let mut sign: i64 = 1;
    let mut at = e;
    loop {
        match &at.kind {
            ExprKind::Int { value, .. } => return Some((None, addend.wrapping_add(sign.wrapping_mul(*value as i64)))),
            ExprKind::Name(ident, _) => return (sign == 1).then_some((Some(ident.name.as_str()), addend)),
            ExprKind::Paren(inner) => at = inner,
            ExprKind::Unary(UnaryOp::Neg, inner) => {
                sign = -sign;
                at = inner;
            }
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), left, right) => {
                let ExprKind::Int { value, .. } = right.kind else { return None };
                let k = if *op == BinaryOp::Add { value as i64 } else { (value as i64).wrapping_neg() };
                addend = addend.wrapping_add(sign.wrapping_mul(k));
                at = left;
            }
            _ => return None,
        }
    }
}

/// The DWARF sections ptxas copies, in PTX order, and the labels of every
/// function body (the first of each name).
pub(crate) fn info(items: &[Item], lines: &LineIndex) -> (Vec<DwarfSection>, HashMap<String, CodeLabel>) {
    let mut sections: Vec<DwarfSection> = Vec::new();
    let mut labels = HashMap::new();
    for item in items {
        match item {
            Item::Section(s) if s.name.name.as_str().starts_with(".debug_") => {
                let name = s.name.name.as_str();
                if NOT_COPIED.contains(&name) {
                    continue;
                }
                let data = section_data(s);
                // Several pieces of one section are one section.
                match sections.iter_mut().find(|d| d.name == name) {
                    Some(d) => {
                        let base = d.bytes.len() as u32;
                        d.refs.extend(data.refs.into_iter().map(|r| DwarfRef { offset: base + r.offset, ..r }));
                        d.bytes.extend(data.bytes);
                    }
                    None => sections.push(DwarfSection { name: name.to_string(), bytes: data.bytes, refs: data.refs }),
                }
            }
            Item::Function(f) => {
                let Some(body) = &f.body else { continue };
                let body_start = lines.line(body.span.start as usize);
                let body_end = lines.line(body.span.end.saturating_sub(1) as usize);
                // Labels of nested blocks too, without recursion.
                let mut pending: Vec<&[Statement]> = vec![&body.statements];
                let last = body.statements.last();
                while let Some(statements) = pending.pop() {
                    for s in statements {
                        match s {
                            Statement::Label(l) => {
                                labels.entry(l.name.as_str().to_string()).or_insert_with(|| CodeLabel {
                                    function: f.name.name.as_str().to_string(),
                                    line: lines.line(l.span.start as usize),
                                    body_start,
                                    body_end,
                                    ends_body: last.is_some_and(|last| std::ptr::eq(last, s)),
                                });
                            }
                            Statement::Block(b) => pending.push(&b.statements),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (sections, labels)
}
