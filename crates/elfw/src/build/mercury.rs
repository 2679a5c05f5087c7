//! The Mercury sections of sm_100+ cubins.
//!
//! ptxas compiles sm_100+ code to Mercury, an intermediate form the driver
//! finalizes, and ships it next to the finalized code: `.nv.capmerc.text.<fn>`
//! holds each function's Mercury code (compressed), and `.nv.merc.*` repeats
//! the symbol table, `.nv.info*`, call graph, relocations and `.debug_frame`
//! for it. Those repeats describe the Mercury code, not the final one: other
//! instruction offsets and sizes, other frame sizes, other relocations. That
//! part is [`MercuryFunction`], the compiler's input; everything else here
//! is derived from the module and the finalized build (measured on the
//! corpus for sm_100 and sm_120, both modes):
//!
//! * sections follow `.nv.constant0.<fn>` in the order `.nv.merc.symtab`,
//!   `.nv.merc.debug_frame`, `.nv.merc.nv.info`, `.nv.merc.nv.info.<fn>`...,
//!   `.nv.merc.nv.callgraph`, [`.nv.merc.nv.prototype`],
//!   `.nv.merc.rela.text.<fn>`... (functions with Mercury relocations),
//!   [`.nv.merc.rela.nv.constant.pic`], [`.nv.merc.rela.nv.global.init`],
//!   `.nv.merc.rela.debug_frame`, [`.nv.merc.nv.constant.user`] (bank 3),
//!   [`.nv.merc.nv.constant.pic`] (bank 4), `.nv.capmerc.text.<fn>`...,
//!   [`.nv.merc.nv.global.init`], [`.nv.merc.nv.shared.reserved.0`] (empty but on sm_110);
//!   the data copies share their twin's file bytes (`layout::assign`);
//! * `.nv.merc.symtab` is `.symtab` without the `.nv.constant0.<fn>` section
//!   symbols, pointing at the Mercury twins, banks 3/4 renamed
//!   `.nv.constant.user`/`.nv.constant.pic` (names appended to `.strtab`),
//!   variables typed as `-c` output types them, reserved-smem values 0,
//!   function sizes and clone offsets of the Mercury code;
//! * `.nv.merc.nv.info.<fn>` has the `.nv.info.<fn>` records but the
//!   parameter bank and workaround ones, with Mercury offsets, plus the
//!   Mercury digest (EIATTR 0x5a) after EIATTR_CUDA_API_VERSION;
//! * `.nv.merc.debug_frame` is `.debug_frame` for the Mercury code with code
//!   alignment 1; relocations use Mercury types (0x1_0000 + n, [`r_merc`]).

use super::Builder;
use super::frame;
use super::info;
use crate::error::{Error, Result};
use crate::nvinfo::{Attribute, Value, code};
use crate::reloc::{Rela, r_cuda};
use crate::section::{SectionData, shf, sht};
use crate::symbol::{Symbol, bind, stt};
use ori_ir::object::{CodeNotes, CodeRelocation, FrameInfo, Function, Subroutine};

/// The Mercury form of one compiled function (sm_100+), in the order of
/// [`ori_ir::object::ObjectModule::functions`]. Offsets are in the Mercury
/// code, which is laid out differently from the finalized code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MercuryFunction {
    /// `.nv.capmerc.text.<fn>`: the compressed Mercury code.
    pub capmerc: Vec<u8>,
    /// Bytes of the Mercury code (the function symbol's size in `.nv.merc.symtab`).
    pub code_size: u64,
    /// EIATTR 0x5a payload of `.nv.merc.nv.info.<fn>` (32 bytes in every
    /// corpus cubin, the same for every kernel: it encodes the compile
    /// options, `docs/capmerc.md`).
    pub digest: Vec<u8>,
    /// EIATTR_FRAME_SIZE of the Mercury code.
    pub frame_size: u32,
    /// EIATTR_MIN_STACK_SIZE / EIATTR_MAX_STACK_SIZE of the Mercury code.
    pub stack_size: u32,
    /// Offsets of every EXIT.
    pub exit_offsets: Vec<u32>,
    /// Instruction offsets, flags and spill annotations recorded in
    /// `.nv.merc.nv.info.<fn>`.
    pub notes: CodeNotes,
    /// Relocations of the Mercury code (`.nv.merc.rela.text.<fn>`), Mercury
    /// types, in code order.
    pub relocations: Vec<CodeRelocation>,
    /// Cloned callees in the Mercury code (whole program), same names as
    /// [`Function::subroutines`].
    pub subroutines: Vec<Subroutine>,
    /// Call-frame information of the Mercury code (code alignment 1).
    pub frame: FrameInfo,
}

/// Mercury relocation types ptxas uses outside the code.
pub mod r_merc {
    /// 64-bit global address in an initialiser (`R_CUDA_G64`'s counterpart).
    pub const G64: u32 = 0x1_0001;
    /// 64-bit address (`R_CUDA_64`'s counterpart in data and for the CIE pointer).
    pub const R_64: u32 = 0x1_0002;
    /// Cleared 64-bit `.debug_frame` field (`R_CUDA_UNUSED_CLEAR64`'s counterpart).
    pub const UNUSED_CLEAR64: u32 = 0x1_000e;
    /// A code address in `.debug_frame` (FDE location, CIE code addresses).
    pub const CODE_64: u32 = 0x1_003d;
}

/// EIATTR carrying the Mercury digest.
const MERCURY_DIGEST: u8 = 0x5a;

/// Mercury twins of finalized sections: symbols in a finalized section point
/// at its twin in `.nv.merc.symtab`.
const TWINS: &[(&str, &str)] = &[
    (".debug_frame", ".nv.merc.debug_frame"),
    (".nv.callgraph", ".nv.merc.nv.callgraph"),
    (".nv.prototype", ".nv.merc.nv.prototype"),
    (".nv.constant3", ".nv.merc.nv.constant.user"),
    (".nv.constant4", ".nv.merc.nv.constant.pic"),
    (".nv.global.init", ".nv.merc.nv.global.init"),
    (".nv.shared.reserved.0", ".nv.merc.nv.shared.reserved.0"),
];

/// Section symbols renamed in `.nv.merc.symtab`.
pub(super) const RENAMED: &[(&str, &str)] =
    &[(".nv.constant3", ".nv.constant.user"), (".nv.constant4", ".nv.constant.pic")];

/// Reserved shared-memory symbols whose value is 0 in `.nv.merc.symtab`.
const RESERVED_SMEM: &[&str] =
    &[".nv.reservedSmem.offset0", ".nv.reservedSmem.cap", "__nv_reservedSMEM_offset_0_alias"];

/// Records of `.nv.info.<fn>` not repeated for Mercury (the finalized
/// code's parameter bank and workarounds).
const FINALIZED_ONLY: &[u8] =
    &[code::CBANK_PARAM_SIZE, code::PARAM_CBANK, code::SW_WAR, code::NVSAL_SW_WAR, code::PREEXIT_USED];

/// The Mercury twin of finalized section `name`, if it has one.
fn merc_name(name: &str) -> Option<String> {
    match name.strip_prefix(".text.") {
        Some(f) => Some(format!(".nv.capmerc.text.{f}")),
        None => TWINS.iter().find(|t| t.0 == name).map(|t| t.1.to_string()),
    }
}

impl<'m> Builder<'m> {
    /// The Mercury form of function `i`, if Mercury sections are written.
    pub(super) fn merc_fn(&self, i: usize) -> Option<&'m MercuryFunction> {
        self.merc.and_then(|m| m.get(i))
    }

    /// Function `i` as its Mercury code sees it.
    fn merc_view(&self, i: usize, m: &MercuryFunction) -> Function {
        let f = &self.m.functions[i];
        Function {
            name: f.name.clone(),
            kind: f.kind,
            linkage: f.linkage,
            builtin: f.builtin,
            registers: f.registers,
            barriers: f.barriers,
            frame_size: m.frame_size,
            stack_size: m.stack_size,
            crs_stack_size: f.crs_stack_size,
            params: f.params.clone(),
            exit_offsets: m.exit_offsets.clone(),
            launch: f.launch,
            notes: m.notes.clone(),
            relocations: m.relocations.clone(),
            subroutines: m.subroutines.clone(),
            frame: m.frame.clone(),
            callees: f.callees.clone(),
            ..Function::default()
        }
    }

    /// Adds the Mercury sections after the finalized ones.
    pub(super) fn plan_mercury(&mut self) {
        if self.merc.is_none() {
            return;
        }
        let merc = shf::NV_MERCURY;
        self.add(".nv.merc.symtab".into(), sht::CUDA_MERC_SYMTAB, merc, 8, 24, SectionData::Symbols(vec![]));
        self.add(".nv.merc.debug_frame".into(), sht::PROGBITS, merc, 1, 0, SectionData::Bytes(vec![]));
        self.add(".nv.merc.nv.info".into(), sht::CUDA_MERC_INFO, merc, 4, 0, SectionData::Attributes(vec![]));
        let names: Vec<String> = self.m.functions.iter().map(|f| f.name.clone()).collect();
        for f in &names {
            let flags = merc | shf::INFO_LINK;
            self.add(
                format!(".nv.merc.nv.info.{f}"),
                sht::CUDA_MERC_INFO,
                flags,
                4,
                0,
                SectionData::Attributes(vec![]),
            );
        }
        let graph = SectionData::CallGraph(vec![]);
        self.add(".nv.merc.nv.callgraph".into(), sht::CUDA_MERC_CALLGRAPH, merc, 4, 8, graph);
        if self.sec(".nv.prototype").is_some() {
            let protos = SectionData::Bytes(vec![]);
            self.add(".nv.merc.nv.prototype".into(), sht::CUDA_MERC_PROTOTYPE, merc, 4, 8, protos);
        }
        let rela = |b: &mut Self, name: String| {
            b.add(name, sht::CUDA_MERC_RELA, merc | shf::INFO_LINK, 8, 24, SectionData::Rela(vec![]));
        };
        for (i, f) in names.iter().enumerate() {
            if self.merc_fn(i).is_some_and(|m| !m.relocations.is_empty()) {
                rela(self, format!(".nv.merc.rela.text.{f}"));
            }
        }
        for (twin, name) in [(".rela.nv.constant4", ".nv.merc.rela.nv.constant.pic"), (".rela.nv.global.init", "")] {
            if self.sec(twin).is_some() {
                let name = if name.is_empty() { format!(".nv.merc{twin}") } else { name.to_string() };
                rela(self, name);
            }
        }
        rela(self, ".nv.merc.rela.debug_frame".into());
        for (finalized, sh_type) in
            [(".nv.constant3", sht::CUDA_MERC_CONSTANT_USER), (".nv.constant4", sht::CUDA_MERC_CONSTANT_PIC)]
        {
            if let Some(i) = self.sec(finalized) {
                let (align, data) = (self.sections[i].align, self.sections[i].data.clone());
                let name = format!(
                    ".nv.merc.nv.constant.{}",
                    if sh_type == sht::CUDA_MERC_CONSTANT_USER { "user" } else { "pic" }
                );
                self.add(name, sh_type, merc | shf::ALLOC, align, 0, data);
            }
        }
        for (i, f) in names.iter().enumerate() {
            let code = self.merc_fn(i).map(|m| m.capmerc.clone()).unwrap_or_default();
            self.add(format!(".nv.capmerc.text.{f}"), sht::CUDA_CAPMERC_TEXT, merc, 16, 0, SectionData::Bytes(code));
        }
        if let Some(i) = self.sec(".nv.global.init") {
            let (align, data) = (self.sections[i].align, self.sections[i].data.clone());
            let flags = merc | shf::ALLOC | shf::WRITE;
            self.add(".nv.merc.nv.global.init".into(), sht::CUDA_GLOBAL_INIT, flags, align, 0, data);
        }
        if let Some(i) = self.sec(".nv.shared.reserved.0") {
            let flags = merc | shf::ALLOC | shf::WRITE;
            let (name, align) = (".nv.merc.nv.shared.reserved.0".to_string(), self.sections[i].align);
            let size = SectionData::NoData(self.arch.merc_reserved_smem);
            self.add(name, sht::CUDA_MERC_NOBITS, flags, align, 0, size);
        }
    }

    /// Links, infos and the contents that need symbol indices.
    pub(super) fn fill_mercury(&mut self) -> Result<()> {
        let Some(symtab) = self.sec(".nv.merc.symtab") else { return Ok(()) };
        let symtab = symtab as u32;
        for i in 0..self.sections.len() {
            let name = self.sections[i].name.clone();
            let index = |n: &str| self.sec(n).unwrap_or(0) as u32;
            let (link, info) = if name == ".nv.merc.symtab" {
                (index(".strtab"), 0)
            } else if let Some(f) = name.strip_prefix(".nv.merc.nv.info.") {
                (symtab, index(&format!(".nv.capmerc.text.{f}")))
            } else if let Some(f) = name.strip_prefix(".nv.merc.rela.text.") {
                (symtab, index(&format!(".nv.capmerc.text.{f}")))
            } else if let Some(target) = name.strip_prefix(".nv.merc.rela") {
                (symtab, index(&format!(".nv.merc{target}")))
            } else if let Some(f) = name.strip_prefix(".nv.capmerc.text.") {
                (symtab, self.sym(f)?)
            } else if [".nv.merc.nv.info", ".nv.merc.nv.callgraph", ".nv.merc.nv.prototype"].contains(&name.as_str()) {
                (symtab, 0)
            } else {
                continue;
            };
            self.sections[i].link = link;
            self.sections[i].info = info;
        }
        let views: Vec<Function> = (0..self.m.functions.len())
            .map(|i| {
                let m = self.merc_fn(i).ok_or_else(|| {
                    Error::Input(format!("no Mercury form for function {}", self.m.functions[i].name))
                })?;
                Ok(self.merc_view(i, m))
            })
            .collect::<Result<_>>()?;
        self.set(".nv.merc.nv.info", SectionData::Attributes(info::module_records(self, &views)?));
        for (i, view) in views.iter().enumerate() {
            let mut recs = Vec::new();
            for r in info::function_records(self, view)? {
                if FINALIZED_ONLY.contains(&r.code) {
                    continue;
                }
                let api = r.code == code::CUDA_API_VERSION;
                recs.push(r);
                if api {
                    let digest = self.merc_fn(i).map(|m| m.digest.clone()).unwrap_or_default();
                    recs.push(Attribute { code: MERCURY_DIGEST, value: Value::Block(digest) });
                }
            }
            self.set(&format!(".nv.merc.nv.info.{}", view.name), SectionData::Attributes(recs));
        }
        for view in &views {
            let name = format!(".nv.merc.rela.text.{}", view.name);
            for r in view.relocations.iter().rev() {
                let sym = self.sym(&r.symbol)?;
                self.push_reloc(&name, r.offset, sym, r.kind, r.addend)?;
            }
        }
        // Data relocations repeat the finalized ones with Mercury types.
        for (from, to) in [(".rela.nv.constant4", ".nv.merc.rela.nv.constant.pic"), (".rela.nv.global.init", "")] {
            let Some(i) = self.sec(from) else { continue };
            let to = if to.is_empty() { format!(".nv.merc{from}") } else { to.to_string() };
            if let SectionData::Rela(list) = self.sections[i].data.clone() {
                for r in list {
                    let kind = if r.kind == r_cuda::G64 { r_merc::G64 } else { r_merc::R_64 };
                    self.push_reloc(&to, r.offset, r.sym, kind, r.addend)?;
                }
            }
        }
        let sized: Vec<(&Function, u64)> =
            views.iter().enumerate().map(|(i, v)| (v, self.merc_fn(i).map_or(0, |m| m.code_size))).collect();
        let (bytes, fixups) = frame::entries(self, &sized, 1, false);
        self.set(".nv.merc.debug_frame", SectionData::Bytes(bytes));
        for x in fixups.into_iter().rev() {
            let kind = match x.kind {
                r_cuda::UNUSED_CLEAR64 => r_merc::UNUSED_CLEAR64,
                _ if x.symbol == ".debug_frame" => r_merc::R_64,
                _ => r_merc::CODE_64,
            };
            let sym = self.sym(&x.symbol)?;
            self.push_reloc(".nv.merc.rela.debug_frame", x.offset, sym, kind, x.addend)?;
        }
        Ok(())
    }

    /// `.nv.merc.symtab` from the finished `.symtab`, and the Mercury copies
    /// of the call graph and prototypes. Returns the symbols.
    pub(super) fn finish_mercury(&mut self, symbols: &[Symbol], strtab: &[u8]) -> Result<()> {
        let Some(at) = self.sec(".nv.merc.symtab") else { return Ok(()) };
        let table = crate::strtab::StringTable::from_bytes(strtab);
        let section_name = |i: u16| self.sections.get(usize::from(i)).map_or("", |s| s.name.as_str());
        let mut kept: Vec<Option<u32>> = Vec::with_capacity(symbols.len());
        let mut out: Vec<Symbol> = Vec::new();
        for s in symbols {
            let home = section_name(s.shndx).to_string();
            if s.kind() == stt::SECTION && home.starts_with(".nv.constant0.") {
                kept.push(None);
                continue;
            }
            kept.push(Some(out.len() as u32));
            let mut m = s.clone();
            if let Some(twin) = merc_name(&home).and_then(|n| self.sec(&n)) {
                m.shndx = twin as u16;
            }
            let renamed = RENAMED.iter().find(|r| r.0 == s.name).filter(|_| m.kind() == stt::SECTION);
            if let Some((_, to)) = renamed {
                m.name = to.to_string();
                m.name_offset = table.find(to).ok_or_else(|| Error::Input(format!("{to} not in .strtab")))?;
            }
            if m.kind() == stt::OBJECT {
                let other = match home.as_str() {
                    ".nv.constant3" => Some(0x80),
                    ".nv.global" | ".nv.global.init" => Some(0x20),
                    _ => None,
                };
                if let Some(other) = other {
                    m.info = (m.bind() << 4) | stt::CUDA_OBJECT;
                    m.other = other;
                }
            }
            if RESERVED_SMEM.contains(&s.name.as_str()) {
                m.value = 0;
            }
            if m.kind() == stt::FUNC {
                self.merc_function_symbol(&mut m, &home);
            }
            out.push(m);
        }
        let last_local = out.iter().rposition(|s| s.bind() == bind::LOCAL).unwrap_or(0);
        self.sections[at].info = last_local as u32 + 1;
        self.sections[at].data = SectionData::Symbols(out);
        let remap = |sym: u32| kept.get(sym as usize).copied().flatten().unwrap_or(0);
        for s in &mut self.sections {
            if let (true, SectionData::Rela(list)) = (s.flags & shf::NV_MERCURY != 0, &mut s.data) {
                for r in list.iter_mut() {
                    *r = Rela { sym: remap(r.sym), ..*r };
                }
            }
        }
        if let Some(i) = self.sec(".nv.callgraph") {
            let graph = self.sections[i].data.clone();
            self.set(".nv.merc.nv.callgraph", graph);
        }
        if let Some(i) = self.sec(".nv.prototype") {
            let protos = self.sections[i].data.clone();
            self.set(".nv.merc.nv.prototype", protos);
        }
        Ok(())
    }

    /// Size (and, for a cloned callee, offset) of a function symbol in the
    /// Mercury code.
    fn merc_function_symbol(&self, m: &mut Symbol, home: &str) {
        let Some(owner) = home.strip_prefix(".text.") else { return };
        let Some(i) = self.m.functions.iter().position(|f| f.name == owner) else { return };
        let Some(merc) = self.merc_fn(i) else { return };
        if m.name == owner {
            m.size = merc.code_size;
        } else if let Some(s) = merc.subroutines.iter().find(|s| s.name == m.name) {
            m.value = s.offset;
            m.size = s.size;
        }
    }
}
