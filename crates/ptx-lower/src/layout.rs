//! Function-scope variables of one state space laid out one after the
//! other: `.shared` ones in the function's `.nv.shared` section, `.local`
//! ones (the `__local_depot` PTX compilers declare) in the stack frame.

use std::collections::HashMap;

use ptx_syntax::ast::{DeclType, VarDecl};

use crate::error::{Lowered, at};

/// The variables of one state space of one function, by name.
#[derive(Default)]
pub(crate) struct VarLayout {
    offsets: HashMap<String, u32>,
    /// End of the last variable (the size once any is declared).
    end: u32,
    /// Largest alignment.
    align: u32,
}

impl VarLayout {
    /// Places the variables of `decl` after the ones declared before, each
    /// at a multiple of its alignment (`.align N`, else its element size).
    /// The first variable goes no lower than `start` (shared memory: the
    /// bytes ptxas reserves at the start of the section,
    /// `Target::reserved_shared`, the first KiB on sm_90+).
    pub fn declare(&mut self, decl: &VarDecl, start: u32) -> Lowered {
        let DeclType::Scalar(ty) = decl.ty else {
            return Err(at(decl.span, format!("opaque .{} variables are not supported", decl.space.name())));
        };
        if self.offsets.is_empty() {
            self.end = start;
        }
        let element = (ty.bits() / 8).max(1) * decl.vector().unwrap_or(1);
        let align = decl.align().map_or(element, |a| u32::try_from(a).unwrap_or(u32::MAX)).max(1);
        for name in &decl.names {
            let Some(count) = name.dims.iter().try_fold(1u64, |n, d| d.map(|d| n * d)) else {
                return Err(at(name.name.span, "lowering of dynamic (extern) shared memory is not supported yet"));
            };
            let size = u32::try_from(u64::from(element) * count)
                .map_err(|_| at(name.name.span, format!(".{} variable is too large", decl.space.name())))?;
            let offset = self.end.next_multiple_of(align);
            self.offsets.insert(name.name.name.as_str().to_string(), offset);
            self.end = offset + size;
            self.align = self.align.max(align);
        }
        Ok(())
    }

    /// Offset of variable `name`.
    pub fn offset(&self, name: &str) -> Option<u32> {
        self.offsets.get(name).copied()
    }

    /// Every variable with its offset, by offset.
    pub fn offsets(&self) -> Vec<(String, u32)> {
        let mut out: Vec<_> = self.offsets.iter().map(|(name, &at)| (name.clone(), at)).collect();
        out.sort_by_key(|&(_, at)| at);
        out
    }

    /// Size and alignment (0, 0 without variables).
    pub fn section(&self) -> (u32, u32) {
        if self.offsets.is_empty() { (0, 0) } else { (self.end, self.align) }
    }
}
