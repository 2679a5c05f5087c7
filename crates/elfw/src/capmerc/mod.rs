//! Regenerating the Capsule Mercury sections of an sm_100+ cubin from the
//! rest of it (`cargo xtask capmerc-roundtrip`).
//!
//! ptxas ships, beside the finalized code, the Mercury form the driver can
//! finalize again: `.nv.capmerc.text.<fn>` (a [`capsule::Capsule`] per
//! function) and `.nv.merc.*` repeats of the metadata. Part of it follows
//! from the finalized sections alone, and that part is derived here:
//!
//! * copies: `.nv.merc.nv.callgraph`, `.nv.merc.nv.prototype`,
//!   `.nv.merc.nv.global.init`, `.nv.merc.nv.constant.user` (bank 3),
//!   `.nv.merc.nv.constant.pic` (bank 4), `.nv.merc.nv.info` (unless a
//!   cloned callee has a frame: its Mercury frame size differs);
//! * `.nv.merc.nv.shared.reserved.0`: the SM's Mercury reserved area;
//! * `.nv.merc.rela.nv.constant.pic` / `.nv.merc.rela.nv.global.init`: the
//!   data relocations with Mercury types;
//! * `.nv.capmerc.text.<fn>` when every instruction of `.text.<fn>` is of a
//!   measured form (`records`).
//!
//! The rest describes the Mercury code itself, whose instruction offsets
//! and size differ from the finalized code's (the driver's rebuild of it
//! from capsule and `.text` is larger in ways not modelled), and is
//! reported as [`Unknown`]; see `docs/capmerc.md` for what is known of it.

pub mod capsule;
mod records;

use crate::arch::arch;
use crate::build::r_merc;
use crate::cubin::Cubin;
use crate::nvinfo::{Value, code};
use crate::reloc::{Rela, r_cuda};
use crate::section::SectionData;
use crate::symbol::sto;

/// What a Mercury section needs that the finalized sections do not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unknown {
    /// Offsets and sizes in the Mercury code (`.nv.merc.symtab` function
    /// sizes, `.nv.merc.nv.info.<fn>` offsets, `.nv.merc.debug_frame`,
    /// `.nv.merc.rela.*` of code and frames).
    MercuryLayout,
    /// Frame sizes of cloned callees in the Mercury code.
    MercuryFrames,
    /// Which instructions have a capsule record, and the records' bytes.
    CapsuleRecords,
    /// A data relocation type with no known Mercury counterpart.
    RelocationType(u32),
    /// The finalized twin a copy is made from is missing.
    MissingTwin,
    /// A Mercury section this module does not know.
    Section,
}

/// One Mercury section of a cubin, regenerated or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regenerated {
    /// Section index in the cubin.
    pub index: usize,
    /// The section's name.
    pub name: String,
    /// The regenerated content, or what is missing to make it.
    pub data: Result<SectionData, Unknown>,
}

/// Copies of finalized sections: (Mercury section, finalized twin).
const COPIES: &[(&str, &str)] = &[
    (".nv.merc.nv.callgraph", ".nv.callgraph"),
    (".nv.merc.nv.prototype", ".nv.prototype"),
    (".nv.merc.nv.global.init", ".nv.global.init"),
    (".nv.merc.nv.constant.user", ".nv.constant3"),
    (".nv.merc.nv.constant.pic", ".nv.constant4"),
];

/// Data relocations repeated with Mercury types: (Mercury section, finalized twin).
const DATA_RELOCATIONS: &[(&str, &str)] = &[
    (".nv.merc.rela.nv.constant.pic", ".rela.nv.constant4"),
    (".nv.merc.rela.nv.global.init", ".rela.nv.global.init"),
];

/// Mercury types of data relocations: (finalized, Mercury).
const MERCURY_TYPES: &[(u32, u32)] = &[(r_cuda::R_64, r_merc::R_64), (r_cuda::G64, r_merc::G64)];

/// Sections that describe the Mercury code's layout (prefixes match per-function sections).
const LAYOUT: &[&str] = &[
    ".nv.merc.symtab",
    ".nv.merc.debug_frame",
    ".nv.merc.rela.debug_frame",
    ".nv.merc.nv.info.",
    ".nv.merc.rela.text.",
];

/// Whether `name` is a Mercury section.
pub fn is_mercury(name: &str) -> bool {
    name.starts_with(".nv.merc.") || name.starts_with(".nv.capmerc.")
}

/// Regenerates every Mercury section of `cubin` (in section order) from its
/// other sections.
pub fn regenerate(cubin: &Cubin) -> Vec<Regenerated> {
    cubin
        .sections
        .iter()
        .enumerate()
        .filter(|(_, s)| is_mercury(&s.name))
        .map(|(index, s)| Regenerated { index, name: s.name.clone(), data: section(cubin, &s.name) })
        .collect()
}

/// The content of Mercury section `name`.
fn section(cubin: &Cubin, name: &str) -> Result<SectionData, Unknown> {
    if let Some(&(_, twin)) = COPIES.iter().find(|(m, _)| *m == name) {
        return twin_data(cubin, twin).cloned();
    }
    if let Some(&(_, twin)) = DATA_RELOCATIONS.iter().find(|(m, _)| *m == name) {
        return data_relocations(twin_data(cubin, twin)?);
    }
    match name {
        ".nv.merc.nv.info" => module_info(cubin),
        ".nv.merc.nv.shared.reserved.0" => {
            arch(cubin.header.eflags().sm()).map(|a| SectionData::NoData(a.merc_reserved_smem)).ok_or(Unknown::Section)
        }
        _ if name.starts_with(".nv.capmerc.text.") => capsule(cubin, &name[".nv.capmerc.text.".len()..]),
        _ if LAYOUT.iter().any(|p| name == *p || (p.ends_with('.') && name.starts_with(p))) => {
            Err(Unknown::MercuryLayout)
        }
        _ => Err(Unknown::Section),
    }
}

/// `.nv.capmerc.text.<function>` from `.text.<function>`.
fn capsule(cubin: &Cubin, function: &str) -> Result<SectionData, Unknown> {
    let (index, text) = cubin.section(&format!(".text.{function}")).ok_or(Unknown::MissingTwin)?;
    let code = text.bytes().ok_or(Unknown::MissingTwin)?;
    let param_base = arch(cubin.header.eflags().sm()).ok_or(Unknown::Section)?.param_base();
    let index = u32::try_from(index).map_err(|_| Unknown::Section)?;
    records::capsule(index, code, param_base).map(|c| SectionData::Bytes(c.encode()))
}

/// The content of finalized section `name`.
fn twin_data<'c>(cubin: &'c Cubin, name: &str) -> Result<&'c SectionData, Unknown> {
    cubin.section(name).map(|(_, s)| &s.data).ok_or(Unknown::MissingTwin)
}

/// `.rela.<data>` with each type replaced by its Mercury counterpart
/// (symbol indices agree: `.nv.merc.symtab` only drops the trailing
/// `.nv.constant0.<fn>` section symbols).
fn data_relocations(twin: &SectionData) -> Result<SectionData, Unknown> {
    let SectionData::Rela(list) = twin else { return Err(Unknown::MissingTwin) };
    list.iter()
        .map(|r| {
            let kind = MERCURY_TYPES.iter().find(|(f, _)| *f == r.kind).ok_or(Unknown::RelocationType(r.kind))?.1;
            Ok(Rela { kind, ..*r })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(SectionData::Rela)
}

/// `.nv.info`, unless it gives a frame size to a function that is not a
/// kernel: cloned callees have other frames in the Mercury code (0 where
/// the finalized frame is 0x18 or 0x28 in the corpus, not always).
fn module_info(cubin: &Cubin) -> Result<SectionData, Unknown> {
    let (_, info) = cubin.section(".nv.info").ok_or(Unknown::MissingTwin)?;
    let records = info.attributes().ok_or(Unknown::MissingTwin)?;
    let symbols = cubin.symbols();
    let callee_frame = records.iter().any(|a| match (&a.code, &a.value) {
        (&code::FRAME_SIZE, Value::Block(b)) if b.len() >= 4 => {
            let sym = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
            symbols.get(sym).is_none_or(|s| s.other & sto::CUDA_ENTRY == 0)
        }
        _ => false,
    });
    if callee_frame { Err(Unknown::MercuryFrames) } else { Ok(info.data.clone()) }
}
