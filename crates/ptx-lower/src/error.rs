//! Lowering errors: a message about one PTX construct, with its place.

use std::fmt;

use ptx_syntax::{LineIndex, Span};

/// Something the lowering cannot (yet) translate. Never a panic: the driver
/// turns these into ptxas-style diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// The PTX construct the message is about.
    pub span: Span,
    /// 1-based line of `span`'s start.
    pub line: u32,
    /// 1-based column (in characters) of `span`'s start.
    pub column: u32,
    /// What went wrong, e.g. "lowering of 'atom.global.cas.b64' is not supported yet".
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}:{}: {}", self.line, self.column, self.message)
    }
}

/// An error before its line is known: the lowering of one function collects
/// these, and [`locate`] resolves them against the source text at the end.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub span: Span,
    pub message: String,
}

/// Result of lowering one construct.
pub(crate) type Lowered<T = ()> = Result<T, Pending>;

/// A [`Pending`] error at `span`.
pub(crate) fn at(span: Span, message: impl Into<String>) -> Pending {
    Pending { span, message: message.into() }
}

/// Resolves the line and column of every pending error.
pub(crate) fn locate(source: &str, pending: Vec<Pending>) -> Vec<LowerError> {
    let index = LineIndex::new(source);
    pending
        .into_iter()
        .map(|p| {
            let at = index.line_col(source, p.span.start as usize);
            LowerError { span: p.span, line: at.line, column: at.col, message: p.message }
        })
        .collect()
}
