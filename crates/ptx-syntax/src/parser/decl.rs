//! Declarations: variables, registers, parameters, functions, prototypes.

use super::{PResult, Parser};
use crate::ast::*;
use crate::token::TokenKind;

/// Directives that may follow a function's parameter list, with the most
/// comma-separated arguments each takes (ptxas's grammar rejects more).
const FUNCTION_ATTRS: &[(&str, usize)] = &[
    (".maxntid", 3),
    (".reqntid", 3),
    (".minnctapersm", 1),
    (".maxnctapersm", 1),
    (".maxnreg", 1),
    (".maxclusterrank", 1),
    (".reqnctapercluster", 3),
    (".explicitcluster", 0),
    (".blocksareclusters", 0),
    (".noreturn", 0),
    (".pragma", usize::MAX),
    (".abi_preserve", 1),
    (".abi_preserve_control", 1),
];

impl Parser<'_> {
    fn linkage(&mut self) -> Option<Linkage> {
        let linkage = self.text().strip_prefix('.').and_then(Linkage::from_name).filter(|_| self.at(TokenKind::Dot));
        if linkage.is_some() {
            self.bump();
        }
        linkage
    }

    /// A module-level variable or a function, after optional linkage.
    pub(super) fn declaration_or_function(&mut self) -> PResult<Item> {
        let start = self.tok().span;
        let linkage = self.linkage();
        if self.at_dot(".entry") || self.at_dot(".func") {
            return self.function(linkage, start).map(|f| Item::Function(Box::new(f)));
        }
        let decl = self.var_decl(linkage, true)?;
        self.expect_punct(";")?;
        let span = self.span_from(start);
        Ok(Item::Variable(VarDecl { span, ..decl }))
    }

    /// `.space attrs .type declarators` without the `;`. `multi` allows a
    /// comma-separated list of names (not inside parameter lists).
    pub(super) fn var_decl(&mut self, linkage: Option<Linkage>, multi: bool) -> PResult<VarDecl> {
        let start = self.tok().span;
        let space = match self.text().strip_prefix('.').and_then(StateSpace::from_name) {
            Some(space) if self.at(TokenKind::Dot) => space,
            _ => return Err(self.syntax_error()),
        };
        self.bump();
        let mut attrs = Vec::new();
        let ty = loop {
            if !self.at(TokenKind::Dot) {
                return Err(self.syntax_error());
            }
            let word = &self.text()[1..];
            if let Some(t) = ScalarType::from_name(word) {
                self.bump();
                break DeclType::Scalar(t);
            }
            if let Some(t) = OpaqueType::from_name(word) {
                self.bump();
                break DeclType::Opaque(t);
            }
            attrs.push(self.decl_attr()?);
        };
        let mut trailing = Vec::new();
        while self.at(TokenKind::Dot) {
            trailing.push(self.decl_attr()?);
        }
        let mut names = vec![self.declarator()?];
        while multi && self.eat_punct(",") {
            names.push(self.declarator()?);
        }
        Ok(VarDecl { linkage, space, attrs, ty, trailing, names, span: self.span_from(start) })
    }

    fn decl_attr(&mut self) -> PResult<DeclAttr> {
        let word = self.dot_ident();
        let name = &word.name[1..];
        Ok(match name {
            "align" => DeclAttr::Align(self.uint()?),
            "ptr" => DeclAttr::Ptr,
            "attribute" => {
                self.expect_punct("(")?;
                let mut words = Vec::new();
                while self.at(TokenKind::Dot) {
                    words.push(self.dot_ident());
                    self.eat_punct(",");
                }
                self.expect_punct(")")?;
                DeclAttr::Attribute(words)
            }
            _ => match (StateSpace::from_name(name), name.strip_prefix('v').and_then(|n| n.parse().ok())) {
                (Some(space), _) => DeclAttr::Space(space),
                (None, Some(width)) => DeclAttr::Vector(width),
                (None, None) => DeclAttr::Word(word),
            },
        })
    }

    fn declarator(&mut self) -> PResult<Declarator> {
        let name = self.ident()?;
        let mut range = None;
        if self.at_punct("<") {
            self.bump();
            range = Some(u32::try_from(self.uint()?).unwrap_or(u32::MAX));
            self.expect_punct(">")?;
        }
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            if self.eat_punct("]") {
                dims.push(None);
            } else {
                dims.push(Some(self.uint()?));
                self.expect_punct("]")?;
            }
        }
        let init = if self.eat_punct("=") {
            self.in_initializer = true;
            let init = self.expr();
            self.in_initializer = false;
            Some(init?)
        } else {
            None
        };
        Ok(Declarator { name, range, dims, init })
    }

    /// `( .param ... , ... )`; an empty list is allowed.
    fn param_list(&mut self) -> PResult<Vec<VarDecl>> {
        self.expect_punct("(")?;
        let mut params = Vec::new();
        if !self.at_punct(")") {
            params.push(self.var_decl(None, false)?);
            while self.eat_punct(",") {
                params.push(self.var_decl(None, false)?);
            }
        }
        self.expect_punct(")")?;
        Ok(params)
    }

    fn function(&mut self, linkage: Option<Linkage>, start: crate::span::Span) -> PResult<Function> {
        let kind = if self.bump_text() == ".entry" { FunctionKind::Entry } else { FunctionKind::Func };
        // Kernels have no return parameters.
        let returns = if self.at_punct("(") && kind == FunctionKind::Func { Some(self.param_list()?) } else { None };
        let name = self.ident()?;
        let params = if self.at_punct("(") { Some(self.param_list()?) } else { None };
        let mut attrs = Vec::new();
        while let Some(&(word, max_args)) = FUNCTION_ATTRS.iter().find(|(w, _)| self.at_dot(w)) {
            // Only `.pragma` ends with `;`; after the others a `;` ends the declaration.
            attrs.push(self.directive(word == ".pragma", max_args)?);
        }
        let body = if self.eat_punct(";") { None } else { Some(self.block()?) };
        Ok(Function { linkage, kind, returns, name, params, attrs, body, span: self.span_from(start) })
    }

    fn bump_text(&mut self) -> &str {
        let token = self.bump();
        self.text_of(token)
    }

    /// After `label :`, `.callprototype [(rets)] _ (params) [.noreturn];`.
    pub(super) fn prototype(&mut self, label: Ident) -> PResult<Prototype> {
        self.bump();
        let returns = if self.at_punct("(") { Some(self.param_list()?) } else { None };
        if !(self.at(TokenKind::Ident) && self.text() == "_") {
            return Err(self.syntax_error());
        }
        self.bump();
        let params = if self.at_punct("(") { self.param_list()? } else { Vec::new() };
        let mut attrs = Vec::new();
        while self.at(TokenKind::Dot) {
            attrs.push(self.dot_ident());
        }
        self.expect_punct(";")?;
        let span = self.span_from(label.span);
        Ok(Prototype { label, returns, params, attrs, span })
    }

    /// After `label :`, `.branchtargets a, b;` or `.calltargets f, g;`.
    pub(super) fn targets(&mut self, label: Ident) -> PResult<Targets> {
        let directive = self.dot_ident();
        let mut targets = vec![self.ident()?];
        while self.eat_punct(",") {
            targets.push(self.ident()?);
        }
        self.expect_punct(";")?;
        let span = self.span_from(label.span);
        Ok(Targets { label, directive, targets, span })
    }
}
