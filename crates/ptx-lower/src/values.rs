//! What the lowering knows about the value of a PTX register, so that an
//! instruction can read it the way NVIDIA's code does: a kernel parameter
//! straight from constant bank 0 (sm_80 reads parameters as ALU operands
//! and has no `LDC` forms we can encode), a `mul.wide` product folded into
//! the `IMAD.WIDE` of an address.

use std::collections::HashMap;

use ptx_syntax::ast::{self, Expr, ExprKind, Instruction, StateSpace, Statement};

/// A PTX register that holds a kernel parameter for the whole function.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ParamValue {
    /// Offset in constant bank 0 (parameter base included).
    pub offset: i32,
    /// Width in 32-bit words.
    pub words: u8,
}

/// How many times each PTX register is written and read in a function
/// body. Facts about a register written once hold wherever it is read (PTX
/// reads a register only after its definition), whatever the control flow;
/// a result never read need not be produced.
#[derive(Default)]
pub(crate) struct Counts {
    pub defs: HashMap<String, u32>,
    pub reads: HashMap<String, u32>,
}

/// True when `i`'s first operand is its result (stores, branches and
/// barriers name no result first).
pub(crate) fn writes_first_operand(i: &Instruction) -> bool {
    !matches!(i.opcode.name.as_str(), "st" | "bra" | "ret" | "exit" | "bar" | "barrier" | "red" | "call")
        && matches!(
            i.operands.first().map(|e| &e.kind),
            Some(ExprKind::Name(..) | ExprKind::Binary(..) | ExprKind::Braces(_))
        )
}

impl Counts {
    /// Counts the writes and reads of every name in `statements`.
    pub fn of(statements: &[Statement]) -> Counts {
        let mut counts = Counts::default();
        counts.walk(statements);
        counts
    }

    /// The counts of a function's body, its `.reg` parameters written once
    /// on entry (the caller's values).
    pub fn of_function(f: &ast::Function, statements: &[Statement]) -> Counts {
        let mut counts = Counts::of(statements);
        let regs = f.params.iter().flatten().filter(|d| d.space == StateSpace::Reg);
        for n in regs.flat_map(|d| &d.names) {
            *counts.defs.entry(n.name.name.as_str().to_string()).or_insert(0) += 1;
        }
        counts
    }

    fn walk(&mut self, statements: &[Statement]) {
        for s in statements {
            match s {
                Statement::Instruction(i) => {
                    let bump = |map: &mut HashMap<String, u32>, e: &Expr| {
                        e.for_each_name(&mut |n| *map.entry(n.name.as_str().to_string()).or_insert(0) += 1)
                    };
                    // `call (rets), f, ...` writes the registers of its result list.
                    let writes = writes_first_operand(i)
                        || (i.opcode.name.as_str() == "call"
                            && matches!(i.operands.first().map(|e| &e.kind), Some(ExprKind::List(_))));
                    for (k, e) in i.operands.iter().enumerate() {
                        bump(if k == 0 && writes { &mut self.defs } else { &mut self.reads }, e);
                    }
                    if let Some(g) = &i.guard {
                        *self.reads.entry(g.pred.name.as_str().to_string()).or_insert(0) += 1;
                    }
                }
                Statement::Block(b) => self.walk(&b.statements),
                _ => {}
            }
        }
    }
}
