//! Reading the line programs of `.debug_line` and `.nv_debug_line_sass`
//! back into rows (the builder's `build/lines.rs` writes them).

use crate::error::{Error, Result};
use ori_ir::object::{LineFile, LineRow};

/// A decoded line program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineProgram {
    /// Include directories.
    pub directories: Vec<String>,
    /// File table.
    pub files: Vec<LineFile>,
    /// Zero bytes between the file table and the program (ptxas writes 4
    /// with its inlining extension).
    pub header_padding: usize,
    /// Per sequence: the offset of its `DW_LNE_set_address` operand (what
    /// the relocation naming the function points at) and its rows.
    pub sequences: Vec<(u64, Vec<LineRow>)>,
}

struct Reader<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8> {
        let b = *self.bytes.get(self.pos).ok_or_else(|| Error::Input("line program ends early".into()))?;
        self.pos += 1;
        Ok(b)
    }

    fn uleb(&mut self) -> Result<u64> {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let byte = self.u8()?;
            if shift < 64 {
                v |= u64::from(byte & 0x7f) << shift;
            }
            shift += 7;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
    }

    fn sleb(&mut self) -> Result<i64> {
        let (mut v, mut shift) = (0i64, 0);
        loop {
            let byte = self.u8()?;
            if shift < 64 {
                v |= i64::from(byte & 0x7f) << shift;
            }
            shift += 7;
            if byte & 0x80 == 0 {
                if shift < 64 && byte & 0x40 != 0 {
                    v |= -1 << shift;
                }
                return Ok(v);
            }
        }
    }

    fn cstr(&mut self) -> Result<String> {
        let start = self.pos;
        while self.u8()? != 0 {}
        Ok(String::from_utf8_lossy(&self.bytes[start..self.pos - 1]).into_owned())
    }

    fn u32_at(&self, at: usize) -> Result<u32> {
        let b = self.bytes.get(at..at + 4).ok_or_else(|| Error::Input("line program header cut short".into()))?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
}

/// Decodes a line program as ptxas writes it: one unit, version 2-4
/// header, standard and extended opcodes, and ptxas's inlining extension
/// (extended opcode 0x90).
pub fn decode(bytes: &[u8]) -> Result<LineProgram> {
    let mut r = Reader { bytes, pos: 0 };
    let unit_end = (4 + r.u32_at(0)? as usize).min(bytes.len());
    let header_end = 10 + r.u32_at(6)? as usize;
    r.pos = 12;
    let line_base = i64::from(r.u8()? as i8);
    let line_range = i64::from(r.u8()?.max(1));
    let opcode_base = r.u8()?;
    r.pos += usize::from(opcode_base.saturating_sub(1));
    let mut program = LineProgram::default();
    while r.bytes.get(r.pos).is_some_and(|&b| b != 0) {
        program.directories.push(r.cstr()?);
    }
    r.u8()?;
    while r.bytes.get(r.pos).is_some_and(|&b| b != 0) {
        let name = r.cstr()?;
        let (directory, mtime, size) = (r.uleb()? as u32, r.uleb()?, r.uleb()?);
        program.files.push(LineFile { name, directory, mtime, size });
    }
    r.u8()?;
    program.header_padding = header_end.saturating_sub(r.pos);
    r.pos = header_end;
    let (mut rows, mut field, mut address, mut file, mut line) = (Vec::new(), 0u64, 0i64, 1u32, 1i64);
    let (mut prologue_end, mut inline) = (false, None);
    while r.pos < unit_end {
        let op = r.u8()?;
        let mut row = false;
        match op {
            0 => {
                let len = r.uleb()? as usize;
                let body = r.pos;
                match r.u8()? {
                    1 => {
                        program.sequences.push((field, std::mem::take(&mut rows)));
                        (address, file, line) = (0, 1, 1);
                    }
                    2 => field = body as u64 + 1,
                    0x90 => inline = Some([r.uleb()? as u32, r.uleb()? as u32]),
                    other => return Err(Error::Input(format!("line program: extended opcode {other:#x}"))),
                }
                r.pos = body + len;
            }
            1 => row = true,
            2 => address += r.sleb()?,
            3 => line += r.sleb()?,
            4 => file = r.uleb()? as u32,
            10 => prologue_end = true,
            op if op >= opcode_base => {
                let adjusted = i64::from(op - opcode_base);
                address += adjusted / line_range;
                line += line_base + adjusted % line_range;
                row = true;
            }
            other => return Err(Error::Input(format!("line program: standard opcode {other}"))),
        }
        if row {
            let offset =
                u32::try_from(address).map_err(|_| Error::Input("line program: address out of range".into()))?;
            let line = u32::try_from(line).map_err(|_| Error::Input("line program: line out of range".into()))?;
            rows.push(LineRow { offset, file, line, prologue_end, inline: inline.take() });
            prologue_end = false;
        }
    }
    Ok(program)
}
