//! Operands and constant expressions (precedence climbing).

use super::{PResult, Parser};
use crate::ast::*;
use crate::token::TokenKind;

/// Deepest nesting of brackets and unary operators accepted, so that hostile
/// input cannot overflow the stack.
const MAX_DEPTH: u32 = 256;

/// ptxas's parser stack entries between a statement's start and its
/// operands (`mov.u32 %r1,`; see `constant.rs`).
const OPERAND_DEPTH: usize = 5;

impl Parser<'_> {
    /// Operand `index` of an instruction, in ptxas's operand grammar:
    /// constants are expressions (folded here, `constant.rs`), names are
    /// not: a name stands alone, with a `.x` component, an `[index]`, a
    /// `+ constant` offset, or (a first operand) as a `p|q` pair, and only a
    /// minus or `!` may precede it. `( .. )` is a list where `call` takes one.
    pub(super) fn operand(&mut self, index: usize, call: bool) -> PResult<Expr> {
        if call && self.at_punct("(") {
            let start = self.bump().span;
            let items = self.expr_list(")")?;
            return Ok(Expr { kind: ExprKind::List(items), span: self.span_from(start) });
        }
        let base = self.bison_base + OPERAND_DEPTH;
        let item = self.operand_item(base, 0)?;
        if index == 0 && self.at_punct("|") && matches!(item.kind, ExprKind::Name(..) | ExprKind::Sink) {
            self.bump();
            let other = self.operand_item(base, 0)?;
            let span = item.span.to(other.span);
            return Ok(Expr { kind: ExprKind::Binary(BinaryOp::Or, Box::new(item), Box::new(other)), span });
        }
        Ok(item)
    }

    /// One operand or one element of a `{..}` vector or `[..]` address.
    fn operand_item(&mut self, base: usize, depth: u32) -> PResult<Expr> {
        if depth > MAX_DEPTH {
            return Err(self.syntax_error());
        }
        if self.at_constant() {
            return self.constant(base);
        }
        let token = self.tok();
        let start = token.span;
        let kind = match token.kind {
            TokenKind::Float => {
                self.bump();
                ExprKind::Float(float_lit(self.text_of(token)))
            }
            TokenKind::Ident => {
                let name = self.name_expr(depth)?;
                if self.at_punct("+") && matches!(name.kind, ExprKind::Name(_, None)) {
                    self.bump();
                    let offset = self.constant(base + 3)?;
                    let span = name.span.to(offset.span);
                    return Ok(Expr { kind: ExprKind::Binary(BinaryOp::Add, Box::new(name), Box::new(offset)), span });
                }
                return Ok(name);
            }
            TokenKind::Punct => match self.text() {
                "-" | "!" => {
                    let op = if self.text() == "-" { UnaryOp::Neg } else { UnaryOp::Not };
                    self.bump();
                    let name = self.name_expr(depth)?;
                    ExprKind::Unary(op, Box::new(name))
                }
                "{" | "[" => {
                    let close = if self.text() == "{" { "}" } else { "]" };
                    self.bump();
                    let mut items = Vec::new();
                    if !self.at_punct(close) {
                        items.push(self.operand_item(base + 1, depth + 1)?);
                        while self.eat_punct(",") {
                            items.push(self.operand_item(base + 1, depth + 1)?);
                        }
                    }
                    self.expect_punct(close)?;
                    if close == "}" { ExprKind::Braces(items) } else { ExprKind::Address(items) }
                }
                _ => return Err(self.syntax_error()),
            },
            _ => return Err(self.syntax_error()),
        };
        Ok(Expr { kind, span: self.span_from(start) })
    }

    /// A full expression.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.binary(0, 0)
    }

    fn binary(&mut self, min_strength: u8, depth: u32) -> PResult<Expr> {
        let lhs = self.unary(depth)?;
        self.binary_rest(lhs, min_strength, depth)
    }

    /// Continues a binary expression whose first operand is `lhs`.
    pub(super) fn binary_rest(&mut self, mut lhs: Expr, min_strength: u8, depth: u32) -> PResult<Expr> {
        while let Some((op, strength)) = self.binary_op().filter(|(_, s)| *s > min_strength) {
            self.bump();
            let rhs = self.binary(strength, depth + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span };
        }
        Ok(lhs)
    }

    fn binary_op(&self) -> Option<(BinaryOp, u8)> {
        if !self.at(TokenKind::Punct) {
            return None;
        }
        let text = self.text();
        BinaryOp::TABLE.iter().find(|(_, sym, _)| *sym == text).map(|&(op, _, strength)| (op, strength))
    }

    fn unary(&mut self, depth: u32) -> PResult<Expr> {
        if depth > MAX_DEPTH {
            return Err(self.syntax_error());
        }
        let op = match self.text() {
            "-" => Some(UnaryOp::Neg),
            "!" => Some(UnaryOp::Not),
            "~" => Some(UnaryOp::BitNot),
            _ => None,
        };
        match op {
            Some(op) if self.at(TokenKind::Punct) => {
                let start = self.bump().span;
                let inner = self.unary(depth + 1)?;
                let span = start.to(inner.span);
                Ok(Expr { kind: ExprKind::Unary(op, Box::new(inner)), span })
            }
            _ => self.primary(depth),
        }
    }

    fn primary(&mut self, depth: u32) -> PResult<Expr> {
        let token = self.tok();
        let start = token.span;
        let kind = match token.kind {
            TokenKind::Ident => return self.name_expr(depth),
            TokenKind::Int => {
                self.bump();
                let (value, unsigned, overflow) = super::parse_int_checked(self.text_of(token));
                if overflow {
                    self.diags.push(crate::diag::Diagnostic::error(token.span, "Constant overflow"));
                }
                ExprKind::Int { value, unsigned }
            }
            TokenKind::Float => {
                self.bump();
                ExprKind::Float(float_lit(self.text_of(token)))
            }
            TokenKind::Punct => match self.text() {
                "(" => {
                    self.bump();
                    let inner = self.binary(0, depth + 1)?;
                    self.expect_punct(")")?;
                    ExprKind::Paren(Box::new(inner))
                }
                "{" => {
                    self.bump();
                    ExprKind::Braces(self.nested_list("}", depth)?)
                }
                "[" => {
                    self.bump();
                    ExprKind::Address(self.nested_list("]", depth)?)
                }
                _ => return Err(self.syntax_error()),
            },
            _ => return Err(self.syntax_error()),
        };
        Ok(Expr { kind, span: self.span_from(start) })
    }

    fn nested_list(&mut self, close: &str, depth: u32) -> PResult<Vec<Expr>> {
        if depth > MAX_DEPTH {
            return Err(self.syntax_error());
        }
        let mut items = Vec::new();
        if !self.at_punct(close) {
            items.push(self.binary(0, depth + 1)?);
            while self.eat_punct(",") {
                items.push(self.binary(0, depth + 1)?);
            }
        }
        self.expect_punct(close)?;
        Ok(items)
    }

    fn expr_list(&mut self, close: &str) -> PResult<Vec<Expr>> {
        self.nested_list(close, 0)
    }

    /// A name, with a glued `.x` component, `(args)` call or `[index]`, or
    /// a `name = value` field.
    fn name_expr(&mut self, depth: u32) -> PResult<Expr> {
        let ident = self.ident()?;
        let start = ident.span;
        if self.in_initializer && self.at_punct("=") {
            self.bump();
            let value = self.binary(0, depth + 1)?;
            return Ok(Expr { kind: ExprKind::Field(ident, Box::new(value)), span: self.span_from(start) });
        }
        if ident.name == "_" {
            return Ok(Expr { kind: ExprKind::Sink, span: start });
        }
        if self.at_punct("(") && self.tok().glued {
            self.bump();
            let args = self.nested_list(")", depth)?;
            return Ok(Expr { kind: ExprKind::Call(ident, args), span: self.span_from(start) });
        }
        let component = if self.at(TokenKind::Dot) && self.tok().glued {
            let token = self.bump();
            Some(Name::new(&self.text_of(token)[1..]))
        } else {
            None
        };
        let mut expr = Expr { kind: ExprKind::Name(ident, component), span: self.span_from(start) };
        // ptxas takes `%rd1 [p]` as indexing too (and then reports it), so
        // the bracket need not be glued.
        while self.at_punct("[") {
            self.bump();
            let index = self.binary(0, depth + 1)?;
            self.expect_punct("]")?;
            expr = Expr { kind: ExprKind::Index(Box::new(expr), Box::new(index)), span: self.span_from(start) };
        }
        Ok(expr)
    }
}

pub(super) fn float_lit(text: &str) -> FloatLit {
    let hex = |digits: &str| u64::from_str_radix(digits, 16).unwrap_or(u64::MAX);
    match text.as_bytes().get(1) {
        Some(b'f' | b'F') if text.len() > 2 => FloatLit::F32(u32::try_from(hex(&text[2..])).unwrap_or(u32::MAX)),
        Some(b'd' | b'D') if text.len() > 2 => FloatLit::F64(hex(&text[2..])),
        _ => FloatLit::Decimal(text.to_owned()),
    }
}
