//! ELF notes and NVIDIA's two: `.note.nv.cuinfo` (type 1000) and
//! `.note.nv.tkinfo` (type 2000), both owned by "NVIDIA Corp".

use crate::bytes::{Cursor, Put, align_up};
use crate::error::{Result, malformed};

/// Owner name of NVIDIA's notes.
pub const NVIDIA_OWNER: &str = "NVIDIA Corp";
/// `n_type` of `.note.nv.cuinfo`.
pub const NT_CUDA_INFO: u32 = 1000;
/// `n_type` of `.note.nv.tkinfo`.
pub const NT_TOOLKIT_INFO: u32 = 2000;

/// One note. Name and descriptor are each padded to 4 bytes in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The owner name's `namesz` bytes (NUL included).
    pub owner: Vec<u8>,
    /// `n_type`.
    pub kind: u32,
    /// The descriptor's `descsz` bytes.
    pub desc: Vec<u8>,
}

impl Note {
    /// Bytes the note takes in its section.
    pub fn encoded_len(&self) -> u64 {
        12 + align_up(self.owner.len() as u64, 4) + align_up(self.desc.len() as u64, 4)
    }

    /// A note owned by NVIDIA.
    pub fn nvidia(kind: u32, desc: Vec<u8>) -> Note {
        let mut owner = NVIDIA_OWNER.as_bytes().to_vec();
        owner.push(0);
        Note { owner, kind, desc }
    }
}

pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Note>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::new();
    while c.remaining() > 0 {
        let namesz = c.u32("note namesz")? as usize;
        let descsz = c.u32("note descsz")? as usize;
        let kind = c.u32("note type")?;
        let owner = c.take(namesz, "note name")?.to_vec();
        zero_padding(&mut c, namesz)?;
        let desc = c.take(descsz, "note descriptor")?.to_vec();
        zero_padding(&mut c, descsz)?;
        out.push(Note { owner, kind, desc });
    }
    Ok(out)
}

fn zero_padding(c: &mut Cursor<'_>, len: usize) -> Result<()> {
    let pad = (4 - len % 4) % 4;
    if c.take(pad, "note padding")?.iter().any(|&b| b != 0) {
        return Err(malformed("non-zero note padding"));
    }
    Ok(())
}

pub(crate) fn encode(notes: &[Note], out: &mut Vec<u8>) {
    for n in notes {
        out.put_u32(n.owner.len() as u32);
        out.put_u32(n.desc.len() as u32);
        out.put_u32(n.kind);
        out.extend_from_slice(&n.owner);
        out.resize(align_up(out.len() as u64, 4) as usize, 0);
        out.extend_from_slice(&n.desc);
        out.resize(align_up(out.len() as u64, 4) as usize, 0);
    }
}

/// The descriptor of `.note.nv.cuinfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CuInfo {
    /// Note version (2).
    pub version: u16,
    /// Virtual SM of the PTX (`.target`), e.g. 80.
    pub virtual_sm: u16,
    /// Toolkit version times 10 (135 for 13.5).
    pub toolkit: u16,
    /// Unused (0).
    pub reserved: u16,
}

impl CuInfo {
    /// Decodes an 8-byte descriptor.
    pub fn decode(desc: &[u8]) -> Option<CuInfo> {
        if desc.len() != 8 {
            return None;
        }
        let mut c = Cursor::new(desc, 0);
        Some(CuInfo {
            version: c.u16("").ok()?,
            virtual_sm: c.u16("").ok()?,
            toolkit: c.u16("").ok()?,
            reserved: c.u16("").ok()?,
        })
    }

    /// The descriptor bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(8);
        v.put_u16(self.version);
        v.put_u16(self.virtual_sm);
        v.put_u16(self.toolkit);
        v.put_u16(self.reserved);
        v
    }
}

/// The descriptor of `.note.nv.tkinfo`: which tool made the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TkInfo {
    /// Note version (2).
    pub version: u32,
    /// Tool name ("ptxas").
    pub tool: String,
    /// Tool version line.
    pub tool_version: String,
    /// Build branch line.
    pub branch: String,
    /// Command-line options as ptxas records them (e.g. "-arch sm_80 ").
    pub command_line: String,
}

impl TkInfo {
    /// Decodes the descriptor: u32 version, u32 0, four u32 offsets into the
    /// string blob that follows (which starts with a NUL).
    pub fn decode(desc: &[u8]) -> Option<TkInfo> {
        let mut c = Cursor::new(desc, 0);
        let version = c.u32("").ok()?;
        let _zero = c.u32("").ok()?;
        let offs: Vec<u32> = (0..4).map(|_| c.u32("")).collect::<Result<_>>().ok()?;
        let blob = desc.get(24..)?;
        let s = |o: u32| crate::strtab::lookup(blob, o).ok();
        Some(TkInfo {
            version,
            tool: s(offs[0])?,
            tool_version: s(offs[1])?,
            branch: s(offs[2])?,
            command_line: s(offs[3])?,
        })
    }

    /// The descriptor bytes, laid out as ptxas lays them out (blob padded to 4).
    pub fn encode(&self) -> Vec<u8> {
        let mut blob = vec![0u8];
        let mut offs = [0u32; 4];
        for (o, s) in offs.iter_mut().zip([&self.tool, &self.tool_version, &self.branch, &self.command_line]) {
            *o = blob.len() as u32;
            blob.extend_from_slice(s.as_bytes());
            blob.push(0);
        }
        let mut v = Vec::with_capacity(24 + blob.len() + 3);
        v.put_u32(self.version);
        v.put_u32(0);
        for o in offs {
            v.put_u32(o);
        }
        v.extend_from_slice(&blob);
        v.resize(align_up(v.len() as u64, 4) as usize, 0);
        v
    }
}
