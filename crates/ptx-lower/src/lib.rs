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
mod error;
mod func;
mod globals;
mod layout;
mod ops;
mod params;
mod regs;
mod values;

use ori_ir::{Property, PropertySet, Sm};
use ptx_syntax::ast::{Item, Module};

pub use error::LowerError;

/// Lowers every function defined in `module` (parsed and validated from
/// `source`) for `target`. The result has `VirtualRegs`; every error of
/// every function is returned, with its line and column in `source`.
pub fn lower(module: &Module, source: &str, target: Sm) -> Result<ori_ir::Module, Vec<LowerError>> {
    let mut out = ori_ir::Module::new(target, PropertySet::of(&[Property::VirtualRegs]));
    let mut errors = Vec::new();
    let decls: Vec<_> =
        module.items.iter().filter_map(|i| if let Item::Variable(v) = i { Some(v) } else { None }).collect();
    match globals::layout(&decls) {
        Ok(vars) => out.variables = vars,
        Err(e) => errors.extend(e),
    }
    let refs = func::GlobalRefs::of(&out);
    for item in &module.items {
        if let Item::Function(f) = item {
            let Some(body) = &f.body else { continue };
            match func::Lowerer::lower(f, body, target, &refs) {
                Ok(func) => out.functions.push(func),
                Err(e) => errors.extend(e),
            }
        }
    }
    if errors.is_empty() { Ok(out) } else { Err(error::locate(source, errors)) }
}
