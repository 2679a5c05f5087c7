//! Reading nvdisasm listings, and checking our decoder, printer and
//! encoder against them one instruction at a time.

use std::collections::BTreeMap;

use crate::labels::CodeLabels;
use crate::{Sm, decode, encode, print};

/// One instruction of an nvdisasm listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Byte offset in its section.
    pub addr: u64,
    /// The instruction text between the address comment and ` ;`, trimmed,
    /// without ptxas's `(*"..."*)` annotations.
    pub text: String,
    /// The bits, when the listing was made with `-hex`.
    pub bits: Option<[u64; 2]>,
}

/// One code section of a listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListedSection {
    /// Instructions in address order.
    pub insts: Vec<Listed>,
    /// nvdisasm's names of code addresses (`.L_x_3`, function symbols).
    pub labels: BTreeMap<u64, String>,
}

/// Parses nvdisasm's output (of a cubin, or of `-b` raw code, whose only
/// section is named ""), by section name.
pub fn parse_listing(listing: &str) -> BTreeMap<String, ListedSection> {
    let mut sections: BTreeMap<String, ListedSection> = BTreeMap::new();
    let mut current = String::new();
    let mut in_code = true;
    let mut pending_labels = Vec::new();
    let mut lines = listing.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("\t.section\t") {
            let name = rest.split(',').next().unwrap_or_default();
            in_code = name.starts_with(".text.");
            current = name.to_string();
            continue;
        }
        if !in_code {
            continue;
        }
        // `.L_x_3:` and symbols (`vadd:`, `$vadd$helper:`), not `.text.vadd:`.
        if let Some(label) = line
            .strip_suffix(':')
            .filter(|l| !l.starts_with(".text.") && !l.starts_with(char::is_whitespace) && !l.is_empty())
        {
            pending_labels.push(label.to_string());
            continue;
        }
        let Some((addr, text, lo)) = instruction_line(line) else { continue };
        let hi = lines.peek().and_then(|next| hex_comment(next.trim()));
        if hi.is_some() && lo.is_some() {
            lines.next();
        }
        let section = sections.entry(current.clone()).or_default();
        // nvdisasm names a target by its symbol when it has one.
        for label in pending_labels.drain(..) {
            let symbol = !label.starts_with(".L_x_");
            if symbol || !section.labels.contains_key(&addr) {
                section.labels.insert(addr, label);
            }
        }
        let bits = lo.zip(hi).map(|(lo, hi)| [lo, hi]);
        section.insts.push(Listed { addr, text, bits });
    }
    sections
}

/// `/*0070*/  @P0 EXIT ;  /* 0x000000000000094d */` → (0x70, "@P0 EXIT", low word).
fn instruction_line(line: &str) -> Option<(u64, String, Option<u64>)> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let (text, comment) = match rest.rfind(';') {
        Some(i) => (&rest[..i], rest[i + 1..].trim()),
        None => return None,
    };
    let text = strip_annotation(text.trim());
    Some((addr, text.to_string(), hex_comment(comment)))
}

/// ptxas annotates spill code with `(*"SpillRefill"*)`; it is not part of
/// the instruction.
fn strip_annotation(text: &str) -> &str {
    match text.find("(*") {
        Some(i) if text.ends_with("*)") => text[..i].trim_end(),
        _ => text,
    }
}

fn hex_comment(s: &str) -> Option<u64> {
    let hex = s.strip_prefix("/* 0x")?.strip_suffix("*/")?.trim();
    u64::from_str_radix(hex, 16).ok()
}

/// How one instruction fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Our text, or why decoding or printing failed.
    pub text: Result<String, String>,
    /// Our re-encoding, or why it failed.
    pub bits: Result<[u64; 2], String>,
    /// The decoded control word, in `[B------:R-:W-:Y:S04]` notation.
    pub ctrl: Option<String>,
}

impl Outcome {
    /// Decoding failed: the bits are not in the tables.
    pub fn unknown(&self) -> bool {
        self.text.is_err()
    }
}

/// Labels named as in a listing section.
pub fn labels_of(section: &ListedSection) -> CodeLabels {
    let mut labels = CodeLabels::new();
    for (&addr, name) in &section.labels {
        labels.set_name(addr, name.clone());
    }
    labels
}

/// Decodes, prints and re-encodes `bits` found at `addr`.
pub fn round_trip(sm: Sm, bits: [u64; 2], addr: u64, labels: &mut CodeLabels) -> Outcome {
    let inst = match decode(sm, bits, addr, labels) {
        Ok(inst) => inst,
        Err(e) => return Outcome { text: Err(e.to_string()), bits: Err("not decoded".into()), ctrl: None },
    };
    let ctrl = inst.ctrl.as_ref().map(|c| format_ctrl(c, crate::ctrl::reuse_bits(bits[1])));
    let text = print(sm, &inst, labels).map_err(|e| e.to_string());
    let encoded = encode(sm, &inst, addr, labels).map_err(|e| e.to_string());
    Outcome { text, bits: encoded, ctrl }
}

/// `[B0-2---:R-:W1:Y:S04] reuse=0b0011`.
pub fn format_ctrl(c: &ori_ir::Ctrl, reuse: u8) -> String {
    let mut s = String::from("[B");
    for sb in 0..ori_ir::Ctrl::SCOREBOARDS {
        s.push(if c.wait & (1 << sb) != 0 { char::from(b'0' + sb) } else { '-' });
    }
    let sb = |x: Option<u8>| x.map_or("-".to_string(), |v| v.to_string());
    s.push_str(&format!(
        ":R{}:W{}:{}:S{:02}] reuse=0b{reuse:04b}",
        sb(c.read_sb),
        sb(c.write_sb),
        if c.yield_ { "Y" } else { "-" },
        c.stall
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hex_listing() {
        let text = "\t.section\t.text.vadd,\"ax\",@progbits\n.L_x_1:\n        /*0070*/               @P0 EXIT ;                                 /* 0x000000000000094d */\n                                                                          /* 0x000fea0003800000 */\n";
        let s = parse_listing(text);
        let sec = &s[".text.vadd"];
        assert_eq!(
            sec.insts,
            vec![Listed { addr: 0x70, text: "@P0 EXIT".into(), bits: Some([0x94d, 0x000f_ea00_0380_0000]) }]
        );
        assert_eq!(sec.labels.get(&0x70).map(String::as_str), Some(".L_x_1"));
    }
}
