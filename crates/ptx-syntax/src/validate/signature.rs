//! Function signatures: parameter layout, for prototype consistency, call
//! arity and the kernel parameter-space limit.

use crate::ast::{DeclType, Function, VarDecl};
use crate::span::Span;

/// Size, element type and alignment of one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Element type.
    pub ty: DeclType,
    /// Total size in bytes.
    pub size: u64,
    /// Alignment in bytes (explicit `.align`, else the element size).
    pub align: u64,
}

impl Shape {
    pub fn of(decl: &VarDecl) -> Shape {
        let element = match decl.ty {
            DeclType::Scalar(t) => u64::from(t.bits().div_ceil(8)),
            DeclType::Opaque(_) => 8,
        };
        let lanes = u64::from(decl.vector().unwrap_or(1));
        let count: u64 =
            decl.names.first().map_or(1, |d| d.dims.iter().map(|n| n.unwrap_or(0)).fold(1u64, u64::saturating_mul));
        let size = element.saturating_mul(lanes).saturating_mul(count);
        Shape { ty: decl.ty, size, align: decl.align().unwrap_or(element.saturating_mul(lanes)).max(1) }
    }
}

/// What calls and later declarations of a function must agree with.
#[derive(Clone, Debug)]
pub struct Signature {
    /// Return parameters.
    pub returns: Vec<Shape>,
    /// Parameters.
    pub params: Vec<Shape>,
    /// The function name where it was defined (or first declared).
    pub span: Span,
}

impl Signature {
    pub fn of(f: &Function) -> Signature {
        let shapes = |list: &Option<Vec<VarDecl>>| list.iter().flatten().map(Shape::of).collect();
        Signature { returns: shapes(&f.returns), params: shapes(&f.params), span: f.name.span }
    }

    /// ptxas's complaints about `other` redeclaring this signature.
    pub fn conflicts(&self, other: &Signature) -> Vec<&'static str> {
        if self.returns.len() != other.returns.len() || self.params.len() != other.params.len() {
            return vec!["number of parameters differ"];
        }
        let pairs = || self.returns.iter().zip(&other.returns).chain(self.params.iter().zip(&other.params));
        let mut problems = Vec::new();
        if pairs().any(|(a, b)| a.ty != b.ty || a.size != b.size) {
            problems.push("parameter types differ");
        }
        if pairs().any(|(a, b)| a.align != b.align) {
            problems.push("parameter alignment differ");
        }
        problems
    }

    /// Bytes of parameter space the parameters take, each at its alignment.
    pub fn param_space(&self) -> u64 {
        self.params.iter().fold(0u64, |offset, p| offset.next_multiple_of(p.align).saturating_add(p.size))
    }
}
