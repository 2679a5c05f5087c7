//! `GvnCse`: dominator-scoped value numbering that makes later reads of a
//! recomputed value read the first computation.
//!
//! Lowering expands each PTX instruction on its own, so a function that
//! takes `x % n` 32 times computes the reciprocal of `n` 32 times
//! (launch_bounds): 32 copies of the same `IABS`, `I2F.RP`, `MUFU.RCP`, ...
//! sequence, each live at once after scheduling. NVIDIA's code computes
//! it once.
//!
//! Only registers whose words are each written exactly once, unguarded
//! ("single-definition words", the bulk of what lowering makes) carry
//! value numbers, and a number is visible only in the dominator subtree of
//! its definition: there the word surely holds that value, whatever path
//! was taken. An instruction is *pure* when its result depends on its
//! operands alone (ALU, conversions, MUFU, constant-bank loads, thread
//! and block indices; see [`is_pure`]); two pure instructions with equal
//! opcode, modifiers, definition shapes and operand values compute equal
//! results, so the later one's results get the earlier one's numbers.
//!
//! Nothing is inserted or moved. Every read of a register (parts included)
//! whose words' numbers are held by a register defined earlier on the
//! dominator path reads that register instead, so the duplicate computation
//! loses its readers and `EarlyOriSimpleLiveDead` deletes it. A tuple built
//! word by word (`undef %r13:1 = F2I ...`, `%r13:0 = MOV 0x0`) matches
//! another built the same way, word for word.
//!
//! The results of variable-latency instructions (MUFU, conversions,
//! constant-bank loads, S2R, f64 arithmetic) are worth a longer register
//! life. A fixed-latency ALU result costs a cycle to recompute, so one
//! made by a single such instruction from kept values is never read from
//! a holder; longer chains (see [`KEEP_CHAIN`]) are, but only from a
//! holder read recently (see [`CHEAP_REACH`]). All get numbers, so that
//! the expensive instructions fed by them match.

use std::rc::Rc;

use cfg::{Cfg, DomTree};

use crate::pure::is_pure;
use ori_ir::{
    Bank, BlockId, Function, FxHashMap, Imm, Inst, Latency, Modifier, Opcode, Operand, OperandFlags, OperandKind,
    Phase, PhaseContext, PhaseError, Property, PropertySet, Reg, RegFile, SpecialReg,
};

/// Makes reads of recomputed values read the first computation.
pub struct GvnCse;

impl Phase for GvnCse {
    fn name(&self) -> &'static str {
        "GvnCse"
    }

    fn description(&self) -> &'static str {
        "Value numbering over the dominator tree: reads of a recomputed value read the first computation"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let cfg = Cfg::compute(func);
        if cfg.has_unknown_targets() {
            // Dominators would miss the edges to unlisted targets.
            return Ok(());
        }
        let dom = DomTree::compute(&cfg);
        let Some(entry) = cfg.entry() else { return Ok(()) };
        let mut state = Numbering::new(func);
        // Depth-first over the dominator tree, undoing each block's
        // entries when its subtree is done.
        let mut stack = vec![(entry, false)];
        let mut marks = Vec::new();
        while let Some((block, done)) = stack.pop() {
            if done {
                state.undo_to(marks.pop().unwrap_or(0));
                continue;
            }
            marks.push(state.undo.len());
            stack.push((block, true));
            state.visit(func, block);
            stack.extend(dom.children(block).map(|c| (c, false)));
        }
        Ok(())
    }
}

/// A value number.
type Vn = u32;

/// The value numbers of a register's words, in order: inline up to four
/// words (every scalar, pair and quad), on the heap beyond (matrix
/// accumulators). Every register read, definition and table key took a
/// heap vector before: allocation and freeing were most of the phase.
/// A sequence of at most four numbers is always `Inline`, its unused
/// slots zero, so equal sequences are equal values and hash alike.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Vns {
    Inline(u8, [Vn; 4]),
    Heap(Vec<Vn>),
}

impl Vns {
    fn as_slice(&self) -> &[Vn] {
        match self {
            Vns::Inline(len, words) => &words[..usize::from(*len)],
            Vns::Heap(words) => words,
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, Vn> {
        self.as_slice().iter()
    }

    /// The numbers of an iterator, or `None` when one is missing.
    fn collect_all(numbers: impl Iterator<Item = Option<Vn>>) -> Option<Vns> {
        let mut inline = [0; 4];
        let mut len = 0usize;
        let mut heap: Option<Vec<Vn>> = None;
        for vn in numbers {
            let vn = vn?;
            match &mut heap {
                Some(words) => words.push(vn),
                None if len < 4 => {
                    inline[len] = vn;
                    len += 1;
                }
                None => {
                    let mut words = inline.to_vec();
                    words.push(vn);
                    heap = Some(words);
                }
            }
        }
        Some(match heap {
            Some(words) => Vns::Heap(words),
            None => Vns::Inline(len as u8, inline),
        })
    }
}

impl<'a> IntoIterator for &'a Vns {
    type Item = &'a Vn;
    type IntoIter = std::slice::Iter<'a, Vn>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Fixed-latency values recomputed by a chain of at least this many
/// instructions are kept like variable-latency ones. A lone `IABS` or
/// negation costs a cycle to repeat, but the refined reciprocal of an
/// integer division (`IADD3`, `IMAD`, `IMAD.HI` after the `F2I`) is four
/// deep: `x % n` taken 32 times repeated it 32 times (launch_bounds),
/// where NVIDIA computes it once.
const KEEP_CHAIN: u8 = 2;

/// How far (in instructions visited) a register holding only cheap values
/// is read again rather than the value recomputed. Holding every such
/// value for good made an inlined chain of 640 small functions
/// (large_many_funcs), which recompute the same address chains in every
/// copy, keep hundreds alive: 252 registers and spills where 28 do.
const CHEAP_REACH: u32 = 64;

/// One 32-bit word of a virtual register.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
struct Word {
    file: RegFile,
    num: u32,
    word: u8,
}

/// What an operand contributes to an instruction's identity.
#[derive(Clone, PartialEq, Eq, Hash)]
enum UseKey {
    /// A virtual register's words, by number, with its modifiers.
    Reg(RegFile, Vns, OperandFlags),
    /// A zero register, with its modifiers.
    Zero(RegFile, OperandFlags),
    Imm(Imm, OperandFlags),
    Special(SpecialReg),
    CBank {
        bank: BankKey,
        reg: Option<Vns>,
        offset: i32,
    },
}

impl UseKey {
    /// The value numbers the operand reads.
    fn numbers(&self) -> impl Iterator<Item = &Vn> {
        let (a, b): (&[Vn], &[Vn]) = match self {
            UseKey::Reg(_, vns, _) => (vns.as_slice(), &[]),
            UseKey::CBank { bank, reg, .. } => (
                match bank {
                    BankKey::Indexed(vns) => vns.as_slice(),
                    BankKey::Fixed(_) => &[],
                },
                reg.as_ref().map_or(&[], Vns::as_slice),
            ),
            _ => (&[], &[]),
        };
        a.iter().chain(b)
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum BankKey {
    Fixed(u8),
    Indexed(Vns),
}

/// An instruction's identity: opcode, modifiers, the shape of what it
/// writes (file, width, zero register) and what it reads.
#[derive(Clone, PartialEq, Eq, Hash)]
struct ExprKey {
    op: Opcode,
    mods: Vec<Modifier>,
    defs: Vec<(RegFile, u8, bool)>,
    uses: Vec<UseKey>,
}

/// The register holding a sequence of numbers.
struct Holder {
    reg: Reg,
    /// For numbers of cheap values only: the position of the holder's
    /// last read (or definition).
    cheap_last_read: Option<u32>,
}

/// A scoped table entry to remove when its block's subtree is done.
enum Undo {
    Avail(Word),
    Expr(Rc<ExprKey>),
    Holder(RegFile, Vns),
    Copy(Word),
}

struct Numbering {
    /// Writes of each word in the function (a guarded write counts twice:
    /// it may not happen).
    writes: FxHashMap<Word, u32>,
    /// Width of each virtual register, in words.
    widths: FxHashMap<(RegFile, u32), u8>,
    next: Vn,
    /// Numbers made by fixed-latency instructions, with the length of the
    /// chain of such instructions that recomputes them from values that
    /// are kept anyway (see [`KEEP_CHAIN`]).
    cheap: FxHashMap<Vn, u8>,
    /// Scoped: the number each single-definition word holds here.
    avail: FxHashMap<Word, Vn>,
    /// Scoped: the numbers each pure computation's results got.
    exprs: FxHashMap<Rc<ExprKey>, Vec<Vns>>,
    /// Scoped: the first register (or part) holding a sequence of numbers.
    holders: FxHashMap<(RegFile, Vns), Holder>,
    /// The instructions visited so far.
    position: u32,
    /// Scoped: single-definition words written by a plain copy, and what
    /// their readers read instead (the copy's source, a zero register for
    /// `MOV d, RZ`).
    copies: FxHashMap<Word, Reg>,
    undo: Vec<Undo>,
}

impl Numbering {
    fn new(func: &Function) -> Numbering {
        // Sized for one entry per instruction up front: growing the
        // tables rehashed every entry several times over.
        let n = func.insts.len();
        let sized = || FxHashMap::with_capacity_and_hasher(n, Default::default());
        let mut writes: FxHashMap<Word, u32> = sized();
        for (_, _, inst) in func.insts_in_order() {
            let times = if inst.guard.is_some() { 2 } else { 1 };
            for reg in inst.written_regs().filter(|r| r.is_virtual) {
                for w in reg.words() {
                    *writes.entry(Word { file: reg.file, num: reg.num, word: w }).or_insert(0) += times;
                }
            }
        }
        Numbering {
            writes,
            widths: func.vreg_widths(),
            next: 0,
            cheap: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            avail: sized(),
            exprs: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            holders: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            position: 0,
            copies: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            undo: Vec::with_capacity(n),
        }
    }

    fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            match self.undo.pop() {
                Some(Undo::Avail(w)) => {
                    self.avail.remove(&w);
                }
                Some(Undo::Expr(k)) => {
                    self.exprs.remove(&*k);
                }
                Some(Undo::Holder(f, v)) => {
                    self.holders.remove(&(f, v));
                }
                Some(Undo::Copy(w)) => {
                    self.copies.remove(&w);
                }
                None => {}
            }
        }
    }

    fn fresh(&mut self) -> Vn {
        self.next += 1;
        self.next
    }

    fn single_def(&self, reg: Reg) -> bool {
        reg.is_virtual && reg.words().all(|w| self.writes.get(&word(reg, w)) == Some(&1))
    }

    /// The numbers of `reg`'s words here, when all are known.
    fn numbers(&self, reg: Reg) -> Option<Vns> {
        Vns::collect_all(reg.words().map(|w| self.avail.get(&word(reg, w)).copied()))
    }

    fn visit(&mut self, func: &mut Function, block: BlockId) {
        for k in 0..func.blocks[block].insts.len() {
            let id = func.blocks[block].insts[k];
            let inst = &mut func.insts[id];
            self.redirect_reads(inst);
            self.record_copy(inst);
            let numbers = match self.copied(inst) {
                Some(source) => vec![source],
                None => self.compute(inst),
            };
            for (def, vns) in inst.defs.iter().zip(&numbers) {
                let Some(reg) = def.as_reg() else { continue };
                if !self.single_def(reg) {
                    continue;
                }
                for (w, &vn) in reg.words().zip(vns) {
                    let wd = word(reg, w);
                    self.avail.insert(wd, vn);
                    self.undo.push(Undo::Avail(wd));
                }
                self.add_holders(reg);
            }
        }
    }

    /// Remembers a plain one-word copy into a single-definition word, so
    /// that the reads it dominates read the source. Every copy is worth
    /// forwarding, whatever made its source: the source lives until the
    /// copy anyway, and the copy's own register is saved (`cvt.u64.u32`
    /// builds `d:0 = MOV a`, `d:1 = MOV RZ`; OriCopyProp forwards whole
    /// registers only).
    fn record_copy(&mut self, inst: &Inst) {
        if let Some(dst) = zero_result(inst).filter(|&d| self.single_def(d)) {
            let w = word(dst, dst.words().start);
            self.copies.insert(w, Reg::RZ);
            self.undo.push(Undo::Copy(w));
            return;
        }
        let Some((dst, s)) = one_word_copy(inst) else { return };
        // A part of a tuple would keep the whole tuple alive up to the
        // copy's readers (an accumulator fragment, a 64-bit address).
        let one_word = self.widths.get(&(s.file, s.num)) == Some(&1);
        let source_stays = s.is_zero() || (one_word && self.single_def(s));
        if s.file.is_predicate() || !source_stays || !self.single_def(dst) {
            return;
        }
        let w = word(dst, dst.words().start);
        let to = if s.is_virtual { self.copies.get(&word(s, s.words().start)).copied().unwrap_or(s) } else { s };
        self.copies.insert(w, to);
        self.undo.push(Undo::Copy(w));
    }

    /// The numbers of the source of a plain one-word copy `d = MOV s`: the
    /// copy holds the same value (copy propagation across the dominator
    /// tree, for the copies `OriCopyProp` cannot prove available).
    fn copied(&self, inst: &Inst) -> Option<Vns> {
        let (_, s) = one_word_copy(inst)?;
        if s.is_virtual { self.numbers(s) } else { None }
    }

    /// The numbers of `inst`'s results: an earlier identical pure
    /// computation's, or fresh ones (recorded for later ones).
    fn compute(&mut self, inst: &Inst) -> Vec<Vns> {
        let key = self.key(inst);
        if let Some(numbers) = key.as_ref().and_then(|k| self.exprs.get(k)) {
            return numbers.clone();
        }
        // A fixed-latency result is as deep as the longest chain of
        // fixed-latency results it reads, plus itself.
        let chain = (inst.op.info().latency == Latency::Fixed).then(|| {
            let operand_chain = key.as_ref().map_or(0, |k| {
                k.uses
                    .iter()
                    .flat_map(UseKey::numbers)
                    .map(|v| self.cheap.get(v).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0)
            });
            operand_chain.saturating_add(1)
        });
        let mut numbers = Vec::with_capacity(inst.defs.len());
        for def in &inst.defs {
            let words = def.as_reg().map_or(0, |r| r.width);
            let vns = Vns::collect_all((0..words).map(|_| Some(self.fresh()))).unwrap_or(Vns::Inline(0, [0; 4]));
            if let Some(chain) = chain {
                self.cheap.extend(vns.iter().map(|&v| (v, chain)));
            }
            numbers.push(vns);
        }
        if let Some(k) = key {
            // Shared with the undo entry: a copy of the key was one more
            // allocation per operand list of every pure instruction.
            let k = Rc::new(k);
            self.exprs.insert(Rc::clone(&k), numbers.clone());
            self.undo.push(Undo::Expr(k));
        }
        numbers
    }

    /// Records `reg`'s register as the holder of every run of its words
    /// (with a word `reg` covers) whose numbers have no holder yet.
    fn add_holders(&mut self, reg: Reg) {
        let width = self.widths.get(&(reg.file, reg.num)).copied().unwrap_or(reg.width);
        let written = reg.words();
        for start in 0..width {
            for end in start + 1..=width.min(start + 4) {
                if end <= written.start || start >= written.end || start % alignment(end - start) != 0 {
                    continue;
                }
                let whole = Reg { word: None, width, ..reg };
                let part = if start == 0 && end == width { whole } else { whole.part(start, end - start) };
                let Some(vns) = self.numbers(part) else { continue };
                let chains = vns.iter().map(|v| self.cheap.get(v).copied());
                let cheap = chains.clone().all(|c| c.is_some());
                if cheap && chains.clone().all(|c| c.is_some_and(|c| c < KEEP_CHAIN)) {
                    continue;
                }
                let key = (reg.file, vns);
                if !self.holders.contains_key(&key) {
                    let cheap_last_read = cheap.then_some(self.position);
                    self.holders.insert(key.clone(), Holder { reg: part, cheap_last_read });
                    self.undo.push(Undo::Holder(key.0, key.1));
                }
            }
        }
    }

    /// Makes every register read of `inst` read the first holder of its
    /// numbers (for a holder of cheap values only, one read within
    /// [`CHEAP_REACH`] instructions of its last).
    fn redirect_reads(&mut self, inst: &mut Inst) {
        self.position += 1;
        if let Some(guard) = &mut inst.guard {
            self.redirect(&mut guard.pred);
        }
        for operand in &mut inst.uses {
            let plain = matches!(operand.kind, OperandKind::Reg(_));
            for reg in operand.regs_mut() {
                // A forwarded copy: a zero register only where a plain
                // register operand is read (addresses and bank offsets
                // keep theirs).
                if reg.is_virtual && reg.width == 1 {
                    match self.copies.get(&word(*reg, reg.words().start)) {
                        Some(&to) if plain || !to.is_zero() => *reg = to,
                        _ => {}
                    }
                }
                self.redirect(reg);
            }
        }
    }

    fn redirect(&mut self, reg: &mut Reg) {
        if !reg.is_virtual {
            return;
        }
        let Some(vns) = self.numbers(*reg) else { return };
        let position = self.position;
        let Some(holder) = self.holders.get_mut(&(reg.file, vns)) else { return };
        if let Some(last) = &mut holder.cheap_last_read {
            if position - *last > CHEAP_REACH {
                return;
            }
            *last = position;
        }
        *reg = holder.reg;
    }

    /// The identity of a pure, unguarded instruction whose definitions are
    /// all single-definition registers and whose register operands all
    /// have numbers here.
    fn key(&self, inst: &Inst) -> Option<ExprKey> {
        if inst.guard.is_some() || !is_pure(inst) {
            return None;
        }
        let mut defs = Vec::with_capacity(inst.defs.len());
        for d in &inst.defs {
            let reg = d.as_reg()?;
            if !reg.is_zero() && !self.single_def(reg) {
                return None;
            }
            defs.push((reg.file, reg.width, reg.is_zero()));
        }
        let mut uses = Vec::with_capacity(inst.uses.len());
        for u in &inst.uses {
            let flags = OperandFlags { reuse: false, undef: false, ..u.flags };
            uses.push(match &u.kind {
                OperandKind::Reg(r) if r.is_zero() => UseKey::Zero(r.file, flags),
                OperandKind::Reg(r) if r.is_virtual => UseKey::Reg(r.file, self.numbers(*r)?, flags),
                OperandKind::Imm(imm) => UseKey::Imm(*imm, flags),
                OperandKind::Special(sr) => UseKey::Special(*sr),
                OperandKind::CBank(cb) => {
                    let bank = match cb.bank {
                        Bank::Fixed(b) => BankKey::Fixed(b),
                        Bank::Indexed(r) => BankKey::Indexed(self.virtual_numbers(r)?),
                    };
                    let reg = match cb.reg {
                        Some(r) if r.is_zero() => None,
                        Some(r) => Some(self.virtual_numbers(r)?),
                        None => None,
                    };
                    UseKey::CBank { bank, reg, offset: cb.offset }
                }
                _ => return None,
            });
        }
        Some(ExprKey { op: inst.op, mods: inst.mods.clone(), defs, uses })
    }

    fn virtual_numbers(&self, reg: Reg) -> Option<Vns> {
        if reg.is_virtual { self.numbers(reg) } else { None }
    }
}

/// The destination and source of a plain one-word copy `d = MOV s`
/// (unguarded, no modifiers or operand marks, one register file).
fn one_word_copy(inst: &Inst) -> Option<(Reg, Reg)> {
    if inst.op != Opcode::MOV || !inst.mods.is_empty() || inst.guard.is_some() {
        return None;
    }
    let ([def], [src]) = (inst.defs.as_slice(), inst.uses.as_slice()) else { return None };
    let (dst, s) = (def.as_reg()?, src.as_reg()?);
    let plain = src.flags == OperandFlags::default();
    (plain && s.width == 1 && dst.width == 1 && s.file == dst.file).then_some((dst, s))
}

/// The one-word register of an unguarded `LOP3.LUT d, RZ, RZ, RZ, lut,
/// !PT` whose table maps zeros to zero: the high word of a 64-bit `and`
/// of a zero-extended value, once its copies are forwarded.
fn zero_result(inst: &Inst) -> Option<Reg> {
    let [def] = inst.defs.as_slice() else { return None };
    let d = def.as_reg().filter(|d| d.width == 1 && d.file == RegFile::R)?;
    let zero = |o: &Operand| o.as_reg().is_some_and(Reg::is_zero) && o.flags == OperandFlags::default();
    let lut_maps_zero_to_zero = match inst.uses.as_slice() {
        [a, b, c, lut, _] if inst.op == Opcode::LOP3 && zero(a) && zero(b) && zero(c) => {
            matches!(lut.kind, OperandKind::Imm(Imm::Int(t)) if t & 1 == 0)
        }
        _ => false,
    };
    (inst.guard.is_none() && lut_maps_zero_to_zero).then_some(d)
}

fn word(reg: Reg, w: u8) -> Word {
    Word { file: reg.file, num: reg.num, word: w }
}

/// The alignment SASS requires of a tuple of `width` words.
fn alignment(width: u8) -> u8 {
    width.next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignments() {
        assert_eq!([1, 2, 3, 4].map(alignment), [1, 2, 4, 4]);
    }
}
