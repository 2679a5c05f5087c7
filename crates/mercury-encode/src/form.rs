//! Instruction forms: the data that ties one nvdisasm text shape to its
//! bits. A form is a mnemonic (opcode and modifiers), the operand
//! skeletons in nvdisasm syntax with `{K}` placeholders for the variable
//! parts ("atoms"), the fixed bits, and where each atom lives in the word.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Sm;

/// What an atom holds, which fixes how its field value reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomKind {
    /// General register `R0..R254`, `RZ` = 255.
    R,
    /// Uniform register `UR0..UR62`, `URZ` = 63.
    U,
    /// Predicate `P0..P6`, `PT` = 7.
    P,
    /// Uniform predicate `UP0..UP6`, `UPT` = 7.
    UP,
    /// Predicate stored as the complement of its number (`P0` = 7, `PT` =
    /// 0): the predicate operand of some LD/LDG forms (nvdisasm probes).
    InvP,
    /// Uniform predicate stored as the complement of its number (`UP0` =
    /// 7, `UPT` = 0): the `UP` operand of HMMA, IMMA and HGMMA.
    InvUP,
    /// Convergence barrier register `B0..B15`.
    B,
    /// Scoreboard `SB0..SB5`.
    SB,
    /// Special register, numbered as in [`Tables::special_regs`].
    SR,
    /// Integer immediate, printed in hex.
    X,
    /// binary32 immediate.
    F32,
    /// binary64 immediate of which only the high 32 bits are encoded.
    F64Hi,
    /// binary16 immediate (one half of a packed pair).
    F16,
    /// bfloat16 immediate (one half of a packed pair).
    BF16,
    /// Branch target: byte offset from the next instruction.
    L,
}

impl AtomKind {
    /// The placeholder that stands for the atom in a skeleton.
    pub fn placeholder(self) -> &'static str {
        match self {
            AtomKind::R => "{R}",
            AtomKind::U => "{U}",
            AtomKind::P | AtomKind::InvP => "{P}",
            AtomKind::UP | AtomKind::InvUP => "{UP}",
            AtomKind::B => "{B}",
            AtomKind::SB => "{SB}",
            AtomKind::SR => "{SR}",
            AtomKind::X => "{X}",
            AtomKind::F32 | AtomKind::F64Hi | AtomKind::F16 | AtomKind::BF16 => "{F}",
            AtomKind::L => "{L}",
        }
    }
}

/// A run of bits of an atom's value: value bits `shift..shift+len` sit at
/// instruction bits `pos..pos+len`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// First instruction bit (0..128, low word first).
    pub pos: u8,
    /// Number of bits.
    pub len: u8,
    /// First value bit.
    pub shift: u8,
}

/// Where one atom lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// What it holds.
    pub kind: AtomKind,
    /// Its bits; the value's width is the highest `shift + len`.
    pub fields: &'static [Field],
    /// The value is two's complement (sign-extended from its width).
    pub signed: bool,
    /// Bit of the operand reuse field that the register's `.reuse` sets.
    pub reuse: Option<u8>,
}

impl Atom {
    /// Width of the value in bits.
    pub fn width(&self) -> u32 {
        self.fields.iter().map(|f| u32::from(f.shift) + u32::from(f.len)).max().unwrap_or(0)
    }

    /// Reads the atom's value (sign-extended when signed).
    pub fn extract(&self, word: u128) -> i64 {
        let mut v: u64 = 0;
        for f in self.fields {
            let bits = (word >> f.pos) as u64 & low_mask(f.len);
            v |= bits << f.shift;
        }
        let w = self.width();
        if self.signed && w > 0 && w < 64 && (v >> (w - 1)) & 1 == 1 {
            (v | !low_mask(w as u8)) as i64
        } else {
            v as i64
        }
    }

    /// Checks that `value` fits the atom's bits and returns them placed
    /// in the word.
    pub fn place(&self, value: i64) -> Option<u128> {
        let w = self.width();
        let held = self.fields.iter().fold(0u64, |m, f| m | (low_mask(f.len) << f.shift));
        let raw = if self.signed {
            let half = 1i128 << (w.max(1) - 1);
            if i128::from(value) < -half || i128::from(value) >= half {
                return None;
            }
            value as u64 & low_mask(w as u8)
        } else {
            value as u64
        };
        // A 64-bit unsigned field holds every bit pattern of `value`
        // (sm_120's `MOV.64 R8, 0xfff8000000000000`, which `extract` reads
        // back as a negative number).
        if raw & !held != 0 || (!self.signed && value < 0 && w < 64) {
            return None;
        }
        Some(self.fields.iter().fold(0u128, |acc, f| acc | (u128::from((raw >> f.shift) & low_mask(f.len)) << f.pos)))
    }
}

fn low_mask(len: u8) -> u64 {
    if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }
}

/// One instruction form.
#[derive(Copy, Clone, Debug)]
pub struct Form {
    /// Opcode and modifiers as nvdisasm prints them (`IMAD.MOV.U32`).
    pub mnemonic: &'static str,
    /// Operand skeletons, destinations first, in nvdisasm order.
    pub operands: &'static [&'static str],
    /// The atoms of all operands, in text order.
    pub atoms: &'static [Atom],
    /// Fixed bits (opcode, modifiers, operands the text does not show),
    /// and outside `mask` what the encoder writes where nvdisasm ignores
    /// the bits (solver forms: `URZ` in an unused source field, as
    /// NVIDIA's code has it).
    pub bits: u128,
    /// Which bits are fixed. It may include atom bits: an alias mnemonic
    /// stands for particular operand values (`IMAD.MOV` = `IMAD` with
    /// `RZ, RZ`).
    pub mask: u128,
    /// The guard names a uniform predicate (`@UP0`).
    pub uniform_guard: bool,
}

impl Form {
    /// True when `word` has the form's fixed bits, but for those of `free`.
    pub fn matches(&self, word: u128, free: u128) -> bool {
        (word ^ self.bits) & self.mask & !free == 0
    }

    /// The bits of all atoms' fields.
    pub fn atom_bits(&self) -> u128 {
        let field = |f: &Field| ((1u128 << f.len) - 1) << f.pos;
        self.atoms.iter().flat_map(|a| a.fields).fold(0, |m, f| m | field(f))
    }

    /// The indices in `atoms` of operand `k`'s atoms (atoms are in text
    /// order, one per placeholder).
    pub(crate) fn operand_atoms(&self, k: usize) -> std::ops::Range<usize> {
        let start: usize = self.operands[..k].iter().map(|s| s.matches('{').count()).sum();
        start..start + self.operands[k].matches('{').count()
    }
}

/// The forms of one SM family and its special-register numbers.
pub struct Tables {
    /// Every form: the learned ones, then those derived from them
    /// (`derive.rs`).
    pub forms: &'static [Form],
    learned: usize,
    /// Special registers: hardware number and nvdisasm name.
    pub special_regs: &'static [(u16, &'static str)],
    /// The field value of `URZ`: 63 until sm_90, 255 on Blackwell, whose
    /// uniform register file has 255 registers (`UR63` is one of them,
    /// which Ori, whose `URZ` is number 63, cannot name yet).
    pub urz: u32,
    by_opcode_bits: HashMap<u16, Vec<usize>>,
    /// Forms by a hash of their text (`text_hash`); a lookup compares the
    /// text itself, so collisions only cost a comparison.
    by_text: HashMap<u64, Vec<usize>>,
    /// The first `own` forms are the family's own, which win over its base
    /// family's (`Sm::base`).
    own: usize,
    /// Forms by a hash of their text without operand marks (`marks.rs`).
    by_plain_text: HashMap<u64, Vec<usize>>,
    /// The derived forms are in `forms` too.
    complete: bool,
}

/// Bits 77..86, which nvdisasm's SM110 does not print but every `IMNMX`
/// of NVIDIA's sm_110a code of the corpus sets (32 of 32): sm_120's
/// `IMNMX` prints them as a second predicate source `!PT` (77..80) and two
/// predicate outputs `PT, PT` (81..83, 84..86). sm_110's `IMNMX` forms are
/// sm_100's solver forms (NVIDIA's sm_100 code has none), which leave them
/// clear: `P0`, `P0` outputs the hardware may write.
const SM110_IMNMX_SET: u128 = 0x3ff << 77;

impl Tables {
    /// The tables of `sm`: the learned forms only until something needed a
    /// derived one ([`Tables::full`]), then all of them, so that code
    /// NVIDIA's forms cover is encoded and decoded by learned forms alone
    /// (a derived form may be more specific than a learned one).
    pub fn get(sm: Sm) -> &'static Tables {
        let (learned, full, _) = Self::cells(sm);
        full.get().unwrap_or_else(|| learned.get_or_init(|| Tables::new(sm, Kind::Learned)))
    }

    /// The learned and derived forms of `sm` (indexed on first use).
    pub fn full(sm: Sm) -> &'static Tables {
        Self::cells(sm).1.get_or_init(|| Tables::new(sm, Kind::Full))
    }

    /// True when `self` holds the derived forms too.
    pub fn is_full(&self) -> bool {
        self.complete
    }

    /// The ISA solver's forms of `sm` (`tables::*::SOLVED`), as tables of
    /// their own: the encoder and decoder ask them only when the corpus
    /// and derived forms (and their families and marks) have no answer, so
    /// that every word NVIDIA's forms cover reads as before.
    pub fn solved(sm: Sm) -> &'static Tables {
        Self::cells(sm).2.get_or_init(|| Tables::new(sm, Kind::Solved))
    }

    fn cells(sm: Sm) -> (&'static OnceLock<Tables>, &'static OnceLock<Tables>, &'static OnceLock<Tables>) {
        static CELLS: [[OnceLock<Tables>; 3]; Sm::ALL.len()] =
            [const { [const { OnceLock::new() }; 3] }; Sm::ALL.len()];
        let cells = &CELLS[sm.index()];
        (&cells[0], &cells[1], &cells[2])
    }

    fn new(sm: Sm, kind: Kind) -> Tables {
        use crate::tables::{
            sm75, sm75_derived, sm80, sm80_derived, sm86, sm89, sm90, sm90_derived, sm100, sm100_probed, sm107, sm110,
            sm120, sm120_probed,
        };
        let (corpus, solved, derived, special_regs) = match sm.base() {
            Sm::Sm75 => (sm75::FORMS, sm75::SOLVED, sm75_derived::FORMS, sm75::SPECIAL_REGS),
            Sm::Sm90 => (sm90::FORMS, sm90::SOLVED, sm90_derived::FORMS, sm90::SPECIAL_REGS),
            Sm::Sm100 => (sm100::FORMS, sm100::SOLVED, sm100_probed::FORMS, sm100::SPECIAL_REGS),
            Sm::Sm120 => (sm120::FORMS, sm120::SOLVED, sm120_probed::FORMS, sm120::SPECIAL_REGS),
            _ => (sm80::FORMS, sm80::SOLVED, sm80_derived::FORMS, sm80::SPECIAL_REGS),
        };
        // sm_86/sm_89's own forms (what their cubins print or encode
        // otherwise than sm_80's) come first: the encoder tries forms in
        // order and the decoder prefers them among equally specific ones.
        let own: &[Form] = match (sm, kind) {
            (Sm::Sm86, Kind::Learned | Kind::Full) => sm86::FORMS,
            (Sm::Sm89, Kind::Learned | Kind::Full) => sm89::FORMS,
            _ => &[],
        };
        // sm_110 and sm_107 leave out the base forms their nvdisasm reads
        // otherwise.
        let dropped: &[(&str, u128)] = match sm {
            Sm::Sm110 => sm110::DROPPED,
            Sm::Sm107 => sm107::DROPPED,
            _ => &[],
        };
        let kept = |form: &&Form| !dropped.contains(&(form.mnemonic, form.bits));
        let mut all: Vec<Form> = match kind {
            Kind::Solved => solved.iter().filter(kept).copied().collect(),
            Kind::Learned | Kind::Full => own.iter().chain(corpus.iter().filter(kept)).copied().collect(),
        };
        // sm_107 takes sm_100's forms of what sm_120's tables lack and its
        // nvdisasm reads as sm_100's (`FMNMX3`, `CREDUX`, `FFMA2`, ...).
        if sm == Sm::Sm107 {
            let other = if kind == Kind::Solved { sm100::SOLVED } else { sm100::FORMS };
            all.extend(other.iter().filter(|f| sm107::ADDED.contains(&(f.mnemonic, f.bits))).copied());
        }
        if sm == Sm::Sm110 {
            for form in all.iter_mut().filter(|f| f.mnemonic.split('.').next() == Some("IMNMX")) {
                form.bits |= SM110_IMNMX_SET;
            }
        }
        let learned_len = all.len();
        // sm_110's nvdisasm refuses every probed sm_100 form (FADD2,
        // FMUL2, FFMA2, CREDUX).
        if kind == Kind::Full && sm != Sm::Sm110 {
            all.extend_from_slice(derived);
            all.extend(crate::tables::sweep15_probed::forms(sm));
            all.extend_from_slice(crate::tables::unseen15_probed::forms(sm));
            all.extend_from_slice(crate::tables::lead16_probed::forms(sm));
            all.extend_from_slice(crate::tables::unseen16_probed::forms(sm));
            all.extend_from_slice(crate::tables::igmma16_probed::forms(sm));
            all.extend_from_slice(crate::tables::sweep16_probed::forms(sm));
        }
        // Probed on sm_110's and sm_107's nvdisasm too.
        if kind == Kind::Full {
            all.extend_from_slice(crate::tables::isa16_probed::forms(sm));
        }
        // Built once per SM family and kept for the life of the process.
        let forms: &'static [Form] = Box::leak(all.into_boxed_slice());
        let mut by_opcode_bits: HashMap<u16, Vec<usize>> = HashMap::new();
        // Hashed text, not the text: building thousands of keys as strings
        // cost most of the first use of the full tables.
        let mut by_text: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut by_plain_text: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, form) in forms.iter().enumerate() {
            by_opcode_bits.entry(form.bits as u16 & OPCODE_BITS).or_default().push(i);
            by_text.entry(text_hash(form.mnemonic, form.operands.iter().copied())).or_default().push(i);
            let plain: Vec<String> = form.operands.iter().map(|op| crate::marks::unmark(op).1).collect();
            by_plain_text.entry(text_hash(form.mnemonic, plain.iter().map(String::as_str))).or_default().push(i);
        }
        Tables {
            forms,
            own: own.len(),
            learned: learned_len,
            special_regs,
            urz: if sm.is_blackwell() { 255 } else { 63 },
            by_opcode_bits,
            by_text,
            by_plain_text,
            complete: kind != Kind::Learned,
        }
    }

    /// The forms learned from NVIDIA's cubins (the generated tables).
    pub fn learned(&self) -> &'static [Form] {
        &self.forms[..self.learned]
    }

    /// The forms derived from the learned ones (`derive.rs`).
    pub fn derived(&self) -> &'static [Form] {
        &self.forms[self.learned..]
    }

    /// The most specific form whose fixed bits match `word`; a learned
    /// one before a derived one as specific, the family's own before its
    /// base family's.
    pub fn form_for_bits(&self, word: u128) -> Option<&'static Form> {
        let candidates = self.by_opcode_bits.get(&(word as u16 & OPCODE_BITS))?;
        candidates
            .iter()
            .filter(|&&i| self.forms[i].matches(word, 0))
            .max_by_key(|&&i| (self.forms[i].mask.count_ones(), i < self.learned, i < self.own))
            .map(|&i| &self.forms[i])
    }

    /// The forms with the opcode bits of `word`.
    pub fn forms_with_opcode_of(&self, word: u128) -> impl Iterator<Item = &'static Form> + '_ {
        let forms = self.forms;
        self.by_opcode_bits.get(&(word as u16 & OPCODE_BITS)).into_iter().flatten().map(move |&i| &forms[i])
    }

    /// The forms printed as `mnemonic` with these operand skeletons, most
    /// frequent in NVIDIA's code first.
    pub fn forms_for_text<'s, 'a, I>(
        &'s self,
        mnemonic: &'a str,
        operands: I,
    ) -> impl Iterator<Item = usize> + use<'s, 'a, I>
    where
        I: Iterator<Item = &'a str> + Clone + 's,
        'a: 's,
    {
        let hash = text_hash(mnemonic, operands.clone());
        let same = move |&i: &usize| {
            let form = &self.forms[i];
            form.mnemonic == mnemonic && form.operands.iter().copied().eq(operands.clone())
        };
        self.by_text.get(&hash).into_iter().flatten().copied().filter(same)
    }

    /// The forms printed as `mnemonic` with these operand skeletons once
    /// their marks are taken off (`-{R}` as `{R}`).
    pub(crate) fn forms_for_plain_text<'s, 'a>(
        &'s self,
        mnemonic: &'a str,
        plain: impl Iterator<Item = &'a str> + Clone + 's,
    ) -> impl Iterator<Item = &'static Form> + 's
    where
        'a: 's,
    {
        let forms = self.forms;
        let hash = text_hash(mnemonic, plain.clone());
        self.by_plain_text.get(&hash).into_iter().flatten().map(move |&i| &forms[i]).filter(move |form| {
            form.mnemonic == mnemonic && form.operands.iter().map(|op| crate::marks::unmark(op).1).eq(plain.clone())
        })
    }

    /// The name of special register `number`.
    pub fn special_name(&self, number: u16) -> Option<&'static str> {
        self.special_regs.iter().chain(crate::tables::PROBED_SPECIAL_REGS).find(|(n, _)| *n == number).map(|(_, s)| *s)
    }

    /// The number of the special register called `name`.
    pub fn special_number(&self, name: &str) -> Option<u16> {
        self.special_regs.iter().chain(crate::tables::PROBED_SPECIAL_REGS).find(|(_, s)| *s == name).map(|(n, _)| *n)
    }
}

/// Which forms a [`Tables`] holds.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    /// NVIDIA's corpus forms.
    Learned,
    /// Those and the derived ones.
    Full,
    /// The ISA solver's.
    Solved,
}

/// Bits 0..12 select the opcode and its operand-kind variant on sm_70+.
pub(crate) const OPCODE_BITS: u16 = 0xfff;

/// FNV-1a over the mnemonic and the operand skeletons, each preceded by a
/// separator byte.
fn text_hash<'a>(mnemonic: &str, operands: impl Iterator<Item = &'a str>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(mnemonic.as_bytes());
    for op in operands {
        eat(b"\0");
        eat(op.as_bytes());
    }
    h
}
