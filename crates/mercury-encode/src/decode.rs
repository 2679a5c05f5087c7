//! Bits → Ori instruction.

use std::collections::HashMap;
use std::sync::OnceLock;

use ori_ir::{Guard, Inst, Modifier, Opcode, Reg, RegFile, SpecialReg};

use crate::ctrl::{decode_ctrl, reuse_bits};
use crate::form::{AtomKind, Form, OPCODE_BITS, Tables};
use crate::labels::Labels;
use crate::syntax::{Value, build};
use crate::{Error, Sm, word};

/// Decodes the instruction `bits` (low word first) found at code address
/// `addr`; branch targets become labels of `labels`.
pub fn decode(sm: Sm, bits: [u64; 2], addr: u64, labels: &mut dyn Labels) -> Result<Inst, Error> {
    // sm_80's cache-policy mark, read off before the forms (policy.rs).
    if let Some(plain) = crate::policy::without_mark(sm, bits) {
        let mut inst = decode(sm, plain, addr, labels)?;
        return if crate::policy::mark(&mut inst) { Ok(inst) } else { Err(Error::UnknownEncoding(bits)) };
    }
    let tables = Tables::get(sm);
    if let Some(solved) = shorter_solved_form(sm, tables, word(bits))
        && let Ok(inst) = decode_with(solved, sm, bits, addr, labels)
    {
        return Ok(inst);
    }
    let result = match decode_with(tables, sm, bits, addr, labels) {
        // A word no learned form (or family sibling) reads may be a derived form's.
        Err(Error::UnknownEncoding(_)) if !tables.is_full() => decode_with(Tables::full(sm), sm, bits, addr, labels),
        result => result,
    };
    match result {
        // Else one of the ISA solver's forms.
        Err(Error::UnknownEncoding(_)) => decode_with(Tables::solved(sm), sm, bits, addr, labels),
        result => result,
    }
}

/// The solver's tables when they print `w` with fewer operands than the
/// corpus form that reads it: nvdisasm leaves an operand out at some of
/// its values (`BPT.TRAP` for a zero immediate, `CALL.ABS R4` without
/// `0x0`, `JMP.DEC.DIV UR24, ..` without `PT`), and the solver's minimised
/// word of that text fixes the operand's bits to them.
fn shorter_solved_form(sm: Sm, tables: &Tables, w: u128) -> Option<&'static Tables> {
    if !may_omit_operand(sm, w as u16 & OPCODE_BITS) {
        return None;
    }
    let form = tables.form_for_bits(w)?;
    let solved = Tables::solved(sm);
    let short = solved.form_for_bits(w)?;
    (short.mnemonic == form.mnemonic
        && short.operands.len() < form.operands.len()
        && short.mask & form.atom_bits() != 0)
        .then_some(solved)
}

/// Whether opcode bits `op` have a solver form with fewer operands than a
/// corpus form of the same mnemonic (computed once per SM family, so that
/// other words cost one lookup).
fn may_omit_operand(sm: Sm, op: u16) -> bool {
    static CELLS: [OnceLock<Vec<bool>>; Sm::ALL.len()] = [const { OnceLock::new() }; Sm::ALL.len()];
    let opcodes = CELLS[sm.index()].get_or_init(|| {
        let mut shortest: HashMap<(u16, &str), usize> = HashMap::new();
        for f in Tables::solved(sm).forms {
            let n = shortest.entry((f.bits as u16 & OPCODE_BITS, f.mnemonic)).or_insert(usize::MAX);
            *n = (*n).min(f.operands.len());
        }
        let mut opcodes = vec![false; usize::from(OPCODE_BITS) + 1];
        for f in Tables::full(sm).forms {
            let op = f.bits as u16 & OPCODE_BITS;
            if shortest.get(&(op, f.mnemonic)).is_some_and(|&n| n < f.operands.len()) {
                opcodes[usize::from(op)] = true;
            }
        }
        opcodes
    });
    opcodes[usize::from(op)]
}

fn decode_with(tables: &Tables, sm: Sm, bits: [u64; 2], addr: u64, labels: &mut dyn Labels) -> Result<Inst, Error> {
    let w = word(bits);
    // A learned form, else one derived from it (families.rs, marks.rs).
    let derived;
    let (form, mnemonic, skeletons): (&Form, &str, Vec<&str>) = match tables.form_for_bits(w) {
        Some(f) => (f, f.mnemonic, f.operands.to_vec()),
        None => {
            // A family sibling, else a learned form with operand marks
            // set.
            derived = crate::families::derive_for_bits(tables, sm, w)
                .or_else(|| {
                    let (form, operands) = crate::marks::marked_for_bits(tables, sm, w)?;
                    Some((form, form.mnemonic.to_string(), operands))
                })
                .ok_or(Error::UnknownEncoding(bits))?;
            (&derived.0, &derived.1, derived.2.iter().map(|s| s.as_ref()).collect())
        }
    };
    let (op, mods) = split_mnemonic(mnemonic)?;
    let reuse = reuse_bits(bits[1]);
    let mut values = Vec::with_capacity(form.atoms.len());
    let mut reused = Vec::with_capacity(form.atoms.len());
    for atom in form.atoms {
        let raw = atom.extract(w);
        values.push(value(tables, atom.kind, raw, addr, labels)?);
        reused.push(atom.reuse.is_some_and(|slot| reuse & (1 << slot) != 0));
    }
    let mut atoms = values.into_iter();
    let mut operands = Vec::with_capacity(skeletons.len());
    let mut atom_index = 0;
    for skeleton in skeletons {
        let mut op = build(skeleton, &mut atoms)?;
        let n = skeleton.matches('{').count();
        // nvdisasm marks `.reuse` on plain register operands only.
        op.flags.reuse = n == 1 && reused[atom_index];
        atom_index += n;
        operands.push(op);
    }
    if sm == Sm::Sm75 {
        drop_zero_base(&mut operands);
    }
    let guard = decode_guard(form, w);
    let ndefs = def_count(op, &operands);
    let uses = operands.split_off(ndefs);
    let mut inst = Inst {
        op,
        mods,
        guard,
        defs: operands,
        uses,
        ctrl: Some(decode_ctrl(bits[1])),
        encoding: Some(bits),
        loc: None,
    };
    crate::alias::apply(&mut inst);
    crate::widths::apply(sm, &mut inst);
    Ok(inst)
}

/// `IMAD.MOV.U32` → IMAD, [MOV, U32].
fn split_mnemonic(mnemonic: &str) -> Result<(Opcode, Vec<Modifier>), Error> {
    let mut words = mnemonic.split('.');
    let name = words.next().unwrap_or_default();
    let op = Opcode::from_name(name).ok_or_else(|| Error::Unsupported(format!("opcode {name}")))?;
    let mods = words
        .map(|m| Modifier::from_name(m).ok_or_else(|| Error::Unsupported(format!("modifier .{m}"))))
        .collect::<Result<_, _>>()?;
    Ok((op, mods))
}

/// Guard predicate: bits 12..=14 name it (7 = PT), bit 15 negates it.
pub(crate) const GUARD_POS: u32 = 12;

/// sm_75's `[R.64+UR]` with `RZ` for `R` is the address `[UR]`, and
/// nvdisasm prints it so (`LDG.E.CONSTANT.SYS R0, [UR4]`); NVIDIA's code
/// has `[UR]` words of only some mnemonics, so a form of the other kind may
/// be the one that matches.
fn drop_zero_base(operands: &mut [ori_ir::Operand]) {
    for op in operands {
        if let ori_ir::OperandKind::Mem(addr) = &mut op.kind
            && addr.ubase.is_some()
            && addr.base.is_some_and(|b| b.file == RegFile::R && b.is_zero())
        {
            addr.base = None;
        }
    }
}

fn decode_guard(form: &Form, w: u128) -> Option<Guard> {
    let g = (w >> GUARD_POS) as u32 & 0xf;
    let file = if form.uniform_guard { RegFile::UP } else { RegFile::P };
    (g != 0x7).then(|| Guard { pred: Reg::phys(file, g & 7), negated: g & 8 != 0 })
}

fn value(tables: &Tables, kind: AtomKind, raw: i64, addr: u64, labels: &mut dyn Labels) -> Result<Value, Error> {
    let reg = |file| Value::Reg(Reg::phys(file, raw as u32));
    Ok(match kind {
        AtomKind::R => reg(RegFile::R),
        AtomKind::U if raw as u32 == tables.urz => Value::Reg(Reg::URZ),
        AtomKind::U if raw as u32 >= Reg::URZ.num => {
            return Err(Error::Unsupported(format!("UR{raw}: Ori's uniform registers stop at UR62")));
        }
        AtomKind::U => reg(RegFile::UR),
        AtomKind::P => reg(RegFile::P),
        AtomKind::UP => reg(RegFile::UP),
        AtomKind::InvP => Value::Reg(Reg::phys(RegFile::P, !raw as u32 & 7)),
        AtomKind::InvUP => Value::Reg(Reg::phys(RegFile::UP, !raw as u32 & 7)),
        AtomKind::B => reg(RegFile::B),
        // nvdisasm calls scoreboards 6 and 7 `INVALID6`/`INVALID7`.
        AtomKind::SB if raw < i64::from(ori_ir::Ctrl::SCOREBOARDS) => Value::Scoreboard(raw as u8),
        AtomKind::SB => return Err(Error::Unsupported(format!("scoreboard {raw}"))),
        AtomKind::SR => {
            let name =
                tables.special_name(raw as u16).ok_or_else(|| Error::Unsupported(format!("special register {raw}")))?;
            Value::Special(
                SpecialReg::from_name(name).ok_or_else(|| Error::Unsupported(format!("special register {name}")))?,
            )
        }
        AtomKind::X => Value::Int(raw),
        AtomKind::F32 => Value::F32(raw as u32),
        AtomKind::F64Hi => Value::F64((raw as u64) << 32),
        AtomKind::F16 => Value::F32(crate::float::f16_to_f32_bits(raw as u16)),
        AtomKind::BF16 => Value::F32((raw as u32) << 16),
        AtomKind::L => Value::Label(labels.label_at(addr.wrapping_add(16).wrapping_add(raw as u64))),
    })
}

/// How many of nvdisasm's operands are destinations. nvdisasm lists
/// destinations first: the first operand, then the predicates that
/// follow it (carry-outs, second compare result), and for instructions
/// writing predicates first (SHFL, LOP3 with predicate output, ELECT,
/// sm_120's `IMNMX.U64 PT, PT, R8, ...`) the register after them. A negated predicate is always a source, and so is a
/// per-thread predicate of a uniform-datapath instruction (which writes
/// only uniform registers): `VOTE.ANY P1, !P1`, `VOTEU.ALL UP0, P1`; and
/// the opcode keeps its minimum number of sources.
fn def_count(op: Opcode, operands: &[ori_ir::Operand]) -> usize {
    let max = usize::from(*op.info().defs.end());
    if max == 0 || operands.is_empty() {
        return 0;
    }
    let uniform = op.has(ori_ir::OpFlags::UNIFORM);
    let pred = |o: &ori_ir::Operand| {
        o.flags == Default::default()
            && o.as_reg().is_some_and(|r| r.file.is_predicate() && !(uniform && r.file == RegFile::P))
    };
    let gpr = |o: &ori_ir::Operand| o.as_reg().is_some_and(|r| matches!(r.file, RegFile::R | RegFile::UR));
    let leading = operands.iter().take_while(|o| pred(o)).count();
    let mut n = if leading > 0 && leading < max && operands.get(leading).is_some_and(gpr) { leading + 1 } else { 1 };
    while n < max && operands.get(n).is_some_and(pred) {
        n += 1;
    }
    // Leave the opcode at least its minimum number of sources
    // (`VOTE.ALL P2, P5` reads P5).
    let min_uses = usize::from(*op.info().uses.start());
    n.min(operands.len().saturating_sub(min_uses)).max(1).min(operands.len())
}
