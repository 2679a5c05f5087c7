//! `createpolicy`: the 64-bit L2 cache eviction policy that accesses with
//! `.L2::cache_hint` take as their memory descriptor. NVIDIA's code
//! (probes of every priority pair and of fractions, sm_80 and sm_90
//! alike) builds it in the high word, the low word zero:
//!
//! | bits | what |
//! |---|---|
//! | 28 | set (a policy) |
//! | 27 | a range policy |
//! | 25..26 | the primary priority: `evict_unchanged evict_first evict_last evict_normal` |
//! | 24 | the secondary priority is `evict_first` (else `evict_unchanged`) |
//! | 20..23 | the fraction in sixteenths, `trunc(f * 15.99)` in binary32; a range's `s - 12` |
//! | 12..18 | a range's first block `a >> s` (its low 7 bits) |
//! | 5..11 | a range's block count, `min(ceil((a + primary) / 2^s) - (a >> s), 127)` |
//!
//! A range's block size `2^s` is `s = max(ceil(lg2(total)) - 7, 12)`
//! (`I2F.U32`, `MUFU.LG2`, `F2I.U32.CEIL.NTZ` for a size in a register; a
//! constant one folded), and a total size of 0 gives `0x18000000` alone
//! (NVIDIA's code branches around the computation; ours selects).
//!
//! A fraction in a register is computed as NVIDIA's code does: `FMUL` by
//! 15.99, `F2I.U32.TRUNC.NTZ`, `SHF.L.U32` by 20, `LOP3.LUT` with
//! `0xf00000`, `LOP3.LUT` with the priority bits. `createpolicy.cvt.L2`
//! passes the CUDA access property through unchanged (a copy). A
//! constant policy is remembered (`Lowerer::consts`) so that the accesses
//! that take it write it straight into their descriptor (`UMOV`s).

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType};

use super::seq::Seq;
use super::{dst, mem, read_reg, src, unsupported};
use crate::error::Lowered;
use crate::func::Lowerer;

/// The policy bit every policy has set.
const POLICY: u32 = 1 << 28;
/// The bit of a range policy.
const RANGE: u32 = 1 << 27;
/// NVIDIA's scale from a fraction to sixteenths (truncated), which keeps
/// 1.0 at 15.
const SIXTEENTHS: f32 = 15.99;

/// `createpolicy.fractional.L2::P[.L2::S].b64 d[, f]` and
/// `createpolicy.cvt.L2.b64 d, a`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let d = dst(cx, inst, 0)?;
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let priorities = match words.as_slice() {
        ["cvt", "L2", "b64"] => {
            let a = src(cx, inst, 1, ScalarType::B64)?;
            return cx.copy_pair(d.into(), a, inst.span);
        }
        ["fractional", p, "b64"] => priority_bits(p, None),
        ["fractional", p, s, "b64"] => priority_bits(p, Some(s)),
        ["range", "global", p, "b64"] | ["range", p, "b64"] => return range(cx, inst, d, priority_bits(p, None)),
        ["range", "global", p, s, "b64"] | ["range", p, s, "b64"] => {
            return range(cx, inst, d, priority_bits(p, Some(s)));
        }
        _ => None,
    };
    let priorities = priorities.ok_or_else(|| unsupported(inst))?;
    let fraction = match inst.operands.get(1).map(|e| &e.kind) {
        None => Some(1.0),
        Some(ExprKind::Float(_)) => match src(cx, inst, 1, ScalarType::F32)?.kind {
            OperandKind::Imm(Imm::F32(bits)) => Some(f32::from_bits(bits)),
            _ => return Err(unsupported(inst)),
        },
        Some(_) => None,
    };
    let hi = d.part(1, 1);
    let lo = d.part(0, 1);
    match fraction {
        Some(f) => {
            // `as` saturates; PTX keeps the fraction in (0, 1].
            let sixteenths = ((f * SIXTEENTHS) as u32).min(15);
            let value = POLICY | priorities | sixteenths << 20;
            // Accesses that take it build it in their uniform descriptor
            // (`mem::policy`), as NVIDIA's `UMOV`s do.
            if let Some(ExprKind::Name(r, None)) = inst.operands.first().map(|e| &e.kind)
                && cx.guard.is_none()
                && cx.single_def(r.name.as_str())
            {
                cx.consts.insert(r.name.as_str().to_string(), i64::from(value) << 32);
            }
            cx.emit(Opcode::MOV, &[], vec![hi.into()], vec![Operand::int(i64::from(value))], inst.span)?;
        }
        None => {
            let f = src(cx, inst, 1, ScalarType::F32)?;
            let seq = Seq::start(cx, inst.span);
            let rz = || Operand::reg(Reg::RZ);
            let not_pt = || Operand::reg(Reg::PT).inverted();
            let scale = OperandKind::Imm(Imm::F32(SIXTEENTHS.to_bits())).into();
            let scaled = seq.value(cx, Opcode::FMUL, &[], vec![f, scale])?;
            let n = seq.value(cx, Opcode::F2I, &["U32", "TRUNC", "NTZ"], vec![scaled.into()])?;
            let shifted = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![n.into(), Operand::int(20), rz()])?;
            // NVIDIA's truth tables: `a & b` and `a | b` with `c = RZ`.
            let field = seq.value(
                cx,
                Opcode::LOP3,
                &["LUT"],
                vec![shifted.into(), Operand::int(0xf0_0000), rz(), Operand::int(0xe2), not_pt()],
            )?;
            seq.finish(cx);
            let uses =
                vec![field.into(), Operand::int(i64::from(POLICY | priorities)), rz(), Operand::int(0xfc), not_pt()];
            cx.emit(Opcode::LOP3, &["LUT"], vec![hi.into()], uses, inst.span)?;
        }
    }
    cx.emit(Opcode::MOV, &[], vec![lo.into()], vec![Operand::int(0)], inst.span)
}

/// `createpolicy.range[.global].L2::P[.L2::S].b64 d, [a], primary, total`
/// (`priorities`: `None` for a pair PTX does not have): NVIDIA's sm_80
/// sequence, the total-size test a `SEL` instead of its branch.
fn range(cx: &mut Lowerer<'_>, inst: &Instruction, d: Reg, priorities: Option<u32>) -> Lowered {
    let priorities = priorities.ok_or_else(|| unsupported(inst))?;
    let span = inst.span;
    let e = inst.operands.get(1).ok_or_else(|| unsupported(inst))?;
    let (base, offset) = mem::address(e).ok_or_else(|| unsupported(inst))?;
    let base = read_reg(cx, base.name.as_str(), base.span)?;
    if base.width != 2 {
        return Err(unsupported(inst));
    }
    let primary = src(cx, inst, 2, ScalarType::U32)?;
    let total = src(cx, inst, 3, ScalarType::U32)?;
    let (hi, lo) = (d.part(1, 1), d.part(0, 1));
    let empty = i64::from(POLICY | RANGE);
    if let OperandKind::Imm(Imm::Int(0)) = total.kind {
        cx.emit(Opcode::MOV, &[], vec![hi.into()], vec![Operand::int(empty)], span)?;
        return cx.emit(Opcode::MOV, &[], vec![lo.into()], vec![Operand::int(0)], span);
    }
    let seq = Seq::start(cx, span);
    let rz = || Operand::reg(Reg::RZ);
    let pt = || Operand::reg(Reg::PT);
    let not_pt = || Operand::reg(Reg::PT).inverted();
    let lop = |cx: &mut Lowerer<'_>, a: Operand, b: Operand, c: Operand, lut: i64| {
        seq.value(cx, Opcode::LOP3, &["LUT"], vec![a, b, c, Operand::int(lut), not_pt()])
    };
    // The block size's log, s = max(ceil(lg2(total)) - 7, 12).
    let shift: Operand = match total.kind {
        OperandKind::Imm(Imm::Int(t)) => {
            let log = ((t as u32) as f32).log2().ceil() as i64;
            Operand::int((log - 7).max(12))
        }
        _ => {
            let (op, mods): (Opcode, &[&str]) =
                if cx.target.isa.i2fp { (Opcode::I2FP, &["F32", "U32"]) } else { (Opcode::I2F, &["U32"]) };
            let f = seq.value(cx, op, mods, vec![total.clone()])?;
            let log = seq.value(cx, Opcode::MUFU, &["LG2"], vec![f.into()])?;
            let up = seq.value(cx, Opcode::F2I, &["U32", "CEIL", "NTZ"], vec![log.into()])?;
            let less = seq.value(cx, Opcode::IADD3, &[], vec![up.into(), Operand::int(-7), rz()])?;
            let opcode = cx.target.isa.int_minmax;
            seq.value(cx, opcode, &[], vec![less.into(), Operand::int(12), not_pt()])?.into()
        }
    };
    let (a_lo, a_hi): (Operand, Operand) = if offset == 0 {
        (base.part(0, 1).into(), base.part(1, 1).into())
    } else {
        let carry = cx.temp(ori_ir::RegFile::P, 1);
        let sum = cx.temp(ori_ir::RegFile::R, 1);
        let uses = vec![base.part(0, 1).into(), Operand::int(offset & 0xffff_ffff), rz()];
        seq.op(cx, Opcode::IADD3, &[], vec![sum.into(), carry.into()], uses)?;
        let high = seq.in_reg(cx, Operand::int(offset >> 32))?;
        let uses = vec![rz(), base.part(1, 1).into(), high, carry.into(), not_pt()];
        (sum.into(), seq.value(cx, Opcode::IADD3, &["X"], uses)?.into())
    };
    // First block and one past the last of [a, a + primary): `round` is
    // `2^s - 1 + primary` in 32 bits.
    let round: Operand = match (&shift.kind, &primary.kind) {
        (OperandKind::Imm(Imm::Int(s)), OperandKind::Imm(Imm::Int(p))) => {
            Operand::int(i64::from((1u32 << s).wrapping_sub(1).wrapping_add(*p as u32)))
        }
        _ => {
            let one = seq.in_reg(cx, Operand::int(1))?;
            let block = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![one, shift.clone(), rz()])?;
            let primary = seq.in_reg(cx, primary)?;
            seq.value(cx, Opcode::IADD3, &[], vec![block.into(), Operand::int(-1), primary])?.into()
        }
    };
    let start_lo = seq.value(cx, Opcode::SHF, &["R", "U64"], vec![a_lo.clone(), shift.clone(), a_hi.clone()])?;
    let start_hi = seq.value(cx, Opcode::SHF, &["R", "U32", "HI"], vec![rz(), shift.clone(), a_hi.clone()])?;
    let carry = cx.temp(ori_ir::RegFile::P, 1);
    let end_lo = cx.temp(ori_ir::RegFile::R, 1);
    seq.op(cx, Opcode::IADD3, &[], vec![end_lo.into(), carry.into()], vec![a_lo, round, rz()])?;
    let end_hi = seq.value(cx, Opcode::IADD3, &["X"], vec![rz(), a_hi, rz(), carry.into(), not_pt()])?;
    let last_lo = seq.value(cx, Opcode::SHF, &["R", "U64"], vec![end_lo.into(), shift.clone(), end_hi.into()])?;
    let last_hi = seq.value(cx, Opcode::SHF, &["R", "U32", "HI"], vec![rz(), shift.clone(), end_hi.into()])?;
    // The block count, at most 127.
    let borrow = cx.temp(ori_ir::RegFile::P, 1);
    let count_lo = cx.temp(ori_ir::RegFile::R, 1);
    let uses = vec![Operand::reg(start_lo).negated(), last_lo.into(), rz()];
    seq.op(cx, Opcode::IADD3, &[], vec![count_lo.into(), borrow.into()], uses)?;
    let mut not_start_hi = Operand::reg(start_hi);
    not_start_hi.flags.bitnot = true;
    let uses = vec![last_hi.into(), not_start_hi, rz(), borrow.into(), not_pt()];
    let count_hi = seq.value(cx, Opcode::IADD3, &["X"], uses)?;
    let small = seq.isetp(cx, &["LT", "U32", "AND"], count_lo.into(), Operand::int(0x7f))?;
    let uses = vec![count_hi.into(), rz(), pt(), small.into()];
    seq.op(cx, Opcode::ISETP, &["LT", "U32", "AND", "EX"], vec![small.into(), pt()], uses)?;
    let count = seq.value(cx, Opcode::SEL, &[], vec![count_lo.into(), Operand::int(0x7f), small.into()])?;
    // The fields, or-ed with the priorities.
    let first = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![start_lo.into(), Operand::int(12), rz()])?;
    let first = lop(cx, first.into(), Operand::int(0x7_f000), rz(), 0xe2)?;
    let size: Operand = match shift.kind {
        OperandKind::Imm(Imm::Int(s)) => Operand::int((s - 12) << 20 & 0xf0_0000),
        _ => {
            let size = seq.value(cx, Opcode::IADD3, &[], vec![shift, Operand::int(-12), rz()])?;
            let size = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![size.into(), Operand::int(20), rz()])?;
            lop(cx, size.into(), Operand::int(0xf0_0000), rz(), 0xe2)?.into()
        }
    };
    let count = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![count.into(), Operand::int(5), rz()])?;
    let count = lop(cx, count.into(), Operand::int(0xfe0), rz(), 0xe2)?;
    let size = seq.in_reg(cx, size)?;
    let fields = lop(cx, first.into(), Operand::int(i64::from(POLICY | RANGE | priorities)), size, 0xfe)?;
    let word = match total.kind {
        OperandKind::Imm(_) => lop(cx, fields.into(), count.into(), rz(), 0xfc)?,
        _ => {
            let word = lop(cx, fields.into(), count.into(), rz(), 0xfc)?;
            let some = seq.isetp(cx, &["NE", "U32", "AND"], total, rz())?;
            seq.value(cx, Opcode::SEL, &[], vec![word.into(), Operand::int(empty), some.into()])?
        }
    };
    seq.finish(cx);
    cx.emit(Opcode::MOV, &[], vec![hi.into()], vec![word.into()], span)?;
    cx.emit(Opcode::MOV, &[], vec![lo.into()], vec![Operand::int(0)], span)
}

/// Bits 24..26 of a policy for primary priority `p` and secondary `s`
/// (`None` when the pair is not PTX's).
fn priority_bits(p: &str, s: Option<&str>) -> Option<u32> {
    let primary = match p {
        "L2::evict_unchanged" => 0,
        "L2::evict_first" => 1,
        "L2::evict_last" => 2,
        "L2::evict_normal" => 3,
        _ => return None,
    };
    let secondary = match s {
        None | Some("L2::evict_unchanged") => 0,
        Some("L2::evict_first") => 1,
        Some(_) => return None,
    };
    Some(primary << 25 | secondary << 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVIDIA's constants (probes on sm_80 and sm_90 of each pair with a
    /// fraction of 1.0, and of fractions with `evict_first`).
    #[test]
    fn priorities_and_fractions_give_nvidias_words() {
        let word = |p, s, f: f32| POLICY | priority_bits(p, s).unwrap() | ((f * SIXTEENTHS) as u32).min(15) << 20;
        assert_eq!(word("L2::evict_last", None, 1.0), 0x14f0_0000);
        assert_eq!(word("L2::evict_last", Some("L2::evict_first"), 1.0), 0x15f0_0000);
        assert_eq!(word("L2::evict_normal", Some("L2::evict_unchanged"), 1.0), 0x16f0_0000);
        assert_eq!(word("L2::evict_normal", Some("L2::evict_first"), 1.0), 0x17f0_0000);
        assert_eq!(word("L2::evict_unchanged", Some("L2::evict_first"), 1.0), 0x11f0_0000);
        assert_eq!(word("L2::evict_first", None, 0.5), 0x1270_0000);
        assert_eq!(word("L2::evict_first", None, 0.0625), 0x1200_0000);
        assert_eq!(word("L2::evict_first", None, 0.0626), 0x1210_0000);
        assert_eq!(word("L2::evict_first", None, 0.99), 0x12f0_0000);
        assert!(priority_bits("L2::evict_first", Some("L2::evict_last")).is_none());
    }
}
