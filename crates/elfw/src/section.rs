//! Sections: the header fields, what kind of content each type holds, and that content.

use crate::callgraph::CallEdge;
use crate::notes::Note;
use crate::nvinfo::Attribute;
use crate::reloc::{Rel, Rela};
use crate::symbol::Symbol;

/// Section header types found in cubins (standard ELF and NVIDIA's `SHT_LOPROC + n`).
pub mod sht {
    /// Unused entry (index 0).
    pub const NULL: u32 = 0;
    /// Code, constant banks, initialised globals, debug data.
    pub const PROGBITS: u32 = 1;
    /// `.symtab`.
    pub const SYMTAB: u32 = 2;
    /// `.shstrtab`, `.strtab`.
    pub const STRTAB: u32 = 3;
    /// Relocations with addends (sm_90+, and some `-c` output of sm_8x).
    pub const RELA: u32 = 4;
    /// `.note.nv.*`.
    pub const NOTE: u32 = 7;
    /// Zero-initialised memory with no file bytes (`.nv.shared.*`, `.nv.global`).
    pub const NOBITS: u32 = 8;
    /// Relocations without addends (sm_7x/sm_8x).
    pub const REL: u32 = 9;
    /// `.nv.info`, `.nv.info.<fn>`.
    pub const CUDA_INFO: u32 = 0x7000_0000;
    /// `.nv.callgraph`.
    pub const CUDA_CALLGRAPH: u32 = 0x7000_0001;
    /// `.nv.prototype` (call prototypes of indirect calls, `-c`).
    pub const CUDA_PROTOTYPE: u32 = 0x7000_0002;
    /// `.nv.global` in relocatable output (no file bytes).
    pub const CUDA_GLOBAL: u32 = 0x7000_0007;
    /// `.nv.global.init` in relocatable output.
    pub const CUDA_GLOBAL_INIT: u32 = 0x7000_0008;
    /// `.nv.shared.<fn>` in relocatable output (no file bytes).
    pub const CUDA_SHARED: u32 = 0x7000_000a;
    /// `.nv.rel.action` (sm_7x/sm_8x).
    pub const CUDA_RELOCINFO: u32 = 0x7000_000b;
    /// Mercury copy of a no-bits section (sm_100+).
    pub const CUDA_MERC_NOBITS: u32 = 0x7000_0015;
    /// `.nv.capmerc.text.<fn>` (sm_100+).
    pub const CUDA_CAPMERC_TEXT: u32 = 0x7000_0016;
    /// `.nv.constant<N>` in relocatable output is `CUDA_CONSTANT + N`.
    pub const CUDA_CONSTANT: u32 = 0x7000_0064;
    /// `.nv.merc.nv.constant.user` (sm_100+).
    pub const CUDA_MERC_CONSTANT_USER: u32 = 0x7000_007c;
    /// `.nv.merc.nv.constant.pic` (sm_100+).
    pub const CUDA_MERC_CONSTANT_PIC: u32 = 0x7000_007d;
    /// `.nv.merc.rela*` (sm_100+).
    pub const CUDA_MERC_RELA: u32 = 0x7000_0082;
    /// `.nv.merc.nv.info*` (sm_100+).
    pub const CUDA_MERC_INFO: u32 = 0x7000_0083;
    /// `.nv.merc.symtab` (sm_100+).
    pub const CUDA_MERC_SYMTAB: u32 = 0x7000_0085;
    /// `.nv.compat` (sm_90+).
    pub const CUDA_COMPAT: u32 = 0x7000_0086;
    /// `.nv.merc.nv.callgraph` (sm_100+).
    pub const CUDA_MERC_CALLGRAPH: u32 = 0x7000_008a;
    /// `.nv.merc.nv.prototype` (sm_100+).
    pub const CUDA_MERC_PROTOTYPE: u32 = 0x7000_008b;
}

/// Section flags found in cubins.
pub mod shf {
    /// Writable.
    pub const WRITE: u64 = 0x1;
    /// Occupies memory at run time.
    pub const ALLOC: u64 = 0x2;
    /// Executable.
    pub const EXECINSTR: u64 = 0x4;
    /// `sh_info` holds a section index.
    pub const INFO_LINK: u64 = 0x40;
    /// On `.note.nv.cuinfo`.
    pub const NV_CUINFO: u64 = 0x0100_0000;
    /// On `.note.nv.tkinfo`.
    pub const NV_TKINFO: u64 = 0x0200_0000;
    /// On every Mercury (`.nv.merc.*`, `.nv.capmerc.*`) section.
    pub const NV_MERCURY: u64 = 0x1000_0000;
}

/// How the bytes of a section type are decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No file bytes (NULL, NOBITS and NVIDIA's no-bits types); only a size.
    NoData,
    /// A string table.
    Strings,
    /// 24-byte ELF64 symbols.
    Symbols,
    /// 16-byte relocations.
    Rel,
    /// 24-byte relocations with addend.
    Rela,
    /// ELF notes.
    Notes,
    /// `.nv.info`-format attribute records.
    Attributes,
    /// Pairs of u32 (`.nv.callgraph`).
    CallGraph,
    /// Anything else: kept as bytes.
    Bytes,
}

impl Kind {
    /// The decoding used for section type `sh_type`.
    pub fn of(sh_type: u32) -> Kind {
        match sh_type {
            sht::NULL | sht::NOBITS | sht::CUDA_GLOBAL | sht::CUDA_SHARED | sht::CUDA_MERC_NOBITS => Kind::NoData,
            sht::STRTAB => Kind::Strings,
            sht::SYMTAB | sht::CUDA_MERC_SYMTAB => Kind::Symbols,
            sht::REL => Kind::Rel,
            sht::RELA | sht::CUDA_MERC_RELA => Kind::Rela,
            sht::NOTE => Kind::Notes,
            sht::CUDA_INFO | sht::CUDA_MERC_INFO | sht::CUDA_COMPAT => Kind::Attributes,
            sht::CUDA_CALLGRAPH | sht::CUDA_MERC_CALLGRAPH => Kind::CallGraph,
            _ => Kind::Bytes,
        }
    }
}

/// A section: its header fields (except `sh_size`, which comes from the
/// content) and its decoded content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The name, as found in `.shstrtab` at `name_offset`.
    pub name: String,
    /// `sh_name`. The writer writes this offset; `name` is for reading.
    pub name_offset: u32,
    /// `sh_type` (see [`sht`]).
    pub sh_type: u32,
    /// `sh_flags` (see [`shf`]).
    pub flags: u64,
    /// `sh_addr` (0 in cubins).
    pub addr: u64,
    /// `sh_offset`: where the content lies in the file.
    pub offset: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// The content.
    pub data: SectionData,
}

/// Decoded section content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionData {
    /// No file bytes; the section's size.
    NoData(u64),
    /// A string table, as bytes (NVIDIA's tables hold strings no header
    /// refers to, so the bytes are the truth).
    Strings(Vec<u8>),
    /// Symbol table entries, index 0 included.
    Symbols(Vec<Symbol>),
    /// REL relocations.
    Rel(Vec<Rel>),
    /// RELA relocations.
    Rela(Vec<Rela>),
    /// Notes.
    Notes(Vec<Note>),
    /// `.nv.info` / `.nv.compat` records.
    Attributes(Vec<Attribute>),
    /// `.nv.callgraph` pairs.
    CallGraph(Vec<CallEdge>),
    /// Undecoded bytes (code, constant banks, debug sections, ...).
    Bytes(Vec<u8>),
}

impl SectionData {
    /// `sh_size` of a section with this content.
    pub fn size(&self) -> u64 {
        match self {
            SectionData::NoData(size) => *size,
            SectionData::Strings(b) | SectionData::Bytes(b) => b.len() as u64,
            SectionData::Symbols(s) => s.len() as u64 * crate::symbol::SYM_SIZE,
            SectionData::Rel(r) => r.len() as u64 * crate::reloc::REL_SIZE,
            SectionData::Rela(r) => r.len() as u64 * crate::reloc::RELA_SIZE,
            SectionData::Notes(n) => n.iter().map(Note::encoded_len).sum(),
            SectionData::Attributes(a) => a.iter().map(Attribute::encoded_len).sum(),
            SectionData::CallGraph(e) => e.len() as u64 * 8,
        }
    }

    /// Whether the section occupies bytes of the file.
    pub fn has_file_bytes(&self) -> bool {
        !matches!(self, SectionData::NoData(_))
    }
}

impl Section {
    /// `sh_size`.
    pub fn size(&self) -> u64 {
        self.data.size()
    }

    /// The symbols, if this is a symbol table.
    pub fn symbols(&self) -> Option<&[Symbol]> {
        match &self.data {
            SectionData::Symbols(s) => Some(s),
            _ => None,
        }
    }

    /// The records, if this is an `.nv.info`-format section.
    pub fn attributes(&self) -> Option<&[Attribute]> {
        match &self.data {
            SectionData::Attributes(a) => Some(a),
            _ => None,
        }
    }

    /// The bytes, if the content is kept undecoded (code, constants, ...).
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            SectionData::Bytes(b) | SectionData::Strings(b) => Some(b),
            _ => None,
        }
    }
}
