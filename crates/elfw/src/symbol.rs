//! ELF64 symbols, including NVIDIA's symbol types and `st_other` bits.

use crate::bytes::{Cursor, Put};
use crate::error::Result;
use crate::strtab;

/// Size of one ELF64 symbol.
pub const SYM_SIZE: u64 = 24;

/// Symbol bindings.
pub mod bind {
    /// Local.
    pub const LOCAL: u8 = 0;
    /// Global.
    pub const GLOBAL: u8 = 1;
    /// Weak (reserved shared memory symbols).
    pub const WEAK: u8 = 2;
}

/// Symbol types.
pub mod stt {
    /// No type.
    pub const NOTYPE: u8 = 0;
    /// Data object (globals, constants).
    pub const OBJECT: u8 = 1;
    /// Function.
    pub const FUNC: u8 = 2;
    /// Section symbol.
    pub const SECTION: u8 = 3;
    /// NVIDIA's data object in `-c` output (type 13): variables, `_param`,
    /// `_SREG`; `st_other` gives the space (0x20 global, 0x40 shared, 0x80
    /// constant, 0x81 constant bank of a function).
    pub const CUDA_OBJECT: u8 = 13;
}

/// `st_other` values.
pub mod sto {
    /// Internal visibility (the unnamed LOCAL NOTYPE symbol).
    pub const INTERNAL: u8 = 0x01;
    /// Kernel entry point (cuobjdump "ENTRY").
    pub const CUDA_ENTRY: u8 = 0x10;
}

/// One symbol-table entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name, looked up in the linked string table.
    pub name: String,
    /// `st_name`; the writer writes this offset.
    pub name_offset: u32,
    /// `st_info`: binding << 4 | type.
    pub info: u8,
    /// `st_other`.
    pub other: u8,
    /// `st_shndx`.
    pub shndx: u16,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// Binding (see [`bind`]).
    pub fn bind(&self) -> u8 {
        self.info >> 4
    }
    /// Type (see [`stt`]).
    pub fn kind(&self) -> u8 {
        self.info & 0xf
    }
}

/// Decodes a symbol table whose names are in `strings`.
pub(crate) fn decode(bytes: &[u8], strings: &[u8]) -> Result<Vec<Symbol>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::with_capacity(bytes.len() / SYM_SIZE as usize);
    while c.remaining() > 0 {
        let name_offset = c.u32("st_name")?;
        let info = c.u8("st_info")?;
        let other = c.u8("st_other")?;
        let shndx = c.u16("st_shndx")?;
        let value = c.u64("st_value")?;
        let size = c.u64("st_size")?;
        let name = strtab::lookup(strings, name_offset)?;
        out.push(Symbol { name, name_offset, info, other, shndx, value, size });
    }
    Ok(out)
}

pub(crate) fn encode(symbols: &[Symbol], out: &mut Vec<u8>) {
    for s in symbols {
        out.put_u32(s.name_offset);
        out.put_u8(s.info);
        out.put_u8(s.other);
        out.put_u16(s.shndx);
        out.put_u64(s.value);
        out.put_u64(s.size);
    }
}
