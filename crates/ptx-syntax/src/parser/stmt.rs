//! Function bodies: blocks, labels, declarations and instructions.

use super::{PResult, Parser, Reported};
use crate::ast::*;
use crate::span::Span;
use crate::token::TokenKind;

/// ptxas's parser stack depth at a module-level item (see `constant.rs`).
pub(super) const BLOCK_BASE: usize = 9;
/// Stack entries each enclosing `{` adds.
const BRACE_DEPTH: usize = 6;

impl Parser<'_> {
    /// `{ statements }`, nested blocks included, without recursion: blocks
    /// nest as deep as ptxas's parser stack allows (about 1,660).
    /// Statements with syntax errors are skipped after being reported.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let outer_base = self.bison_base;
        let result = self.blocks();
        self.bison_base = outer_base;
        result
    }

    fn blocks(&mut self) -> PResult<Block> {
        // The open blocks, innermost last: statements so far and the `{`.
        let mut open: Vec<(Vec<Statement>, Span)> = Vec::new();
        loop {
            if open.is_empty() || self.at_punct("{") {
                self.memory_check(1)?;
                let start = self.expect_punct("{")?;
                open.push((Vec::new(), start));
                self.bison_base += BRACE_DEPTH;
                continue;
            }
            if self.at_eof() {
                return Err(self.syntax_error());
            }
            if self.eat_punct("}") {
                self.bison_base -= BRACE_DEPTH;
                let (statements, start) = open.pop().expect("an open block");
                let block = Block { statements, span: self.span_from(start) };
                match open.last_mut() {
                    Some((parent, _)) => parent.push(Statement::Block(block)),
                    None => return Ok(block),
                }
                continue;
            }
            let before = self.consumed;
            match self.statement() {
                Ok(statement) => open.last_mut().expect("an open block").0.push(statement),
                Err(Reported) => {
                    self.recover();
                    if self.consumed == before {
                        self.bump();
                    }
                }
            }
        }
    }

    /// ptxas's `memory exhausted` when shifting `entries` more would pass
    /// its parser stack.
    fn memory_check(&mut self, entries: usize) -> PResult<()> {
        if self.bison_base + entries > super::constant::BISON_STACK {
            return Err(self.memory_exhausted());
        }
        Ok(())
    }

    fn statement(&mut self) -> PResult<Statement> {
        let token = self.tok();
        match token.kind {
            TokenKind::Punct if self.text() == "@" => self.instruction().map(Statement::Instruction),
            TokenKind::Ident if self.peek().kind == TokenKind::Punct && self.text_of(self.peek()) == ":" => {
                let label = self.ident()?;
                self.bump();
                match self.text() {
                    ".callprototype" => self.prototype(label).map(Statement::Prototype),
                    ".branchtargets" | ".calltargets" => self.targets(label).map(Statement::Targets),
                    _ => Ok(Statement::Label(label)),
                }
            }
            TokenKind::Ident => self.instruction().map(Statement::Instruction),
            TokenKind::Dot if self.text() == ".pragma" => self.pragma().map(Statement::Pragma),
            TokenKind::Dot if StateSpace::from_name(&self.text()[1..]).is_some() => {
                let decl = self.var_decl(None, true)?;
                self.expect_punct(";")?;
                let span = self.span_from(decl.span);
                Ok(Statement::Decl(VarDecl { span, ..decl }))
            }
            // `.loc` is the only other directive ptxas takes inside a body.
            TokenKind::Dot if self.text() == ".loc" => self.directive(true, usize::MAX).map(Statement::Directive),
            _ => Err(self.syntax_error()),
        }
    }

    fn instruction(&mut self) -> PResult<Instruction> {
        let start = self.tok().span;
        let guard = if self.eat_punct("@") {
            let negated = self.eat_punct("!");
            Some(Guard { negated, pred: self.ident()? })
        } else {
            None
        };
        let opcode = self.ident()?;
        let mut modifiers = Vec::new();
        // ptxas takes blanks and comments between modifiers (`ld .param.u64`).
        while self.at(TokenKind::Dot) {
            let token = self.bump();
            let text = &self.text_of(token)[1..];
            modifiers.push(Modifier { kind: ModifierKind::classify(text), name: Name::new(text), span: token.span });
        }
        let mut operands = Vec::new();
        let call = opcode.name == "call";
        if !self.at_punct(";") {
            operands.push(self.operand(0, call)?);
            while self.eat_punct(",") {
                // `call (r), f, (a)`: after the results comes the callee, a name.
                let callee = call && operands.len() == 1 && matches!(operands[0].kind, ExprKind::List(_));
                if callee && self.at_punct("(") {
                    return Err(self.syntax_error());
                }
                operands.push(self.operand(operands.len(), call && !callee)?);
            }
        }
        if self.at_punct(";") {
            self.memory_check(2)?;
        }
        self.expect_punct(";")?;
        Ok(Instruction { guard, opcode, modifiers, operands, span: self.span_from(start) })
    }
}
