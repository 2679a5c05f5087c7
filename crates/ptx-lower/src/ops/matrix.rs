//! Warp-level matrix instructions, in NVIDIA's sequences (nvdisasm of
//! ptxas 13.5's cubins of mma_ldmatrix, wmma_gemm and one-instruction
//! kernels, sm_90 and sm_80 alike):
//!
//! | PTX | SASS |
//! |---|---|
//! | `ldmatrix.sync.aligned.m8n8.xN[.trans].shared[::cta].b16 {d..}, [a]` | `LDSM.16.M88[.2/.4]` (`.MT88` transposed) `d, [a]` |
//! | `stmatrix.sync.aligned.m8n8.xN[.trans].shared[::cta].b16 [a], {s..}` (sm_90+) | `STSM.16.M88[.2/.4]` (`.MT88` transposed) `[a], s` |
//! | `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 d, a, b, c` | `HMMA.16816.F32 d, a, b, c` |
//! | `mma` m16n8k16 `.f32.bf16.bf16.f32`, `.f16.f16.f16.f16`; m16n8k8 `.f32.tf32.tf32.f32`, `.f32.{f16,bf16}`, `.f16` | `HMMA.16816.F32.BF16`, `HMMA.16816.F16`; `HMMA.1688.F32.TF32`, `HMMA.1688.F32[.BF16]`, `HMMA.1688.F16` |
//! | `wmma.load.a.sync.aligned.row.m16n16k16.global.f16`, `wmma.load.b ... .col ...` | lane offset `(lane / 4) * (ldm / 2) + lane % 4` words (`S2R SR_LANEID`, `SHF`, `LOP3`, `IMAD.WIDE.U32`), `p = base + 4 * offset`, `q = p + 16 ldm` (`IMAD.WIDE.U32 q, ldm, 0x10, p`); four `LDG.E`: A `[p] [q] [p+0x10] [q+0x10]`, B `[p] [p+0x10] [q] [q+0x10]` |
//! | `wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 d, a, b, c` | `HMMA.16816.F32 d0..3, a0..3, b0..1, c0..3`; `HMMA.16816.F32 d4..7, a0..3, b2..3, c4..7` (sm_75: `HMMA.1688.F32 d0..3, a0..1, b0, c0..3`; `.. d4..7, a0..1, b2, c4..7`; `.. d0..3, a2..3, b1, d0..3`; `.. d4..7, a2..3, b3, d4..7`) |
//! | `wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [a], d, ldm` | the same lane offset in 8-byte units, `q = p + 64 (ldm / 2)`; `STG.E.64 [p] d0..1, [q] d2..3, [p+0x20] d4..5, [q+0x20] d6..7` |
//!
//! The wmma fragments of A and B have eight registers of which NVIDIA's
//! code fills four: registers 4-7 repeat 0-3 (a kernel storing all eight
//! after `wmma.load.a` stores the four loaded words twice), so they are
//! copies here, which dead-code elimination removes when only `wmma.mma`
//! reads them.
//!
//! Fragments are Ori tuples: a destination list whose registers have no
//! virtual register yet becomes the parts of a fresh tuple (no copies);
//! a source list that is already the consecutive parts of one tuple is
//! read as it; any other list is gathered into a fresh tuple with `MOV`s
//! (and a result list written back from one). Accumulator lists are bound
//! to tuples before the body is lowered ([`bind_fragments`]), so that
//! `HMMA` updates them in place, as NVIDIA's code does.
//!
//! The lane offset of `wmma.load` is computed once in the entry block
//! when the stride is the same in the whole function ([`lane_offset`]):
//! NVIDIA hoists it out of the loop.

use ori_ir::{Address, Fp8Mma, Opcode, Operand, OperandKind, Reg, RegFile, SpecialReg};
use ptx_syntax::Span;
use ptx_syntax::ast::{ExprKind, Instruction, ModifierKind, ScalarType, Statement};

use super::mem::{global_address, shared_address};
use super::{operand, src, unsupported};
use crate::error::{Lowered, at};
use crate::func::Lowerer;

/// Lowers `ldmatrix`, `stmatrix`, `mma` and `wmma`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    // The cubin records `wmma` use (EIATTR_WMMA_USED), `mma.sync` not.
    cx.func.attrs.uses_wmma |= inst.opcode.name == "wmma";
    match inst.opcode.name.as_str() {
        "ldmatrix" => ldmatrix(cx, inst),
        "stmatrix" => stmatrix(cx, inst),
        "mma" => mma(cx, inst),
        "wmma" if inst.has("load") => wmma_load(cx, inst),
        "wmma" if inst.has("mma") => wmma_mma(cx, inst),
        "wmma" if inst.has("store") => wmma_store(cx, inst),
        _ => Err(unsupported(inst)),
    }
}

/// True when the instruction's modifiers other than types are exactly
/// `words` (in any order) and its types are `types` (in order): every
/// qualifier changes the operation, so an unknown one must not be ignored.
fn exactly(inst: &Instruction, words: &[&str], types: &[ScalarType]) -> bool {
    let others = inst.modifiers.iter().filter(|m| !matches!(m.kind, ModifierKind::Type(_)));
    others.count() == words.len() && words.iter().all(|w| inst.has(w)) && inst.types().eq(types.iter().copied())
}

/// The register names of brace-list operand `i`, which must have `n`.
pub(super) fn names(inst: &Instruction, i: usize, n: usize) -> Lowered<Vec<(&str, Span)>> {
    let ExprKind::Braces(elems) = &operand(inst, i)?.kind else { return Err(unsupported(inst)) };
    let names: Vec<(&str, Span)> = elems
        .iter()
        .filter_map(|e| match &e.kind {
            ExprKind::Name(r, None) => Some((r.name.as_str(), r.span)),
            _ => None,
        })
        .collect();
    if names.len() != n || elems.len() != n {
        return Err(unsupported(inst));
    }
    Ok(names)
}

/// Gives the accumulator lists (C and D) of every `mma` and `wmma.mma` in
/// `statements` a fresh tuple each before the body is lowered, four
/// registers at a time (the accumulators of one `HMMA`), so that the
/// moves that initialise them, the `HMMA`s that update them and the
/// stores that read them all work on the tuple: otherwise each `HMMA`
/// gathers its accumulators into a tuple and scatters its results back
/// with `MOV`s (NVIDIA's code has none). A list with a register already
/// bound (to another list, in another order) or named twice is left to
/// [`gather`] and [`place`].
pub(crate) fn bind_fragments(cx: &mut Lowerer<'_>, statements: &[Statement]) {
    for s in statements {
        match s {
            Statement::Instruction(i) => {
                let lists: &[(usize, usize)] = match (i.opcode.name.as_str(), i.has("mma")) {
                    ("mma", _) => match mma_form(i).map(|f| f.counts[2]) {
                        Some(4) => &[(0, 4), (3, 4)][..],
                        Some(2) => &[(0, 2), (3, 2)][..],
                        _ => &[],
                    },
                    ("wmma", true) => &[(0, 8), (3, 8)],
                    _ => &[],
                };
                for &(operand, n) in lists {
                    let Ok(list) = names(i, operand, n) else { continue };
                    for chunk in list.chunks(n.min(4)) {
                        bind(cx, chunk);
                    }
                }
            }
            Statement::Block(b) => bind_fragments(cx, &b.statements),
            _ => {}
        }
    }
}

/// Makes `names` the parts of one fresh tuple, unless one of them is
/// bound already or named twice.
pub(super) fn bind(cx: &mut Lowerer<'_>, names: &[(&str, Span)]) {
    let fresh = names.iter().all(|&(n, _)| cx.regs.existing(n).is_none());
    let distinct = names.iter().enumerate().all(|(k, (n, _))| names[..k].iter().all(|(m, _)| m != n));
    if !fresh || !distinct {
        return;
    }
    let t = cx.temp(RegFile::R, names.len() as u8);
    for (k, &(n, _)) in names.iter().enumerate() {
        cx.regs.alias(n, t.part(k as u8, 1));
    }
}

/// `regs` as one tuple, when they are the consecutive words of one
/// virtual register starting at a multiple of their count.
pub(super) fn as_tuple(regs: &[Reg]) -> Option<Reg> {
    let first = *regs.first()?;
    let start = first.word?;
    let n = u8::try_from(regs.len()).ok()?;
    let consecutive = regs.iter().enumerate().all(|(k, r)| {
        r.is_virtual && r.file == first.file && r.num == first.num && r.width == 1 && r.word == Some(start + k as u8)
    });
    (consecutive && start.is_multiple_of(n)).then(|| first.whole(1).part(start, n))
}

/// Source registers `names` as one tuple: the tuple they already are, or
/// a fresh one they are copied into.
fn gather(cx: &mut Lowerer<'_>, names: &[(&str, Span)], span: Span) -> Lowered<Reg> {
    let regs = names.iter().map(|&(n, s)| cx.reg(n, s)).collect::<Lowered<Vec<Reg>>>()?;
    if regs.iter().any(|r| r.file != RegFile::R || r.width != 1) {
        return Err(at(span, "matrix fragments must be 32-bit registers"));
    }
    if let Some(t) = as_tuple(&regs) {
        return Ok(t);
    }
    let t = cx.temp(RegFile::R, regs.len() as u8);
    for (k, r) in regs.iter().enumerate() {
        let part = Operand::reg(t.part(k as u8, 1));
        let part = if k == 0 { part.undef() } else { part };
        cx.emit(Opcode::MOV, &[], vec![part], vec![Operand::reg(*r)], span)?;
    }
    Ok(t)
}

/// Where an instruction writes the registers `names`: a fresh tuple whose
/// parts they become (registers not seen before), or the tuple they
/// already are, or a fresh tuple to copy from afterwards (`Out::finish`).
/// A tuple some later instruction of the same sequence reads (`busy`) is
/// not written early: the result goes to a fresh tuple.
fn place(cx: &mut Lowerer<'_>, names: &[(&str, Span)], busy: &[Reg]) -> Lowered<Out> {
    let existing: Option<Vec<Reg>> = names.iter().map(|&(name, _)| cx.regs.existing(name)).collect();
    if let Some(tuple) = existing.as_deref().and_then(as_tuple).filter(|e| !busy.iter().any(|b| overlaps(*b, *e))) {
        return Ok(Out { tuple, copies: Vec::new() });
    }
    let t = cx.temp(RegFile::R, names.len() as u8);
    let mut copies = Vec::new();
    for (k, &(name, span)) in names.iter().enumerate() {
        // A register seen before gets the result by a copy; the others
        // are the tuple's parts.
        if !cx.regs.alias(name, t.part(k as u8, 1)) {
            copies.push((cx.reg(name, span)?, k as u8));
        }
    }
    Ok(Out { tuple: t, copies })
}

/// Whether two registers share a word.
fn overlaps(a: Reg, b: Reg) -> bool {
    a.file == b.file
        && a.num == b.num
        && a.is_virtual == b.is_virtual
        && a.words().start < b.words().end
        && b.words().start < a.words().end
}

/// A result tuple and the PTX registers to copy from it afterwards.
struct Out {
    tuple: Reg,
    copies: Vec<(Reg, u8)>,
}

impl Out {
    /// Copies the result to the registers that are not parts of it.
    fn finish(self, cx: &mut Lowerer<'_>, span: Span) -> Lowered {
        for (r, k) in self.copies {
            cx.emit(Opcode::MOV, &[], vec![r.into()], vec![Operand::reg(self.tuple.part(k, 1))], span)?;
        }
        Ok(())
    }
}

/// The matrix count and `.trans` of an `ldmatrix`/`stmatrix`
/// `.sync.aligned.m8n8.xN[.trans].shared[::cta].b16`; any other form is
/// not lowered.
fn m8n8_form(inst: &Instruction) -> Lowered<(usize, bool)> {
    let Some((count, n)) = [("x1", 1), ("x2", 2), ("x4", 4)].into_iter().find(|(x, _)| inst.has(x)) else {
        return Err(unsupported(inst));
    };
    let trans = inst.has("trans");
    let space = if inst.has("shared::cta") { "shared::cta" } else { "shared" };
    let mut words = vec!["sync", "aligned", "m8n8", count, space];
    if trans {
        words.push("trans");
    }
    if !exactly(inst, &words, &[ScalarType::B16]) {
        return Err(unsupported(inst));
    }
    Ok((n, trans))
}

/// `ldmatrix.sync.aligned.m8n8.xN[.trans].shared[::cta].b16 {d0, ..}, [a]`:
/// `LDSM.16.M88[.N]` (`.MT88` when transposed; `.x1` has no count).
fn ldmatrix(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let (n, trans) = m8n8_form(inst)?;
    let addr = shared_address(cx, inst, 1)?;
    let dests = names(inst, 0, n)?;
    let out = place(cx, &dests, &[])?;
    cx.emit(Opcode::LDSM, &matrix_mods(trans, n), vec![out.tuple.into()], vec![addr], inst.span)?;
    out.finish(cx, inst.span)
}

/// `stmatrix.sync.aligned.m8n8.xN[.trans].shared[::cta].b16 [a], {s0, ..}`:
/// `STSM.16.M88[.N] [a], s` (`.MT88` when transposed), the mirror of
/// [`ldmatrix`]; the sources are gathered into one tuple. (`.m16n8.b8`
/// is sm_100a/sm_120a's, for which nothing is generated yet; a generic
/// address is not lowered.)
fn stmatrix(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let (n, trans) = m8n8_form(inst)?;
    let addr = shared_address(cx, inst, 0)?;
    let sources = names(inst, 1, n)?;
    let data = gather(cx, &sources, inst.span)?;
    cx.emit(Opcode::STSM, &matrix_mods(trans, n), vec![], vec![addr, data.into()], inst.span)
}

/// `LDSM`/`STSM`'s modifiers: `16`, `M88` (`MT88` transposed) and the
/// count of 8x8 matrices (none for one).
fn matrix_mods(trans: bool, n: usize) -> Vec<&'static str> {
    let mut mods = vec!["16", if trans { "MT88" } else { "M88" }];
    match n {
        2 => mods.push("2"),
        4 => mods.push("4"),
        _ => {}
    }
    mods
}

/// One `mma.sync` form NVIDIA's tensor cores run as one `HMMA`.
struct MmaForm {
    shape: &'static str,
    /// Types of d, a, b and c.
    types: [ScalarType; 4],
    /// The HMMA's modifiers.
    mods: &'static [&'static str],
    /// Registers of A, B and C/D.
    counts: [usize; 3],
}

/// The `mma.sync` forms lowered.
const MMA_FORMS: &[MmaForm] = {
    use ScalarType::{Bf16, F16, F32, Tf32};
    const fn form(
        shape: &'static str,
        types: [ScalarType; 4],
        mods: &'static [&'static str],
        counts: [usize; 3],
    ) -> MmaForm {
        MmaForm { shape, types, mods, counts }
    }
    &[
        form("m16n8k16", [F32, F16, F16, F32], &["16816", "F32"], [4, 2, 4]),
        form("m16n8k16", [F32, Bf16, Bf16, F32], &["16816", "F32", "BF16"], [4, 2, 4]),
        form("m16n8k16", [F16, F16, F16, F16], &["16816", "F16"], [4, 2, 2]),
        form("m16n8k8", [F32, Tf32, Tf32, F32], &["1688", "F32", "TF32"], [4, 2, 4]),
        form("m16n8k8", [F32, F16, F16, F32], &["1688", "F32"], [2, 1, 4]),
        form("m16n8k8", [F32, Bf16, Bf16, F32], &["1688", "F32", "BF16"], [2, 1, 4]),
        form("m16n8k8", [F16, F16, F16, F16], &["1688", "F16"], [2, 1, 2]),
    ]
};

/// An `mma.sync` form: the opcode, its modifiers and the registers of A,
/// B and C/D.
struct Mma {
    op: Opcode,
    mods: Vec<&'static str>,
    counts: [usize; 3],
    /// fp8 inputs: the `F2FP.F16.*.UNPACK_B` type of A and of B ([`fp8`]).
    unpack: Option<[&'static str; 2]>,
}

/// `inst`'s form: one of [`MMA_FORMS`] (`HMMA`) or an 8-bit integer one
/// ([`imma_form`]).
fn mma_form(inst: &Instruction) -> Option<Mma> {
    if let Some(f) = MMA_FORMS.iter().find(|f| exactly(inst, &["sync", "aligned", f.shape, "row", "col"], &f.types)) {
        return Some(Mma { op: Opcode::HMMA, mods: f.mods.to_vec(), counts: f.counts, unpack: None });
    }
    imma_form(inst).or_else(|| fp8_form(inst))
}

/// `mma.sync.aligned.m16n8k32.row.col.f32.A.B.f32` with A and B `.e4m3` or
/// `.e5m2`: sm_90 runs it as two `HMMA.16816.F32` of unpacked binary16
/// pairs ([`fp8`]).
fn fp8_form(inst: &Instruction) -> Option<Mma> {
    use ScalarType::{E4m3, E5m2, F32};
    let types: Vec<ScalarType> = inst.types().collect();
    let [F32, a @ (E4m3 | E5m2), b @ (E4m3 | E5m2), F32] = types[..] else { return None };
    if !exactly(inst, &["sync", "aligned", "m16n8k32", "row", "col"], &types) {
        return None;
    }
    let name = |t: ScalarType| if t == E4m3 { "E4M3" } else { "E5M2" };
    let unpack = Some([name(a), name(b)]);
    Some(Mma { op: Opcode::HMMA, mods: vec!["16816", "F32"], counts: [4, 2, 4], unpack })
}

/// `mma.sync.aligned.{m16n8k32,m16n8k16}.row.col[.satfinite].s32.A.B.s32`
/// with A and B `.s8` or `.u8`: NVIDIA's `IMMA.{16832,16816}.A.B[.SAT]`
/// (A four registers and B two for k = 32, two and one for k = 16).
fn imma_form(inst: &Instruction) -> Option<Mma> {
    use ScalarType::{S8, S32, U8};
    let (ptx_shape, shape, counts) =
        [("m16n8k32", "16832", [4, 2, 4]), ("m16n8k16", "16816", [2, 1, 4])].into_iter().find(|f| inst.has(f.0))?;
    let sat = inst.has("satfinite");
    let mut words = vec!["sync", "aligned", ptx_shape, "row", "col"];
    words.extend(sat.then_some("satfinite"));
    let types: Vec<ScalarType> = inst.types().collect();
    let [S32, a @ (S8 | U8), b @ (S8 | U8), S32] = types[..] else { return None };
    if !exactly(inst, &words, &types) {
        return None;
    }
    let name = |t: ScalarType| if t == S8 { "S8" } else { "U8" };
    let mut mods = vec![shape, name(a), name(b)];
    mods.extend(sat.then_some("SAT"));
    Some(Mma { op: Opcode::IMMA, mods, counts, unpack: None })
}

/// `mma.sync.aligned.SHAPE.row.col.D.A.B.C d, a, b, c` of [`mma_form`]:
/// `HMMA.SHAPE.ACC[.TYPE] d, a, b, c` or `IMMA.SHAPE.A.B[.SAT] d, a.ROW,
/// b.COL, c` (nvdisasm's layout marks).
fn mma(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let Some(Mma { op, mods, counts: [an, bn, cn], unpack }) = mma_form(inst) else { return Err(unsupported(inst)) };
    let a = gather(cx, &names(inst, 1, an)?, inst.span)?;
    let b = gather(cx, &names(inst, 2, bn)?, inst.span)?;
    let c = gather(cx, &names(inst, 3, cn)?, inst.span)?;
    let d = place(cx, &names(inst, 0, cn)?, &[])?;
    if let Some(types) = unpack {
        if cx.target.features.fp8_mma != Fp8Mma::ViaF16 {
            return Err(unsupported(inst));
        }
        fp8(cx, types, [a, b, c, d.tuple], inst.span)?;
        return d.finish(cx, inst.span);
    }
    let (mut a, mut b) = (Operand::reg(a), Operand::reg(b));
    if op == Opcode::IMMA {
        a.flags.layout = Some(ori_ir::Layout::Row);
        b.flags.layout = Some(ori_ir::Layout::Col);
    }
    cx.emit(op, &mods, vec![d.tuple.into()], vec![a, b, c.into()], inst.span)?;
    d.finish(cx, inst.span)
}

/// fp8 `mma` (sm_90), NVIDIA's sequence: the low halves of A's four and
/// B's two registers unpacked to binary16 pairs (`F2FP.F16.E4M3.UNPACK_B`
/// / `E5M2`), `HMMA.16816.F32 t, a_lo, b_lo, RZ`; the high halves (`.H1`),
/// `HMMA.16816.F32 t, a_hi, b_hi, t`; then `d = FADD c, t` per element (C
/// is added last). The two halves' products use the same order of k in A
/// and B, so together they sum over all 32.
fn fp8(cx: &mut Lowerer<'_>, [a_type, b_type]: [&'static str; 2], [a, b, c, d]: [Reg; 4], span: Span) -> Lowered {
    let mut t = Reg::RZ;
    for high in [false, true] {
        let a = unpack_fp8(cx, a, a_type, high, span)?;
        let b = unpack_fp8(cx, b, b_type, high, span)?;
        let sum = cx.temp(RegFile::R, 4);
        cx.emit(Opcode::HMMA, &["16816", "F32"], vec![sum.into()], vec![a.into(), b.into(), t.into()], span)?;
        t = sum;
    }
    for k in 0..4 {
        let uses = vec![Operand::reg(c.part(k, 1)), Operand::reg(t.part(k, 1))];
        cx.emit(Opcode::FADD, &[], vec![Operand::reg(d.part(k, 1))], uses, span)?;
    }
    Ok(())
}

/// The low (or high) halves of `src`'s registers unpacked into a fresh
/// tuple of binary16 pairs: `F2FP.F16.TYPE.UNPACK_B t.k, src.k[.H1]`.
fn unpack_fp8(cx: &mut Lowerer<'_>, src: Reg, ty: &'static str, high: bool, span: Span) -> Lowered<Reg> {
    let out = cx.temp(RegFile::R, src.width);
    for k in 0..src.width {
        let mut from = Operand::reg(src.part(k, 1));
        from.flags.halves = high.then_some(ori_ir::Halves::H1);
        let to = Operand::reg(out.part(k, 1));
        let to = if k == 0 { to.undef() } else { to };
        cx.emit(Opcode::F2FP, &["F16", ty, "UNPACK_B"], vec![to], vec![from], span)?;
    }
    Ok(out)
}

/// `HMMA.16816.F32 d, a, b, c`.
fn hmma(cx: &mut Lowerer<'_>, d: Reg, a: Reg, b: Reg, c: Reg, span: Span) -> Lowered {
    cx.emit(Opcode::HMMA, &["16816", "F32"], vec![d.into()], vec![a.into(), b.into(), c.into()], span)
}

/// `HMMA.1688.F32 d, a, b, c` (Turing's half of an m16n8k16 product).
fn hmma_k8(cx: &mut Lowerer<'_>, d: Reg, a: Reg, b: Reg, c: Reg, span: Span) -> Lowered {
    cx.emit(Opcode::HMMA, &["1688", "F32"], vec![d.into()], vec![a.into(), b.into(), c.into()], span)
}

/// `wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 d, a, b, c`: two
/// m16n8k16 products, columns 0-7 (B registers 0-1, C and D 0-3) and 8-15
/// (B 2-3, C and D 4-7), both with A registers 0-3.
fn wmma_mma(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !exactly(inst, &["mma", "sync", "aligned", "row", "col", "m16n16k16"], &[ScalarType::F32, ScalarType::F32]) {
        return Err(unsupported(inst));
    }
    let (an, bn, cn, dn) = (names(inst, 1, 8)?, names(inst, 2, 8)?, names(inst, 3, 8)?, names(inst, 0, 8)?);
    let a = gather(cx, &an[..4], inst.span)?;
    let b0 = gather(cx, &bn[..2], inst.span)?;
    let b1 = gather(cx, &bn[2..4], inst.span)?;
    let c0 = gather(cx, &cn[..4], inst.span)?;
    let c1 = gather(cx, &cn[4..], inst.span)?;
    // Turing's second k step reads A and both B pairs after the first
    // wrote d0 and d1.
    let k16 = cx.target.isa.hmma_k16;
    let d0 = if k16 { place(cx, &dn[..4], &[a, b1, c1])? } else { place(cx, &dn[..4], &[a, b0, b1, c1])? };
    let d1 = if k16 { place(cx, &dn[4..], &[])? } else { place(cx, &dn[4..], &[a, b0, b1, d0.tuple])? };
    if k16 {
        hmma(cx, d0.tuple, a, b0, c0, inst.span)?;
        hmma(cx, d1.tuple, a, b1, c1, inst.span)?;
    } else {
        // Turing: k = 0..7 (A registers 0-1, B registers 0 and 2), then
        // k = 8..15 (A 2-3, B 1 and 3) onto the sums, in NVIDIA's order.
        let (a_lo, a_hi) = (a.part(0, 2), a.part(2, 2));
        hmma_k8(cx, d0.tuple, a_lo, b0.part(0, 1), c0, inst.span)?;
        hmma_k8(cx, d1.tuple, a_lo, b1.part(0, 1), c1, inst.span)?;
        hmma_k8(cx, d0.tuple, a_hi, b0.part(1, 1), d0.tuple, inst.span)?;
        hmma_k8(cx, d1.tuple, a_hi, b1.part(1, 1), d1.tuple, inst.span)?;
    }
    d0.finish(cx, inst.span)?;
    d1.finish(cx, inst.span)
}

/// The base pair and offset of global address operand `i`.
fn global_base(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<(Reg, i64)> {
    match global_address(cx, inst, i)?.kind {
        OperandKind::Mem(Address { base: Some(base), offset, .. }) if base.width == 2 => Ok((base, offset)),
        _ => Err(unsupported(inst)),
    }
}

/// The stride operand `ldm` in a register.
fn stride(cx: &mut Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Operand> {
    let ldm = src(cx, inst, i, ScalarType::U32)?;
    if ldm.as_reg().is_some() {
        return Ok(ldm);
    }
    let t = cx.temp(RegFile::R, 1);
    cx.imad_mov(t.into(), ldm, inst.span)?;
    Ok(t.into())
}

/// A wmma stride known for the whole function: an immediate, or a
/// parameter (its offset in constant bank 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Stride {
    Imm(i64),
    Param(i32),
}

/// The stride operand `i` when it is the same everywhere in the function.
fn invariant_stride(cx: &Lowerer<'_>, inst: &Instruction, i: usize) -> Lowered<Option<Stride>> {
    Ok(match &operand(inst, i)?.kind {
        ExprKind::Int { value, .. } => Some(Stride::Imm(i64::from(*value as u32))),
        ExprKind::Name(r, None) => match (cx.consts.get(r.name.as_str()), cx.param_values.get(r.name.as_str())) {
            (Some(&v), _) => Some(Stride::Imm(i64::from(v as u32))),
            (None, Some(p)) if p.words == 1 => Some(Stride::Param(p.offset)),
            _ => None,
        },
        _ => None,
    })
}

/// The per-lane byte offset of a wmma fragment, `((lane / 4) * (ldm / 2) +
/// lane % 4) << shift` (`shift` 2 for f16 pairs, 3 for f32 pairs), as a
/// 64-bit value. A fragment load in a loop would compute it at every
/// iteration: with a stride known for the whole function it is computed
/// once, at the end of the entry block (NVIDIA's code hoists it out of the
/// loop too).
fn lane_offset(cx: &mut Lowerer<'_>, inst: &Instruction, ldm: &Operand, shift: i64) -> Lowered<Reg> {
    let Some(stride) = invariant_stride(cx, inst, 2)? else {
        return lane_bytes(cx, ldm.clone(), shift, inst.span);
    };
    if let Some(&r) = cx.lane_offsets.get(&(stride, shift)) {
        return Ok(r);
    }
    let span = inst.span;
    let r = cx.in_entry(|cx| {
        let ldm = match stride {
            // In a register, as `stride` puts it: `SHF` reads it there.
            Stride::Imm(v) => {
                let t = cx.temp(RegFile::R, 1);
                cx.imad_mov(t.into(), Operand::int(v), span)?;
                t.into()
            }
            Stride::Param(offset) => {
                // Read as `ld.param` reads it (mem.rs).
                let t = cx.temp(RegFile::R, 1);
                let op = if cx.target.isa.bank_operands { Opcode::MOV } else { Opcode::LDC };
                cx.emit(op, &[], vec![t.into()], vec![Operand::cbank(0, offset)], span)?;
                t.into()
            }
        };
        lane_bytes(cx, ldm, shift, span)
    })?;
    cx.lane_offsets.insert((stride, shift), r);
    Ok(r)
}

/// Emits the computation of [`lane_offset`] here.
fn lane_bytes(cx: &mut Lowerer<'_>, ldm: Operand, shift: i64, span: Span) -> Lowered<Reg> {
    let rz = || Operand::reg(Reg::RZ);
    let lane = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::S2R, &[], vec![lane.into()], vec![OperandKind::Special(SpecialReg::LaneId).into()], span)?;
    let half = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![half.into()], vec![rz(), Operand::int(1), ldm], span)?;
    let group = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![group.into()], vec![rz(), Operand::int(2), lane.into()], span)?;
    // (lane % 4, 0) as the 64-bit addend.
    let index = cx.temp(RegFile::R, 2);
    let uses = vec![lane.into(), Operand::int(3), rz(), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::LOP3, &["LUT"], vec![Operand::reg(index.part(0, 1)).undef()], uses, span)?;
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(index.part(1, 1))], vec![rz()], span)?;
    let words = cx.temp(RegFile::R, 2);
    let uses = vec![group.into(), half.into(), index.into()];
    cx.emit(Opcode::IMAD, &["WIDE", "U32"], vec![words.into()], uses, span)?;
    let bytes = cx.temp(RegFile::R, 2);
    let uses = vec![Operand::reg(words.part(0, 1)), Operand::int(shift), Operand::reg(words.part(1, 1))];
    cx.emit(Opcode::SHF, &["L", "U64", "HI"], vec![Operand::reg(bytes.part(1, 1)).undef()], uses, span)?;
    let uses = vec![Operand::reg(words.part(0, 1)), Operand::int(shift), rz()];
    cx.emit(Opcode::SHF, &["L", "U32"], vec![Operand::reg(bytes.part(0, 1))], uses, span)?;
    Ok(bytes)
}

/// `p = base + bytes`, 64-bit.
fn add_pair(cx: &mut Lowerer<'_>, base: Reg, bytes: Reg, span: Span) -> Lowered<Reg> {
    let rz = || Operand::reg(Reg::RZ);
    let p = cx.temp(RegFile::R, 2);
    let carry = cx.temp(RegFile::P, 1);
    let uses = vec![Operand::reg(base.part(0, 1)), Operand::reg(bytes.part(0, 1)), rz()];
    cx.emit(Opcode::IADD3, &[], vec![Operand::reg(p.part(0, 1)).undef(), carry.into()], uses, span)?;
    let uses = vec![
        Operand::reg(base.part(1, 1)),
        Operand::reg(bytes.part(1, 1)),
        rz(),
        carry.into(),
        Operand::reg(Reg::PT).inverted(),
    ];
    cx.emit(Opcode::IADD3, &["X"], vec![Operand::reg(p.part(1, 1))], uses, span)?;
    Ok(p)
}

/// `q = a * k + p` for a 32-bit `a` and a pair `p` (`IMAD.WIDE.U32`).
fn row_step(cx: &mut Lowerer<'_>, a: Operand, k: i64, p: Reg, span: Span) -> Lowered<Reg> {
    let q = cx.temp(RegFile::R, 2);
    cx.emit(Opcode::IMAD, &["WIDE", "U32"], vec![q.into()], vec![a, Operand::int(k), p.into()], span)?;
    Ok(q)
}

/// `wmma.load.a.sync.aligned.row.m16n16k16.global.f16` and
/// `wmma.load.b.sync.aligned.col.m16n16k16.global.f16`: rows of 16 halves
/// (of A, or of B stored column by column), `ldm` halves apart.
fn wmma_load(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let common = ["load", "sync", "aligned", "m16n16k16", "global"];
    let is = |which: &str, layout: &str| {
        let mut words = common.to_vec();
        words.extend([which, layout]);
        exactly(inst, &words, &[ScalarType::F16])
    };
    // Register k of the fragment: (second row block, second column block).
    let is_b = is("b", "col");
    let order: [(bool, bool); 4] = if is("a", "row") {
        [(false, false), (true, false), (false, true), (true, true)]
    } else if is_b {
        [(false, false), (false, true), (true, false), (true, true)]
    } else {
        return Err(unsupported(inst));
    };
    let dests = names(inst, 0, 8)?;
    let (base, offset) = global_base(cx, inst, 1)?;
    let ldm = stride(cx, inst, 2)?;
    let span = inst.span;
    let bytes = lane_offset(cx, inst, &ldm, 2)?;
    let p = add_pair(cx, base, bytes, span)?;
    // Eight rows down: 8 * ldm halves.
    let q = row_step(cx, ldm, 0x10, p, span)?;
    // A is read by `HMMA` as four registers; B as two pairs, one per
    // `HMMA`, which the allocator may then place apart.
    let outs = if is_b {
        vec![place(cx, &dests[..2], &[])?, place(cx, &dests[2..4], &[])?]
    } else {
        vec![place(cx, &dests[..4], &[])?]
    };
    let width = 4 / outs.len();
    let parts: Vec<Reg> = (0..4).map(|k| outs[k / width].tuple.part((k % width) as u8, 1)).collect();
    for (k, (down, right)) in order.into_iter().enumerate() {
        let addr = cx.global_address(if down { q } else { p }, offset + if right { 0x10 } else { 0 }, span)?;
        let part = Operand::reg(parts[k]);
        let part = if k % width == 0 { part.undef() } else { part };
        cx.emit(Opcode::LDG, &["E"], vec![part], vec![addr], span)?;
    }
    for out in outs {
        out.finish(cx, span)?;
    }
    for (k, &(name, s)) in dests[4..].iter().enumerate() {
        let d = cx.reg(name, s)?;
        cx.emit(Opcode::MOV, &[], vec![d.into()], vec![Operand::reg(parts[k])], span)?;
    }
    Ok(())
}

/// `wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [a], {d0..d7}, ldm`:
/// pairs of floats, rows `ldm` floats apart.
fn wmma_store(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let words = ["store", "d", "sync", "aligned", "row", "m16n16k16", "global"];
    if !exactly(inst, &words, &[ScalarType::F32]) {
        return Err(unsupported(inst));
    }
    let values = names(inst, 1, 8)?;
    let (base, offset) = global_base(cx, inst, 0)?;
    let ldm = stride(cx, inst, 2)?;
    let span = inst.span;
    // Computed here: stores are rarely in loops, and a value computed in
    // the entry block would stay live through them.
    let bytes = lane_bytes(cx, ldm.clone(), 3, span)?;
    let p = add_pair(cx, base, bytes, span)?;
    // Eight rows down: 8 * 4 * ldm bytes, as 64 * (ldm / 2).
    let half = cx.temp(RegFile::R, 1);
    let uses = vec![Operand::reg(Reg::RZ), Operand::int(1), ldm];
    cx.emit(Opcode::SHF, &["R", "U32", "HI"], vec![half.into()], uses, span)?;
    let q = row_step(cx, half.into(), 0x40, p, span)?;
    for (k, (down, right)) in [(false, false), (true, false), (false, true), (true, true)].into_iter().enumerate() {
        let pair = gather(cx, &values[2 * k..2 * k + 2], span)?;
        let addr = cx.global_address(if down { q } else { p }, offset + if right { 0x20 } else { 0 }, span)?;
        cx.emit(Opcode::STG, &["E", "64"], vec![], vec![addr, pair.into()], span)?;
    }
    Ok(())
}
