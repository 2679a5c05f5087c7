//! Ori instruction → bits.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use ori_ir::{Ctrl, Inst, Opcode, Operand, Reg, RegFile};

use crate::ctrl::{encode_ctrl, with_reuse};
use crate::decode::GUARD_POS;
use crate::float::f32_bits_to_f16;
use crate::form::{AtomKind, Form, Tables};
use crate::labels::Labels;
use crate::print::mnemonic;
use crate::syntax::{Value, shape};
use crate::{Error, Sm, halves};

/// Encodes `inst`, placed at code address `addr` (branch offsets are
/// relative), with its control word `inst.ctrl`; an unscheduled
/// instruction gets [`UNSCHEDULED`].
pub fn encode(sm: Sm, inst: &Inst, addr: u64, labels: &dyn Labels) -> Result<[u64; 2], Error> {
    // Else one of the ISA solver's forms (the first error says more).
    encode_learned(sm, inst, addr, labels, true)
        .or_else(|e| encode_with(Tables::solved(sm), sm, inst, addr, labels, true).map_err(|_| e))
        .map(|bits| crate::policy::with_mark(sm, inst, bits))
}

/// [`encode`] with the forms of NVIDIA's code only (corpus, derived,
/// families; no operand marks NVIDIA's code lacks, no solver forms): what
/// [`crate::EncoderForms`] offers the phases, so that they choose the
/// operand shapes NVIDIA's ptxas uses (sm_90 reads parameters through
/// uniform registers, though the instruction set has constant operands
/// there too).
pub(crate) fn encode_as_nvidia(sm: Sm, inst: &Inst, addr: u64, labels: &dyn Labels) -> Result<[u64; 2], Error> {
    encode_learned(sm, inst, addr, labels, false).map(|bits| crate::policy::with_mark(sm, inst, bits))
}

fn encode_learned(sm: Sm, inst: &Inst, addr: u64, labels: &dyn Labels, marks: bool) -> Result<[u64; 2], Error> {
    let tables = Tables::get(sm);
    match encode_with(tables, sm, inst, addr, labels, marks) {
        // A form nobody learned may be a derived one.
        Err(_) if !tables.is_full() => encode_with(Tables::full(sm), sm, inst, addr, labels, marks),
        result => result,
    }
}

/// Predicate outputs Blackwell's code always names, unused ones as `PT`,
/// where Ori writes only those it uses: both carry-outs of the
/// three-input adds (`IADD3 R5, PT, PT, R5, 0x1, RZ`: every
/// `IADD3`/`UIADD3` of NVIDIA's sm_100/sm_120 code) and sm_100's two
/// outputs of `VIMNMX` (`VIMNMX R8, PT, PT, R3, 0x1, !PT`; sm_120's has
/// none). `inst` with the missing ones added, `None` when it needs none.
fn with_named_predicate_outputs(sm: Sm, inst: &Inst) -> Option<Inst> {
    let pt = match (inst.op, sm.base()) {
        (Opcode::IADD3, Sm::Sm100 | Sm::Sm120) | (Opcode::VIMNMX, Sm::Sm100) => Reg::PT,
        (Opcode::UIADD3, Sm::Sm100 | Sm::Sm120) => Reg::UPT,
        _ => return None,
    };
    let named = inst.defs.iter().filter(|d| d.as_reg().is_some_and(|r| r.file.is_predicate())).count();
    if named >= 2 {
        return None;
    }
    let mut padded = inst.clone();
    padded.defs.extend((named..2).map(|_| Operand::reg(pt)));
    Some(padded)
}

fn encode_with(
    tables: &'static Tables,
    sm: Sm,
    inst: &Inst,
    addr: u64,
    labels: &dyn Labels,
    marks: bool,
) -> Result<[u64; 2], Error> {
    let padded = with_named_predicate_outputs(sm, inst);
    let inst = padded.as_ref().unwrap_or(inst);
    let mnemonic = mnemonic(inst);
    let mut skeletons = Vec::new();
    let mut values = Vec::new();
    let mut reuse_atoms = Vec::new();
    // Where the address operand's atoms end, when it has no offset.
    let mut no_offset = None;
    for op in inst.defs.iter().chain(&inst.uses) {
        let (mut skeleton, atoms) = shape(op)?;
        // The 64-bit address of `ATOMG.E.CAS` and of generic `LD.E`/`ST.E`
        // without a descriptor prints as `[R6]` (widths.rs).
        if crate::widths::hides_pair(sm, inst, &skeleton) {
            skeleton = skeleton.replacen("[{R}.64", "[{R}", 1);
        }
        if op.flags.reuse {
            reuse_atoms.push(values.len());
        }
        values.extend(atoms);
        if skeleton.ends_with(']') && !skeleton.ends_with("{X}]") && skeleton.contains("[{") {
            no_offset.get_or_insert((skeletons.len(), values.len()));
        }
        skeletons.push(skeleton);
    }
    let found = encode_forms(tables, sm, inst, &mnemonic, &skeletons, &values, &reuse_atoms, addr, labels, marks);
    let Err(first_err) = found else { return found };
    // nvdisasm leaves a zero offset out (`[R222]` of `ATOMG.CAS.STRONG.SM`
    // is `[R222+0x0]`), so a form with an offset encodes an address
    // without one.
    let Some((k, at)) = no_offset else { return Err(first_err) };
    let end = skeletons[k].len() - 1;
    skeletons[k].insert_str(end, "+{X}");
    values.insert(at, Value::Int(0));
    let reuse_atoms: Vec<usize> = reuse_atoms.iter().map(|&i| if i >= at { i + 1 } else { i }).collect();
    encode_forms(tables, sm, inst, &mnemonic, &skeletons, &values, &reuse_atoms, addr, labels, marks)
        .map_err(|_| first_err)
}

/// The first form of `mnemonic` with these operand skeletons that places
/// `values`: a learned one, a family sibling, one with operand marks set.
#[allow(clippy::too_many_arguments)]
fn encode_forms(
    tables: &'static Tables,
    sm: Sm,
    inst: &Inst,
    mnemonic: &str,
    skeletons: &[String],
    values: &[Value],
    reuse_atoms: &[usize],
    addr: u64,
    labels: &dyn Labels,
    marks: bool,
) -> Result<[u64; 2], Error> {
    let mut last_err = None;
    // IMAD's alias spellings share one encoding (alias.rs).
    let spellings = crate::alias::spellings(inst, mnemonic);
    let candidates = spellings.iter().flat_map(|m| tables.forms_for_text(m, skeletons.iter().map(String::as_str)));
    for i in candidates {
        let form = &tables.forms[i];
        match place(tables, form, inst, values, reuse_atoms, addr, labels) {
            Ok(bits) => return Ok(bits),
            Err(e) => last_err = Some(e),
        }
    }
    for form in derived(tables, sm, mnemonic, skeletons, marks).iter() {
        match place(tables, form, inst, values, reuse_atoms, addr, labels) {
            Ok(bits) => return Ok(bits),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| Error::UnknownForm(format!("{mnemonic} {}", skeletons.join(", ")))))
}

/// Which tables (by address: each is `'static`), spelling, operand
/// skeletons and marks setting derived forms were made for.
type DerivedKey = (usize, String, Vec<String>, bool);

/// Siblings of learned forms (other comparison, combine, signedness),
/// then forms with operand marks set (`-R`, `|R|`) when `marks`. Making
/// them scans every form of the tables, and a long function asks for the
/// same few spellings thousands of times: they are made once per key (a
/// pure function of it) and kept for the process.
fn derived(tables: &'static Tables, sm: Sm, mnemonic: &str, skeletons: &[String], marks: bool) -> Arc<[Form]> {
    static CACHE: LazyLock<Mutex<HashMap<DerivedKey, Arc<[Form]>>>> = LazyLock::new(Default::default);
    let lock = || CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let key: DerivedKey = (std::ptr::from_ref(tables) as usize, mnemonic.to_string(), skeletons.to_vec(), marks);
    if let Some(forms) = lock().get(&key) {
        return Arc::clone(forms);
    }
    let siblings = crate::families::derived_forms(tables, sm, mnemonic, skeletons, crate::families::Operands::Exact);
    let marked = if marks { crate::marks::marked_forms(tables, sm, mnemonic, skeletons) } else { Vec::new() };
    let forms: Arc<[Form]> = siblings.into_iter().chain(marked).collect();
    lock().insert(key, Arc::clone(&forms));
    forms
}

/// The control word of an instruction the scheduler has not seen: no
/// scoreboards, no wait, stall 1 without yield (a field value nvdisasm
/// accepts for every opcode).
pub const UNSCHEDULED: Ctrl = Ctrl { stall: 1, yield_: false, write_sb: None, read_sb: None, wait: 0 };

fn place(
    tables: &Tables,
    form: &Form,
    inst: &Inst,
    values: &[Value],
    reuse_atoms: &[usize],
    addr: u64,
    labels: &dyn Labels,
) -> Result<[u64; 2], Error> {
    let mut atoms = 0u128;
    for (atom, v) in form.atoms.iter().zip(values) {
        let raw = raw_value(tables, atom.kind, v, addr, labels)?;
        atoms |= atom
            .place(raw)
            .ok_or_else(|| Error::OutOfRange(format!("{v:?} in {:?} field of {}", atom.kind, form.mnemonic)))?;
    }
    // Alias forms fix some operand bits (IMAD.MOV has RZ, RZ as a and b).
    let pinned = form.atom_bits() & form.mask;
    if atoms & pinned != form.bits & pinned {
        return Err(Error::UnknownForm(format!("{} with these operands", form.mnemonic)));
    }
    let mut w = (form.bits & !form.atom_bits()) | atoms;
    let guard = match inst.guard {
        None => 0x7,
        Some(g) => {
            let file = if form.uniform_guard { RegFile::UP } else { RegFile::P };
            if g.pred.file != file {
                return Err(Error::UnknownForm(format!("guard {} on {}", g.pred, form.mnemonic)));
            }
            g.pred.num | if g.negated { 8 } else { 0 }
        }
    };
    w |= u128::from(guard) << GUARD_POS;
    let mut reuse = 0u8;
    for &i in reuse_atoms {
        let slot =
            form.atoms[i].reuse.ok_or_else(|| Error::UnknownForm(format!(".reuse on operand of {}", form.mnemonic)))?;
        reuse |= 1 << slot;
    }
    let [lo, hi] = halves(w);
    let hi = encode_ctrl(hi, inst.ctrl.as_ref().unwrap_or(&UNSCHEDULED));
    Ok([lo, with_reuse(hi, reuse)])
}

fn raw_value(tables: &Tables, kind: AtomKind, v: &Value, addr: u64, labels: &dyn Labels) -> Result<i64, Error> {
    let mismatch = || Error::UnknownForm(format!("{v:?} as {kind:?}"));
    let file_of = |k| match k {
        AtomKind::R => Some(RegFile::R),
        AtomKind::U => Some(RegFile::UR),
        AtomKind::P => Some(RegFile::P),
        AtomKind::UP => Some(RegFile::UP),
        AtomKind::B => Some(RegFile::B),
        _ => None,
    };
    Ok(match (kind, *v) {
        (AtomKind::U, Value::Reg(r)) if r == Reg::URZ => i64::from(tables.urz),
        (k, Value::Reg(r)) if file_of(k) == Some(r.file) && !r.is_virtual => i64::from(r.num),
        (AtomKind::InvP, Value::Reg(r)) if r.file == RegFile::P && !r.is_virtual => i64::from(!r.num & 7),
        (AtomKind::InvUP, Value::Reg(r)) if r.file == RegFile::UP && !r.is_virtual => i64::from(!r.num & 7),
        (AtomKind::X, Value::Int(i)) => i,
        (AtomKind::F32, Value::F32(bits)) => i64::from(bits),
        (AtomKind::F64Hi, Value::F64(bits)) if bits as u32 == 0 => (bits >> 32) as i64,
        (AtomKind::F16, Value::F32(bits)) => {
            i64::from(f32_bits_to_f16(bits).ok_or_else(|| Error::OutOfRange(format!("{v:?} as binary16")))?)
        }
        (AtomKind::BF16, Value::F32(bits)) if bits & 0xffff == 0 => i64::from(bits >> 16),
        (AtomKind::SR, Value::Special(sr)) => i64::from(tables.special_number(sr.name()).ok_or_else(mismatch)?),
        (AtomKind::SB, Value::Scoreboard(sb)) => i64::from(sb),
        (AtomKind::L, Value::Label(b)) => {
            let target =
                labels.address_of(b).ok_or_else(|| Error::OutOfRange(format!("label {b:?} has no address")))?;
            target.wrapping_sub(addr.wrapping_add(16)) as i64
        }
        _ => return Err(mismatch()),
    })
}
