//! Ori instruction → nvdisasm's text.

use ori_ir::{Imm, Inst, Opcode, Operand, OperandKind, RegFile};

use crate::float::{format_f32, format_f64};
use crate::labels::Labels;
use crate::syntax::{Value, reg_name, shape};
use crate::{Error, Sm};

/// The instruction as nvdisasm prints it for `sm` (between the address
/// comment and the closing ` ;`), e.g.
/// `@!P0 IMAD.WIDE R2, R6.reuse, R7, c[0x0][0x160]`.
pub fn print(sm: Sm, inst: &Inst, labels: &dyn Labels) -> Result<String, Error> {
    let mut out = String::new();
    if let Some(g) = inst.guard {
        out.push('@');
        if g.negated {
            out.push('!');
        }
        out.push_str(&reg_name(g.pred));
        out.push(' ');
    }
    // An IMAD built by the compiler may lack the alias word nvdisasm shows.
    match crate::alias::imad_alias(inst) {
        Some(_) => {
            let mut aliased = inst.clone();
            crate::alias::apply(&mut aliased);
            out.push_str(&mnemonic(&aliased));
        }
        None => out.push_str(&mnemonic(inst)),
    }
    let mut prev_is_reg = false;
    let unsigned = holds_bit_pattern(inst);
    // VOTE writes a register and a predicate; nvdisasm leaves a zero
    // register out (`VOTE.ANY P6, P0`, `VOTEU.ANY UP0, P5`).
    let zero_vote = matches!(inst.op, Opcode::VOTE | Opcode::VOTEU)
        && inst.defs.first().and_then(|d| d.as_reg()).is_some_and(|r| r.is_zero() && !r.file.is_predicate());
    // Adders show only the carry-outs they write: `IADD3 R28, P1, ...`
    // has PT as its first carry-out, `LEA RZ, R44, ...` has PT as its only
    // one (never printed as PT in NVIDIA's listings).
    // Blackwell's nvdisasm prints them all (`IADD3 R5, PT, PT, R5, 0x1, RZ`).
    let carries = !sm.is_blackwell()
        && matches!(inst.op, Opcode::IADD3 | Opcode::UIADD3 | Opcode::LEA | Opcode::ULEA | Opcode::IMAD);
    let carry_pt = |d: &&Operand| carries && d.as_reg().is_some_and(|r| r.file.is_predicate() && r.is_zero());
    let shown: Vec<&Operand> =
        inst.defs.iter().skip(usize::from(zero_vote)).filter(|d| !carry_pt(d)).chain(&inst.uses).collect();
    let hidden = hidden_at_zero(sm, inst, &shown)?;
    let mut first = true;
    for (k, op) in shown.into_iter().enumerate() {
        if hidden & (1 << k) != 0 {
            continue;
        }
        // `RET.REL.NODEC R20 `(f)`, `RET.ABS.NODEC R20 0x0`, `BRX R70
        // 0x..`: a jump through a register names its target after a space
        // (after a predicate, `CALL.ABS P0, 0x0`, a comma).
        let target = matches!(op.kind, OperandKind::Label(_) | OperandKind::Imm(_) | OperandKind::Symbol(_));
        let relative = prev_is_reg && target && matches!(inst.op, Opcode::CALL | Opcode::RET | Opcode::BRX);
        out.push_str(if first || relative { " " } else { ", " });
        first = false;
        prev_is_reg = op.as_reg().is_some_and(|r| !r.file.is_predicate());
        let (mut skeleton, atoms) = shape(op)?;
        // nvdisasm writes an IMMA input's layout and the halves after
        // `.reuse`: `R4.reuse.ROW`, `R8.reuse.H1`, `-RZ.reuse.H0_H0`
        // (`nvdisasm -b` of HADD2.F32 words with reuse bits set).
        let layout = op.flags.layout.map(|l| l.suffix()).or(op.flags.halves.map(|h| h.suffix()));
        if let Some(suffix) = layout {
            skeleton.truncate(skeleton.len() - suffix.len());
        }
        // The 64-bit address of `ATOMG.E.CAS` and of generic `LD.E`/`ST.E`
        // without a descriptor prints as `[R6]` (widths.rs).
        if crate::widths::hides_pair(sm, inst, &skeleton) {
            skeleton = skeleton.replacen("[{R}.64", "[{R}", 1);
        }
        match skeleton.strip_prefix(DESC).filter(|_| !crate::policy::prints_desc(sm, op)) {
            // sm_80 global accesses carry a descriptor that nvdisasm does
            // not show but for a cache policy (the bits are there; sm_90
            // listings print them all).
            Some(rest) => fill(&mut out, rest, &atoms[1..], labels, unsigned),
            None => fill(&mut out, &skeleton, &atoms, labels, unsigned),
        }
        if op.flags.reuse {
            out.push_str(".reuse");
        }
        out.push_str(layout.unwrap_or(""));
    }
    Ok(out)
}

const DESC: &str = "desc[{U}]";

/// Whether `inst`'s immediate is a 64-bit pattern, which nvdisasm prints
/// unsigned (sm_120's `MOV.64 R6, 0xffffffffffffffff`, `UMOV.64`).
fn holds_bit_pattern(inst: &Inst) -> bool {
    matches!(inst.op, Opcode::MOV | Opcode::UMOV) && inst.has_mod("64")
}

/// The operands of `shown` (bit k: `shown[k]`) that nvdisasm leaves out
/// because they are zero (`hidden.rs`): `BAR.SYNC R93` for a zero thread
/// count, `CALL.ABS R4` for a zero offset.
fn hidden_at_zero(sm: Sm, inst: &Inst, shown: &[&Operand]) -> Result<u64, Error> {
    let zero = |op: &Operand| {
        op.flags == Default::default()
            && match op.kind {
                OperandKind::Imm(Imm::Int(0)) => true,
                OperandKind::Reg(r) => r.file.is_predicate() && r.is_zero(),
                _ => false,
            }
    };
    if shown.len() > 64 || !shown.iter().any(|op| zero(op)) {
        return Ok(0);
    }
    let plain = shown.iter().map(|op| Ok(crate::marks::unmark(&shape(op)?.0).1)).collect::<Result<Vec<_>, Error>>()?;
    let plain: Vec<&str> = plain.iter().map(String::as_str).collect();
    let opcode = inst.op.name();
    Ok((0..shown.len())
        .filter(|&k| zero(shown[k]) && crate::hidden::is_hidden(sm, opcode, &plain, k))
        .fold(0, |m, k| m | 1 << k))
}

/// `IMAD.MOV.U32`: the opcode and its modifiers.
pub(crate) fn mnemonic(inst: &Inst) -> String {
    let mut s = inst.op.name().to_string();
    for m in &inst.mods {
        s.push('.');
        s.push_str(m.name());
    }
    s
}

/// Replaces the placeholders of `skeleton` by the atoms' text.
/// `unsigned`: integers print as their 64-bit pattern.
fn fill(out: &mut String, skeleton: &str, atoms: &[Value], labels: &dyn Labels, unsigned: bool) {
    let mut atoms = atoms.iter();
    let mut rest = skeleton;
    let mut absolute = false;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("skeletons close their placeholders");
        let after = &rest[close + 1..];
        match atoms.next() {
            // nvdisasm leaves a zero base out when it prints it as 32-bit
            // (sm_75's `.E` pairs too), scaled or not, and shows an offset
            // that then stands alone as the unsigned 24-bit address it is:
            // `[0xae2daa]`, `c[0x2][0x7530]`.
            Some(Value::Reg(r))
                if r.file == RegFile::R && r.is_zero() && !after.starts_with(".64") && out.ends_with('[') =>
            {
                let unscaled = [".X16", ".X8", ".X4"].iter().find_map(|s| after.strip_prefix(s)).unwrap_or(after);
                let scaled = unscaled.len() != after.len();
                // `[RZ+UR4]` is `[UR4]` (but `[RZ.X4+UR4]` stays), `[RZ+0x10]`
                // and `[RZ.X4+0x10]` are `[0x10]`.
                if let Some(next) = unscaled.strip_prefix('+').filter(|n| n.starts_with("{X}") || !scaled) {
                    absolute = next.starts_with("{X}") && !out.ends_with("][");
                    rest = next;
                    continue;
                }
                if scaled && unscaled.starts_with('+') {
                    out.push_str(&reg_name(*r));
                    rest = after;
                    continue;
                }
                // A scaled RZ shows no scale: `[RZ.X8]` is `[RZ]`.
                out.push_str(&reg_name(*r));
                rest = unscaled;
                continue;
            }
            Some(&Value::Int(i)) if absolute => out.push_str(&format!("0x{:x}", i & 0xff_ffff)),
            Some(&Value::Int(i)) if unsigned => out.push_str(&format!("0x{:x}", i as u64)),
            Some(v) => out.push_str(&atom_text(v, labels)),
            None => {}
        }
        rest = after;
    }
    out.push_str(rest);
}

fn atom_text(v: &Value, labels: &dyn Labels) -> String {
    match *v {
        Value::Reg(r) => reg_name(r),
        Value::Int(i) if i < 0 => format!("-0x{:x}", i.unsigned_abs()),
        Value::Int(i) => format!("0x{i:x}"),
        Value::F32(bits) => format_f32(bits),
        Value::F64(bits) => format_f64(bits),
        Value::Label(b) => labels.text_of(b),
        Value::Special(sr) => sr.name().to_string(),
        Value::Scoreboard(sb) => format!("SB{sb}"),
    }
}
