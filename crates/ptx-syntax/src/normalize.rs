//! Rewrites a validated module into the one spelling of each operand that
//! lowering expects, so that it never sees the sugar PTX allows:
//!
//! * a one-element vector without a `.vN` width (`ld.global.b32 { %r1 }, [a]`,
//!   Triton's spelling) is the scalar `%r1`;
//! * a `0f`/`0d` float literal in an instruction whose types are all bit
//!   types (`mov.b32 %r1, 0f3F800000`) is the integer with the same bits;
//! * a vector register `.reg .v4 .u32 %v` is four scalar registers named
//!   `%v.x` .. `%v.w` (a name no PTX register can have); `%v.g` is `%v.y`,
//!   a whole `%v` is `{%v.x, %v.y, %v.z, %v.w}`, and `mov.v4` is a block
//!   of four scalar moves;
//! * a label repeated in separate `{ }` blocks of a function is renamed
//!   apart, with the branches to it (`labels.rs`).
//!
//! The printer is not meant for the result: it is the module as lowering
//! reads it, not as it was written.

use crate::ast::*;

mod labels;

/// Normalizes every instruction of `module` in place (see the module docs).
/// Run it only on a module that [`validate`](crate::validate) accepted.
pub fn normalize(module: &mut Module) {
    for item in &mut module.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = f.body.as_mut() else { continue };
        labels::unique_labels(body);
        let vectors = vector_registers(body);
        // A worklist rather than recursion: blocks may nest thousands deep.
        let mut blocks: Vec<&mut Block> = vec![body];
        while let Some(block) = blocks.pop() {
            for statement in &mut block.statements {
                match statement {
                    Statement::Instruction(inst) => {
                        if !vectors.is_empty() {
                            inst.operands.iter_mut().for_each(|o| vector_elements(o, &vectors));
                            if let Some(moves) = split_vector_move(inst, &vectors) {
                                *statement = Statement::Block(moves);
                                continue;
                            }
                        }
                        instruction(inst);
                    }
                    Statement::Decl(decl) if decl.space == StateSpace::Reg && decl.vector().is_some() => {
                        scalar_registers(decl);
                    }
                    Statement::Block(inner) => blocks.push(inner),
                    _ => {}
                }
            }
        }
    }
}

/// The elements' names of vector register `name` with `n` elements.
fn element_names(name: &str, n: u32) -> impl Iterator<Item = Name> + '_ {
    ["x", "y", "z", "w"].into_iter().take(n as usize).map(move |c| Name::new(&format!("{name}.{c}")))
}

/// The vector registers a function body declares, with their element count
/// (by name; PTX code generators do not shadow them).
fn vector_registers(body: &Block) -> crate::hash::FxHashMap<String, u32> {
    let mut vectors = crate::hash::FxHashMap::default();
    let mut blocks = vec![body];
    while let Some(block) = blocks.pop() {
        for statement in &block.statements {
            match statement {
                Statement::Decl(decl) if decl.space == StateSpace::Reg => {
                    let Some(n) = decl.vector() else { continue };
                    for d in &decl.names {
                        match d.range {
                            Some(count) => {
                                vectors.extend((0..count).map(|i| (format!("{}{i}", d.name.name), n)));
                            }
                            None => _ = vectors.insert(d.name.name.to_string(), n),
                        }
                    }
                }
                Statement::Block(inner) => blocks.push(inner),
                _ => {}
            }
        }
    }
    vectors
}

/// `.reg .v4 .u32 %v;` declares `%v.x` .. `%v.w` instead.
fn scalar_registers(decl: &mut VarDecl) {
    let Some(n) = decl.vector() else { return };
    decl.attrs.retain(|a| !matches!(a, DeclAttr::Vector(_)));
    let names = std::mem::take(&mut decl.names);
    for d in names {
        let vectors: Vec<String> = match d.range {
            Some(count) => (0..count).map(|i| format!("{}{i}", d.name.name)).collect(),
            None => vec![d.name.name.to_string()],
        };
        for vector in &vectors {
            for name in element_names(vector, n) {
                let name = Ident { name, span: d.name.span };
                decl.names.push(Declarator { name, range: None, dims: Vec::new(), init: None });
            }
        }
    }
}

/// Names the elements of vector registers in `operand` by their scalar
/// registers: `%v.g` is `%v.y`; a whole `%v` is `{%v.x, %v.y, ...}`.
fn vector_elements(operand: &mut Expr, vectors: &crate::hash::FxHashMap<String, u32>) {
    match &mut operand.kind {
        ExprKind::Name(ident, component) if vectors.contains_key(ident.name.as_str()) => {
            let (base, span) = (ident.name.to_string(), ident.span);
            let selector = component.as_deref().map(crate::validate::vector_selector);
            let mut names = element_names(&base, vectors[base.as_str()]);
            let element = |name: Name| Expr { kind: ExprKind::Name(Ident { name, span }, None), span };
            operand.kind = match selector {
                // Validation refused any other selector.
                Some(Some(i)) => names.nth(i as usize).map_or(ExprKind::Sink, |name| element(name).kind),
                _ => ExprKind::Braces(names.map(element).collect()),
            };
        }
        ExprKind::Braces(items) | ExprKind::Address(items) => {
            items.iter_mut().for_each(|item| vector_elements(item, vectors));
        }
        ExprKind::Binary(_, a, b) => {
            vector_elements(a, vectors);
            vector_elements(b, vectors);
        }
        ExprKind::Unary(_, inner) => vector_elements(inner, vectors),
        _ => {}
    }
}

/// `mov.vN.T a, b` (both `{..}` by now) as a block of N scalar moves.
fn split_vector_move(inst: &Instruction, vectors: &crate::hash::FxHashMap<String, u32>) -> Option<Block> {
    if inst.opcode.name != "mov" || vectors.is_empty() {
        return None;
    }
    let width = inst.modifiers.iter().position(|m| matches!(m.kind, ModifierKind::Vector(_)))?;
    let [Expr { kind: ExprKind::Braces(dst), .. }, Expr { kind: ExprKind::Braces(src), .. }] = inst.operands.as_slice()
    else {
        return None;
    };
    let mut modifiers = inst.modifiers.clone();
    modifiers.remove(width);
    let statements = dst
        .iter()
        .zip(src)
        .map(|(d, s)| {
            let mut scalar = Instruction {
                guard: inst.guard.clone(),
                opcode: inst.opcode.clone(),
                modifiers: modifiers.clone(),
                operands: vec![d.clone(), s.clone()],
                span: inst.span,
            };
            instruction(&mut scalar);
            Statement::Instruction(scalar)
        })
        .collect();
    Some(Block { statements, span: inst.span })
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
    fn vector_registers_become_scalar_registers() {
        let src = ".version 8.5\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .v2 .u32 %v, %w<2>;\n.reg .b64 %rd<3>;\n\
                   ld.global.v2.u32 %v, [%rd1];\n@%p mov.v2.u32 %w1, %v;\nadd.u32 %v.g, %v.x, 1;\nmov.b64 %rd2, %w0;\n}\n";
        let (mut module, diags) = parse(src, FileId(0));
        assert!(diags.is_empty(), "{diags:?}");
        normalize(&mut module);
        let printed = crate::print(&module).split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            ".reg .u32 %v.x, %v.y, %w0.x, %w0.y, %w1.x, %w1.y;",
            "ld.global.v2.u32 {%v.x, %v.y}, [%rd1];",
            "@%p mov.u32 %w1.x, %v.x;",
            "@%p mov.u32 %w1.y, %v.y;",
            "add.u32 %v.y, %v.x, 1;",
            "mov.b64 %rd2, {%w0.x, %w0.y};",
        ] {
            assert!(printed.contains(expected), "{expected} not in\n{printed}");
        }
    }

    #[test]
    fn labels_repeated_in_blocks_are_renamed_apart() {
        let src = ".version 8.5\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .pred %p;\n\
                   L: @%p bra L;\n{ L: @%p bra L; { @%p bra L; } }\n{ @%p bra L; { L: @%p bra.uni L; } M: @%p bra M; }\n}\n";
        let (mut module, diags) = parse(src, FileId(0));
        assert!(diags.is_empty(), "{diags:?}");
        normalize(&mut module);
        let printed = crate::print(&module).split_whitespace().collect::<Vec<_>>().join(" ");
        let body = &printed[printed.find(".pred %p;").unwrap()..];
        assert_eq!(
            body,
            ".pred %p; L: @%p bra L; { L#1: @%p bra L#1; { @%p bra L#1; } } \
             { @%p bra L; { L#2: @%p bra.uni L#2; } M: @%p bra M; } }"
        );
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
