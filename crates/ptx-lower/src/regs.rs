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
    /// Nested `{ }` blocks, innermost last: the names their `.reg`
    /// declarations shadow, and what those stand for inside (NVVM's inline
    /// sequences declare `%r0`..`%r3` over the function's own).
    scopes: Vec<HashMap<String, String>>,
    /// Shadowing declarations so far (they are numbered).
    shadows: u32,
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
            let mut name = d.name.name.as_str().to_string();
            if d.range.is_none() && !self.scopes.is_empty() && self.ty(&name).is_some() {
                let unique = format!("{name}#{}", self.shadows);
                self.shadows += 1;
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name, unique.clone());
                }
                name = unique;
            }
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

    /// Enters a `{ }` block: its declarations may shadow outer ones.
    pub fn enter(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Leaves the innermost `{ }` block; returns the names it shadowed.
    pub fn leave(&mut self) -> Vec<String> {
        self.scopes.pop().map(|s| s.into_keys().collect()).unwrap_or_default()
    }

    /// What PTX name `name` stands for here: an inner declaration's own
    /// name when one shadows it.
    fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        self.scopes.iter().rev().find_map(|s| s.get(name)).map_or(name, String::as_str)
    }

    /// The declared type of register `name`, if it is one.
    pub fn ty(&self, name: &str) -> Option<ScalarType> {
        let name = self.resolve(name);
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
        let name = self.resolve(name).to_string();
        if let Some(&reg) = self.vregs.get(&name) {
            return Some(reg);
        }
        let (file, width) = shape(self.ty(&name)?);
        let reg = func.new_vreg(file, width);
        self.vregs.insert(name, reg);
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
        let name = self.resolve(name).to_string();
        if self.vregs.contains_key(&name) {
            return false;
        }
        self.vregs.insert(name, reg);
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
