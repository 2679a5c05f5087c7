//! The `.nv.capmerc.text.<fn>` container (measured on ptxas 13.5's sm_100+
//! cubins; see `docs/capmerc.md`).
//!
//! ```text
//! u32 section index of .text.<fn>
//! u32 0xc000_0001
//! u32 n: the function's instructions, those the finalizer adds left out
//! u32 plain[ceil(n / 32)]: bit i set = instruction i has no record
//! records, one per instruction whose bit is clear, in instruction order
//! ```
//!
//! A record is a run of 2-byte prefixes (kind 0x51) and one body whose
//! kind (the low 7 bits of its first byte) fixes its length. What the
//! bytes of a body mean is only partly known (see the docs), so a record
//! is kept as bytes.

use crate::bytes::Cursor;
use crate::error::{Result, malformed};

/// The second header word of every capsule.
pub const MAGIC: u32 = 0xc000_0001;

/// Record kinds (low 7 bits of a record's first byte) and their lengths.
/// Kind 0x51 is a 2-byte prefix of the body that follows it.
const BODY_LEN: &[(u8, usize)] = &[(0x00, 2), (0x01, 16), (0x02, 32), (0x41, 4), (0x42, 4), (0x50, 2)];

/// Kind of the 2-byte prefixes.
const PREFIX: u8 = 0x51;

/// SASS opcode fields (bits 0..11) of instructions the finalizer adds and
/// the capsule does not count: `NOP` (padding, hazards) anywhere, and after
/// a `MEMBAR` the `ERRBAR`, `CGAERRBAR`, `CCTL.IVALL` of a fence wider than
/// the CTA or the `FENCE.VIEW.ASYNC.S` of `fence.proxy.async`.
const NOP: u16 = 0x918;
const MEMBAR: u16 = 0x992;
const MEMBAR_COMPANIONS: &[u16] = &[0x9ab, 0x5ab, 0x98f, 0x3c6];

/// `BAR` (immediate, register barrier, register count) and the
/// `B2R.RESULT` the finalizer puts after a `BAR.RED` (probes `bar.ptx`,
/// `barred.ptx`: 4 of 4 not counted, the records skip them).
const BAR: &[u16] = &[0xb1d, 0x51d, 0x91d];
const B2R: u16 = 0x31c;

/// `@!PT LDS RZ, [RZ]`: the finalizer puts three before each `LDGSTS`
/// (`cp.async`); never executed, not in the capsule (conv1d_cp_async: 119
/// instructions in `.text`, 113 in the capsule, the six of these left out).
const NEVER_LDS: u128 = 0x0000_0000_0000_0800_0000_0000_ffff_f984;
/// The bits of [`NEVER_LDS`] that identify it: opcode, guard, destination,
/// address and the rest of the low 64 bits; the schedule bits above 105
/// vary.
const NEVER_LDS_MASK: u128 = (1 << 105) - 1;

/// One parsed capsule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capsule {
    /// The header fields that depend only on `.text`.
    pub header: Header,
    /// Bit `i` of word `i / 32` set: instruction `i` has no record.
    pub plain: Vec<u32>,
    /// The records, in instruction order.
    pub records: Vec<Record>,
}

/// The first three header words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Section index of `.text.<fn>`.
    pub text_section: u32,
    /// Instructions described (the `.text` instructions but those the
    /// finalizer adds).
    pub instructions: u32,
}

/// The record of one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Index of the instruction among the capsule's instructions.
    pub instruction: u32,
    /// The record bytes, prefixes included.
    pub bytes: Vec<u8>,
}

impl Header {
    /// The header ptxas writes for code `text` in section `text_section`.
    pub fn of_text(text_section: u32, text: &[u8]) -> Header {
        Header { text_section, instructions: instructions(text).count() as u32 }
    }
}

/// The instructions a capsule describes: (offset in `.text`, the 128-bit
/// word), in order, leaving out those the finalizer adds.
pub fn instructions(text: &[u8]) -> impl Iterator<Item = (usize, u128)> + '_ {
    let (mut after_membar, mut after_bar) = (false, false);
    text.chunks_exact(16).enumerate().filter_map(move |(i, word)| {
        let op = opcode(word);
        let mut w = [0u8; 16];
        w.copy_from_slice(word);
        let w = u128::from_le_bytes(w);
        if op == NOP
            || (after_membar && MEMBAR_COMPANIONS.contains(&op))
            || (after_bar && op == B2R)
            || w & NEVER_LDS_MASK == NEVER_LDS
        {
            return None;
        }
        after_membar = op == MEMBAR;
        after_bar = BAR.contains(&op);
        Some((16 * i, w))
    })
}

/// The SASS opcode field of a 16-byte instruction.
fn opcode(word: &[u8]) -> u16 {
    u16::from_le_bytes([word[0], word[1]]) & 0xfff
}

impl Capsule {
    /// Parses a capsule; every malformation is an error.
    pub fn parse(bytes: &[u8]) -> Result<Capsule> {
        let mut c = Cursor::new(bytes, 0);
        let text_section = c.u32("capsule header")?;
        let magic = c.u32("capsule header")?;
        if magic != MAGIC {
            return Err(malformed(format!("capsule magic {magic:#x}, expected {MAGIC:#x}")));
        }
        let instructions = c.u32("capsule header")?;
        let words = instructions.div_ceil(32) as usize;
        if words > c.remaining() / 4 {
            return Err(malformed(format!("capsule of {instructions} instructions has no room for its mask")));
        }
        let plain = (0..words).map(|_| c.u32("capsule mask")).collect::<Result<Vec<_>>>()?;
        let mut records = Vec::new();
        for i in 0..instructions {
            if plain[i as usize / 32] >> (i % 32) & 1 == 1 {
                continue;
            }
            let mut record = Vec::new();
            loop {
                let first = c.u8("capsule record")?;
                let kind = first & 0x7f;
                if kind == PREFIX {
                    record.extend_from_slice(&[first, c.u8("capsule record prefix")?]);
                    continue;
                }
                let len =
                    BODY_LEN.iter().find(|&&(k, _)| k == kind).map(|&(_, len)| len).ok_or_else(|| {
                        malformed(format!("capsule record of unknown kind {kind:#x} (instruction {i})"))
                    })?;
                record.push(first);
                record.extend_from_slice(c.take(len - 1, "capsule record")?);
                break;
            }
            records.push(Record { instruction: i, bytes: record });
        }
        if c.remaining() != 0 {
            return Err(malformed(format!("{} bytes after the last capsule record", c.remaining())));
        }
        Ok(Capsule { header: Header { text_section, instructions }, plain, records })
    }

    /// The capsule's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + 4 * self.plain.len());
        for w in [self.header.text_section, MAGIC, self.header.instructions].iter().chain(&self.plain) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for r in &self.records {
            out.extend_from_slice(&r.bytes);
        }
        out
    }
}
