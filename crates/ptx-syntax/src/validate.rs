//! Semantic checks in ptxas's words: directives, declarations before use,
//! instruction modifiers/operands against the [`tables`](crate::tables),
//! and target/version requirements. Every problem of a module is reported.

mod instr;
mod negation;
mod rules;
mod scope;
mod signature;
mod typecheck;
mod vectors;

pub(crate) use instr::vector_selector;

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::hash::FxHashMap;
use crate::span::Span;
use crate::target::{PtxVersion, Sm};
use scope::{Scope, SymbolKind};
use signature::Signature;

/// Options for [`validate`].
#[derive(Clone, Debug, Default)]
pub struct ValidateOptions {
    /// The architecture compiled for (ptxas `-arch`), checked against the
    /// file's `.target` with ptxas's messages. Instructions are gated by the
    /// `.target`, as ptxas does, not by this.
    pub arch: Option<Sm>,
    /// The file name as ptxas prints it in file-wide messages
    /// (`Missing .target directive at start of file 'x.ptx'`).
    pub file_name: Option<String>,
    /// Relocatable output (ptxas `-c`): functions may stay undefined.
    pub relocatable: bool,
}

/// Checks `module` and returns every problem found, in the order ptxas
/// reports them (per function: instruction errors, then unknown symbols).
pub fn validate(module: &Module, options: &ValidateOptions) -> Vec<Diagnostic> {
    validate_files(&[(module, options.file_name.as_deref())], options)
}

/// Checks several files compiled into one program (`ptxas a.ptx b.ptx`),
/// as ptxas does (measured with ptxas 13.5): each file has its own
/// `.version`/`.target` header, which gates its instructions, but all
/// share one symbol table, so a name defined in two files is a duplicate
/// and a function declared in one may be defined in another. Only the last
/// file's `.target` is checked against `-arch` (`ptxas -arch=sm_90
/// a_sm90a.ptx b_sm90.ptx` compiles), and that and unresolved functions
/// only when no file has an error.
/// `options.file_name` is ignored; each file brings its own name.
pub fn validate_files(files: &[(&Module, Option<&str>)], options: &ValidateOptions) -> Vec<Diagnostic> {
    let mut v = Validator {
        diags: Vec::new(),
        version: PtxVersion::LATEST,
        sm: None,
        module_scope: Scope::default(),
        signatures: FxHashMap::default(),
        function_linkage: FxHashMap::default(),
    };
    for (module, name) in files {
        v.version = PtxVersion::LATEST;
        v.sm = None;
        let file_options = ValidateOptions { file_name: name.map(str::to_owned), ..options.clone() };
        v.header(module, &file_options);
        v.items(module);
    }
    let modules: Vec<&Module> = files.iter().map(|(m, _)| *m).collect();
    // What follows ptxas checks only once every file read cleanly (an
    // error hides an unresolved function: `.extern .func f(); .func f();`
    // is "Inconsistent redefinition" alone).
    let clean = !v.diags.iter().any(Diagnostic::is_error);
    if clean && !options.relocatable {
        v.unresolved_functions(&modules);
    }
    let clean = !v.diags.iter().any(Diagnostic::is_error);
    if let (true, Some(arch), Some(target), Some(last)) = (clean, options.arch, v.sm, modules.last()) {
        v.arch_compatibility(last, target, arch);
    }
    v.diags
}

struct Validator {
    diags: Vec<Diagnostic>,
    version: PtxVersion,
    sm: Option<Sm>,
    module_scope: Scope,
    /// Signature of every function seen so far, by name.
    signatures: FxHashMap<String, Signature>,
    /// Per function name: whether its first declaration was `.extern`, and
    /// whether a definition has been seen.
    function_linkage: FxHashMap<String, (bool, bool)>,
}

impl Validator {
    /// The declarations and functions of one file, after its header.
    fn items(&mut self, module: &Module) {
        for item in &module.items {
            match item {
                Item::Variable(decl) => {
                    if decl.space == StateSpace::Reg {
                        self.error(decl.span, "Module-scoped variables in .reg state space are not allowed with ABI");
                    }
                    self.initializers(decl);
                    self.declare_vars(decl, None);
                }
                Item::Function(f) => self.function(f),
                Item::Directive(d) if d.name.name == ".alias" => self.alias(d, module),
                _ => {}
            }
        }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// `.version`, `.target`, `.address_size`: presence, order and values.
    fn header(&mut self, module: &Module, options: &ValidateOptions) {
        let mut items = module.items.iter();
        let file = options.file_name.as_deref().unwrap_or("<input>");
        let first_span = module.items.first().map(item_span).unwrap_or_default();
        match items.next() {
            Some(Item::Version(version)) => {
                let found = PtxVersion::new(version.major, version.minor);
                if !found.is_known() {
                    self.diags.push(Diagnostic::fatal(
                        version.span,
                        format!("Unsupported .version {found}; current version is '{}'", PtxVersion::LATEST),
                    ));
                    return;
                }
                self.version = found;
            }
            _ => {
                // ptxas notices with one directive of lookahead.
                let span = module.items.get(1).map_or(first_span, item_span);
                self.diags
                    .push(Diagnostic::fatal(span, format!("Missing .version directive at start of file '{file}'")));
                return;
            }
        }
        let mut items = items.peekable();
        match items.next() {
            Some(Item::Target(target)) => {
                self.target(target);
                // ptxas takes further `.target` lines straight after the
                // first; the last one counts.
                while let Some(Item::Target(next)) = items.peek() {
                    self.sm = None;
                    self.target(next);
                    items.next();
                }
            }
            other => {
                let span = other.map(item_span).unwrap_or(first_span);
                self.diags
                    .push(Diagnostic::fatal(span, format!("Missing .target directive at start of file '{file}'")));
                return;
            }
        }
        // One `.address_size`, straight after `.target`.
        if let Some(Item::AddressSize(a)) = items.peek() {
            if a.bits != 32 && a.bits != 64 {
                self.error(a.span, "Illegal value for .address_size directive (must be 32 or 64)");
            }
            items.next();
        }
        for item in items {
            match item {
                Item::Version(v) => self.error(v.span, "Multiple .version directives"),
                Item::AddressSize(a) => {
                    self.diags.push(Diagnostic::fatal(a.span, "Parsing error near '.address_size': syntax error"));
                }
                Item::Target(t) => {
                    self.diags.push(Diagnostic::fatal(t.span, "Parsing error near '.target': syntax error"));
                }
                _ => {}
            }
        }
    }

    /// Whether code for `.target` `target` may run on `-arch` `arch`; the
    /// messages are ptxas's, without a line.
    fn arch_compatibility(&mut self, module: &Module, target: Sm, arch: Sm) {
        // SM families: sm_100/101/103/107, sm_110, sm_120/121.
        let family = |sm: Sm| sm.number / 10;
        let name = module
            .items
            .iter()
            .rev()
            .find_map(|item| match item {
                Item::Target(t) => t.names.iter().find(|n| Sm::parse(&n.name).is_some()).map(|n| n.name.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| target.to_string());
        let message = if target.number > arch.number {
            "SM version specified by .target is higher than default SM version assumed".to_owned()
        } else if target.suffix == Some('a') && arch.number > target.number {
            format!("Program with .target '{name}' cannot be compiled to future architecture")
        } else if target.suffix == Some('a') && arch != target {
            format!("PTX with .target '{name}' cannot be compiled for architecture '{arch}'")
        } else if target.suffix == Some('f') && family(arch) != family(target) {
            format!("Program with .target '{name}' cannot be compiled to different SM-family architecture")
        } else {
            return;
        };
        self.diags.push(Diagnostic { severity: crate::diag::Severity::Fatal, message, span: None });
    }

    fn target(&mut self, target: &Target) {
        let mut texmode = false;
        for name in &target.names {
            if name.name.starts_with("texmode_") {
                if texmode {
                    self.error(target.span, format!("Conflicting .target option '{}'", name.name));
                }
                texmode = true;
            }
            if let Some(sm) = Sm::parse(&name.name) {
                if self.sm.is_some() {
                    self.error(name.span, format!("Unexpected target '{}'", name.name));
                    continue;
                }
                self.sm = Some(sm);
                if sm.min_ptx().is_some_and(|min| self.version < min) {
                    self.error(
                        target.span,
                        format!("PTX .version {} does not support .target {}", self.version, name.name),
                    );
                }
            } else if !matches!(
                name.name.as_str(),
                "texmode_unified" | "texmode_independent" | "texmode_raw" | "map_f64_to_f32" | "debug"
            ) {
                self.diags.push(Diagnostic::fatal(name.span, format!("Unsupported .target '{}'", name.name)));
            }
        }
    }

    /// Only `.global` and `.const` variables may have initial values.
    fn initializers(&mut self, decl: &VarDecl) {
        if matches!(decl.space, StateSpace::Global | StateSpace::Const) {
            return;
        }
        for d in decl.names.iter().filter(|d| d.init.is_some()) {
            self.error(decl.span, format!("No initial value is allowed for '{}' in this state space", d.name.name));
        }
    }

    fn declare_vars(&mut self, decl: &VarDecl, scope: Option<&mut Scope>) {
        if decl.align().is_some_and(|align| !align.is_power_of_two()) {
            self.diags.push(Diagnostic::error(decl.span, "Alignment must be a power of two"));
        }
        let scope = match scope {
            Some(scope) => scope,
            None => &mut self.module_scope,
        };
        if decl.space == StateSpace::Param && decl.vector().is_some() {
            for d in &decl.names {
                let message = format!("Variable '{}' cannot be allocated in .param state space", d.name.name);
                self.diags.push(Diagnostic::error(decl.span, message));
            }
        }
        let kind = match (decl.space, decl.vector(), decl.ty) {
            (StateSpace::Reg, Some(n), DeclType::Scalar(t)) => SymbolKind::VectorReg(t, n),
            _ => SymbolKind::Variable(decl.space, decl.ty),
        };
        for d in &decl.names {
            let added = match d.range {
                Some(n) => scope.add_range(&d.name.name, n, kind),
                None => scope.add(&d.name.name, kind),
            };
            // A `.extern` declaration may be repeated or followed by the definition.
            if !added && decl.linkage != Some(Linkage::Extern) {
                self.diags.push(Diagnostic::error(
                    d.name.span,
                    format!("Duplicate definition of variable '{}'", d.name.name),
                ));
            }
        }
    }

    /// A function declared `.extern` and otherwise (declared or defined),
    /// in either order: the errors ptxas 13.5 gives (measured; across files too, as
    /// `ptxas a.ptx b.ptx` shares one symbol table).
    fn extern_conflicts(&mut self, f: &Function) {
        let name = f.name.name.as_str();
        let is_extern = f.linkage == Some(Linkage::Extern);
        let defined = f.body.is_some();
        let inconsistent = format!("Inconsistent redefinition of variable '{name}'");
        match self.function_linkage.get(name).copied() {
            Some((false, was_defined)) if is_extern => {
                if was_defined {
                    self.error(f.name.span, format!("Duplicate definition of function '{name}'"));
                }
                self.error(f.name.span, inconsistent);
            }
            Some((true, _)) if !is_extern => {
                self.error(f.name.span, inconsistent);
                if defined {
                    self.error(
                        f.name.span,
                        format!("Function definition conflicts with '.extern' declaration for function '{name}'"),
                    );
                }
            }
            _ => {}
        }
        let entry = self.function_linkage.entry(name.to_owned()).or_insert((is_extern, false));
        entry.1 |= defined;
    }

    fn function(&mut self, f: &Function) {
        self.extern_conflicts(f);
        let defined = f.body.is_some();
        // Any number of declarations and one definition may share a name.
        match self.module_scope.get(&f.name.name) {
            Some(SymbolKind::Function { defined: true }) if defined => {
                self.error(f.name.span, format!("Duplicate definition of function '{}'", f.name.name));
            }
            Some(SymbolKind::Function { .. }) => {
                if defined {
                    self.module_scope.replace(&f.name.name, SymbolKind::Function { defined });
                }
            }
            Some(_) => self.error(f.name.span, format!("Duplicate definition of function '{}'", f.name.name)),
            None => {
                self.module_scope.add(&f.name.name, SymbolKind::Function { defined });
            }
        }
        self.signature(f);
        self.entry_attrs(f);
        let Some(body) = &f.body else { return };
        let mut scope = Scope::default();
        for p in f.returns.iter().flatten().chain(f.params.iter().flatten()) {
            self.declare_vars(p, Some(&mut scope));
        }
        let mut unknown = Vec::new();
        self.body(body, scope, &mut unknown);
        for (name, span) in unknown {
            self.error(span, format!("Unknown symbol '{name}'"));
        }
    }

    /// `.alias alias, aliasee;`: the aliasee may not be `.weak`.
    fn alias(&mut self, d: &Directive, module: &Module) {
        let Some(DirArg::Expr(Expr { kind: ExprKind::Name(aliasee, None), .. })) =
            d.args.get(1).and_then(|g| g.first())
        else {
            return;
        };
        let weak = module
            .items
            .iter()
            .any(|item| matches!(item, Item::Function(f) if f.name == *aliasee && f.linkage == Some(Linkage::Weak)));
        if weak {
            self.error(d.span, format!("Function '{}' with .weak scope cannot be aliased", aliasee.name));
        }
    }

    /// Without `-c`, every function must be defined: a declared one is an
    /// error when it is not `.extern`, or when it is and something uses it.
    fn unresolved_functions(&mut self, modules: &[&Module]) {
        let defined: Vec<&str> = modules
            .iter()
            .flat_map(|m| &m.items)
            .filter_map(|item| match item {
                Item::Function(f) if f.body.is_some() => Some(f.name.name.as_str()),
                Item::Directive(d) if d.name.name == ".alias" => match d.args.first().and_then(|g| g.first()) {
                    Some(DirArg::Expr(Expr { kind: ExprKind::Name(alias, None), .. })) => Some(alias.name.as_str()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut reported: Vec<&str> = Vec::new();
        for item in modules.iter().flat_map(|m| &m.items) {
            let Item::Function(f) = item else { continue };
            let name = f.name.name.as_str();
            if defined.contains(&name) || reported.contains(&name) || SYSCALLS.contains(&name) {
                continue;
            }
            if f.linkage != Some(Linkage::Extern) || modules.iter().any(|m| uses_name(m, name)) {
                reported.push(name);
                self.diags.push(Diagnostic {
                    severity: crate::diag::Severity::Fatal,
                    message: format!("Unresolved extern function '{name}'"),
                    span: None,
                });
            }
        }
    }

    /// Records `f`'s signature; a redeclaration must agree with the first.
    fn signature(&mut self, f: &Function) {
        let signature = Signature::of(f);
        let name = f.name.name.as_str();
        if let Some(previous) = self.signatures.get(name) {
            for problem in previous.conflicts(&signature) {
                self.error(f.name.span, format!("Inconsistent prototypes of '{name}', {problem}"));
            }
            if f.body.is_none() {
                return;
            }
        }
        if f.kind == FunctionKind::Entry {
            self.param_space(f, &signature);
        }
        self.signatures.insert(name.to_owned(), signature);
    }

    /// Kernel parameters fit 4352 bytes before PTX 8.1 and 32764 after.
    fn param_space(&mut self, f: &Function, signature: &Signature) {
        let used = signature.param_space();
        let new_limit = self.version >= PtxVersion::new(8, 1);
        let max: u64 = if new_limit { 0x7ffc } else { 0x1100 };
        // ptxas checks the parameter space when the function ends.
        let end = Span { start: f.span.end.saturating_sub(1), ..f.span };
        if used > max {
            let name = &f.name.name;
            self.error(
                end,
                format!("Entry function '{name}' uses too much parameter space (0x{used:x} bytes, 0x{max:x} max)."),
            );
        }
        if used > 0x1100 && !new_limit {
            self.error(
                end,
                "Feature 'Kernel parameter size larger than 4352 bytes' requires PTX ISA .version 8.1 or later",
            );
        }
    }

    fn entry_attrs(&mut self, f: &Function) {
        let find = |name: &str| f.attrs.iter().find(|a| a.name.name == name);
        if let Some(maxnreg) = find(".maxnreg")
            && matches!(
                maxnreg.args.first().and_then(|g| g.first()),
                Some(DirArg::Expr(Expr { kind: ExprKind::Int { value: 0, .. }, .. }))
            )
        {
            self.error(maxnreg.span, "Positive non-zero value expected for maxnreg");
        }
        if let (Some(_), Some(_)) = (find(".maxntid"), find(".reqntid")) {
            // ptxas checks entry directives when the function ends.
            let end = Span { start: f.span.end.saturating_sub(1), ..f.span };
            self.error(end, "Conflicting directives: .maxntid and .reqntid cannot both be specified");
        }
    }

    /// Checks `body` in the scope of its parameters. Each scope is a
    /// block's variables declared so far and its labels: a label is visible
    /// in its whole block (branches may jump forward) and in the blocks
    /// nested in it, where a label of the same name shadows it (Triton
    /// repeats `waitLoop:` in sibling `{ }` blocks). Within one block a
    /// label may not repeat, nor take the name of a variable declared
    /// before it.
    fn body(&mut self, body: &Block, params: Scope, unknown: &mut Vec<(Name, Span)>) {
        let labels = |block: &Block| {
            let mut labels = Scope::default();
            for label in block.statements.iter().filter_map(Statement::label) {
                labels.add(&label.name, SymbolKind::Label);
            }
            (Scope::default(), labels)
        };
        // The parameters' scope holds no labels.
        let mut scopes = vec![(params, Scope::default()), labels(body)];
        // The blocks entered, innermost last, and the next statement of
        // each; blocks nest up to ptxas's 1,664 deep, so no recursion.
        let mut blocks = vec![(body.statements.as_slice(), 0)];
        while let Some(top) = blocks.last_mut() {
            let (statements, next) = *top;
            top.1 += 1;
            let Some(s) = statements.get(next) else {
                blocks.pop();
                scopes.pop();
                continue;
            };
            if let Some(label) = s.label() {
                let (defined, _) = scopes.last_mut().expect("one scope a block");
                if !defined.add(&label.name, SymbolKind::Label) {
                    self.error(label.span, format!("Duplicate definition of label '{}'", label.name));
                }
            }
            let env = |scopes| instr::Env { module: &self.module_scope, locals: scopes, signatures: &self.signatures };
            match s {
                Statement::Decl(decl) => {
                    self.initializers(decl);
                    let mut top = scopes.pop().unwrap_or_default();
                    self.declare_vars(decl, Some(&mut top.0));
                    scopes.push(top);
                }
                Statement::Block(b) => {
                    scopes.push(labels(b));
                    blocks.push((b.statements.as_slice(), 0));
                }
                Statement::Instruction(inst) => {
                    let mut checker = instr::Checker {
                        env: env(&scopes),
                        sm: self.sm,
                        version: self.version,
                        diags: &mut self.diags,
                        unknown,
                    };
                    checker.check(inst);
                }
                Statement::Targets(t) => {
                    for target in &t.targets {
                        if env(&scopes).lookup(&target.name).is_none() {
                            unknown.push((target.name.clone(), target.span));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Functions ptxas provides itself (system calls), which PTX only declares.
const SYSCALLS: &[&str] = &["vprintf", "malloc", "free", "__assertfail"];

/// Whether any instruction operand or initializer of `module` names `name`.
fn uses_name(module: &Module, name: &str) -> bool {
    fn in_expr(e: &Expr, name: &str) -> bool {
        let mut found = false;
        e.for_each_name(&mut |ident| found |= ident.name == name);
        found
    }
    fn in_block(b: &Block, name: &str) -> bool {
        b.statements.iter().any(|s| match s {
            Statement::Instruction(i) => i.operands.iter().any(|e| in_expr(e, name)),
            Statement::Block(b) => in_block(b, name),
            Statement::Targets(t) => t.targets.iter().any(|t| t.name == name),
            _ => false,
        })
    }
    module.items.iter().any(|item| match item {
        Item::Function(f) => f.body.as_ref().is_some_and(|b| in_block(b, name)),
        Item::Variable(v) => v.names.iter().filter_map(|d| d.init.as_ref()).any(|e| in_expr(e, name)),
        _ => false,
    })
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Version(v) => v.span,
        Item::Target(t) => t.span,
        Item::AddressSize(a) => a.span,
        Item::Variable(v) => v.span,
        Item::Function(f) => f.span,
        Item::Section(s) => s.span,
        Item::Pragma(p) => p.span,
        Item::Directive(d) => d.span,
    }
}

#[cfg(test)]
mod tests;
