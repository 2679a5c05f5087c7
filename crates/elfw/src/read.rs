//! Parsing a cubin's bytes into the typed model.

use crate::bytes::{Cursor, slice};
use crate::cubin::{Cubin, ProgramHeader};
use crate::error::{Result, malformed};
use crate::header::{Header, PHDR_SIZE, SHDR_SIZE};
use crate::section::{Kind, Section, SectionData};
use crate::{callgraph, notes, nvinfo, reloc, strtab, symbol};

/// A section header before its content is decoded.
struct RawSection {
    name_offset: u32,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// Reads a cubin. Every malformation is an [`crate::Error`], never a panic.
pub fn read(bytes: &[u8]) -> Result<Cubin> {
    let (header, counts) = Header::read(bytes)?;
    let table = slice(bytes, header.shoff, u64::from(counts.shnum) * SHDR_SIZE, "section header table")?;
    let mut c = Cursor::new(table, 0);
    let mut raw = Vec::with_capacity(counts.shnum.into());
    for _ in 0..counts.shnum {
        raw.push(RawSection {
            name_offset: c.u32("sh_name")?,
            sh_type: c.u32("sh_type")?,
            flags: c.u64("sh_flags")?,
            addr: c.u64("sh_addr")?,
            offset: c.u64("sh_offset")?,
            size: c.u64("sh_size")?,
            link: c.u32("sh_link")?,
            info: c.u32("sh_info")?,
            align: c.u64("sh_addralign")?,
            entsize: c.u64("sh_entsize")?,
        });
    }
    if raw.is_empty() {
        return Err(malformed("no sections"));
    }
    let content = |r: &RawSection, i: usize| -> Result<&[u8]> {
        slice(bytes, r.offset, r.size, &format!("content of section {i}"))
    };
    let shstr_index = usize::from(header.shstrndx);
    let shstr = raw.get(shstr_index).ok_or_else(|| malformed(format!("e_shstrndx {shstr_index} out of range")))?;
    let shstrtab = content(shstr, shstr_index)?;

    let mut sections = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let name = strtab::lookup(shstrtab, r.name_offset)?;
        let kind = Kind::of(r.sh_type);
        let data = if kind == Kind::NoData {
            SectionData::NoData(r.size)
        } else {
            let b = content(r, i)?;
            let ctx = |e: crate::Error| malformed(format!("section {i} ({name}): {e}"));
            match kind {
                Kind::NoData => SectionData::NoData(r.size),
                Kind::Strings => SectionData::Strings(b.to_vec()),
                Kind::Symbols => {
                    let link = raw
                        .get(r.link as usize)
                        .ok_or_else(|| malformed(format!("section {i} ({name}): sh_link {} out of range", r.link)))?;
                    let strings = content(link, r.link as usize)?;
                    SectionData::Symbols(symbol::decode(b, strings).map_err(ctx)?)
                }
                Kind::Rel => SectionData::Rel(reloc::decode_rel(b).map_err(ctx)?),
                Kind::Rela => SectionData::Rela(reloc::decode_rela(b).map_err(ctx)?),
                Kind::Notes => SectionData::Notes(notes::decode(b).map_err(ctx)?),
                Kind::Attributes => SectionData::Attributes(nvinfo::decode(b).map_err(ctx)?),
                Kind::CallGraph => SectionData::CallGraph(callgraph::decode(b).map_err(ctx)?),
                Kind::Bytes => SectionData::Bytes(b.to_vec()),
            }
        };
        sections.push(Section {
            name,
            name_offset: r.name_offset,
            sh_type: r.sh_type,
            flags: r.flags,
            addr: r.addr,
            offset: r.offset,
            link: r.link,
            info: r.info,
            align: r.align,
            entsize: r.entsize,
            data,
        });
    }

    let phdrs = slice(bytes, header.phoff, u64::from(counts.phnum) * PHDR_SIZE, "program header table")?;
    let mut c = Cursor::new(phdrs, 0);
    let mut program_headers = Vec::with_capacity(counts.phnum.into());
    for _ in 0..counts.phnum {
        program_headers.push(ProgramHeader {
            p_type: c.u32("p_type")?,
            flags: c.u32("p_flags")?,
            offset: c.u64("p_offset")?,
            vaddr: c.u64("p_vaddr")?,
            paddr: c.u64("p_paddr")?,
            filesz: c.u64("p_filesz")?,
            memsz: c.u64("p_memsz")?,
            align: c.u64("p_align")?,
        });
    }
    Ok(Cubin { header, sections, program_headers })
}
