//! `{..}` operands of `mov`, `ld` and `st`, as ptxas 13.5 judges them
//! (measured with registers of every type and immediates as elements):
//! the elements must have one size (`Incompatible elements of vector
//! expression`) and agree in kind (`Vector with elements of different types
//! are not allowed in mov instruction`: a `.b` register agrees with
//! anything, `.u`/`.s` registers and integer immediates with each other, a
//! float register with its own type and float immediates). The vector then
//! stands for one type per element: `.bN` when a `.b` register is among
//! them, else the first register's type; it is that type, not each
//! element's, that `ld` and `st` check against the instruction type
//! (`st.global.v2.u32 [a], {%r1, %f1}` is accepted).

use super::instr::{Checker, Resolved};
use super::typecheck::{Kind, kind};
use crate::ast::*;

/// One element of a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Reg(ScalarType),
    Int,
    Float,
}

impl Checker<'_> {
    /// The per-element type of vector `items` in instruction `op`
    /// (`None`: immediates only), or ptxas's message refusing it.
    pub(super) fn vector_type(&self, items: &[Expr], op: &str) -> Result<Option<ScalarType>, String> {
        let elements: Vec<Element> = items.iter().filter_map(|item| self.element(item)).collect();
        let mut regs = elements.iter().filter_map(|e| match e {
            Element::Reg(t) => Some(*t),
            _ => None,
        });
        let first = regs.clone().next();
        if first.is_some_and(|f| regs.clone().any(|t| t.bits() != f.bits())) {
            return Err("Incompatible elements of vector expression".to_owned());
        }
        for (i, a) in elements.iter().enumerate() {
            if elements[i + 1..].iter().any(|b| !agree(*a, *b)) {
                return Err(format!("Vector with elements of different types are not allowed in {op} instruction"));
            }
        }
        Ok(regs.find(|t| kind(*t) == Kind::Bits).or(first))
    }

    fn element(&self, item: &Expr) -> Option<Element> {
        match &item.kind {
            ExprKind::Name(ident, component) => match self.env.lookup(&ident.name)? {
                Resolved::Special(t) => Some(Element::Reg(t)),
                Resolved::Symbol(_) => self.type_of(&ident.name, component.is_some()).flatten().map(Element::Reg),
            },
            ExprKind::Int { .. } => Some(Element::Int),
            ExprKind::Float(_) => Some(Element::Float),
            ExprKind::Unary(UnaryOp::Neg, inner) => self.element(inner),
            _ => None,
        }
    }
}

/// Whether two elements may share a vector.
fn agree(a: Element, b: Element) -> bool {
    let class = |e: Element| match e {
        Element::Reg(t) => kind(t),
        Element::Int => Kind::Int,
        Element::Float => Kind::Float,
    };
    match (a, b) {
        (Element::Reg(x), Element::Reg(y)) if kind(x) == Kind::Float && kind(y) == Kind::Float => x == y,
        _ => class(a) == Kind::Bits || class(b) == Kind::Bits || class(a) == class(b),
    }
}
