//! The cubin builder: an [`ObjectModule`] in, the sections, symbols and
//! attributes ptxas 13.5 writes for the same code out.
//!
//! The order of sections and symbols follows what ptxas does (measured on the
//! corpus, see `docs/elfw.md`); per-SM differences come from [`crate::arch`].
//! Mercury sections (sm_100+) are not produced.

mod dwarf;
mod frame;
mod info;
mod lines;
mod mercury;
mod names;
mod symbols;

use crate::arch::{Arch, RelocForm, arch};
use crate::callgraph::{CallEdge, SENTINELS};
use crate::cubin::Cubin;
use crate::error::{Error, Result};
use crate::header::{EHDR_SIZE, ET_EXEC, ET_REL, Header, PHDR_SIZE, SHDR_SIZE};
use crate::notes::{CuInfo, NT_CUDA_INFO, NT_TOOLKIT_INFO, Note, TkInfo};
use crate::reloc::{Rel, Rela};
use crate::section::{Section, SectionData, shf, sht};
use ori_ir::object::{Function, FunctionKind, ObjectModule, OutputMode, VariableSpace};
use std::collections::HashMap;

pub use mercury::{MercuryFunction, r_merc};

/// Toolkit version recorded in notes and `EIATTR_CUDA_API_VERSION` (13.5).
pub const TOOLKIT_VERSION: u16 = 135;
/// Tool version line of `.note.nv.tkinfo`.
pub const TOOL_VERSION: &str = "Cuda compilation tools, release 13.5, V13.5.37";
/// Build branch line of `.note.nv.tkinfo`.
pub const TOOL_BRANCH: &str = "Build cuda_13.5.r13.5/compiler.39125733_0";

/// Builds the cubin bytes for `module` (without Mercury sections).
pub fn build(module: &ObjectModule) -> Result<Vec<u8>> {
    crate::write(&build_model(module, None)?)
}

/// Builds the cubin bytes for `module` with the Mercury sections of
/// sm_100+ made from `mercury` (one entry per function, in module order).
pub fn build_with_mercury(module: &ObjectModule, mercury: &[MercuryFunction]) -> Result<Vec<u8>> {
    crate::write(&build_model(module, Some(mercury))?)
}

/// Builds the cubin model for `module` (laid out, ready for [`crate::write`]);
/// with `mercury` (sm_100+ only) also the Mercury sections.
pub fn build_model(module: &ObjectModule, mercury: Option<&[MercuryFunction]>) -> Result<Cubin> {
    let arch = arch(module.target.sm).ok_or_else(|| Error::Input(format!("unsupported SM {}", module.target.sm)))?;
    check(module)?;
    if let Some(m) = mercury {
        if !arch.mercury {
            return Err(Error::Input(format!("sm_{} has no Mercury sections", arch.sm)));
        }
        if m.len() != module.functions.len() {
            return Err(Error::Input(format!(
                "{} Mercury functions for {} functions",
                m.len(),
                module.functions.len()
            )));
        }
    }
    let mut b = Builder::new(module, arch, mercury);
    b.plan_sections();
    b.plan_mercury();
    b.plan_symbols()?;
    b.fill()?;
    b.finish()
}

fn check(module: &ObjectModule) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for f in &module.functions {
        if !seen.insert(f.name.as_str()) {
            return Err(Error::Input(format!("function {} defined twice", f.name)));
        }
        if f.code.is_empty() {
            return Err(Error::Input(format!("function {} has no code", f.name)));
        }
        // Field widths of the records these values go to.
        if f.registers > 255 || f.barriers > 255 {
            return Err(Error::Input(format!(
                "function {}: {} registers, {} barriers",
                f.name, f.registers, f.barriers
            )));
        }
        let mut end = 0u64;
        for p in &f.params {
            if p.size >= 1 << 14 {
                return Err(Error::Input(format!("function {}: parameter of {} bytes", f.name, p.size)));
            }
            end = end.max(u64::from(p.offset) + u64::from(p.size));
        }
        if end >= 1 << 16 {
            return Err(Error::Input(format!("function {}: {end} bytes of parameters", f.name)));
        }
        if f.kind == FunctionKind::Device && module.mode == OutputMode::WholeProgram {
            return Err(Error::Input(format!(
                "device function {} in a whole-program module: clone it into its callers (Function::subroutines)",
                f.name
            )));
        }
    }
    for v in &module.variables {
        if v.offset.checked_add(v.size).is_none_or(|end| end > u64::from(u32::MAX)) {
            return Err(Error::Input(format!("variable {} at {:#x} of {:#x} bytes", v.name, v.offset, v.size)));
        }
    }
    Ok(())
}

/// Whether the module is `-c` output.
fn relocatable(m: &ObjectModule) -> bool {
    m.mode == OutputMode::Relocatable
}

/// The state of one build: the section list (fixed first), then symbols,
/// then contents that refer to both.
pub(crate) struct Builder<'m> {
    pub(crate) m: &'m ObjectModule,
    pub(crate) arch: Arch,
    pub(crate) sections: Vec<Section>,
    pub(crate) section_index: HashMap<String, usize>,
    pub(crate) symbols: Vec<crate::symbol::Symbol>,
    pub(crate) symbol_index: HashMap<String, usize>,
    /// The Mercury form of each function, when Mercury sections are written.
    pub(crate) merc: Option<&'m [MercuryFunction]>,
}

impl<'m> Builder<'m> {
    fn new(m: &'m ObjectModule, arch: Arch, merc: Option<&'m [MercuryFunction]>) -> Self {
        Builder {
            m,
            arch,
            merc,
            sections: Vec::new(),
            section_index: HashMap::new(),
            symbols: Vec::new(),
            symbol_index: HashMap::new(),
        }
    }

    pub(crate) fn rel(&self) -> bool {
        relocatable(self.m)
    }

    /// The functions that get their own sections.
    pub(crate) fn functions(&self) -> impl Iterator<Item = &'m Function> {
        self.m.functions.iter()
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = &'m Function> {
        self.m.functions.iter().filter(|f| f.kind == FunctionKind::Entry)
    }

    pub(crate) fn sec(&self, name: &str) -> Option<usize> {
        self.section_index.get(name).copied()
    }

    pub(crate) fn sym(&self, name: &str) -> Result<u32> {
        // Symbol 0: relocations that patch code without a target (YIELD fix-ups).
        if name.is_empty() {
            return Ok(0);
        }
        self.symbol_index
            .get(name)
            .map(|&i| i as u32)
            .ok_or_else(|| Error::Input(format!("reference to unknown symbol {name}")))
    }

    fn add(&mut self, name: String, sh_type: u32, flags: u64, align: u64, entsize: u64, data: SectionData) {
        self.section_index.insert(name.clone(), self.sections.len());
        self.sections.push(Section {
            name,
            name_offset: 0,
            sh_type,
            flags,
            addr: 0,
            offset: 0,
            link: 0,
            info: 0,
            align,
            entsize,
            data,
        });
    }

    fn has_vars(&self, space: VariableSpace, init: bool) -> bool {
        self.m.variables.iter().any(|v| v.space == space && (space == VariableSpace::Const || v.init.is_some() == init))
    }

    fn section_size(&self, space: VariableSpace, init: bool) -> (u64, u64) {
        let vars = self
            .m
            .variables
            .iter()
            .filter(|v| v.space == space && (space == VariableSpace::Const || v.init.is_some() == init));
        vars.fold((0, 1), |(size, align), v| (size.max(v.offset + v.size), align.max(v.align)))
    }

    /// Relocation sections of function `f`'s code, in the order ptxas creates
    /// them: on sm_7x/sm_8x REL for relocations without addend, RELA with one;
    /// on sm_90+ one RELA section, kept (empty) in whole programs when the
    /// compiler resolved relocations itself.
    pub(crate) fn text_reloc_sections(&self, f: &Function) -> Vec<(String, bool)> {
        let kinds: Vec<bool> = match self.arch.relocs {
            RelocForm::Rela if !f.relocations.is_empty() || !f.resolved_relocations.is_empty() => vec![true],
            RelocForm::Rela => vec![],
            RelocForm::Rel => f.relocations.iter().map(|r| r.addend != 0).collect(),
        };
        let mut out: Vec<(String, bool)> = Vec::new();
        for rela in kinds {
            let name = format!("{}.text.{}", if rela { ".rela" } else { ".rel" }, f.name);
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, rela));
            }
        }
        out
    }

    /// Section list in ptxas's order, with types, flags and alignment; links
    /// and contents come later.
    fn plan_sections(&mut self) {
        let rel = self.rel();
        let a = self.arch;
        self.add(String::new(), sht::NULL, 0, 0, 0, SectionData::NoData(0));
        self.add(".shstrtab".into(), sht::STRTAB, 0, 1, 0, SectionData::Strings(vec![]));
        self.add(".strtab".into(), sht::STRTAB, 0, 1, 0, SectionData::Strings(vec![]));
        self.add(".symtab".into(), sht::SYMTAB, 0, 8, 24, SectionData::Symbols(vec![]));
        self.add(".debug_frame".into(), sht::PROGBITS, 0, 1, 0, SectionData::Bytes(vec![]));
        self.plan_line_sections();
        self.plan_dwarf_sections();
        self.add(".note.nv.tkinfo".into(), sht::NOTE, shf::NV_TKINFO, 4, 0, SectionData::Notes(vec![]));
        let cuinfo_flags = if a.compat { shf::NV_CUINFO | shf::INFO_LINK } else { shf::NV_CUINFO };
        self.add(".note.nv.cuinfo".into(), sht::NOTE, cuinfo_flags, 4, 0, SectionData::Notes(vec![]));
        self.add(".nv.info".into(), sht::CUDA_INFO, 0, 4, 0, SectionData::Attributes(vec![]));
        if a.compat {
            self.add(".nv.compat".into(), sht::CUDA_COMPAT, 0, 4, 0, SectionData::Attributes(vec![]));
        }
        for f in self.functions().collect::<Vec<_>>() {
            self.add(
                format!(".nv.info.{}", f.name),
                sht::CUDA_INFO,
                shf::INFO_LINK,
                4,
                0,
                SectionData::Attributes(vec![]),
            );
        }
        self.add(".nv.callgraph".into(), sht::CUDA_CALLGRAPH, 0, 4, 8, SectionData::CallGraph(vec![]));
        if !self.m.prototypes.is_empty() {
            self.add(".nv.prototype".into(), sht::CUDA_PROTOTYPE, 0, 4, 8, SectionData::CallGraph(vec![]));
        }
        if a.rel_action && !rel {
            self.add(".nv.rel.action".into(), sht::CUDA_RELOCINFO, 0, 8, 8, SectionData::Bytes(REL_ACTION.to_vec()));
        }
        // Relocation sections.
        for f in self.functions().collect::<Vec<_>>() {
            for (name, rela) in self.text_reloc_sections(f) {
                self.add_reloc_section(name, rela);
            }
        }
        // The line tables' before the data's (measured with `.nv.constant4`).
        self.plan_line_relocations();
        self.plan_dwarf_relocations();
        let table = !rel && !self.m.address_table.is_empty();
        if table {
            self.add_reloc_section(format!("{}.nv.constant4", self.reloc_prefix()), a.relocs == RelocForm::Rela);
        }
        if self.m.variables.iter().any(|v| !v.pointers.is_empty()) {
            self.add_reloc_section(format!("{}.nv.global.init", self.reloc_prefix()), a.relocs == RelocForm::Rela);
        }
        let debug_rel = a.relocs == RelocForm::Rel;
        if debug_rel {
            self.add_reloc_section(".rel.debug_frame".into(), false);
            if rel {
                self.add_reloc_section(".rela.debug_frame".into(), true);
            }
        } else {
            self.add_reloc_section(".rela.debug_frame".into(), true);
        }
        // Data.
        let rel_type = |exe: u32, r: u32| if rel { r } else { exe };
        if self.has_vars(VariableSpace::Const, true) {
            let (size, align) = self.section_size(VariableSpace::Const, true);
            let data = self.init_bytes(VariableSpace::Const, size);
            self.add(
                ".nv.constant3".into(),
                rel_type(sht::PROGBITS, sht::CUDA_CONSTANT + 3),
                shf::ALLOC,
                align,
                0,
                SectionData::Bytes(data),
            );
        }
        if table {
            let size = self.m.address_table.len() as u64 * 8;
            self.add(
                ".nv.constant4".into(),
                sht::PROGBITS,
                shf::ALLOC,
                8,
                0,
                SectionData::Bytes(vec![0; size as usize]),
            );
        }
        let sm8 = !a.compat;
        for f in self.functions().collect::<Vec<_>>() {
            if let Some(bank) = &f.bank2 {
                self.add(
                    format!(".nv.constant2.{}", f.name),
                    rel_type(sht::PROGBITS, sht::CUDA_CONSTANT + 2),
                    shf::ALLOC | shf::INFO_LINK,
                    bank.align,
                    0,
                    SectionData::Bytes(bank.bytes.clone()),
                );
            }
        }
        let const0 = |b: &mut Self| {
            for f in b.entries().collect::<Vec<_>>() {
                let size = u64::from(a.param_base())
                    + f.params.iter().map(|p| u64::from(p.offset + p.size)).max().unwrap_or(0);
                b.add(
                    format!(".nv.constant0.{}", f.name),
                    rel_type(sht::PROGBITS, sht::CUDA_CONSTANT),
                    shf::ALLOC | shf::INFO_LINK,
                    4,
                    0,
                    SectionData::Bytes(vec![0; size as usize]),
                );
            }
        };
        if sm8 {
            const0(self);
        }
        for f in self.functions().collect::<Vec<_>>() {
            self.add(
                format!(".text.{}", f.name),
                sht::PROGBITS,
                shf::ALLOC | shf::EXECINSTR,
                128,
                0,
                SectionData::Bytes(f.code.clone()),
            );
        }
        if self.has_vars(VariableSpace::Global, true) {
            let (size, align) = self.section_size(VariableSpace::Global, true);
            let data = self.init_bytes(VariableSpace::Global, size);
            self.add(
                ".nv.global.init".into(),
                rel_type(sht::PROGBITS, sht::CUDA_GLOBAL_INIT),
                shf::ALLOC | shf::WRITE,
                align,
                0,
                SectionData::Bytes(data),
            );
        }
        // No-data sections: the first function's shared memory, the reserved
        // area, .nv.global, then the other functions' shared memory.
        let shared = |b: &mut Self, f: &Function| {
            if f.shared.size > 0 || (f.shared.uses_extern && !rel) {
                b.add(
                    format!(".nv.shared.{}", f.name),
                    rel_type(sht::NOBITS, sht::CUDA_SHARED),
                    shf::ALLOC | shf::WRITE | shf::INFO_LINK,
                    f.shared.align.max(1),
                    0,
                    SectionData::NoData(f.shared.size),
                );
            }
        };
        let funcs: Vec<&Function> = self.functions().collect();
        let mut rest = funcs.iter();
        if let Some(first) = rest.next() {
            shared(self, first);
        }
        if let (Some((size, align)), false) = (a.reserved_smem, rel) {
            let flags = shf::ALLOC | shf::WRITE;
            self.add(".nv.shared.reserved.0".into(), sht::NOBITS, flags, align, 0, SectionData::NoData(size));
        }
        self.add_global();
        for f in rest {
            shared(self, f);
        }
        if !sm8 {
            const0(self);
        }
    }

    fn add_global(&mut self) {
        if self.has_vars(VariableSpace::Global, false) {
            let (size, align) = self.section_size(VariableSpace::Global, false);
            let t = if self.rel() { sht::CUDA_GLOBAL } else { sht::NOBITS };
            self.add(".nv.global".into(), t, shf::ALLOC | shf::WRITE, align, 0, SectionData::NoData(size));
        }
    }

    fn reloc_prefix(&self) -> &'static str {
        match self.arch.relocs {
            RelocForm::Rel => ".rel",
            RelocForm::Rela => ".rela",
        }
    }

    fn add_reloc_section(&mut self, name: String, rela: bool) {
        if self.sec(&name).is_some() {
            return;
        }
        let (t, e, d) =
            if rela { (sht::RELA, 24, SectionData::Rela(vec![])) } else { (sht::REL, 16, SectionData::Rel(vec![])) };
        self.add(name, t, shf::INFO_LINK, 8, e, d);
    }

    fn init_bytes(&self, space: VariableSpace, size: u64) -> Vec<u8> {
        let mut out = vec![0u8; size as usize];
        for v in self.m.variables.iter().filter(|v| v.space == space) {
            if let Some(init) = &v.init {
                let at = v.offset as usize;
                let end = (at + init.len()).min(out.len());
                out[at..end].copy_from_slice(&init[..end - at]);
            }
        }
        out
    }

    /// Contents that need section and symbol indices.
    fn fill(&mut self) -> Result<()> {
        let a = self.arch;
        let rel = self.rel();
        let symtab = self.sec(".symtab").unwrap_or(0) as u32;
        // Links and infos.
        let names: Vec<String> = self.sections.iter().map(|s| s.name.clone()).collect();
        for (i, name) in names.iter().enumerate() {
            let text_of = |prefix: &str| name.strip_prefix(prefix).and_then(|f| self.sec(&format!(".text.{f}")));
            let (link, info) = if name == ".symtab" {
                (self.sec(".strtab").unwrap_or(0) as u32, 0)
            } else if name == ".note.nv.cuinfo" {
                (self.sec(".note.nv.tkinfo").unwrap_or(0) as u32, self.sec(".nv.compat").map_or(0, |c| c as u32))
            } else if name == ".nv.info" || name == ".nv.callgraph" || name == ".nv.prototype" {
                (symtab, 0)
            } else if let Some(t) = text_of(".nv.info.") {
                (symtab, t as u32)
            } else if let Some(t) =
                text_of(".nv.constant0.").or_else(|| text_of(".nv.constant2.")).or_else(|| text_of(".nv.shared."))
            {
                (0, t as u32)
            } else if let Some(target) = name.strip_prefix(".rela").or_else(|| name.strip_prefix(".rel")) {
                (symtab, self.sec(target).unwrap_or(0) as u32)
            } else if let Some(f) = name.strip_prefix(".text.") {
                let sym = self.sym(f)?;
                let regs = self.m.functions.iter().find(|g| g.name == f).map_or(0, |g| g.registers);
                let info = if a.regs_in_text_info { (regs << 24) | sym } else { sym };
                (symtab, info)
            } else {
                (0, 0)
            };
            self.sections[i].link = link;
            self.sections[i].info = info;
        }
        // Notes.
        let tk = TkInfo {
            version: 2,
            tool: "ptxas".into(),
            tool_version: TOOL_VERSION.into(),
            branch: TOOL_BRANCH.into(),
            command_line: self.m.command_line.clone(),
        };
        self.set(".note.nv.tkinfo", SectionData::Notes(vec![Note::nvidia(NT_TOOLKIT_INFO, tk.encode())]));
        let ptx_target =
            u16::try_from(self.m.ptx_target).map_err(|_| Error::Input("PTX target out of range".into()))?;
        let cu = CuInfo { version: 2, virtual_sm: ptx_target, toolkit: TOOLKIT_VERSION, reserved: 0 };
        self.set(".note.nv.cuinfo", SectionData::Notes(vec![Note::nvidia(NT_CUDA_INFO, cu.encode())]));
        // Attributes.
        let global = info::module_records(self, &self.m.functions)?;
        self.set(".nv.info", SectionData::Attributes(global));
        if a.compat {
            self.set(".nv.compat", SectionData::Attributes(info::compat_records(self)));
        }
        for f in self.functions().collect::<Vec<_>>() {
            let recs = info::function_records(self, f)?;
            self.set(&format!(".nv.info.{}", f.name), SectionData::Attributes(recs));
        }
        // Relocations.
        for f in self.functions().collect::<Vec<_>>() {
            for r in f.relocations.iter().rev() {
                let sym = self.sym(&r.symbol)?;
                let rela = a.relocs == RelocForm::Rela || r.addend != 0;
                let name = format!("{}.text.{}", if rela { ".rela" } else { ".rel" }, f.name);
                self.push_reloc(&name, r.offset, sym, r.kind, r.addend)?;
            }
        }
        if !rel && !self.m.address_table.is_empty() {
            let name = format!("{}.nv.constant4", self.reloc_prefix());
            for (slot, var) in self.m.address_table.iter().enumerate().rev() {
                let sym = self.sym(var)?;
                self.push_reloc(&name, slot as u64 * 8, sym, crate::reloc::r_cuda::R_64, 0)?;
            }
        }
        let mut inits = Vec::new();
        for v in &self.m.variables {
            for p in &v.pointers {
                inits.push((v.offset + p.offset, p.target.clone(), p.addend));
            }
        }
        if !inits.is_empty() {
            let name = format!("{}.nv.global.init", self.reloc_prefix());
            for (offset, target, addend) in inits.into_iter().rev() {
                let sym = self.sym(&target)?;
                self.push_reloc(&name, offset, sym, crate::reloc::r_cuda::G64, addend)?;
            }
        }
        self.fill_lines()?;
        self.fill_dwarf()?;
        frame::fill(self)?;
        self.fill_mercury()?;
        Ok(())
    }

    pub(crate) fn push_reloc(&mut self, section: &str, offset: u64, sym: u32, kind: u32, addend: i64) -> Result<()> {
        let i = self.sec(section).ok_or_else(|| Error::Input(format!("no relocation section {section}")))?;
        match &mut self.sections[i].data {
            SectionData::Rel(v) => v.push(Rel { offset, sym, kind }),
            SectionData::Rela(v) => v.push(Rela { offset, sym, kind, addend }),
            _ => return Err(Error::Input(format!("{section} is not a relocation section"))),
        }
        Ok(())
    }

    pub(crate) fn set(&mut self, name: &str, data: SectionData) {
        if let Some(i) = self.sec(name) {
            self.sections[i].data = data;
        }
    }

    /// `.nv.callgraph`: four groups, each opened by its sentinel: direct
    /// calls, address-taken functions with their signature, indirect call
    /// sites with theirs, functions each caller takes the address of.
    /// Signatures are `.strtab` offsets, filled in by [`Self::finish`].
    fn call_graph(&self, strtab: &[u8]) -> Result<Vec<CallEdge>> {
        let table = crate::strtab::StringTable::from_bytes(strtab);
        let signature = |s: &str| table.find(s).unwrap_or(0);
        let mut out = vec![CallEdge { caller: 0, callee: SENTINELS[0] }];
        for f in &self.m.functions {
            for c in &f.callees {
                out.push(CallEdge { caller: self.sym(&f.name)?, callee: self.sym(c)? });
            }
        }
        out.push(CallEdge { caller: 0, callee: SENTINELS[1] });
        for p in &self.m.address_taken {
            out.push(CallEdge { caller: self.sym(&p.function)?, callee: signature(&p.signature) });
        }
        out.push(CallEdge { caller: 0, callee: SENTINELS[2] });
        for f in &self.m.functions {
            for s in &f.indirect_calls {
                out.push(CallEdge { caller: self.sym(&f.name)?, callee: signature(s) });
            }
        }
        out.push(CallEdge { caller: 0, callee: SENTINELS[3] });
        for f in &self.m.functions {
            for c in &f.address_taken {
                out.push(CallEdge { caller: self.sym(&f.name)?, callee: self.sym(c)? });
            }
        }
        Ok(out)
    }

    fn finish(mut self) -> Result<Cubin> {
        let symbols = std::mem::take(&mut self.symbols);
        let last_local = symbols.iter().rposition(|s| s.bind() == crate::symbol::bind::LOCAL).unwrap_or(0);
        if let Some(i) = self.sec(".symtab") {
            self.sections[i].info = last_local as u32 + 1;
        }
        let (shstrtab, strtab, symbols) = names::tables(&self, symbols);
        self.set(".shstrtab", SectionData::Strings(shstrtab.bytes));
        for (s, off) in self.sections.iter_mut().zip(shstrtab.offsets) {
            s.name_offset = off;
        }
        // `.nv.prototype`: (function symbol, offset of its signature in `.strtab`).
        let mut protos = Vec::new();
        for p in &self.m.prototypes {
            let sym = self.sym(&p.function)?;
            let at = crate::strtab::StringTable::from_bytes(&strtab).find(&p.signature).unwrap_or(0);
            protos.push(CallEdge { caller: sym, callee: at });
        }
        if !protos.is_empty() {
            let bytes =
                protos.iter().flat_map(|e| [e.caller.to_le_bytes(), e.callee.to_le_bytes()]).flatten().collect();
            self.set(".nv.prototype", SectionData::Bytes(bytes));
        }
        let graph = self.call_graph(&strtab)?;
        self.set(".nv.callgraph", SectionData::CallGraph(graph));
        self.finish_mercury(&symbols, &strtab)?;
        self.set(".strtab", SectionData::Strings(strtab));
        self.set(".symtab", SectionData::Symbols(symbols));
        let e_type = if self.rel() { ET_REL } else { ET_EXEC };
        let header = Header {
            ident: Header::cuda_ident(),
            e_type,
            machine: crate::header::EM_CUDA,
            version: 1,
            entry: 0,
            phoff: 0,
            shoff: 0,
            flags: self.arch.eflags(match &self.m.line_info {
                _ if self.m.dwarf.iter().any(|s| s.name == ".debug_loc") => crate::arch::DEBUG_FULL_LOC,
                _ if !self.m.dwarf.is_empty() => crate::arch::DEBUG_FULL,
                None => crate::arch::DEBUG_PLAIN,
                Some(i) if i.debug_str.is_some() => crate::arch::DEBUG_LINES_STRINGS,
                Some(_) => crate::arch::DEBUG_LINES,
            }),
            ehsize: EHDR_SIZE as u16,
            // sm_7x/sm_8x record the program-header size even without program headers.
            phentsize: if e_type == ET_EXEC || !self.arch.compat { PHDR_SIZE as u16 } else { 0 },
            shentsize: SHDR_SIZE as u16,
            shstrndx: 1,
        };
        let mut cubin = Cubin { header, sections: self.sections, program_headers: vec![] };
        crate::layout::assign(&mut cubin, self.arch.segments)?;
        Ok(cubin)
    }
}

/// The fixed content of `.nv.rel.action` (sm_7x/sm_8x whole program): two
/// 8-byte "actions" cuobjdump lists as R_CUDA_API_VERSION etc.
const REL_ACTION: [u8; 16] = [0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0x00, 0x05, 0x36];
