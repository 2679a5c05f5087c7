//! The whole-file model: header, sections, program headers.

use crate::header::Header;
use crate::section::Section;
use crate::symbol::Symbol;

/// A program header (ET_EXEC cubins only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramHeader {
    /// `p_type`: 6 PHDR or 1 LOAD.
    pub p_type: u32,
    /// `p_flags`: R=4, W=2, X=1.
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_paddr`.
    pub paddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

/// `p_type` of the segment that covers the program headers.
pub const PT_PHDR: u32 = 6;
/// `p_type` of a loadable segment.
pub const PT_LOAD: u32 = 1;

/// A cubin. Section 0 is the null section; file offsets are part of the
/// model (as ELF fields) so that any file ptxas writes is reproduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cubin {
    /// The ELF header.
    pub header: Header,
    /// All sections in section-header order, the null section first.
    pub sections: Vec<Section>,
    /// Program headers in order.
    pub program_headers: Vec<ProgramHeader>,
}

impl Cubin {
    /// The first section named `name` and its index.
    pub fn section(&self, name: &str) -> Option<(usize, &Section)> {
        self.sections.iter().enumerate().find(|(_, s)| s.name == name)
    }

    /// The symbols of `.symtab` (empty if there is none).
    pub fn symbols(&self) -> &[Symbol] {
        self.section(".symtab").and_then(|(_, s)| s.symbols()).unwrap_or(&[])
    }
}
