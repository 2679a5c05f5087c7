//! Bounds-checked little-endian access to byte slices, and the matching writer.

use crate::error::{Error, Result};

/// A position in an input slice; every read checks bounds and names what it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` of `bytes`.
    pub(crate) fn new(bytes: &'a [u8], pos: usize) -> Self {
        Cursor { bytes, pos }
    }

    /// Bytes left after the cursor.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// Takes the next `n` bytes.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(Error::Truncated { what: what.to_string(), end: (self.pos as u64).saturating_add(n as u64) });
        };
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// The slice `bytes[offset..offset + size]`, or a truncation error naming `what`.
pub(crate) fn slice<'a>(bytes: &'a [u8], offset: u64, size: u64, what: &str) -> Result<&'a [u8]> {
    let end = offset.checked_add(size);
    match end {
        Some(end) if end <= bytes.len() as u64 => Ok(&bytes[offset as usize..end as usize]),
        _ => Err(Error::Truncated { what: what.to_string(), end: end.unwrap_or(u64::MAX) }),
    }
}

/// Little-endian appends to a byte vector.
pub trait Put {
    /// One byte.
    fn put_u8(&mut self, v: u8);
    /// Little-endian u16.
    fn put_u16(&mut self, v: u16);
    /// Little-endian u32.
    fn put_u32(&mut self, v: u32);
    /// Little-endian u64.
    fn put_u64(&mut self, v: u64);
    /// Unsigned LEB128 (DWARF).
    fn put_uleb(&mut self, v: u64);
    /// Signed LEB128 (DWARF).
    fn put_sleb(&mut self, v: i64);
}

impl Put for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_uleb(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.push(byte);
                return;
            }
            self.push(byte | 0x80);
        }
    }
    fn put_sleb(&mut self, mut v: i64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0) {
                self.push(byte);
                return;
            }
            self.push(byte | 0x80);
        }
    }
}

/// `v` rounded up to a multiple of `align` (0 and 1 mean no alignment).
pub(crate) fn align_up(v: u64, align: u64) -> u64 {
    if align <= 1 { v } else { v.div_ceil(align) * align }
}
