//! Generic pointers to local memory (`cvta.local`, `cvta.to.local`), the
//! addresses calls pass to stack buffers.
//!
//! Generic local addresses are the thread's local address plus the base of
//! the local window, the 64-bit value the driver puts in `c[0x0][0x20]`
//! (NVIDIA's sequences, recursion and printf_kernel on sm_80/sm_90):
//! `IADD3 d.lo, P, s.lo, base.lo, RZ` + `IMAD.X d.hi, RZ, RZ, base.hi, P`
//! one way, `IADD3 d, s.lo, -base.lo, RZ` (the low word is the local
//! address) the other. sm_90 reads the bank through a uniform register.

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::{dst, operand, read_reg, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Offset in constant bank 0 of the generic address of local memory's
/// window (64 bits; measured in NVIDIA's code for `cvta.local`).
const LOCAL_WINDOW: i32 = 0x20;

/// `cvta.local.u64 d, s` and `cvta.to.local.u64 d, s`.
pub(super) fn cvta_local(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let span = inst.span;
    let ExprKind::Name(s, None) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let s = read_reg(cx, s.name.as_str(), s.span)?;
    let d = dst(cx, inst, 0)?;
    if d.width != 2 || s.width != 2 {
        return Err(unsupported(inst));
    }
    let rz = || Operand::reg(Reg::RZ);
    let lo = Operand::reg(s.part(0, 1));
    // `d` may be `s`: its low word is read by the first instruction, which
    // writes the first word of `d`; the high word of `s` is never read.
    let t = d;
    if inst.has("to") {
        let base = window_word(cx, 0, span)?;
        cx.emit(Opcode::IADD3, &[], vec![Operand::reg(t.part(0, 1)).undef()], vec![lo, base.negated(), rz()], span)?;
        cx.emit(Opcode::MOV, &[], vec![Operand::reg(t.part(1, 1))], vec![rz()], span)?;
    } else {
        let carry = cx.temp(RegFile::P, 1);
        let base = window_word(cx, 0, span)?;
        let defs = vec![Operand::reg(t.part(0, 1)).undef(), carry.into()];
        cx.emit(Opcode::IADD3, &[], defs, vec![lo, base, rz()], span)?;
        let base = window_word(cx, 1, span)?;
        cx.emit(Opcode::IMAD, &["X"], vec![Operand::reg(t.part(1, 1))], vec![rz(), rz(), base, carry.into()], span)?;
    }
    Ok(())
}

/// Word `word` of the local window's base, as an operand: `c[0x0][..]`
/// (sm_80), a uniform register loaded with `ULDC` (sm_90).
fn window_word(cx: &mut Lowerer<'_>, word: i32, span: ptx_syntax::Span) -> Lowered<Operand> {
    let bank = Operand::cbank(0, LOCAL_WINDOW + 4 * word);
    if cx.sm.version < 90 {
        return Ok(bank);
    }
    let u = cx.temp(RegFile::UR, 1);
    cx.emit(Opcode::ULDC, &[], vec![u.into()], vec![bank], span)?;
    Ok(u.into())
}
