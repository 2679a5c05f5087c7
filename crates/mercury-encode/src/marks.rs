//! Operand marks (`-R`, `|R|`, `~R`, `!P`) as one-bit fields.
//!
//! The solver (`tools/learn_isa.py`) flips every bit of a minimised word
//! of each opcode and operand form; a bit that puts one mark on one
//! operand and changes nothing else, the same bit for every form of the
//! opcode bits, is a row of the generated `MARKS` tables. Marks combine
//! freely (a three-source DFMA has six), so instead of one form per
//! combination the encoder and decoder fall back to the unmarked form and
//! toggle the bits: [`marked_forms`] for the encoder, [`marked_for_bits`]
//! for the decoder.

use std::borrow::Cow;

use crate::Sm;
use crate::form::{AtomKind, Form, Tables};

/// A mark nvdisasm prints on an operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// `-x`: arithmetic negation.
    Neg,
    /// `!P`: predicate negation.
    Not,
    /// `~R`: bitwise inversion.
    Invert,
    /// `|R|`: absolute value, around the register.
    Abs,
}

/// One mark bit of an opcode's operand.
#[derive(Copy, Clone, Debug)]
pub struct Mark {
    /// Opcode bits 0..11 (they also select the operand kinds).
    pub opcode: u16,
    /// Number of operands of the forms it was probed on (nvdisasm leaves
    /// some operands out, `PT` carry-outs, which moves the others).
    pub operands: u8,
    /// Index of the operand in nvdisasm's list, destinations included.
    pub operand: usize,
    /// The operand's skeleton without this mark (`{R}`; rows probed on a
    /// skeleton with other marks, `-` on `|{R}|`, are not used): an
    /// immediate in the same place takes no mark.
    pub on: &'static str,
    /// The mark.
    pub kind: MarkKind,
    /// The bit that sets it.
    pub bit: u8,
}

impl MarkKind {
    pub(crate) const ALL: [MarkKind; 4] = [MarkKind::Neg, MarkKind::Not, MarkKind::Invert, MarkKind::Abs];

    fn prefix(self) -> Option<char> {
        match self {
            MarkKind::Neg => Some('-'),
            MarkKind::Not => Some('!'),
            MarkKind::Invert => Some('~'),
            MarkKind::Abs => None,
        }
    }
}

fn marks(sm: Sm) -> &'static [Mark] {
    match sm.base() {
        Sm::Sm75 => crate::tables::sm75::MARKS,
        Sm::Sm90 => crate::tables::sm90::MARKS,
        Sm::Sm100 => crate::tables::sm100::MARKS,
        Sm::Sm120 => crate::tables::sm120::MARKS,
        _ => crate::tables::sm80::MARKS,
    }
}

/// The register placeholder `|..|` wraps.
fn register(op: &str) -> Option<&'static str> {
    ["{R}", "{U}"].into_iter().find(|r| op.contains(r))
}

/// Splits an operand skeleton into its marks and the unmarked skeleton:
/// `-|{R}|.H1_H1` → ([Neg, Abs], `{R}.H1_H1`).
pub(crate) fn unmark(op: &str) -> (Vec<MarkKind>, String) {
    let mut kinds = Vec::new();
    let mut rest = op;
    if let Some(kind) = MarkKind::ALL.into_iter().find(|k| k.prefix().is_some_and(|p| rest.starts_with(p))) {
        kinds.push(kind);
        rest = &rest[1..];
    }
    let mut plain = rest.to_string();
    if let Some(r) = register(rest) {
        let wrapped = format!("|{r}|");
        if rest.contains(&wrapped) {
            kinds.push(MarkKind::Abs);
            plain = rest.replacen(&wrapped, r, 1);
        }
    }
    (kinds, plain)
}

/// `plain` with `kinds` applied, as nvdisasm prints it (`-|{R}|`).
fn apply(plain: &str, kinds: &[MarkKind]) -> Option<String> {
    let mut s = plain.to_string();
    if kinds.contains(&MarkKind::Abs) {
        let r = register(plain)?;
        s = s.replacen(r, &format!("|{r}|"), 1);
    }
    if let Some(p) = kinds.iter().find_map(|k| k.prefix()) {
        s.insert(0, p);
    }
    Some(s)
}

/// The mark bit of `kind` on operand `k` of `form`, where it is a fixed
/// bit of the form.
///
/// Rows of one opcode and operand count come from several mnemonics,
/// whose operands may sit at other indices (`IADD3 R, P, P, -R, ..` and
/// `IADD3.X R, ~R, ..`: bit 72 marks operand 3 of the one and operand 1
/// of the other). A bit that rows give to another operand too is `k`'s
/// when the forms of `form`'s mnemonic (of `tables` and the solver's) show
/// this mark there with the bit set, or else show the mark kind somewhere
/// and the other row's mark nowhere with the bit set.
fn bit_of(tables: &Tables, sm: Sm, form: &Form, k: usize, kind: MarkKind) -> Option<u128> {
    let opcode = form.bits as u16 & 0xfff;
    let n = form.operands.len();
    let plain = unmark(form.operands.get(k)?).1;
    let rows = || marks(sm).iter().filter(move |m| m.opcode == opcode && usize::from(m.operands) == n);
    let m = rows().find(|m| m.operand == k && m.kind == kind && m.on == plain)?;
    let b = 1u128 << m.bit;
    if form.mask & b == 0 || form.atom_bits() & b != 0 {
        return None;
    }
    let own = || {
        tables
            .forms_with_opcode_of(form.bits)
            .chain(Tables::solved(sm).forms_with_opcode_of(form.bits))
            .filter(|g| g.mnemonic == form.mnemonic)
    };
    let marked =
        |g: &Form, at: usize, kind: MarkKind| g.operands.get(at).is_some_and(|op| unmark(op).0.contains(&kind));
    // Rows of another operand count that give the bit another kind were
    // probed on another mnemonic of the opcode bits: sm_90's bit 72 is the
    // `-` of the third operand of `IADD3 R, P, P, R, ..` and the `~` of
    // the second of `IADD3.X R, R, imm, R, P, P`, whose forms never show
    // a `-` (nvdisasm: `IADD3.X R3, ~R5, 0x1, RZ, P0, !P1`).
    // Only where the mnemonic's forms show one of those other kinds and
    // never this one: sm_80's `LEA.HI.SX32 R3, R3, -R6, 0x19` has no
    // learned form with a mark at all, and its `-` is read.
    let other_kinds: Vec<MarkKind> =
        marks(sm).iter().filter(|o| o.opcode == opcode && o.bit == m.bit && o.kind != kind).map(|o| o.kind).collect();
    let shows = |kind: MarkKind| own().any(|g| (0..g.operands.len()).any(|at| marked(g, at, kind)));
    if !other_kinds.is_empty() && !shows(kind) && other_kinds.iter().any(|&k| shows(k)) {
        return None;
    }
    let others: Vec<&Mark> = rows().filter(|o| o.bit == m.bit && o.operand != k).collect();
    if others.is_empty() {
        return Some(b);
    }
    let siblings: Vec<&Form> = own().filter(|g| g.operands.len() == n).collect();
    let shows = |o: &Mark| siblings.iter().any(|g| g.bits & b != 0 && marked(g, o.operand, o.kind));
    let uses_kind = siblings.iter().any(|g| (0..n).any(|at| marked(g, at, kind)));
    (shows(m) || (uses_kind && !others.iter().any(|o| shows(o)))).then_some(b)
}

/// The mark bits of `base`'s operands for a sibling of it spelled
/// `mnemonic` (a family's other field values, `families.rs`): each
/// `(operand, kind, bit)` whose bit the solver's rows give that operand
/// alone and that a form of `mnemonic` (of `tables` or the solver's, same
/// opcode bits and operand count) fixes, so the bit means something there
/// whatever it means to `base` (sm_90's bit 73 is the `|..|` of `HADD2`'s
/// first source and nothing to `HADD2.F32`), or that is the `!` of a
/// predicate operand (below).
pub(crate) fn sibling_mark_bits(tables: &Tables, sm: Sm, base: &Form, mnemonic: &str) -> Vec<(usize, MarkKind, u8)> {
    let opcode = base.bits as u16 & 0xfff;
    let n = base.operands.len();
    let fixed = fixed_bits_of(tables, sm, base, mnemonic);
    let rows: Vec<&Mark> = marks(sm).iter().filter(|m| m.opcode == opcode && usize::from(m.operands) == n).collect();
    let mut out = Vec::new();
    for (k, op) in base.operands.iter().enumerate() {
        let plain = unmark(op).1;
        for m in rows.iter().filter(|m| m.operand == k && m.on == plain) {
            let b = 1u128 << m.bit;
            let shared = rows.iter().any(|o| o.bit == m.bit && (o.operand != k || o.kind != m.kind));
            let negates = m.kind == MarkKind::Not && predicate_negation(base, k) == Some(m.bit);
            if !shared && (fixed & b != 0 || negates) && base.atom_bits() & b == 0 {
                out.push((k, m.kind, m.bit));
            }
        }
    }
    out
}

/// The bit after predicate operand `k`'s 3-bit number, where a `!` on it
/// would be: a predicate operand is four bits, its number and its
/// negation, whatever the modifiers of the mnemonic (nvdisasm, sm_120's
/// `ISETP.*.AND.EX P0, PT, R3, R5, PT, P0`: bits 90 and 71 put `!` on
/// the last two operands for every comparison and signedness), so a
/// sibling reads the mark where no form of its own spelling shows it.
fn predicate_negation(form: &Form, k: usize) -> Option<u8> {
    if !matches!(unmark(form.operands.get(k)?).1.as_str(), "{P}" | "{UP}") {
        return None;
    }
    let [atom] = form.atoms.get(form.operand_atoms(k))? else { return None };
    let [field] = atom.fields else { return None };
    let is_pred = matches!(atom.kind, AtomKind::P | AtomKind::UP) && field.len == 3 && field.shift == 0;
    is_pred.then_some(field.pos + 3)
}

/// The bits that forms spelled `mnemonic` with `base`'s opcode bits and
/// operand count (of `tables` or the solver's) fix outside their operand
/// fields: bits that mean something to `mnemonic`, whatever they mean to
/// `base`.
pub(crate) fn fixed_bits_of(tables: &Tables, sm: Sm, base: &Form, mnemonic: &str) -> u128 {
    let n = base.operands.len();
    tables
        .forms_with_opcode_of(base.bits)
        .chain(Tables::solved(sm).forms_with_opcode_of(base.bits))
        .filter(|g| g.mnemonic == mnemonic && g.operands.len() == n)
        .fold(0u128, |m, g| m | (g.mask & !g.atom_bits()))
}

/// `op` with the marks `bits` give it (`(operand, kind, bit)` of
/// [`sibling_mark_bits`]; kinds no bit gives stay as they are).
pub(crate) fn remark(
    op: &'static str,
    k: usize,
    bits: &[(usize, MarkKind, u8)],
    word: u128,
) -> Option<Cow<'static, str>> {
    let (have, plain) = unmark(op);
    let kinds: Vec<MarkKind> = MarkKind::ALL
        .into_iter()
        .filter(|&kind| match bits.iter().find(|(at, kd, _)| *at == k && *kd == kind) {
            Some((_, _, b)) => (word >> b) & 1 == 1,
            None => have.contains(&kind),
        })
        .collect();
    Some(if kinds == have { Cow::Borrowed(op) } else { Cow::Owned(apply(&plain, &kinds)?) })
}

/// Forms for `mnemonic` with these operand skeletons made from forms of
/// the same text but other marks, by setting and clearing mark bits.
pub(crate) fn marked_forms(tables: &Tables, sm: Sm, mnemonic: &str, skeletons: &[String]) -> Vec<Form> {
    let split: Vec<(Vec<MarkKind>, String)> = skeletons.iter().map(|s| unmark(s)).collect();
    let plain: Vec<&str> = split.iter().map(|(_, p)| p.as_str()).collect();
    let mut bases: Vec<Form> = tables.forms_for_plain_text(mnemonic, plain.iter().copied()).copied().collect();
    let plain_owned: Vec<String> = plain.iter().map(|p| p.to_string()).collect();
    bases.extend(crate::families::derived_forms(
        tables,
        sm,
        mnemonic,
        &plain_owned,
        crate::families::Operands::Unmarked,
    ));
    let siblings = crate::families::marked_siblings(tables, sm, mnemonic, &split);
    bases
        .into_iter()
        .filter_map(|form| {
            let mut bits = form.bits;
            for (k, (want, _)) in split.iter().enumerate() {
                let (have, _) = unmark(form.operands.get(k)?);
                for kind in MarkKind::ALL {
                    match (want.contains(&kind), have.contains(&kind)) {
                        (true, false) => bits |= bit_of(tables, sm, &form, k, kind)?,
                        (false, true) => bits &= !bit_of(tables, sm, &form, k, kind)?,
                        _ => {}
                    }
                }
            }
            Some(Form { bits, ..form })
        })
        .chain(siblings)
        .collect()
}

/// The bits that set or clear a mark on one of `form`'s operands.
pub(crate) fn mark_bits(tables: &Tables, sm: Sm, form: &Form) -> u128 {
    let mut free = 0u128;
    for k in 0..form.operands.len() {
        for kind in MarkKind::ALL {
            free |= bit_of(tables, sm, form, k, kind).unwrap_or(0);
        }
    }
    free
}

/// `form`'s operand skeletons with the marks `word`'s mark bits say.
pub(crate) fn marked_operands(tables: &Tables, sm: Sm, form: &Form, word: u128) -> Option<Vec<Cow<'static, str>>> {
    let mut operands = Vec::with_capacity(form.operands.len());
    for (k, op) in form.operands.iter().enumerate() {
        let (have, plain) = unmark(op);
        let kinds: Vec<MarkKind> = MarkKind::ALL
            .into_iter()
            .filter(|&kind| match bit_of(tables, sm, form, k, kind) {
                Some(b) => word & b != 0,
                None => have.contains(&kind),
            })
            .collect();
        operands.push(if kinds == have { Cow::Borrowed(*op) } else { Cow::Owned(apply(&plain, &kinds)?) });
    }
    Some(operands)
}

/// A form for `word` made from a form of its opcode that matches it
/// outside mark bits, with the operand marks the bits say.
pub(crate) fn marked_for_bits(tables: &Tables, sm: Sm, word: u128) -> Option<(Form, Vec<Cow<'static, str>>)> {
    let mut best: Option<(&Form, u128)> = None;
    for form in tables.forms_with_opcode_of(word) {
        let free = mark_bits(tables, sm, form);
        if free == 0 || !form.matches(word, free) {
            continue;
        }
        if best.is_none_or(|(b, _)| form.mask.count_ones() > b.mask.count_ones()) {
            best = Some((form, free));
        }
    }
    let (form, free) = best?;
    let operands = marked_operands(tables, sm, form, word)?;
    Some((Form { bits: (form.bits & !free) | (word & free), ..*form }, operands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_split_and_apply() {
        assert_eq!(unmark("-|{R}|.H1_H1"), (vec![MarkKind::Neg, MarkKind::Abs], "{R}.H1_H1".to_string()));
        assert_eq!(unmark("!{P}"), (vec![MarkKind::Not], "{P}".to_string()));
        assert_eq!(unmark("c[{X}][{X}]"), (vec![], "c[{X}][{X}]".to_string()));
        assert_eq!(apply("{R}.H0_H0", &[MarkKind::Neg, MarkKind::Abs]).as_deref(), Some("-|{R}|.H0_H0"));
        assert_eq!(apply("{U}", &[MarkKind::Neg]).as_deref(), Some("-{U}"));
    }
}
