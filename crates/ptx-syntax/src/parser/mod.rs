//! Recursive-descent parser from tokens to the [`ast`](crate::ast).
//!
//! A syntax error is reported in ptxas's words (`Parsing error near 'x':
//! syntax error`); the parser then skips to the end of the statement and goes
//! on, so one run reports every independent syntax error.

mod constant;
mod decl;
mod expr;
mod stmt;

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::Lexer;
use crate::span::{FileId, Span};
use crate::token::{Token, TokenKind};

/// Parses a whole file. The module holds everything that parsed; the
/// diagnostics list every syntax error (all are [`Severity::Fatal`](crate::diag::Severity::Fatal), as in ptxas).
pub fn parse_module(source: &str, file: FileId) -> (Module, Vec<Diagnostic>) {
    if let Some(fatal) = crate::lexer::forbidden_byte(source) {
        return (Module::default(), vec![fatal]);
    }
    let mut lexer = Lexer::new(source, file);
    let cur = lexer.next_token();
    let peek = lexer.next_token();
    let mut parser = Parser {
        src: source,
        lexer,
        cur,
        peek,
        prev: cur,
        consumed: 0,
        in_initializer: false,
        bison_base: stmt::BLOCK_BASE,
        abandoned: false,
        diags: Vec::new(),
    };
    let module = parser.module();
    (module, parser.diags)
}

/// Marker that a syntax error has been reported; the caller recovers.
pub(crate) struct Reported;

pub(crate) type PResult<T> = Result<T, Reported>;

pub(crate) struct Parser<'s> {
    src: &'s str,
    lexer: Lexer<'s>,
    /// The current token and one token of lookahead.
    cur: Token,
    peek: Token,
    /// The last consumed token, whose end closes spans.
    prev: Token,
    /// Tokens consumed so far, to tell whether recovery made progress.
    consumed: usize,
    /// Inside a variable initializer, where `name = value` fields may appear.
    in_initializer: bool,
    /// ptxas's parser stack depth at the start of the current statement
    /// (`constant.rs`): 9 entries plus 6 per enclosing brace.
    bison_base: usize,
    /// Set once ptxas's parser would have run out of stack: it stops there,
    /// so nothing after that point is parsed or reported.
    abandoned: bool,
    diags: Vec<Diagnostic>,
}

impl<'s> Parser<'s> {
    fn tok(&self) -> Token {
        self.cur
    }

    fn peek(&self) -> Token {
        self.peek
    }

    fn text_of(&self, token: Token) -> &'s str {
        self.src.get(token.span.range()).unwrap_or("")
    }

    fn text(&self) -> &'s str {
        self.text_of(self.tok())
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.tok().kind == kind
    }

    /// Whether the current token's bytes are `text` (bytes avoid the
    /// char-boundary checks of slicing `str`; these tests run per token).
    fn at_bytes(&self, kind: TokenKind, text: &str) -> bool {
        let token = self.tok();
        token.kind == kind && self.src.as_bytes().get(token.span.range()) == Some(text.as_bytes())
    }

    fn at_punct(&self, punct: &str) -> bool {
        self.at_bytes(TokenKind::Punct, punct)
    }

    fn at_dot(&self, word: &str) -> bool {
        self.at_bytes(TokenKind::Dot, word)
    }

    fn at_eof(&self) -> bool {
        self.at(TokenKind::Eof)
    }

    fn bump(&mut self) -> Token {
        let token = self.cur;
        if token.kind != TokenKind::Eof {
            self.prev = token;
            self.cur = self.peek;
            self.peek = self.lexer.next_token();
            self.consumed += 1;
        }
        token
    }

    fn eat_punct(&mut self, punct: &str) -> bool {
        let hit = self.at_punct(punct);
        if hit {
            self.bump();
        }
        hit
    }

    fn expect_punct(&mut self, punct: &str) -> PResult<Span> {
        if self.at_punct(punct) { Ok(self.bump().span) } else { Err(self.syntax_error()) }
    }

    /// Span of the previously consumed token.
    fn prev_span(&self) -> Span {
        self.prev.span
    }

    fn span_from(&self, start: Span) -> Span {
        start.to(self.prev_span())
    }

    fn ident(&mut self) -> PResult<Ident> {
        if self.at(TokenKind::Ident) {
            let token = self.bump();
            Ok(Ident { name: self.text_of(token).into(), span: token.span })
        } else {
            Err(self.syntax_error())
        }
    }

    fn dot_ident(&mut self) -> Ident {
        let token = self.bump();
        Ident { name: self.text_of(token).into(), span: token.span }
    }

    fn uint(&mut self) -> PResult<u64> {
        if self.at(TokenKind::Int) {
            let token = self.bump();
            let (value, _, overflow) = parse_int_checked(self.text_of(token));
            if overflow {
                self.diags.push(Diagnostic::error(token.span, "Constant overflow"));
            }
            Ok(value)
        } else {
            Err(self.syntax_error())
        }
    }

    /// Reports ptxas's syntax error at the current token.
    fn syntax_error(&mut self) -> Reported {
        if self.abandoned {
            return Reported;
        }
        let token = self.tok();
        let near = self.text_of(token);
        let what =
            if token.kind == TokenKind::UnterminatedComment { "unexpected EOF while scanning" } else { "syntax error" };
        self.diags.push(Diagnostic::fatal(token.span, format!("Parsing error near '{near}': {what}")));
        Reported
    }

    /// ptxas's `memory exhausted` at the current token: its parser stack
    /// (`constant.rs`) is full, and it gives up on the rest of the file.
    fn memory_exhausted(&mut self) -> Reported {
        let near = self.text();
        self.diags.push(Diagnostic::fatal(self.tok().span, format!("Parsing error near '{near}': memory exhausted")));
        self.abandoned = true;
        while !self.at_eof() {
            self.bump();
        }
        Reported
    }

    /// Skips to just after the next `;` at this nesting depth, or to a `}`
    /// that closes the enclosing block (left unconsumed).
    fn recover(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            if self.at_punct("{") {
                depth += 1;
            } else if self.at_punct("}") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                if depth == 0 {
                    self.bump();
                    return;
                }
            } else if self.at_punct(";") && depth == 0 {
                self.bump();
                return;
            }
            self.bump();
        }
    }

    /// Module-level recovery: skips to after the `;` or the closing `}` that
    /// ends the broken item, or to a line starting a new top-level item.
    fn recover_item(&mut self) {
        const ITEM_STARTS: &[&str] = &[
            ".version",
            ".target",
            ".address_size",
            ".visible",
            ".extern",
            ".weak",
            ".common",
            ".entry",
            ".func",
            ".global",
            ".const",
            ".shared",
            ".file",
            ".section",
            ".alias",
            ".pragma",
        ];
        let mut depth = 0usize;
        let start = self.consumed;
        while !self.at_eof() {
            let token = self.tok();
            if depth == 0 && self.consumed > start && token.line_start && ITEM_STARTS.iter().any(|w| self.at_dot(w)) {
                return;
            }
            if self.at_punct("{") {
                depth += 1;
            } else if self.at_punct("}") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    self.bump();
                    self.eat_punct(";");
                    return;
                }
            } else if self.at_punct(";") && depth == 0 {
                self.bump();
                return;
            }
            self.bump();
        }
    }

    /// Skips to the first token of the next line.
    fn recover_line(&mut self) {
        self.bump();
        while !self.at_eof() && !self.tok().line_start {
            self.bump();
        }
    }

    fn module(&mut self) -> Module {
        let mut items = Vec::new();
        while !self.at_eof() {
            let before = self.consumed;
            // ptxas's scanner reads `.version X.Y` as one token, so a late
            // `.version` is a syntax error quoting both words.
            if !items.is_empty() && self.at_dot(".version") {
                let (first, number) = (self.tok(), self.peek());
                let near = self.src.get(first.span.start as usize..number.span.end as usize).unwrap_or("");
                let message = format!("Parsing error near '{near}': syntax error");
                self.diags.push(Diagnostic::fatal(first.span.to(number.span), message));
                self.recover_line();
                continue;
            }
            match self.item() {
                Ok(item) => items.push(item),
                Err(Reported) => {
                    self.recover_item();
                    if self.consumed == before {
                        self.bump();
                    }
                }
            }
        }
        Module { items }
    }

    fn item(&mut self) -> PResult<Item> {
        if !self.at(TokenKind::Dot) {
            return Err(self.syntax_error());
        }
        let start = self.tok().span;
        match self.text() {
            ".version" => {
                self.bump();
                let (major, minor) = self.version_number()?;
                Ok(Item::Version(Version { major, minor, span: self.span_from(start) }))
            }
            ".target" => {
                self.bump();
                let mut names = vec![self.ident()?];
                while self.eat_punct(",") {
                    names.push(self.ident()?);
                }
                Ok(Item::Target(Target { names, span: self.span_from(start) }))
            }
            ".address_size" => {
                self.bump();
                let bits = self.uint()?;
                Ok(Item::AddressSize(AddressSize { bits, span: self.span_from(start) }))
            }
            ".section" => self.section().map(Item::Section),
            ".pragma" => self.pragma().map(Item::Pragma),
            ".file" | ".alias" => self.directive(true, usize::MAX).map(Item::Directive),
            _ => self.declaration_or_function(),
        }
    }

    /// `MAJOR.MINOR`, which the lexer sees as one float token.
    fn version_number(&mut self) -> PResult<(u32, u32)> {
        if self.at(TokenKind::Float)
            && let Some((major, minor)) = self.text().split_once('.')
            && let (Ok(major), Ok(minor)) = (major.parse(), minor.parse())
        {
            self.bump();
            return Ok((major, minor));
        }
        Err(self.syntax_error())
    }

    fn pragma(&mut self) -> PResult<Pragma> {
        let start = self.bump().span;
        let mut strings = vec![self.string()?];
        while self.eat_punct(",") {
            strings.push(self.string()?);
        }
        self.expect_punct(";")?;
        Ok(Pragma { strings, span: self.span_from(start) })
    }

    fn string(&mut self) -> PResult<String> {
        if self.at(TokenKind::Str) {
            let token = self.bump();
            let text = self.text_of(token);
            Ok(text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text).to_owned())
        } else {
            Err(self.syntax_error())
        }
    }

    /// A directive kept generically; it ends at the end of the line or, when
    /// `take_semicolon`, at a `;`.
    /// More than `max_args` comma-separated arguments is a syntax error.
    fn directive(&mut self, take_semicolon: bool, max_args: usize) -> PResult<Directive> {
        let name = self.dot_ident();
        let start = name.span;
        let mut args = Vec::new();
        let mut group = Vec::new();
        // `.alias` is free-form like the rest of the grammar; `.loc`, `.file`
        // and the function directives end with their line.
        let line_ends = name.name != ".alias";
        let semicolon = loop {
            let token = self.tok();
            // A dot starts the next directive (`.maxntid 1 .reqntid 1`).
            if (token.line_start && line_ends)
                || matches!(token.kind, TokenKind::Eof | TokenKind::Dot)
                || self.at_punct("}")
                || self.at_punct("{")
            {
                break false;
            }
            if self.at_punct(";") {
                if take_semicolon {
                    self.bump();
                }
                break take_semicolon;
            }
            if self.at_punct(",") {
                if args.len() + 1 >= max_args {
                    return Err(self.syntax_error());
                }
                self.bump();
                args.push(std::mem::take(&mut group));
                continue;
            }
            group.push(self.dir_arg()?);
        };
        if !group.is_empty() || !args.is_empty() {
            args.push(group);
        }
        Ok(Directive { name, args, semicolon, span: self.span_from(start) })
    }

    fn dir_arg(&mut self) -> PResult<DirArg> {
        match self.tok().kind {
            TokenKind::Str => self.string().map(DirArg::Str),
            _ => self.expr().map(DirArg::Expr),
        }
    }

    fn section(&mut self) -> PResult<Section> {
        let start = self.bump().span;
        if !self.at(TokenKind::Dot) {
            return Err(self.syntax_error());
        }
        let name = self.dot_ident();
        self.expect_punct("{")?;
        let mut entries = Vec::new();
        while !self.at_punct("}") {
            if self.at(TokenKind::Ident) && self.peek().kind == TokenKind::Punct && self.text_of(self.peek()) == ":" {
                entries.push(SectionEntry::Label(self.ident()?));
                self.bump();
                continue;
            }
            let ty = self.tok();
            let Some(ty_value) = self.text().strip_prefix('.').and_then(ScalarType::from_name) else {
                return Err(self.syntax_error());
            };
            self.bump();
            let mut values = vec![self.section_value()?];
            while self.eat_punct(",") {
                values.push(self.section_value()?);
            }
            entries.push(SectionEntry::Data { ty: ty_value, values, span: self.span_from(ty.span) });
        }
        self.bump();
        Ok(Section { name, entries, span: self.span_from(start) })
    }

    fn section_value(&mut self) -> PResult<Expr> {
        // Section names are values too: `.b32 .debug_loc+131`.
        if self.at(TokenKind::Dot) {
            let ident = self.dot_ident();
            let span = ident.span;
            return self.binary_rest(Expr { kind: ExprKind::Name(ident, None), span }, 0, 0);
        }
        self.expr()
    }
}

/// Value of an integer literal, whether it had a `U` suffix, and whether
/// ptxas reports `Constant overflow` for it: it does when a digit is to be
/// appended to a value above `i64::MAX`; below that the value wraps.
pub(crate) fn parse_int_checked(text: &str) -> (u64, bool, bool) {
    let (body, unsigned) = match text.strip_suffix(['U', 'u']) {
        Some(body) => (body, true),
        None => (text, false),
    };
    let (digits, radix) = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (hex, 16)
    } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (bin, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    let mut overflow = false;
    let mut value = 0u64;
    for d in digits.chars().filter_map(|c| c.to_digit(radix)) {
        overflow |= value > i64::MAX as u64;
        value = value.wrapping_mul(u64::from(radix)).wrapping_add(u64::from(d));
    }
    (value, unsigned, overflow)
}

#[cfg(test)]
mod tests;
