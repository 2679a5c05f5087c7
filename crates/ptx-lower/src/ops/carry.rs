//! Carry chains: `add.cc`, `addc[.cc]`, `sub.cc`, `subc[.cc]`,
//! `mad{.lo,.hi}.cc`, `madc{.lo,.hi}[.cc]` on 32-bit integers (NVVM's
//! 64x64-bit products and 128-bit sums in math_double's argument
//! reduction), and the adds and subtracts on 64 bits (NVVM's `__int128`).
//!
//! PTX's carry flag becomes a predicate: `IADD3 d, P, a, b, RZ` writes the
//! carry out, `IADD3.X d, P', a, b, RZ, P, !PT` adds it in (NVIDIA's forms,
//! probed with the chains of math_double). A subtraction adds the
//! complement (`-b`, or `~b` with the carry in): its flag is the carry out
//! of that addition ("no borrow"), and every reader takes the flag as it
//! is, whichever instruction wrote it, as NVIDIA's code does (`sub.cc`
//! then `addc` adds 0 after a borrow: tests/ptx/carry_blocks.ptx);
//! products are `IMAD`/`IMAD.HI.U32` into a fresh register, then the add.
//!
//! A chain runs from a `.cc` instruction without carry in to the next
//! one. Within a block each write goes to a fresh predicate. A chain whose
//! flag flows across a label (around a loop's back edge, into a join) or
//! that has a guarded `.cc` instruction (its flag must survive a false
//! guard) keeps one predicate from start to end, as NVIDIA's code keeps a
//! chain in one `P` register (tests/ptx/carry_blocks.ptx); [`plan`] finds
//! those chains before the body is lowered, and joins chains that meet at
//! a label (a branch from one into a block of another that reads the
//! flag first).

use std::collections::HashMap;

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{ExprKind, Instruction, ScalarType, Statement};

use super::wide::{Dest, src64};
use super::{dst, src, ty, unsupported};
use crate::error::Lowered;
use crate::func::{Carry, Lowerer};

/// Lowers one instruction of a carry chain.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let ty = ty(inst)?;
    let op = inst.opcode.name.as_str();
    let carry_in = matches!(op, "addc" | "subc" | "madc");
    let carry_out = inst.has("cc");
    let subtract = matches!(op, "sub" | "subc");
    if matches!(ty, ScalarType::U64 | ScalarType::S64) && matches!(op, "add" | "addc" | "sub" | "subc") {
        return lower64(cx, inst, carry_in, carry_out, subtract);
    }
    if !matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::B32) {
        return Err(unsupported(inst));
    }
    let span = inst.span;
    let d = dst(cx, inst, 0)?;
    let a = src(cx, inst, 1, ty)?;
    let b = src(cx, inst, 2, ty)?;
    // The two addends: a product first for mad/madc.
    let (x, y) = if matches!(op, "mad" | "madc") {
        let c = src(cx, inst, 3, ty)?;
        let mods: &[&str] = if inst.has("hi") {
            // The high word of the signed or unsigned product; the sum
            // and its carry are the same either way.
            if ty == ScalarType::S32 { &["HI"] } else { &["HI", "U32"] }
        } else if inst.has("lo") {
            &[]
        } else {
            return Err(unsupported(inst));
        };
        let (a, b) = if a.as_reg().is_none() { (b, a) } else { (a, b) };
        let a = in_reg(cx, a, span)?;
        let p = cx.temp(RegFile::R, 1);
        cx.emit(Opcode::IMAD, mods, vec![p.into()], vec![a, b, Operand::reg(Reg::RZ)], span)?;
        (Operand::reg(p), c)
    } else {
        (a, b)
    };
    let x = in_reg(cx, x, span)?;
    // A register subtrahend is negated (`-b`) or complemented with the
    // carry in (`~b`); a constant one goes to a register first, so that a
    // zero subtrahend still reports no borrow.
    let y = if subtract || (carry_in && !is_zero(&y)) { in_reg(cx, y, span)? } else { y };
    let y = match (subtract, carry_in) {
        (true, false) => y.negated(),
        (true, true) => Operand { flags: ori_ir::OperandFlags { bitnot: true, ..y.flags }, ..y },
        _ => y,
    };
    let incoming = if carry_in {
        let c = cx.carry.ok_or_else(|| unsupported(inst))?;
        Some(Operand::reg(c.pred))
    } else {
        None
    };
    let (out, fixed) = outgoing(cx, inst, carry_in, carry_out);
    let mut defs = vec![Operand::reg(d)];
    defs.extend(out.map(Operand::reg));
    let mut uses = vec![x, y, Operand::reg(Reg::RZ)];
    let mods: &[&str] = match incoming {
        Some(c) => {
            uses.push(c);
            uses.push(Operand::reg(Reg::PT).inverted());
            &["X"]
        }
        None => &[],
    };
    cx.emit(Opcode::IADD3, mods, defs, uses, span)?;
    if let Some(pred) = out {
        cx.carry = Some(Carry { pred, fixed });
    }
    Ok(())
}

/// `add[c][.cc]`/`sub[c][.cc]` on 64 bits: the low words' sum (with the
/// carry in), its carry into the high words' sum, whose carry out is the
/// flag, as two chained 32-bit steps.
fn lower64(cx: &mut Lowerer<'_>, inst: &Instruction, carry_in: bool, carry_out: bool, subtract: bool) -> Lowered {
    let span = inst.span;
    let d = dst(cx, inst, 0)?;
    let (a, b) = (src64(cx, inst, 1)?, src64(cx, inst, 2)?);
    if d.width != 2 {
        return Err(unsupported(inst));
    }
    let mut dd = Dest::new(d, &[a, b]);
    let incoming = if carry_in { Some(cx.carry.ok_or_else(|| unsupported(inst))?.pred) } else { None };
    let (out, fixed) = outgoing(cx, inst, carry_in, carry_out);
    let complement = |y: Operand| Operand { flags: ori_ir::OperandFlags { bitnot: true, ..y.flags }, ..y };
    let pt = || Operand::reg(Reg::PT).inverted();
    // Low words: as the 32-bit chain step.
    let x0 = in_reg(cx, a.word(0), span)?;
    let y0 = b.word(0);
    let y0 = if subtract || (carry_in && !is_zero(&y0)) { in_reg(cx, y0, span)? } else { y0 };
    let y0 = match (subtract, carry_in) {
        (true, false) => y0.negated(),
        (true, true) => complement(y0),
        _ => y0,
    };
    let mid = cx.temp(RegFile::P, 1);
    let mut uses = vec![x0, y0, Operand::reg(Reg::RZ)];
    let mods: &[&str] = match incoming {
        Some(c) => {
            uses.extend([Operand::reg(c), pt()]);
            &["X"]
        }
        None => &[],
    };
    cx.emit(Opcode::IADD3, mods, vec![dd.word(0), mid.into()], uses, span)?;
    // High words: the complement of a subtrahend, the low words' carry in.
    let x1 = in_reg(cx, a.word(1), span)?;
    let y1 = b.word(1);
    let y1 = if subtract || !is_zero(&y1) { in_reg(cx, y1, span)? } else { y1 };
    let y1 = if subtract { complement(y1) } else { y1 };
    let mut defs = vec![dd.word(1)];
    defs.extend(out.map(Operand::reg));
    let uses = vec![x1, y1, Operand::reg(Reg::RZ), mid.into(), pt()];
    cx.emit(Opcode::IADD3, &["X"], defs, uses, span)?;
    if let Some(pred) = out {
        cx.carry = Some(Carry { pred, fixed });
    }
    Ok(())
}

/// The predicate a `.cc` instruction writes its flag to, and whether it
/// is its chain's one predicate (a new chain's from the plan).
fn outgoing(cx: &mut Lowerer<'_>, inst: &Instruction, carry_in: bool, carry_out: bool) -> (Option<Reg>, bool) {
    let span = inst.span;
    let starts = carry_out && !carry_in && (cx.guard.is_none() || cx.carry.is_none());
    let fixed = if starts {
        match cx.carry_plan.fixed.get(&span.start).copied() {
            Some(root) => Some(match cx.carry_plan.preds.get(&root).copied() {
                Some(pred) => pred,
                None => {
                    let pred = cx.temp(RegFile::P, 1);
                    cx.carry_plan.preds.insert(root, pred);
                    pred
                }
            }),
            None => None,
        }
    } else {
        cx.carry.filter(|c| c.fixed).map(|c| c.pred)
    };
    let out = match (carry_out, fixed) {
        (false, _) => None,
        (true, Some(pred)) => Some(pred),
        (true, None) => Some(cx.temp(RegFile::P, 1)),
    };
    (out, fixed.is_some())
}

/// The chains that keep one predicate (found by [`plan`]) and the
/// predicates made for them so far.
#[derive(Default)]
pub(crate) struct Plan {
    /// The first instruction of each such chain (by its span's start) and
    /// the chain it joins (chains that meet at a label share one).
    fixed: HashMap<u32, usize>,
    /// Each joined chain's predicate, made at its first start.
    preds: HashMap<usize, Reg>,
}

/// Before the body is lowered: which chains need one predicate
/// (`Lowerer::carry_plan`).
pub(crate) fn plan(cx: &mut Lowerer<'_>, statements: &[Statement]) {
    let mut scan = Scan::default();
    scan.walk(statements);
    // A branch into a block that reads the flag first joins its chain to
    // the block's.
    for (target, from) in std::mem::take(&mut scan.branches) {
        if let (Some(from), Some(&(Some(to), true))) = (from, scan.labels.get(target)) {
            let (a, b) = (scan.root(from), scan.root(to));
            if a != b {
                scan.parent[a] = b;
                scan.fixed[b] = true;
                scan.fixed[a] = true;
            }
        }
    }
    for (k, &start) in scan.starts.clone().iter().enumerate() {
        let root = scan.root(k);
        if scan.fixed[root] || scan.fixed[k] {
            cx.carry_plan.fixed.insert(start, root);
        }
    }
}

/// What [`plan`] learns from one walk over the statements in order (the
/// order the lowering sees them).
#[derive(Default)]
struct Scan<'a> {
    /// Each chain's first instruction (its span's start), by chain number.
    starts: Vec<u32>,
    /// Whether the chain needs one predicate.
    fixed: Vec<bool>,
    /// Joined chains (union-find).
    parent: Vec<usize>,
    /// The chain that the flag belongs to at this point, if any.
    current: Option<usize>,
    /// A `.cc` instruction since the last label.
    written_in_block: bool,
    /// The label that started the current block.
    label: Option<&'a str>,
    /// Each label's chain and whether its block reads the flag first.
    labels: HashMap<&'a str, (Option<usize>, bool)>,
    /// Each branch's target and chain.
    branches: Vec<(&'a str, Option<usize>)>,
}

impl<'a> Scan<'a> {
    fn walk(&mut self, statements: &'a [Statement]) {
        for s in statements {
            match s {
                Statement::Label(l) => {
                    self.written_in_block = false;
                    self.label = Some(l.name.as_str());
                    self.labels.insert(l.name.as_str(), (self.current, false));
                }
                Statement::Block(b) => self.walk(&b.statements),
                Statement::Instruction(i) => self.instruction(i),
                _ => {}
            }
        }
    }

    fn instruction(&mut self, inst: &'a Instruction) {
        let op = inst.opcode.name.as_str();
        if op == "bra" {
            if let Some(ExprKind::Name(target, None)) = inst.operands.first().map(|e| &e.kind) {
                self.branches.push((target.name.as_str(), self.current));
            }
            return;
        }
        let reads = matches!(op, "addc" | "subc" | "madc");
        let writes = inst.has("cc") && (reads || matches!(op, "add" | "sub" | "mad"));
        if reads && !self.written_in_block {
            if let Some(c) = self.current {
                self.fixed[c] = true;
            }
            if let Some(entry) = self.label.and_then(|l| self.labels.get_mut(l)) {
                entry.1 = true;
            }
        }
        if !writes {
            return;
        }
        self.written_in_block = true;
        let guarded = inst.guard.is_some();
        if !reads && (!guarded || self.current.is_none()) {
            self.current = Some(self.starts.len());
            self.starts.push(inst.span.start);
            self.fixed.push(false);
            self.parent.push(self.parent.len());
        }
        if let (true, Some(c)) = (guarded, self.current) {
            self.fixed[c] = true;
        }
    }

    fn root(&mut self, mut k: usize) -> usize {
        while self.parent[k] != k {
            k = self.parent[k];
        }
        k
    }
}

fn is_zero(x: &Operand) -> bool {
    matches!(x.kind, ori_ir::OperandKind::Imm(ori_ir::Imm::Int(0)))
}

/// `x` in a register: 0 is `RZ`, another constant is moved by `IMAD.MOV.U32`.
fn in_reg(cx: &mut Lowerer<'_>, x: Operand, span: ptx_syntax::Span) -> Lowered<Operand> {
    if x.as_reg().is_some() {
        return Ok(x);
    }
    if is_zero(&x) {
        return Ok(Operand::reg(Reg::RZ));
    }
    let t = cx.temp(RegFile::R, 1);
    cx.imad_mov(t.into(), x, span)?;
    Ok(t.into())
}
