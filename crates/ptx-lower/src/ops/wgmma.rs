//! Warpgroup matrix multiply-accumulate (sm_90a), in NVIDIA's sequence
//! (nvdisasm of ptxas 13.5's cubin of wgmma_m64n8k16 and one-instruction
//! probes):
//!
//! | PTX | SASS |
//! |---|---|
//! | `wgmma.fence.sync.aligned` | `WARPGROUP.ARRIVE` |
//! | `wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {d..}, da, db, p, 1, 1, ta, tb` (p known true) | `HGMMA.64xNx16.F32 d, gdesc[UR][.tnspA][.tnspB], d` (A's descriptor in `UR:UR+1`, B's in `UR+2:UR+3`) |
//! | `... .m64nNk16.f32.bf16.bf16` / `.m64nNk8.f32.tf32.tf32 {d..}, da, db, p, 1, 1` | `HGMMA.64xNx16.F32.BF16` / `HGMMA.64xNx8.F32.TF32` |
//! | `... .m64nNk16.f16.f16.f16` | `HGMMA.64xNx16.F16` (N / 4 accumulators) |
//! | `... .m64nNk32.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2} {d..}, da, db, p, 1, 1` | `QGMMA.64xNx32.{F32,F16}.{E4M3,E5M2}.{E4M3,E5M2}` (fp8: A's type, then B's) |
//! | `... .m64nNk32[.satfinite].s32.{s8,u8}.{s8,u8} {d..}, da, db, p` | `IGMMA.64xNx32.{S8,U8}.{S8,U8}[.SAT]` (N / 2 s32 accumulators; N of 8, 16, 24 or a multiple of 16) |
//! | `... {d..}, {a0..a3}, db, p, 1, 1[, tb]` (A in registers) | `HGMMA.64xNxK.F32 d, a, gdesc[UR][.tnspB], d` (B's descriptor in `UR+2:UR+3`) |
//! | scale-d the immediate 0 | `HGMMA ... d, gdesc[UR], RZ, !UPT` |
//! | scale-d a run-time predicate `p` | `VOTEU.ANY UPn, p` ; `HGMMA ... d, gdesc[UR], d, UPn` |
//! | `wgmma.commit_group.sync.aligned` | `gsb0` on the group's last `HGMMA` |
//! | `wgmma.wait_group.sync.aligned n` | `WARPGROUP.DEPBAR.LE gsb0, n` |
//!
//! NVIDIA computes the descriptors in uniform registers; here they are
//! computed per thread (the lowering has no uniform datapath yet) and
//! moved with four `R2UR`s. The accumulators are one tuple for the whole
//! function ([`bind_accumulators`]): `HGMMA` updates them in place, and a
//! copy after it would read them before the wait; a register fragment of
//! A is bound likewise, so that it is written before the `wgmma.fence`. A
//! scale-d predicate the lowering can see to be true gives no operand
//! (NVIDIA's code has none either).
//!
//! `HGMMA` runs asynchronously: its accumulators must not be read or
//! written between it and the `WARPGROUP.DEPBAR` that waits for it, and
//! must not be written between `WARPGROUP.ARRIVE` and it. The scheduler
//! keeps that order (`crates/sched/src/list/deps.rs` makes `WARPGROUP`
//! instructions read and write every register an `HGMMA` of the region
//! touches); the register allocator sees the tuple live from the `HGMMA`
//! to its readers after the wait, and an A fragment live to the wait.

use ori_ir::{Inst, Layout, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{Expr, ExprKind, Instruction, Statement};

use super::matrix::{as_tuple, bind, names};
use super::unsupported;
use crate::error::{Lowered, at};
use crate::func::Lowerer;

/// The element types of a `wgmma.mma_async`'s A and B.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Input {
    F16,
    Bf16,
    Tf32,
    /// fp8, A's and B's format each (`true`: e5m2, else e4m3).
    Fp8 {
        a_e5m2: bool,
        b_e5m2: bool,
    },
    /// Bytes, A's and B's signedness each (`true`: s8, else u8), into
    /// s32 accumulators.
    Int {
        a_signed: bool,
        b_signed: bool,
    },
}

impl Input {
    /// The input types of `.ATYPE.BTYPE` (PTX ISA: the same type for both
    /// but for fp8, where e4m3 and e5m2 mix).
    fn parse(a: &str, b: &str) -> Option<Input> {
        let fp8 = |t: &str| match t {
            "e4m3" => Some(false),
            "e5m2" => Some(true),
            _ => None,
        };
        let int = |t: &str| match t {
            "s8" => Some(true),
            "u8" => Some(false),
            _ => None,
        };
        if let (Some(a_signed), Some(b_signed)) = (int(a), int(b)) {
            return Some(Input::Int { a_signed, b_signed });
        }
        match (a, b) {
            ("f16", "f16") => Some(Input::F16),
            ("bf16", "bf16") => Some(Input::Bf16),
            ("tf32", "tf32") => Some(Input::Tf32),
            _ => Some(Input::Fp8 { a_e5m2: fp8(a)?, b_e5m2: fp8(b)? }),
        }
    }

    /// K of one instruction: 32 bytes of each row.
    fn k(self) -> u16 {
        match self {
            Input::F16 | Input::Bf16 => 16,
            Input::Tf32 => 8,
            Input::Fp8 { .. } | Input::Int { .. } => 32,
        }
    }

    /// `HGMMA` for the 16- and 32-bit types, `QGMMA` for fp8, `IGMMA` for bytes.
    fn opcode(self) -> Opcode {
        match self {
            Input::Fp8 { .. } => Opcode::QGMMA,
            Input::Int { .. } => Opcode::IGMMA,
            _ => Opcode::HGMMA,
        }
    }

    /// The type words after the accumulator's (binary16 has none).
    fn words(self) -> Vec<&'static str> {
        let fp8 = |e5m2: bool| if e5m2 { "E5M2" } else { "E4M3" };
        match self {
            Input::F16 => vec![],
            Input::Bf16 => vec!["BF16"],
            Input::Tf32 => vec!["TF32"],
            Input::Fp8 { a_e5m2, b_e5m2 } => vec![fp8(a_e5m2), fp8(b_e5m2)],
            Input::Int { a_signed, b_signed } => {
                let int = |signed: bool| if signed { "S8" } else { "U8" };
                vec![int(a_signed), int(b_signed)]
            }
        }
    }
}

/// One `wgmma.mma_async` form with both operands from shared memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Shape {
    /// N of `m64nNkK` (8..=256, a multiple of 8).
    n: u16,
    input: Input,
    /// f32 accumulators (else f16, two to a register); integer inputs
    /// have s32 ones, one to a register, and this is true.
    f32_acc: bool,
    /// `.satfinite` (integer inputs only): s32 results clamped.
    satfinite: bool,
}

impl Shape {
    /// The form of `wgmma.mma_async.sync.aligned.SHAPE.DTYPE.ATYPE.BTYPE`
    /// (PTX ISA: the K of each input type; f16 accumulators with f16 and
    /// fp8 inputs only; s32 ones with integer inputs, whose N is 8, 16, 24
    /// or a multiple of 16, and which alone take `.satfinite`).
    fn parse(words: &[&str]) -> Option<Shape> {
        let (shape, satfinite, dtype, atype, btype) = match words {
            ["mma_async", "sync", "aligned", shape, dtype, atype, btype] => (shape, false, dtype, atype, btype),
            ["mma_async", "sync", "aligned", shape, "satfinite", dtype, atype, btype] => {
                (shape, true, dtype, atype, btype)
            }
            _ => return None,
        };
        let (n, k) = shape.strip_prefix("m64n")?.split_once('k')?;
        let n: u16 = n.parse().ok()?;
        if n % 8 != 0 || !(8..=256).contains(&n) {
            return None;
        }
        let input = Input::parse(atype, btype)?;
        let int = matches!(input, Input::Int { .. });
        if int && n > 24 && n % 16 != 0 || satfinite && !int {
            return None;
        }
        let f32_acc = match *dtype {
            "f32" if !int => true,
            "s32" if int => true,
            "f16" if matches!(input, Input::F16 | Input::Fp8 { .. }) => false,
            _ => return None,
        };
        (k.parse::<u16>().ok()? == input.k()).then_some(Shape { n, input, f32_acc, satfinite })
    }

    /// Whether the form has the `imm-scale-a`, `imm-scale-b` operands (all
    /// but the integer ones).
    fn scalable(self) -> bool {
        !matches!(self.input, Input::Int { .. })
    }

    /// Whether the form has the `imm-trans-a`, `imm-trans-b` operands
    /// (the 16-bit inputs only).
    fn transposable(self) -> bool {
        matches!(self.input, Input::F16 | Input::Bf16)
    }

    /// Accumulator registers per thread.
    fn accumulators(self) -> usize {
        usize::from(self.n) / if self.f32_acc { 2 } else { 4 }
    }

    /// The modifiers: `64xNxK`, the accumulator type (none for IGMMA's
    /// s32), the input types, `SAT`.
    fn mods(self) -> Vec<String> {
        let acc = match (self.input, self.f32_acc) {
            (Input::Int { .. }, _) => None,
            (_, true) => Some("F32"),
            (_, false) => Some("F16"),
        };
        let shape = format!("64x{}x{}", self.n, self.input.k());
        std::iter::once(shape)
            .chain(acc.map(str::to_string))
            .chain(self.input.words().into_iter().map(str::to_string))
            .chain(self.satfinite.then(|| "SAT".to_string()))
            .collect()
    }
}

/// Lowers the `wgmma.*` instructions.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    if !cx.sm.target().features.wgmma {
        return Err(at(inst.span, "wgmma requires an sm_90a target"));
    }
    let words: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    match words.as_slice() {
        ["fence", "sync", "aligned"] => cx.emit(Opcode::WARPGROUP, &["ARRIVE"], vec![], vec![], inst.span),
        ["commit_group", "sync", "aligned"] => commit(cx, inst),
        ["wait_group", "sync", "aligned"] => {
            let Some(ExprKind::Int { value, .. }) = inst.operands.first().map(|o| &o.kind) else {
                return Err(unsupported(inst));
            };
            let keep = Operand::int(i64::try_from(*value).map_err(|_| unsupported(inst))?);
            let gsb = Operand::from(OperandKind::GroupScoreboard(0));
            cx.emit(Opcode::WARPGROUP, &["DEPBAR", "LE"], vec![], vec![gsb, keep], inst.span)
        }
        _ => match Shape::parse(&words) {
            Some(shape) => mma_async(cx, inst, shape),
            None => Err(unsupported(inst)),
        },
    }
}

/// `wgmma.mma_async ... {d}, a, db, scale-d, 1, 1[, ta], [tb]`: A from
/// shared memory (`da`, a descriptor) or registers (`{a0..a3}`, then no
/// `ta`), not negated; `ta`/`tb` (the 16-bit inputs only) mark an operand
/// stored transposed (`.tnspA`/`.tnspB` on the descriptor operand).
/// Scale-d as NVIDIA lowers it: known true, no operand; the immediate 0,
/// C read as `RZ` with `!UPT`; a run-time predicate made uniform with
/// `VOTEU.ANY` (wgmma is `.aligned`: every thread has the same).
fn mma_async(cx: &mut Lowerer<'_>, inst: &Instruction, shape: Shape) -> Lowered {
    let [_, a, _, scale_d, rest @ ..] = &inst.operands[..] else { return Err(unsupported(inst)) };
    let a_in_regs = matches!(a.kind, ExprKind::Braces(_));
    let int = |e: &Expr| match e.kind {
        ExprKind::Int { value, .. } => Some(value as i64),
        ExprKind::Unary(ptx_syntax::ast::UnaryOp::Neg, ref x) => match x.kind {
            ExprKind::Int { value, .. } => Some((value as i64).wrapping_neg()),
            _ => None,
        },
        _ => None,
    };
    let imms: Vec<Option<i64>> = rest.iter().map(int).collect();
    let trans = |t: &Option<i64>| match t {
        Some(t @ (0 | 1)) => Some(*t == 1),
        _ => None,
    };
    let layout = match (shape.transposable(), a_in_regs, &imms[..]) {
        (false, _, []) if !shape.scalable() => None,
        (false, _, [Some(1), Some(1)]) if shape.scalable() => None,
        (false, _, _) if !shape.scalable() => return Err(unsupported(inst)),
        (true, false, [Some(1), Some(1), ta, tb]) => match (trans(ta), trans(tb)) {
            (Some(ta), Some(tb)) => Layout::transposed(ta, tb),
            _ => return Err(unsupported(inst)),
        },
        (true, true, [Some(1), Some(1), tb]) => Layout::transposed(false, trans(tb).ok_or_else(|| unsupported(inst))?),
        _ => return Err(at(inst.span, "wgmma.mma_async with negated operands is not supported yet")),
    };
    let scale = match int(scale_d) {
        Some(0) => Some(Operand::from(Reg::UPT).inverted()),
        Some(1) => None,
        Some(_) => return Err(unsupported(inst)),
        None if scale_d_is_true(cx, scale_d) => None,
        None => Some(uniform_predicate(cx, inst, scale_d)?),
    };
    let acc = names(inst, 0, shape.accumulators())?;
    let regs = acc.iter().map(|&(n, s)| cx.reg(n, s)).collect::<Lowered<Vec<Reg>>>()?;
    let Some(d) = as_tuple(&regs) else {
        return Err(at(inst.span, "wgmma accumulators that are not one register tuple are not supported yet"));
    };
    // The fragment is one tuple ([`bind_accumulators`]): a copy here would
    // write it after the `wgmma.fence` that must come after its writes.
    let a_regs = match a_in_regs {
        true => {
            let regs = names(inst, 1, 4)?.iter().map(|&(n, s)| cx.reg(n, s)).collect::<Lowered<Vec<Reg>>>()?;
            let tuple = as_tuple(&regs);
            Some(tuple.ok_or_else(|| {
                at(inst.span, "a wgmma A fragment that is not one register tuple is not supported yet")
            })?)
        }
        false => None,
    };
    // The descriptors' 32-bit halves in four uniform registers: A's, then
    // B's; with A in registers the first two are not read (NVIDIA's code
    // leaves them as they are).
    let desc = cx.temp(RegFile::UR, 4);
    let first = if a_in_regs { 2 } else { 0 };
    for k in first..4 {
        let (i, half) = (1 + k / 2, (k % 2) as u8);
        let pair = match &inst.operands[i].kind {
            ExprKind::Name(r, None) => cx.reg(r.name.as_str(), r.span)?,
            _ => return Err(unsupported(inst)),
        };
        if pair.file != RegFile::R || pair.width != 2 {
            return Err(at(inst.span, "wgmma descriptors must be 64-bit registers"));
        }
        let part = Operand::reg(desc.part(k as u8, 1));
        let part = if k == first { part.undef() } else { part };
        cx.emit(Opcode::R2UR, &[], vec![part], vec![Operand::reg(pair.part(half, 1))], inst.span)?;
    }
    let mut descs = Operand::from(OperandKind::MatrixDesc(desc));
    descs.flags.layout = layout;
    let c = if scale.as_ref().is_some_and(|p| p.as_reg() == Some(Reg::UPT)) { Reg::RZ } else { d };
    let uses = a_regs.map(Operand::reg).into_iter().chain([descs, Operand::reg(c)]).chain(scale).collect();
    let mods = shape.mods();
    let mods: Vec<&str> = mods.iter().map(String::as_str).collect();
    cx.emit(shape.input.opcode(), &mods, vec![Operand::reg(d)], uses, inst.span)
}

/// A run-time scale-d predicate as a uniform one: `VOTEU.ANY UPn, p`
/// (NVIDIA's sequence; the lowering has no uniform predicates otherwise).
fn uniform_predicate(cx: &mut Lowerer<'_>, inst: &Instruction, e: &Expr) -> Lowered<Operand> {
    let ExprKind::Name(r, None) = &e.kind else { return Err(unsupported(inst)) };
    let p = cx.reg(r.name.as_str(), r.span)?;
    if p.file != RegFile::P {
        return Err(at(inst.span, "wgmma scale-d must be a predicate"));
    }
    let up = cx.temp(RegFile::UP, 1);
    let defs = vec![Operand::reg(Reg::URZ), Operand::reg(up)];
    cx.emit(Opcode::VOTEU, &["ANY"], defs, vec![Operand::reg(p)], inst.span)?;
    Ok(Operand::reg(up))
}

/// `wgmma.commit_group`: NVIDIA marks the last `HGMMA`/`QGMMA` of the group with
/// `gsb0`; one in the same block must be open.
fn commit(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let group_end = |i: &Inst| i.uses.iter().any(|u| matches!(u.kind, OperandKind::GroupScoreboard(_)));
    match cx.last_emitted_where(Opcode::is_warpgroup_mma) {
        Some(hgmma) if !group_end(hgmma) => {
            hgmma.uses.push(OperandKind::GroupScoreboard(0).into());
            Ok(())
        }
        _ => Err(at(
            inst.span,
            "wgmma.commit_group without a wgmma.mma_async before it in its block is not supported yet",
        )),
    }
}

/// Whether scale-d operand `e` is a predicate the code before made true:
/// `setp.ne/eq` of values the lowering wrote as constants (the inline
/// assembly `setp.ne.b32 p, %r, 0` with `%r` = 1 of CUTLASS-style code).
fn scale_d_is_true(cx: &Lowerer<'_>, e: &Expr) -> bool {
    let ExprKind::Name(r, None) = &e.kind else { return false };
    let Some(p) = cx.regs.existing(r.name.as_str()) else { return false };
    let Some(def) = single_def(cx, p) else { return false };
    // `mov.pred p, -1` (Triton's): `PLOP3.LUT p, PT, PT, PT, PT, 0x80, 0x0`.
    if def.op == Opcode::PLOP3 {
        let pt = |o: &Operand| o.as_reg() == Some(Reg::PT) && !o.flags.not;
        return matches!(&def.uses[..], [a, b, c, lut, _] if pt(a) && pt(b) && pt(c) && imm(lut).is_some_and(|l| l & 0x80 != 0));
    }
    let cmp = if def.op == Opcode::ISETP && def.has_mod("AND") {
        if def.has_mod("NE") {
            |a: i64, b: i64| a != b
        } else if def.has_mod("EQ") {
            |a: i64, b: i64| a == b
        } else {
            return false;
        }
    } else {
        return false;
    };
    let [a, b, c] = &def.uses[..] else { return false };
    let pt = matches!(c.as_reg(), Some(r) if r == Reg::PT && !c.flags.not);
    match (known_int(cx, a), known_int(cx, b)) {
        (Some(a), Some(b)) => pt && cmp(a, b),
        _ => false,
    }
}

/// The value of an integer operand the lowering wrote as a constant: an
/// immediate, `RZ`, or a register whose only write is a move of one.
fn known_int(cx: &Lowerer<'_>, op: &Operand) -> Option<i64> {
    match op.kind {
        OperandKind::Imm(ori_ir::Imm::Int(v)) => Some(v),
        OperandKind::Reg(r) if r == Reg::RZ => Some(0),
        OperandKind::Reg(r) if r.is_virtual => {
            let def = single_def(cx, r)?;
            match (def.op, &def.uses[..]) {
                (Opcode::MOV, [v]) => imm(v),
                (Opcode::IMAD, [a, b, v])
                    if def.has_mod("MOV") && a.as_reg() == Some(Reg::RZ) && b.as_reg() == Some(Reg::RZ) =>
                {
                    imm(v)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn imm(op: &Operand) -> Option<i64> {
    match op.kind {
        OperandKind::Imm(ori_ir::Imm::Int(v)) => Some(v),
        _ => None,
    }
}

/// The one unguarded instruction that writes `reg`, if only one does (in
/// any block: the layout is not known before the body is lowered).
fn single_def<'f>(cx: &'f Lowerer<'_>, reg: Reg) -> Option<&'f Inst> {
    let func = &cx.func;
    let mut defs = func
        .blocks
        .iter()
        .flat_map(|(_, b)| b.insts.iter().map(|&id| &func.insts[id]))
        .filter(|i| i.written_regs().any(|w| w == reg));
    let def = defs.next()?;
    (defs.next().is_none() && def.guard.is_none()).then_some(def)
}

/// Gives the accumulators of every `wgmma.mma_async` in `statements` (and
/// its fragment of A, when in registers) one fresh tuple each before the
/// body is lowered, so that the moves that set
/// them up and the stores that read them work on the tuple itself.
/// Registers already bound (or bound to another tuple) are left: the
/// instruction then reports them.
pub(crate) fn bind_accumulators(cx: &mut Lowerer<'_>, statements: &[Statement]) {
    for s in statements {
        match s {
            Statement::Instruction(i) if i.opcode.name == "wgmma" && i.has("mma_async") => {
                // A fragment of A in registers: written where it is
                // computed, before the `wgmma.fence`, rather than copied
                // after it.
                if let Ok(a) = names(i, 1, 4) {
                    bind(cx, &a);
                }
                let words: Vec<&str> = i.modifiers.iter().map(|m| m.name.as_str()).collect();
                let Some(count) = Shape::parse(&words).map(Shape::accumulators) else { continue };
                let Ok(acc) = names(i, 0, count) else { continue };
                if acc.iter().any(|&(n, _)| cx.regs.existing(n).is_some()) {
                    continue;
                }
                let t = cx.temp(RegFile::R, count as u8);
                for (k, &(n, _)) in acc.iter().enumerate() {
                    cx.regs.alias(n, t.part(k as u8, 1));
                }
            }
            Statement::Block(b) => bind_accumulators(cx, &b.statements),
            _ => {}
        }
    }
}
