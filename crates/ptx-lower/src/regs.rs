//! PTX registers -> Ori virtual registers.
//!
//! Each PTX register gets one virtual register for its whole life (PTX
//! registers are assigned many times; Ori virtual registers may be too).
//! Predicates go to the P file, values of up to 32 bits to one R register
//! (8- and 16-bit values live in the low bits, as in NVIDIA's code), 64-bit
//! values to an aligned R pair and 128-bit ones to a quad. Virtual
//! registers are created at first use, so the numbering follows the code.

use std::collections::HashMap;

use ori_ir::{Function, Reg, RegFile};
use ptx_syntax::ast::{DeclType, ScalarType, VarDecl};

use crate::error::{Lowered, at};

/// The declared PTX registers of one function and their virtual registers.
#[derive(Default)]
pub(crate) struct Regs {
    /// `.reg .b32 x;` declarations, by name.
    singles: HashMap<String, ScalarType>,
    /// `.reg .b32 %r<N>;` declarations: prefix -> (type, N).
    ranges: HashMap<String, (ScalarType, u32)>,
    /// Virtual registers handed out so far.
    vregs: HashMap<String, Reg>,
}

impl Regs {
    /// Records a `.reg` declaration.
    pub fn declare(&mut self, decl: &VarDecl) -> Lowered {
        let DeclType::Scalar(ty) = decl.ty else {
            return Err(at(decl.span, "opaque registers are not supported"));
        };
        if decl.vector().is_some() {
            return Err(at(decl.span, "lowering of vector registers is not supported yet"));
        }
        for d in &decl.names {
            let name = d.name.name.as_str().to_string();
            match d.range {
                Some(n) => {
                    self.ranges.insert(name, (ty, n));
                }
                None => {
                    self.singles.insert(name, ty);
                }
            }
        }
        Ok(())
    }

    /// The declared type of register `name`, if it is one.
    pub fn ty(&self, name: &str) -> Option<ScalarType> {
        if let Some(&ty) = self.singles.get(name) {
            return Some(ty);
        }
        let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (prefix, number) = name.split_at(digits);
        let number: u32 = number.parse().ok()?;
        self.ranges.get(prefix).filter(|(_, n)| number < *n).map(|(ty, _)| *ty)
    }

    /// The virtual register of PTX register `name`, created on first use.
    pub fn get(&mut self, func: &mut Function, name: &str) -> Option<Reg> {
        if let Some(&reg) = self.vregs.get(name) {
            return Some(reg);
        }
        let (file, width) = shape(self.ty(name)?);
        let reg = func.new_vreg(file, width);
        self.vregs.insert(name.to_string(), reg);
        Some(reg)
    }
}

impl Regs {
    /// The virtual register PTX register `name` has so far, if any.
    pub fn existing(&self, name: &str) -> Option<Reg> {
        self.vregs.get(name).copied()
    }

    /// Makes PTX register `name` share `reg` (a copy that needs no
    /// instruction); false when `name` already has a register of its own.
    pub fn alias(&mut self, name: &str, reg: Reg) -> bool {
        if self.vregs.contains_key(name) {
            return false;
        }
        self.vregs.insert(name.to_string(), reg);
        true
    }
}

/// Register file and width (in 32-bit words) that hold a value of `ty`.
pub(crate) fn shape(ty: ScalarType) -> (RegFile, u8) {
    match ty.bits() {
        1 => (RegFile::P, 1),
        0..=32 => (RegFile::R, 1),
        64 => (RegFile::R, 2),
        _ => (RegFile::R, 4),
    }
}
