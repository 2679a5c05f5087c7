//! Which instructions compute a function of their operands alone, for the
//! phases that share or move computations.

use ori_ir::{Inst, Opcode, OperandKind, SpecialReg};

/// Instructions whose results depend on their operands alone: the
/// arithmetic, logic, comparison and conversion opcodes, MUFU, constant
/// bank reads (parameters and `.const` data do not change while a kernel
/// runs) and the special registers that are fixed for a thread.
pub(crate) fn is_pure(inst: &Inst) -> bool {
    use Opcode::*;
    match inst.op {
        IMAD | IADD3 | VIADD | IABS | IMNMX | VIMNMX | VIADDMNMX | VABSDIFF | LOP3 | SHF | LEA | PRMT | SEL | ISETP
        | POPC | FLO | BREV | BMSK | SGXT | MOV | PLOP3 | FADD | FMUL | FFMA | FMNMX | FSEL | FSETP | FCHK | FRND
        | MUFU | DADD | DMUL | DFMA | DSETP | HADD2 | HMUL2 | HFMA2 | HMNMX2 | HSETP2 | F2F | F2I | I2F | I2FP
        | F2FP | UMOV | UIADD3 | UIMAD | ULEA | USHF | ULOP3 | USEL | UISETP | UPLOP3 | UFLO | UPOPC | UBREV
        | UPRMT | R2UR | LDC | ULDC | LDCU => true,
        S2R | S2UR => inst.uses.iter().all(|u| matches!(&u.kind, OperandKind::Special(sr) if fixed_for_thread(*sr))),
        _ => false,
    }
}

/// Special registers whose value a thread sees unchanged while it runs.
fn fixed_for_thread(sr: SpecialReg) -> bool {
    use SpecialReg::*;
    matches!(sr, TidX | TidY | TidZ | CtaidX | CtaidY | CtaidZ | LaneId)
}
