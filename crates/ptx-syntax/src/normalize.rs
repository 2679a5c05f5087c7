//! Rewrites a validated module into the one spelling of each operand that
//! lowering expects, so that it never sees the sugar PTX allows:
//!
//! * a one-element vector without a `.vN` width (`ld.global.b32 { %r1 }, [a]`,
//!   Triton's spelling) is the scalar `%r1`;
//! * a `0f`/`0d` float literal in an instruction whose types are all bit
//!   types (`mov.b32 %r1, 0f3F800000`) is the integer with the same bits.
//!
//! The printer is not meant for the result: it is the module as lowering
//! reads it, not as it was written.

use crate::ast::*;

/// Normalizes every instruction of `module` in place (see the module docs).
/// Run it only on a module that [`validate`](crate::validate) accepted.
pub fn normalize(module: &mut Module) {
    // A worklist rather than recursion: blocks may nest thousands deep.
    let mut blocks: Vec<&mut Block> = module
        .items
        .iter_mut()
        .filter_map(|item| match item {
            Item::Function(f) => f.body.as_mut(),
            _ => None,
        })
        .collect();
    while let Some(block) = blocks.pop() {
        for statement in &mut block.statements {
            match statement {
                Statement::Instruction(inst) => instruction(inst),
                Statement::Block(inner) => blocks.push(inner),
                _ => {}
            }
        }
    }
}

fn instruction(inst: &mut Instruction) {
    let vector = inst.modifiers.iter().any(|m| matches!(m.kind, ModifierKind::Vector(_)));
    let scalar_braces = !vector && matches!(inst.opcode.name.as_str(), "ld" | "ldu" | "st" | "mov");
    let bit_typed = inst.types().next().is_some() && inst.types().all(is_bits);
    for operand in &mut inst.operands {
        if scalar_braces
            && let ExprKind::Braces(items) = &mut operand.kind
            && items.len() == 1
        {
            *operand = items.pop().expect("one element");
        }
        if bit_typed {
            float_bits(operand);
        }
    }
}

fn is_bits(t: ScalarType) -> bool {
    matches!(t, ScalarType::B16 | ScalarType::B32 | ScalarType::B64 | ScalarType::B128)
}

/// Replaces hex float literals in `operand` (or its vector elements) by
/// integers with their bits.
fn float_bits(operand: &mut Expr) {
    match &mut operand.kind {
        ExprKind::Float(FloatLit::F32(bits)) => {
            operand.kind = ExprKind::Int { value: u64::from(*bits), unsigned: false }
        }
        ExprKind::Float(FloatLit::F64(bits)) => operand.kind = ExprKind::Int { value: *bits, unsigned: false },
        ExprKind::Braces(items) => items.iter_mut().for_each(float_bits),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileId, parse};

    fn operands(body: &str) -> Vec<Expr> {
        let src = format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.entry k()\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n{{ {body} }}\n}}\n"
        );
        let (mut module, diags) = parse(&src, FileId(0));
        assert!(diags.is_empty(), "{diags:?}");
        normalize(&mut module);
        let Item::Function(f) = &module.items[3] else { panic!("no function") };
        let Statement::Block(block) = &f.body.as_ref().unwrap().statements[2] else { panic!("no block") };
        let Statement::Instruction(inst) = &block.statements[0] else { panic!("no instruction") };
        inst.operands.clone()
    }

    fn int(e: &Expr) -> Option<u64> {
        if let ExprKind::Int { value, .. } = e.kind { Some(value) } else { None }
    }

    #[test]
    fn one_element_vectors_are_scalars() {
        assert!(matches!(operands("ld.global.b32 { %r1 }, [%rd1];")[0].kind, ExprKind::Name(..)));
        assert!(matches!(operands("st.global.b32 [%rd1], {%r1};")[1].kind, ExprKind::Name(..)));
        assert!(matches!(operands("mov.b32 {%r1}, %r2;")[0].kind, ExprKind::Name(..)));
        // A width keeps the vector (and validation refuses one element there).
        assert!(matches!(operands("ld.global.v2.b32 {%r1}, [%rd1];")[0].kind, ExprKind::Braces(_)));
    }

    #[test]
    fn float_literals_become_bits_in_bit_typed_instructions() {
        assert_eq!(int(&operands("mov.b32 %r1, 0f3F800000;")[1]), Some(0x3f80_0000));
        assert_eq!(int(&operands("mov.b64 %rd1, 0d3FF0000000000000;")[1]), Some(0x3ff0_0000_0000_0000));
        assert_eq!(int(&operands("st.global.b32 [%rd1], {0fBF800000};")[1]), Some(0xbf80_0000));
        let vector = operands("st.global.v2.b32 [%rd1], {0f3F800000, 0f00000000};");
        let ExprKind::Braces(items) = &vector[1].kind else { panic!("vector") };
        assert_eq!(items.iter().map(int).collect::<Vec<_>>(), [Some(0x3f80_0000), Some(0)]);
        // Float instructions keep their literals.
        assert!(matches!(operands("add.f32 %r1, %r2, 0f3F800000;")[2].kind, ExprKind::Float(_)));
    }
}
