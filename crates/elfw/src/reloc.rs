//! REL and RELA relocations and the R_CUDA type names.

use crate::bytes::{Cursor, Put};
use crate::error::Result;

/// Size of one REL entry.
pub const REL_SIZE: u64 = 16;
/// Size of one RELA entry.
pub const RELA_SIZE: u64 = 24;

/// A relocation without addend (`.rel.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rel {
    /// `r_offset` in the target section.
    pub offset: u64,
    /// Symbol index (`r_info >> 32`).
    pub sym: u32,
    /// R_CUDA type (`r_info & 0xffffffff`).
    pub kind: u32,
}

/// A relocation with addend (`.rela.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rela {
    /// `r_offset` in the target section.
    pub offset: u64,
    /// Symbol index.
    pub sym: u32,
    /// R_CUDA type.
    pub kind: u32,
    /// `r_addend`.
    pub addend: i64,
}

/// R_CUDA relocation types used by the builder.
pub mod r_cuda {
    /// 64-bit absolute address (`.nv.constant4`, `.debug_frame`).
    pub const R_64: u32 = 2;
    /// 64-bit address in a global initialiser.
    pub const G64: u32 = 4;
    /// Low 32 bits of an address in an instruction.
    pub const ABS32_LO_32: u32 = 56;
    /// High 32 bits of an address in an instruction.
    pub const ABS32_HI_32: u32 = 57;
    /// Call target (sm_7x/sm_8x).
    pub const ABS47_34: u32 = 58;
    /// Cleared 64-bit field of `.debug_frame` (sm_90+).
    pub const UNUSED_CLEAR64: u32 = 73;
    /// Call target (sm_90+).
    pub const ABS55_16_34: u32 = 75;
}

/// Names of R_CUDA types, indexed by number (from NVIDIA's numbering, checked
/// against `cuobjdump -elf` for the types seen in ptxas 13.5 output).
const NAMES: &[&str] = &[
    "R_CUDA_NONE",
    "R_CUDA_32",
    "R_CUDA_64",
    "R_CUDA_G32",
    "R_CUDA_G64",
    "R_CUDA_ABS32_26",
    "R_CUDA_TEX_HEADER_INDEX",
    "R_CUDA_SAMP_HEADER_INDEX",
    "R_CUDA_SURF_HW_DESC",
    "R_CUDA_SURF_HW_SW_DESC",
    "R_CUDA_ABS32_LO_26",
    "R_CUDA_ABS32_HI_26",
    "R_CUDA_ABS32_23",
    "R_CUDA_ABS32_LO_23",
    "R_CUDA_ABS32_HI_23",
    "R_CUDA_ABS24_26",
    "R_CUDA_ABS24_23",
    "R_CUDA_ABS16_26",
    "R_CUDA_ABS16_23",
    "R_CUDA_TEX_SLOT",
    "R_CUDA_SAMP_SLOT",
    "R_CUDA_SURF_SLOT",
    "R_CUDA_TEX_BINDLESSOFF13_32",
    "R_CUDA_TEX_BINDLESSOFF13_47",
    "R_CUDA_CONST_FIELD19_28",
    "R_CUDA_CONST_FIELD19_23",
    "R_CUDA_TEX_SLOT9_49",
    "R_CUDA_6_31",
    "R_CUDA_2_47",
    "R_CUDA_TEX_BINDLESSOFF13_41",
    "R_CUDA_TEX_BINDLESSOFF13_45",
    "R_CUDA_FUNC_DESC32_23",
    "R_CUDA_FUNC_DESC32_LO_23",
    "R_CUDA_FUNC_DESC32_HI_23",
    "R_CUDA_FUNC_DESC_32",
    "R_CUDA_FUNC_DESC_64",
    "R_CUDA_CONST_FIELD21_26",
    "R_CUDA_QUERY_DESC21_37",
    "R_CUDA_CONST_FIELD19_26",
    "R_CUDA_CONST_FIELD21_23",
    "R_CUDA_PCREL_IMM24_26",
    "R_CUDA_PCREL_IMM24_23",
    "R_CUDA_ABS32_20",
    "R_CUDA_ABS32_LO_20",
    "R_CUDA_ABS32_HI_20",
    "R_CUDA_ABS24_20",
    "R_CUDA_ABS16_20",
    "R_CUDA_FUNC_DESC32_20",
    "R_CUDA_FUNC_DESC32_LO_20",
    "R_CUDA_FUNC_DESC32_HI_20",
    "R_CUDA_CONST_FIELD19_20",
    "R_CUDA_BINDLESSOFF13_36",
    "R_CUDA_SURF_HEADER_INDEX",
    "R_CUDA_INSTRUCTION64",
    "R_CUDA_CONST_FIELD21_20",
    "R_CUDA_ABS32_32",
    "R_CUDA_ABS32_LO_32",
    "R_CUDA_ABS32_HI_32",
    "R_CUDA_ABS47_34",
    "R_CUDA_ABS16_32",
    "R_CUDA_ABS24_32",
    "R_CUDA_FUNC_DESC32_32",
    "R_CUDA_FUNC_DESC32_LO_32",
    "R_CUDA_FUNC_DESC32_HI_32",
    "R_CUDA_CONST_FIELD19_40",
    "R_CUDA_BINDLESSOFF14_40",
    "R_CUDA_CONST_FIELD21_38",
    "R_CUDA_INSTRUCTION128",
    "R_CUDA_YIELD_OPCODE9_0",
    "R_CUDA_YIELD_CLEAR_PRED4_87",
    "R_CUDA_32_LO",
    "R_CUDA_32_HI",
    "R_CUDA_UNUSED_CLEAR32",
    "R_CUDA_UNUSED_CLEAR64",
    "R_CUDA_ABS24_40",
    "R_CUDA_ABS55_16_34",
    "R_CUDA_8_0",
    "R_CUDA_8_8",
    "R_CUDA_8_16",
    "R_CUDA_8_24",
    "R_CUDA_8_32",
    "R_CUDA_8_40",
    "R_CUDA_8_48",
    "R_CUDA_8_56",
    "R_CUDA_G8_0",
    "R_CUDA_G8_8",
    "R_CUDA_G8_16",
    "R_CUDA_G8_24",
    "R_CUDA_G8_32",
    "R_CUDA_G8_40",
    "R_CUDA_G8_48",
    "R_CUDA_G8_56",
    "R_CUDA_FUNC_DESC_8_0",
    "R_CUDA_FUNC_DESC_8_8",
    "R_CUDA_FUNC_DESC_8_16",
    "R_CUDA_FUNC_DESC_8_24",
    "R_CUDA_FUNC_DESC_8_32",
    "R_CUDA_FUNC_DESC_8_40",
    "R_CUDA_FUNC_DESC_8_48",
    "R_CUDA_FUNC_DESC_8_56",
    "R_CUDA_ABS20_44",
    "R_CUDA_SAMP_HEADER_INDEX_0",
    "R_CUDA_UNIFIED",
    "R_CUDA_UNIFIED_32",
    "R_CUDA_UNIFIED_8_0",
    "R_CUDA_UNIFIED_8_8",
    "R_CUDA_UNIFIED_8_16",
    "R_CUDA_UNIFIED_8_24",
    "R_CUDA_UNIFIED_8_32",
    "R_CUDA_UNIFIED_8_40",
    "R_CUDA_UNIFIED_8_48",
    "R_CUDA_UNIFIED_8_56",
    "R_CUDA_UNIFIED32_LO_32",
    "R_CUDA_UNIFIED32_HI_32",
    "R_CUDA_ABS56_16_34",
    "R_CUDA_CONST_FIELD22_37",
];

/// The name of R_CUDA type `kind`, if known.
pub fn name(kind: u32) -> Option<&'static str> {
    NAMES.get(kind as usize).copied()
}

pub(crate) fn decode_rel(bytes: &[u8]) -> Result<Vec<Rel>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::with_capacity(bytes.len() / REL_SIZE as usize);
    while c.remaining() > 0 {
        let offset = c.u64("r_offset")?;
        let info = c.u64("r_info")?;
        out.push(Rel { offset, sym: (info >> 32) as u32, kind: info as u32 });
    }
    Ok(out)
}

pub(crate) fn decode_rela(bytes: &[u8]) -> Result<Vec<Rela>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::with_capacity(bytes.len() / RELA_SIZE as usize);
    while c.remaining() > 0 {
        let offset = c.u64("r_offset")?;
        let info = c.u64("r_info")?;
        let addend = c.u64("r_addend")? as i64;
        out.push(Rela { offset, sym: (info >> 32) as u32, kind: info as u32, addend });
    }
    Ok(out)
}

pub(crate) fn encode_rel(rels: &[Rel], out: &mut Vec<u8>) {
    for r in rels {
        out.put_u64(r.offset);
        out.put_u64((u64::from(r.sym) << 32) | u64::from(r.kind));
    }
}

pub(crate) fn encode_rela(relas: &[Rela], out: &mut Vec<u8>) {
    for r in relas {
        out.put_u64(r.offset);
        out.put_u64((u64::from(r.sym) << 32) | u64::from(r.kind));
        out.put_u64(r.addend as u64);
    }
}
