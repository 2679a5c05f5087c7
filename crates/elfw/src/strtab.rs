//! String tables: lookup by offset and an appending builder.

use crate::error::{Result, malformed};

/// The NUL-terminated string at `offset` of the table `table`.
pub fn lookup(table: &[u8], offset: u32) -> Result<String> {
    let start = offset as usize;
    let Some(rest) = table.get(start..) else {
        return Err(malformed(format!(
            "string offset {offset:#x} past the end of its table ({:#x} bytes)",
            table.len()
        )));
    };
    let Some(len) = rest.iter().position(|&b| b == 0) else {
        return Err(malformed(format!("string at {offset:#x} is not NUL-terminated")));
    };
    Ok(String::from_utf8_lossy(&rest[..len]).into_owned())
}

/// Builds a string table the way ptxas does: strings appended in order of
/// first request, each once, after a leading NUL; no suffix sharing.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    bytes: Vec<u8>,
}

impl StringTable {
    /// An empty table (just the leading NUL).
    pub fn new() -> Self {
        StringTable { bytes: vec![0] }
    }

    /// A table holding `bytes` (for lookups).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        StringTable { bytes: bytes.to_vec() }
    }

    /// The offset of `s`, appending it if not yet present.
    pub fn intern(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(off) = self.find(s) {
            return off;
        }
        self.append(s)
    }

    /// Appends `s` even if present (ptxas records strings of sections it later drops).
    pub fn append(&mut self, s: &str) -> u32 {
        let off = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        off
    }

    /// The offset of a whole string `s` already in the table.
    pub fn find(&self, s: &str) -> Option<u32> {
        let mut start = 1;
        while start < self.bytes.len() {
            let len = self.bytes[start..].iter().position(|&b| b == 0)?;
            if &self.bytes[start..start + len] == s.as_bytes() {
                return Some(start as u32);
            }
            start += len + 1;
        }
        None
    }

    /// The table's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}
