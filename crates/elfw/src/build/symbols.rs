//! The symbol table in ptxas's order.
//!
//! Locals first: the two note sections, then per function its section
//! symbols, variables and cloned callees; `.debug_frame`, `.nv.callgraph`;
//! then globals. sm_90+ adds the reserved shared-memory symbols (and, with
//! `-c`, the unified function/data table symbols) and puts the
//! `.nv.constant0.<fn>` section symbols last. ptxas orders `-c` globals by
//! its own hash table; here they follow the module's order.

use super::Builder;
use crate::error::Result;
use crate::symbol::{Symbol, bind, sto, stt};
use ori_ir::object::{Function, FunctionKind, Linkage, VariableSpace};

/// Unified function/data table symbols of `-c` output on sm_90+.
const UFT_UDT: [&str; 8] =
    ["__UDT_OFFSET", "__UFT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT", "__UDT", "__UFT_END", "__UDT_END"];

/// Value of `.nv.reservedSmem.cap` (1 KiB, the same on every SM from sm_90 on).
const RESERVED_CAP_VALUE: u64 = 0x400;

/// Name given to the deleted `.nv.reservedSmem.cap` symbol's string (kept in
/// `.strtab` by ptxas although the symbol loses its name).
pub(crate) const RESERVED_CAP: &str = ".nv.reservedSmem.cap";

impl Builder<'_> {
    /// Appends a symbol; `(bind, kind, other)` as in `st_info`/`st_other`.
    fn push_sym(&mut self, name: &str, (bind, kind, other): (u8, u8, u8), shndx: usize, value: u64, size: u64) {
        if !name.is_empty() {
            self.symbol_index.entry(name.to_string()).or_insert(self.symbols.len());
        }
        self.symbols.push(Symbol {
            name: name.to_string(),
            name_offset: 0,
            info: (bind << 4) | kind,
            other,
            shndx: shndx as u16,
            value,
            size,
        });
    }

    pub(super) fn push_section_sym(&mut self, name: &str) {
        if let Some(i) = self.sec(name).filter(|_| !self.symbol_index.contains_key(name)) {
            self.push_sym(name, (bind::LOCAL, stt::SECTION, 0), i, 0, 0);
        }
    }

    fn linkage_bind(l: Linkage) -> u8 {
        match l {
            Linkage::Global => bind::GLOBAL,
            Linkage::Local => bind::LOCAL,
            Linkage::Weak => bind::WEAK,
        }
    }

    fn push_function_sym(&mut self, f: &Function) {
        let text = self.sec(&format!(".text.{}", f.name)).unwrap_or(0);
        let other = if f.kind == FunctionKind::Entry { sto::CUDA_ENTRY } else { 0 };
        self.push_sym(&f.name, (Self::linkage_bind(f.linkage), stt::FUNC, other), text, 0, f.code.len() as u64);
    }

    /// Module variables, emitted with the first function.
    fn push_variables(&mut self) {
        let rel = self.rel();
        // A table whose first slot is not a variable (a function's address)
        // gets its section symbol before the variables.
        let first_slot_is_var =
            self.m.address_table.first().is_some_and(|t| self.m.variables.iter().any(|v| v.name == *t));
        if !rel && !self.m.address_table.is_empty() && !first_slot_is_var {
            self.push_section_sym(".nv.constant4");
        }
        let mut table_done = false;
        for v in &self.m.variables {
            let section = match (v.space, v.init.is_some()) {
                (VariableSpace::Const, _) => ".nv.constant3",
                (VariableSpace::Global, true) => ".nv.global.init",
                (VariableSpace::Global, false) => ".nv.global",
            };
            self.push_section_sym(section);
            if v.linkage == Linkage::Local {
                let shndx = self.sec(section).unwrap_or(0);
                let (kind, other) = match (rel, v.space) {
                    (false, _) => (stt::OBJECT, 0),
                    (true, VariableSpace::Const) => (stt::CUDA_OBJECT, 0x80),
                    (true, VariableSpace::Global) => (stt::CUDA_OBJECT, 0x20),
                };
                self.push_sym(&v.name, (bind::LOCAL, kind, other), shndx, v.offset, v.size);
            }
            // The address table's section symbol follows its first user.
            if !rel && !table_done && self.m.address_table.first() == Some(&v.name) {
                self.push_section_sym(".nv.constant4");
                table_done = true;
            }
        }
        if !rel && !table_done && !self.m.address_table.is_empty() {
            self.push_section_sym(".nv.constant4");
        }
    }

    pub(crate) fn plan_symbols(&mut self) -> Result<()> {
        let rel = self.rel();
        let sm90 = self.arch.compat;
        self.push_sym("", (bind::LOCAL, stt::NOTYPE, 0), 0, 0, 0);
        self.push_section_sym(".note.nv.tkinfo");
        self.push_section_sym(".note.nv.cuinfo");
        let functions: Vec<&Function> = self.functions().collect();
        for (i, f) in functions.iter().enumerate() {
            if f.kind == FunctionKind::Device && f.linkage == Linkage::Local && !self.symbol_index.contains_key(&f.name)
            {
                self.push_function_sym(f);
            }
            self.push_section_sym(&format!(".text.{}", f.name));
            // The first address-taken function brings the symbols of all of them.
            if self.m.address_taken.iter().any(|p| p.function == f.name) {
                for p in &self.m.address_taken {
                    let local = functions.iter().find(|g| g.name == p.function && g.linkage == Linkage::Local);
                    if let Some(g) = local.filter(|g| !self.symbol_index.contains_key(&g.name)) {
                        self.push_function_sym(g);
                    }
                }
            }
            let shared = format!(".nv.shared.{}", f.name);
            if f.shared.declared {
                self.push_section_sym(&shared);
            }
            if i == 0 {
                self.push_variables();
            }
            // Shared variables get symbols when first relocated against,
            // after the module variables.
            if rel {
                let shndx = self.sec(&shared).unwrap_or(0);
                for v in &f.shared.variables {
                    self.push_sym(&v.name, (bind::LOCAL, stt::CUDA_OBJECT, 0x40), shndx, v.offset, v.size);
                }
            }
            if let Some(bank) = &f.bank2 {
                let c2 = format!(".nv.constant2.{}", f.name);
                self.push_section_sym(&c2);
                if rel {
                    let shndx = self.sec(&c2).unwrap_or(0);
                    for s in &bank.symbols {
                        self.push_sym(&s.name, (bind::LOCAL, stt::CUDA_OBJECT, 0x81), shndx, s.offset, s.size);
                    }
                }
            }
            let text = self.sec(&format!(".text.{}", f.name)).unwrap_or(0);
            for s in &f.subroutines {
                self.push_sym(&s.name, (bind::LOCAL, stt::FUNC, 0), text, s.offset, s.size);
            }
            if !sm90 && f.kind == FunctionKind::Entry {
                let c0 = format!(".nv.constant0.{}", f.name);
                self.push_section_sym(&c0);
                if rel {
                    // `_param` covers the parameters; a kernel without any gets
                    // `_SREG` over the driver area before them instead.
                    let size: u32 = f.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
                    let base = u64::from(self.arch.param_base());
                    let (name, value, size) =
                        if f.params.is_empty() { ("_SREG", 0, base) } else { ("_param", base, u64::from(size)) };
                    let shndx = self.sec(&c0).unwrap_or(0);
                    self.push_sym(name, (bind::LOCAL, stt::CUDA_OBJECT, 0x81), shndx, value, size);
                }
            }
        }
        if functions.is_empty() {
            self.push_variables();
        }
        self.push_section_sym(".debug_frame");
        if let Some(info) = &self.m.line_info {
            for name in super::lines::sections(rel, info) {
                self.push_section_sym(&name);
            }
        }
        self.push_dwarf_symbols();
        self.push_section_sym(".nv.callgraph");
        self.push_section_sym(".nv.prototype");
        self.push_section_sym(".nv.rel.action");
        // Globals in function order; the first function brings the reserved
        // shared-memory symbols (and with `-c` the unified table symbols),
        // the first function with shared memory the reserved-smem cap.
        let mut cap_done = false;
        for (i, f) in functions.iter().enumerate() {
            if !(f.kind == FunctionKind::Device && f.linkage == Linkage::Local) {
                self.push_function_sym(f);
            }
            if sm90 && i == 0 {
                let reserved = self.arch.reserved_smem.map_or(0, |r| r.0);
                if rel {
                    for name in UFT_UDT {
                        self.push_sym(name, (bind::WEAK, stt::OBJECT, 0), 0, 0, 8);
                    }
                    self.push_sym(".nv.reservedSmem.offset0", (bind::WEAK, stt::OBJECT, 0), 0, reserved, 4);
                } else {
                    self.push_sym(".nv.reservedSmem.offset0", (bind::WEAK, stt::OBJECT, 0), 0, reserved, 4);
                    let shndx = self.sec(".nv.shared.reserved.0").unwrap_or(0);
                    // The alias marks the end of the reserved area.
                    let alias = "__nv_reservedSMEM_offset_0_alias";
                    self.push_sym(alias, (bind::WEAK, stt::NOTYPE, 0xa0), shndx, reserved, 0);
                }
            }
            if rel && f.shared.uses_extern {
                for e in &self.m.extern_shared {
                    if !self.symbol_index.contains_key(&e.name) {
                        self.push_sym(&e.name, (bind::GLOBAL, stt::CUDA_OBJECT, 0x40), 0, e.align, 0);
                    }
                }
            }
            if sm90 && (f.shared.size > 0 || f.shared.uses_extern) && !cap_done {
                cap_done = true;
                // Whole programs keep it only while the Mercury code (sm_100+)
                // still refers to it.
                let merc_uses =
                    self.merc.is_some_and(|m| m.iter().any(|f| f.relocations.iter().any(|r| r.symbol == RESERVED_CAP)));
                if rel || merc_uses {
                    self.push_sym(RESERVED_CAP, (bind::WEAK, stt::OBJECT, 0), 0, RESERVED_CAP_VALUE, 4);
                } else {
                    // ptxas deletes the symbol but keeps the slot (and the string).
                    self.push_sym("", (bind::LOCAL, stt::NOTYPE, sto::INTERNAL), 0, 0, 0);
                }
            }
        }
        for e in &self.m.externals {
            self.push_sym(e, (bind::GLOBAL, stt::FUNC, 0), 0, 0, 0);
        }
        for v in self.m.variables.iter().filter(|v| v.linkage != Linkage::Local) {
            let section = match (v.space, v.init.is_some()) {
                (VariableSpace::Const, _) => ".nv.constant3",
                (VariableSpace::Global, true) => ".nv.global.init",
                (VariableSpace::Global, false) => ".nv.global",
            };
            let shndx = self.sec(section).unwrap_or(0);
            self.push_sym(&v.name, (Self::linkage_bind(v.linkage), stt::OBJECT, 0), shndx, v.offset, v.size);
        }
        if sm90 {
            for f in functions.iter().filter(|f| f.kind == FunctionKind::Entry) {
                self.push_section_sym(&format!(".nv.constant0.{}", f.name));
            }
        }
        Ok(())
    }
}
