//! Adds that NVIDIA's ptxas contracts with a product into one FMA
//! (`contract.rs` decides which): lowered as the `fma` of the product's
//! factors and the other addend, then the negation a `sub` needs is put on
//! the FMA's addend (`p - c`) or first factor (`c - p`).

use ori_ir::{Imm, Opcode, Operand, OperandKind};
use ptx_syntax::Name;
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{double, float, ty, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers `add`/`sub` `inst`, one operand of which is a contracted product.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let Some((k, mul)) = cx.contraction.product_of(inst).map(|(k, m)| (k, m.clone())) else {
        return Err(unsupported(inst));
    };
    let mut fma = inst.clone();
    fma.opcode.name = Name::from("fma");
    fma.operands =
        vec![inst.operands[0].clone(), mul.operands[1].clone(), mul.operands[2].clone(), inst.operands[3 - k].clone()];
    if ty(inst)? == ScalarType::F32x2 {
        // `p - c` negates the addend, `c - p` the first factor, in both halves.
        let negated = (inst.opcode.name.as_str() == "sub").then_some(if k == 1 { 2 } else { 0 });
        return float::packed(cx, &fma, negated);
    }
    let pool = cx.func.attrs.bank2.len();
    let op = match ty(inst)? {
        ScalarType::F64 => {
            double::lower(cx, &fma)?;
            Opcode::DFMA
        }
        _ => {
            float::lower(cx, &fma)?;
            Opcode::FFMA
        }
    };
    if inst.opcode.name.as_str() == "sub" {
        let emitted = cx.last_emitted_mut(op).ok_or_else(|| unsupported(inst))?;
        // `p - c` negates the addend, `c - p` the product: through an
        // immediate factor when there is one (`FFMA R, -R, imm, R` has no
        // encoding), else through the first factor, a register wherever
        // the lowering put one.
        let imm_factor = emitted.uses.get(1).is_some_and(|u| matches!(u.kind, OperandKind::Imm(_)));
        let slot = match (k, imm_factor) {
            (1, _) => 2,
            (_, true) => 1,
            _ => 0,
        };
        let operand = emitted.uses.get(slot).cloned().ok_or_else(|| unsupported(inst))?;
        // A constant of bank 2 is replaced by its negation's slot (SASS
        // reads no negated bank operand of DFMA).
        let negated = match cx.bank2_value(&operand) {
            Some(bits) => {
                // A slot this add made holds the negation instead.
                if cx.func.attrs.bank2.len() > pool && cx.func.attrs.bank2.last() == Some(&bits) {
                    cx.func.attrs.bank2.pop();
                }
                cx.bank2_constant(bits ^ 1 << 63).ok_or_else(|| unsupported(inst))?
            }
            None => {
                let mut x = operand;
                negate(&mut x);
                x
            }
        };
        let emitted = cx.last_emitted_mut(op).ok_or_else(|| unsupported(inst))?;
        emitted.uses[slot] = negated;
    }
    Ok(())
}

/// `-x`: the sign of an immediate flipped, else the operand's negation mark.
fn negate(x: &mut Operand) {
    match &mut x.kind {
        OperandKind::Imm(Imm::F32(bits)) => *bits ^= 0x8000_0000,
        OperandKind::Imm(Imm::F64(bits)) => *bits ^= 1 << 63,
        _ => x.flags.neg = !x.flags.neg,
    }
}
