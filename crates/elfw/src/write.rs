//! Serialising the model: every structure at the offset the model gives,
//! zero bytes in between (ptxas pads with zeros).

use crate::bytes::Put;
use crate::cubin::Cubin;
use crate::error::{Error, Result};
use crate::header::{Counts, EHDR_SIZE, PHDR_SIZE, SHDR_SIZE};
use crate::section::{Section, SectionData};
use crate::{callgraph, notes, nvinfo, reloc, symbol};

/// The bytes of one section's content (empty for no-data sections).
pub fn section_bytes(s: &Section) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(s.size() as usize);
    match &s.data {
        SectionData::NoData(_) => {}
        SectionData::Strings(b) | SectionData::Bytes(b) => out.extend_from_slice(b),
        SectionData::Symbols(syms) => symbol::encode(syms, &mut out),
        SectionData::Rel(r) => reloc::encode_rel(r, &mut out),
        SectionData::Rela(r) => reloc::encode_rela(r, &mut out),
        SectionData::Notes(n) => notes::encode(n, &mut out),
        SectionData::Attributes(a) => nvinfo::encode(a, &mut out)?,
        SectionData::CallGraph(e) => callgraph::encode(e, &mut out),
    }
    Ok(out)
}

/// Writes a cubin. Fails if structures overlap with different bytes.
pub fn write(cubin: &Cubin) -> Result<Vec<u8>> {
    let counts = Counts {
        phnum: u16::try_from(cubin.program_headers.len())
            .map_err(|_| Error::Layout("more than 65535 program headers".into()))?,
        shnum: u16::try_from(cubin.sections.len()).ok().filter(|&n| n < 0xff00).ok_or_else(|| {
            Error::Layout(format!("{} sections need SHN_XINDEX, which is not supported", cubin.sections.len()))
        })?,
    };
    let h = &cubin.header;
    let mut pieces: Vec<(u64, Vec<u8>, String)> = Vec::with_capacity(cubin.sections.len() + 3);
    let mut head = Vec::with_capacity(EHDR_SIZE as usize);
    h.write(counts, &mut head);
    pieces.push((0, head, "ELF header".into()));
    for (i, s) in cubin.sections.iter().enumerate() {
        if s.data.has_file_bytes() {
            pieces.push((s.offset, section_bytes(s)?, format!("section {i} ({})", s.name)));
        }
    }
    let mut shdrs = Vec::with_capacity(cubin.sections.len() * SHDR_SIZE as usize);
    for s in &cubin.sections {
        shdrs.put_u32(s.name_offset);
        shdrs.put_u32(s.sh_type);
        shdrs.put_u64(s.flags);
        shdrs.put_u64(s.addr);
        shdrs.put_u64(s.offset);
        shdrs.put_u64(s.size());
        shdrs.put_u32(s.link);
        shdrs.put_u32(s.info);
        shdrs.put_u64(s.align);
        shdrs.put_u64(s.entsize);
    }
    pieces.push((h.shoff, shdrs, "section header table".into()));
    if !cubin.program_headers.is_empty() {
        let mut phdrs = Vec::with_capacity(cubin.program_headers.len() * PHDR_SIZE as usize);
        for p in &cubin.program_headers {
            phdrs.put_u32(p.p_type);
            phdrs.put_u32(p.flags);
            phdrs.put_u64(p.offset);
            phdrs.put_u64(p.vaddr);
            phdrs.put_u64(p.paddr);
            phdrs.put_u64(p.filesz);
            phdrs.put_u64(p.memsz);
            phdrs.put_u64(p.align);
        }
        pieces.push((h.phoff, phdrs, "program header table".into()));
    }
    // Mercury sections of sm_100+ may alias the bytes of the section they
    // copy (same offset); overlaps are allowed only where the bytes agree.
    let mut end = 0u64;
    for (offset, bytes, what) in &pieces {
        let e = offset.checked_add(bytes.len() as u64).filter(|&e| e < (1 << 32));
        end = end.max(e.ok_or_else(|| Error::Layout(format!("{what} at offset {offset:#x} is beyond 4 GiB")))?);
    }
    let mut out = vec![0u8; end as usize];
    let mut owner: Vec<u32> = vec![u32::MAX; end as usize];
    for (k, (offset, bytes, what)) in pieces.iter().enumerate() {
        let at = *offset as usize;
        for (j, &b) in bytes.iter().enumerate() {
            let o = owner[at + j];
            if o != u32::MAX && out[at + j] != b {
                let other = &pieces[o as usize].2;
                return Err(Error::Layout(format!("{what} overlaps {other} with different bytes at {:#x}", at + j)));
            }
            out[at + j] = b;
            owner[at + j] = k as u32;
        }
    }
    Ok(out)
}
