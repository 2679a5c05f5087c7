//! Register tuple widths that nvdisasm's text leaves implicit.
//!
//! `IMAD.WIDE R2, R4, R6, R8` writes R2:R3 and reads R8:R9, `LDG.E.64 R4`
//! loads into R4:R5, `DADD R2, R4, R6` works on pairs: Ori carries these
//! as `R2.64`. The printer does not show widths (nvdisasm does not), so
//! they only matter to the phases reading the decoded code. Conversions
//! (F2F, F2I, I2F) are not covered yet.

use ori_ir::{Inst, Opcode, Operand, OperandKind, RegFile};

/// Gives the register operands of a decoded instruction their widths.
pub fn apply(inst: &mut Inst) {
    let size = |inst: &Inst| {
        if inst.has_mod("128") {
            4
        } else if inst.has_mod("64") {
            2
        } else {
            1
        }
    };
    use Opcode::*;
    match inst.op {
        LDG | LDS | LDL | LD | LDC | ULDC => {
            let w = size(inst);
            widen(inst.defs.iter_mut().take(1), w);
        }
        STG | STS | STL | ST => {
            let w = size(inst);
            widen(inst.uses.iter_mut().skip(1), w);
        }
        ATOMG | ATOMS | ATOM | RED | REDG => {
            let w = size(inst);
            widen(inst.defs.iter_mut().filter(|d| !is_pred(d)), w);
            widen(inst.uses.iter_mut().skip(1), w);
        }
        IMAD | UIMAD if inst.has_mod("WIDE") => {
            widen(inst.defs.iter_mut().take(1), 2);
            widen(inst.uses.iter_mut().skip(2).take(1), 2);
        }
        DADD | DMUL | DFMA => {
            widen(inst.defs.iter_mut(), 2);
            widen(inst.uses.iter_mut(), 2);
        }
        DSETP => widen(inst.uses.iter_mut(), 2),
        CS2R if !inst.has_mod("32") => widen(inst.defs.iter_mut(), 2),
        _ => {}
    }
}

fn is_pred(op: &Operand) -> bool {
    op.as_reg().is_some_and(|r| r.file.is_predicate())
}

/// Widens the general or uniform registers among `ops` (not predicates,
/// immediates or memory operands).
fn widen<'a>(ops: impl Iterator<Item = &'a mut Operand>, width: u8) {
    for op in ops {
        if let OperandKind::Reg(r) = &mut op.kind
            && matches!(r.file, RegFile::R | RegFile::UR)
        {
            *r = r.wide(width);
        }
    }
}
