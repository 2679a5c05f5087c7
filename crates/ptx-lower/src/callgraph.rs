//! Which device functions are called out of line.
//!
//! Direct calls are inlined (`Lowerer::inline_call`), which needs no
//! calling convention and is what ptxas does with small functions. A
//! function is compiled on its own, and called through the ABI
//! (`ops/call.rs`), when inlining cannot work: it calls itself, directly or
//! through others (recursion), or its address is taken (an indirect call
//! may reach it).

use std::collections::{HashMap, HashSet};

use ptx_syntax::ast::{self, ExprKind, Statement};

/// Device functions with bodies that need code of their own, given every
/// function of the module with a body (kernels included: they may take
/// addresses) and the device functions by name.
pub(crate) fn out_of_line<'m>(
    bodies: &[&'m ast::Function],
    funcs: &HashMap<&'m str, &'m ast::Function>,
) -> HashSet<&'m str> {
    let mut calls: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut out = HashSet::new();
    for f in bodies {
        let Some(body) = &f.body else { continue };
        let mut direct = Vec::new();
        walk(&body.statements, &mut |inst| {
            let target = if inst.opcode.name.as_str() == "call" { call_target(inst) } else { None };
            for (i, op) in inst.operands.iter().enumerate() {
                op.for_each_name(&mut |n| {
                    let Some((&callee, _)) = funcs.get_key_value(n.name.as_str()) else { return };
                    if target == Some(i) {
                        direct.push(callee);
                    } else {
                        out.insert(callee);
                    }
                });
            }
        });
        calls.insert(f.name.name.as_str(), direct);
    }
    for &f in funcs.keys() {
        if reaches(&calls, f, f) {
            out.insert(f);
        }
    }
    out
}

/// Functions declared without a body (`.extern .func vprintf`) that some
/// function calls, in declaration order: their addresses come from
/// constant bank 4 (`ori_ir::Module::externals`).
pub(crate) fn externals(items: &[ast::Item]) -> Vec<String> {
    let mut called = HashSet::new();
    for item in items {
        if let ast::Item::Function(f) = item
            && let Some(body) = &f.body
        {
            walk(&body.statements, &mut |inst| {
                if inst.opcode.name.as_str() == "call"
                    && let Some(ExprKind::Name(n, None)) =
                        call_target(inst).and_then(|i| inst.operands.get(i)).map(|o| &o.kind)
                {
                    called.insert(n.name.as_str());
                }
            });
        }
    }
    // A forward declaration (math_double's `__internal_trig_reduction_
    // slowpathd`) is not external when the module defines the function.
    let defined: HashSet<&str> = items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Function(f) if f.body.is_some() => Some(f.name.name.as_str()),
            _ => None,
        })
        .collect();
    items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Function(f)
                if f.body.is_none()
                    && called.contains(f.name.name.as_str())
                    && !defined.contains(f.name.name.as_str()) =>
            {
                Some(f.name.name.to_string())
            }
            _ => None,
        })
        .collect()
}

/// True when `statements` contain a call (which an inlined body may hide:
/// any `call` counts).
pub(crate) fn has_calls(statements: &[Statement]) -> bool {
    let mut found = false;
    walk(statements, &mut |inst| found |= inst.opcode.name.as_str() == "call");
    found
}

/// Index of the operand naming the called function or pointer.
pub(crate) fn call_target(inst: &ast::Instruction) -> Option<usize> {
    match inst.operands.first().map(|o| &o.kind) {
        Some(ExprKind::List(_)) => Some(1),
        Some(_) => Some(0),
        None => None,
    }
}

/// True when `from` calls `to` through a chain of one or more direct calls.
fn reaches(calls: &HashMap<&str, Vec<&str>>, from: &str, to: &str) -> bool {
    let mut seen = HashSet::new();
    let mut stack: Vec<&str> = calls.get(from).cloned().unwrap_or_default();
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        if seen.insert(f) {
            stack.extend(calls.get(f).into_iter().flatten());
        }
    }
    false
}

pub(crate) fn walk<'m>(statements: &'m [Statement], f: &mut impl FnMut(&'m ast::Instruction)) {
    for s in statements {
        match s {
            Statement::Instruction(i) => f(i),
            Statement::Block(b) => walk(&b.statements, f),
            _ => {}
        }
    }
}
