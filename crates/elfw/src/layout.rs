//! File layout as ptxas does it: section offsets, the section header table,
//! program headers. Used by the builder; checked against every corpus cubin.

use crate::arch::Segments;
use crate::bytes::align_up;
use crate::cubin::{Cubin, PT_LOAD, PT_PHDR, ProgramHeader};
use crate::error::{Error, Result};
use crate::header::{EHDR_SIZE, ET_EXEC, PHDR_SIZE, SHDR_SIZE};
use crate::section::{Section, shf};

/// Sets every section offset, `e_shoff`, `e_phoff` and (for ET_EXEC) the
/// program headers of `cubin` from its section list.
///
/// Sections follow the header in section order, each at its alignment;
/// no-data sections take the current position without advancing it; a
/// Mercury data section shares the offset of the earlier section with the
/// same bytes (ptxas writes those bytes once). The section header table
/// follows the last section (8-aligned after `.nv.global.init`), the program
/// headers follow it.
pub fn assign(cubin: &mut Cubin, segments: Segments) -> Result<()> {
    let mut pos = EHDR_SIZE;
    let mut last_is_global_init = false;
    for i in 1..cubin.sections.len() {
        let alias = mercury_twin(&cubin.sections, i).map(|j| cubin.sections[j].offset);
        let s = &mut cubin.sections[i];
        if let Some(offset) = alias {
            s.offset = offset;
            continue;
        }
        s.offset = align_up(pos, s.align);
        if s.data.has_file_bytes() {
            pos = s.offset + s.size();
            last_is_global_init = s.name == ".nv.global.init";
        }
    }
    cubin.header.shoff = if last_is_global_init { align_up(pos, 8) } else { pos };
    let shnum = cubin.sections.len() as u64;
    cubin.program_headers.clear();
    if cubin.header.e_type != ET_EXEC {
        cubin.header.phoff = 0;
        return Ok(());
    }
    cubin.header.phoff = cubin.header.shoff + shnum * SHDR_SIZE;
    let loads = loads(&cubin.sections, segments)?;
    let table_flags = match segments {
        Segments::Merged => 5,
        Segments::PerPermission => 4,
    };
    let count = loads.len() as u64 + 2;
    let table = ProgramHeader {
        p_type: PT_LOAD,
        flags: table_flags,
        offset: cubin.header.phoff,
        vaddr: 0,
        paddr: 0,
        filesz: count * PHDR_SIZE,
        memsz: count * PHDR_SIZE,
        align: 8,
    };
    let phdr = ProgramHeader { p_type: PT_PHDR, ..table };
    cubin.program_headers.push(phdr);
    if segments == Segments::PerPermission {
        cubin.program_headers.push(table);
    }
    cubin.program_headers.extend(loads);
    if segments == Segments::Merged {
        cubin.program_headers.push(table);
    }
    Ok(())
}

/// The earlier section whose bytes a Mercury data section repeats.
fn mercury_twin(sections: &[Section], i: usize) -> Option<usize> {
    let s = &sections[i];
    let wanted = s.flags & shf::NV_MERCURY != 0 && s.flags & shf::ALLOC != 0 && s.data.has_file_bytes();
    if !wanted {
        return None;
    }
    sections[..i].iter().position(|t| t.flags & (shf::NV_MERCURY | shf::ALLOC) == shf::ALLOC && t.data == s.data)
}

/// Segment permission of an alloc section.
fn permission(s: &Section, segments: Segments) -> u32 {
    let w = s.flags & shf::WRITE != 0;
    let x = s.flags & shf::EXECINSTR != 0;
    match (segments, w, x) {
        (_, true, _) => 6,
        (Segments::Merged, false, _) | (Segments::PerPermission, false, true) => 5,
        (Segments::PerPermission, false, false) => 4,
    }
}

/// LOAD segments: runs of consecutive alloc (non-Mercury) sections with the
/// same permission. `p_filesz` covers the run's file bytes; `p_memsz` goes on
/// from there through the no-data sections, each at its alignment.
fn loads(sections: &[Section], segments: Segments) -> Result<Vec<ProgramHeader>> {
    let mut out: Vec<(u32, Vec<&Section>)> = Vec::new();
    for s in sections.iter().filter(|s| s.flags & shf::ALLOC != 0 && s.flags & shf::NV_MERCURY == 0) {
        let p = permission(s, segments);
        match out.last_mut() {
            Some((q, run)) if *q == p => run.push(s),
            _ => out.push((p, vec![s])),
        }
    }
    out.into_iter()
        .map(|(flags, run)| {
            let offset = run.first().map_or(0, |s| s.offset);
            let mut file_end = offset;
            let mut mem_end = offset;
            for s in &run {
                if s.data.has_file_bytes() {
                    file_end = s.offset + s.size();
                    mem_end = file_end;
                } else {
                    mem_end = align_up(mem_end, s.align) + s.size();
                }
            }
            if file_end < offset {
                return Err(Error::Layout("segment sections out of file order".into()));
            }
            Ok(ProgramHeader {
                p_type: PT_LOAD,
                flags,
                offset,
                vaddr: 0,
                paddr: 0,
                filesz: file_end - offset,
                memsz: mem_end - offset,
                align: 8,
            })
        })
        .collect()
}
