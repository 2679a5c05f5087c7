//! Writes a module back as PTX text. The output re-parses to an equal AST;
//! layout (indentation, one statement per line) follows NVRTC's style.

use crate::ast::*;
use std::fmt::Write;

/// Prints `module` as PTX.
pub fn print(module: &Module) -> String {
    let mut p = Printer { out: String::new() };
    for item in &module.items {
        p.item(item);
    }
    p.out
}

struct Printer {
    out: String,
}

impl Printer {
    fn item(&mut self, item: &Item) {
        match item {
            Item::Version(v) => _ = writeln!(self.out, ".version {}.{}", v.major, v.minor),
            Item::Target(t) => {
                let names: Vec<&str> = t.names.iter().map(|n| n.name.as_str()).collect();
                _ = writeln!(self.out, ".target {}", names.join(", "));
            }
            Item::AddressSize(a) => _ = writeln!(self.out, ".address_size {}", a.bits),
            Item::Variable(v) => {
                self.var_decl(v);
                self.out.push_str(";\n");
            }
            Item::Function(f) => self.function(f),
            Item::Section(s) => self.section(s),
            Item::Pragma(p) => self.pragma(p),
            Item::Directive(d) => self.directive(d),
        }
    }

    fn pragma(&mut self, pragma: &Pragma) {
        let strings: Vec<String> = pragma.strings.iter().map(|s| format!("\"{s}\"")).collect();
        _ = writeln!(self.out, ".pragma {};", strings.join(", "));
    }

    fn directive(&mut self, d: &Directive) {
        self.out.push_str(&d.name.name);
        for (i, group) in d.args.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            for (j, arg) in group.iter().enumerate() {
                if j > 0 {
                    self.out.push(' ');
                }
                match arg {
                    DirArg::Expr(e) => self.expr(e),
                    DirArg::Str(s) => _ = write!(self.out, "\"{s}\""),
                }
            }
        }
        self.out.push_str(if d.semicolon { ";\n" } else { "\n" });
    }

    fn var_decl(&mut self, v: &VarDecl) {
        if let Some(linkage) = v.linkage {
            _ = write!(self.out, ".{} ", linkage.name());
        }
        _ = write!(self.out, ".{}", v.space.name());
        for attr in &v.attrs {
            self.decl_attr(attr);
        }
        match v.ty {
            DeclType::Scalar(t) => _ = write!(self.out, " .{}", t.name()),
            DeclType::Opaque(t) => _ = write!(self.out, " .{}", t.name()),
        }
        for attr in &v.trailing {
            self.decl_attr(attr);
        }
        for (i, d) in v.names.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.out.push_str(&d.name.name);
            if let Some(n) = d.range {
                _ = write!(self.out, "<{n}>");
            }
            for dim in &d.dims {
                match dim {
                    Some(n) => _ = write!(self.out, "[{n}]"),
                    None => self.out.push_str("[]"),
                }
            }
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.expr(init);
            }
        }
    }

    fn decl_attr(&mut self, attr: &DeclAttr) {
        match attr {
            DeclAttr::Align(n) => _ = write!(self.out, " .align {n}"),
            DeclAttr::Vector(n) => _ = write!(self.out, " .v{n}"),
            DeclAttr::Ptr => self.out.push_str(" .ptr"),
            DeclAttr::Space(s) => _ = write!(self.out, " .{}", s.name()),
            DeclAttr::Attribute(words) => {
                let words: Vec<&str> = words.iter().map(|w| w.name.as_str()).collect();
                _ = write!(self.out, " .attribute({})", words.join(", "));
            }
            DeclAttr::Word(w) => _ = write!(self.out, " {}", w.name),
        }
    }

    fn params(&mut self, params: &[VarDecl]) {
        self.out.push('(');
        for (i, p) in params.iter().enumerate() {
            self.out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
            self.var_decl(p);
        }
        self.out.push_str(if params.is_empty() { ")" } else { "\n)" });
    }

    fn function(&mut self, f: &Function) {
        if let Some(linkage) = f.linkage {
            _ = write!(self.out, ".{} ", linkage.name());
        }
        self.out.push_str(match f.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if let Some(returns) = &f.returns {
            self.params(returns);
            self.out.push(' ');
        }
        self.out.push_str(&f.name.name);
        if let Some(params) = &f.params {
            self.params(params);
        }
        self.out.push('\n');
        for attr in &f.attrs {
            self.directive(attr);
        }
        match &f.body {
            Some(body) => {
                self.block(body, 0);
                self.out.push('\n');
            }
            None => self.out.push_str(";\n"),
        }
    }

    fn block(&mut self, block: &Block, depth: usize) {
        self.out.push_str("{\n");
        for s in &block.statements {
            self.statement(s, depth + 1);
        }
        self.indent(depth);
        self.out.push('}');
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push('\t');
        }
    }

    fn statement(&mut self, s: &Statement, depth: usize) {
        if !matches!(s, Statement::Label(_)) {
            self.indent(depth);
        }
        match s {
            Statement::Label(l) => _ = writeln!(self.out, "{}:", l.name),
            Statement::Instruction(i) => {
                self.instruction(i);
                self.out.push('\n');
            }
            Statement::Decl(v) => {
                self.var_decl(v);
                self.out.push_str(";\n");
            }
            Statement::Block(b) => {
                self.block(b, depth);
                self.out.push('\n');
            }
            Statement::Pragma(p) => self.pragma(p),
            Statement::Prototype(p) => {
                _ = write!(self.out, "{}: .callprototype ", p.label.name);
                if let Some(returns) = &p.returns {
                    self.inline_params(returns);
                    self.out.push(' ');
                }
                self.out.push('_');
                if !p.params.is_empty() {
                    self.out.push(' ');
                    self.inline_params(&p.params);
                }
                for attr in &p.attrs {
                    _ = write!(self.out, " {}", attr.name);
                }
                self.out.push_str(";\n");
            }
            Statement::Targets(t) => {
                let targets: Vec<&str> = t.targets.iter().map(|t| t.name.as_str()).collect();
                _ = writeln!(self.out, "{}: {} {};", t.label.name, t.directive.name, targets.join(", "));
            }
            Statement::Directive(d) => self.directive(d),
        }
    }

    fn inline_params(&mut self, params: &[VarDecl]) {
        self.out.push('(');
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.var_decl(p);
        }
        self.out.push(')');
    }

    fn instruction(&mut self, i: &Instruction) {
        if let Some(guard) = &i.guard {
            _ = write!(self.out, "@{}{} ", if guard.negated { "!" } else { "" }, guard.pred.name);
        }
        self.out.push_str(&i.opcode.name);
        for m in &i.modifiers {
            self.out.push('.');
            self.out.push_str(&m.name);
        }
        for (n, operand) in i.operands.iter().enumerate() {
            self.out.push_str(if n == 0 { " \t" } else { ", " });
            self.expr(operand);
        }
        self.out.push(';');
    }

    fn section(&mut self, s: &Section) {
        _ = writeln!(self.out, ".section {}\n{{", s.name.name);
        for entry in &s.entries {
            match entry {
                SectionEntry::Label(l) => _ = writeln!(self.out, "{}:", l.name),
                SectionEntry::Data { ty, values, .. } => {
                    _ = write!(self.out, "\t.{} ", ty.name());
                    self.list(values);
                    self.out.push('\n');
                }
            }
        }
        self.out.push_str("}\n");
    }

    fn list(&mut self, items: &[Expr]) {
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Name(ident, component) => {
                self.out.push_str(&ident.name);
                if let Some(c) = component {
                    self.out.push('.');
                    self.out.push_str(c);
                }
            }
            ExprKind::Int { value, unsigned } => _ = write!(self.out, "{value}{}", if *unsigned { "U" } else { "" }),
            ExprKind::Float(FloatLit::F32(bits)) => _ = write!(self.out, "0f{bits:08X}"),
            ExprKind::Float(FloatLit::F64(bits)) => _ = write!(self.out, "0d{bits:016X}"),
            ExprKind::Float(FloatLit::Decimal(text)) => self.out.push_str(text),
            ExprKind::Sink => self.out.push('_'),
            ExprKind::Unary(op, inner) => {
                self.out.push(match op {
                    UnaryOp::Neg => '-',
                    UnaryOp::Not => '!',
                    UnaryOp::BitNot => '~',
                });
                self.operand_of(inner, u8::MAX);
            }
            ExprKind::Binary(op, lhs, rhs) => {
                let strength = BinaryOp::TABLE.iter().find(|e| e.0 == *op).map_or(0, |e| e.2);
                // Operators are left-associative: the right side needs
                // parentheses already at equal strength.
                self.operand_of(lhs, strength);
                // `a%r` would lex as `a` followed by the register `%r`.
                if *op == BinaryOp::Rem {
                    self.out.push_str(" % ");
                } else {
                    self.out.push_str(op.symbol());
                }
                self.operand_of(rhs, strength + 1);
            }
            ExprKind::Paren(inner) => {
                self.out.push('(');
                self.expr(inner);
                self.out.push(')');
            }
            ExprKind::Braces(items) => {
                self.out.push('{');
                self.list(items);
                self.out.push('}');
            }
            ExprKind::Address(items) => {
                self.out.push('[');
                self.list(items);
                self.out.push(']');
            }
            ExprKind::List(items) => {
                self.out.push('(');
                self.list(items);
                self.out.push(')');
            }
            ExprKind::Call(name, args) => {
                self.out.push_str(&name.name);
                self.out.push('(');
                self.list(args);
                self.out.push(')');
            }
            ExprKind::Field(name, value) => {
                self.out.push_str(&name.name);
                self.out.push_str(" = ");
                self.expr(value);
            }
            ExprKind::Index(base, index) => {
                self.expr(base);
                self.out.push('[');
                self.expr(index);
                self.out.push(']');
            }
        }
    }

    /// Prints `e` as an operand of an operator of `strength`. A parsed tree
    /// never needs extra parentheses (they are kept as [`ExprKind::Paren`]);
    /// built trees get them where precedence demands.
    fn operand_of(&mut self, e: &Expr, strength: u8) {
        let inner = match &e.kind {
            ExprKind::Binary(op, ..) => BinaryOp::TABLE.iter().find(|x| x.0 == *op).map_or(0, |x| x.2),
            _ => u8::MAX,
        };
        if inner < strength {
            self.out.push('(');
            self.expr(e);
            self.out.push(')');
        } else {
            self.expr(e);
        }
    }
}
