//! What the lowering knows about the value of a PTX register, so that an
//! instruction can read it the way NVIDIA's code does: a kernel parameter
//! straight from constant bank 0 (sm_80 reads parameters as ALU operands
//! and has no `LDC` forms we can encode), a `mul.wide` product folded into
//! the `IMAD.WIDE` of an address.

use std::collections::HashMap;

use ptx_syntax::ast::{ExprKind, Statement};

/// A PTX register that holds a kernel parameter for the whole function.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ParamValue {
    /// Offset in constant bank 0 (parameter base included).
    pub offset: i32,
    /// Width in 32-bit words.
    pub words: u8,
}

/// How many times each PTX register is written in a function body: facts
/// about a register written once hold wherever it is read (PTX reads a
/// register only after its definition), whatever the control flow.
pub(crate) fn count_defs(statements: &[Statement]) -> HashMap<String, u32> {
    let mut counts = HashMap::new();
    count(statements, &mut counts);
    counts
}

fn count(statements: &[Statement], counts: &mut HashMap<String, u32>) {
    for s in statements {
        match s {
            Statement::Instruction(i) => {
                // Stores, branches and barriers name no result first.
                if matches!(i.opcode.name.as_str(), "st" | "bra" | "ret" | "exit" | "bar" | "red" | "call") {
                    continue;
                }
                let mut first = |e: &ptx_syntax::ast::Expr| {
                    e.for_each_name(&mut |n| *counts.entry(n.name.as_str().to_string()).or_insert(0) += 1)
                };
                match i.operands.first().map(|e| &e.kind) {
                    Some(ExprKind::Name(..) | ExprKind::Binary(..) | ExprKind::Braces(_)) => first(&i.operands[0]),
                    _ => {}
                }
            }
            Statement::Block(b) => count(&b.statements, counts),
            _ => {}
        }
    }
}
