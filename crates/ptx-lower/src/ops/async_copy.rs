//! Asynchronous copies into shared memory (sm_80+): `cp.async` and its
//! groups, in NVIDIA's instructions (cp_async_pipeline and probes of every
//! size, cache operator, L2 hint and source size, sm_80 and sm_90 alike):
//!
//! | PTX | SASS |
//! |---|---|
//! | `cp.async.ca.shared.global [d], [s], 4/8/16` | `LDGSTS.E[.64/.128] [d], desc[UR][s.64]` |
//! | `cp.async.cg.shared.global [d], [s], 16` | `LDGSTS.E.BYPASS.128` |
//! | `.L2::64B` / `.L2::128B` / `.L2::256B` | `.LTC64B` / `.LTC128B` / `.LTC256B` after `.BYPASS` |
//! | `..., n, r` (source size in a register) | `z = (n - r) & (n - 1)` (`IADD3`, `LOP3`), `s + z` (`IADD3` + `IADD3.X`), `p = r != 0` (`ISETP.NE.U32`), `LDGSTS...ZFILL [d], [s + z], p` |
//! | `..., n, k` (a constant size) | `n`: plain; `0`: the plain form with `!PT`; else `.ZFILL` with `n - k` added to the source offset |
//! | `..., n, p` (`ignore-src`, a predicate) | the plain form with `!p` (false: zeros, nothing read) |
//! | `.L2::cache_hint ..., policy` | the 64-bit policy is the access's descriptor: `desc[UR]` with `ULDC.64 UR, c[0x0][off]` for a parameter, else `R2UR` of each word (NVIDIA's code, no uniformity loop; sm_80 marks the address, mercury-encode's policy.rs) |
//! | `cp.async.commit_group` | `LDGDEPBAR` |
//! | `cp.async.wait_group n` | `DEPBAR.LE SB0, n` |
//! | `cp.async.wait_all` | `LDGDEPBAR`, `DEPBAR.LE SB0, 0x0` |
//!
//! `.ZFILL`: the source address's low bits (below the size) count the
//! bytes at the end of the copy that are zeros rather than read, and a
//! false predicate makes all of them zeros without reading.

use ori_ir::{Address, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction};

use super::{mem, operand, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The range of LDGSTS's global address offset (12 bits, signed); ptxas
/// adds a larger offset to the address first.
const GLOBAL_OFFSETS: std::ops::RangeInclusive<i64> = -0x800..=0x7ff;
/// The range of its shared address offset (20 bits, signed).
const SHARED_OFFSETS: std::ops::RangeInclusive<i64> = -0x8_0000..=0x7_ffff;

/// `cp.async[.ca/.cg]`, `cp.async.commit_group`, `cp.async.wait_group`,
/// `cp.async.wait_all`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    // The opcode and its modifiers as one dotted spelling.
    let mut words: Vec<&str> = inst.opcode.name.as_str().split('.').collect();
    words.extend(inst.modifiers.iter().map(|m| m.name.as_str()));
    match words.as_slice() {
        ["cp", "async", "commit_group"] => cx.emit(Opcode::LDGDEPBAR, &[], vec![], vec![], inst.span),
        ["cp", "async", "wait_group"] => {
            let ExprKind::Int { value, .. } = operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
            let keep = i64::try_from(value).map_err(|_| unsupported(inst))?;
            wait(cx, keep, inst)
        }
        ["cp", "async", "wait_all"] => {
            cx.emit(Opcode::LDGDEPBAR, &[], vec![], vec![], inst.span)?;
            wait(cx, 0, inst)
        }
        ["cp", "async", cache @ ("ca" | "cg"), "shared" | "shared::cta", "global", hints @ ..] => {
            copy(cx, inst, *cache == "cg", hints)
        }
        _ => Err(unsupported(inst)),
    }
}

/// `DEPBAR.LE SB0, keep`.
fn wait(cx: &mut Lowerer<'_>, keep: i64, inst: &Instruction) -> Lowered {
    let uses = vec![OperandKind::Scoreboard(0).into(), Operand::int(keep)];
    cx.emit(Opcode::DEPBAR, &["LE"], vec![], uses, inst.span)
}

/// What a constant or register source size makes of the copy.
enum Fill {
    /// Every byte read.
    None,
    /// Nothing read: `!PT`.
    All,
    /// The last `n` bytes zeros (a constant size).
    Tail(i64),
    /// A size in a register.
    Reg(Operand),
    /// `ignore-src`: nothing read when the predicate holds.
    Ignore(Operand),
}

/// `cp.async.{ca,cg}.shared.global[.L2::NB] [d], [s], n[, size]`: `LDGSTS`.
///
/// NVIDIA's code puts three never-executed `@!PT LDS RZ, [RZ]` before
/// the first `LDGSTS` after a barrier; ours has none, and on an H100 and
/// an H200 (session 11) Triton's pipelined matmuls and the corpus's
/// cp.async kernels give NVIDIA's bits without them. What `LDGSTS` does
/// need is its fill predicate 13 cycles after the `ISETP` (the latency
/// table's `early_predicates`).
fn copy(cx: &mut Lowerer<'_>, inst: &Instruction, bypass: bool, hints: &[&str]) -> Lowered {
    let (cache_hint, hints) = match hints {
        ["L2::cache_hint", rest @ ..] => (true, rest),
        _ => (false, hints),
    };
    let ltc = match hints {
        [] => None,
        ["L2::64B"] => Some("LTC64B"),
        ["L2::128B"] => Some("LTC128B"),
        ["L2::256B"] => Some("LTC256B"),
        _ => return Err(unsupported(inst)),
    };
    let (bytes, width) = match operand(inst, 2)?.kind {
        ExprKind::Int { value: 4, .. } if !bypass => (4, None),
        ExprKind::Int { value: 8, .. } if !bypass => (8, Some("64")),
        ExprKind::Int { value: 16, .. } => (16, Some("128")),
        _ => return Err(unsupported(inst)),
    };
    // The cache policy is the last operand.
    let policy = if cache_hint { Some(mem::policy(cx, inst, inst.operands.len().saturating_sub(1))?) } else { None };
    let fill = match inst.operands.len() - usize::from(cache_hint) {
        3 => Fill::None,
        4 => match src(cx, inst, 3, ptx_syntax::ast::ScalarType::U32)? {
            s if s.as_reg().is_some_and(|r| r.file == RegFile::P) => Fill::Ignore(s),
            s if s.as_reg().is_some() => Fill::Reg(s),
            s => match s.kind {
                OperandKind::Imm(ori_ir::Imm::Int(k)) if k == bytes => Fill::None,
                OperandKind::Imm(ori_ir::Imm::Int(0)) => Fill::All,
                OperandKind::Imm(ori_ir::Imm::Int(k)) if (1..bytes).contains(&k) => Fill::Tail(bytes - k),
                _ => return Err(unsupported(inst)),
            },
        },
        _ => return Err(unsupported(inst)),
    };
    let dst = mem::shared_address(cx, inst, 0)?;
    let dst = in_range(cx, dst, &SHARED_OFFSETS, inst)?;
    let mut src_addr = mem::global_address(cx, inst, 1)?;
    let span = inst.span;
    let zfill = matches!(fill, Fill::Tail(_) | Fill::Reg(_));
    let mut pred = None;
    match fill {
        Fill::None => {}
        Fill::All => pred = Some(Operand::reg(Reg::PT).inverted()),
        Fill::Ignore(p) => pred = Some(p.inverted()),
        Fill::Tail(n) => {
            if let OperandKind::Mem(a) = &mut src_addr.kind {
                a.offset += n;
            }
        }
        Fill::Reg(size) => {
            let (zeros, reads) = zero_count(cx, size, bytes, inst)?;
            src_addr = add_to_base(cx, src_addr, zeros, inst)?;
            pred = Some(reads);
        }
    }
    let mut src_addr = in_range(cx, src_addr, &GLOBAL_OFFSETS, inst)?;
    if let (Some(policy), OperandKind::Mem(a)) = (policy, &mut src_addr.kind) {
        a.desc = Some(policy);
        a.policy = true;
    }
    let mut mods = vec!["E"];
    if bypass {
        mods.push("BYPASS");
    }
    mods.extend(ltc);
    mods.extend(width);
    if zfill {
        mods.push("ZFILL");
    }
    let mut uses = vec![dst, src_addr];
    uses.extend(pred);
    cx.emit(Opcode::LDGSTS, &mods, vec![], uses, span)
}

/// NVIDIA's zero count `(bytes - size) & (bytes - 1)` and the predicate
/// `size != 0` (`IADD3`, `LOP3.LUT`, `ISETP.NE.U32`).
fn zero_count(cx: &mut Lowerer<'_>, size: Operand, bytes: i64, inst: &Instruction) -> Lowered<(Reg, Operand)> {
    let span = inst.span;
    let rz = || Operand::reg(Reg::RZ);
    let diff = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::IADD3, &[], vec![diff.into()], vec![size.clone().negated(), Operand::int(bytes), rz()], span)?;
    let zeros = cx.temp(RegFile::R, 1);
    let uses = vec![diff.into(), Operand::int(bytes - 1), rz(), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![zeros.into()], uses, span)?;
    let reads = cx.temp(RegFile::P, 1);
    let uses = vec![size, rz(), Operand::reg(Reg::PT)];
    cx.emit(Opcode::ISETP, &["NE", "U32", "AND"], vec![reads.into(), Operand::reg(Reg::PT)], uses, span)?;
    Ok((zeros, reads.into()))
}

/// `addr` with `k` added to its 64-bit base (`IADD3` with a carry out,
/// `IADD3.X`).
fn add_to_base(cx: &mut Lowerer<'_>, addr: Operand, k: Reg, inst: &Instruction) -> Lowered<Operand> {
    let OperandKind::Mem(a) = addr.kind else { return Err(unsupported(inst)) };
    let Some(base) = a.base.filter(|b| b.width == 2) else { return Err(unsupported(inst)) };
    let span = inst.span;
    let sum = cx.temp(RegFile::R, 2);
    let carry = cx.temp(RegFile::P, 1);
    let uses = vec![Operand::reg(base.part(0, 1)), k.into(), Operand::reg(Reg::RZ)];
    cx.emit(Opcode::IADD3, &[], vec![Operand::reg(sum.part(0, 1)).undef(), carry.into()], uses, span)?;
    let uses = vec![
        Operand::reg(Reg::RZ),
        Operand::reg(base.part(1, 1)),
        Operand::reg(Reg::RZ),
        carry.into(),
        Operand::reg(Reg::PT).inverted(),
    ];
    cx.emit(Opcode::IADD3, &["X"], vec![Operand::reg(sum.part(1, 1))], uses, span)?;
    Ok(OperandKind::Mem(Address { base: Some(sum), ..a }).into())
}

/// `addr` with an offset outside `range` added to its base first (a
/// 32-bit shared base, or a 64-bit global one).
fn in_range(
    cx: &mut Lowerer<'_>,
    addr: Operand,
    range: &std::ops::RangeInclusive<i64>,
    inst: &Instruction,
) -> Lowered<Operand> {
    let OperandKind::Mem(a) = addr.kind else { return Err(unsupported(inst)) };
    let Some(base) = a.base.filter(|_| !range.contains(&a.offset)) else { return Ok(addr) };
    let span = inst.span;
    if base.width == 1 {
        let t = cx.temp(RegFile::R, 1);
        let uses = vec![base.into(), Operand::int(a.offset), Operand::reg(Reg::RZ)];
        cx.emit(Opcode::IADD3, &[], vec![t.into()], uses, span)?;
        return Ok(OperandKind::Mem(Address { base: Some(t), offset: 0, ..a }).into());
    }
    // `add_to_base` adds a zero-extended word: a negative offset would
    // need a borrow from the high word.
    if a.offset < 0 || a.offset > i64::from(u32::MAX) {
        return Err(unsupported(inst));
    }
    let k = cx.temp(RegFile::R, 1);
    cx.imad_mov(k.into(), Operand::int(a.offset), span)?;
    add_to_base(cx, OperandKind::Mem(Address { offset: 0, ..a }).into(), k, inst)
}
