//! Kernel parameter layout: where each `.param` lives in the parameter
//! block, which the hardware places in constant bank 0 at the target's
//! parameter base.

use std::collections::HashMap;

use ori_ir::{Opcode, Operand, ParamSlot, Pointee, PointeeSpace, Reg};
use ptx_syntax::Span;
use ptx_syntax::ast::{DeclType, StateSpace, VarDecl};

use crate::error::{Lowered, at};
use crate::func::Lowerer;

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
            let pointee = decl.pointee().map(|(space, align)| Pointee {
                space: match space {
                    Some(StateSpace::Global) => PointeeSpace::Global,
                    Some(StateSpace::Shared) => PointeeSpace::Shared,
                    Some(StateSpace::Const) => PointeeSpace::Const,
                    Some(StateSpace::Local) => PointeeSpace::Local,
                    _ => PointeeSpace::Generic,
                },
                align: align.and_then(|a| u32::try_from(a).ok()).unwrap_or(1),
            });
            for name in &decl.names {
                let count: u64 = name.dims.iter().map(|d| d.unwrap_or(0)).product();
                let size = u32::try_from(u64::from(element) * count)
                    .map_err(|_| at(name.name.span, "kernel parameter is too large"))?;
                let offset = end.next_multiple_of(align);
                let slot = ParamSlot { offset, size, pointee };
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

/// Where an `ld.param` reads, in constant bank 0.
pub(crate) enum ParamAt {
    /// A fixed bank offset (parameter base included).
    Fixed(i32),
    /// A register holding an offset into the parameter block, plus a
    /// constant (parameter base included): `c[0x0][r + at]`.
    Indexed(Reg, i32),
}

impl Lowerer<'_> {
    /// Writes the address of kernel parameter `name` to the pair `dst`:
    /// its offset in the parameter block, high word zero. `ld.param`
    /// through it then reads `c[0x0][r + base]`, NVIDIA's `LDC R, c[0x0][R6+0x210]`
    /// (struct_params' big_param indexes a by-value array). Remembered for
    /// PTX register `dst_name` when that is written once. False when
    /// `name` is not a kernel parameter.
    pub fn param_address(&mut self, name: &str, dst: Reg, dst_name: &str, span: Span) -> Lowered<bool> {
        let Some(slot) = self.params.get(name) else { return Ok(false) };
        if dst.width != 2 {
            return Err(at(span, format!("lowering of a 32-bit address of '{name}' is not supported yet")));
        }
        let offset = i64::from(slot.offset);
        let lo = Operand::reg(dst.part(0, 1)).undef();
        self.emit(Opcode::MOV, &[], vec![lo], vec![Operand::int(offset)], span)?;
        self.emit(Opcode::MOV, &[], vec![Operand::reg(dst.part(1, 1))], vec![Operand::reg(Reg::RZ)], span)?;
        if self.single_def(dst_name) {
            self.param_ptrs.insert(dst_name.to_string(), offset);
        }
        Ok(true)
    }

    /// Where `ld.param [base+offset]` reads: a kernel parameter or a
    /// register known to hold one's address at a fixed offset, else the
    /// (low word of the) 64-bit register `base` as an index. `None` when
    /// `base` is neither.
    pub fn param_at(&mut self, base: &str, offset: i64, span: Span) -> Lowered<Option<ParamAt>> {
        let param_base = i64::from(self.sm.target().param_base);
        let fixed = |at: i64| i32::try_from(param_base + at).map_err(|_| at_span(span));
        if let Some(slot) = self.params.get(base) {
            return Ok(Some(ParamAt::Fixed(fixed(i64::from(slot.offset) + offset)?)));
        }
        if let Some(&ptr) = self.param_ptrs.get(base) {
            return Ok(Some(ParamAt::Fixed(fixed(ptr + offset)?)));
        }
        if self.regs.ty(base).is_none_or(|t| t.bits() != 64) {
            return Ok(None);
        }
        let reg = crate::ops::read_reg(self, base, span)?;
        Ok(Some(ParamAt::Indexed(reg.part(0, 1), fixed(offset)?)))
    }
}

/// The error for a parameter offset out of the bank's range.
fn at_span(span: Span) -> crate::error::Pending {
    at(span, "kernel parameter offset out of range")
}
