//! Warp-synchronous data exchange: `shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync`, `activemask`, `elect.sync`.

use ori_ir::{Opcode, Operand, Reg};
use ptx_syntax::ast::{BinaryOp, Expr, ExprKind, Instruction, ScalarType, UnaryOp};

use super::{dst, operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// `shfl.sync.MODE.b32 d[|p], a, b, c, membermask`: `SHFL.MODE p, d, a, b,
/// c` with `PT` for an absent `p`. The full member mask is lowered
/// anywhere (NVIDIA emits no `WARPSYNC` for it); another constant mask only
/// where the warp is known to be converged, where NVIDIA's code has no
/// `WARPSYNC` either (`__shfl_xor_sync(0xff, x, 1, 8)`: `SHFL.BFLY PT, d,
/// a, 0x1, 0x181f`). Lane and clamp operands that hold constants become
/// immediates, as in NVIDIA's code.
pub(super) fn shfl(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let mode = match words.as_slice() {
        ["sync", mode, "b32"] => match *mode {
            "up" => "UP",
            "down" => "DOWN",
            "bfly" => "BFLY",
            "idx" => "IDX",
            _ => return Err(unsupported(inst)),
        },
        _ => return Err(unsupported(inst)),
    };
    match constant(cx, inst, 4)? {
        Some(-1) => {}
        Some(_) if cx.is_converged() => {}
        _ => return Err(unsupported(inst)),
    }
    let (d, p) = match &operand(inst, 0)?.kind {
        ExprKind::Name(d, None) => (d, None),
        ExprKind::Binary(BinaryOp::Or, d, p) => match (&d.kind, &p.kind) {
            (ExprKind::Name(d, None), ExprKind::Name(p, None)) => (d, Some(p)),
            (ExprKind::Name(d, None), ExprKind::Sink) => (d, None),
            _ => return Err(unsupported(inst)),
        },
        _ => return Err(unsupported(inst)),
    };
    let d = cx.reg(d.name.as_str(), d.span)?;
    // An unread lane predicate is not written (PT), as in NVIDIA's code.
    let p = match p.filter(|p| !cx.unread(p.name.as_str())) {
        Some(p) => cx.reg(p.name.as_str(), p.span)?,
        None => Reg::PT,
    };
    let a = src(cx, inst, 1, ScalarType::B32)?;
    let b = lane_operand(cx, inst, 2)?;
    let mut c = lane_operand(cx, inst, 3)?;
    cx.reconverge(inst.span)?;
    // `SHFL.UP` takes no second immediate: a zero clamp is `RZ`, another
    // constant goes to a register (the encoder's `{X}, {R}` form).
    if mode == "UP" && b.as_reg().is_none() && c.as_reg().is_none() {
        c = if matches!(c.kind, ori_ir::OperandKind::Imm(ori_ir::Imm::Int(0))) {
            Operand::reg(Reg::RZ)
        } else {
            let t = cx.temp(ori_ir::RegFile::R, 1);
            cx.imad_mov(t.into(), c, inst.span)?;
            Operand::reg(t)
        };
    }
    // Every lane holds the same constant: SHFL takes its value from a
    // register (not by a plain MOV, which copy propagation folds back).
    let a = if a.as_reg().is_none() {
        let t = cx.temp(ori_ir::RegFile::R, 1);
        cx.imad_mov(t.into(), a, inst.span)?;
        Operand::reg(t)
    } else {
        a
    };
    cx.emit(Opcode::SHFL, &[mode], vec![p.into(), d.into()], vec![a, b, c], inst.span)
}

/// `redux.sync.OP.T d, a, membermask`: `REDUX.OP u, a` into a uniform
/// register, then `MOV d, u` (NVIDIA's sequence, the same for every mask:
/// the threads of the mask are those that run it). The encoder knows
/// `.SUM[.S32]`, `.MIN[.S32]`, `.MAX[.S32]`, `.OR`, `.XOR` and the plain
/// (and) form. The f32 forms (sm_100a) are Blackwell's `CREDUX`:
/// `redux.sync.min.abs.NaN.f32` is `CREDUX.MINABS.F32.NAN`.
pub(super) fn redux(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let (op, mods): (Opcode, &[&str]) = match words.as_slice() {
        ["sync", "min", "f32"] => (Opcode::CREDUX, &["MIN", "F32"]),
        ["sync", "max", "f32"] => (Opcode::CREDUX, &["MAX", "F32"]),
        ["sync", "min", "abs", "f32"] => (Opcode::CREDUX, &["MINABS", "F32"]),
        ["sync", "max", "abs", "f32"] => (Opcode::CREDUX, &["MAXABS", "F32"]),
        ["sync", "min", "NaN", "f32"] => (Opcode::CREDUX, &["MIN", "F32", "NAN"]),
        ["sync", "max", "NaN", "f32"] => (Opcode::CREDUX, &["MAX", "F32", "NAN"]),
        ["sync", "min", "abs", "NaN", "f32"] => (Opcode::CREDUX, &["MINABS", "F32", "NAN"]),
        ["sync", "max", "abs", "NaN", "f32"] => (Opcode::CREDUX, &["MAXABS", "F32", "NAN"]),
        _ => (Opcode::REDUX, integer_redux(&words).ok_or_else(|| unsupported(inst))?),
    };
    mask(cx, inst, 2)?;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ScalarType::B32)?;
    if a.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    cx.reconverge(inst.span)?;
    let u = cx.temp(ori_ir::RegFile::UR, 1);
    cx.emit(op, mods, vec![u.into()], vec![a], inst.span)?;
    cx.emit(Opcode::MOV, &[], vec![d.into()], vec![u.into()], inst.span)
}

/// The `REDUX` modifiers of an integer `redux.sync` with modifiers `words`.
fn integer_redux(words: &[&str]) -> Option<&'static [&'static str]> {
    Some(match words {
        ["sync", "add", "u32"] => &["SUM"],
        ["sync", "add", "s32"] => &["SUM", "S32"],
        ["sync", "min", "s32"] => &["MIN", "S32"],
        ["sync", "max", "s32"] => &["MAX", "S32"],
        ["sync", "min", "u32"] => &["MIN"],
        ["sync", "max", "u32"] => &["MAX"],
        ["sync", "or", "b32"] => &["OR"],
        ["sync", "xor", "b32"] => &["XOR"],
        ["sync", "and", "b32"] => &[],
        _ => return None,
    })
}

/// `vote.sync.MODE d, p, membermask` (any mask: NVIDIA's code is the same):
/// `ballot.b32` is `d, PT = VOTE.ANY p` (the ballot in a register, the
/// predicate result discarded), `any.pred`/`all.pred`/`uni.pred` are
/// `d = VOTE.ANY p` / `VOTE.ALL p` / `VOTE.EQ p` (NVIDIA's forms; a
/// negated source stays negated; sm_75: `all` is `t, PT = VOTE.ANY !p`,
/// `d = ISETP.EQ.U32 t, RZ`).
pub(super) fn vote(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let (mode, ballot) = match words.as_slice() {
        ["sync", "ballot", "b32"] => ("ANY", true),
        ["sync", "any", "pred"] => ("ANY", false),
        ["sync", "all", "pred"] => ("ALL", false),
        ["sync", "uni", "pred"] => ("EQ", false),
        _ => return Err(unsupported(inst)),
    };
    mask(cx, inst, 2)?;
    let d = dst(cx, inst, 0)?;
    let mut p = src(cx, inst, 1, ScalarType::Pred)?;
    if p.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    if mode == "ALL" && !cx.target.isa.vote_all {
        // Turing's code has no `VOTE.ALL`: NVIDIA takes the ballot of the
        // negated predicate and compares it with zero.
        cx.reconverge(inst.span)?;
        let ballot = cx.temp(ori_ir::RegFile::R, 1);
        let mut negated = p.clone();
        negated.flags.not = !negated.flags.not;
        let pt = || Operand::reg(Reg::PT);
        cx.emit(Opcode::VOTE, &["ANY"], vec![ballot.into(), pt()], vec![negated], inst.span)?;
        let uses = vec![Operand::reg(ballot), Operand::reg(Reg::RZ), pt()];
        return cx.emit(Opcode::ISETP, &["EQ", "U32", "AND"], vec![d.into(), pt()], uses, inst.span);
    }
    if p.flags.not && !(mode == "ANY" && !ballot) {
        // No VOTE form reads a negated predicate here: `PLOP3.LUT t, PT,
        // p, PT, PT, 0xf` (the complement of input a) first.
        let t = cx.temp(ori_ir::RegFile::P, 1);
        let pt = Operand::reg(Reg::PT);
        let mut plain = p.clone();
        plain.flags.not = false;
        let uses = vec![plain, pt.clone(), pt.clone(), Operand::int(0x0f), Operand::int(0)];
        cx.emit(Opcode::PLOP3, &["LUT"], vec![t.into(), pt], uses, inst.span)?;
        p = Operand::reg(t);
    }
    cx.reconverge(inst.span)?;
    // The encoder knows `VOTE.ANY R, P, P`, `VOTE.ANY P, !P` and
    // `VOTE.ALL P, P` (NVIDIA's forms): a plain `any` is the first with
    // `RZ` (the same instruction: nvdisasm omits a discarded `RZ`).
    let defs = match (ballot, mode, p.flags.not) {
        (true, ..) => vec![d.into(), Operand::reg(Reg::PT)],
        (false, "ANY", false) => vec![Operand::reg(Reg::RZ), d.into()],
        _ => vec![d.into()],
    };
    cx.emit(Opcode::VOTE, &[mode], defs, vec![p], inst.span)
}

/// Operand `i`, a member mask: a constant or a register (which NVIDIA's
/// `VOTE` and `REDUX` do not read).
fn mask(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered {
    if constant(cx, inst, i)?.is_none() && src(cx, inst, i, ScalarType::B32)?.as_reg().is_none() {
        return Err(unsupported(inst));
    }
    Ok(())
}

/// `activemask.b32 d`: `d, PT = VOTE.ANY PT`, the ballot of an always-true
/// predicate over the threads that run it. No reconvergence first: the
/// mask of the threads that are together here is the point.
pub(super) fn activemask(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let pt = Operand::reg(Reg::PT);
    cx.emit(Opcode::VOTE, &["ANY"], vec![d.into(), pt.clone()], vec![pt], inst.span)
}

/// `elect.sync d|p, membermask`: `p, u = ELECT PT` then `d = MOV u`, the
/// lowest active lane elected and its number in a uniform register
/// (NVIDIA's code, sm_90). As for `vote`, the threads of the mask are
/// those together here; `_` for either result writes `PT` or `URZ`.
pub(super) fn elect(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    mask(cx, inst, 1)?;
    let ExprKind::Binary(BinaryOp::Or, d, p) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    let (d, p) = (sinkable(inst, d)?, sinkable(inst, p)?);
    let d = d.map(|d| cx.reg(d.name.as_str(), d.span)).transpose()?;
    let p = match p {
        Some(p) => cx.reg(p.name.as_str(), p.span)?,
        None => Reg::PT,
    };
    let lane = if d.is_some() { cx.temp(ori_ir::RegFile::UR, 1) } else { Reg::URZ };
    cx.reconverge(inst.span)?;
    let pt = Operand::reg(Reg::PT);
    cx.emit(Opcode::ELECT, &[], vec![p.into(), lane.into()], vec![pt], inst.span)?;
    match d {
        Some(d) => cx.emit(Opcode::MOV, &[], vec![d.into()], vec![lane.into()], inst.span),
        None => Ok(()),
    }
}

/// A result register of `inst`, `None` for the sink `_`.
fn sinkable<'a>(inst: &Instruction, e: &'a Expr) -> Lowered<Option<&'a ptx_syntax::ast::Ident>> {
    match &e.kind {
        ExprKind::Name(n, None) => Ok(Some(n)),
        ExprKind::Sink => Ok(None),
        _ => Err(unsupported(inst)),
    }
}

/// `match.any.sync.b32 d, a, membermask`: `d = MATCH.ANY a`;
/// `match.all.sync.b32 d[|p], a, membermask`: `p, d = MATCH.ALL a` with
/// `PT` for an absent or unread `p` and `RZ` for an unread `d` (NVIDIA's
/// `MATCH.ALL P3, RZ, R9`).
///
/// Another member mask (constant or register) synchronises its threads
/// with `WARPSYNC mask` instead of reconverging the whole warp (the other
/// threads may be on another path: NVIDIA's code has the same `WARPSYNC`
/// before a partial-mask `REDUX`). Threads outside the mask may then run
/// the same `MATCH` together with it (a register mask can differ between
/// threads), so the result keeps the mask's threads only: `d = MATCH.ANY a
/// & mask`, and `match.all` is `p = (MATCH.ANY a & mask) == mask`, `d = p ?
/// mask : 0`. NVIDIA instead branches on `BRA.DIV` to a
/// `WARPSYNC.COLLECTIVE` slow path; ours is shorter and gives the same
/// values.
pub(super) fn match_sync(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let (all, wide) = match words.as_slice() {
        ["any", "sync", "b32"] => (false, false),
        ["all", "sync", "b32"] => (true, false),
        ["any", "sync", "b64"] => (false, true),
        ["all", "sync", "b64"] => (true, true),
        _ => return Err(unsupported(inst)),
    };
    let mask = match constant(cx, inst, 2)? {
        Some(-1) => None,
        Some(m) => Some(Operand::int(i64::from(m as u32))),
        None => Some(src(cx, inst, 2, ScalarType::B32)?),
    };
    let (d, p) = match &operand(inst, 0)?.kind {
        ExprKind::Name(d, None) => (d, None),
        ExprKind::Binary(BinaryOp::Or, d, p) if all => match (&d.kind, &p.kind) {
            (ExprKind::Name(d, None), ExprKind::Name(p, None)) => (d, Some(p)),
            // `d|_`: no predicate.
            (ExprKind::Name(d, None), ExprKind::Sink) => (d, None),
            _ => return Err(unsupported(inst)),
        },
        _ => return Err(unsupported(inst)),
    };
    let d = match all && cx.unread(d.name.as_str()) {
        true => Reg::RZ,
        false => cx.reg(d.name.as_str(), d.span)?,
    };
    let p = match p.filter(|p| !cx.unread(p.name.as_str())) {
        Some(p) => cx.reg(p.name.as_str(), p.span)?,
        None => Reg::PT,
    };
    // A 64-bit value is compared whole: NVIDIA's `MATCH.ANY.U64 R, R4`
    // (the pair `R4:R5`).
    let a = src(cx, inst, 1, if wide { ScalarType::B64 } else { ScalarType::B32 })?;
    if a.as_reg().is_none_or(|r| r.width != if wide { 2 } else { 1 }) {
        return Err(unsupported(inst));
    }
    let mut mods = vec![if all { "ALL" } else { "ANY" }];
    if wide {
        mods.push("U64");
    }
    if let Some(mask) = mask {
        return match_masked(cx, inst, &mods, mask, a, d, p);
    }
    cx.reconverge(inst.span)?;
    if all {
        cx.emit(Opcode::MATCH, &mods, vec![p.into(), d.into()], vec![a], inst.span)
    } else {
        cx.emit(Opcode::MATCH, &mods, vec![d.into()], vec![a], inst.span)
    }
}

/// `match.sync` under a member mask other than the full warp (see
/// [`match_sync`]): `WARPSYNC mask`, `t = MATCH.ANY a`, `t &= mask`, and
/// for `all` the comparison with the mask.
fn match_masked(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    mods: &[&str],
    mask: Operand,
    a: Operand,
    d: Reg,
    p: Reg,
) -> Lowered {
    let span = inst.span;
    let all = mods[0] == "ALL";
    let rz = || Operand::reg(Reg::RZ);
    let pt = || Operand::reg(Reg::PT);
    // `WARPSYNC` takes a register on every target (sm_90 has no immediate
    // form), as NVIDIA's `WARPSYNC R7` after a constant load.
    let mask_reg = match mask.as_reg() {
        Some(_) => mask.clone(),
        None => {
            let t = cx.temp(ori_ir::RegFile::R, 1);
            cx.emit(Opcode::MOV, &[], vec![t.into()], vec![mask.clone()], span)?;
            Operand::reg(t)
        }
    };
    cx.emit(Opcode::WARPSYNC, &[], vec![], vec![mask_reg.clone()], span)?;
    let mut any_mods = vec!["ANY"];
    any_mods.extend(&mods[1..]);
    let same = if all || d == Reg::RZ { cx.temp(ori_ir::RegFile::R, 1) } else { d };
    let t = cx.temp(ori_ir::RegFile::R, 1);
    cx.emit(Opcode::MATCH, &any_mods, vec![t.into()], vec![a], span)?;
    let and = vec![Operand::reg(t), mask.clone(), rz(), Operand::int(0xc0), pt().inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![same.into()], and, span)?;
    if !all {
        return Ok(());
    }
    let q = if p == Reg::PT { cx.temp(ori_ir::RegFile::P, 1) } else { p };
    let cmp = vec![Operand::reg(same), mask_reg.clone(), pt()];
    cx.emit(Opcode::ISETP, &["EQ", "U32", "AND"], vec![q.into(), pt()], cmp, span)?;
    if d != Reg::RZ {
        cx.emit(Opcode::SEL, &[], vec![d.into()], vec![mask_reg, rz(), Operand::reg(q)], span)?;
    }
    Ok(())
}

/// Operand `i` as an immediate when it is or holds a constant; zero is
/// `RZ`, as NVIDIA writes it (`SHFL.UP PT, R9, R8, 0x1, RZ`,
/// `SHFL.IDX PT, R13, R8, RZ, 0x1f`).
fn lane_operand(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    // The lane reads bits 0-4 (`bval[4:0]`), the clamp bits 0-4 and the
    // segment mask bits 8-12 (PTX's definition): a constant keeps those.
    let used = if i == 2 { 0x1f } else { 0x1f1f };
    match constant(cx, inst, i)?.map(|v| v as u32 & used) {
        Some(0) => Ok(Operand::reg(Reg::RZ)),
        Some(v) => Ok(Operand::int(i64::from(v))),
        None => src(cx, inst, i, ScalarType::B32),
    }
}

/// The value of operand `i` when it is an immediate or a register that
/// holds a constant.
fn constant(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<i32>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(*value as u32 as i32),
        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
            ExprKind::Int { value, .. } => Some((value as u32 as i32).wrapping_neg()),
            _ => None,
        },
        ExprKind::Name(r, None) => cx.consts.get(r.name.as_str()).map(|v| *v as i32),
        _ => None,
    })
}
