//! DAGgen: lowers a validated PTX module to Ori IR with virtual registers.
//!
//! Each `.entry` becomes an Ori function whose instructions are already
//! SASS opcodes, chosen as NVIDIA's ptxas chooses them for the same PTX
//! (the encoder only knows forms seen in NVIDIA's cubins). Parameters are
//! read from constant bank 0 at the target's parameter base; PTX registers
//! map to virtual registers (`regs`); control flow maps labels to blocks
//! (`func`); each instruction family has its own module under `ops`.
//! Anything not covered is an error naming the PTX construct and its line,
//! never a panic. See docs/ptx-lower.md.

mod attrs;
mod callgraph;
mod contract;
mod debug_loc;
mod dwarf;
mod error;
mod fn_table;
mod func;
mod globals;
mod layout;
mod ops;
mod params;
mod regs;
mod spelling;
mod values;

use ori_ir::{Property, PropertySet, Sm};
use std::collections::HashMap;

use ptx_syntax::ast::{FunctionKind, Item, Module};

pub use error::LowerError;

/// What `module` (parsed from `source`) says about its source for the line
/// tables: `.file`s, `.loc`s by PTX line, `.debug_str`.
pub fn debug_info(module: &Module, source: &str) -> ori_ir::DebugInfo {
    debug_loc::info(&module.items, &ptx_syntax::LineIndex::new(source))
}

/// Lowers every function defined in `module` (parsed and validated from
/// `source`) for `target`. The result has `VirtualRegs`; every error of
/// every function is returned, with its line and column in `source`.
pub fn lower(module: &Module, source: &str, target: Sm) -> Result<ori_ir::Module, Vec<LowerError>> {
    let mut out = ori_ir::Module::new(target, PropertySet::of(&[Property::VirtualRegs]));
    let mut errors = Vec::new();
    let decls: Vec<_> =
        module.items.iter().filter_map(|i| if let Item::Variable(v) = i { Some(v) } else { None }).collect();
    // Device functions are inlined where they are called (Lowerer::inline_call),
    // except those that must exist on their own (callgraph.rs): recursive
    // and address-taken ones, lowered after the kernels.
    let callees: HashMap<&str, &ptx_syntax::ast::Function> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Function(f) if f.kind == FunctionKind::Func && f.body.is_some() => {
                Some((f.name.name.as_str(), f.as_ref()))
            }
            _ => None,
        })
        .collect();
    let bodies: Vec<&ptx_syntax::ast::Function> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Function(f) if f.body.is_some() => Some(f.as_ref()),
            _ => None,
        })
        .collect();
    let table = fn_table::FunctionTable::of(&module.items, &callees);
    match globals::layout(&decls, &table) {
        Ok(vars) => out.variables = vars,
        Err(e) => errors.extend(e),
    }
    out.externals = callgraph::externals(&module.items);
    let lines = ptx_syntax::LineIndex::new(source);
    out.debug = debug_loc::info(&module.items, &lines);
    let refs = func::GlobalRefs::of(&out, &globals::extern_shared(&decls), table.clone());
    let mut out_of_line = callgraph::out_of_line(&bodies, &callees);
    // Numbered functions have code of their own even when only a
    // variable's initialiser names them.
    out_of_line.extend(table.functions().filter_map(|f| callees.get_key_value(f).map(|(&k, _)| k)));
    let kernels = bodies.iter().filter(|f| f.kind == FunctionKind::Entry);
    // `.visible`/`.weak` functions other modules may call keep code of
    // their own too (with -c a GLOBAL symbol; whole programs drop the
    // ones no kernel reaches).
    let exported = |f: &ptx_syntax::ast::Function| {
        matches!(f.linkage, Some(ptx_syntax::ast::Linkage::Visible | ptx_syntax::ast::Linkage::Weak))
    };
    let separate = bodies
        .iter()
        .filter(|f| out_of_line.contains(f.name.name.as_str()) || (f.kind == FunctionKind::Func && exported(f)));
    for f in kernels.chain(separate) {
        let Some(body) = &f.body else { continue };
        match func::Lowerer::lower(f, body, target, &refs, &callees, &out_of_line, &lines) {
            Ok(mut func) => {
                spelling::respell(&mut func, &target.target().isa);
                out.functions.push(func);
            }
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() { Ok(out) } else { Err(error::locate(source, errors)) }
}
