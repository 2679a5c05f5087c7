//! Module-scope variables: `.global` ones in device memory, `.const` ones in
//! constant bank 3, laid out as NVIDIA's ptxas lays them out, with their
//! initial values.
//!
//! Layout (measured on globals_const and a probe with `.b8 k[6]` before a
//! `.u64`): `.const` variables in declaration order from 0 in bank 3;
//! initialised `.global` ones in `.nv.global.init`, the others in
//! `.nv.global`, each of those two in order of decreasing alignment
//! (declaration order among equals); every variable at a multiple of its
//! alignment. Code
//! reaches a `.global` variable through its 64-bit address, which the
//! whole-program cubin keeps in constant bank 4 (`Module::address_slot`).

use ori_ir::{PointerInit, VarSpace, Variable};
use ptx_syntax::ast::{DeclType, Expr, ExprKind, FloatLit, Linkage, ScalarType, StateSpace, UnaryOp, VarDecl};

use crate::error::{Lowered, Pending, at};
use crate::fn_table::FunctionTable;

/// `extern .shared` arrays (dynamic shared memory) of `decls`: name and
/// alignment. They have no storage of their own: a kernel's dynamic shared
/// memory starts after its static shared memory.
pub(crate) fn extern_shared(decls: &[&VarDecl]) -> Vec<(String, u32)> {
    decls
        .iter()
        .filter(|d| d.space == StateSpace::Shared && d.linkage == Some(Linkage::Extern))
        .flat_map(|d| {
            let align = d.align().unwrap_or(1).max(1) as u32;
            d.names.iter().map(move |n| (n.name.name.as_str().to_string(), align))
        })
        .collect()
}

/// The variables of `decls` (module scope, in declaration order) laid out;
/// `extern .shared` arrays are left to [`extern_shared`]. Functions in
/// initial values are their addresses in `table`.
pub(crate) fn layout(decls: &[&VarDecl], table: &FunctionTable) -> Result<Vec<Variable>, Vec<Pending>> {
    let mut vars = Vec::new();
    let mut errors = Vec::new();
    for decl in decls.iter().filter(|d| !(d.space == StateSpace::Shared && d.linkage == Some(Linkage::Extern))) {
        match variables(decl, table) {
            Ok(v) => vars.extend(v),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Three sections: `.global` ones packed by decreasing alignment,
    // `.const` ones in declaration order.
    let section = |v: &Variable| (v.space, v.space == VarSpace::Global && v.init.is_none());
    let mut order: Vec<usize> = (0..vars.len()).collect();
    let packing = |v: &Variable| if v.space == VarSpace::Const { 0 } else { v.align };
    order.sort_by_key(|&i| (std::cmp::Reverse(packing(&vars[i])), i));
    let mut ends: Vec<((VarSpace, bool), u64)> = Vec::new();
    for i in order {
        let key = section(&vars[i]);
        let end = match ends.iter_mut().find(|e| e.0 == key) {
            Some(e) => &mut e.1,
            None => {
                ends.push((key, 0));
                &mut ends.last_mut().expect("just pushed").1
            }
        };
        let offset = end.next_multiple_of(vars[i].align);
        vars[i].offset = offset;
        *end = offset + vars[i].size;
    }
    Ok(vars)
}

/// The variables one declaration declares.
fn variables(decl: &VarDecl, table: &FunctionTable) -> Lowered<Vec<Variable>> {
    let space = match decl.space {
        StateSpace::Global => VarSpace::Global,
        StateSpace::Const => VarSpace::Const,
        other => {
            return Err(at(
                decl.span,
                format!("lowering of module-scope .{} variables is not supported yet", other.name()),
            ));
        }
    };
    if matches!(decl.linkage, Some(Linkage::Extern | Linkage::Weak | Linkage::Common)) {
        return Err(at(decl.span, "lowering of .extern, .weak and .common variables is not supported yet"));
    }
    let DeclType::Scalar(ty) = decl.ty else {
        return Err(at(decl.span, "lowering of opaque module-scope variables is not supported yet"));
    };
    let element = u64::from((ty.bits() / 8).max(1)) * u64::from(decl.vector().unwrap_or(1));
    let align = decl.align().unwrap_or(element).max(1);
    let mut out = Vec::new();
    for d in &decl.names {
        let Some(count) = d.dims.iter().try_fold(1u64, |n, dim| dim.map(|x| n * x)) else {
            return Err(at(d.name.span, "lowering of unsized module-scope arrays is not supported yet"));
        };
        let size = element * count;
        let (init, pointers) = match &d.init {
            None => (None, Vec::new()),
            Some(e) => initial_value(e, ty, size, table)?,
        };
        out.push(Variable {
            name: d.name.name.as_str().to_string(),
            space,
            visible: decl.linkage == Some(Linkage::Visible),
            offset: 0,
            size,
            align,
            init,
            pointers,
        });
    }
    Ok(out)
}

/// The bytes of an initialiser (`= 5`, `= {1, 2, 3}`, `= generic(table)`,
/// `= {f, g}` of functions) for `size` bytes of `ty` elements; missing
/// trailing elements are zeros.
fn initial_value(
    e: &Expr,
    ty: ScalarType,
    size: u64,
    table: &FunctionTable,
) -> Lowered<(Option<Vec<u8>>, Vec<PointerInit>)> {
    let items: Vec<&Expr> = match &e.kind {
        ExprKind::Braces(items) => items.iter().collect(),
        _ => vec![e],
    };
    let width = u64::from((ty.bits() / 8).max(1));
    let mut bytes = vec![0u8; size as usize];
    let mut pointers = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at_byte = i as u64 * width;
        if at_byte + width > size {
            return Err(at(item.span, "initialiser longer than its variable"));
        }
        let word = match &item.kind {
            ExprKind::Call(f, args) if f.name.as_str() == "generic" && width == 8 => match args.as_slice() {
                [Expr { kind: ExprKind::Name(target, None), .. }] => {
                    pointers.push(PointerInit { offset: at_byte, target: target.name.as_str().to_string(), addend: 0 });
                    0
                }
                _ => return Err(at(item.span, "lowering of this address initialiser is not supported yet")),
            },
            ExprKind::Name(f, None)
                if width == 8
                    && let Some(address) = table.address(f.name.as_str()) =>
            {
                address
            }
            _ => scalar(item, ty).ok_or_else(|| at(item.span, "lowering of this initialiser is not supported yet"))?,
        };
        let le = word.to_le_bytes();
        bytes[at_byte as usize..(at_byte + width) as usize].copy_from_slice(&le[..width as usize]);
    }
    Ok((Some(bytes), pointers))
}

/// The bits of a constant element of type `ty`.
fn scalar(e: &Expr, ty: ScalarType) -> Option<u64> {
    match &e.kind {
        ExprKind::Int { value, .. } => Some(*value),
        ExprKind::Unary(UnaryOp::Neg, inner) => scalar(inner, ty).map(u64::wrapping_neg),
        ExprKind::Float(f) if ty == ScalarType::F32 => Some(u64::from(match f {
            FloatLit::F32(bits) => *bits,
            FloatLit::F64(bits) => (f64::from_bits(*bits) as f32).to_bits(),
            FloatLit::Decimal(text) => (text.parse::<f64>().ok()? as f32).to_bits(),
        })),
        ExprKind::Float(f) if ty == ScalarType::F64 => Some(match f {
            FloatLit::F32(bits) => f64::from(f32::from_bits(*bits)).to_bits(),
            FloatLit::F64(bits) => *bits,
            FloatLit::Decimal(text) => text.parse::<f64>().ok()?.to_bits(),
        }),
        _ => None,
    }
}
