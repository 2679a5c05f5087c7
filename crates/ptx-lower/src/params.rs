//! Kernel parameter layout: where each `.param` lives in the parameter
//! block, which the hardware places in constant bank 0 at the target's
//! parameter base.

use std::collections::HashMap;

use ori_ir::ParamSlot;
use ptx_syntax::ast::{DeclType, VarDecl};

use crate::error::{Lowered, at};

/// The parameters of one kernel, by name.
#[derive(Default)]
pub(crate) struct Params {
    /// Slots in declaration order (what `FunctionAttrs::params` holds).
    pub slots: Vec<ParamSlot>,
    by_name: HashMap<String, ParamSlot>,
}

impl Params {
    /// Lays out `decls` as PTX does: each parameter at the next multiple
    /// of its alignment (`.align N` when given, else its element size).
    pub fn layout(decls: &[VarDecl]) -> Lowered<Params> {
        let mut params = Params::default();
        let mut end = 0u32;
        for decl in decls {
            let DeclType::Scalar(ty) = decl.ty else {
                return Err(at(decl.span, "lowering of opaque kernel parameters is not supported yet"));
            };
            let element = (ty.bits() / 8).max(1) * decl.vector().unwrap_or(1);
            let align = decl.align().map_or(element, |a| u32::try_from(a).unwrap_or(u32::MAX)).max(1);
            for name in &decl.names {
                let count: u64 = name.dims.iter().map(|d| d.unwrap_or(0)).product();
                let size = u32::try_from(u64::from(element) * count)
                    .map_err(|_| at(name.name.span, "kernel parameter is too large"))?;
                let offset = end.next_multiple_of(align);
                let slot = ParamSlot { offset, size };
                params.slots.push(slot);
                params.by_name.insert(name.name.name.as_str().to_string(), slot);
                end = offset + size;
            }
        }
        Ok(params)
    }

    /// The slot of the parameter called `name`.
    pub fn get(&self, name: &str) -> Option<ParamSlot> {
        self.by_name.get(name).copied()
    }
}
