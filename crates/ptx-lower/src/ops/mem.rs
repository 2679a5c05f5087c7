//! Loads and stores: `ld.param` from constant bank 0, `ld`/`st.global`
//! through the global memory descriptor, `ld`/`st.shared` as `LDS`/`STS`.

use ori_ir::{Address, Bank, CBank, Opcode, Operand, OperandKind};
use ptx_syntax::ast::{BinaryOp, Expr, ExprKind, Ident, Instruction, ModifierKind, ScalarType, StateSpace, UnaryOp};

use super::atomic::order::Order;
use super::wide::{Src64, src64};
use super::{dst, operand, read_reg, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::{GlobalRef, Lowerer};
use crate::params::ParamAt;
use crate::values::ParamValue;

/// The element count of a `.v2`/`.v4` access.
fn vector(inst: &Instruction) -> Option<u32> {
    inst.modifiers.iter().find_map(|m| if let ModifierKind::Vector(n) = m.kind { Some(n) } else { None })
}

/// `ld[.sem.scope].SPACE.T d, [a]`: the access, then for `.acquire` the
/// cache invalidation NVIDIA puts after an acquire atomic.
pub(super) fn load(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let order = ordered(cx, inst)?;
    access_load(cx, inst)?;
    match order {
        Some(o) => o.after(cx, inst.space().unwrap_or(StateSpace::Global), inst.span),
        None => Ok(()),
    }
}

/// `st[.sem.scope].SPACE.T [a], v`: for `.release` the fence NVIDIA puts
/// before a release atomic, then the access.
pub(super) fn store(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if let Some(o) = ordered(cx, inst)? {
        o.before(cx, inst.span)?;
    }
    access_store(cx, inst)
}

/// The memory order of an access with `.relaxed`, `.acquire` or
/// `.release` (and a scope), `None` for a weak or volatile one.
fn ordered(cx: &Lowerer<'_>, inst: &Instruction) -> Lowered<Option<Order>> {
    let strong = inst
        .modifiers
        .iter()
        .any(|m| m.kind == ModifierKind::Word && matches!(m.name.as_str(), "relaxed" | "acquire" | "release"));
    if !strong {
        return Ok(None);
    }
    Order::of(cx, inst).map(Some).ok_or_else(|| unsupported(inst))
}

/// A modifier that leaves a shared or local access as it is: weak and
/// volatile accesses, and the strong ones (the SM's own memory; fences
/// aside, NVIDIA's `LDS`/`STS` are the same).
fn keeps_plain(m: &ptx_syntax::ast::Modifier) -> bool {
    match m.kind {
        ModifierKind::Type(_) | ModifierKind::Space(_) => true,
        ModifierKind::Word => {
            matches!(m.name.as_str(), "weak" | "volatile" | "relaxed" | "acquire" | "release")
                || super::atomic::order::is_order_word(m.name.as_str())
        }
        _ => false,
    }
}

fn access_load(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if inst.types().count() != 1 {
        return Err(unsupported(inst));
    }
    if let Some(n) = vector(inst) {
        if inst.space() == Some(StateSpace::Param) {
            return param_vector(cx, inst, ty, n);
        }
        return load_vector(cx, inst, ty, n);
    }
    let (base, offset) = address(operand(inst, 1)?).ok_or_else(|| unsupported(inst))?;
    // A register base is an address into the kernel's parameters, not a
    // call-sequence variable.
    if inst.space() == Some(StateSpace::Param) && cx.regs.ty(base.name.as_str()).is_none() {
        let words = if ty.bits() == 64 { 2 } else { 1 };
        if let Some(slot) = cx.param_slot_read(base.name.as_str(), offset, words, inst.span)? {
            let d = dst(cx, inst, 0)?;
            if ty.bits() < 32 {
                return super::call::narrow_slot(cx, inst, ty, d, slot);
            }
            if d.width == 2 && words == 1 {
                // NVVM reads a 32-bit argument into a 64-bit register
                // (`ld.param.s32 %rd2`): extended as a load would be.
                cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(0, 1)).undef()], vec![slot.into()], inst.span)?;
                return extend_high(cx, inst, d, ty);
            }
            return copy(cx, inst, d, slot.into());
        }
    }
    match inst.space() {
        Some(StateSpace::Param) => {
            let at = match cx.param_at(base.name.as_str(), offset, inst.span)? {
                Some(ParamAt::Fixed(at)) => at,
                Some(ParamAt::Indexed(reg, at)) => return param_indexed(cx, inst, ty, reg, at),
                None => return Err(unsupported(inst)),
            };
            let ExprKind::Name(dest, None) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
            let words = match ty.bits() {
                8 | 16 => return narrow_param(cx, inst, ty, at),
                32 => 1,
                64 => 2,
                _ => return Err(unsupported(inst)),
            };
            let d = dst(cx, inst, 0)?;
            param_read(cx, inst, dest.name.as_str(), d, at, words)
        }
        // A generic address reaches global memory the same way through
        // the descriptor, with LD instead of LDG (NVIDIA's `LD.E`).
        Some(StateSpace::Global) | None => {
            let (mods, addr) = global_access(cx, inst, 1, width(ty).ok_or_else(|| unsupported(inst))?, true)?;
            let d = dst(cx, inst, 0)?;
            let op = if inst.space().is_some() { Opcode::LDG } else { Opcode::LD };
            cx.emit(op, &mods, vec![load_target(d, ty)], vec![addr], inst.span)?;
            extend_high(cx, inst, d, ty)
        }
        Some(StateSpace::Shared) if plain(inst) => {
            let addr = shared_base(cx, inst, base, offset)?;
            let d = dst(cx, inst, 0)?;
            let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
            cx.emit(Opcode::LDS, &mods, vec![load_target(d, ty)], vec![addr], inst.span)?;
            extend_high(cx, inst, d, ty)
        }
        Some(StateSpace::Const) if plain(inst) => {
            let source = const_address(cx, inst, 1)?;
            let d = dst(cx, inst, 0)?;
            let size = width(ty).ok_or_else(|| unsupported(inst))?;
            let indexed = matches!(source.kind, OperandKind::CBank(CBank { reg: Some(_), .. }));
            if cx.target.isa.bank_operands && !indexed && size.is_none() {
                // sm_80 reads a constant word as an operand.
                return cx.emit(Opcode::MOV, &[], vec![d.into()], vec![source], inst.span);
            }
            let source = match source.kind {
                // sm_80's LDC forms take a register: RZ stands for none.
                OperandKind::CBank(cb) if cx.target.isa.bank_operands && cb.reg.is_none() => {
                    OperandKind::CBank(CBank { reg: Some(ori_ir::Reg::RZ), ..cb }).into()
                }
                _ => source,
            };
            let mods: Vec<&str> = size.into_iter().collect();
            cx.emit(Opcode::LDC, &mods, vec![d.into()], vec![source], inst.span)
        }
        Some(StateSpace::Local) if plain(inst) => {
            let addr = local_address(cx, inst, 1)?;
            let d = dst(cx, inst, 0)?;
            let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
            cx.emit(Opcode::LDL, &mods, vec![load_target(d, ty)], vec![addr], inst.span)?;
            extend_high(cx, inst, d, ty)
        }
        _ => Err(unsupported(inst)),
    }
}

/// The destination operand of a load of `ty` into `d`: the low word of a
/// 64-bit `d` when `ty` has at most 32 bits ([`extend_high`] writes the
/// rest), else `d`.
fn load_target(d: ori_ir::Reg, ty: ScalarType) -> Operand {
    if d.width == 2 && ty.bits() <= 32 { Operand::reg(d.part(0, 1)).undef() } else { d.into() }
}

/// PTX extends a load narrower than its 64-bit destination register: the
/// high word zero (`MOV hi, RZ`), or for a signed type the low word's
/// sign (`SHF.R.S32.HI hi, RZ, 0x1f, lo`), as NVIDIA's code does.
fn extend_high(cx: &mut Lowerer<'_>, inst: &Instruction, d: ori_ir::Reg, ty: ScalarType) -> Lowered {
    if d.width != 2 || ty.bits() > 32 {
        return Ok(());
    }
    let (lo, hi) = (Operand::reg(d.part(0, 1)), Operand::reg(d.part(1, 1)));
    let rz = Operand::reg(ori_ir::Reg::RZ);
    if matches!(ty, ScalarType::S8 | ScalarType::S16 | ScalarType::S32) {
        cx.emit(Opcode::SHF, &["R", "S32", "HI"], vec![hi], vec![rz, Operand::int(0x1f), lo], inst.span)
    } else {
        cx.emit(Opcode::MOV, &[], vec![hi], vec![rz], inst.span)
    }
}

/// `ld.param.T d, [r+off]` through a register holding an offset into the
/// parameter block: `LDC[.U8/.S16/.64] d, c[0x0][r + off]` (on sm_80 too,
/// NVIDIA's form in struct_params).
fn param_indexed(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, reg: ori_ir::Reg, at: i32) -> Lowered {
    let size = match ty.bits() {
        8 | 16 => Some(ldc_narrow(ty)),
        32 => None,
        64 => Some("64"),
        _ => return Err(unsupported(inst)),
    };
    let d = dst(cx, inst, 0)?;
    let source = OperandKind::CBank(CBank { bank: Bank::Fixed(0), reg: Some(reg), offset: at }).into();
    cx.emit(Opcode::LDC, &size.into_iter().collect::<Vec<_>>(), vec![d.into()], vec![source], inst.span)
}

/// The `LDC` size of an 8- or 16-bit type.
fn ldc_narrow(ty: ScalarType) -> &'static str {
    match (ty.bits(), matches!(ty, ScalarType::S8 | ScalarType::S16)) {
        (8, false) => "U8",
        (8, true) => "S8",
        (_, false) => "U16",
        (_, true) => "S16",
    }
}

/// `ld.param.{u,s}{8,16} d, [p+off]`: `LDC.U8` etc. on sm_90 (NVIDIA's
/// form, struct_params); sm_80 reads the word around it from the bank and
/// cuts the value out with `PRMT`.
fn narrow_param(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, at: i32) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let signed = matches!(ty, ScalarType::S8 | ScalarType::S16);
    let bytes = ty.bits() / 8;
    if !cx.target.isa.bank_operands {
        return cx.emit(Opcode::LDC, &[ldc_narrow(ty)], vec![d.into()], vec![Operand::cbank(0, at)], inst.span);
    }
    let word = cx.temp(ori_ir::RegFile::R, 1);
    cx.emit(Opcode::MOV, &[], vec![word.into()], vec![Operand::cbank(0, at & !3)], inst.span)?;
    let selector = Operand::int(extract_selector(at as u32 & 3, bytes, signed));
    cx.emit(Opcode::PRMT, &[], vec![d.into()], vec![word.into(), selector, Operand::reg(ori_ir::Reg::RZ)], inst.span)
}

/// `d = s` for a call-sequence parameter: `MOV` of a word (an f32
/// constant as its bits), `IMAD.WIDE.U32 d, RZ, RZ, s` of a pair.
fn copy(cx: &mut Lowerer<'_>, inst: &Instruction, d: ori_ir::Reg, s: Operand) -> Lowered {
    let s = match s.kind {
        OperandKind::Imm(ori_ir::Imm::F32(bits)) => Operand::int(i64::from(bits)),
        _ => s,
    };
    match (d.width, s.as_reg()) {
        (1, _) => cx.emit(Opcode::MOV, &[], vec![d.into()], vec![s], inst.span),
        (2, Some(r)) if r.width == 2 => cx.copy_pair(d.into(), s, inst.span),
        _ => Err(unsupported(inst)),
    }
}

/// `ld.param.vN.T {d0, ...}, [p+off]`: each element read from the bank on
/// its own, as a scalar `ld.param` of it would be.
fn param_vector(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, n: u32) -> Lowered {
    let ExprKind::Braces(elems) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    let (base, offset) = address(operand(inst, 1)?).ok_or_else(|| unsupported(inst))?;
    let words: u8 = match ty.bits() {
        32 => 1,
        64 => 2,
        _ => return Err(unsupported(inst)),
    };
    if elems.len() != n as usize {
        return Err(unsupported(inst));
    }
    let Some(slot) = cx.params.get(base.name.as_str()) else {
        // A call-sequence parameter: element by element from its slots.
        for (i, e) in elems.iter().enumerate() {
            let ExprKind::Name(dest, None) = &e.kind else { continue };
            let at = offset + 4 * i as i64 * i64::from(words);
            let slot =
                cx.param_slot_read(base.name.as_str(), at, words, inst.span)?.ok_or_else(|| unsupported(inst))?;
            let d = cx.reg(dest.name.as_str(), e.span)?;
            copy(cx, inst, d, slot.into())?;
        }
        return Ok(());
    };
    let start = i64::from(cx.sm.target().param_base) + i64::from(slot.offset) + offset;
    for (i, e) in elems.iter().enumerate() {
        let ExprKind::Name(dest, None) = &e.kind else { continue };
        let at = i32::try_from(start + 4 * i as i64 * i64::from(words)).map_err(|_| unsupported(inst))?;
        let d = cx.reg(dest.name.as_str(), e.span)?;
        param_read(cx, inst, dest.name.as_str(), d, at, words)?;
    }
    Ok(())
}

/// Reads the `words`-word parameter at bank offset `at` into `d`, the
/// register of PTX register `name` (remembered as that parameter when
/// written once).
fn param_read(cx: &mut Lowerer<'_>, inst: &Instruction, name: &str, d: ori_ir::Reg, at: i32, words: u8) -> Lowered {
    if cx.single_def(name) {
        cx.param_values.insert(name.to_string(), ParamValue { offset: at, words });
    }
    let source = vec![Operand::cbank(0, at)];
    match (!cx.target.isa.wide_params_in_bank, words) {
        (true, 1) => cx.emit(Opcode::LDC, &[], vec![d.into()], source, inst.span),
        (true, _) => cx.emit(Opcode::LDC, &["64"], vec![d.into()], source, inst.span),
        // sm_80 code reads parameters as operands (`MOV`, or the
        // accumulator of `IMAD.WIDE`): a 64-bit one stays in the bank,
        // unless its register is written again (a `cvta` in place, a
        // pointer bumped in a loop): then a move per word, as NVIDIA's
        // `IMAD.MOV.U32 R0, RZ, RZ, c[0x0][0x160]` pair.
        (false, 1) => cx.emit(Opcode::MOV, &[], vec![d.into()], source, inst.span),
        (false, _) if cx.single_def(name) => Ok(()),
        (false, _) => {
            for k in 0..words {
                let word = vec![Operand::cbank(0, at + 4 * i32::from(k))];
                cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(k, 1))], word, inst.span)?;
            }
            Ok(())
        }
    }
}

/// `ld[.global,.shared,.local][.nc].vN.T {d0, ...}, [a]`: one access of the whole
/// vector into a fresh tuple, whose parts become the destinations (a
/// destination written only here is that part; others get a `MOV`).
fn load_vector(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, n: u32) -> Lowered {
    let ExprKind::Braces(elems) = &operand(inst, 0)?.kind else { return Err(unsupported(inst)) };
    let (elem_bits, words) = vector_shape(ty, n).ok_or_else(|| unsupported(inst))?;
    if elems.len() != n as usize {
        return Err(unsupported(inst));
    }
    let signed = matches!(ty, ScalarType::S8 | ScalarType::S16);
    let size = match (words, elem_bits * n) {
        // Two bytes: one 16-bit access (NVIDIA's `LDG.E.U16`, `.S16`).
        (_, 16) => Some(if signed { "S16" } else { "U16" }),
        (1, _) => None,
        _ => Some(wide_width(words)),
    };
    let (op, mods, addr) = match inst.space() {
        Some(StateSpace::Global) | None => {
            let (mods, addr) = global_access(cx, inst, 1, size, true)?;
            (if inst.space().is_some() { Opcode::LDG } else { Opcode::LD }, mods, addr)
        }
        Some(StateSpace::Shared) if plain_vector(inst) => {
            (Opcode::LDS, size.into_iter().collect(), shared_address(cx, inst, 1)?)
        }
        Some(StateSpace::Local) if plain_vector(inst) => {
            (Opcode::LDL, size.into_iter().collect(), local_address(cx, inst, 1)?)
        }
        _ => return Err(unsupported(inst)),
    };
    let t = cx.temp(ori_ir::RegFile::R, words);
    cx.emit(op, &mods, vec![t.into()], vec![addr], inst.span)?;
    for (i, e) in elems.iter().enumerate() {
        let name = match &e.kind {
            ExprKind::Sink => continue,
            ExprKind::Name(d, None) => d.name.as_str(),
            _ => return Err(unsupported(inst)),
        };
        let bit = i as u32 * elem_bits;
        if elem_bits < 32 {
            // Bytes and halves are cut out of their word with a zero (or
            // sign) fill, as NVIDIA's `PRMT R, R, 0x7770, RZ` does.
            let word = t.part((bit / 32) as u8, 1);
            let dreg = cx.reg(name, e.span)?;
            let uses = vec![
                word.into(),
                Operand::int(extract_selector(bit % 32 / 8, elem_bits / 8, signed)),
                Operand::reg(ori_ir::Reg::RZ),
            ];
            cx.emit(Opcode::PRMT, &[], vec![dreg.into()], uses, inst.span)?;
            continue;
        }
        let elem_words = (elem_bits / 32) as u8;
        let part = t.part((bit / 32) as u8, elem_words);
        if cx.single_def(name) && cx.regs.alias(name, part) {
            continue;
        }
        let dreg = cx.reg(name, e.span)?;
        if elem_words == 1 {
            cx.emit(Opcode::MOV, &[], vec![dreg.into()], vec![part.into()], inst.span)?;
        } else {
            cx.copy_pair(dreg.into(), part.into(), inst.span)?;
        }
    }
    Ok(())
}

/// The `PRMT` selector that takes `bytes` bytes from byte `first` of a
/// word into the low end of the result, filling the rest with zeros or
/// (`signed`) with copies of the top byte's sign (selector nibble 8 + b).
fn extract_selector(first: u32, bytes: u32, signed: bool) -> i64 {
    let top = first + bytes - 1;
    let fill = if signed { 8 + top } else { 7 };
    let nibbles: Vec<u32> = (0..4).map(|k| if k < bytes { first + k } else { fill }).collect();
    i64::from(nibbles.iter().rev().fold(0, |acc, &nb| acc << 4 | nb))
}

/// Bits per element and words in all of an `N`-element vector of `ty`
/// (one access of half a word, 1, 2 or 4 words).
fn vector_shape(ty: ScalarType, n: u32) -> Option<(u32, u8)> {
    let bits = ty.bits();
    let total = bits.checked_mul(n)?;
    matches!(bits, 8 | 16 | 32 | 64).then_some(())?;
    matches!(total, 16 | 32 | 64 | 128).then_some((bits, total.div_ceil(32) as u8))
}

/// The size modifier of a 2- or 4-word access.
fn wide_width(words: u8) -> &'static str {
    if words == 2 { "64" } else { "128" }
}

/// The modifiers and the address of a global or generic access of
/// `width` whose address is operand `at`: [`global_mods`], and with
/// `.L2::cache_hint` the cache policy (the last operand) as the address's
/// memory descriptor, as NVIDIA's code has it (`LDG.E.EL
/// desc[UR4][R2.64]` with `UR4` the policy; probes of every cache
/// qualifier on sm_80 and sm_90).
fn global_access(
    cx: &mut Lowerer<'_>,
    inst: &Instruction,
    at: usize,
    width: Option<&'static str>,
    load: bool,
) -> Lowered<(Vec<&'static str>, Operand)> {
    let (mods, cache_hint) = global_mods(inst, width, load)?;
    let mut addr = global_address(cx, inst, at)?;
    if cache_hint {
        let desc = policy(cx, inst, inst.operands.len().saturating_sub(1))?;
        let OperandKind::Mem(a) = &mut addr.kind else { return Err(unsupported(inst)) };
        a.desc = Some(desc);
        a.policy = true;
    }
    Ok((mods, addr))
}

/// The modifiers of an `LDG` (`load`) or `STG` of `width`, and whether it
/// takes a cache policy (`.L2::cache_hint`): `.E`, then the cache
/// operator's or the L1 eviction priority's word that comes before the
/// size (`.EF` for `.cs` and `.L1::evict_first`, `.EL` for
/// `.L1::evict_last`, `.EU` for `.L1::evict_unchanged`, `.NA` for
/// `.L1::no_allocate`, `.LU` for a `.lu` load; `.L1::evict_normal` is the
/// default), the L2 prefetch size (`.LTC64B` for `.L2::64B`), the size,
/// then the words after it (`.CONSTANT` for `.nc`, `.STRONG.GPU` for
/// `.cg`, `.STRONG.SYS` for a `.cv` load, a `.wt` store and volatile
/// accesses, `.STRONG.{SM,GPU,SYS}` for relaxed, acquire and release ones
/// by scope), as NVIDIA's cubins spell them (vec_loads; probes on sm_80
/// and sm_90). `.mmio` is not lowered yet.
fn global_mods(inst: &Instruction, width: Option<&'static str>, load: bool) -> Lowered<(Vec<&'static str>, bool)> {
    let mut cache_hint = false;
    let mut evict = None;
    let mut prefetch = None;
    let mut strong = false;
    let mut scope = None;
    let mut words = Vec::new();
    for m in inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word) {
        match m.name.as_str() {
            "L2::cache_hint" if !cache_hint => cache_hint = true,
            w if w.starts_with("L1::") && evict.is_none() => {
                evict = Some(l1_eviction(w).ok_or_else(|| unsupported(inst))?)
            }
            w if w.starts_with("L2::") && prefetch.is_none() => {
                prefetch = Some(l2_prefetch(w).ok_or_else(|| unsupported(inst))?)
            }
            // The default.
            "weak" => {}
            "relaxed" | "acquire" | "release" => strong = true,
            w if Order::strength_of(w).is_some() && scope.is_none() => scope = Order::strength_of(w),
            w => words.push(w),
        }
    }
    if strong {
        // `.relaxed`/`.acquire`/`.release` with a scope: NVIDIA's
        // `.STRONG.{SM,GPU,SYS}` (the fences are the caller's).
        let strength = scope.ok_or_else(|| unsupported(inst))?;
        if !words.is_empty() {
            return Err(unsupported(inst));
        }
        let mut mods = vec!["E"];
        mods.extend(evict.flatten());
        mods.extend(prefetch);
        mods.extend(width);
        mods.extend(["STRONG", strength]);
        return Ok((mods, cache_hint));
    }
    if scope.is_some() {
        return Err(unsupported(inst));
    }
    let (before, after): (&[&str], &[&str]) = match (words.as_slice(), load) {
        ([] | ["ca"], true) | ([] | ["wb"], false) => (&[], &[]),
        // `.ca` and `.cg` are what `.nc` does anyway (NVIDIA's code is the same).
        (["nc"] | ["nc", "ca" | "cg"] | ["ca" | "cg", "nc"], true) => (&[], &["CONSTANT"]),
        (["nc", "cs"] | ["cs", "nc"], true) => (&["EF"], &["CONSTANT"]),
        (["cs"], _) => (&["EF"], &[]),
        // Last use: NVIDIA's `LDG.E.LU[.128]` (probed on sm_90 and sm_80).
        (["lu"], true) => (&["LU"], &[]),
        (["cg"], _) => (&[], &["STRONG", "GPU"]),
        // Don't cache, fetch again: strong at system scope, as NVIDIA's.
        (["cv"], true) => (&[], &["STRONG", "SYS"]),
        (["wt"], false) => (&[], &["STRONG", "SYS"]),
        // NVIDIA's spinlock_fence: volatile accesses are strong at system scope.
        (["volatile"], _) => (&[], &["STRONG", "SYS"]),
        _ => return Err(unsupported(inst)),
    };
    let mut mods = vec!["E"];
    match evict {
        // PTX has a cache operator or an eviction priority, not both.
        Some(_) if !before.is_empty() => return Err(unsupported(inst)),
        Some(word) => mods.extend(word),
        None => mods.extend(before),
    }
    mods.extend(prefetch);
    mods.extend(width);
    mods.extend(after);
    Ok((mods, cache_hint))
}

/// The word of an L2 prefetch size (`LDG.E.LTC128B`, printed after the
/// eviction priority and before the access size).
fn l2_prefetch(qualifier: &str) -> Option<&'static str> {
    Some(match qualifier {
        "L2::64B" => "LTC64B",
        "L2::128B" => "LTC128B",
        "L2::256B" => "LTC256B",
        _ => return None,
    })
}

/// The word of an L1 eviction priority (`None` inside: the default).
fn l1_eviction(qualifier: &str) -> Option<Option<&'static str>> {
    Some(match qualifier {
        "L1::evict_normal" => None,
        "L1::evict_unchanged" => Some("EU"),
        "L1::evict_first" => Some("EF"),
        "L1::evict_last" => Some("EL"),
        "L1::no_allocate" => Some("NA"),
        _ => return None,
    })
}

/// The 64-bit cache policy operand `i` in a uniform pair, an access's
/// memory descriptor: `UMOV`s of a constant (`createpolicy` of a constant
/// fraction), `ULDC.64` of a parameter, else `R2UR` of each word of the
/// register pair (NVIDIA's code, no uniformity loop).
pub(super) fn policy(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<ori_ir::Reg> {
    let u = cx.temp(ori_ir::RegFile::UR, 2);
    let (param, known) = match &operand(inst, i)?.kind {
        ExprKind::Name(r, None) => (
            cx.param_values.get(r.name.as_str()).copied().filter(|p| p.words == 2),
            cx.consts.get(r.name.as_str()).copied(),
        ),
        _ => (None, None),
    };
    if let Some(value) = known {
        for (w, word) in [value as u32, (value >> 32) as u32].into_iter().enumerate() {
            let d = Operand::reg(u.part(w as u8, 1));
            cx.emit(Opcode::UMOV, &[], vec![d], vec![Operand::int(i64::from(word))], inst.span)?;
        }
        return Ok(u);
    }
    if let Some(p) = param {
        cx.emit(Opcode::ULDC, &["64"], vec![u.into()], vec![Operand::cbank(0, p.offset)], inst.span)?;
        return Ok(u);
    }
    let Src64::Reg(r) = src64(cx, inst, i)? else { return Err(unsupported(inst)) };
    for w in 0..2 {
        cx.emit(Opcode::R2UR, &[], vec![Operand::reg(u.part(w, 1))], vec![Operand::reg(r.part(w, 1))], inst.span)?;
    }
    Ok(u)
}

/// A [`plain`] access with a vector size.
fn plain_vector(inst: &Instruction) -> bool {
    inst.modifiers.iter().all(|m| matches!(m.kind, ModifierKind::Vector(_)) || keeps_plain(m))
}

/// Operand `i`, `[r]` or `[r+off]` with a 64-bit register, as a global
/// memory address through the descriptor.
pub(super) fn global_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    if let Some(GlobalRef::Global(_)) = cx.globals.get(base.name.as_str()) {
        // `[var+off]`: the variable's address from the bank first.
        let t = cx.temp(ori_ir::RegFile::R, 2);
        cx.global_var_address(base.name.as_str(), t, "", inst.span)?;
        return cx.global_address(t, offset, inst.span);
    }
    if cx.regs.ty(base.name.as_str()).is_none_or(|t| t.bits() != 64) {
        return Err(unsupported(inst));
    }
    let base = read_reg(cx, base.name.as_str(), base.span)?;
    cx.global_address(base, offset, inst.span)
}

/// Operand `i` as a constant-bank-3 operand: `c[0x3][offset]` for a
/// `.const` variable or a register known to hold one's address, else
/// `c[0x3][r + offset]` with the register's (low) word, a bank offset.
fn const_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    let name = base.name.as_str();
    let fixed =
        |at: i64| -> Lowered<Operand> { Ok(Operand::cbank(3, i32::try_from(at).map_err(|_| unsupported(inst))?)) };
    if let Some(&at) = cx.const_ptrs.get(name) {
        return fixed(at + offset);
    }
    if let Some(GlobalRef::Const(at)) = cx.globals.get(name) {
        return fixed(i64::from(at) + offset);
    }
    let reg = read_reg(cx, name, base.span)?;
    let reg = if reg.width == 2 { reg.part(0, 1) } else { reg };
    let offset = i32::try_from(offset).map_err(|_| unsupported(inst))?;
    Ok(OperandKind::CBank(CBank { bank: Bank::Fixed(3), reg: Some(reg), offset }).into())
}

/// Operand `i` as a local-memory address: `[R1 + offset]` for a local
/// variable or a register known to hold one's address (the frame starts
/// at the stack pointer), else the register's (low) word plus the offset.
pub(super) fn local_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    let name = base.name.as_str();
    let (reg, offset) = if let Some(&at) = cx.local_ptrs.get(name) {
        (ori_ir::Reg::phys(ori_ir::RegFile::R, 1), at + offset)
    } else if let Some(at) = cx.locals.offset(name) {
        (ori_ir::Reg::phys(ori_ir::RegFile::R, 1), i64::from(at) + offset)
    } else {
        let reg = read_reg(cx, name, base.span)?;
        (if reg.width == 2 { reg.part(0, 1) } else { reg }, offset)
    };
    if reg.width != 1 {
        return Err(unsupported(inst));
    }
    Ok(OperandKind::Mem(Address { base: Some(reg), offset, ..Address::default() }).into())
}

/// Operand `i` as a shared-memory address.
pub(super) fn shared_address(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let (base, offset) = address(operand(inst, i)?).ok_or_else(|| unsupported(inst))?;
    shared_base(cx, inst, base, offset)
}

/// `[r+off]` or `[var+off]` in shared memory as an `LDS`/`STS` address; a
/// variable's address is computed into a register first.
fn shared_base(cx: &mut Lowerer<'_>, inst: &Instruction, base: &Ident, offset: i64) -> Lowered<Operand> {
    let base = if cx.regs.ty(base.name.as_str()).is_some() {
        cx.reg(base.name.as_str(), base.span)?
    } else {
        let t = cx.temp(ori_ir::RegFile::R, 1);
        if !cx.shared_address(base.name.as_str(), 0, t, inst.span)? {
            return Err(unsupported(inst));
        }
        t
    };
    // A 64-bit register holds a shared-window address in its low word
    // (the window is 32 bits wide), which is what `LDS`/`STS` read.
    let base = if base.width == 2 { base.part(0, 1) } else { base };
    if base.width != 1 {
        return Err(unsupported(inst));
    }
    Ok(OperandKind::Mem(Address { base: Some(base), offset, ..Address::default() }).into())
}

/// Only a state space, a type and [`keeps_plain`] qualifiers: no cache
/// qualifiers.
fn plain(inst: &Instruction) -> bool {
    inst.modifiers.iter().all(keeps_plain)
}

fn access_store(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    if let Some(n) = vector(inst) {
        if inst.space() == Some(StateSpace::Param) {
            return store_param_vector(cx, inst, ty, n);
        }
        return store_vector(cx, inst, ty, n);
    }
    let global = matches!(inst.space(), Some(StateSpace::Global) | None);
    if !global && !plain(inst) {
        return Err(unsupported(inst));
    }
    let (base, offset) = address(operand(inst, 0)?).ok_or_else(|| unsupported(inst))?;
    if inst.space() == Some(StateSpace::Param) {
        let words = if ty.bits() == 64 { 2 } else { 1 };
        let slot = cx.param_slot(base.name.as_str(), offset, words, inst.span)?.ok_or_else(|| unsupported(inst))?;
        let value = if words == 2 {
            match &operand(inst, 1)?.kind {
                ExprKind::Name(r, None) => read_reg(cx, r.name.as_str(), r.span)?.into(),
                _ => return Err(unsupported(inst)),
            }
        } else {
            src(cx, inst, 1, ty)?
        };
        return copy(cx, inst, slot, value);
    }
    let value = stored_value(cx, inst, ty)?;
    if inst.space() == Some(StateSpace::Shared) {
        let addr = shared_base(cx, inst, base, offset)?;
        let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
        return cx.emit(Opcode::STS, &mods, vec![], vec![addr, value], inst.span);
    }
    if inst.space() == Some(StateSpace::Local) {
        let addr = local_address(cx, inst, 0)?;
        let mods: Vec<&str> = width(ty).ok_or_else(|| unsupported(inst))?.into_iter().collect();
        return cx.emit(Opcode::STL, &mods, vec![], vec![addr, value], inst.span);
    }
    if !matches!(inst.space(), Some(StateSpace::Global) | None) {
        return Err(unsupported(inst));
    }
    let (mods, addr) = global_access(cx, inst, 0, width(ty).ok_or_else(|| unsupported(inst))?, false)?;
    let op = if inst.space().is_some() { Opcode::STG } else { Opcode::ST };
    cx.emit(op, &mods, vec![], vec![addr, value], inst.span)
}

/// `st.param.vN.T [p+off], {v0, ...}` of a call-sequence parameter: each
/// element into its own slot, as a scalar `st.param` of it would be.
fn store_param_vector(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, n: u32) -> Lowered {
    let ExprKind::Braces(elems) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    let words: u8 = match ty.bits() {
        32 => 1,
        64 => 2,
        _ => return Err(unsupported(inst)),
    };
    if elems.len() != n as usize {
        return Err(unsupported(inst));
    }
    let (base, offset) = address(operand(inst, 0)?).ok_or_else(|| unsupported(inst))?;
    for (i, e) in elems.iter().enumerate() {
        let at = offset + 4 * i as i64 * i64::from(words);
        let slot = cx.param_slot(base.name.as_str(), at, words, inst.span)?.ok_or_else(|| unsupported(inst))?;
        let value = match (&e.kind, words) {
            (ExprKind::Name(r, None), 2) => read_reg(cx, r.name.as_str(), r.span)?.into(),
            (_, 2) => return Err(unsupported(inst)),
            _ => src_expr(cx, inst, e, ty)?,
        };
        copy(cx, inst, slot, value)?;
    }
    Ok(())
}

/// The value operand of a scalar `st`: a register as is; a literal zero
/// `RZ` (for 64 bits too: NVIDIA stores `STS.64 [a], RZ`); any other
/// literal moved into a fresh register (pair) first, as NVIDIA does.
fn stored_value(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType) -> Lowered<Operand> {
    let e = operand(inst, 1)?;
    let literal = match &e.kind {
        ExprKind::Int { value, .. } => Some(*value),
        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
            ExprKind::Int { value, .. } => Some(value.wrapping_neg()),
            _ => None,
        },
        ExprKind::Float(f) if ty.bits() == 64 => Some(super::f64_bits(f).ok_or_else(|| unsupported(inst))?),
        ExprKind::Float(_) if ty.bits() == 32 => match src(cx, inst, 1, ty)?.kind {
            OperandKind::Imm(ori_ir::Imm::F32(bits)) => Some(u64::from(bits)),
            _ => None,
        },
        _ => None,
    };
    let Some(value) = literal else {
        let value = src(cx, inst, 1, ty)?;
        return if value.as_reg().is_some() { Ok(value) } else { Err(unsupported(inst)) };
    };
    let value = if ty.bits() >= 64 { value } else { value & ((1u64 << ty.bits()) - 1) };
    if value == 0 {
        return Ok(Operand::reg(ori_ir::Reg::RZ));
    }
    let words = if ty.bits() == 64 { 2 } else { 1 };
    let t = cx.temp(ori_ir::RegFile::R, words);
    for i in 0..words {
        let word = (value >> (32 * u32::from(i))) as u32;
        let def = Operand::reg(t.part(i, 1));
        let def = if i == 0 { def.undef() } else { def };
        cx.emit(Opcode::MOV, &[], vec![def], vec![Operand::int(i64::from(word))], inst.span)?;
    }
    Ok(t.into())
}

/// `st.{global,shared}.vN.T [a], {v0, ...}`: the elements gathered into
/// a fresh tuple, stored by one access.
fn store_vector(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, n: u32) -> Lowered {
    let ExprKind::Braces(elems) = &operand(inst, 1)?.kind else { return Err(unsupported(inst)) };
    if elems.len() != n as usize {
        return Err(unsupported(inst));
    }
    if ty.bits() < 32 {
        return store_narrow_vector(cx, inst, ty, elems);
    }
    let (elem_bits, words) = vector_shape(ty, n).ok_or_else(|| unsupported(inst))?;
    let elem_words = (elem_bits / 32) as u8;
    let t = cx.temp(ori_ir::RegFile::R, words);
    for (i, e) in elems.iter().enumerate() {
        let part = t.part(i as u8 * elem_words, elem_words);
        let def = if i == 0 { Operand::reg(part).undef() } else { Operand::reg(part) };
        match (&e.kind, elem_words) {
            (ExprKind::Name(r, None), 1) => {
                let v = cx.reg(r.name.as_str(), e.span)?;
                cx.emit(Opcode::MOV, &[], vec![def], vec![v.into()], inst.span)?;
            }
            (ExprKind::Name(r, None), _) => {
                let v = read_reg(cx, r.name.as_str(), e.span)?;
                cx.copy_pair(def, v.into(), inst.span)?;
            }
            (ExprKind::Int { value, .. }, 1) => {
                cx.emit(Opcode::MOV, &[], vec![def], vec![Operand::int(i64::from(*value as u32))], inst.span)?;
            }
            (ExprKind::Float(_), 1) => {
                let v = src_expr(cx, inst, e, ty)?;
                cx.emit(Opcode::MOV, &[], vec![def], vec![v], inst.span)?;
            }
            _ => return Err(unsupported(inst)),
        }
    }
    let (op, mods, addr) = match inst.space() {
        Some(StateSpace::Global) | None => {
            let (mods, addr) = global_access(cx, inst, 0, Some(wide_width(words)), false)?;
            (if inst.space().is_some() { Opcode::STG } else { Opcode::ST }, mods, addr)
        }
        Some(StateSpace::Shared) if plain_vector(inst) => {
            (Opcode::STS, vec![wide_width(words)], shared_address(cx, inst, 0)?)
        }
        Some(StateSpace::Local) if plain_vector(inst) => {
            (Opcode::STL, vec![wide_width(words)], local_address(cx, inst, 0)?)
        }
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, &mods, vec![], vec![addr, t.into()], inst.span)
}

/// `st.SPACE.vN.{8,16-bit} [a], {v0, ...}` (NVIDIA's form): the elements
/// packed into words by `PRMT` (bytes pairwise with selector `0x40`, then
/// halves with `0x5410`), stored by one access of the vector's size.
fn store_narrow_vector(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, elems: &[Expr]) -> Lowered {
    let total = ty.bits() * elems.len() as u32;
    if !matches!(ty.bits(), 8 | 16) || !matches!(total, 16 | 32 | 64) {
        return Err(unsupported(inst));
    }
    let mut parts = Vec::new();
    for e in elems {
        let v = src_expr(cx, inst, e, ty)?;
        parts.push(if v.as_reg().is_some() {
            v
        } else {
            let t = cx.temp(ori_ir::RegFile::R, 1);
            cx.emit(Opcode::MOV, &[], vec![t.into()], vec![v], inst.span)?;
            t.into()
        });
    }
    let rz = Operand::reg(ori_ir::Reg::RZ);
    let join = |cx: &mut Lowerer<'_>, parts: Vec<Operand>, selector: i64| -> Lowered<Vec<Operand>> {
        parts
            .chunks(2)
            .map(|pair| {
                let t = cx.temp(ori_ir::RegFile::R, 1);
                let hi = pair.get(1).cloned().unwrap_or_else(|| rz.clone());
                cx.emit(
                    Opcode::PRMT,
                    &[],
                    vec![t.into()],
                    vec![pair[0].clone(), Operand::int(selector), hi],
                    inst.span,
                )?;
                Ok(t.into())
            })
            .collect()
    };
    if ty.bits() == 8 {
        parts = join(cx, parts, 0x40)?;
    }
    if total > 16 {
        parts = join(cx, parts, 0x5410)?;
    }
    let (value, width) = match parts.as_slice() {
        [one] => (one.clone(), if total == 16 { Some("U16") } else { None }),
        [lo, hi] => {
            let t = cx.temp(ori_ir::RegFile::R, 2);
            cx.emit(Opcode::MOV, &[], vec![Operand::reg(t.part(0, 1)).undef()], vec![lo.clone()], inst.span)?;
            cx.emit(Opcode::MOV, &[], vec![Operand::reg(t.part(1, 1))], vec![hi.clone()], inst.span)?;
            (t.into(), Some("64"))
        }
        _ => return Err(unsupported(inst)),
    };
    let (op, mods, addr) = match inst.space() {
        Some(StateSpace::Global) | None => {
            let op = if inst.space().is_some() { Opcode::STG } else { Opcode::ST };
            let (mods, addr) = global_access(cx, inst, 0, width, false)?;
            (op, mods, addr)
        }
        Some(StateSpace::Shared) if plain_vector(inst) => {
            (Opcode::STS, width.into_iter().collect(), shared_address(cx, inst, 0)?)
        }
        Some(StateSpace::Local) if plain_vector(inst) => {
            (Opcode::STL, width.into_iter().collect(), local_address(cx, inst, 0)?)
        }
        _ => return Err(unsupported(inst)),
    };
    cx.emit(op, &mods, vec![], vec![addr, value], inst.span)
}

/// An element of a vector operand as a 32-bit source (a float literal as
/// its bits, for `MOV`).
fn src_expr(cx: &mut Lowerer<'_>, inst: &Instruction, e: &Expr, ty: ScalarType) -> Lowered<Operand> {
    let v = super::expr(cx, e, ty).ok_or_else(|| unsupported(inst))??;
    Ok(match v.kind {
        OperandKind::Imm(ori_ir::Imm::F32(bits)) => Operand::int(i64::from(bits)),
        _ => v,
    })
}

/// The size modifier of `LDG`/`STG` for `ty` (none for 32 bits).
fn width(ty: ScalarType) -> Option<Option<&'static str>> {
    use ScalarType::*;
    Some(match ty {
        U8 => Some("U8"),
        S8 => Some("S8"),
        U16 => Some("U16"),
        S16 => Some("S16"),
        B8 => Some("U8"),
        B16 => Some("U16"),
        _ if ty.bits() == 32 => None,
        _ if ty.bits() == 64 => Some("64"),
        // `.b128` (sm_70+ PTX 8.3): one access of the register quad.
        _ if ty.bits() == 128 => Some("128"),
        _ => return None,
    })
}

/// `[name]`, `[name+imm]` or `[name-imm]`: the name and the byte offset.
pub(super) fn address(e: &Expr) -> Option<(&Ident, i64)> {
    let ExprKind::Address(items) = &e.kind else { return None };
    let [item] = items.as_slice() else { return None };
    match &item.kind {
        ExprKind::Name(n, None) => Some((n, 0)),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ExprKind::Name(n, None) = &a.kind else { return None };
            let v = match &b.kind {
                ExprKind::Int { value, .. } => *value as i64,
                // `[%r+-4]`
                ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
                    ExprKind::Int { value, .. } => (value as i64).wrapping_neg(),
                    _ => return None,
                },
                _ => return None,
            };
            Some((n, if *op == BinaryOp::Add { v } else { -v }))
        }
        _ => None,
    }
}
