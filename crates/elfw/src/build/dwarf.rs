//! `-g`: the DWARF sections copied from the PTX (`.debug_abbrev`,
//! `.debug_loc`, `.debug_info`, ...), right after the line tables, each
//! with a section symbol, and their code addresses as `R_CUDA_64`
//! relocations listed last-first as ptxas writes them (docs/elfw.md
//! "DWARF"). The field holds the address too, so REL and RELA agree.

use super::Builder;
use crate::arch::RelocForm;
use crate::error::Result;
use crate::reloc::r_cuda;
use crate::section::{SectionData, sht};
use ori_ir::object::DebugSection;

/// Sections whose relocations are RELA on every SM; the others' follow
/// the SM (measured with sm_80: `.rel.debug_loc` beside `.rela.debug_info`).
const ALWAYS_RELA: [&str; 1] = [".debug_info"];

impl Builder<'_> {
    /// The name of `s`'s relocation section, and whether it is RELA.
    pub(super) fn dwarf_reloc_section(&self, s: &DebugSection) -> (String, bool) {
        let rela = self.arch.relocs == RelocForm::Rela || ALWAYS_RELA.contains(&s.name.as_str());
        (format!("{}{}", if rela { ".rela" } else { ".rel" }, s.name), rela)
    }

    /// Adds the sections, after the line tables'.
    pub(super) fn plan_dwarf_sections(&mut self) {
        for s in &self.m.dwarf {
            self.add(s.name.clone(), sht::PROGBITS, 0, 1, 0, SectionData::Bytes(vec![]));
        }
    }

    /// Adds their relocation sections, after the line tables'.
    pub(super) fn plan_dwarf_relocations(&mut self) {
        for s in self.m.dwarf.iter().filter(|s| !s.relocations.is_empty()) {
            let (name, rela) = self.dwarf_reloc_section(s);
            self.add_reloc_section(name, rela);
        }
    }

    /// Their section symbols, after the line tables'.
    pub(super) fn push_dwarf_symbols(&mut self) {
        for s in &self.m.dwarf {
            self.push_section_sym(&s.name);
        }
    }

    /// Writes the contents and the relocations.
    pub(super) fn fill_dwarf(&mut self) -> Result<()> {
        for s in &self.m.dwarf {
            self.set(&s.name, SectionData::Bytes(s.bytes.clone()));
            let (section, _) = self.dwarf_reloc_section(s);
            for r in s.relocations.iter().rev() {
                let sym = self.sym(&r.symbol)?;
                self.push_reloc(&section, r.offset, sym, r_cuda::R_64, r.addend)?;
            }
        }
        Ok(())
    }
}
