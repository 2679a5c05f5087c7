//! Per-thread values into uniform registers for the instructions that read
//! only uniform operands (`SYNCS.EXCH.64`, `UBLKCP`): NVIDIA's loop over
//! the warp's threads, one elected lane per turn (its code for
//! `cp.async.bulk` with addresses that differ between threads, sm_90):
//!
//! ```text
//!       left = PLOP3.LUT PT, PT, PT, 0x80, 0x0        (every lane still to go)
//! loop: @left one, URZ = ELECT PT                     (the lowest of them)
//!       @one UR = R2UR R ...                          (that lane's values)
//!       @one left = PLOP3.LUT one, PT, PT, 0x8, 0x0   (it is done)
//!       one = PLOP3.LUT PT, PT, PT, 0x8, 0x0          (no lane elected)
//!       ... the uniform instruction ...
//!       @left BRA.U.ANY loop                          (the warp turns together)
//! ```
//!
//! The instruction runs once per thread that reached it, as the PTX one
//! does; `one` is cleared each turn because lanes that are done skip the
//! `ELECT` and would keep their old value.

use ori_ir::{Guard, Opcode, Operand, Reg, RegFile};
use ptx_syntax::Span;

use crate::error::{Lowered, at};
use crate::func::Lowerer;

/// `PLOP3.LUT d, PT, a, PT, PT, lut, 0x0`.
fn plop3(cx: &mut Lowerer<'_>, d: Reg, a: Reg, lut: i64, span: Span) -> Lowered {
    let pt = Operand::reg(Reg::PT);
    let uses = vec![Operand::reg(a), pt.clone(), pt.clone(), Operand::int(lut), Operand::int(0)];
    cx.emit(Opcode::PLOP3, &["LUT"], vec![d.into(), pt], uses, span)
}

/// Emits the loop around `body`: each turn moves the elected lane's
/// `(uniform, general)` registers of `moves` (one word each) with `R2UR`
/// first. A guarded PTX instruction is refused (the loop would need a
/// branch around it).
pub(super) fn per_lane(
    cx: &mut Lowerer<'_>,
    moves: &[(Reg, Reg)],
    span: Span,
    body: impl FnOnce(&mut Lowerer<'_>) -> Lowered,
) -> Lowered {
    if cx.guard.is_some() {
        return Err(at(span, "lowering of a guarded instruction that needs uniform operands is not supported yet"));
    }
    let left = cx.temp(RegFile::P, 1);
    let one = cx.temp(RegFile::P, 1);
    plop3(cx, left, Reg::PT, 0x80, span)?;
    let head = cx.func.add_block();
    cx.func.layout.pop();
    cx.place_block(head);
    cx.guard = Some(Guard { pred: left, negated: false });
    let elect = cx.emit(Opcode::ELECT, &[], vec![one.into(), Reg::URZ.into()], vec![Reg::PT.into()], span);
    cx.guard = Some(Guard { pred: one, negated: false });
    let moved = elect.and_then(|()| {
        for &(u, r) in moves {
            cx.emit(Opcode::R2UR, &[], vec![u.into()], vec![r.into()], span)?;
        }
        plop3(cx, left, one, 0x8, span)
    });
    cx.guard = None;
    moved?;
    plop3(cx, one, Reg::PT, 0x8, span)?;
    body(cx)?;
    cx.guard = Some(Guard { pred: left, negated: false });
    let branch = cx.emit(Opcode::BRA, &["U", "ANY"], vec![], vec![Operand::label(head)], span);
    cx.guard = None;
    branch?;
    let after = cx.func.add_block();
    cx.func.layout.pop();
    cx.place_block(after);
    Ok(())
}

/// The `(uniform, general)` word pairs that move the general registers
/// `r` (one or two words) into the uniform register `u` of the same width.
pub(super) fn words(u: Reg, r: Reg) -> Vec<(Reg, Reg)> {
    if r.width == 1 {
        return vec![(u, r)];
    }
    (0..r.width).map(|k| (u.part(k, 1), r.part(k, 1))).collect()
}
