//! The ELF file header of a cubin and its NVIDIA-specific fields.

use crate::bytes::{Cursor, Put};
use crate::error::{Result, malformed};

/// Size of the ELF64 file header.
pub const EHDR_SIZE: u64 = 64;
/// Size of one ELF64 section header.
pub const SHDR_SIZE: u64 = 64;
/// Size of one ELF64 program header.
pub const PHDR_SIZE: u64 = 56;

/// `e_machine` of every cubin.
pub const EM_CUDA: u16 = 190;
/// `e_ident[EI_OSABI]` of every cubin (NVIDIA's "CUDA" ABI).
pub const ELFOSABI_CUDA: u8 = 0x41;
/// `e_ident[EI_ABIVERSION]` written by ptxas 13.5.
pub const CUDA_ABI_VERSION: u8 = 8;
/// `e_type` of whole-program output.
pub const ET_EXEC: u16 = 2;
/// `e_type` of `-c` (relocatable) output.
pub const ET_REL: u16 = 1;

/// The ELF header. `e_phnum`, `e_shnum` come from the cubin's tables; every
/// other field is kept as found so that rewriting reproduces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `e_ident` (magic, class, data, version, OS ABI, ABI version, padding).
    pub ident: [u8; 16],
    /// `e_type`: [`ET_EXEC`] or [`ET_REL`].
    pub e_type: u16,
    /// `e_machine`: [`EM_CUDA`].
    pub machine: u16,
    /// `e_version`.
    pub version: u32,
    /// `e_entry` (0 in cubins).
    pub entry: u64,
    /// `e_phoff`: file offset of the program headers.
    pub phoff: u64,
    /// `e_shoff`: file offset of the section headers.
    pub shoff: u64,
    /// `e_flags`: see [`EFlags`].
    pub flags: u32,
    /// `e_ehsize`.
    pub ehsize: u16,
    /// `e_phentsize`.
    pub phentsize: u16,
    /// `e_shentsize`.
    pub shentsize: u16,
    /// `e_shstrndx`: index of `.shstrtab`.
    pub shstrndx: u16,
}

/// Counts stored in the header but owned by the tables.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counts {
    pub phnum: u16,
    pub shnum: u16,
}

impl Header {
    /// The identification bytes of a cubin: ELF64, little endian, CUDA ABI.
    pub fn cuda_ident() -> [u8; 16] {
        let mut id = [0u8; 16];
        id[..4].copy_from_slice(b"\x7fELF");
        id[4] = 2;
        id[5] = 1;
        id[6] = 1;
        id[7] = ELFOSABI_CUDA;
        id[8] = CUDA_ABI_VERSION;
        id
    }

    /// Decoded `e_flags`.
    pub fn eflags(&self) -> EFlags {
        EFlags(self.flags)
    }

    pub(crate) fn read(bytes: &[u8]) -> Result<(Header, Counts)> {
        let mut c = Cursor::new(bytes, 0);
        let id = c.take(16, "ELF identification")?;
        if &id[..4] != b"\x7fELF" {
            return Err(malformed("not an ELF file (bad magic)"));
        }
        if id[4] != 2 || id[5] != 1 {
            return Err(malformed(format!("not a little-endian ELF64 file (class {}, data {})", id[4], id[5])));
        }
        let mut ident = [0u8; 16];
        ident.copy_from_slice(id);
        let e_type = c.u16("e_type")?;
        let machine = c.u16("e_machine")?;
        if machine != EM_CUDA {
            return Err(malformed(format!("e_machine {machine} is not EM_CUDA ({EM_CUDA})")));
        }
        let version = c.u32("e_version")?;
        let entry = c.u64("e_entry")?;
        let phoff = c.u64("e_phoff")?;
        let shoff = c.u64("e_shoff")?;
        let flags = c.u32("e_flags")?;
        let ehsize = c.u16("e_ehsize")?;
        let phentsize = c.u16("e_phentsize")?;
        let phnum = c.u16("e_phnum")?;
        let shentsize = c.u16("e_shentsize")?;
        let shnum = c.u16("e_shnum")?;
        let shstrndx = c.u16("e_shstrndx")?;
        if shentsize as u64 != SHDR_SIZE {
            return Err(malformed(format!("e_shentsize {shentsize} is not {SHDR_SIZE}")));
        }
        if phnum != 0 && phentsize as u64 != PHDR_SIZE {
            return Err(malformed(format!("e_phentsize {phentsize} is not {PHDR_SIZE}")));
        }
        let header = Header {
            ident,
            e_type,
            machine,
            version,
            entry,
            phoff,
            shoff,
            flags,
            ehsize,
            phentsize,
            shentsize,
            shstrndx,
        };
        Ok((header, Counts { phnum, shnum }))
    }

    pub(crate) fn write(&self, counts: Counts, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.ident);
        out.put_u16(self.e_type);
        out.put_u16(self.machine);
        out.put_u32(self.version);
        out.put_u64(self.entry);
        out.put_u64(self.phoff);
        out.put_u64(self.shoff);
        out.put_u32(self.flags);
        out.put_u16(self.ehsize);
        out.put_u16(self.phentsize);
        out.put_u16(counts.phnum);
        out.put_u16(self.shentsize);
        out.put_u16(counts.shnum);
        out.put_u16(self.shstrndx);
    }
}

/// `e_flags` of a cubin: bits 0-7 address/ABI mode (4 for sm_7x-sm_9x, 2 for
/// sm_100+), bits 8-15 the SM number, bits 24-31 the debug level (6 plain,
/// 9 with line tables, 0x0a with inlined line tables, 0x0b `-g`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EFlags(pub u32);

impl EFlags {
    /// The real SM the code is for (80 for sm_80; suffixes a/f are not recorded).
    pub fn sm(self) -> u32 {
        (self.0 >> 8) & 0xff
    }
    /// Bits 0-7.
    pub fn mode(self) -> u32 {
        self.0 & 0xff
    }
    /// Bits 24-31.
    pub fn debug_level(self) -> u32 {
        self.0 >> 24
    }
}
