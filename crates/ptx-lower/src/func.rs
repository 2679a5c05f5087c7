//! Lowering of one function: the context every instruction family uses
//! (registers, parameters, blocks, the instruction being emitted) and the
//! walk over the body.

use std::collections::{HashMap, HashSet};

use ori_ir::{
    Address, BlockId, Function, FunctionKind, Guard, Inst, Modifier, OpFlags, Opcode, Operand, Reg, RegFile, Sm,
    SrcLoc, Target,
};
use ptx_syntax::ast::{self, Block, Instruction, StateSpace, Statement};
use ptx_syntax::{LineIndex, Span};

use crate::contract::Contraction;
use crate::error::{Lowered, Pending, at};
use crate::fn_table::FunctionTable;
use crate::layout::VarLayout;
use crate::params::Params;
use crate::regs::Regs;
use crate::values::{Counts, ParamValue};
use crate::{attrs, ops};

/// A 64-bit product `src * factor` made by `mul.wide`, remembered so that
/// an `add.s64` of it becomes one `IMAD.WIDE` (NVIDIA's choice: Ori has no
/// access to the halves of a virtual pair, so a general 64-bit add is not
/// expressible yet).
#[derive(Clone)]
pub(crate) struct WideProduct {
    pub src: Operand,
    pub factor: Operand,
    pub signed: bool,
    /// Holds in the whole function (its register and sources are written
    /// once), not only until the end of its block.
    pub stable: bool,
}

/// PTX's carry flag, held in a predicate by the last `.cc` instruction.
#[derive(Copy, Clone)]
pub(crate) struct Carry {
    pub pred: Reg,
    /// The chain keeps one predicate (`ops::carry::plan`).
    pub fixed: bool,
}

/// The state of the lowering of one function.
pub(crate) struct Lowerer<'m> {
    /// Line starts of the PTX text, for the instructions' [`SrcLoc`]s.
    lines: &'m LineIndex,
    /// The PTX line and `.loc` of the statement being lowered.
    loc: SrcLoc,
    pub func: Function,
    pub sm: Sm,
    /// The facts of `sm`.
    pub target: Target,
    pub regs: Regs,
    pub params: Params,
    /// Where instructions go; `None` after a terminator, until the next
    /// label or instruction opens a block.
    current: Option<BlockId>,
    /// Blocks in the order they were placed (becomes the layout).
    order: Vec<BlockId>,
    labels: HashMap<&'m str, BlockId>,
    /// The global memory descriptor (`c[0x0][0x208]` on sm_90), loaded once
    /// in the entry block.
    desc: Option<Reg>,
    /// `mul.wide` results of the current block, by PTX register.
    pub products: HashMap<String, WideProduct>,
    /// PTX registers holding a kernel parameter (written once, by
    /// `ld.param` or a copy of such a register).
    pub param_values: HashMap<String, ParamValue>,
    /// Function-scope shared variables.
    pub shared: VarLayout,
    /// Function-scope local variables: the start of the stack frame.
    pub locals: VarLayout,
    /// Largest alignment of the `extern .shared` arrays the function uses
    /// (0: it uses none).
    extern_shared_align: u32,
    /// The module's variables.
    pub globals: GlobalRefs,
    /// PTX registers written once with the address of a `.const` variable
    /// (+ a constant): its offset in constant bank 3.
    pub const_ptrs: HashMap<String, i64>,
    /// PTX registers written once with the address of a kernel parameter
    /// (+ a constant): its offset in the parameter block.
    pub param_ptrs: HashMap<String, i64>,
    /// PTX registers written once with a local address `R1 + offset` (the
    /// stack pointer after the prologue): local accesses through them
    /// address the frame directly, as NVIDIA's code does.
    pub local_ptrs: HashMap<String, i64>,
    /// PTX registers holding a constant (written once, by `mov` of an
    /// immediate).
    pub consts: HashMap<String, i64>,
    /// Writes and reads of each PTX register in the body.
    counts: Counts,
    /// The FMA contractions of the body being lowered (`contract.rs`).
    pub(crate) contraction: Contraction,
    /// Guard of the instruction being lowered.
    pub guard: Option<Guard>,
    /// 64-bit registers written once as `shl.b64 s, x, k` (`x` written
    /// once too, `k` in 1..=31), by the register of `s`: `x` and `k`. An
    /// `add.s64` of one becomes `LEA` + `LEA.HI.X` (ops/int.rs).
    pub(crate) shifted: HashMap<Reg, (Reg, i64)>,
    /// Per-lane byte offsets of wmma fragments computed once in the entry
    /// block (`ops/matrix.rs`), by stride and shift.
    pub(crate) lane_offsets: HashMap<(crate::ops::matrix::Stride, i64), Reg>,
    /// The carry flag of the last `.cc` instruction (ops/carry.rs).
    pub carry: Option<Carry>,
    /// The carry chains that keep one predicate (ops/carry.rs).
    pub(crate) carry_plan: ops::carry::Plan,
    /// The module's device functions with bodies, by name: calls inline them.
    callees: &'m HashMap<&'m str, &'m ast::Function>,
    /// Device functions compiled on their own: calls go through the ABI.
    out_of_line: &'m HashSet<&'m str>,
    /// Shape of each call-sequence `.param` variable (numbered).
    param_shapes: HashMap<String, ops::call::Shape>,
    /// In an out-of-line function: the virtual register holding the return
    /// address, and the result parameters with their widths.
    abi_return: Option<(Reg, Vec<ops::call::Formal<'m>>)>,
    /// Device functions being inlined, innermost last (a call of one of
    /// them is recursive).
    inlining: Vec<&'m str>,
    /// Where `ret` goes inside an inlined body: the call's continuation.
    ret_target: Option<BlockId>,
    /// Call-sequence `.param` storage: one virtual register per (name,
    /// byte offset), what `st.param` writes and `ld.param` reads.
    param_slots: HashMap<(String, i64), Reg>,
    /// The `.param` variable each parameter name stands for here: a
    /// call-sequence declaration's numbered variable, or for an inlined
    /// function's parameters, the caller's argument.
    param_aliases: HashMap<String, String>,
    /// Call-sequence `.param` declarations so far (they are numbered).
    param_decls: usize,
    /// Bytes at the bottom of the frame for the stack arguments of the
    /// calls this function makes (ops/call.rs `outgoing_bytes`).
    pub(crate) outgoing: u32,
    /// The warp's threads are known to run together here: nothing since the
    /// function's start or the last `WARPSYNC` could have split them.
    converged: bool,
}

/// Where the module's variables are, by name: a `.const` one's offset in
/// constant bank 3, a `.global` one's address slot in bank 4.
#[derive(Clone, Default)]
pub(crate) struct GlobalRefs(HashMap<String, GlobalRef>, HashMap<String, u32>, FunctionTable);

/// Where one module variable is.
#[derive(Copy, Clone, Debug)]
pub(crate) enum GlobalRef {
    /// Byte offset in constant bank 3.
    Const(u32),
    /// Byte offset in constant bank 4 of its 64-bit address.
    Global(u32),
    /// An `extern .shared` array with this alignment: the kernel's dynamic
    /// shared memory.
    ExternShared(u32),
}

impl GlobalRefs {
    /// The variables of `module`, its `extern .shared` arrays and its
    /// numbered functions.
    pub fn of(module: &ori_ir::Module, extern_shared: &[(String, u32)], table: FunctionTable) -> GlobalRefs {
        let refs = module.variables.iter().filter_map(|v| {
            let r = match v.space {
                ori_ir::VarSpace::Const => GlobalRef::Const(u32::try_from(v.offset).ok()?),
                ori_ir::VarSpace::Global => GlobalRef::Global(module.address_slot(&v.name)?),
            };
            Some((v.name.clone(), r))
        });
        let dynamic = extern_shared.iter().map(|(n, a)| (n.clone(), GlobalRef::ExternShared(*a)));
        let functions = module.externals.iter().filter_map(|f| Some((f.clone(), module.address_slot(f)?)));
        GlobalRefs(refs.chain(dynamic).collect(), functions.collect(), table)
    }

    /// Variable `name`.
    pub fn get(&self, name: &str) -> Option<GlobalRef> {
        self.0.get(name).copied()
    }

    /// How the module numbers function addresses (`fn_table.rs`).
    pub fn function_table(&self) -> &FunctionTable {
        &self.2
    }

    /// The offset in constant bank 4 of the address of external function
    /// `name` (`vprintf`).
    pub fn extern_function(&self, name: &str) -> Option<u32> {
        self.1.get(name).copied()
    }
}

impl<'m> Lowerer<'m> {
    /// Lowers a function definition.
    pub fn lower(
        f: &'m ast::Function,
        body: &'m Block,
        sm: Sm,
        globals: &GlobalRefs,
        callees: &'m HashMap<&'m str, &'m ast::Function>,
        out_of_line: &'m HashSet<&'m str>,
        lines: &'m LineIndex,
    ) -> Result<Function, Vec<Pending>> {
        // A `.func` reaches here only when compiled out of line: its
        // parameters come in registers (ops/call.rs), not in the bank.
        let (kind, params) = match f.kind {
            ast::FunctionKind::Entry => {
                (FunctionKind::Entry, Params::layout(f.params.as_deref().unwrap_or_default()).map_err(|e| vec![e])?)
            }
            ast::FunctionKind::Func => (FunctionKind::Func, Params::default()),
        };
        let mut func = Function::new(f.name.name.as_str(), kind);
        func.attrs = attrs::lower(&f.attrs).map_err(|e| vec![e])?;
        func.attrs.params = params.slots.clone();
        func.attrs.entry_loc = Some(crate::debug_loc::entry(body, lines));
        if let Some(table) = globals.function_table().held_by(f.name.name.as_str()) {
            // Bank 2 starts with the table: `1`, then each function's code
            // offset (OriResolveCallAddresses).
            func.attrs.bank2 = std::iter::once(1).chain(table.iter().map(|_| 0)).collect();
            func.attrs.function_table = table.to_vec();
        }
        let mut cx = Lowerer {
            func,
            sm,
            target: sm.target(),
            regs: Regs::default(),
            params,
            current: None,
            order: Vec::new(),
            labels: HashMap::new(),
            desc: None,
            products: HashMap::new(),
            param_values: HashMap::new(),
            shared: VarLayout::default(),
            locals: VarLayout::default(),
            extern_shared_align: 0,
            local_ptrs: HashMap::new(),
            globals: globals.clone(),
            const_ptrs: HashMap::new(),
            param_ptrs: HashMap::new(),
            consts: HashMap::new(),
            counts: Counts::of_function(f, &body.statements),
            contraction: Contraction::default(),
            guard: None,
            lane_offsets: HashMap::new(),
            shifted: HashMap::new(),
            carry: None,
            carry_plan: Default::default(),
            converged: true,
            callees,
            out_of_line,
            param_shapes: HashMap::new(),
            abi_return: None,
            inlining: Vec::new(),
            ret_target: None,
            param_slots: HashMap::new(),
            param_aliases: HashMap::new(),
            param_decls: 0,
            outgoing: ops::call::outgoing_bytes(&body.statements, callees),
            lines,
            loc: SrcLoc::default(),
        };
        cx.contraction = Contraction::of(&body.statements, &cx.counts);
        let entry = cx.block();
        cx.order.push(entry);
        cx.current = Some(entry);
        let mut errors = Vec::new();
        if kind == FunctionKind::Func {
            for d in f.params.iter().chain(&f.returns).flatten().filter(|d| d.space == StateSpace::Reg) {
                cx.regs.declare(d).map_err(|e| vec![e])?;
            }
            let abi = ops::call::param_words(f.params.iter().flatten())
                .and_then(|params| {
                    let calls = crate::callgraph::has_calls(&body.statements);
                    ops::call::prologue(&mut cx, &params, calls, f.name.span)
                })
                .and_then(|ra| Ok((ra, ops::call::param_words(f.returns.iter().flatten())?)));
            match abi {
                Ok(abi) => cx.abi_return = Some(abi),
                Err(e) => return Err(vec![e]),
            }
        }
        ops::wgmma::bind_accumulators(&mut cx, &body.statements);
        ops::matrix::bind_fragments(&mut cx, &body.statements);
        ops::carry::plan(&mut cx, &body.statements);
        cx.statements(&body.statements, &mut errors);
        if cx.current.is_some() {
            // PTX bodies end in ret/exit; a body that falls off the end
            // exits (a kernel) or returns (a device function).
            let _ = match kind {
                FunctionKind::Entry => cx.emit(Opcode::EXIT, &[], vec![], vec![], body.span),
                FunctionKind::Func => cx.abi_ret(body.span),
            };
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        cx.func.layout = cx.order;
        (cx.func.attrs.shared_bytes, cx.func.attrs.shared_align) = cx.shared.section();
        if cx.extern_shared_align != 0 {
            let attrs = &mut cx.func.attrs;
            attrs.extern_shared = true;
            attrs.shared_bytes = attrs.shared_bytes.max(sm.target().reserved_shared);
            attrs.shared_align = attrs.shared_align.max(cx.extern_shared_align);
        }
        cx.func.attrs.frame_bytes = cx.locals.section().0.max(cx.outgoing);
        cx.func.attrs.local_vars = cx.locals.offsets();
        Ok(cx.func)
    }

    fn statements(&mut self, statements: &'m [Statement], errors: &mut Vec<Pending>) {
        for s in statements {
            let result = match s {
                Statement::Label(l) => {
                    self.place_label(l.name.as_str());
                    Ok(())
                }
                Statement::Instruction(i) => {
                    self.loc.ptx_line = self.lines.line(i.span.start as usize);
                    self.instruction(i)
                }
                Statement::Decl(d) if d.space == StateSpace::Reg => self.regs.declare(d),
                Statement::Decl(d) if d.space == StateSpace::Shared => {
                    self.shared.declare(d, self.sm.target().reserved_shared)
                }
                // Above the stack arguments of the calls it makes.
                Statement::Decl(d) if d.space == StateSpace::Local => self.locals.declare(d, self.outgoing),
                // Call-sequence parameters: storage made at the first
                // `st.param`. Each declaration is a new variable (callees
                // declare the same names), named apart by a number.
                Statement::Decl(d) if d.space == StateSpace::Param => {
                    let shape = ops::call::Shape::of(d).ok();
                    for n in &d.names {
                        let unique = format!("{}#{}", n.name.name.as_str(), self.param_decls);
                        self.param_decls += 1;
                        if let Some(shape) = shape {
                            self.param_shapes.insert(unique.clone(), shape);
                        }
                        self.param_aliases.insert(n.name.name.as_str().to_string(), unique);
                    }
                    Ok(())
                }
                Statement::Decl(d) => {
                    Err(at(d.span, format!("lowering of .{} variables is not supported yet", d.space.name())))
                }
                Statement::Block(b) => {
                    self.regs.enter();
                    self.statements(&b.statements, errors);
                    // What was learnt about the block's own registers is
                    // not about the outer ones of the same names.
                    for name in self.regs.leave() {
                        self.products.remove(&name);
                        self.consts.remove(&name);
                        self.param_values.remove(&name);
                        self.local_ptrs.remove(&name);
                        self.const_ptrs.remove(&name);
                        self.param_ptrs.remove(&name);
                    }
                    Ok(())
                }
                Statement::Directive(d) => {
                    if d.name.name.as_str() == ".loc" {
                        self.loc.loc_line = self.lines.line(d.span.start as usize);
                    }
                    Ok(())
                }
                Statement::Pragma(_) => Ok(()),
                // Indirect calls take their ABI from the argument declarations.
                Statement::Prototype(_) => Ok(()),
                Statement::Targets(t) => {
                    Err(at(t.span, "lowering of branch and call target lists is not supported yet"))
                }
            };
            if let Err(e) = result {
                errors.push(e);
            }
        }
    }

    fn instruction(&mut self, inst: &'m Instruction) -> Lowered {
        self.guard = match &inst.guard {
            Some(g) => Some(Guard { pred: self.reg(&g.pred.name, g.pred.span)?, negated: g.negated }),
            None => None,
        };
        ops::lower(self, inst)
    }

    /// Where `ret` of the body being lowered goes: the continuation of the
    /// call it was inlined for, `None` in the kernel itself.
    pub fn ret_target(&self) -> Option<BlockId> {
        self.ret_target
    }

    /// The storage of call-sequence parameter `name` (a caller's `.param`
    /// variable, or an inlined function's parameter standing for one) at
    /// byte `offset`, `width` words wide; `None` when `name` is no such
    /// parameter.
    pub fn param_slot(&mut self, name: &str, offset: i64, width: u8, span: Span) -> Lowered<Option<Reg>> {
        let name = self.param_aliases.get(name).map_or(name, String::as_str).to_string();
        if self.params.get(&name).is_some() {
            return Ok(None);
        }
        let key = (name, offset);
        if let Some(&reg) = self.param_slots.get(&key) {
            // A narrower read of a wider value (`ld.param.u8` of a `.b64`
            // argument) reads its low words.
            if width < reg.width && reg.is_virtual {
                return Ok(Some(reg.part(0, width)));
            }
            if reg.width != width {
                return Err(at(span, "lowering of a .param value read at another width is not supported yet"));
            }
            return Ok(Some(reg));
        }
        let reg = self.func.new_vreg(RegFile::R, width);
        self.param_slots.insert(key, reg);
        Ok(Some(reg))
    }

    /// `param_slot` for a read, which may also see the parameter through
    /// another width than it was written with: a word of a pair
    /// (`ld.param.b32 [p+4]` after `st.param.b64 [p]`), or a pair written
    /// as two words (`ld.param.b64 [p]` after `st.param.v2.b32 [p]`, how
    /// NVRTC passes a 12-byte struct), gathered into a fresh pair.
    pub fn param_slot_read(&mut self, name: &str, offset: i64, width: u8, span: Span) -> Lowered<Option<Reg>> {
        let canon = self.param_aliases.get(name).map_or(name, String::as_str).to_string();
        let slot = |at: i64| self.param_slots.get(&(canon.clone(), at)).copied();
        match (width, slot(offset - 4), slot(offset), slot(offset + 4)) {
            (1, Some(pair), None, _) if pair.width == 2 && pair.is_virtual => Ok(Some(pair.part(1, 1))),
            (2, _, Some(lo), Some(hi)) if lo.width == 1 && hi.width == 1 => {
                let t = self.func.new_vreg(RegFile::R, 2);
                self.emit(Opcode::MOV, &[], vec![Operand::reg(t.part(0, 1)).undef()], vec![lo.into()], span)?;
                self.emit(Opcode::MOV, &[], vec![Operand::reg(t.part(1, 1))], vec![hi.into()], span)?;
                Ok(Some(t))
            }
            _ => self.param_slot(name, offset, width, span),
        }
    }

    /// `call[.uni] (ret), f, (args)`: `f`'s body lowered in place, its
    /// parameters being the caller's argument `.param` variables and its
    /// return parameter the caller's, its `ret` a branch to what follows
    /// the call. Every call of a function gets its own copy (whole-program
    /// code needs no calling convention then). Recursive and indirect
    /// calls are not lowered yet.
    pub fn inline_call(&mut self, inst: &'m Instruction) -> Lowered {
        let ops = &inst.operands;
        let (rets, target, args): (&[ast::Expr], &ast::Expr, &[ast::Expr]) = match ops.as_slice() {
            [ast::Expr { kind: ast::ExprKind::List(r), .. }, t, ast::Expr { kind: ast::ExprKind::List(a), .. }, ..] => {
                (r, t, a)
            }
            [ast::Expr { kind: ast::ExprKind::List(r), .. }, t] => (r, t, &[]),
            [t, ast::Expr { kind: ast::ExprKind::List(a), .. }, ..] => (&[], t, a),
            [t] => (&[], t, &[]),
            _ => return Err(at(inst.span, "lowering of this call form is not supported yet")),
        };
        let ast::ExprKind::Name(fname, None) = &target.kind else {
            return Err(at(inst.span, "lowering of this call target is not supported yet"));
        };
        let fname = fname.name.as_str();
        if self.out_of_line.contains(fname)
            || self.regs.ty(fname).is_some()
            || self.globals.extern_function(fname).is_some()
        {
            return self.abi_call(inst, fname, rets, args);
        }
        let Some(&callee) = self.callees.get(fname) else {
            return Err(at(
                inst.span,
                format!("lowering of calls to '{fname}' (no body in this module) is not supported yet"),
            ));
        };
        if self.inlining.contains(&fname) {
            return Err(at(inst.span, format!("lowering of the recursive call of '{fname}' is not supported yet")));
        }
        let Some(body) = &callee.body else { return Err(at(inst.span, "internal: callee without a body")) };
        if self.guard.is_some() {
            return Err(at(inst.span, "lowering of a guarded call is not supported yet"));
        }
        let formals = |decls: Option<&'m Vec<ast::VarDecl>>| {
            decls.into_iter().flatten().flat_map(|d| d.names.iter().map(move |n| (d, n.name.name.as_str())))
        };
        // The arguments as the caller names them: a `.param` formal stands
        // for the caller's `.param` variable, a `.reg` one gets the
        // caller's value (register or immediate) on entry, and a `.reg`
        // result is copied to the caller's register on the way out.
        let mut bindings = Vec::new();
        let mut reg_args = Vec::new();
        let mut reg_rets = Vec::new();
        for ((decl, formal), actual) in formals(callee.params.as_ref()).zip(args) {
            if decl.space == StateSpace::Reg {
                let width = match decl.ty {
                    ast::DeclType::Scalar(ty) => Some(crate::regs::shape(ty).1),
                    _ => None,
                };
                reg_args.push((decl, formal, self.call_value(actual, width)?));
                continue;
            }
            bindings.push((formal.to_string(), self.param_alias(actual)?));
        }
        for ((decl, formal), actual) in formals(callee.returns.as_ref()).zip(rets) {
            if decl.space == StateSpace::Reg {
                let ast::ExprKind::Name(a, None) = &actual.kind else {
                    return Err(at(actual.span, "lowering of this call result is not supported yet"));
                };
                reg_rets.push((decl, formal, self.reg(a.name.as_str(), actual.span)?));
                continue;
            }
            bindings.push((formal.to_string(), self.param_alias(actual)?));
        }
        let caller_aliases = std::mem::replace(&mut self.param_aliases, bindings.into_iter().collect());
        let cont = self.block();
        let saved = (
            std::mem::take(&mut self.regs),
            std::mem::replace(&mut self.counts, Counts::of_function(callee, &body.statements)),
            std::mem::take(&mut self.contraction),
            std::mem::take(&mut self.products),
            std::mem::take(&mut self.param_values),
            std::mem::take(&mut self.consts),
            std::mem::take(&mut self.local_ptrs),
            std::mem::take(&mut self.const_ptrs),
            std::mem::take(&mut self.param_ptrs),
            std::mem::take(&mut self.labels),
            self.ret_target.replace(cont),
        );
        self.contraction = Contraction::of(&body.statements, &self.counts);
        self.inlining.push(fname);
        let call_loc = self.loc;
        let mut errors = Vec::new();
        if let Err(e) = self.bind_reg_formals(&reg_args, &reg_rets, inst.span) {
            errors.push(e);
        }
        self.statements(&body.statements, &mut errors);
        self.inlining.pop();
        let results: Vec<(Reg, Reg)> =
            reg_rets.iter().filter_map(|&(_, formal, caller)| Some((self.regs.existing(formal)?, caller))).collect();
        // The caller's `.loc` is in force again after the call.
        self.loc = call_loc;
        if self.current.is_some() {
            // A body that falls off its end returns.
            self.emit(Opcode::BRA, &[], vec![], vec![Operand::label(cont)], inst.span)?;
        }
        (
            self.regs,
            self.counts,
            self.contraction,
            self.products,
            self.param_values,
            self.consts,
            self.local_ptrs,
            self.const_ptrs,
            self.param_ptrs,
            self.labels,
            self.ret_target,
        ) = saved;
        self.param_aliases = caller_aliases;
        self.order.push(cont);
        self.current = Some(cont);
        self.converged = false;
        for (formal, caller) in results {
            if let Err(e) = ops::call::move_words(self, caller, formal, inst.span) {
                errors.push(e);
            }
        }
        self.forget_results(rets);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A call through the ABI (`ops/call.rs`) of out-of-line function
    /// `target`, or through the pointer in register `target`.
    fn abi_call(&mut self, inst: &Instruction, target: &str, rets: &[ast::Expr], args: &[ast::Expr]) -> Lowered {
        let formals = self.callees.get(target).map(|f| ops::call::param_words(f.params.iter().flatten()));
        let formals = formals.transpose()?.unwrap_or_default();
        let mut passed_args = Vec::with_capacity(args.len());
        for (k, e) in args.iter().enumerate() {
            let value = match (&e.kind, formals.get(k)) {
                (ast::ExprKind::Int { .. }, Some(f)) if !f.shape.aggregate => {
                    ops::call::Passed { pieces: vec![self.call_value(e, Some(f.shape.words))?], shape: f.shape }
                }
                _ => self.passed(e, false)?,
            };
            passed_args.push(value);
        }
        let mut passed_rets = Vec::with_capacity(rets.len());
        for e in rets {
            passed_rets.push(self.passed(e, true)?);
        }
        let callee = if self.regs.ty(target).is_some() {
            ops::call::Callee::Pointer(self.reg(target, inst.span)?)
        } else if let Some(slot) = self.globals.extern_function(target) {
            ops::call::Callee::External(slot)
        } else {
            ops::call::Callee::Direct(target)
        };
        ops::call::call(self, callee, &passed_args, &passed_rets, inst.span)?;
        self.forget_results(rets);
        Ok(())
    }

    /// The value of argument `e` of an inlined call, in the caller: a
    /// register, or an immediate moved into a fresh register `width` words
    /// wide (the formal's width).
    fn call_value(&mut self, e: &ast::Expr, width: Option<u8>) -> Lowered<Reg> {
        match &e.kind {
            ast::ExprKind::Name(a, None) if self.regs.ty(a.name.as_str()).is_some() => {
                ops::read_reg(self, a.name.as_str(), e.span)
            }
            ast::ExprKind::Int { value, .. } => {
                let width = width.ok_or_else(|| at(e.span, "lowering of this call argument is not supported yet"))?;
                let t = self.temp(RegFile::R, width);
                let words = (0..width).map(|w| (*value >> (32 * u32::from(w))) as u32);
                for (w, word) in words.enumerate() {
                    let part = if width == 1 { t } else { t.part(w as u8, 1) };
                    let def = if w == 0 && width > 1 { Operand::reg(part).undef() } else { Operand::reg(part) };
                    self.emit(Opcode::MOV, &[], vec![def], vec![Operand::int(i64::from(word))], e.span)?;
                }
                Ok(t)
            }
            _ => Err(at(e.span, "lowering of this call argument is not supported yet")),
        }
    }

    /// Argument or result `e` of a call through the ABI, in the caller: a
    /// register, or a call-sequence `.param` variable's storage (`write`:
    /// for a result).
    fn passed(&mut self, e: &ast::Expr, write: bool) -> Lowered<ops::call::Passed> {
        let ast::ExprKind::Name(a, None) = &e.kind else {
            return Err(at(e.span, "lowering of this call argument is not supported yet"));
        };
        if self.regs.ty(a.name.as_str()).is_some() {
            let reg =
                if write { self.reg(a.name.as_str(), e.span)? } else { ops::read_reg(self, a.name.as_str(), e.span)? };
            let shape = ops::call::Shape { words: reg.width, align: reg.width, aggregate: false };
            return Ok(ops::call::Passed { pieces: vec![reg], shape });
        }
        let name = self.param_aliases.get(a.name.as_str()).cloned().unwrap_or_else(|| a.name.to_string());
        let shape = self.param_shapes.get(&name).copied().ok_or_else(|| {
            at(e.span, "lowering of a call argument that is not a call-sequence .param is not supported yet")
        })?;
        let formal = ops::call::Formal { name: &name, shape, in_reg: false };
        Ok(ops::call::Passed { pieces: ops::call::pieces(self, &formal, write, e.span)?, shape })
    }

    /// The `.param` variable a call's argument names, as seen from here.
    fn param_alias(&self, actual: &ast::Expr) -> Lowered<String> {
        let ast::ExprKind::Name(a, None) = &actual.kind else {
            return Err(at(actual.span, "lowering of this call argument is not supported yet"));
        };
        Ok(self.param_aliases.get(a.name.as_str()).cloned().unwrap_or_else(|| a.name.as_str().to_string()))
    }

    /// In an inlined body's fresh scope: its `.reg` parameters and results
    /// declared, each parameter sharing the caller's register when the body
    /// never writes it, else a copy of the caller's value.
    fn bind_reg_formals(
        &mut self,
        args: &[(&'m ast::VarDecl, &'m str, Reg)],
        rets: &[(&'m ast::VarDecl, &'m str, Reg)],
        span: Span,
    ) -> Lowered {
        let mut declared: Vec<&ast::VarDecl> = Vec::new();
        for &(decl, ..) in args.iter().chain(rets) {
            if !declared.iter().any(|d| std::ptr::eq(*d, decl)) {
                self.regs.declare(decl)?;
                declared.push(decl);
            }
        }
        for &(_, formal, value) in args {
            if self.single_def(formal) && self.regs.alias(formal, value) {
                continue;
            }
            let reg = self.reg(formal, span)?;
            if reg.file != value.file || reg.width != value.width {
                return Err(at(
                    span,
                    "lowering of an argument of another shape than its parameter is not supported yet",
                ));
            }
            ops::call::move_words(self, reg, value, span)?;
        }
        Ok(())
    }

    /// After a call: what was known about the registers it wrote is gone.
    fn forget_results(&mut self, rets: &[ast::Expr]) {
        for e in rets {
            if let ast::ExprKind::Name(a, None) = &e.kind
                && let Some(reg) = self.regs.existing(a.name.as_str())
            {
                self.clobber(a.name.as_str(), reg);
            }
        }
    }

    /// `ret` of an out-of-line function (`ops/call.rs`); `None` in a kernel.
    pub fn abi_ret(&mut self, span: Span) -> Lowered {
        let Some((ra, rets)) = self.abi_return.clone() else {
            return Err(at(span, "internal: ret outside a device function"));
        };
        ops::call::ret(self, &rets, ra, span)
    }

    /// Writes the address of out-of-line function `name` to `dst`; false
    /// when `name` is no such function.
    pub fn function_address(&mut self, name: &str, dst: Reg, span: Span) -> Lowered<bool> {
        if !self.out_of_line.contains(name) {
            return Ok(false);
        }
        ops::call::function_address(self, name, dst, span)?;
        Ok(true)
    }

    /// The function's first block (the start of its code).
    pub fn entry_block(&self) -> BlockId {
        self.order[0]
    }

    /// After a call: the callee may have left the warp's threads apart.
    pub fn after_call(&mut self) {
        self.converged = false;
        self.products.retain(|_, p| p.stable);
    }

    /// A new block, not yet placed in the layout.
    fn block(&mut self) -> BlockId {
        let id = self.func.add_block();
        self.func.layout.pop();
        id
    }

    /// The block a label names, created on first mention.
    pub fn label_block(&mut self, name: &'m str) -> BlockId {
        if let Some(&b) = self.labels.get(name) {
            return b;
        }
        let b = self.block();
        self.labels.insert(name, b);
        b
    }

    fn place_label(&mut self, name: &'m str) {
        let b = self.label_block(name);
        self.order.push(b);
        self.current = Some(b);
        self.converged = false;
        // Other paths reach the label: what only the block knew no longer holds.
        self.products.retain(|_, p| p.stable);
    }

    /// Continues in `block` (made with `Function::add_block`), placed next
    /// in the layout: for expansions that branch inside one PTX instruction.
    pub fn place_block(&mut self, block: BlockId) {
        self.order.push(block);
        self.current = Some(block);
        self.converged = false;
        self.products.retain(|_, p| p.stable);
    }

    /// Ends the current block after a branch or exit: what follows starts a
    /// new one (reachable only through a label).
    pub fn end_block(&mut self) {
        self.current = None;
        self.converged = false;
        self.products.retain(|_, p| p.stable);
    }

    /// The last instruction with opcode `op` in the block being filled.
    pub fn last_emitted_mut(&mut self, op: Opcode) -> Option<&mut Inst> {
        self.last_emitted_where(|o| o == op)
    }

    /// [`Self::last_emitted_mut`] for the last instruction whose opcode
    /// satisfies `pred`.
    pub fn last_emitted_where(&mut self, pred: impl Fn(Opcode) -> bool) -> Option<&mut Inst> {
        let block = self.current?;
        let id = *self.func.blocks[block].insts.iter().rev().find(|&&i| pred(self.func.insts[i].op))?;
        Some(&mut self.func.insts[id])
    }

    fn current_block(&mut self) -> BlockId {
        match self.current {
            Some(b) => b,
            None => {
                let b = self.block();
                self.order.push(b);
                self.current = Some(b);
                b
            }
        }
    }

    /// Runs `f` so that what it emits lands at the end of the entry block
    /// (before its branch), unguarded: values computed there are available
    /// everywhere.
    pub(crate) fn in_entry<T>(&mut self, f: impl FnOnce(&mut Self) -> Lowered<T>) -> Lowered<T> {
        let entry = self.order[0];
        let here = self.current_block();
        let guard = self.guard.take();
        let start = self.func.blocks[here].insts.len();
        let result = f(self);
        self.guard = guard;
        if here != entry {
            let moved = self.func.blocks[here].insts.split_off(start);
            let insts = &self.func.blocks[entry].insts;
            let branch = insts.last().is_some_and(|&i| self.func.insts[i].op.has(OpFlags::BRANCH));
            let at = insts.len() - usize::from(branch);
            self.func.blocks[entry].insts.splice(at..at, moved);
        }
        result
    }

    /// Appends `op.mods defs, uses` (guarded like the PTX instruction) to
    /// the current block.
    pub fn emit(&mut self, op: Opcode, mods: &[&str], defs: Vec<Operand>, uses: Vec<Operand>, span: Span) -> Lowered {
        let uses = uses.into_iter().map(|u| imm_convention(op, u)).collect();
        let mut inst = Inst::new(op, defs, uses);
        for m in mods {
            let m = Modifier::from_name(m).ok_or_else(|| at(span, format!("internal: unknown SASS modifier .{m}")))?;
            inst.mods.push(m);
        }
        inst.guard = self.guard;
        // Code made before the first statement (a device function's
        // prologue) has no line of its own.
        inst.loc = (self.loc.ptx_line != 0).then_some(self.loc);
        let block = self.current_block();
        self.func.push_inst(block, inst);
        Ok(())
    }

    /// [`Self::emit`] without the PTX instruction's guard: a read of a
    /// constant into a uniform register (`ULDC` has no guarded form, and
    /// reading a constant where the guard is off is harmless).
    pub fn emit_unguarded(
        &mut self,
        op: Opcode,
        mods: &[&str],
        defs: Vec<Operand>,
        uses: Vec<Operand>,
        span: Span,
    ) -> Lowered {
        let guard = self.guard.take();
        let result = self.emit(op, mods, defs, uses, span);
        self.guard = guard;
        result
    }

    /// `d = s` for register pairs: `IMAD.WIDE.U32 d, RZ, RZ, s` (0 * 0 + s:
    /// SASS has no 64-bit `MOV`); `s` may be a pair or a bank operand.
    pub fn copy_pair(&mut self, d: Operand, s: Operand, span: Span) -> Lowered {
        let rz = Operand::reg(Reg::RZ);
        self.emit(Opcode::IMAD, &["WIDE", "U32"], vec![d], vec![rz.clone(), rz, s], span)
    }

    /// `c[0x2][offset]`, the slot of the 64-bit `value` in the function's
    /// constant bank 2, added on first use (NVIDIA's literal pool on
    /// sm_8x: one slot per value, in order of first use); `None` on sm_90+
    /// (NVIDIA uses `UMOV` pairs there) and in functions lowered on their
    /// own, whose code is cloned into kernels with pools of their own.
    pub fn bank2_constant(&mut self, value: u64) -> Option<Operand> {
        if !self.target.isa.literal_pool || self.func.kind != FunctionKind::Entry {
            return None;
        }
        // The function table, if any, comes first and is no constant.
        let table =
            if self.func.attrs.function_table.is_empty() { 0 } else { self.func.attrs.function_table.len() + 1 };
        let pool = &mut self.func.attrs.bank2;
        let slot = pool.iter().skip(table).position(|&v| v == value).map(|i| i + table).unwrap_or_else(|| {
            pool.push(value);
            pool.len() - 1
        });
        Some(Operand::cbank(2, 8 * slot as i32))
    }

    /// The value of `c[0x2][offset]` when `x` reads a slot of bank 2.
    pub fn bank2_value(&self, x: &Operand) -> Option<u64> {
        let ori_ir::OperandKind::CBank(c) = &x.kind else { return None };
        if c.bank != ori_ir::Bank::Fixed(2) || c.reg.is_some() {
            return None;
        }
        let slot = usize::try_from(c.offset / 8).ok()?;
        self.func.attrs.bank2.get(slot).copied()
    }

    /// `d = x` as `IMAD.MOV.U32 d, RZ, RZ, x`: a move that copy
    /// propagation leaves alone, for constants that must sit in a register
    /// (a plain `MOV` would be folded back into the operand slot).
    pub fn imad_mov(&mut self, d: Operand, x: Operand, span: Span) -> Lowered {
        let rz = Operand::reg(Reg::RZ);
        self.emit(Opcode::IMAD, &["MOV", "U32"], vec![d], vec![rz.clone(), rz, x], span)
    }

    /// The virtual register of PTX register `name`.
    pub fn reg(&mut self, name: &str, span: Span) -> Lowered<Reg> {
        self.regs.get(&mut self.func, name).ok_or_else(|| at(span, format!("'{name}' is not a register")))
    }

    /// A fresh virtual register.
    pub fn temp(&mut self, file: RegFile, width: u8) -> Reg {
        self.func.new_vreg(file, width)
    }

    /// A global address `desc[UR.64][base.64 + offset]`; the descriptor is
    /// loaded once at the top of the entry block. Targets without a memory
    /// descriptor (sm_75) address `[base.64 + offset]`.
    pub fn global_address(&mut self, base: Reg, offset: i64, span: Span) -> Lowered<Operand> {
        let Some(desc_offset) = self.target.global_desc else {
            return Ok(ori_ir::OperandKind::Mem(Address { base: Some(base), offset, ..Address::default() }).into());
        };
        let desc = match self.desc {
            Some(d) => d,
            None => {
                let d = self.temp(RegFile::UR, 2);
                let entry = self.order[0];
                let mut load = Inst::new(Opcode::ULDC, vec![d.into()], vec![Operand::cbank(0, desc_offset)]);
                load.mods = vec![Modifier::from_name("64").ok_or_else(|| at(span, "internal: no .64 modifier"))?];
                let id = self.func.insts.alloc(load);
                self.func.blocks[entry].insts.insert(0, id);
                self.desc = Some(d);
                d
            }
        };
        Ok(ori_ir::OperandKind::Mem(Address { desc: Some(desc), base: Some(base), offset, ..Address::default() })
            .into())
    }

    /// Writes the address of shared variable `name` (+ `offset`) to `dst`:
    /// on sm_90 the CTA's window in the cluster's shared memory, `(CgaCtaId
    /// << 24) + offset`, computed as NVIDIA's code does; before sm_90 the
    /// offset itself.
    pub fn shared_address(&mut self, name: &str, offset: i64, dst: Reg, span: Span) -> Lowered<bool> {
        let base = match (self.shared.offset(name), self.globals.get(name)) {
            (Some(base), _) => base,
            (None, Some(GlobalRef::ExternShared(align))) => {
                // Dynamic shared memory starts where the static part ends:
                // every static variable must be known by now.
                self.extern_shared_align = self.extern_shared_align.max(align);
                let (end, _) = self.shared.section();
                end.max(self.sm.target().reserved_shared).next_multiple_of(align)
            }
            _ => return Ok(false),
        };
        let at = i64::from(base) + offset;
        if !self.target.shared_window {
            self.emit(Opcode::MOV, &[], vec![dst.into()], vec![Operand::int(at)], span)?;
            return Ok(true);
        }
        let cta = self.temp(RegFile::UR, 1);
        let off = self.temp(RegFile::UR, 1);
        let window = self.temp(RegFile::UR, 1);
        let cga = ori_ir::OperandKind::Special(ori_ir::SpecialReg::CgaCtaId).into();
        self.emit(Opcode::S2UR, &[], vec![cta.into()], vec![cga], span)?;
        self.emit(Opcode::UMOV, &[], vec![off.into()], vec![Operand::int(at)], span)?;
        let uses = vec![cta.into(), off.into(), Operand::int(0x18)];
        self.emit(Opcode::ULEA, &[], vec![window.into()], uses, span)?;
        self.emit(Opcode::MOV, &[], vec![dst.into()], vec![window.into()], span)?;
        Ok(true)
    }

    /// Writes the address of module variable `name` to the pair `dst`: a
    /// `.global` one's from its slot in constant bank 4 (`LDC.64`; sm_80
    /// reads the two words with `MOV`, as NVIDIA's code does), a `.const`
    /// one's offset in bank 3 (what `ld.const` through it reads), also
    /// remembered for PTX register `dst_name` when that is written once.
    /// False when `name` is not a module variable.
    pub fn global_var_address(&mut self, name: &str, dst: Reg, dst_name: &str, span: Span) -> Lowered<bool> {
        let pair = |dst: Reg| {
            let message = format!("lowering of a 32-bit address of '{name}' is not supported yet");
            if dst.width == 2 { Ok(()) } else { Err(at(span, message)) }
        };
        match self.globals.get(name) {
            // Dynamic shared memory has a shared-window address instead.
            None | Some(GlobalRef::ExternShared(_)) => return Ok(false),
            Some(GlobalRef::Global(slot)) => {
                pair(dst)?;
                let slot = slot as i32;
                if !self.target.isa.bank_operands {
                    self.emit(Opcode::LDC, &["64"], vec![dst.into()], vec![Operand::cbank(4, slot)], span)?;
                } else {
                    let lo = Operand::reg(dst.part(0, 1)).undef();
                    self.emit(Opcode::MOV, &[], vec![lo], vec![Operand::cbank(4, slot)], span)?;
                    let hi = Operand::reg(dst.part(1, 1));
                    self.emit(Opcode::MOV, &[], vec![hi], vec![Operand::cbank(4, slot + 4)], span)?;
                }
            }
            Some(GlobalRef::Const(offset)) => {
                pair(dst)?;
                let offset = i64::from(offset);
                let lo = Operand::reg(dst.part(0, 1)).undef();
                self.emit(Opcode::MOV, &[], vec![lo], vec![Operand::int(offset)], span)?;
                self.emit(Opcode::MOV, &[], vec![Operand::reg(dst.part(1, 1))], vec![Operand::reg(Reg::RZ)], span)?;
                if self.single_def(dst_name) {
                    self.const_ptrs.insert(dst_name.to_string(), offset);
                }
            }
        }
        Ok(true)
    }

    /// Writes the address of local variable `name` (+ `offset`) to `dst`
    /// (one register, or the low word of a pair whose high word is zero):
    /// `R1 + offset`, the stack pointer being the frame's base. Records the
    /// value for local accesses through `dst_name` when it is written once.
    pub fn local_address(&mut self, name: &str, offset: i64, dst: Reg, dst_name: &str, span: Span) -> Lowered<bool> {
        let Some(base) = self.locals.offset(name) else { return Ok(false) };
        let at = i64::from(base) + offset;
        self.local_pointer(dst, dst_name, at, span)?;
        Ok(true)
    }

    /// Writes `R1 + offset` to `dst`, remembered as PTX register
    /// `dst_name`'s value when that is written once.
    pub fn local_pointer(&mut self, dst: Reg, dst_name: &str, offset: i64, span: Span) -> Lowered {
        let rz = Operand::reg(Reg::RZ);
        let low = if dst.width == 2 { Operand::reg(dst.part(0, 1)).undef() } else { Operand::reg(dst) };
        let sp = Operand::reg(Reg::phys(RegFile::R, 1));
        self.emit(Opcode::IADD3, &[], vec![low], vec![sp, Operand::int(offset), rz.clone()], span)?;
        if dst.width == 2 {
            self.emit(Opcode::MOV, &[], vec![Operand::reg(dst.part(1, 1))], vec![rz], span)?;
        }
        if self.single_def(dst_name) {
            self.local_ptrs.insert(dst_name.to_string(), offset);
        }
        Ok(())
    }

    /// True when the warp's threads are known to run together here (see
    /// [`Lowerer::reconverge`]).
    pub fn is_converged(&self) -> bool {
        self.converged
    }

    /// Makes the warp's threads run together again before a warp-synchronous
    /// instruction (`SHFL`, `BAR`) that a branch may have split them for:
    /// `WARPSYNC.ALL` on sm_90, `WARPSYNC 0xffffffff` before (the forms
    /// NVIDIA's code uses, e.g. before `BAR.SYNC` after a divergent region
    /// in layernorm_rows). Exited threads do not hold it up.
    pub fn reconverge(&mut self, span: Span) -> Lowered {
        if self.converged {
            return Ok(());
        }
        let guard = self.guard.take();
        let result = if self.target.isa.warpsync_all {
            self.emit(Opcode::WARPSYNC, &["ALL"], vec![], vec![], span)
        } else {
            self.emit(Opcode::WARPSYNC, &[], vec![], vec![Operand::int(0xffff_ffff)], span)
        };
        self.guard = guard;
        self.converged = true;
        result
    }

    /// True when PTX register `name` is written exactly once.
    pub fn single_def(&self, name: &str) -> bool {
        self.counts.defs.get(name) == Some(&1)
    }

    /// True when nothing writes PTX register `name` (NVVM reads such
    /// registers as undefined values, e.g. the high word of a `mov.b64
    /// d, {lo, %r39}` whose high half is never used).
    pub fn never_written(&self, name: &str) -> bool {
        !self.counts.defs.contains_key(name)
    }

    /// True when nothing reads PTX register `name`.
    pub fn unread(&self, name: &str) -> bool {
        !self.counts.reads.contains_key(name)
    }

    /// Forgets what the block knew about PTX register `name`'s old value
    /// (called when an instruction writes it).
    pub fn clobber(&mut self, name: &str, reg: Reg) {
        self.products.remove(name);
        self.products.retain(|_, p| p.src.as_reg() != Some(reg) && p.factor.as_reg() != Some(reg));
    }
}

/// Writes a 32-bit integer immediate the way the encoder expects it for
/// `op`: `0xffffffff` for a bitwise instruction, `-0x1` for an arithmetic
/// one (the same word).
fn imm_convention(op: Opcode, operand: Operand) -> Operand {
    let ori_ir::OperandKind::Imm(ori_ir::Imm::Int(v)) = operand.kind else { return operand };
    if !(-(1 << 31)..1 << 32).contains(&v) {
        return operand;
    }
    Operand { kind: ori_ir::OperandKind::Imm(op.immediate(v as u32)), ..operand }
}
