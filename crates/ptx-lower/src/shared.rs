//! Static shared memory: function-scope `.shared` variables laid out in the
//! function's `.nv.shared` section, and their addresses.

use std::collections::HashMap;

use ori_ir::Sm;
use ptx_syntax::ast::{DeclType, VarDecl};

use crate::error::{Lowered, at};

/// The shared variables of one function, by name.
#[derive(Default)]
pub(crate) struct Shared {
    offsets: HashMap<String, u32>,
    /// End of the last variable (the section size once any is declared).
    end: u32,
    /// Largest alignment.
    align: u32,
}

impl Shared {
    /// Places the variables of `decl` after the ones declared before, each
    /// at a multiple of its alignment (`.align N`, else its element size).
    /// Variables start after the bytes ptxas reserves at the start of the
    /// section (`Target::reserved_shared`: the first KiB on sm_90+).
    pub fn declare(&mut self, decl: &VarDecl, sm: Sm) -> Lowered {
        let DeclType::Scalar(ty) = decl.ty else {
            return Err(at(decl.span, "opaque shared variables are not supported"));
        };
        if self.offsets.is_empty() {
            self.end = sm.target().reserved_shared;
        }
        let element = (ty.bits() / 8).max(1) * decl.vector().unwrap_or(1);
        let align = decl.align().map_or(element, |a| u32::try_from(a).unwrap_or(u32::MAX)).max(1);
        for name in &decl.names {
            let Some(count) = name.dims.iter().try_fold(1u64, |n, d| d.map(|d| n * d)) else {
                return Err(at(name.name.span, "lowering of dynamic (extern) shared memory is not supported yet"));
            };
            let size = u32::try_from(u64::from(element) * count)
                .map_err(|_| at(name.name.span, "shared variable is too large"))?;
            let offset = self.end.next_multiple_of(align);
            self.offsets.insert(name.name.name.as_str().to_string(), offset);
            self.end = offset + size;
            self.align = self.align.max(align);
        }
        Ok(())
    }

    /// Offset of shared variable `name` in the section.
    pub fn offset(&self, name: &str) -> Option<u32> {
        self.offsets.get(name).copied()
    }

    /// Section size and alignment (0, 0 without shared variables).
    pub fn section(&self) -> (u32, u32) {
        if self.offsets.is_empty() { (0, 0) } else { (self.end, self.align) }
    }
}
