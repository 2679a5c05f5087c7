//! Tokens produced by the lexer.

use crate::span::Span;

/// What kind of token; the text itself stays in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier: `foo`, `%r1`, `$L__BB0_2`, `_`.
    Ident,
    /// A dotted word: directives (`.reg`) and instruction modifiers (`.f32`,
    /// `.shared::cta`); the text includes the dot.
    Dot,
    /// An integer literal (decimal, `0x` hex, `0b` binary, octal), maybe with a `U` suffix.
    Int,
    /// A float literal: `0f3F800000`, `0d3FF0000000000000` or decimal `1.5e3`.
    Float,
    /// A double-quoted string.
    Str,
    /// Punctuation or an operator: `,` `;` `{` `<<` `::`...
    Punct,
    /// A character that starts no token.
    Unknown,
    /// A `/*` comment that is never closed (an empty span at its start).
    UnterminatedComment,
    /// End of input.
    Eof,
}

/// One token: its kind, where it is, and whether whitespace separates it
/// from the previous token (modifiers and vector components must be glued on).
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// The kind.
    pub kind: TokenKind,
    /// Where the text is.
    pub span: Span,
    /// True when no whitespace or comment precedes it.
    pub glued: bool,
    /// True when a line break precedes it (`.loc` and section data end at the line end).
    pub line_start: bool,
}
