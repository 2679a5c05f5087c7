//! A minus before a register (`-%r2`). PTX has no operand negation: ptxas
//! 13.5 parses the minus as an expression and refuses it with one of two
//! messages (measured on `add`, `sub`, `mul`, `mad`, `mad24`, `mov`,
//! `setp`, `selp`, `shl`, `st`, `cvt`, `neg` with every register type).

use super::instr::{Checker, Resolved};
use crate::ast::*;

/// What ptxas says about the negated registers of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Negation {
    /// No register is negated.
    None,
    /// `Illegal argument to unary minus`, reported before operand types:
    /// the register is not a 32-bit integer (float, 16- or 64-bit,
    /// predicate, undeclared).
    IllegalMinus,
    /// `Operand negation not allowed for instruction 'X'`, reported after
    /// operand types.
    NotAllowed,
}

impl Checker<'_> {
    /// The verdict on `inst`'s negated registers (an illegal minus anywhere
    /// wins).
    pub(super) fn negation(&self, inst: &Instruction) -> Negation {
        let mut verdict = Negation::None;
        for operand in &inst.operands {
            let ExprKind::Unary(UnaryOp::Neg, inner) = &operand.kind else { continue };
            let ExprKind::Name(ident, component) = &inner.kind else { continue };
            let negatable = match self.env.lookup(&ident.name) {
                // Refused as a special register (`Special register argument not allowed`).
                Some(Resolved::Special(_)) => continue,
                None => false,
                Some(Resolved::Symbol(_)) => match self.type_of(&ident.name, component.is_some()) {
                    Some(Some(reg)) => !reg.is_float() && reg.bits() == 32,
                    _ => continue,
                },
            };
            if !negatable {
                return Negation::IllegalMinus;
            }
            verdict = Negation::NotAllowed;
        }
        verdict
    }
}
