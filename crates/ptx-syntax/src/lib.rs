//! PTX front end: lexer, parser, typed AST with source spans, semantic
//! validation and ptxas-style diagnostics.
//!
//! ```
//! use ptx_syntax::{parse, print, validate, FileId, ValidateOptions};
//! let src = ".version 9.5\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tret;\n}\n";
//! let (module, diags) = parse(src, FileId(0));
//! assert!(diags.is_empty());
//! assert!(validate(&module, &ValidateOptions::default()).is_empty());
//! assert_eq!(parse(&print(&module), FileId(0)).0, module);
//! ```

#![warn(missing_docs)]

pub mod ast;
mod diag;
mod hash;
mod lexer;
mod name;
mod normalize;
mod parser;
mod print;
mod span;
mod tables;
mod target;
mod token;
mod validate;
mod vocab;

pub use diag::{Diagnostic, Severity, render_ptxas_all};
pub use lexer::lex;
pub use name::Name;
pub use normalize::normalize;
pub use print::print;
pub use span::{FileId, LineCol, LineIndex, Span};
pub use target::{PtxVersion, Sm};
pub use token::{Token, TokenKind};
pub use validate::{ValidateOptions, validate, validate_files};

/// Parses PTX text. The module contains everything that parsed (statements
/// with syntax errors are dropped); the diagnostics list every syntax error.
/// Run [`validate`] only when there are none, as ptxas does.
pub fn parse(source: &str, file: FileId) -> (ast::Module, Vec<Diagnostic>) {
    parser::parse_module(source, file)
}
