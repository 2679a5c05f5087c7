//! Naming where two cubin images differ: header fields, section contents,
//! section-header and program-header fields.

use crate::cubin::Cubin;
use crate::header::{EHDR_SIZE, PHDR_SIZE, SHDR_SIZE};
use crate::nvinfo;
use crate::section::{Section, sht};

const EHDR_FIELDS: &[(u64, &str)] = &[
    (0, "e_ident"),
    (16, "e_type"),
    (18, "e_machine"),
    (20, "e_version"),
    (24, "e_entry"),
    (32, "e_phoff"),
    (40, "e_shoff"),
    (48, "e_flags"),
    (52, "e_ehsize"),
    (54, "e_phentsize"),
    (56, "e_phnum"),
    (58, "e_shentsize"),
    (60, "e_shnum"),
    (62, "e_shstrndx"),
];
const SHDR_FIELDS: &[(u64, &str)] = &[
    (0, "sh_name"),
    (4, "sh_type"),
    (8, "sh_flags"),
    (16, "sh_addr"),
    (24, "sh_offset"),
    (32, "sh_size"),
    (40, "sh_link"),
    (44, "sh_info"),
    (48, "sh_addralign"),
    (56, "sh_entsize"),
];
const PHDR_FIELDS: &[(u64, &str)] = &[
    (0, "p_type"),
    (4, "p_flags"),
    (8, "p_offset"),
    (16, "p_vaddr"),
    (24, "p_paddr"),
    (32, "p_filesz"),
    (40, "p_memsz"),
    (48, "p_align"),
];

fn field(fields: &[(u64, &'static str)], rel: u64) -> &'static str {
    fields.iter().rev().find(|(o, _)| *o <= rel).map_or("?", |f| f.1)
}

/// What lies at file offset `at` of a file laid out as `layout` says.
pub fn region(layout: &Cubin, at: u64) -> String {
    let h = &layout.header;
    if at < EHDR_SIZE {
        return format!("ELF header {}", field(EHDR_FIELDS, at));
    }
    let sh_end = h.shoff + layout.sections.len() as u64 * SHDR_SIZE;
    if (h.shoff..sh_end).contains(&at) {
        let i = (at - h.shoff) / SHDR_SIZE;
        let name = layout.sections.get(i as usize).map_or("", |s| s.name.as_str());
        return format!("section header {i} ({name}) {}", field(SHDR_FIELDS, (at - h.shoff) % SHDR_SIZE));
    }
    let ph_end = h.phoff + layout.program_headers.len() as u64 * PHDR_SIZE;
    if (h.phoff..ph_end).contains(&at) {
        let i = (at - h.phoff) / PHDR_SIZE;
        return format!("program header {i} {}", field(PHDR_FIELDS, (at - h.phoff) % PHDR_SIZE));
    }
    for (i, s) in layout.sections.iter().enumerate() {
        if s.data.has_file_bytes() && (s.offset..s.offset + s.size()).contains(&at) {
            let rel = at - s.offset;
            let record = record_at(s, rel).map(|r| format!(" ({r})")).unwrap_or_default();
            return format!("section {i} ({}) content at +{rel:#x}{record}", s.name);
        }
    }
    "padding".to_string()
}

/// The attribute record (name and index) covering byte `rel` of an
/// `.nv.info`-format section.
fn record_at(s: &Section, rel: u64) -> Option<String> {
    let attrs = s.attributes()?;
    let mut pos = 0;
    for (k, a) in attrs.iter().enumerate() {
        let end = pos + a.encoded_len();
        if rel < end {
            let info = if s.sh_type == sht::CUDA_COMPAT { nvinfo::eicompat(a.code) } else { nvinfo::eiattr(a.code) };
            return Some(format!(
                "record {k} {}",
                info.map_or_else(|| format!("0x{:02x}", a.code), |i| i.name.to_string())
            ));
        }
        pos = end;
    }
    None
}

/// One line per differing region of `a` and `b` (at most `limit` lines),
/// named from `layout` (the model both were meant to encode).
pub fn byte_differences(layout: &Cubin, a: &[u8], b: &[u8], limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!("file size {:#x} vs {:#x}", a.len(), b.len()));
    }
    let mut last = String::new();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x == y {
            continue;
        }
        let r = region(layout, i as u64);
        if r != last {
            if out.len() >= limit {
                out.push("...".to_string());
                break;
            }
            out.push(format!("{r}: {x:#04x} vs {y:#04x} at {i:#x}"));
            last = r;
        }
    }
    out
}
