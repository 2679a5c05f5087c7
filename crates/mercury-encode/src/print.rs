//! Ori instruction → nvdisasm's text.

use ori_ir::{Inst, Opcode, OperandKind};

use crate::float::format_float;
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
    out.push_str(&mnemonic(inst));
    let mut prev_is_reg = false;
    for (i, op) in inst.defs.iter().chain(&inst.uses).enumerate() {
        // `RET.REL.NODEC R20 `(f)`: a return or call through a register
        // names its target after a space.
        let relative =
            prev_is_reg && matches!(op.kind, OperandKind::Label(_)) && matches!(inst.op, Opcode::CALL | Opcode::RET);
        out.push_str(if i == 0 || relative { " " } else { ", " });
        prev_is_reg = matches!(op.kind, OperandKind::Reg(_));
        let (skeleton, atoms) = shape(op)?;
        match skeleton.strip_prefix(DESC).filter(|_| sm == Sm::Sm80) {
            // sm_80 global accesses carry a descriptor that nvdisasm does
            // not show (the bits are there; sm_90 listings print them).
            Some(rest) => fill(&mut out, rest, &atoms[1..], labels),
            None => fill(&mut out, &skeleton, &atoms, labels),
        }
        if op.flags.reuse {
            out.push_str(".reuse");
        }
    }
    Ok(out)
}

const DESC: &str = "desc[{U}]";

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
fn fill(out: &mut String, skeleton: &str, atoms: &[Value], labels: &dyn Labels) {
    let mut atoms = atoms.iter();
    let mut rest = skeleton;
    let mut absolute = false;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("skeletons close their placeholders");
        let after = &rest[close + 1..];
        match atoms.next() {
            // nvdisasm leaves a zero 32-bit base out, scaled or not, and then
            // shows the offset as the unsigned 24-bit address it is:
            // `[0xae2daa]`, `c[0x2][0x7530]`.
            Some(Value::Reg(r)) if r.is_zero() && r.width == 1 && out.ends_with('[') => {
                let scaled = after
                    .strip_prefix(".X16")
                    .or_else(|| after.strip_prefix(".X8"))
                    .or_else(|| after.strip_prefix(".X4"));
                if let Some(next) = scaled.unwrap_or(after).strip_prefix('+').filter(|n| n.starts_with("{X}")) {
                    absolute = !out.ends_with("][");
                    rest = next;
                    continue;
                }
                out.push_str(&reg_name(*r));
            }
            Some(&Value::Int(i)) if absolute => out.push_str(&format!("0x{:x}", i & 0xff_ffff)),
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
        Value::F32(bits) => format_float(f64::from(f32::from_bits(bits))),
        Value::F64(bits) => format_float(f64::from_bits(bits)),
        Value::Label(b) => labels.text_of(b),
        Value::Special(sr) => sr.name().to_string(),
        Value::Scoreboard(sb) => format!("SB{sb}"),
    }
}
