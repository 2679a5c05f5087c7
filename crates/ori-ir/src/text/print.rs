//! Ori → text.

use std::fmt::{self, Write};

use crate::function::{Function, FunctionKind};
use crate::inst::{Ctrl, Inst};
use crate::module::{Module, Variable};
use crate::operand::{Address, Bank, CBank, Imm, Operand, OperandKind};

/// Prints a whole module.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    writeln!(out, ".target {}", module.target).unwrap();
    let props: Vec<_> = module.props.iter().map(|p| p.name()).collect();
    writeln!(out, ".props {}", props.join(", ")).unwrap();
    for name in &module.externals {
        writeln!(out, ".extern {}", Symbol(name)).unwrap();
    }
    for var in &module.variables {
        write_variable(&mut out, var).unwrap();
    }
    for func in &module.functions {
        out.push('\n');
        write_function(&mut out, func).unwrap();
    }
    out
}

/// `.global NAME @OFFSET, SIZE, ALIGN[ = 0xBYTES][ ptr OFF TARGET+ADDEND]...`
fn write_variable(out: &mut String, var: &Variable) -> fmt::Result {
    if var.visible {
        out.push_str(".visible ");
    }
    write!(out, "{} {} @0x{:x}, {}, {}", var.space.directive(), Symbol(&var.name), var.offset, var.size, var.align)?;
    if let Some(init) = &var.init {
        out.push_str(" = 0x");
        for b in init {
            write!(out, "{b:02x}")?;
        }
    }
    for p in &var.pointers {
        write!(out, " ptr 0x{:x} {}+0x{:x}", p.offset, Symbol(&p.target), p.addend)?;
    }
    out.push('\n');
    Ok(())
}

/// Prints one function.
pub fn print_function(func: &Function) -> String {
    let mut out = String::new();
    write_function(&mut out, func).unwrap();
    out
}

fn write_function(out: &mut String, func: &Function) -> fmt::Result {
    let kind = match func.kind {
        FunctionKind::Entry => ".entry",
        FunctionKind::Func => ".func",
    };
    writeln!(out, "{kind} {} {{", Symbol(&func.name))?;
    let attrs = &func.attrs;
    let triple = |out: &mut String, name: &str, v: Option<[u32; 3]>| -> fmt::Result {
        match v {
            Some([x, y, z]) => writeln!(out, "    .{name} {x}, {y}, {z}"),
            None => Ok(()),
        }
    };
    triple(out, "maxntid", attrs.maxntid)?;
    triple(out, "reqntid", attrs.reqntid)?;
    triple(out, "reqnctapercluster", attrs.cluster_dims)?;
    if let Some(n) = attrs.maxnreg {
        writeln!(out, "    .maxnreg {n}")?;
    }
    if let Some(n) = attrs.minnctapersm {
        writeln!(out, "    .minnctapersm {n}")?;
    }
    for param in &attrs.params {
        writeln!(out, "    .param 0x{:x}, {}", param.offset, param.size)?;
    }
    if attrs.shared_bytes != 0 || attrs.extern_shared {
        writeln!(out, "    .shared_bytes {}, {}", attrs.shared_bytes, attrs.shared_align)?;
    }
    if attrs.extern_shared {
        writeln!(out, "    .extern_shared")?;
    }
    for value in &attrs.bank2 {
        writeln!(out, "    .bank2 0d{value:016X}")?;
    }
    for name in &attrs.function_table {
        writeln!(out, "    .function_table {}", Symbol(name))?;
    }
    if attrs.frame_bytes != 0 {
        writeln!(out, "    .frame_bytes {}", attrs.frame_bytes)?;
    }
    if attrs.spill_store_bytes != 0 || attrs.spill_load_bytes != 0 {
        writeln!(out, "    .spill_bytes {}, {}", attrs.spill_store_bytes, attrs.spill_load_bytes)?;
    }
    for sub in &attrs.subroutines {
        let entry = func.layout_index(sub.entry).map_or("bb?".to_string(), |i| format!("bb{i}"));
        let recursive = if sub.recursive { ", recursive" } else { "" };
        writeln!(out, "    .subroutine {}, {entry}, {}{recursive}", Symbol(&sub.name), sub.frame_bytes)?;
    }
    for (index, &block) in func.layout.iter().enumerate() {
        writeln!(out, "bb{index}:")?;
        for &inst in &func.blocks[block].insts {
            out.push_str("    ");
            write_inst(out, func, &func.insts[inst])?;
            out.push('\n');
        }
    }
    writeln!(out, "}}")
}

/// Prints one instruction as it appears in a function body (without
/// indentation); block labels are named by layout position.
pub fn print_inst(func: &Function, inst: &Inst) -> String {
    let mut out = String::new();
    write_inst(&mut out, func, inst).unwrap();
    out
}

fn write_inst(out: &mut String, func: &Function, inst: &Inst) -> fmt::Result {
    if let Some(ctrl) = &inst.ctrl {
        write!(out, "{} ", CtrlText(ctrl))?;
    }
    if let Some(guard) = inst.guard {
        write!(out, "@{}{} ", if guard.negated { "!" } else { "" }, guard.pred)?;
    }
    for (i, operand) in inst.defs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_operand(out, func, operand)?;
    }
    if !inst.defs.is_empty() {
        out.push_str(" = ");
    }
    out.push_str(inst.op.name());
    for m in &inst.mods {
        write!(out, ".{}", m.name())?;
    }
    for (i, operand) in inst.uses.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        write_operand(out, func, operand)?;
    }
    if let Some([lo, hi]) = inst.encoding {
        write!(out, "  #0x{hi:016x}{lo:016x}")?;
    }
    Ok(())
}

fn write_operand(out: &mut String, func: &Function, op: &Operand) -> fmt::Result {
    let f = op.flags;
    if f.undef {
        out.push_str("undef ");
    }
    if f.neg {
        out.push('-');
    }
    if f.not {
        out.push('!');
    }
    if f.bitnot {
        out.push('~');
    }
    if f.abs {
        out.push('|');
    }
    match &op.kind {
        OperandKind::Reg(r) => write!(out, "{r}")?,
        OperandKind::Special(sr) => out.push_str(sr.name()),
        OperandKind::PredFile { uniform } => out.push_str(if *uniform { "UPR" } else { "PR" }),
        OperandKind::Scoreboard(sb) => write!(out, "SB{sb}")?,
        OperandKind::Imm(imm) => write_imm(out, *imm)?,
        OperandKind::CBank(cb) => write_cbank(out, cb)?,
        OperandKind::Mem(addr) => write_address(out, addr)?,
        OperandKind::Label(block) => match func.layout_index(*block) {
            Some(index) => write!(out, "bb{index}")?,
            // The verifier reports this; printing must still show something.
            None => out.push_str("bb?"),
        },
        OperandKind::Symbol(name) => write!(out, "`({name})")?,
        OperandKind::MatrixDesc(reg) => write!(out, "gdesc[{reg}]")?,
        OperandKind::GroupScoreboard(n) => write!(out, "gsb{n}")?,
    }
    if f.abs {
        out.push('|');
    }
    if let Some(h) = f.halves {
        out.push_str(h.suffix());
    }
    if f.reuse {
        out.push_str(".reuse");
    }
    if let Some(l) = f.layout {
        out.push_str(l.suffix());
    }
    Ok(())
}

fn write_imm(out: &mut String, imm: Imm) -> fmt::Result {
    match imm {
        Imm::Int(v) if v < 0 => write!(out, "-0x{:x}", v.unsigned_abs()),
        Imm::Int(v) => write!(out, "0x{v:x}"),
        // `{:?}` is the shortest text that parses back to the same bits.
        Imm::F32(bits) if f32::from_bits(bits).is_finite() => write!(out, "{:?}", f32::from_bits(bits)),
        Imm::F32(bits) => write!(out, "0f{bits:08X}"),
        Imm::F64(bits) => write!(out, "0d{bits:016X}"),
    }
}

fn write_offset(out: &mut String, first: bool, offset: i64) -> fmt::Result {
    match (first, offset < 0) {
        (true, true) => write!(out, "-0x{:x}", offset.unsigned_abs()),
        (true, false) => write!(out, "0x{offset:x}"),
        (false, true) => write!(out, "-0x{:x}", offset.unsigned_abs()),
        (false, false) => write!(out, "+0x{offset:x}"),
    }
}

fn write_cbank(out: &mut String, cb: &CBank) -> fmt::Result {
    match cb.bank {
        Bank::Fixed(bank) => write!(out, "c[0x{bank:x}]")?,
        Bank::Indexed(reg) => write!(out, "cx[{reg}]")?,
    }
    out.push('[');
    if let Some(reg) = cb.reg {
        write!(out, "{reg}")?;
        if cb.offset != 0 {
            write_offset(out, false, cb.offset.into())?;
        }
    } else {
        write_offset(out, true, cb.offset.into())?;
    }
    out.push(']');
    Ok(())
}

fn write_address(out: &mut String, addr: &Address) -> fmt::Result {
    if let Some(desc) = addr.desc {
        write!(out, "desc[{desc}]")?;
    }
    out.push('[');
    let mut first = true;
    let extend = if addr.base_u32 { ".U32" } else { "" };
    for (reg, suffixes) in [(addr.base, [extend, addr.scale.suffix()]), (addr.ubase, ["", ""])] {
        let Some(reg) = reg else { continue };
        if !first {
            out.push('+');
        }
        write!(out, "{reg}{}{}", suffixes[0], suffixes[1])?;
        first = false;
    }
    if first || addr.offset != 0 {
        write_offset(out, first, addr.offset)?;
    }
    out.push(']');
    Ok(())
}

/// The control word in the `[B------:R-:W-:Y:S04]` notation SASS tools use:
/// wait mask, read scoreboard, write scoreboard, yield, stall.
struct CtrlText<'a>(&'a Ctrl);

impl fmt::Display for CtrlText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        f.write_str("[B")?;
        for sb in 0..Ctrl::SCOREBOARDS {
            if c.wait & (1 << sb) != 0 {
                write!(f, "{sb}")?;
            } else {
                f.write_str("-")?;
            }
        }
        let sb = |s: Option<u8>| s.map_or("-".to_string(), |s| s.to_string());
        write!(f, ":R{}:W{}:{}:S{:02}]", sb(c.read_sb), sb(c.write_sb), if c.yield_ { "Y" } else { "-" }, c.stall)
    }
}

/// A function or symbol name, quoted when it holds characters the parser
/// would not take as part of a name.
struct Symbol<'a>(&'a str);

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.is_empty() && self.0.chars().all(super::is_name_char) {
            f.write_str(self.0)
        } else {
            write!(f, "`({})", self.0)
        }
    }
}
