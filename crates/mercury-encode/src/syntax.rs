//! nvdisasm's operand syntax, split into a skeleton and its atoms.
//!
//! `desc[UR4][R2.64+0x8]` is the skeleton `desc[{U}][{R}.64+{X}]` with the
//! atoms `UR4`, `R2`, `0x8`. Forms are keyed by skeletons, so the printer,
//! the encoder and the decoder all go through [`shape`] and [`build`],
//! which are inverses of each other.

use ori_ir::{
    Address, Bank, BlockId, CBank, Halves, Imm, Layout, Operand, OperandFlags, OperandKind, Reg, RegFile, Scale,
    SpecialReg,
};

use crate::Error;

/// The value of one atom, before it is given bits by a form.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    /// A register of any file.
    Reg(Reg),
    /// An integer immediate or offset.
    Int(i64),
    /// A binary32 immediate, as bits.
    F32(u32),
    /// A binary64 immediate, as bits.
    F64(u64),
    /// A branch target.
    Label(BlockId),
    /// A special register.
    Special(SpecialReg),
    /// A scoreboard.
    Scoreboard(u8),
}

/// Splits an operand into skeleton and atoms.
pub fn shape(op: &Operand) -> Result<(String, Vec<Value>), Error> {
    let mut s = String::new();
    let mut atoms = Vec::new();
    let f = op.flags;
    for (on, c) in [(f.neg, '-'), (f.not, '!'), (f.bitnot, '~'), (f.abs, '|')] {
        if on {
            s.push(c);
        }
    }
    match &op.kind {
        OperandKind::Reg(r) => {
            s.push_str(reg_placeholder(r.file));
            atoms.push(Value::Reg(*r));
        }
        OperandKind::Special(sr) => {
            s.push_str("{SR}");
            atoms.push(Value::Special(*sr));
        }
        OperandKind::PredFile { uniform } => s.push_str(if *uniform { "UPR" } else { "PR" }),
        OperandKind::Scoreboard(sb) => {
            s.push_str("{SB}");
            atoms.push(Value::Scoreboard(*sb));
        }
        OperandKind::Imm(Imm::Int(v)) => {
            s.push_str("{X}");
            atoms.push(Value::Int(*v));
        }
        OperandKind::Imm(Imm::F32(bits)) => {
            s.push_str("{F}");
            atoms.push(Value::F32(*bits));
        }
        OperandKind::Imm(Imm::F64(bits)) => {
            s.push_str("{F}");
            atoms.push(Value::F64(*bits));
        }
        OperandKind::CBank(cb) => {
            match cb.bank {
                Bank::Fixed(b) => {
                    s.push_str("c[{X}]");
                    atoms.push(Value::Int(b.into()));
                }
                Bank::Indexed(r) => {
                    s.push_str("cx[{U}]");
                    atoms.push(Value::Reg(r));
                }
            }
            s.push('[');
            if let Some(r) = cb.reg {
                s.push_str(reg_placeholder(r.file));
                atoms.push(Value::Reg(r));
                if cb.offset != 0 {
                    s.push_str("+{X}");
                    atoms.push(Value::Int(cb.offset.into()));
                }
            } else {
                s.push_str("{X}");
                atoms.push(Value::Int(cb.offset.into()));
            }
            s.push(']');
        }
        OperandKind::Mem(addr) => {
            if let Some(d) = addr.desc {
                s.push_str("desc[{U}]");
                atoms.push(Value::Reg(d));
            }
            s.push('[');
            let mut first = true;
            for (r, scale) in [(addr.base, addr.scale), (addr.ubase, Scale::X1)] {
                let Some(r) = r else { continue };
                if !first {
                    s.push('+');
                }
                s.push_str(reg_placeholder(r.file));
                if r.width == 2 && r.file == RegFile::R {
                    s.push_str(".64");
                }
                if addr.base_u32 && r.file == RegFile::R {
                    s.push_str(".U32");
                }
                s.push_str(scale.suffix());
                atoms.push(Value::Reg(r));
                first = false;
            }
            if first || addr.offset != 0 {
                s.push_str(if first { "{X}" } else { "+{X}" });
                atoms.push(Value::Int(addr.offset));
            }
            s.push(']');
        }
        OperandKind::Label(b) => {
            s.push_str("{L}");
            atoms.push(Value::Label(*b));
        }
        // A symbol left for the linker (`-c`: `CALL.ABS.NOINC `(f)`): the
        // field holds 0 and a relocation names the symbol.
        OperandKind::Symbol(_) => {
            s.push_str("{X}");
            atoms.push(Value::Int(0));
        }
        OperandKind::MatrixDesc(r) => {
            s.push_str("gdesc[{U}]");
            atoms.push(Value::Reg(*r));
        }
        // Only `gsb0` has been seen; it has no field of its own.
        OperandKind::GroupScoreboard(n) => s.push_str(&format!("gsb{n}")),
    }
    if f.abs {
        s.push('|');
    }
    if let Some(h) = f.halves {
        s.push_str(h.suffix());
    }
    if let Some(l) = f.layout {
        s.push_str(l.suffix());
    }
    Ok((s, atoms))
}

fn reg_placeholder(file: RegFile) -> &'static str {
    match file {
        RegFile::R => "{R}",
        RegFile::UR => "{U}",
        RegFile::P => "{P}",
        RegFile::UP => "{UP}",
        RegFile::B => "{B}",
    }
}

/// Builds the operand that `skeleton` describes, taking its atoms from
/// `atoms`. Rejects skeletons Ori cannot represent.
pub fn build(skeleton: &str, atoms: &mut impl Iterator<Item = Value>) -> Result<Operand, Error> {
    let unsupported = || Error::Unsupported(format!("operand syntax `{skeleton}`"));
    let mut flags = OperandFlags::default();
    let mut rest = skeleton;
    if let Some(l) = Layout::ALL.into_iter().find(|l| rest.ends_with(l.suffix())) {
        flags.layout = Some(l);
        rest = &rest[..rest.len() - l.suffix().len()];
    }
    if let Some(h) = Halves::ALL.into_iter().find(|h| rest.ends_with(h.suffix())) {
        flags.halves = Some(h);
        rest = &rest[..rest.len() - h.suffix().len()];
    }
    loop {
        match rest.as_bytes().first() {
            Some(b'-') => flags.neg = true,
            Some(b'!') => flags.not = true,
            Some(b'~') => flags.bitnot = true,
            Some(b'|') => flags.abs = true,
            _ => break,
        }
        rest = &rest[1..];
    }
    if flags.abs {
        rest = rest.strip_suffix('|').ok_or_else(unsupported)?;
    }
    let mut next = || atoms.next().ok_or_else(|| Error::Unsupported(format!("too few atoms for `{skeleton}`")));
    let kind = match rest {
        "{R}" | "{U}" | "{P}" | "{UP}" | "{B}" => match next()? {
            Value::Reg(r) => OperandKind::Reg(r),
            _ => return Err(unsupported()),
        },
        "{SR}" => match next()? {
            Value::Special(sr) => OperandKind::Special(sr),
            _ => return Err(unsupported()),
        },
        "{SB}" => match next()? {
            Value::Scoreboard(sb) => OperandKind::Scoreboard(sb),
            _ => return Err(unsupported()),
        },
        "gdesc[{U}]" => OperandKind::MatrixDesc(reg(next()?).ok_or_else(unsupported)?.wide(2)),
        "gsb0" => OperandKind::GroupScoreboard(0),
        "PR" => OperandKind::PredFile { uniform: false },
        "UPR" => OperandKind::PredFile { uniform: true },
        "{X}" => OperandKind::Imm(Imm::Int(int(next()?).ok_or_else(unsupported)?)),
        "{F}" => match next()? {
            Value::F32(b) => OperandKind::Imm(Imm::F32(b)),
            Value::F64(b) => OperandKind::Imm(Imm::F64(b)),
            _ => return Err(unsupported()),
        },
        "{L}" => match next()? {
            Value::Label(b) => OperandKind::Label(b),
            _ => return Err(unsupported()),
        },
        _ if rest.starts_with("c[") || rest.starts_with("cx[") => {
            let (bank_part, inner) = rest.split_once("][").ok_or_else(unsupported)?;
            let bank = match bank_part {
                "c[{X}" => Bank::Fixed(u8::try_from(int(next()?).ok_or_else(unsupported)?).map_err(|_| unsupported())?),
                "cx[{U}" => Bank::Indexed(reg(next()?).ok_or_else(unsupported)?),
                _ => return Err(unsupported()),
            };
            let (reg_, offset) = match inner {
                "{X}]" => (None, int(next()?).ok_or_else(unsupported)?),
                "{R}]" | "{U}]" => (Some(reg(next()?).ok_or_else(unsupported)?), 0),
                "{R}+{X}]" | "{U}+{X}]" => {
                    let r = reg(next()?).ok_or_else(unsupported)?;
                    (Some(r), int(next()?).ok_or_else(unsupported)?)
                }
                _ => return Err(unsupported()),
            };
            let offset = i32::try_from(offset).map_err(|_| unsupported())?;
            OperandKind::CBank(CBank { bank, reg: reg_, offset })
        }
        _ if rest.starts_with("desc[") || rest.starts_with('[') => {
            let mut addr = Address::default();
            let inner = match rest.strip_prefix("desc[{U}]") {
                Some(r) => {
                    // A descriptor is a 64-bit uniform pair.
                    addr.desc = Some(reg(next()?).ok_or_else(unsupported)?.wide(2));
                    r
                }
                None => rest,
            };
            let inner = inner.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(unsupported)?;
            for (i, part) in inner.split('+').enumerate() {
                // Only the first register carries a scale (`[R5.X4+UR4]`).
                let part = match [Scale::X16, Scale::X8, Scale::X4].into_iter().find(|s| part.ends_with(s.suffix())) {
                    Some(s) if i == 0 => {
                        addr.scale = s;
                        &part[..part.len() - s.suffix().len()]
                    }
                    _ => part,
                };
                match part {
                    "{R}" if i == 0 => addr.base = Some(reg(next()?).ok_or_else(unsupported)?),
                    "{R}.64" if i == 0 => addr.base = Some(reg(next()?).ok_or_else(unsupported)?.wide(2)),
                    "{R}.U32" if i == 0 => {
                        addr.base = Some(reg(next()?).ok_or_else(unsupported)?);
                        addr.base_u32 = true;
                    }
                    "{U}" if i == 0 || addr.ubase.is_none() => addr.ubase = Some(reg(next()?).ok_or_else(unsupported)?),
                    "{X}" => addr.offset = int(next()?).ok_or_else(unsupported)?,
                    _ => return Err(unsupported()),
                }
            }
            OperandKind::Mem(addr)
        }
        _ => return Err(unsupported()),
    };
    Ok(Operand { kind, flags })
}

fn int(v: Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

fn reg(v: Value) -> Option<Reg> {
    match v {
        Value::Reg(r) => Some(r),
        _ => None,
    }
}

/// nvdisasm's name of a physical register, without tuple width.
pub fn reg_name(r: Reg) -> String {
    if r.is_zero() {
        return match r.file {
            RegFile::R => "RZ",
            RegFile::UR => "URZ",
            RegFile::P => "PT",
            RegFile::UP => "UPT",
            RegFile::B => "B?",
        }
        .into();
    }
    format!("{}{}", r.file.physical_prefix(), r.num)
}
