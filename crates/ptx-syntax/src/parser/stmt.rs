//! Function bodies: blocks, labels, declarations and instructions.

use super::{PResult, Parser, Reported};
use crate::ast::*;
use crate::token::TokenKind;

impl Parser<'_> {
    /// `{ statements }`; statements with syntax errors are skipped after
    /// being reported.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let start = self.expect_punct("{")?;
        let mut statements = Vec::new();
        loop {
            if self.at_eof() {
                return Err(self.syntax_error());
            }
            if self.eat_punct("}") {
                break;
            }
            let before = self.consumed;
            match self.statement() {
                Ok(statement) => statements.push(statement),
                Err(Reported) => {
                    self.recover();
                    if self.consumed == before {
                        self.bump();
                    }
                }
            }
        }
        Ok(Block { statements, span: self.span_from(start) })
    }

    fn statement(&mut self) -> PResult<Statement> {
        let token = self.tok();
        match token.kind {
            TokenKind::Punct if self.text() == "{" => self.block().map(Statement::Block),
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
        if !self.at_punct(";") {
            operands.push(self.operand()?);
            while self.eat_punct(",") {
                operands.push(self.operand()?);
            }
        }
        self.expect_punct(";")?;
        Ok(Instruction { guard, opcode, modifiers, operands, span: self.span_from(start) })
    }
}
