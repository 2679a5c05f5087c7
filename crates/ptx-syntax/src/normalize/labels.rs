//! Labels made unique within their function. PTX scopes a label to its
//! `{ }` block, where it shadows a label of the same name outside (Triton
//! repeats `waitLoop:` in the block of every inline mbarrier wait), while
//! lowering names the blocks of a function by label. So every definition
//! of a repeated label but the first is renamed `name#k` (a name no PTX
//! identifier can have), and so is every reference that resolves to it.

use crate::ast::*;
use crate::hash::FxHashMap;

/// Renames `body`'s repeated labels and the references to them apart.
pub(super) fn unique_labels(body: &mut Block) {
    let renames = renames(body);
    if renames.is_empty() {
        return;
    }
    let rename = |ident: &mut Ident| {
        if let Some(name) = renames.get(&ident.span.start) {
            ident.name = name.clone();
        }
    };
    let mut blocks: Vec<&mut Block> = vec![body];
    while let Some(block) = blocks.pop() {
        for statement in &mut block.statements {
            match statement {
                Statement::Label(label) => rename(label),
                Statement::Prototype(p) => rename(&mut p.label),
                Statement::Targets(t) => {
                    rename(&mut t.label);
                    t.targets.iter_mut().for_each(rename);
                }
                Statement::Instruction(inst) => {
                    for operand in &mut inst.operands {
                        if let ExprKind::Name(ident, None) = &mut operand.kind {
                            rename(ident);
                        }
                    }
                }
                Statement::Block(inner) => blocks.push(inner),
                Statement::Decl(_) | Statement::Pragma(_) | Statement::Directive(_) => {}
            }
        }
    }
}

/// The new names, by the first byte of the definition or reference they
/// replace; empty when no label repeats.
fn renames(body: &Block) -> FxHashMap<u32, Name> {
    let mut renames = FxHashMap::default();
    let mut definitions: FxHashMap<&str, u32> = FxHashMap::default();
    let mut blocks = vec![body];
    while let Some(block) = blocks.pop() {
        for statement in &block.statements {
            if let Some(label) = statement.label() {
                *definitions.entry(label.name.as_str()).or_default() += 1;
            }
            if let Statement::Block(inner) = statement {
                blocks.push(inner);
            }
        }
    }
    if definitions.values().all(|&n| n == 1) {
        return renames;
    }
    let mut seen = FxHashMap::default();
    // The blocks entered, innermost last: each one's statements, the next
    // one to visit and its labels' unique names. Blocks may nest thousands
    // deep, so no recursion.
    let mut stack = vec![(body.statements.as_slice(), 0, scope(body, &definitions, &mut seen, &mut renames))];
    while let Some(top) = stack.last_mut() {
        let (statements, next) = (top.0, top.1);
        top.1 += 1;
        let Some(statement) = statements.get(next) else {
            stack.pop();
            continue;
        };
        let resolve = |ident: &Ident, stack: &[(&[Statement], usize, FxHashMap<&str, Name>)]| {
            stack.iter().rev().find_map(|(_, _, names)| names.get(ident.name.as_str())).cloned()
        };
        let references: Vec<&Ident> = match statement {
            Statement::Block(inner) => {
                let names = scope(inner, &definitions, &mut seen, &mut renames);
                stack.push((inner.statements.as_slice(), 0, names));
                continue;
            }
            Statement::Instruction(inst) => label_operands(inst).collect(),
            Statement::Targets(t) => t.targets.iter().collect(),
            _ => continue,
        };
        for ident in references {
            if let Some(unique) = resolve(ident, &stack) {
                renames.insert(ident.span.start, unique);
            }
        }
    }
    renames.retain(|_, name| name.contains('#'));
    renames
}

/// The unique names of `block`'s own labels that repeat in the function
/// (`definitions` counts them), recorded in `renames`; `seen` counts the
/// definitions of each name met so far, in source order.
fn scope<'a>(
    block: &'a Block,
    definitions: &FxHashMap<&str, u32>,
    seen: &mut FxHashMap<&'a str, u32>,
    renames: &mut FxHashMap<u32, Name>,
) -> FxHashMap<&'a str, Name> {
    let mut names = FxHashMap::default();
    for label in block.statements.iter().filter_map(Statement::label) {
        let name = label.name.as_str();
        if definitions.get(name).is_none_or(|&n| n == 1) {
            continue;
        }
        let k = seen.entry(name).or_default();
        let unique = if *k == 0 { label.name.clone() } else { Name::new(&format!("{name}#{k}")) };
        *k += 1;
        renames.insert(label.span.start, unique.clone());
        names.insert(name, unique);
    }
    names
}

/// The operands of `inst` that name labels: a branch's target, `brx.idx`'s
/// target list, and the prototype or target list that ends an indirect
/// `call` (every name after the callee's).
fn label_operands(inst: &Instruction) -> impl Iterator<Item = &Ident> {
    let names = inst.operands.iter().enumerate().filter_map(|(i, o)| match &o.kind {
        ExprKind::Name(ident, None) => Some((i, ident)),
        _ => None,
    });
    let opcode = inst.opcode.name.as_str();
    let mut callee = None;
    names
        .filter(move |&(i, _)| match opcode {
            "bra" => i == 0,
            "brx" => i == 1,
            "call" => callee.replace(i).is_some(),
            _ => false,
        })
        .map(|(_, ident)| ident)
}
