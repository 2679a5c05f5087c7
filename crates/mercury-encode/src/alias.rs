//! nvdisasm's operand-value aliases of IMAD.
//!
//! One IMAD encoding prints as `IMAD.MOV`, `IMAD.IADD`, `IMAD.SHL` or plain
//! `IMAD` depending on its operand values (established with `nvdisasm -b`
//! on NVIDIA's IMADs with single operands changed, and by the generator
//! test):
//!
//! * `.MOV` when a or b is `RZ` or the immediate 0 (the product is zero, c
//!   is moved), or when b is 1 and c is `RZ` (a is moved);
//! * else `.IADD` when b is the immediate 1;
//! * else `.SHL` when b is an immediate 2^k, 1 <= k <= 30 but not 16, and c
//!   is `RZ` (`IMAD.U32 R9, R9, 0x10000, RZ` stays unaliased);
//! * `.U32` follows the alias word. `.X`, `.WIDE` and `.HI` are never
//!   aliased, nor is an IMAD with a uniform-register operand
//!   (`IMAD.U32 R9, RZ, RZ, UR5`, `IMAD R9, RZ, UR4, R9`).

use ori_ir::{Imm, Inst, Modifier, Opcode, Operand, OperandKind, RegFile};

/// The alias words.
pub(crate) const ALIASES: [&str; 3] = ["MOV", "IADD", "SHL"];

/// Whether `inst` is an IMAD whose mnemonic nvdisasm derives from its
/// operands.
fn aliased(inst: &Inst) -> bool {
    inst.op == Opcode::IMAD
        && !inst.mods.iter().any(|m| matches!(m.name(), "X" | "WIDE" | "HI"))
        && !inst.uses.iter().any(|o| o.as_reg().is_some_and(|r| r.file == RegFile::UR))
}

/// The mnemonic nvdisasm prints for the IMAD `inst`, given its operands
/// (`None` for other instructions).
pub fn imad_alias(inst: &Inst) -> Option<&'static str> {
    if !aliased(inst) {
        return None;
    }
    let [a, b, c] = [0, 1, 2].map(|i| inst.uses.get(i));
    let zero = |o: Option<&Operand>| {
        o.is_some_and(|o| match &o.kind {
            OperandKind::Reg(r) => r.file == RegFile::R && r.is_zero(),
            OperandKind::Imm(Imm::Int(0)) => true,
            _ => false,
        })
    };
    let imm = |o: Option<&Operand>| match o.map(|o| &o.kind) {
        Some(OperandKind::Imm(Imm::Int(v))) => Some(*v),
        _ => None,
    };
    let one = imm(b) == Some(1);
    let power = imm(b).is_some_and(|v| v > 1 && v.count_ones() == 1 && v < (1 << 31) && v != 1 << 16);
    Some(if zero(a) || zero(b) || (one && zero(c)) {
        "MOV"
    } else if one {
        "IADD"
    } else if power && zero(c) {
        "SHL"
    } else {
        ""
    })
}

/// Rewrites the alias word of a decoded IMAD so that it matches its
/// operands.
pub fn apply(inst: &mut Inst) {
    let Some(alias) = imad_alias(inst) else { return };
    inst.mods.retain(|m| !ALIASES.contains(&m.name()));
    if let Some(word) = Modifier::from_name(alias) {
        inst.mods.insert(0, word);
    }
}

/// The mnemonics the encoder may look an IMAD up under: its own and the
/// other alias spellings of the same encoding.
pub fn spellings(inst: &Inst, mnemonic: &str) -> Vec<String> {
    if !aliased(inst) {
        return vec![mnemonic.to_string()];
    }
    let rest: Vec<&str> = mnemonic.split('.').skip(1).filter(|w| !ALIASES.contains(w)).collect();
    let mut out = vec![mnemonic.to_string()];
    for alias in ["", ".MOV", ".IADD", ".SHL"] {
        let mut m = format!("IMAD{alias}");
        for w in &rest {
            m.push('.');
            m.push_str(w);
        }
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}
