//! Text → Ori.
//!
//! The format is line oriented: module directives, function headers,
//! attribute lines, block labels and one instruction per line. `//` starts
//! a comment.

use std::collections::HashMap;
use std::fmt;

use crate::function::{BlockId, Function, FunctionKind, ParamSlot};
use crate::inst::{Ctrl, Guard, Inst};
use crate::module::{Module, PointerInit, VarSpace, Variable};
use crate::opcode::{Modifier, Opcode};
use crate::operand::{Address, Bank, CBank, Halves, Imm, Layout, Operand, OperandFlags, OperandKind, Scale};
use crate::props::{Property, PropertySet};
use crate::reg::{Reg, RegFile, SpecialReg};
use crate::target::Sm;

/// A syntax error in Ori text, with its 1-based position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Line (1-based).
    pub line: usize,
    /// Column in characters (1-based).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

type Result<T> = std::result::Result<T, ParseError>;

/// Parses a whole module.
pub fn parse_module(text: &str) -> Result<Module> {
    let mut target = None;
    let mut props = PropertySet::EMPTY;
    let mut functions = Vec::new();
    let mut variables = Vec::new();
    let mut externals = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, raw)) = lines.next() {
        let mut cur = Cursor::new(raw, index + 1);
        cur.skip_ws();
        if cur.at_end() {
            continue;
        }
        let word = cur.word();
        match word {
            ".target" => {
                cur.skip_ws();
                let start = cur.pos;
                let name = cur.word();
                target = Some(name.parse::<Sm>().map_err(|_| cur.error_at(start, format!("unknown target `{name}`")))?);
            }
            ".props" => props = parse_props(&mut cur)?,
            ".extern" => {
                cur.skip_ws();
                externals.push(cur.name()?);
            }
            ".visible" | ".global" | ".const" => {
                let visible = word == ".visible";
                let word = if visible {
                    cur.skip_ws();
                    cur.word()
                } else {
                    word
                };
                let space = match word {
                    ".global" => VarSpace::Global,
                    ".const" => VarSpace::Const,
                    _ => return Err(cur.error_at(0, "expected `.global` or `.const` after `.visible`")),
                };
                variables.push(parse_variable(space, visible, &mut cur)?);
            }
            ".entry" | ".func" => {
                let kind = if word == ".entry" { FunctionKind::Entry } else { FunctionKind::Func };
                functions.push(parse_function_body(kind, &mut cur, &mut lines)?);
                continue;
            }
            _ => {
                return Err(
                    cur.error_at(0, format!("expected `.target`, `.props`, `.entry` or `.func`, found `{word}`"))
                );
            }
        }
        cur.expect_end()?;
    }
    let target = target.ok_or_else(|| ParseError { line: 1, column: 1, message: "missing `.target`".into() })?;
    let mut module = Module::new(target, props);
    module.functions = functions;
    module.variables = variables;
    module.externals = externals;
    Ok(module)
}

/// The rest of a `.global`/`.const` line (see `print::write_variable`).
fn parse_variable(space: VarSpace, visible: bool, cur: &mut Cursor) -> Result<Variable> {
    cur.skip_ws();
    let name = cur.name()?;
    cur.skip_ws();
    cur.expect('@')?;
    let offset = cur.u64()?;
    let field = |cur: &mut Cursor| -> Result<u64> {
        cur.skip_ws();
        cur.expect(',')?;
        cur.skip_ws();
        cur.u64()
    };
    let (size, align) = (field(cur)?, field(cur)?);
    cur.skip_ws();
    let mut init = None;
    if cur.eat('=') {
        cur.skip_ws();
        let start = cur.pos;
        let hex = cur.word().strip_prefix("0x").ok_or_else(|| cur.error_at(start, "expected 0x and bytes"))?;
        let bytes: Option<Vec<u8>> =
            (0..hex.len() / 2).map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect();
        match bytes.filter(|b| hex.len() % 2 == 0 && b.len() as u64 == size) {
            Some(b) => init = Some(b),
            None => return Err(cur.error_at(start, format!("expected {size} bytes in hexadecimal"))),
        }
    }
    let mut pointers = Vec::new();
    loop {
        cur.skip_ws();
        if cur.at_end() {
            break;
        }
        let start = cur.pos;
        if cur.word() != "ptr" {
            return Err(cur.error_at(start, "expected `ptr OFFSET NAME+ADDEND`"));
        }
        cur.skip_ws();
        let offset = cur.u64()?;
        cur.skip_ws();
        let target = cur.name()?;
        cur.expect('+')?;
        let addend = cur.u64()? as i64;
        pointers.push(PointerInit { offset, target, addend });
    }
    Ok(Variable { name, space, visible, offset, size, align, init, pointers })
}

/// Parses a single function (`.entry`/`.func` ... `}`).
pub fn parse_function(text: &str) -> Result<Function> {
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, raw)) = lines.next() {
        let mut cur = Cursor::new(raw, index + 1);
        cur.skip_ws();
        if cur.at_end() {
            continue;
        }
        let kind = match cur.word() {
            ".entry" => FunctionKind::Entry,
            ".func" => FunctionKind::Func,
            other => return Err(cur.error_at(0, format!("expected `.entry` or `.func`, found `{other}`"))),
        };
        let func = parse_function_body(kind, &mut cur, &mut lines)?;
        for (index, raw) in lines {
            let mut cur = Cursor::new(raw, index + 1);
            cur.skip_ws();
            if !cur.at_end() {
                return Err(cur.error("text after the end of the function"));
            }
        }
        return Ok(func);
    }
    Err(ParseError { line: 1, column: 1, message: "no function found".into() })
}

fn parse_props(cur: &mut Cursor) -> Result<PropertySet> {
    let mut props = PropertySet::EMPTY;
    loop {
        cur.skip_ws();
        if cur.at_end() {
            return Ok(props);
        }
        let name = cur.word();
        let prop = Property::from_name(name).ok_or_else(|| cur.error(format!("unknown property `{name}`")))?;
        props = props.union(PropertySet::of(&[prop]));
        cur.skip_ws();
        if !cur.eat(',') {
            return Ok(props);
        }
    }
}

/// Blocks named in a function body, created on first mention and placed in
/// the layout when their label is seen.
struct Labels {
    ids: HashMap<String, (BlockId, bool, usize)>,
}

impl Labels {
    fn get(&mut self, func: &mut Function, name: &str, line: usize) -> BlockId {
        if let Some(&(id, _, _)) = self.ids.get(name) {
            return id;
        }
        let id = func.blocks.alloc(Default::default());
        self.ids.insert(name.to_string(), (id, false, line));
        id
    }
}

fn parse_function_body<'a, I>(kind: FunctionKind, header: &mut Cursor, lines: &mut I) -> Result<Function>
where
    I: Iterator<Item = (usize, &'a str)>,
{
    header.skip_ws();
    let name = header.name()?;
    header.skip_ws();
    if !header.eat('{') {
        return Err(header.error("expected `{` after the function name"));
    }
    header.expect_end()?;
    let mut func = Function::new(name, kind);
    let mut labels = Labels { ids: HashMap::new() };
    let mut current: Option<BlockId> = None;
    for (index, raw) in lines {
        let mut cur = Cursor::new(raw, index + 1);
        cur.skip_ws();
        if cur.at_end() {
            continue;
        }
        if cur.eat('}') {
            cur.expect_end()?;
            if let Some((name, (_, _, line))) = labels.ids.iter().find(|(_, v)| !v.1) {
                return Err(ParseError {
                    line: *line,
                    column: 1,
                    message: format!("label `{name}` is used but never defined"),
                });
            }
            return Ok(func);
        }
        if cur.peek() == Some('.') {
            if current.is_some() {
                return Err(cur.error("attributes must come before the first block"));
            }
            parse_attr(&mut func, &mut cur, &mut labels)?;
            cur.expect_end()?;
            continue;
        }
        if let Some(label) = cur.label_definition() {
            let id = labels.get(&mut func, label, cur.line);
            let entry = labels.ids.get_mut(label).expect("just inserted");
            if entry.1 {
                return Err(cur.error_at(0, format!("label `{label}` defined twice")));
            }
            entry.1 = true;
            func.layout.push(id);
            current = Some(id);
            cur.expect_end()?;
            continue;
        }
        let block = current.ok_or_else(|| cur.error("instruction before the first block label"))?;
        let inst = parse_inst(&mut cur, &mut func, &mut labels)?;
        func.push_inst(block, inst);
    }
    Err(header.error("function is not closed by `}`"))
}

fn parse_attr(func: &mut Function, cur: &mut Cursor, labels: &mut Labels) -> Result<()> {
    let word = cur.word();
    cur.skip_ws();
    if word == ".subroutine" {
        // `.subroutine NAME, bbN, FRAME[, recursive]`
        let name = cur.name()?;
        cur.skip_ws();
        cur.expect(',')?;
        cur.skip_ws();
        let label = cur.word();
        let entry = labels.get(func, label, cur.line);
        cur.skip_ws();
        cur.expect(',')?;
        cur.skip_ws();
        let frame_bytes = cur.u32()?;
        cur.skip_ws();
        let recursive = cur.eat(',') && {
            cur.skip_ws();
            cur.word() == "recursive"
        };
        func.attrs.subroutines.push(crate::Subroutine {
            name,
            entry,
            frame_bytes,
            recursive,
            spill_bytes: (0, 0),
            entry_loc: None,
        });
        return Ok(());
    }
    if word == ".function_table" {
        let name = cur.name()?;
        func.attrs.function_table.push(name);
        return Ok(());
    }
    let attrs = &mut func.attrs;
    match word {
        ".maxntid" => attrs.maxntid = Some(parse_triple(cur)?),
        ".reqntid" => attrs.reqntid = Some(parse_triple(cur)?),
        ".reqnctapercluster" => attrs.cluster_dims = Some(parse_triple(cur)?),
        ".maxnreg" => attrs.maxnreg = Some(cur.u32()?),
        ".minnctapersm" => attrs.minnctapersm = Some(cur.u32()?),
        ".param" => {
            let offset = cur.u32()?;
            cur.skip_ws();
            cur.expect(',')?;
            cur.skip_ws();
            let size = cur.u32()?;
            attrs.params.push(ParamSlot { offset, size, pointee: None });
        }
        ".shared_bytes" => {
            attrs.shared_bytes = cur.u32()?;
            cur.skip_ws();
            cur.expect(',')?;
            cur.skip_ws();
            attrs.shared_align = cur.u32()?;
        }
        ".extern_shared" => attrs.extern_shared = true,
        ".bank2" => {
            let start = cur.pos;
            match parse_imm(cur)? {
                Imm::F64(bits) => attrs.bank2.push(bits),
                _ => return Err(cur.error_at(start, "expected a binary64 constant (0dXXXXXXXXXXXXXXXX)")),
            }
        }
        ".frame_bytes" => attrs.frame_bytes = cur.u32()?,
        ".spill_bytes" => {
            attrs.spill_store_bytes = cur.u32()?;
            cur.skip_ws();
            cur.expect(',')?;
            cur.skip_ws();
            attrs.spill_load_bytes = cur.u32()?;
        }
        _ => return Err(cur.error_at(0, format!("unknown function attribute `{word}`"))),
    }
    Ok(())
}

fn parse_triple(cur: &mut Cursor) -> Result<[u32; 3]> {
    let mut v = [0; 3];
    for (i, slot) in v.iter_mut().enumerate() {
        if i > 0 {
            cur.skip_ws();
            cur.expect(',')?;
            cur.skip_ws();
        }
        *slot = cur.u32()?;
    }
    Ok(v)
}

fn parse_inst(cur: &mut Cursor, func: &mut Function, labels: &mut Labels) -> Result<Inst> {
    let ctrl = if cur.rest().starts_with("[B") { Some(parse_ctrl(cur)?) } else { None };
    cur.skip_ws();
    let guard = if cur.eat('@') {
        let negated = cur.eat('!');
        let pred = parse_reg(cur)?;
        if !pred.file.is_predicate() {
            return Err(cur.error(format!("guard `{pred}` is not a predicate")));
        }
        func.reserve_vreg(pred);
        cur.skip_ws();
        Some(Guard { pred, negated })
    } else {
        None
    };
    // Definitions come before `=`; without `=` the instruction defines
    // nothing.
    let mut defs = Vec::new();
    if cur.rest().contains('=') && !starts_with_opcode(cur.rest()) {
        defs = parse_operand_list(cur, func, labels, '=')?;
        cur.expect('=')?;
        cur.skip_ws();
    }
    let start = cur.pos;
    let mnemonic = cur.word();
    let mut parts = mnemonic.split('.');
    let opname = parts.next().unwrap_or_default();
    let op = Opcode::from_name(opname).ok_or_else(|| cur.error_at(start, format!("unknown opcode `{opname}`")))?;
    let mods = parts
        .map(|m| {
            Modifier::from_name(m).ok_or_else(|| cur.error_at(start, format!("unknown modifier `.{m}` on {opname}")))
        })
        .collect::<Result<Vec<_>>>()?;
    cur.skip_ws();
    let uses =
        if cur.at_end() || cur.peek() == Some('#') { Vec::new() } else { parse_operand_list(cur, func, labels, '#')? };
    cur.skip_ws();
    let encoding = if cur.eat('#') { Some(parse_encoding(cur)?) } else { None };
    cur.expect_end()?;
    Ok(Inst { op, mods, guard, defs, uses, ctrl, encoding, loc: None })
}

/// True when the text begins with an opcode mnemonic rather than with a
/// definition list (an `=` inside it would then belong to something else).
fn starts_with_opcode(text: &str) -> bool {
    let len = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
    Opcode::from_name(&text[..len]).is_some() && !text[len..].trim_start().starts_with([',', '='])
}

fn parse_operand_list(cur: &mut Cursor, func: &mut Function, labels: &mut Labels, stop: char) -> Result<Vec<Operand>> {
    let mut list = Vec::new();
    loop {
        cur.skip_ws();
        list.push(parse_operand(cur, func, labels)?);
        cur.skip_ws();
        if cur.at_end() || cur.peek() == Some(stop) {
            return Ok(list);
        }
        cur.expect(',')?;
    }
}

fn parse_operand(cur: &mut Cursor, func: &mut Function, labels: &mut Labels) -> Result<Operand> {
    let mut flags = OperandFlags::default();
    if cur.rest().starts_with("undef ") {
        cur.pos += "undef ".len();
        flags.undef = true;
    }
    loop {
        match cur.peek() {
            Some('-') if !cur.rest()[1..].starts_with(|c: char| c.is_ascii_digit()) => flags.neg = true,
            Some('!') => flags.not = true,
            Some('~') => flags.bitnot = true,
            _ => break,
        }
        cur.bump();
    }
    if cur.eat('|') {
        flags.abs = true;
    }
    let kind = parse_operand_kind(cur, func, labels)?;
    if flags.abs {
        cur.expect('|')?;
    }
    if let Some(h) = Halves::ALL.into_iter().find(|h| cur.rest().starts_with(h.suffix())) {
        cur.pos += h.suffix().len();
        flags.halves = Some(h);
    }
    if cur.rest().starts_with(".reuse") {
        cur.pos += ".reuse".len();
        flags.reuse = true;
    }
    if let Some(l) = Layout::ALL.into_iter().find(|l| cur.rest().starts_with(l.suffix())) {
        cur.pos += l.suffix().len();
        flags.layout = Some(l);
    }
    for reg in Operand::from(kind.clone()).regs() {
        func.reserve_vreg(reg);
    }
    Ok(Operand { kind, flags })
}

fn parse_operand_kind(cur: &mut Cursor, func: &mut Function, labels: &mut Labels) -> Result<OperandKind> {
    let rest = cur.rest();
    if rest.starts_with("`(") {
        cur.pos += 2;
        let end = cur.rest().find(')').ok_or_else(|| cur.error("unterminated symbol"))?;
        let name = cur.rest()[..end].to_string();
        cur.pos += end + 1;
        return Ok(OperandKind::Symbol(name));
    }
    if rest.starts_with('[') || rest.starts_with("desc[") {
        return parse_address(cur).map(OperandKind::Mem);
    }
    if rest.starts_with("c[") || rest.starts_with("cx[") {
        return parse_cbank(cur).map(OperandKind::CBank);
    }
    if rest.starts_with("gdesc[") {
        cur.pos += "gdesc[".len();
        let reg = parse_reg(cur)?;
        cur.expect(']')?;
        return Ok(OperandKind::MatrixDesc(reg));
    }
    match cur.peek() {
        Some(c) if c.is_ascii_digit() || c == '-' => return parse_imm(cur).map(OperandKind::Imm),
        Some('%') => return parse_reg(cur).map(OperandKind::Reg),
        _ => {}
    }
    let start = cur.pos;
    let word = cur.word();
    if let Some(sr) = SpecialReg::from_name(word) {
        return Ok(OperandKind::Special(sr));
    }
    match word {
        "PR" => return Ok(OperandKind::PredFile { uniform: false }),
        "UPR" => return Ok(OperandKind::PredFile { uniform: true }),
        _ => {}
    }
    if let Some(sb) = word.strip_prefix("SB").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(OperandKind::Scoreboard(sb));
    }
    if let Some(gsb) = word.strip_prefix("gsb").and_then(|n| n.parse::<u8>().ok()) {
        return Ok(OperandKind::GroupScoreboard(gsb));
    }
    cur.pos = start;
    match parse_reg(cur) {
        Ok(reg) => return Ok(OperandKind::Reg(reg)),
        Err(err) if looks_like_register(word) => return Err(err),
        Err(_) => cur.pos = start,
    }
    let name = cur.word();
    if name.is_empty() || !name.chars().all(super::is_name_char) {
        return Err(cur.error_at(start, format!("expected an operand, found `{}`", cur.line_text[start..].trim_end())));
    }
    Ok(OperandKind::Label(labels.get(func, name, cur.line)))
}

/// `R12`, `UP3`, ...: a physical register name, valid or not.
fn looks_like_register(word: &str) -> bool {
    let digits = word.trim_start_matches(|c: char| c.is_ascii_uppercase());
    let prefix = &word[..word.len() - digits.len()];
    matches!(prefix, "R" | "UR" | "P" | "UP" | "B") && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn parse_reg(cur: &mut Cursor) -> Result<Reg> {
    let start = cur.pos;
    let (file, is_virtual) = if cur.eat('%') {
        let rest = cur.rest();
        let prefix = &rest[..rest.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(rest.len())];
        cur.pos += prefix.len();
        let file = match prefix {
            "r" => RegFile::R,
            "ur" => RegFile::UR,
            "p" => RegFile::P,
            "up" => RegFile::UP,
            "b" => RegFile::B,
            _ => return Err(cur.error_at(start, format!("unknown virtual register class `%{prefix}`"))),
        };
        (file, true)
    } else {
        let rest = cur.rest();
        let word = &rest[..rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len())];
        let zero = match word {
            "RZ" => Some(Reg::RZ),
            "URZ" => Some(Reg::URZ),
            "PT" => Some(Reg::PT),
            "UPT" => Some(Reg::UPT),
            _ => None,
        };
        if let Some(zero) = zero {
            cur.pos += word.len();
            return parse_width(cur, zero);
        }
        let prefix = &word[..word.find(|c: char| !c.is_ascii_uppercase()).unwrap_or(word.len())];
        let file = match prefix {
            "R" => RegFile::R,
            "UR" => RegFile::UR,
            "P" => RegFile::P,
            "UP" => RegFile::UP,
            "B" => RegFile::B,
            _ => return Err(cur.error_at(start, format!("expected a register, found `{word}`"))),
        };
        cur.pos += prefix.len();
        (file, false)
    };
    let rest = cur.rest();
    let digits = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())];
    if digits.is_empty() {
        return Err(cur.error_at(start, "expected a register number"));
    }
    cur.pos += digits.len();
    let num: u32 = digits.parse().map_err(|_| cur.error_at(start, "register number out of range"))?;
    if !is_virtual && (num >= file.physical_count() || file.zero_register() == Some(num)) {
        return Err(cur.error_at(start, format!("no register {}{num}", file.physical_prefix())));
    }
    let mut reg = if is_virtual { Reg::virt(file, num) } else { Reg::phys(file, num) };
    if is_virtual && cur.rest().starts_with(':') {
        cur.bump();
        let rest = cur.rest();
        let digits = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())];
        let word: u8 = digits.parse().map_err(|_| cur.error("expected a word number after `:`"))?;
        cur.pos += digits.len();
        reg = reg.part(word, 1);
    }
    parse_width(cur, reg)
}

fn parse_width(cur: &mut Cursor, reg: Reg) -> Result<Reg> {
    for (suffix, width) in [(".64", 2), (".96", 3), (".128", 4)] {
        if cur.rest().starts_with(suffix) {
            cur.pos += suffix.len();
            if reg.file.is_predicate() || reg.file == RegFile::B {
                return Err(cur.error(format!("{reg} cannot be {suffix} wide")));
            }
            return Ok(reg.wide(width));
        }
    }
    Ok(reg)
}

fn parse_imm(cur: &mut Cursor) -> Result<Imm> {
    let start = cur.pos;
    let negative = cur.eat('-');
    let rest = cur.rest();
    let token: String =
        rest.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')).collect();
    // A `+`/`-` only continues a number inside an exponent.
    let token = trim_sign_continuation(&token);
    cur.pos += token.len();
    let bad = |cur: &Cursor| cur.error_at(start, format!("bad immediate `{}`", &cur.line_text[start..cur.pos]));
    let value = if let Some(hex) = token.strip_prefix("0x") {
        let v = u64::from_str_radix(hex, 16).map_err(|_| bad(cur))?;
        let v = i64::try_from(v).map_err(|_| bad(cur))?;
        Imm::Int(if negative { -v } else { v })
    } else if let Some(hex) = token.strip_prefix("0f").filter(|h| h.len() == 8 && !negative) {
        Imm::F32(u32::from_str_radix(hex, 16).map_err(|_| bad(cur))?)
    } else if let Some(hex) = token.strip_prefix("0d").filter(|h| h.len() == 16 && !negative) {
        Imm::F64(u64::from_str_radix(hex, 16).map_err(|_| bad(cur))?)
    } else if token.contains(['.', 'e', 'E']) {
        let v: f32 = token.parse().map_err(|_| bad(cur))?;
        Imm::F32((if negative { -v } else { v }).to_bits())
    } else {
        let v: i64 = token.parse().map_err(|_| bad(cur))?;
        Imm::Int(if negative { -v } else { v })
    };
    Ok(value)
}

fn trim_sign_continuation(token: &str) -> &str {
    let bytes = token.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if (b == b'+' || b == b'-') && !(i > 0 && matches!(bytes[i - 1], b'e' | b'E') && !token.starts_with("0x")) {
            return &token[..i];
        }
    }
    token
}

fn parse_offset(cur: &mut Cursor) -> Result<i64> {
    match parse_imm(cur)? {
        Imm::Int(v) => Ok(v),
        _ => Err(cur.error("expected an integer offset")),
    }
}

/// The terms of `[base+ubase+offset]`.
struct BracketTerms {
    regs: Vec<Reg>,
    /// The first register's scale (`[R5.X4+0x10]`).
    scale: Scale,
    /// The first register is zero-extended (`[R8.U32+UR4]`).
    base_u32: bool,
    offset: i64,
}

/// `[base+ubase+offset]` contents after `[`, up to and including `]`.
fn parse_bracket_terms(cur: &mut Cursor) -> Result<BracketTerms> {
    let mut terms = BracketTerms { regs: Vec::new(), scale: Scale::X1, base_u32: false, offset: 0 };
    loop {
        if cur.peek().is_some_and(|c| c.is_ascii_digit() || c == '-') {
            terms.offset = parse_offset(cur)?;
        } else {
            terms.regs.push(parse_reg(cur)?);
            let first = terms.regs.len() == 1;
            if cur.rest().starts_with(".U32") {
                if !first {
                    return Err(cur.error("only the first address register can be zero-extended"));
                }
                cur.pos += ".U32".len();
                terms.base_u32 = true;
            }
            if let Some(s) = [Scale::X16, Scale::X8, Scale::X4].into_iter().find(|s| cur.rest().starts_with(s.suffix()))
            {
                if !first {
                    return Err(cur.error("only the first address register can be scaled"));
                }
                cur.pos += s.suffix().len();
                terms.scale = s;
            }
        }
        match cur.peek() {
            Some('+') => cur.bump(),
            Some('-') => {}
            Some(']') => {
                cur.bump();
                return Ok(terms);
            }
            _ => return Err(cur.error("expected `+` or `]`")),
        }
    }
}

fn parse_address(cur: &mut Cursor) -> Result<Address> {
    let mut addr = Address::default();
    if cur.rest().starts_with("desc[") {
        cur.pos += "desc[".len();
        addr.desc = Some(parse_reg(cur)?);
        cur.expect(']')?;
    }
    cur.expect('[')?;
    let terms = parse_bracket_terms(cur)?;
    addr.offset = terms.offset;
    addr.scale = terms.scale;
    addr.base_u32 = terms.base_u32;
    for reg in terms.regs {
        let slot = if reg.file == RegFile::UR { &mut addr.ubase } else { &mut addr.base };
        if slot.replace(reg).is_some() {
            return Err(cur.error("address has two registers of the same kind"));
        }
    }
    Ok(addr)
}

fn parse_cbank(cur: &mut Cursor) -> Result<CBank> {
    let bank = if cur.rest().starts_with("cx[") {
        cur.pos += 3;
        Bank::Indexed(parse_reg(cur)?)
    } else {
        cur.pos += 2;
        let v = parse_offset(cur)?;
        Bank::Fixed(u8::try_from(v).map_err(|_| cur.error("constant bank out of range"))?)
    };
    cur.expect(']')?;
    cur.expect('[')?;
    let terms = parse_bracket_terms(cur)?;
    if terms.scale != Scale::X1 || terms.base_u32 {
        return Err(cur.error("a constant-bank reference has no scale or extension"));
    }
    if terms.regs.len() > 1 {
        return Err(cur.error("constant-bank reference with two registers"));
    }
    let offset = i32::try_from(terms.offset).map_err(|_| cur.error("constant-bank offset out of range"))?;
    Ok(CBank { bank, reg: terms.regs.first().copied(), offset })
}

fn parse_ctrl(cur: &mut Cursor) -> Result<Ctrl> {
    let start = cur.pos;
    let bad = |cur: &Cursor| cur.error_at(start, "bad control word; expected e.g. `[B------:R-:W0:Y:S04]`");
    let text = cur.rest();
    let end = text.find(']').ok_or_else(|| bad(cur))?;
    let body = &text[1..end];
    let fields: Vec<&str> = body.split(':').collect();
    let [wait, read, write, yield_, stall] = fields[..] else {
        return Err(bad(cur));
    };
    let wait = wait.strip_prefix('B').filter(|w| w.len() == 6).ok_or_else(|| bad(cur))?;
    let mut mask = 0;
    for (i, c) in wait.chars().enumerate() {
        match c {
            '-' => {}
            c if c.to_digit(10) == Some(i as u32) => mask |= 1 << i,
            _ => return Err(bad(cur)),
        }
    }
    let sb = |field: &str, prefix: char| -> Option<Option<u8>> {
        let v = field.strip_prefix(prefix)?;
        if v == "-" {
            return Some(None);
        }
        let n: u8 = v.parse().ok()?;
        (n < Ctrl::SCOREBOARDS).then_some(Some(n))
    };
    let read_sb = sb(read, 'R').ok_or_else(|| bad(cur))?;
    let write_sb = sb(write, 'W').ok_or_else(|| bad(cur))?;
    let yield_ = match yield_ {
        "Y" => true,
        "-" => false,
        _ => return Err(bad(cur)),
    };
    let stall: u8 = stall
        .strip_prefix('S')
        .and_then(|s| s.parse().ok())
        .filter(|&s| s <= Ctrl::MAX_STALL)
        .ok_or_else(|| bad(cur))?;
    cur.pos += end + 1;
    Ok(Ctrl { stall, yield_, write_sb, read_sb, wait: mask })
}

fn parse_encoding(cur: &mut Cursor) -> Result<[u64; 2]> {
    let start = cur.pos;
    let digits: String =
        cur.rest().strip_prefix("0x").unwrap_or("").chars().take_while(char::is_ascii_hexdigit).collect();
    if digits.len() != 32 {
        return Err(cur.error_at(start, "encoding must be `#0x` and 32 hex digits (high word first)"));
    }
    cur.pos += 2 + 32;
    let hi = u64::from_str_radix(&digits[..16], 16).expect("checked hex digits");
    let lo = u64::from_str_radix(&digits[16..], 16).expect("checked hex digits");
    Ok([lo, hi])
}

/// A position in one line.
struct Cursor<'a> {
    line_text: &'a str,
    line: usize,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(raw: &'a str, line: usize) -> Cursor<'a> {
        let text = match raw.find("//") {
            Some(i) => &raw[..i],
            None => raw,
        };
        Cursor { line_text: text, line, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.line_text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) { Ok(()) } else { Err(self.error(format!("expected `{c}`"))) }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }

    fn expect_end(&mut self) -> Result<()> {
        self.skip_ws();
        if self.at_end() { Ok(()) } else { Err(self.error(format!("unexpected `{}`", self.rest().trim_end()))) }
    }

    /// A run of name characters (letters, digits, `_`, `$`, `.`, `%`).
    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest.find(|c: char| !(super::is_name_char(c) || c == '%')).unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    /// A function name: a plain word or `` `(anything) ``.
    fn name(&mut self) -> Result<String> {
        if self.rest().starts_with("`(") {
            let end = self.rest().find(')').ok_or_else(|| self.error("unterminated name"))?;
            let name = self.rest()[2..end].to_string();
            self.pos += end + 1;
            return Ok(name);
        }
        let word = self.word();
        if word.is_empty() { Err(self.error("expected a name")) } else { Ok(word.to_string()) }
    }

    /// `label:` on its own line.
    fn label_definition(&mut self) -> Option<&'a str> {
        let rest = self.rest().trim_end();
        let label = rest.strip_suffix(':')?;
        if !label.is_empty() && label.chars().all(super::is_name_char) && Opcode::from_name(label).is_none() {
            self.pos = self.line_text.len();
            Some(label)
        } else {
            None
        }
    }

    fn u64(&mut self) -> Result<u64> {
        let start = self.pos;
        match parse_imm(self)? {
            Imm::Int(v) => u64::try_from(v).map_err(|_| self.error_at(start, "value out of range")),
            _ => Err(self.error_at(start, "expected an integer")),
        }
    }

    fn u32(&mut self) -> Result<u32> {
        let start = self.pos;
        match parse_imm(self)? {
            Imm::Int(v) => u32::try_from(v).map_err(|_| self.error_at(start, "value out of range")),
            _ => Err(self.error_at(start, "expected an integer")),
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let column = self.line_text[..pos.min(self.line_text.len())].chars().count() + 1;
        ParseError { line: self.line, column, message: message.into() }
    }
}
