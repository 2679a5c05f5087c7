//! Instruction lowering: dispatch by PTX opcode to one module per family,
//! and the operand conversions they share.

mod approx;
mod async_copy;
mod atomic;
mod bits;
mod bulk_copy;
pub(crate) mod call;
pub(crate) mod carry;
mod cluster;
mod cmp;
mod contracted;
mod ctrl;
mod cvt;
mod divide;
mod double;
mod elect;
mod fence;
mod float;
mod fns;
mod half;
mod ieee;
mod int;
mod int16;
mod int24;
pub(crate) mod matrix;
mod mbarrier;
mod mem;
mod mov;
mod policy;
mod pred;
mod seq;
mod simd_video;
mod space;
mod video;
mod warp;
pub(crate) mod wgmma;
mod wide;

use ori_ir::{Imm, Opcode, Operand, OperandKind, Reg, RegFile, SpecialReg, WarpSlots};
use ptx_syntax::ast::{Expr, ExprKind, FloatLit, Instruction, ScalarType, UnaryOp};

use crate::error::{Lowered, Pending, at};
use crate::func::Lowerer;

/// Lowers one instruction into the current block.
pub(crate) fn lower<'m>(cx: &mut Lowerer<'m>, inst: &'m Instruction) -> Lowered {
    let product = match inst.opcode.name.as_str() {
        _ if cluster::handles(cx, inst) => cluster::lower(cx, inst).map(|()| None),
        _ if mbarrier::handles(cx, inst) => mbarrier::lower(cx, inst).map(|()| None),
        _ if bulk_copy::handles(cx, inst) => bulk_copy::lower(cx, inst).map(|()| None),
        "cp" | "cp.async" | "cp.async.commit_group" | "cp.async.wait_group" | "cp.async.wait_all"
            if !inst.has("bulk") =>
        {
            async_copy::lower(cx, inst).map(|()| None)
        }
        _ if int16::handles(inst) => int16::lower(cx, inst).map(|()| None),
        _ if space::handles(inst) => space::lower(cx, inst).map(|()| None),
        "ld" | "ldu" => mem::load(cx, inst).map(|()| None),
        "st" => mem::store(cx, inst).map(|()| None),
        "createpolicy" => policy::lower(cx, inst).map(|()| None),
        "mov" if ty(inst)?.bits() == 32 && inst.operands.iter().any(|o| matches!(o.kind, ExprKind::Braces(_))) => {
            half::mov_halves(cx, inst).map(|()| None)
        }
        "mov" if ty(inst)? == ScalarType::Pred => pred::mov(cx, inst).map(|()| None),
        "mov" => mov::mov(cx, inst).map(|()| None),
        "popc" | "clz" | "brev" | "bfind" | "bfi" | "bfe" | "bmsk" | "szext" | "prmt" | "shf" | "sad" => {
            bits::lower(cx, inst).map(|()| None)
        }
        "mul" if inst.has("hi") && ty(inst)?.bits() <= 32 => bits::mul_hi(cx, inst).map(|()| None),
        "mad" if inst.has("hi") && !inst.has("sat") && !inst.has("cc") && ty(inst)?.bits() == 32 => {
            bits::mad_hi(cx, inst).map(|()| None)
        }
        "mad" if inst.has("hi") && inst.has("sat") && !inst.has("cc") && ty(inst)?.bits() == 32 => {
            int24::mad_hi_sat(cx, inst).map(|()| None)
        }
        "dp4a" | "dp2a" => bits::dot(cx, inst).map(|()| None),
        "fns" => fns::lower(cx, inst).map(|()| None),
        "vabsdiff4" if inst.modifiers.len() == 3 && inst.types().all(|t| t == ScalarType::U32) => {
            bits::vabsdiff4(cx, inst).map(|()| None)
        }
        "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4"
        | "vmin4" | "vmax4" => simd_video::lower(cx, inst).map(|()| None),
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" | "vmad" => {
            video::lower(cx, inst).map(|()| None)
        }
        "rsqrt" if ieee::handles(inst) => ieee::lower(cx, inst).map(|()| None),
        "sqrt" | "ex2" | "lg2" | "sin" | "cos" | "rcp" | "rsqrt" | "tanh" if inst.has("approx") => {
            approx::lower(cx, inst).map(|()| None)
        }
        "div" if inst.has("approx") && inst.has("ftz") => approx::div_ftz(cx, inst).map(|()| None),
        // NVIDIA's 64-bit routines where we have them for the target.
        "div" | "rem" if ieee::has_template(inst, cx.target.isa.template_sm) => ieee::lower(cx, inst).map(|()| None),
        "div" | "rem" if !ty(inst)?.is_float() => divide::lower(cx, inst).map(|()| None),
        "div" | "rcp" | "sqrt" if ieee::handles(inst) => ieee::lower(cx, inst).map(|()| None),
        "cvta" => mov::cvta(cx, inst).map(|()| None),
        "addc" | "subc" | "madc" => carry::lower(cx, inst).map(|()| None),
        // Mixed precision (`add.rn.f32.f16 d, a16, b32`, PTX 8.6, sm_100+):
        // NVIDIA's `FHADD`/`FHFMA`, which we cannot write yet. Refused
        // here: the arms below read the last type only and would add two
        // halves.
        "add" | "sub" | "mul" | "mad" | "fma" if inst.types().nth(1).is_some() => Err(unsupported(inst)),
        "add" | "sub" | "mad" if inst.has("cc") => carry::lower(cx, inst).map(|()| None),
        // FMA contraction (`contract.rs`): the product goes into its adds.
        "mul" if cx.contraction.skips(inst) => Ok(None),
        "add" | "sub" if cx.contraction.product_of(inst).is_some() => contracted::lower(cx, inst).map(|()| None),
        "add" | "sub" if inst.has("sat") && !ty(inst)?.is_float() => int24::sat_add(cx, inst).map(|()| None),
        "mul24" | "mad24" => int24::lower(cx, inst).map(|()| None),
        "add" | "sub" | "mul" | "mad" | "fma" | "min" | "max" | "abs" | "neg" | "and" | "or" | "xor" | "not"
        | "shl" | "shr" | "cnot" | "lop3" => {
            let ty = ty(inst)?;
            if ty == ScalarType::Pred {
                pred::lower(cx, inst).map(|()| None)
            } else if half::is_half(ty) {
                half::lower(cx, inst).map(|()| None)
            } else if ty == ScalarType::F64 {
                double::lower(cx, inst).map(|()| None)
            } else if ty.is_float() {
                float::lower(cx, inst).map(|()| None)
            } else {
                int::lower(cx, inst)
            }
        }
        "setp" if half::is_half(ty(inst)?) => half::setp16(cx, inst).map(|()| None),
        "set" if half::is_half(ty(inst)?) => half::set16(cx, inst).map(|()| None),
        "setp" => cmp::setp(cx, inst).map(|()| None),
        "set" => cmp::set(cx, inst).map(|()| None),
        "selp" if ty(inst)?.bits() == 16 => half::selp16(cx, inst).map(|()| None),
        "selp" => cmp::selp(cx, inst).map(|()| None),
        "slct" => cmp::slct(cx, inst).map(|()| None),
        "cvt" => cvt::lower(cx, inst),
        "copysign" => float::copysign(cx, inst).map(|()| None),
        "testp" => float::testp(cx, inst).map(|()| None),
        "membar" | "fence" => fence::fence(cx, inst).map(|()| None),
        "nanosleep" => fence::nanosleep(cx, inst).map(|()| None),
        "bra" => ctrl::bra(cx, inst).map(|()| None),
        "call" => cx.inline_call(inst).map(|()| None),
        "ret" | "exit" => ctrl::exit(cx, inst).map(|()| None),
        "bar" | "barrier" => ctrl::barrier(cx, inst).map(|()| None),
        // NVIDIA's code for `brkpt` is `trap`'s.
        "trap" | "brkpt" => ctrl::trap(cx, inst).map(|()| None),
        "shfl" => warp::shfl(cx, inst).map(|()| None),
        "redux" => warp::redux(cx, inst).map(|()| None),
        "vote" => warp::vote(cx, inst).map(|()| None),
        "activemask" => warp::activemask(cx, inst).map(|()| None),
        "elect" if inst.has("sync") => warp::elect(cx, inst).map(|()| None),
        "match" => warp::match_sync(cx, inst).map(|()| None),
        "atom" | "red" => atomic::lower(cx, inst).map(|()| None),
        "ldmatrix" | "stmatrix" | "mma" | "wmma" => matrix::lower(cx, inst).map(|()| None),
        "wgmma" => wgmma::lower(cx, inst).map(|()| None),
        _ => Err(unsupported(inst)),
    }?;
    // What the block knew about the old value of the written register is stale now.
    if let Some(first) = inst.operands.first().filter(|_| !matches!(inst.opcode.name.as_str(), "st" | "red")) {
        let mut written = Vec::new();
        first.for_each_name(&mut |n| written.push(n.name.as_str()));
        for dest in written {
            if let Some(reg) = cx.regs.get(&mut cx.func, dest) {
                cx.clobber(dest, reg);
            }
        }
        if let (Some(mut p), ExprKind::Name(dest, None)) = (product, &first.kind) {
            let mut names = vec![dest.name.as_str()];
            inst.operands[1..].iter().for_each(|e| e.for_each_name(&mut |n| names.push(n.name.as_str())));
            p.stable &= names.iter().all(|n| cx.single_def(n));
            cx.products.insert(dest.name.as_str().to_string(), p);
        }
    }
    Ok(())
}

/// The error for an instruction form the lowering does not know yet.
pub(crate) fn unsupported(inst: &Instruction) -> Pending {
    let mut name = inst.opcode.name.as_str().to_string();
    for m in &inst.modifiers {
        name.push('.');
        name.push_str(m.name.as_str());
    }
    at(inst.span, format!("lowering of '{name}' is not supported yet"))
}

/// The instruction's (last) data type.
pub(crate) fn ty(inst: &Instruction) -> Lowered<ScalarType> {
    inst.types().last().ok_or_else(|| unsupported(inst))
}

/// Operand `i`, or an error naming the instruction.
pub(crate) fn operand(inst: &Instruction, i: usize) -> Lowered<&Expr> {
    inst.operands.get(i).ok_or_else(|| unsupported(inst))
}

/// The destination register of operand `i`.
pub(crate) fn dst(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Reg> {
    match &operand(inst, i)?.kind {
        ExprKind::Name(r, None) => cx.reg(r.name.as_str(), r.span),
        _ => Err(unsupported(inst)),
    }
}

/// Source operand `i` of an instruction of type `ty`: a register, an
/// immediate, or a special register read into a fresh register.
pub(crate) fn src(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize, ty: ScalarType) -> Lowered<Operand> {
    expr(cx, operand(inst, i)?, ty).ok_or_else(|| unsupported(inst))?
}

/// An expression as a source operand of type `ty`, `None` for a shape
/// that is not a source.
pub(crate) fn expr(cx: &mut Lowerer<'_>, e: &Expr, ty: ScalarType) -> Option<Lowered<Operand>> {
    Some(match &e.kind {
        ExprKind::Name(r, None) if cx.regs.ty(r.name.as_str()).is_some() => {
            read_reg(cx, r.name.as_str(), r.span).map(Operand::reg)
        }
        ExprKind::Name(r, component) => {
            // `%is_explicit_cluster` is a predicate.
            let t = cx.temp(if ty == ScalarType::Pred { RegFile::P } else { RegFile::R }, 1);
            special(cx, r.name.as_str(), component.as_ref().map(|c| c.as_str()), t, e.span).map(|()| t.into())
        }
        ExprKind::Int { value, .. } => Ok(int_imm(*value, ty)?),
        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
            ExprKind::Int { value, .. } => Ok(int_imm(value.wrapping_neg(), ty)?),
            _ => return None,
        },
        ExprKind::Unary(UnaryOp::Not, inner) => match &inner.kind {
            ExprKind::Name(r, None) => cx.reg(r.name.as_str(), r.span).map(|p| Operand::reg(p).inverted()),
            _ => return None,
        },
        ExprKind::Float(f) if ty == ScalarType::F32 => Ok(OperandKind::Imm(Imm::F32(f32_bits(f)?)).into()),
        ExprKind::Float(f) if ty == ScalarType::F64 => Ok(OperandKind::Imm(Imm::F64(f64_bits(f)?)).into()),
        _ => return None,
    })
}

/// Source operand `i` read straight from the parameter it holds, when it
/// holds a 32-bit one: a uniform register loaded just before on sm_90, the
/// bank itself on sm_80 (the operand forms NVIDIA's code uses).
pub(crate) fn param_operand(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<Operand>> {
    let ExprKind::Name(r, None) = &operand(inst, i)?.kind else { return Ok(None) };
    let Some(p) = cx.param_values.get(r.name.as_str()).copied().filter(|p| p.words == 1) else { return Ok(None) };
    let bank = Operand::cbank(0, p.offset);
    if cx.target.isa.bank_operands {
        return Ok(Some(bank));
    }
    let u = cx.temp(RegFile::UR, 1);
    cx.emit_unguarded(Opcode::ULDC, &[], vec![u.into()], vec![bank], inst.span)?;
    Ok(Some(u.into()))
}

/// The register holding PTX register `name` for a read. A 64-bit parameter
/// on sm_80 lives in the bank; it is read into a fresh pair with
/// `IMAD.WIDE.U32 d, RZ, RZ, c[0x0][off]` (0 * 0 + the parameter).
pub(crate) fn read_reg(cx: &mut Lowerer<'_>, name: &str, span: ptx_syntax::Span) -> Lowered<Reg> {
    let param = cx.param_values.get(name).filter(|p| p.words > 1 && cx.target.isa.wide_params_in_bank).copied();
    let Some(p) = param else { return cx.reg(name, span) };
    let t = cx.temp(RegFile::R, 2);
    cx.copy_pair(t.into(), Operand::cbank(0, p.offset), span)?;
    Ok(t)
}

/// Source operand `i` as a constant-bank operand, when it holds a 64-bit
/// parameter on sm_80 (where those stay in the bank).
pub(crate) fn bank_operand(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<Operand>> {
    let ExprKind::Name(r, None) = &operand(inst, i)?.kind else { return Ok(None) };
    let param = cx.param_values.get(r.name.as_str()).filter(|p| p.words > 1 && cx.target.isa.wide_params_in_bank);
    Ok(param.map(|p| Operand::cbank(0, p.offset)))
}

/// An integer immediate as a 32-bit instruction reads it (sign-extended
/// from the low 32 bits, so `0xffffffff` and `-1` are the same word).
fn int_imm(value: u64, ty: ScalarType) -> Option<Operand> {
    (ty.bits() <= 32).then(|| Operand::int(i64::from(value as u32 as i32)))
}

/// The bits of an f32 literal (`0fXXXXXXXX`, or a value rounded to f32).
fn f32_bits(f: &FloatLit) -> Option<u32> {
    match f {
        FloatLit::F32(bits) => Some(*bits),
        FloatLit::F64(bits) => Some((f64::from_bits(*bits) as f32).to_bits()),
        FloatLit::Decimal(text) => text.parse::<f64>().ok().map(|v| (v as f32).to_bits()),
    }
}

/// The bits of an f64 literal (`0dXXXXXXXXXXXXXXXX`, or a value). An f32
/// literal `0fXXXXXXXX` is its 32 bits, zero-extended: NVIDIA's ptxas
/// reads it as an integer there (`add.f64 d, a, 0f3FC00000` adds
/// `0x000000003fc00000`), while `0d` in an f32 instruction is the value
/// rounded (the isa-sweep's immediates).
pub(crate) fn f64_bits(f: &FloatLit) -> Option<u64> {
    match f {
        FloatLit::F32(bits) => Some(u64::from(*bits)),
        FloatLit::F64(bits) => Some(*bits),
        FloatLit::Decimal(text) => text.parse::<f64>().ok().map(f64::to_bits),
    }
}

/// Reads PTX special register `name.component` into `dst`: thread and block
/// indices and lane masks through `S2R`, launch dimensions from constant bank 0 (where the
/// driver puts them, as NVIDIA's cubins read them), clocks and timers
/// through `CS2R` (NVIDIA's sequences, tests/ptx/special_regs.ptx).
pub(crate) fn special(
    cx: &mut Lowerer<'_>,
    name: &str,
    component: Option<&str>,
    dst: Reg,
    span: ptx_syntax::Span,
) -> Lowered {
    let axis = match component {
        Some("x") | None => 0,
        Some("y") => 1,
        Some("z") => 2,
        Some(c) => return Err(at(span, format!("unknown component .{c} of {name}"))),
    };
    let sr = |regs: [SpecialReg; 3]| regs[axis];
    // sm_80 reads constants with MOV (its LDC forms take a register offset).
    let bank_read = if cx.target.isa.bank_operands { Opcode::MOV } else { Opcode::LDC };
    let (op, source) = match name {
        "%tid" => {
            (Opcode::S2R, OperandKind::Special(sr([SpecialReg::TidX, SpecialReg::TidY, SpecialReg::TidZ])).into())
        }
        "%ctaid" => {
            (Opcode::S2R, OperandKind::Special(sr([SpecialReg::CtaidX, SpecialReg::CtaidY, SpecialReg::CtaidZ])).into())
        }
        "%laneid" => (Opcode::S2R, OperandKind::Special(SpecialReg::LaneId).into()),
        "%lanemask_eq" => (Opcode::S2R, OperandKind::Special(SpecialReg::EqMask).into()),
        "%lanemask_lt" => (Opcode::S2R, OperandKind::Special(SpecialReg::LtMask).into()),
        "%lanemask_le" => (Opcode::S2R, OperandKind::Special(SpecialReg::LeMask).into()),
        "%lanemask_gt" => (Opcode::S2R, OperandKind::Special(SpecialReg::GtMask).into()),
        "%lanemask_ge" => (Opcode::S2R, OperandKind::Special(SpecialReg::GeMask).into()),
        "%cluster_ctarank" if cx.sm.target().features.clusters => cluster::ctarank(),
        "%smid" => (Opcode::S2R, OperandKind::Special(SpecialReg::VirtualSmId).into()),
        "%warpid" => return field_at_8(cx, SpecialReg::VirtId, 7, dst, span),
        "%nwarpid" => match cx.target.warp_slots {
            WarpSlots::Constant(n) => (Opcode::MOV, Operand::int(i64::from(n))),
            WarpSlots::VirtCfg => return field_at_8(cx, SpecialReg::VirtCfg, 8, dst, span),
            WarpSlots::Unmeasured => {
                return Err(at(span, format!("lowering of {name} is not supported yet on {}", cx.sm)));
            }
        },
        // The driver's SM count, where NVIDIA's code reads it.
        "%nsmid" => (bank_read, Operand::cbank(0, cx.target.launch_bank.nsmid)),
        "%clock" => {
            let clock = vec![OperandKind::Special(SpecialReg::ClockLo).into()];
            return cx.emit(Opcode::CS2R, &["32"], vec![dst.into()], clock, span);
        }
        "%clock64" | "%globaltimer" if dst.width == 2 => {
            let sr = if name == "%clock64" { SpecialReg::ClockLo } else { SpecialReg::GlobalTimerLo };
            return cx.emit(Opcode::CS2R, &[], vec![dst.into()], vec![OperandKind::Special(sr).into()], span);
        }
        "%dynamic_smem_size" => (bank_read, Operand::cbank(0, cx.target.launch_bank.dynamic_smem)),
        "%total_smem_size" | "%aggr_smem_size" => return smem_size(cx, name, dst, span),
        "%gridid" if dst.width == 2 => {
            let bank = Operand::cbank(0, cx.target.launch_bank.gridid);
            if cx.target.isa.bank_operands {
                return cx.copy_pair(dst.into(), bank, span);
            }
            return cx.emit(Opcode::LDC, &["64"], vec![dst.into()], vec![bank], span);
        }
        "%cluster_nctaid" | "%nclusterid" | "%cluster_nctarank" if let Some(c) = cx.target.launch_bank.cluster => {
            let at = match name {
                "%cluster_nctaid" => c.nctaid + 4 * axis as i32,
                "%nclusterid" => c.nclusterid + 4 * axis as i32,
                _ => c.nctarank,
            };
            (bank_read, Operand::cbank(0, at))
        }
        "%clusterid" | "%cluster_ctaid" if let Some(c) = cx.target.launch_bank.cluster => {
            return cluster::index(cx, name == "%clusterid", axis, c, dst, span);
        }
        "%is_explicit_cluster"
            if dst.file == RegFile::P
                && let Some(c) = cx.target.launch_bank.cluster =>
        {
            return cluster::is_explicit(cx, c, dst, span);
        }
        "%ntid" => (bank_read, Operand::cbank(0, cx.target.launch_bank.ntid + 4 * axis as i32)),
        "%nctaid" => (bank_read, Operand::cbank(0, cx.target.launch_bank.nctaid + 4 * axis as i32)),
        _ if !name.starts_with('%') => {
            return Err(at(span, format!("lowering of the address of '{name}' is not supported yet")));
        }
        _ => return Err(at(span, format!("lowering of special register {name} is not supported yet"))),
    };
    cx.emit(op, &[], vec![dst.into()], vec![source], span)
}

/// `%total_smem_size`: `SR_SMEMSZ` less the driver's reserve in constant
/// bank 0; `%aggr_smem_size`: the unsigned minimum of `SR_SMEMSZ` and the
/// bank's bound (NVIDIA's sequences, `ori_ir::SmemSizeBank`).
fn smem_size(cx: &mut Lowerer<'_>, name: &str, dst: Reg, span: ptx_syntax::Span) -> Lowered {
    let bank = cx.target.family.smem_size_bank();
    let slot = match bank {
        Some(b) if name == "%total_smem_size" => b.reserved,
        Some(b) => match b.aggr_limit {
            Some(limit) => Some(limit),
            None => return Err(at(span, format!("lowering of {name} is not supported yet on {}", cx.sm))),
        },
        None => return Err(at(span, format!("lowering of {name} is not supported yet on {}", cx.sm))),
    };
    let size = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::S2R, &[], vec![size.into()], vec![OperandKind::Special(SpecialReg::SmemSz).into()], span)?;
    let Some(slot) = slot else {
        return cx.emit(Opcode::MOV, &[], vec![dst.into()], vec![size.into()], span);
    };
    let word: Operand = if cx.target.isa.bank_operands {
        Operand::cbank(0, slot)
    } else {
        let t = cx.temp(RegFile::R, 1);
        cx.emit(Opcode::LDC, &[], vec![t.into()], vec![Operand::cbank(0, slot)], span)?;
        t.into()
    };
    if name == "%total_smem_size" {
        let uses = vec![size.into(), word.negated(), Operand::reg(Reg::RZ)];
        return cx.emit(Opcode::IADD3, &[], vec![dst.into()], uses, span);
    }
    let uses = vec![size.into(), word, Operand::reg(Reg::PT)];
    cx.emit(cx.target.isa.int_minmax, &["U32"], vec![dst.into()], uses, span)
}

/// Bits 8 up of special register `sr`, `width` of them (`S2R`,
/// `SHF.R.U32.HI` by 8, `SGXT.U32`), NVIDIA's sequence for `%warpid`
/// (SR_VIRTID, 7 bits) and, on sm_90+, `%nwarpid` (SR_VIRTCFG, 8 bits).
fn field_at_8(cx: &mut Lowerer<'_>, sr: SpecialReg, width: i64, dst: Reg, span: ptx_syntax::Span) -> Lowered {
    let (word, shifted) = (cx.temp(RegFile::R, 1), cx.temp(RegFile::R, 1));
    cx.emit(Opcode::S2R, &[], vec![word.into()], vec![OperandKind::Special(sr).into()], span)?;
    let shift = vec![Operand::reg(Reg::RZ), Operand::int(8), word.into()];
    cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![shifted.into()], shift, span)?;
    cx.emit(Opcode::SGXT, &["U32"], vec![dst.into()], vec![shifted.into(), Operand::int(width)], span)
}
