//! Function addresses as NVIDIA's ptxas numbers them.
//!
//! A module with one kernel and no function in a variable's initial value
//! uses code offsets: `mov.u64 %rd, f` is `f`'s offset in the kernel's code
//! and an indirect call jumps there (`ops/call.rs`). Otherwise a function
//! has code in every kernel that may call it, at a different offset in
//! each, and its address must mean the same in all of them (a vtable in
//! `.nv.global.init` serves every kernel): NVIDIA's ptxas then numbers the
//! address-taken functions 1, 2, ... and a function's address is
//! `8 * number`. Every kernel that makes an indirect call has
//! `.nv.constant2.<kernel>` start with `1` and then the code offset of
//! each numbered function in that kernel, and the call is `LDC.64 R,
//! c[0x2][address]` + `CALL.REL.NOINC R`. Measured on NVRTC's virtual
//! functions and function-pointer tables (three kernels) and on probes:
//! the numbering follows the functions' first mentions in the kernels'
//! bodies in source order, then in the device functions', a variable's
//! initialiser counting where the variable is named (`mov.u64 %rd, h`
//! before `ld` of `tbl = {g, f}`: h 1, g 2, f 3).

use std::collections::{HashMap, HashSet};

use ptx_syntax::ast::{self, ExprKind, Item};

use crate::callgraph::{call_target, walk};

/// The numbered functions of a module, when it numbers them.
#[derive(Clone, Debug, Default)]
pub(crate) struct FunctionTable {
    /// In NVIDIA's numbering: the `i`-th has address `8 * (i + 1)`.
    order: Vec<String>,
    /// Each one's address.
    addresses: HashMap<String, u64>,
    /// The kernels that hold the table in their bank 2 (they reach an
    /// indirect call).
    holders: HashSet<String>,
}

impl FunctionTable {
    /// The table of the module `items`; `funcs` are its device functions
    /// with bodies. Empty when the module keeps code offsets.
    pub fn of<'m>(items: &'m [Item], funcs: &HashMap<&str, &ast::Function>) -> FunctionTable {
        let bodies: Vec<&ast::Function> = items
            .iter()
            .filter_map(|i| match i {
                Item::Function(f) if f.body.is_some() => Some(f.as_ref()),
                _ => None,
            })
            .collect();
        // Each variable's functions, in its initialiser's order.
        let mut held: HashMap<&str, Vec<&str>> = HashMap::new();
        for item in items {
            let Item::Variable(v) = item else { continue };
            for d in &v.names {
                let mut named = Vec::new();
                if let Some(init) = &d.init {
                    init.for_each_name(&mut |n| {
                        if funcs.contains_key(n.name.as_str()) {
                            named.push(n.name.as_str());
                        }
                    });
                }
                if !named.is_empty() {
                    held.insert(d.name.name.as_str(), named);
                }
            }
        }
        let declared: HashSet<&str> = items
            .iter()
            .filter_map(|i| if let Item::Function(f) = i { Some(f.name.name.as_str()) } else { None })
            .collect();
        let kernels = bodies.iter().filter(|f| f.kind == ast::FunctionKind::Entry).count();
        let mut order: Vec<&str> = Vec::new();
        let mut numbered: HashSet<&str> = HashSet::new();
        let mut number = |g: &'m str, order: &mut Vec<&'m str>| {
            if numbered.insert(g) {
                order.push(g);
            }
        };
        // What each body names (functions, and variables holding some),
        // and whether it calls through a pointer.
        let mut mentions: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut indirect: HashSet<&str> = HashSet::new();
        // Kernels first (tests/ptx/fn_table.ptx: a function numbered from
        // a kernel comes before those a device function above it names).
        let kernels_first = bodies.iter().filter(|f| f.kind == ast::FunctionKind::Entry);
        for f in kernels_first.chain(bodies.iter().filter(|f| f.kind != ast::FunctionKind::Entry)) {
            let Some(body) = &f.body else { continue };
            let me = f.name.name.as_str();
            let mut named = Vec::new();
            walk(&body.statements, &mut |inst| {
                let target = if inst.opcode.name.as_str() == "call" { call_target(inst) } else { None };
                if let Some(t) = target
                    && !matches!(inst.operands.get(t).map(|o| &o.kind),
                        Some(ExprKind::Name(n, None)) if declared.contains(n.name.as_str()))
                {
                    indirect.insert(me);
                }
                for (i, op) in inst.operands.iter().enumerate() {
                    op.for_each_name(&mut |n| {
                        let n = n.name.as_str();
                        if let Some(fns) = held.get(n) {
                            for &g in fns {
                                number(g, &mut order);
                            }
                            named.extend(fns.iter().copied());
                        } else if funcs.contains_key(n) {
                            if target != Some(i) {
                                number(n, &mut order);
                            }
                            named.push(n);
                        }
                    });
                }
            });
            mentions.insert(me, named);
        }
        if held.is_empty() && kernels < 2 {
            return FunctionTable::default();
        }
        // Initialisers of variables no code names, in declaration order.
        for item in items {
            let Item::Variable(v) = item else { continue };
            for d in &v.names {
                for &g in held.get(d.name.name.as_str()).into_iter().flatten() {
                    number(g, &mut order);
                }
            }
        }
        if order.is_empty() {
            return FunctionTable::default();
        }
        // A kernel holds the table when it, or a function it names, calls
        // through a pointer.
        let holders = bodies
            .iter()
            .filter(|f| f.kind == ast::FunctionKind::Entry)
            .map(|f| f.name.name.as_str())
            .filter(|&k| {
                let mut seen = HashSet::from([k]);
                let mut stack = vec![k];
                while let Some(f) = stack.pop() {
                    if indirect.contains(f) {
                        return true;
                    }
                    for &g in mentions.get(f).into_iter().flatten() {
                        if seen.insert(g) {
                            stack.push(g);
                        }
                    }
                }
                false
            })
            .map(str::to_string)
            .collect();
        let addresses = order.iter().zip(1..).map(|(f, i)| (f.to_string(), 8 * i)).collect();
        FunctionTable { order: order.into_iter().map(str::to_string).collect(), addresses, holders }
    }

    /// The functions this table numbers (they need code of their own).
    pub fn functions(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    /// The address of numbered function `name`; `None` when the module
    /// keeps code offsets or does not number `name`.
    pub fn address(&self, name: &str) -> Option<u64> {
        self.addresses.get(name).copied()
    }

    /// True when function addresses are numbers (and indirect calls read
    /// their target from bank 2).
    pub fn numbered(&self) -> bool {
        !self.order.is_empty()
    }

    /// The table kernel `name` keeps in its bank 2, if it keeps one.
    pub fn held_by(&self, name: &str) -> Option<&[String]> {
        self.holders.contains(name).then_some(self.order.as_slice())
    }
}
