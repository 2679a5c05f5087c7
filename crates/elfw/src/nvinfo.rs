//! `.nv.info`, `.nv.info.<fn>` and `.nv.compat` records and the EIATTR table.
//!
//! A record is `u8 format, u8 code, u16 v`; format 1 (NVAL) has no value,
//! 2 (BVAL) a byte in `v`, 3 (HVAL) a half-word in `v`, 4 (SVAL) a payload of
//! `v` bytes after the header.

use crate::bytes::{Cursor, Put};
use crate::error::{Result, malformed};

/// Record formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// EIFMT_NVAL: presence only.
    Nval = 1,
    /// EIFMT_BVAL: a byte.
    Bval = 2,
    /// EIFMT_HVAL: a 16-bit value.
    Hval = 3,
    /// EIFMT_SVAL: a sized payload.
    Sval = 4,
}

impl Format {
    /// cuobjdump's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Nval => "EIFMT_NVAL",
            Format::Bval => "EIFMT_BVAL",
            Format::Hval => "EIFMT_HVAL",
            Format::Sval => "EIFMT_SVAL",
        }
    }
}

/// The value of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// NVAL.
    Flag,
    /// BVAL.
    Byte(u8),
    /// HVAL.
    Half(u16),
    /// SVAL payload.
    Block(Vec<u8>),
}

/// One record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// Attribute code (EIATTR_* in `.nv.info*`, EICOMPAT_ATTR_* in `.nv.compat`).
    pub code: u8,
    /// Its value.
    pub value: Value,
}

/// How an SVAL payload is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Not an SVAL record, or a layout we keep as bytes.
    Opaque,
    /// `u32 symbol, u32 value` (per-function records in `.nv.info`).
    SymbolValue,
    /// A list of u32 (offsets, symbol indices, single values).
    Words,
    /// `u32 x, y, z`.
    Dim3,
    /// `u32 index, u16 ordinal, u16 offset, u32 packed` (see [`KParamInfo`]).
    KParamInfo,
    /// `u32 symbol of .nv.constant0.<fn>, u16 offset, u16 size`.
    ParamCbank,
}

/// What is known about an attribute code.
#[derive(Clone, Copy, Debug)]
pub struct AttrInfo {
    /// The code.
    pub code: u8,
    /// Name as cuobjdump prints it (NVIDIA's own names for codes cuobjdump
    /// calls "unknown").
    pub name: &'static str,
    /// The format ptxas 13.5 writes it with.
    pub format: Format,
    /// Payload layout for SVAL records.
    pub payload: Payload,
}

const fn a(code: u8, name: &'static str, format: Format, payload: Payload) -> AttrInfo {
    AttrInfo { code, name, format, payload }
}

use Format::{Bval, Hval, Nval, Sval};
use Payload::{Dim3, KParamInfo as Kp, Opaque, ParamCbank as Pc, SymbolValue as Sv, Words};

/// EIATTR codes: names from NVIDIA's numbering (cuobjdump 13.5), formats as
/// measured in ptxas 13.5 output (see oracle-facts.md 5.4). Codes not seen in
/// 13.5 output keep their NVIDIA name with the format the seed gives.
pub const EIATTRS: &[AttrInfo] = &[
    a(0x01, "EIATTR_PAD", Nval, Opaque),
    a(0x02, "EIATTR_IMAGE_SLOT", Sval, Opaque),
    a(0x03, "EIATTR_JUMPTABLE_RELOCS", Sval, Words),
    a(0x04, "EIATTR_CTAIDZ_USED", Nval, Opaque),
    a(0x05, "EIATTR_MAX_THREADS", Sval, Dim3),
    a(0x06, "EIATTR_IMAGE_OFFSET", Sval, Opaque),
    a(0x07, "EIATTR_IMAGE_SIZE", Sval, Opaque),
    a(0x08, "EIATTR_TEXTURE_NORMALIZED", Sval, Opaque),
    a(0x09, "EIATTR_SAMPLER_INIT", Sval, Opaque),
    a(0x0a, "EIATTR_PARAM_CBANK", Sval, Pc),
    a(0x0b, "EIATTR_SMEM_PARAM_OFFSETS", Sval, Opaque),
    a(0x0c, "EIATTR_CBANK_PARAM_OFFSETS", Sval, Opaque),
    a(0x0d, "EIATTR_SYNC_STACK", Sval, Opaque),
    a(0x0e, "EIATTR_TEXID_SAMPID_MAP", Sval, Opaque),
    a(0x0f, "EIATTR_EXTERNS", Sval, Words),
    a(0x10, "EIATTR_REQNTID", Sval, Dim3),
    a(0x11, "EIATTR_FRAME_SIZE", Sval, Sv),
    a(0x12, "EIATTR_MIN_STACK_SIZE", Sval, Sv),
    a(0x13, "EIATTR_SAMPLER_FORCE_UNNORMALIZED", Sval, Opaque),
    a(0x14, "EIATTR_BINDLESS_IMAGE_OFFSETS", Sval, Opaque),
    a(0x15, "EIATTR_BINDLESS_TEXTURE_BANK", Sval, Opaque),
    a(0x16, "EIATTR_BINDLESS_SURFACE_BANK", Sval, Opaque),
    a(0x17, "EIATTR_KPARAM_INFO", Sval, Kp),
    a(0x18, "EIATTR_SMEM_PARAM_SIZE", Hval, Opaque),
    a(0x19, "EIATTR_CBANK_PARAM_SIZE", Hval, Opaque),
    a(0x1a, "EIATTR_QUERY_NUMATTRIB", Sval, Opaque),
    a(0x1b, "EIATTR_MAXREG_COUNT", Hval, Opaque),
    a(0x1c, "EIATTR_EXIT_INSTR_OFFSETS", Sval, Words),
    a(0x1d, "EIATTR_S2RCTAID_INSTR_OFFSETS", Sval, Words),
    a(0x1e, "EIATTR_CRS_STACK_SIZE", Sval, Words),
    a(0x1f, "EIATTR_NEED_CNP_WRAPPER", Nval, Opaque),
    a(0x20, "EIATTR_NEED_CNP_PATCH", Nval, Opaque),
    a(0x21, "EIATTR_EXPLICIT_CACHING", Nval, Opaque),
    a(0x22, "EIATTR_ISTYPEP_USED", Nval, Opaque),
    a(0x23, "EIATTR_MAX_STACK_SIZE", Sval, Sv),
    a(0x24, "EIATTR_SUQ_USED", Nval, Opaque),
    a(0x25, "EIATTR_LD_CACHEMOD_INSTR_OFFSETS", Sval, Words),
    a(0x26, "EIATTR_LOAD_CACHE_REQUEST", Sval, Opaque),
    a(0x27, "EIATTR_ATOM_SYS_INSTR_OFFSETS", Sval, Words),
    a(0x28, "EIATTR_COOP_GROUP_INSTR_OFFSETS", Sval, Words),
    a(0x29, "EIATTR_COOP_GROUP_MASK_REGIDS", Sval, Words),
    a(0x2a, "EIATTR_SW1850030_WAR", Sval, Words),
    a(0x2b, "EIATTR_WMMA_USED", Nval, Opaque),
    a(0x2c, "EIATTR_HAS_PRE_V10_OBJECT", Sval, Opaque),
    a(0x2d, "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS", Sval, Words),
    a(0x2e, "EIATTR_ATOM16_EMUL_INSTR_REG_MAP", Sval, Words),
    a(0x2f, "EIATTR_REGCOUNT", Sval, Sv),
    a(0x30, "EIATTR_SW2393858_WAR", Sval, Words),
    a(0x31, "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS", Sval, Words),
    a(0x32, "EIATTR_SHARED_SCRATCH", Sval, Opaque),
    a(0x33, "EIATTR_STATISTICS", Sval, Opaque),
    a(0x34, "EIATTR_INDIRECT_BRANCH_TARGETS", Sval, Opaque),
    a(0x35, "EIATTR_SW2861232_WAR", Nval, Opaque),
    a(0x36, "EIATTR_SW_WAR", Sval, Words),
    a(0x37, "EIATTR_CUDA_API_VERSION", Sval, Words),
    a(0x38, "EIATTR_NUM_MBARRIERS", Hval, Opaque),
    a(0x39, "EIATTR_MBARRIER_INSTR_OFFSETS", Sval, Words),
    a(0x3a, "EIATTR_COROUTINE_RESUME_OFFSETS", Sval, Words),
    a(0x3b, "EIATTR_SAM_REGION_STACK_SIZE", Sval, Opaque),
    a(0x3c, "EIATTR_PER_REG_TARGET_PERF_STATS", Sval, Opaque),
    a(0x3d, "EIATTR_CTA_PER_CLUSTER", Sval, Dim3),
    a(0x3e, "EIATTR_EXPLICIT_CLUSTER", Nval, Opaque),
    a(0x3f, "EIATTR_MAX_CLUSTER_RANK", Sval, Opaque),
    a(0x40, "EIATTR_INSTR_REG_MAP", Sval, Opaque),
    a(0x41, "EIATTR_RESERVED_SMEM_USED", Nval, Opaque),
    a(0x42, "EIATTR_RESERVED_SMEM_0_SIZE", Sval, Opaque),
    a(0x43, "EIATTR_UCODE_SECTION_DATA", Sval, Opaque),
    a(0x44, "EIATTR_UNUSED_LOAD_BYTE_OFFSET", Sval, Words),
    a(0x45, "EIATTR_KPARAM_INFO_V2", Sval, Opaque),
    a(0x46, "EIATTR_SYSCALL_OFFSETS", Sval, Words),
    a(0x47, "EIATTR_SW_WAR_MEMBAR_SYS_INSTR_OFFSETS", Sval, Words),
    a(0x48, "EIATTR_GRAPHICS_GLOBAL_CBANK", Sval, Opaque),
    a(0x49, "EIATTR_SHADER_TYPE", Sval, Opaque),
    a(0x4a, "EIATTR_VRC_CTA_INIT_COUNT", Bval, Opaque),
    a(0x4b, "EIATTR_TOOLS_PATCH_FUNC", Sval, Opaque),
    a(0x4c, "EIATTR_NUM_BARRIERS", Bval, Opaque),
    a(0x4d, "EIATTR_TEXMODE_INDEPENDENT", Nval, Opaque),
    a(0x4e, "EIATTR_PERF_STATISTICS", Sval, Opaque),
    a(0x4f, "EIATTR_AT_ENTRY_FRAGMENTS", Sval, Opaque),
    a(0x50, "EIATTR_SPARSE_MMA_MASK", Hval, Opaque),
    a(0x51, "EIATTR_TCGEN05_1CTA_USED", Nval, Opaque),
    a(0x52, "EIATTR_TCGEN05_2CTA_USED", Nval, Opaque),
    a(0x53, "EIATTR_GEN_ERRBAR_AT_EXIT", Nval, Opaque),
    a(0x54, "EIATTR_REG_RECONFIG", Nval, Opaque),
    a(0x55, "EIATTR_ANNOTATIONS", Sval, Opaque),
    a(0x57, "EIATTR_STACK_CANARY_TRAP_OFFSETS", Sval, Words),
    a(0x58, "EIATTR_STUB_FUNCTION_KIND", Sval, Opaque),
    a(0x59, "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS", Sval, Words),
    a(0x5a, "EIATTR_MERCURY_FINALIZER_OPTIONS", Sval, Opaque),
    a(0x5b, "EIATTR_BLOCKS_ARE_CLUSTERS", Nval, Opaque),
    a(0x5c, "EIATTR_SANITIZE", Nval, Opaque),
    a(0x5d, "EIATTR_SYSCALLS_FALLBACK", Sval, Words),
    a(0x5e, "EIATTR_CUDA_REQ", Sval, Opaque),
    a(0x5f, "EIATTR_MERCURY_ISA_VERSION", Hval, Opaque),
    a(0x66, "EIATTR_LANGUAGE", Sval, Words),
    a(0x67, "EIATTR_0x67", Bval, Opaque),
    a(0x6b, "EIATTR_NVSAL_SW_WAR", Hval, Opaque),
    a(0x6d, "EIATTR_PREEXIT_USED", Bval, Opaque),
];

/// `.nv.compat` codes (cuobjdump names; 0x07 and 0x0d are unnamed there).
pub const EICOMPAT_ATTRS: &[AttrInfo] = &[
    a(0x02, "EICOMPAT_ATTR_ISA_CLASS", Bval, Opaque),
    a(0x03, "EICOMPAT_ATTR_INST_TENSORMAP_V1", Bval, Opaque),
    a(0x07, "EICOMPAT_ATTR_0x07", Hval, Opaque),
    a(0x09, "EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET", Bval, Opaque),
    a(0x0b, "EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE", Sval, Opaque),
    a(0x0c, "EICOMPAT_ATTR_CUDA_INTERNAL_TARGET", Bval, Opaque),
    a(0x0d, "EICOMPAT_ATTR_0x0d", Hval, Opaque),
    a(0x0e, "EICOMPAT_ATTR_FINALIZER_VERSION", Hval, Opaque),
];

/// Well-known EIATTR codes used by the builder.
pub mod code {
    #![allow(missing_docs)]
    pub const CTAIDZ_USED: u8 = 0x04;
    pub const MAX_THREADS: u8 = 0x05;
    pub const PARAM_CBANK: u8 = 0x0a;
    pub const EXTERNS: u8 = 0x0f;
    pub const REQNTID: u8 = 0x10;
    pub const FRAME_SIZE: u8 = 0x11;
    pub const MIN_STACK_SIZE: u8 = 0x12;
    pub const KPARAM_INFO: u8 = 0x17;
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    pub const MAXREG_COUNT: u8 = 0x1b;
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    pub const MAX_STACK_SIZE: u8 = 0x23;
    pub const REGCOUNT: u8 = 0x2f;
    pub const SW2861232_WAR: u8 = 0x35;
    pub const SW_WAR: u8 = 0x36;
    pub const CUDA_API_VERSION: u8 = 0x37;
    pub const VRC_CTA_INIT_COUNT: u8 = 0x4a;
    pub const NUM_BARRIERS: u8 = 0x4c;
    pub const SPARSE_MMA_MASK: u8 = 0x50;
    pub const MERCURY_ISA_VERSION: u8 = 0x5f;
    pub const LANGUAGE: u8 = 0x66;
    pub const ATTR_0X67: u8 = 0x67;
    pub const NVSAL_SW_WAR: u8 = 0x6b;
    pub const PREEXIT_USED: u8 = 0x6d;
}

/// The table entry of EIATTR `code`.
pub fn eiattr(code: u8) -> Option<&'static AttrInfo> {
    EIATTRS.iter().find(|i| i.code == code)
}

/// The table entry of EICOMPAT `code`.
pub fn eicompat(code: u8) -> Option<&'static AttrInfo> {
    EICOMPAT_ATTRS.iter().find(|i| i.code == code)
}

/// One parameter's `EIATTR_KPARAM_INFO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KParamInfo {
    /// Always 0 in ptxas output.
    pub index: u32,
    /// Parameter number.
    pub ordinal: u16,
    /// Byte offset within the parameters.
    pub offset: u16,
    /// The packed word: log2 alignment [7:0], space [11:8], cbank [16:12],
    /// is-not-cbank [17], size [31:18].
    pub packed: u32,
}

impl KParamInfo {
    /// Size in bytes.
    pub fn size(&self) -> u32 {
        self.packed >> 18
    }
    /// The payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(12);
        v.put_u32(self.index);
        v.put_u16(self.ordinal);
        v.put_u16(self.offset);
        v.put_u32(self.packed);
        v
    }
    /// Decodes a 12-byte payload.
    pub fn decode(payload: &[u8]) -> Option<KParamInfo> {
        if payload.len() != 12 {
            return None;
        }
        let mut c = Cursor::new(payload, 0);
        Some(KParamInfo {
            index: c.u32("").ok()?,
            ordinal: c.u16("").ok()?,
            offset: c.u16("").ok()?,
            packed: c.u32("").ok()?,
        })
    }
}

impl Attribute {
    /// A record with a u32-list payload.
    pub fn words(code: u8, words: &[u32]) -> Attribute {
        let mut v = Vec::with_capacity(words.len() * 4);
        for w in words {
            v.put_u32(*w);
        }
        Attribute { code, value: Value::Block(v) }
    }

    /// The record's format.
    pub fn format(&self) -> Format {
        match self.value {
            Value::Flag => Format::Nval,
            Value::Byte(_) => Format::Bval,
            Value::Half(_) => Format::Hval,
            Value::Block(_) => Format::Sval,
        }
    }

    /// Bytes the record takes.
    pub fn encoded_len(&self) -> u64 {
        4 + match &self.value {
            Value::Block(b) => b.len() as u64,
            _ => 0,
        }
    }

    /// The SVAL payload as u32 words, if it is a whole number of them.
    pub fn as_words(&self) -> Option<Vec<u32>> {
        match &self.value {
            Value::Block(b) if b.len() % 4 == 0 => {
                Some(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            }
            _ => None,
        }
    }

    /// The scalar value of an NVAL/BVAL/HVAL record.
    pub fn as_scalar(&self) -> Option<u16> {
        match self.value {
            Value::Flag => Some(0),
            Value::Byte(b) => Some(b.into()),
            Value::Half(h) => Some(h),
            Value::Block(_) => None,
        }
    }
}

/// Decodes the records of a `.nv.info`-format section.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Attribute>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::new();
    while c.remaining() > 0 {
        let at = bytes.len() - c.remaining();
        let format = c.u8("attribute format")?;
        let code = c.u8("attribute code")?;
        let v = c.u16("attribute value")?;
        let value = match format {
            1 if v == 0 => Value::Flag,
            2 if v <= 0xff => Value::Byte(v as u8),
            3 => Value::Half(v),
            4 => Value::Block(c.take(v.into(), "attribute payload")?.to_vec()),
            _ => {
                return Err(malformed(format!(
                    "attribute record at {at:#x}: format {format} with value {v:#x} (code {code:#x})"
                )));
            }
        };
        out.push(Attribute { code, value });
    }
    Ok(out)
}

pub(crate) fn encode(attrs: &[Attribute], out: &mut Vec<u8>) -> Result<()> {
    for a in attrs {
        out.put_u8(a.format() as u8);
        out.put_u8(a.code);
        match &a.value {
            Value::Flag => out.put_u16(0),
            Value::Byte(b) => out.put_u16((*b).into()),
            Value::Half(h) => out.put_u16(*h),
            Value::Block(b) => {
                let len = u16::try_from(b.len()).map_err(|_| {
                    malformed(format!("attribute {:#x}: payload of {} bytes exceeds 65535", a.code, b.len()))
                })?;
                out.put_u16(len);
                out.extend_from_slice(b);
            }
        }
    }
    Ok(())
}
