//! String tables as ptxas fills them.
//!
//! sm_90+: `.shstrtab` holds the section names in section order followed by
//! the zeroed bytes of the `.symtab_shndx` name ptxas removed; `.strtab` the
//! symbol names in symbol order (the deleted reserved-smem "cap" symbol
//! keeps its string).
//!
//! sm_7x/sm_8x: both tables are a log of every name ptxas created, including
//! sections it later dropped (`.symtab_shndx`, `.nv.shared.<fn>`,
//! `.rel.nv.constant0.<fn>`, `.nv.prototype`, ...); `.strtab` also logs
//! symbol names. Names are interned (each once).

use super::Builder;
use super::symbols::RESERVED_CAP;
use crate::strtab::StringTable;
use crate::symbol::Symbol;
use ori_ir::object::{Function, FunctionKind, Linkage, VariableSpace};

/// Zero bytes left where ptxas removed `.symtab_shndx` from `.shstrtab` (sm_90+).
const REMOVED_SYMTAB_SHNDX: usize = ".symtab_shndx\0".len();
/// The same for `.nv.merc.symtab_shndx` (with Mercury sections).
const REMOVED_MERC_SYMTAB_SHNDX: usize = ".nv.merc.symtab_shndx\0".len();

/// The section-name table with each section's name offset.
pub(super) struct SectionNames {
    pub bytes: Vec<u8>,
    pub offsets: Vec<u32>,
}

/// Which tables a logged name goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    Both,
    Sections,
    Symbols,
}

/// Builds both string tables and sets the symbols' name offsets.
pub(super) fn tables(b: &Builder<'_>, mut symbols: Vec<Symbol>) -> (SectionNames, Vec<u8>, Vec<Symbol>) {
    let (mut shstr, mut str_) = (StringTable::new(), StringTable::new());
    if b.arch.compat {
        for s in &b.sections[1..] {
            shstr.intern(&s.name);
        }
        for name in creation_order(&symbols) {
            str_.intern(&name);
        }
        for s in signatures(b) {
            str_.intern(s);
        }
        // `.nv.merc.symtab`'s names for the banks' section symbols.
        if b.merc.is_some() {
            for (from, to) in super::mercury::RENAMED {
                if symbols.iter().any(|s| s.name == *from) {
                    str_.intern(to);
                }
            }
        }
    } else {
        // Signatures are made while the PTX is read, before any section.
        for s in signatures(b) {
            str_.intern(s);
        }
        for (name, to) in log(b, &symbols) {
            if to != To::Symbols {
                shstr.intern(&name);
            }
            if to != To::Sections {
                str_.intern(&name);
            }
        }
    }
    let offsets = b.sections.iter().map(|s| shstr.find(&s.name).unwrap_or(0)).collect();
    for s in &mut symbols {
        s.name_offset = if s.name.is_empty() { 0 } else { str_.find(&s.name).unwrap_or(0) };
    }
    let mut shbytes = shstr.into_bytes();
    if b.arch.compat {
        shbytes.resize(shbytes.len() + REMOVED_SYMTAB_SHNDX, 0);
    }
    if b.merc.is_some() {
        shbytes.resize(shbytes.len() + REMOVED_MERC_SYMTAB_SHNDX, 0);
    }
    (SectionNames { bytes: shbytes, offsets }, str_.into_bytes(), symbols)
}

/// Call signatures: of address-taken functions, then of indirect call
/// sites, then of prototypes.
fn signatures<'a>(b: &'a Builder<'_>) -> impl Iterator<Item = &'a str> {
    let taken = b.m.address_taken.iter().map(|p| p.signature.as_str());
    let sites = b.m.functions.iter().flat_map(|f| f.indirect_calls.iter().map(String::as_str));
    let protos = b.m.prototypes.iter().map(|p| p.signature.as_str());
    taken.chain(sites).chain(protos)
}

/// sm_90+ symbol names in symbol order; the deleted reserved-smem cap
/// symbol's name stays at its slot.
fn creation_order(symbols: &[Symbol]) -> Vec<String> {
    let name = |(i, s): (usize, &Symbol)| {
        if s.name.is_empty() && s.other == crate::symbol::sto::INTERNAL && i > 0 {
            RESERVED_CAP.to_string()
        } else {
            s.name.clone()
        }
    };
    symbols.iter().enumerate().map(name).collect()
}

/// The sm_7x/sm_8x creation log.
fn log(b: &Builder<'_>, symbols: &[Symbol]) -> Vec<(String, To)> {
    let rel = b.rel();
    let mut out: Vec<(String, To)> = Vec::new();
    let mut push = |n: &str, to: To| out.push((n.to_string(), to));
    for n in [".shstrtab", ".strtab", ".symtab", ".symtab_shndx", ".note.nv.tkinfo", ".note.nv.cuinfo", ".nv.info"] {
        push(n, To::Both);
    }
    for (i, f) in b.m.functions.iter().enumerate() {
        let entry = f.kind == FunctionKind::Entry;
        if !entry && f.linkage == Linkage::Local {
            push(&f.name, To::Symbols);
        }
        push(&format!(".text.{}", f.name), To::Both);
        if !entry && i == 0 {
            variables(b, &mut push);
        }
        push(&format!(".nv.info.{}", f.name), To::Both);
        if b.m.address_taken.iter().any(|p| p.function == f.name) {
            for p in &b.m.address_taken {
                push(&p.function, To::Symbols);
            }
        }
        if entry {
            push(&format!(".nv.shared.{}", f.name), To::Both);
            if i == 0 {
                variables(b, &mut push);
            }
        }
        // Whole programs log bank 2 before the (resolved) relocations; with
        // `-c` its symbols are made when first relocated against.
        if !rel {
            bank2(f, &mut push);
        }
        for s in &f.subroutines {
            push(&s.name, To::Symbols);
        }
        for (name, to) in reloc_names(b, f) {
            push(&name, to);
        }
        if entry {
            let c0 = format!(".nv.constant0.{}", f.name);
            if rel {
                push(&c0, To::Both);
                push(if f.params.is_empty() { "_SREG" } else { "_param" }, To::Symbols);
            } else {
                push(&c0, To::Sections);
                push(&format!(".rel.nv.constant0.{}", f.name), To::Both);
                push(&c0, To::Symbols);
            }
        }
    }
    if b.m.functions.is_empty() {
        variables(b, &mut push);
    }
    push(".debug_frame", To::Both);
    if b.m.line_info.is_some() {
        // Each table with its relocation section, when it has one.
        let rows = |f: fn(&Function) -> bool| b.m.functions.iter().any(f);
        push(".debug_line", To::Both);
        let strings =
            |inline| b.m.line_info.as_ref().is_some_and(|i| i.debug_str.is_some() && i.inline_extension == inline);
        if strings(true) {
            // ptxas also creates (and drops) a RELA section for the table.
            push(".debug_str", To::Both);
            push(".rela.debug_line", To::Both);
        }
        if rows(|f| !f.source_lines.is_empty()) {
            push(".rel.debug_line", To::Both);
        }
        push(".nv_debug_line_sass", To::Both);
        if rows(|f| !f.ptx_lines.is_empty()) {
            push(".rel.nv_debug_line_sass", To::Both);
        }
        if let Some(info) = &b.m.line_info {
            push(&super::lines::ptx_text_name(rel, info), To::Both);
        }
        if strings(false) {
            push(".debug_str", To::Both);
        }
    }
    for s in &b.m.dwarf {
        push(&s.name, To::Both);
        if !s.relocations.is_empty() {
            push(&b.dwarf_reloc_section(s).0, To::Both);
        }
    }
    if !rel && !b.m.address_table.is_empty() {
        push(".rel.nv.constant4", To::Both);
    }
    if b.m.variables.iter().any(|v| !v.pointers.is_empty()) {
        push(".rel.nv.global.init", To::Both);
    }
    for n in [".rel.debug_frame", ".rela.debug_frame", ".nv.callgraph", ".nv.prototype"] {
        push(n, To::Both);
    }
    if !rel {
        push(".nv.rel.action", To::Both);
    }
    for s in symbols.iter().filter(|s| s.bind() != crate::symbol::bind::LOCAL) {
        push(&s.name, To::Symbols);
    }
    out
}

/// Constant bank 2 of `f` and its symbols (named with `-c` only; whole
/// programs have none).
fn bank2(f: &Function, push: &mut impl FnMut(&str, To)) {
    if let Some(bank) = &f.bank2 {
        push(&format!(".nv.constant2.{}", f.name), To::Both);
        for s in &bank.symbols {
            push(&s.name, To::Symbols);
        }
    }
}

/// Module variables: each section's name when first used, the variable's
/// name, and `.nv.constant4` after the first variable of the address table.
fn variables(b: &Builder<'_>, push: &mut impl FnMut(&str, To)) {
    let rel = b.rel();
    let first_slot_is_var = b.m.address_table.first().is_some_and(|t| b.m.variables.iter().any(|v| v.name == *t));
    let mut table_done = rel || b.m.address_table.is_empty();
    if !table_done && !first_slot_is_var {
        push(".nv.constant4", To::Both);
        table_done = true;
    }
    let mut seen = Vec::new();
    for v in &b.m.variables {
        let section = match (v.space, v.init.is_some()) {
            (VariableSpace::Const, _) => ".nv.constant3",
            (VariableSpace::Global, true) => ".nv.global.init",
            (VariableSpace::Global, false) => ".nv.global",
        };
        if !seen.contains(&section) {
            push(section, To::Both);
            seen.push(section);
        }
        push(&v.name, To::Symbols);
        if !table_done && b.m.address_table.first() == Some(&v.name) {
            push(".nv.constant4", To::Both);
            table_done = true;
        }
    }
}

/// Names made while ptxas records `f`'s code relocations (also those it
/// resolved itself), in creation order: a shared variable's or bank-2
/// symbol when first relocated against (bank 2's section name with its
/// first symbol), a relocation section when first needed. Symbols never
/// relocated against follow.
fn reloc_names(b: &Builder<'_>, f: &Function) -> Vec<(String, To)> {
    let rel = b.rel();
    let list = if rel { &f.relocations } else { &f.resolved_relocations };
    let shared: Vec<&str> = if rel { f.shared.variables.iter().map(|v| v.name.as_str()).collect() } else { vec![] };
    let bank2: Vec<&str> = match (&f.bank2, rel) {
        (Some(bank), true) => bank.symbols.iter().map(|s| s.name.as_str()).collect(),
        _ => vec![],
    };
    let bank2_name = format!(".nv.constant2.{}", f.name);
    let mut out: Vec<(String, To)> = Vec::new();
    let mut add = |name: &str, to: To| {
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_string(), to));
        }
    };
    for r in list {
        if shared.contains(&r.symbol.as_str()) {
            add(&r.symbol, To::Symbols);
        }
        if bank2.contains(&r.symbol.as_str()) {
            add(&bank2_name, To::Both);
            add(&r.symbol, To::Symbols);
        }
        add(&format!("{}.text.{}", if r.addend != 0 { ".rela" } else { ".rel" }, f.name), To::Both);
    }
    for v in shared {
        add(v, To::Symbols);
    }
    if rel && f.bank2.is_some() {
        add(&bank2_name, To::Both);
        for s in bank2 {
            add(s, To::Symbols);
        }
    }
    out
}
