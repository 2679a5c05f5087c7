//! The typed syntax tree. Every node carries a [`Span`]; spans compare equal
//! to each other, so `==` on nodes is structural.

pub use crate::name::Name;
use crate::span::Span;
pub use crate::vocab::{Linkage, OpaqueType, Rounding, ScalarType, StateSpace};

/// A whole PTX file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// Top-level directives, variables and functions in source order.
    pub items: Vec<Item>,
}

/// A name with its location.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The text, including a leading `%` or `$`.
    pub name: Name,
    /// Where it is.
    pub span: Span,
}

/// A module-level item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `.version MAJOR.MINOR`
    Version(Version),
    /// `.target sm_90a, debug`
    Target(Target),
    /// `.address_size 64`
    AddressSize(AddressSize),
    /// A module-scope variable (`.global`, `.shared`, `.const`...).
    Variable(VarDecl),
    /// `.entry` or `.func`, declared or defined.
    Function(Box<Function>),
    /// `.section NAME { ... }` (DWARF data).
    Section(Section),
    /// `.pragma "..."`;
    Pragma(Pragma),
    /// Any other directive: `.file`, `.alias`, ... kept as comma-separated argument groups.
    Directive(Directive),
}

/// `.version MAJOR.MINOR`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    /// The whole directive.
    pub span: Span,
}

/// `.target` and its comma-separated names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `sm_90a`, `texmode_independent`, `debug`, ...
    pub names: Vec<Ident>,
    /// The whole directive.
    pub span: Span,
}

/// `.address_size N`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressSize {
    /// 32 or 64 when valid.
    pub bits: u64,
    /// The whole directive.
    pub span: Span,
}

/// A declaration attribute written between the state space and the type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclAttr {
    /// `.align N`
    Align(u64),
    /// `.v2`, `.v4`, `.v8`
    Vector(u32),
    /// `.ptr` (kernel parameter attribute), optionally followed by a space and alignment.
    Ptr,
    /// A state space after `.ptr` (`.ptr.global`).
    Space(StateSpace),
    /// `.attribute(.managed)` and similar.
    Attribute(Vec<Ident>),
    /// `.managed`, `.reserved` and other bare words.
    Word(Ident),
}

/// The type of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclType {
    /// A data type such as `.b32`.
    Scalar(ScalarType),
    /// `.texref`, `.samplerref`, `.surfref`.
    Opaque(OpaqueType),
}

/// A variable, register or parameter declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    /// `.visible`, `.extern`... (module scope only).
    pub linkage: Option<Linkage>,
    /// The state space.
    pub space: StateSpace,
    /// Attributes between space and type, in source order.
    pub attrs: Vec<DeclAttr>,
    /// The element type.
    pub ty: DeclType,
    /// Attributes after the type: a kernel parameter's `.ptr .global .align 16`.
    pub trailing: Vec<DeclAttr>,
    /// One or more declared names.
    pub names: Vec<Declarator>,
    /// The whole declaration.
    pub span: Span,
}

impl VarDecl {
    /// Vector width from `.v2`/`.v4`/`.v8`, if any.
    pub fn vector(&self) -> Option<u32> {
        self.attrs.iter().find_map(|a| if let DeclAttr::Vector(n) = a { Some(*n) } else { None })
    }

    /// Alignment from `.align N`, if any. A kernel parameter's
    /// `.ptr .space .align N` is the pointee's alignment
    /// ([`VarDecl::pointee`]), not the parameter's.
    pub fn align(&self) -> Option<u64> {
        let trailing = if self.is_ptr() { &[][..] } else { &self.trailing[..] };
        self.attrs.iter().chain(trailing).find_map(|a| if let DeclAttr::Align(n) = a { Some(*n) } else { None })
    }

    /// A kernel parameter declared `.ptr`.
    pub fn is_ptr(&self) -> bool {
        self.trailing.iter().any(|a| matches!(a, DeclAttr::Ptr))
    }

    /// `.ptr [.space] [.align N]`: the space and alignment of what the
    /// parameter points to.
    pub fn pointee(&self) -> Option<(Option<StateSpace>, Option<u64>)> {
        if !self.is_ptr() {
            return None;
        }
        let space = self.trailing.iter().find_map(|a| if let DeclAttr::Space(s) = a { Some(*s) } else { None });
        let align = self.trailing.iter().find_map(|a| if let DeclAttr::Align(n) = a { Some(*n) } else { None });
        Some((space, align))
    }
}

/// One declared name: `%r<100>`, `buf[16][4]`, `x = 5`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declarator {
    /// The name (for a range, the prefix).
    pub name: Ident,
    /// `%r<N>` declares `%r0` .. `%r{N-1}`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    /// `= initializer`.
    pub init: Option<Expr>,
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// A kernel.
    Entry,
    /// A device function.
    Func,
}

/// A function declaration or definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// `.visible`, `.extern`, `.weak`.
    pub linkage: Option<Linkage>,
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Return parameters of a `.func`, `(.param .b32 r)`.
    pub returns: Option<Vec<VarDecl>>,
    /// The function name.
    pub name: Ident,
    /// Parameters; `None` when the parameter list is absent.
    pub params: Option<Vec<VarDecl>>,
    /// Performance directives and `.noreturn`, in source order.
    pub attrs: Vec<Directive>,
    /// The body, or `None` for a declaration ending in `;`.
    pub body: Option<Block>,
    /// From the first keyword to the end of the body.
    pub span: Span,
}

/// `{ statements }`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The statements.
    pub statements: Vec<Statement>,
    /// Braces included.
    pub span: Span,
}

/// One statement of a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// `name:`
    Label(Ident),
    /// An instruction.
    Instruction(Instruction),
    /// `.reg`, `.local`, `.shared`, `.param` ...
    Decl(VarDecl),
    /// A nested `{ }` scope.
    Block(Block),
    /// `.pragma "...";`
    Pragma(Pragma),
    /// `label: .callprototype ...;`
    Prototype(Prototype),
    /// `label: .branchtargets a, b;` or `.calltargets`.
    Targets(Targets),
    /// Other directives (`.loc`, ...).
    Directive(Directive),
}

impl Statement {
    /// The label this statement defines: `name:`, or the name of a
    /// prototype or target list.
    pub fn label(&self) -> Option<&Ident> {
        match self {
            Statement::Label(label) => Some(label),
            Statement::Prototype(p) => Some(&p.label),
            Statement::Targets(t) => Some(&t.label),
            _ => None,
        }
    }
}

/// `.pragma "a", "b";`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pragma {
    /// The strings, without quotes or escapes processed.
    pub strings: Vec<String>,
    /// The whole directive.
    pub span: Span,
}

/// `label: .callprototype (.param .b32 _) _ (.param .b64 _) .noreturn;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prototype {
    /// The label naming the prototype.
    pub label: Ident,
    /// Return parameters.
    pub returns: Option<Vec<VarDecl>>,
    /// Parameters.
    pub params: Vec<VarDecl>,
    /// `.noreturn` and similar.
    pub attrs: Vec<Ident>,
    /// Label to semicolon.
    pub span: Span,
}

/// `label: .branchtargets L1, L2;` / `label: .calltargets f, g;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targets {
    /// The label naming the list.
    pub label: Ident,
    /// `.branchtargets` or `.calltargets` (with the dot).
    pub directive: Ident,
    /// The listed labels or functions.
    pub targets: Vec<Ident>,
    /// Label to semicolon.
    pub span: Span,
}

/// A directive kept generically: its name and comma-separated groups of
/// space-separated arguments. `.loc 1 5 3, inlined_at 1 9 2` has groups
/// `[1 5 3]` and `[inlined_at 1 9 2]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// The name, with its dot.
    pub name: Ident,
    /// Argument groups.
    pub args: Vec<Vec<DirArg>>,
    /// Whether it ended with `;` (`.loc` and `.file` end at the line end).
    pub semicolon: bool,
    /// The whole directive.
    pub span: Span,
}

/// One argument of a generic directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirArg {
    /// A number, name or expression.
    Expr(Expr),
    /// A string literal (raw text between the quotes).
    Str(String),
}

/// `.section .debug_info { ... }`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Section name with its dot.
    pub name: Ident,
    /// Labels and data lines.
    pub entries: Vec<SectionEntry>,
    /// The whole section.
    pub span: Span,
}

/// A line inside a `.section`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionEntry {
    /// `name:`
    Label(Ident),
    /// `.b8 1, 2, 3` / `.b32 label+4` / `.b64 .debug_abbrev`
    Data {
        /// Element type.
        ty: ScalarType,
        /// Values; names of sections appear as [`ExprKind::Name`] with a dot.
        values: Vec<Expr>,
        /// The line.
        span: Span,
    },
}

/// An instruction with optional guard predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// `@p` or `@!p`.
    pub guard: Option<Guard>,
    /// The first word, e.g. `ld`.
    pub opcode: Ident,
    /// The dotted words after the opcode, in order.
    pub modifiers: Vec<Modifier>,
    /// The operands.
    pub operands: Vec<Expr>,
    /// From guard to semicolon.
    pub span: Span,
}

impl Instruction {
    /// Data-type modifiers, in order.
    pub fn types(&self) -> impl Iterator<Item = ScalarType> + '_ {
        self.modifiers.iter().filter_map(|m| if let ModifierKind::Type(t) = m.kind { Some(t) } else { None })
    }

    /// The state-space modifier, if any.
    pub fn space(&self) -> Option<StateSpace> {
        self.modifiers.iter().find_map(|m| if let ModifierKind::Space(s) = m.kind { Some(s) } else { None })
    }

    /// Whether a modifier spelled `name` (without dot) is present.
    pub fn has(&self, name: &str) -> bool {
        self.modifiers.iter().any(|m| m.name == name)
    }
}

/// `@%p` / `@!%p`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// `@!`
    pub negated: bool,
    /// The predicate register.
    pub pred: Ident,
}

/// One dotted modifier: its spelling and what it is, when it is a known kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Modifier {
    /// The spelling without the dot (`f32`, `shared::cta`).
    pub name: Name,
    /// The classification of `name`.
    pub kind: ModifierKind,
    /// Where it is, dot included.
    pub span: Span,
}

/// What a modifier is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifierKind {
    /// A data type.
    Type(ScalarType),
    /// A state space (`.shared::cta` counts as `.shared`).
    Space(StateSpace),
    /// A rounding mode.
    Rounding(Rounding),
    /// `.v2`, `.v4`, `.v8`.
    Vector(u32),
    /// Anything else: comparison, cache, scope, shape...
    Word,
}

impl ModifierKind {
    /// Classifies a modifier spelling (without the dot).
    pub fn classify(name: &str) -> ModifierKind {
        let base = name.find(':').map_or(name, |colon| &name[..colon]);
        if let Some(t) = ScalarType::from_name(name) {
            ModifierKind::Type(t)
        } else if let Some(s) = StateSpace::from_name(base).filter(|s| *s != StateSpace::Reg) {
            ModifierKind::Space(s)
        } else if let Some(r) = Rounding::from_name(name) {
            ModifierKind::Rounding(r)
        } else if let Some(n) = name.strip_prefix('v').and_then(|n| n.parse().ok()).filter(|n| [2, 4, 8].contains(n)) {
            ModifierKind::Vector(n)
        } else {
            ModifierKind::Word
        }
    }
}

/// An operand or constant expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

impl Expr {
    /// Calls `f` on every symbol the expression names (registers, variables,
    /// labels, functions), in source order. Field names of sampler
    /// initializers are keywords and are skipped.
    pub fn for_each_name<'e>(&'e self, f: &mut impl FnMut(&'e Ident)) {
        match &self.kind {
            ExprKind::Name(ident, _) => f(ident),
            ExprKind::Int { .. } | ExprKind::Float(_) | ExprKind::Sink => {}
            ExprKind::Unary(_, e) | ExprKind::Paren(e) | ExprKind::Field(_, e) => e.for_each_name(f),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                a.for_each_name(f);
                b.for_each_name(f);
            }
            ExprKind::Braces(items) | ExprKind::Address(items) | ExprKind::List(items) | ExprKind::Call(_, items) => {
                for item in items {
                    item.for_each_name(f);
                }
            }
        }
    }
}

impl Expr {
    /// Calls `f` on every `name.component` the expression holds.
    pub fn for_each_component<'e>(&'e self, f: &mut impl FnMut(&'e Ident, &'e str)) {
        match &self.kind {
            ExprKind::Name(ident, Some(component)) => f(ident, component),
            ExprKind::Unary(_, e) | ExprKind::Paren(e) => e.for_each_component(f),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                a.for_each_component(f);
                b.for_each_component(f);
            }
            ExprKind::Braces(items) | ExprKind::Address(items) | ExprKind::List(items) => {
                items.iter().for_each(|item| item.for_each_component(f));
            }
            _ => {}
        }
    }
}

/// Operand and expression forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// A register, variable, label or function name; `%tid.x` carries component `x`.
    Name(Ident, Option<Name>),
    /// An integer literal; `unsigned` for a `U` suffix.
    Int {
        /// Its value (wrapped to 64 bits).
        value: u64,
        /// Written with a `U` suffix.
        unsigned: bool,
    },
    /// A float literal.
    Float(FloatLit),
    /// `_`, the sink.
    Sink,
    /// `-x`, `!p`, `~x`.
    Unary(UnaryOp, Box<Expr>),
    /// `a + b`, `p | q`, ...
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `( e )` in a constant expression.
    Paren(Box<Expr>),
    /// `{a, b, c}`: a vector operand or an aggregate initializer.
    Braces(Vec<Expr>),
    /// `[ ... ]`: a memory address (usually one item; tensor forms have several).
    Address(Vec<Expr>),
    /// `( a, b )`: the argument and return lists of `call`.
    List(Vec<Expr>),
    /// `name(args)`: `generic(sym)` in initializers.
    Call(Ident, Vec<Expr>),
    /// `name = value` inside a sampler initializer `{ filter_mode = linear }`.
    Field(Ident, Box<Expr>),
    /// `base[index]` inside an address.
    Index(Box<Expr>, Box<Expr>),
}

/// A float literal as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FloatLit {
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64(u64),
    /// Decimal notation, kept as text so that it round-trips exactly.
    Decimal(String),
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-`
    Neg,
    /// `!`
    Not,
    /// `~`
    BitNot,
}

/// Infix operators, from loosest to tightest binding groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `||`
    LogOr,
    /// `&&`
    LogAnd,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

impl BinaryOp {
    /// The operators with their spelling and binding strength (higher binds tighter).
    pub const TABLE: &'static [(BinaryOp, &'static str, u8)] = &[
        (BinaryOp::LogOr, "||", 1),
        (BinaryOp::LogAnd, "&&", 2),
        (BinaryOp::Or, "|", 3),
        (BinaryOp::Xor, "^", 4),
        (BinaryOp::And, "&", 5),
        (BinaryOp::Eq, "==", 6),
        (BinaryOp::Ne, "!=", 6),
        (BinaryOp::Lt, "<", 7),
        (BinaryOp::Gt, ">", 7),
        (BinaryOp::Le, "<=", 7),
        (BinaryOp::Ge, ">=", 7),
        (BinaryOp::Shl, "<<", 8),
        (BinaryOp::Shr, ">>", 8),
        (BinaryOp::Add, "+", 9),
        (BinaryOp::Sub, "-", 9),
        (BinaryOp::Mul, "*", 10),
        (BinaryOp::Div, "/", 10),
        (BinaryOp::Rem, "%", 10),
    ];

    /// Spelling of the operator.
    pub fn symbol(self) -> &'static str {
        BinaryOp::TABLE.iter().find(|(op, _, _)| *op == self).map_or("?", |e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifier_kinds() {
        assert_eq!(ModifierKind::classify("f32"), ModifierKind::Type(ScalarType::F32));
        assert_eq!(ModifierKind::classify("shared::cluster"), ModifierKind::Space(StateSpace::Shared));
        assert_eq!(ModifierKind::classify("global"), ModifierKind::Space(StateSpace::Global));
        assert_eq!(ModifierKind::classify("reg"), ModifierKind::Word);
        assert_eq!(ModifierKind::classify("L2::cache_hint"), ModifierKind::Word);
        assert_eq!(ModifierKind::classify("rzi"), ModifierKind::Rounding(Rounding::Rzi));
        assert_eq!(ModifierKind::classify("v4"), ModifierKind::Vector(4));
        assert_eq!(ModifierKind::classify("v3"), ModifierKind::Word);
        assert_eq!(ModifierKind::classify("f32::x"), ModifierKind::Word);
    }
}
