//! Which device functions are called out of line.
//!
//! Direct calls are inlined (`Lowerer::inline_call`), which needs no
//! calling convention and is what ptxas does with small functions. A
//! function is compiled on its own, and called through the ABI
//! (`ops/call.rs`), when inlining cannot work: it calls itself, directly or
//! through others (recursion), or its address is taken (an indirect call
//! may reach it). It is also compiled on its own when inlining it would
//! nest more than [`MAX_INLINE_DEPTH`] bodies: the lowering recurses once
//! per inlined body, and a chain of thousands of functions each calling the
//! next must not overflow the stack.

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
    out.extend(recursive(&calls));
    let cut = too_deep(&calls, |f| funcs.contains_key(f) && !out.contains(f));
    out.extend(cut);
    out
}

/// Most bodies inlined one inside another below a kernel or out-of-line
/// function. Deeper chains are cut by calling every
/// `MAX_INLINE_DEPTH + 1`-th function out of line.
pub(crate) const MAX_INLINE_DEPTH: usize = 64;

/// The callees of `f` in the call graph, in call order.
fn callees<'g, 'm>(calls: &'g HashMap<&'m str, Vec<&'m str>>, f: &str) -> &'g [&'m str] {
    calls.get(f).map_or(&[], Vec::as_slice)
}

/// Functions on a cycle of direct calls: the strongly connected components
/// with more than one function or a call to itself (Tarjan's algorithm,
/// with an explicit stack so that long call chains cannot overflow ours).
fn recursive<'m>(calls: &HashMap<&'m str, Vec<&'m str>>) -> Vec<&'m str> {
    /// Per visited function: its visit number and the lowest visit number
    /// reachable from it through functions still on the component stack.
    struct Visit {
        index: usize,
        low: usize,
        on_stack: bool,
    }
    let mut names: Vec<&'m str> = calls.keys().copied().collect();
    names.sort_unstable();
    let mut visits: HashMap<&'m str, Visit> = HashMap::new();
    let mut component: Vec<&'m str> = Vec::new();
    let mut out = Vec::new();
    let open = |f: &'m str,
                visits: &mut HashMap<&'m str, Visit>,
                component: &mut Vec<&'m str>,
                dfs: &mut Vec<(&'m str, usize)>| {
        let index = visits.len();
        visits.insert(f, Visit { index, low: index, on_stack: true });
        component.push(f);
        dfs.push((f, 0));
    };
    for &root in &names {
        if visits.contains_key(root) {
            continue;
        }
        // (function, next callee to look at)
        let mut dfs: Vec<(&'m str, usize)> = Vec::new();
        open(root, &mut visits, &mut component, &mut dfs);
        while let Some(&mut (f, ref mut next)) = dfs.last_mut() {
            if let Some(&c) = callees(calls, f).get(*next) {
                *next += 1;
                match visits.get(c) {
                    None => open(c, &mut visits, &mut component, &mut dfs),
                    Some(v) if v.on_stack => {
                        let ci = v.index;
                        let low = &mut visits.get_mut(f).expect("visited").low;
                        *low = (*low).min(ci);
                    }
                    Some(_) => {}
                }
                continue;
            }
            dfs.pop();
            let (index, low) = (visits[f].index, visits[f].low);
            if let Some(&(parent, _)) = dfs.last() {
                let plow = &mut visits.get_mut(parent).expect("visited").low;
                *plow = (*plow).min(low);
            }
            if low == index {
                let at = component.iter().rposition(|&g| g == f).expect("f is on the component stack");
                let scc = component.split_off(at);
                scc.iter().for_each(|g| visits.get_mut(g).expect("visited").on_stack = false);
                if scc.len() > 1 || callees(calls, f).contains(&f) {
                    out.extend(scc);
                }
            }
        }
    }
    out
}

/// Functions to call out of line so that no inlined chain nests more than
/// [`MAX_INLINE_DEPTH`] bodies, given which functions would be inlined
/// (over those the graph is acyclic). Bottom-up: a function's height is
/// one more than its tallest inlined callee's; one that would exceed the
/// limit goes out of line and counts as height 0 for its callers.
fn too_deep<'m>(calls: &HashMap<&'m str, Vec<&'m str>>, inlined: impl Fn(&str) -> bool) -> Vec<&'m str> {
    let mut height: HashMap<&'m str, usize> = HashMap::new();
    let mut cut = Vec::new();
    let mut names: Vec<&'m str> = calls.keys().copied().collect();
    names.sort_unstable();
    for root in names.into_iter().filter(|&f| !inlined(f)) {
        let mut dfs: Vec<(&'m str, usize)> = vec![(root, 0)];
        while let Some(&mut (f, ref mut next)) = dfs.last_mut() {
            if let Some(&c) = callees(calls, f).get(*next) {
                *next += 1;
                if inlined(c) && !height.contains_key(c) {
                    dfs.push((c, 0));
                }
                continue;
            }
            dfs.pop();
            let tallest = callees(calls, f).iter().filter(|&&c| inlined(c)).map(|c| height[c]).max().unwrap_or(0);
            let mut h = tallest + 1;
            if h > MAX_INLINE_DEPTH && inlined(f) {
                cut.push(f);
                h = 0;
            }
            height.insert(f, h);
        }
    }
    cut
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

pub(crate) fn walk<'m>(statements: &'m [Statement], f: &mut impl FnMut(&'m ast::Instruction)) {
    for s in statements {
        match s {
            Statement::Instruction(i) => f(i),
            Statement::Block(b) => walk(&b.statements, f),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph<'m>(edges: &[(&'m str, &'m str)]) -> HashMap<&'m str, Vec<&'m str>> {
        let mut calls: HashMap<&str, Vec<&str>> = HashMap::new();
        for &(from, to) in edges {
            calls.entry(from).or_default().push(to);
            calls.entry(to).or_default();
        }
        calls
    }

    #[test]
    fn cycles_are_recursive_and_nothing_else_is() {
        let calls = graph(&[("k", "a"), ("a", "b"), ("b", "a"), ("b", "c"), ("c", "c"), ("k", "d"), ("d", "c")]);
        let mut found = recursive(&calls);
        found.sort_unstable();
        assert_eq!(found, ["a", "b", "c"]);
    }

    #[test]
    fn a_long_chain_is_cut_every_max_depth_functions() {
        let names: Vec<String> = (0..=200).map(|i| format!("f{i}")).collect();
        let mut edges = vec![("k", names[0].as_str())];
        edges.extend(names.windows(2).map(|w| (w[0].as_str(), w[1].as_str())));
        let calls = graph(&edges);
        assert!(recursive(&calls).is_empty());
        let mut cut: Vec<usize> = too_deep(&calls, |f| f != "k").iter().map(|f| f[1..].parse().unwrap()).collect();
        cut.sort_unstable();
        // f200..f137 are 64 nested bodies, f136 would be the 65th: out of
        // line, it starts the count again for its callers.
        assert_eq!(cut, [6, 71, 136]);
        // Only what is inlined somewhere is looked at: a chain no kernel
        // or out-of-line function reaches is never lowered.
        assert!(too_deep(&calls, |_| true).is_empty());
    }
}
