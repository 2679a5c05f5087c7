//! FMA contraction, as NVIDIA's ptxas does by default (`--fmad=true`): a
//! `mul.f32`/`mul.f64` whose result only feeds `add`/`sub` instructions
//! is not computed; each of those becomes one fused multiply-add (`FFMA`,
//! `DFMA`), rounded once. The results differ from a separate multiply and
//! add in the last bits, so matching NVIDIA's outputs needs the same
//! choices. What ptxas 13.5 does, from its code for small kernels (every
//! rule below was seen in nvdisasm output):
//!
//! * only instructions without a rounding modifier contract (`mul.rn` and
//!   `add.rn` are PTX's way of forbidding it), and never `.sat` ones;
//! * `.ftz` must agree between the two;
//! * a product read by anything but contractible adds (a store, a second
//!   multiply) is computed once and not contracted anywhere; a product
//!   read only by such adds is contracted into each of them (the multiply
//!   is repeated inside every FMA);
//! * `x*y + c` and `c + x*y` are `FFMA x, y, c`; `x*y - c` is `FFMA x, y,
//!   -c`; `c - x*y` is `FFMA -x, y, c`; when both operands of an add are
//!   products, the first is contracted and the second computed.
//!
//! Contracting needs the product's operands to hold the same values at the
//! add, which is sure when each is an immediate or a register written once.

use std::collections::{HashMap, HashSet};

use ptx_syntax::ast::{Expr, ExprKind, Instruction, ModifierKind, ScalarType, Statement};

use crate::values::{Counts, writes_first_operand};

/// The contractions of one function body.
#[derive(Default)]
pub(crate) struct Contraction {
    /// Multiplies not emitted, by destination register.
    products: HashMap<String, Instruction>,
    /// Adds that become FMAs: their span's byte range, and the operand
    /// (1 or 2) that is a contracted product.
    sites: HashMap<(usize, usize), usize>,
}

impl Contraction {
    /// Finds the contractions of `statements`.
    pub fn of(statements: &[Statement], counts: &Counts) -> Contraction {
        let mut insts = Vec::new();
        collect(statements, &mut insts);
        let written_once = |name: &str| counts.defs.get(name) == Some(&1);
        // Candidate products: unguarded contractible multiplies into a
        // register written once, of registers written once or immediates.
        let mut products: HashMap<String, &Instruction> = HashMap::new();
        for &i in &insts {
            if i.opcode.name.as_str() != "mul" || i.guard.is_some() || contractible(i).is_none() {
                continue;
            }
            let Some(dst) = name(&i.operands[0]) else { continue };
            let stable = i.operands[1..].iter().all(|e| match &e.kind {
                ExprKind::Name(n, None) => written_once(n.name.as_str()),
                ExprKind::Int { .. } | ExprKind::Float(_) => true,
                _ => false,
            });
            if written_once(dst) && stable {
                products.insert(dst.to_string(), i);
            }
        }
        // Drop products read other than as the contracted operand of an
        // add, until nothing changes (dropping one can make an add
        // contract its other operand instead).
        loop {
            let mut sites = HashMap::new();
            let mut contracted: HashSet<&str> = HashSet::new();
            for &i in &insts {
                if let Some(k) = site(i, &products) {
                    sites.insert(range(i), k);
                    contracted.extend(name(&i.operands[k]));
                }
            }
            let mut other_reads: HashSet<String> = HashSet::new();
            for &i in &insts {
                let skip = sites.get(&range(i)).copied();
                let first_read = usize::from(writes_first_operand(i));
                for (k, e) in i.operands.iter().enumerate().skip(first_read) {
                    if Some(k) != skip {
                        e.for_each_name(&mut |n| {
                            other_reads.insert(n.name.as_str().to_string());
                        });
                    }
                }
                if let Some(g) = &i.guard {
                    other_reads.insert(g.pred.name.as_str().to_string());
                }
            }
            let before = products.len();
            products.retain(|p, _| contracted.contains(p.as_str()) && !other_reads.contains(p));
            if products.len() == before {
                return Contraction { products: products.into_iter().map(|(k, v)| (k, v.clone())).collect(), sites };
            }
        }
    }

    /// True for a multiply that is contracted into its readers.
    pub fn skips(&self, inst: &Instruction) -> bool {
        inst.opcode.name.as_str() == "mul"
            && name(&inst.operands[0]).is_some_and(|d| self.products.get(d).is_some_and(|p| range(p) == range(inst)))
    }

    /// For an add that becomes an FMA: which operand (1 or 2) is the
    /// product, and the multiply that computes it.
    pub fn product_of(&self, inst: &Instruction) -> Option<(usize, &Instruction)> {
        let k = *self.sites.get(&range(inst))?;
        let mul = self.products.get(name(&inst.operands[k])?)?;
        Some((k, mul))
    }
}

fn collect<'s>(statements: &'s [Statement], out: &mut Vec<&'s Instruction>) {
    for s in statements {
        match s {
            Statement::Instruction(i) => out.push(i),
            Statement::Block(b) => collect(&b.statements, out),
            _ => {}
        }
    }
}

fn range(i: &Instruction) -> (usize, usize) {
    let r = i.span.range();
    (r.start, r.end)
}

fn name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n, None) => Some(n.name.as_str()),
        _ => None,
    }
}

/// The type and `.ftz` of a float `add`/`sub`/`mul` that may contract: no
/// rounding modifier, no `.sat`, nothing else.
fn contractible(i: &Instruction) -> Option<(ScalarType, bool)> {
    let mut ty = None;
    let mut ftz = false;
    for m in &i.modifiers {
        match m.kind {
            ModifierKind::Type(t @ (ScalarType::F32 | ScalarType::F32x2 | ScalarType::F64)) => ty = Some(t),
            ModifierKind::Word if m.name == "ftz" => ftz = true,
            _ => return None,
        }
    }
    ty.filter(|_| i.operands.len() == 3).map(|t| (t, ftz))
}

/// The operand of add/sub `i` that a candidate product contracts into
/// (the first when both qualify).
fn site(i: &Instruction, products: &HashMap<String, &Instruction>) -> Option<usize> {
    if !matches!(i.opcode.name.as_str(), "add" | "sub") {
        return None;
    }
    let kind = contractible(i)?;
    let (a, b) = (name(&i.operands[1]), name(&i.operands[2]));
    // `x*x`-style self sums would need the product as a value too.
    if a.is_some() && a == b {
        return None;
    }
    [1, 2]
        .into_iter()
        .find(|&k| name(&i.operands[k]).and_then(|n| products.get(n)).is_some_and(|p| contractible(p) == Some(kind)))
}
