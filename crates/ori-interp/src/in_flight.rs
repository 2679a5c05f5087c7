//! Shared memory that asynchronous operations have claimed and not yet
//! released: the destination of a copy that has not landed (`LDGSTS`
//! before its `DEPBAR`, `UBLKCP` before its mbarrier phase completes).
//!
//! The interpreter lands asynchronous copies as late as the hardware may:
//! at the wait that orders them before later accesses. Until then the
//! hardware may have written any part of the destination, or none, so an
//! access to those bytes is a race whose outcome the program cannot know;
//! the interpreter reports it as a fault naming the instruction that
//! issued the copy, rather than letting the access see stale bytes that a
//! GPU would only sometimes show.

use std::fmt;

/// What claimed a byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Index of the instruction that issued the operation.
    pub pc: usize,
    /// Its opcode, for messages.
    pub op: &'static str,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the {} at instruction {}", self.op, self.pc)
    }
}

/// The claimed bytes of the shared memory of each CTA of a cluster.
#[derive(Clone, Debug, Default)]
pub struct InFlight {
    /// Per rank, per byte: the claim's index in `claims` plus one (0:
    /// free); empty until the rank's first claim.
    bytes: Vec<Vec<u32>>,
    /// Distinct claims, in first-use order.
    claims: Vec<Claim>,
    /// Bytes claimed over all ranks: nothing to check while 0.
    claimed: usize,
}

impl InFlight {
    /// Claims bytes `off .. off + len` of rank `rank` (of `size` bytes of
    /// shared memory) for `claim`. Bytes already claimed are an error
    /// naming their claim: two copies in flight to one byte land in an
    /// order the program cannot know.
    pub fn claim(&mut self, rank: usize, size: usize, off: u64, len: usize, claim: Claim) -> Result<(), String> {
        if let Some(earlier) = self.claim_of(rank, off, len) {
            return Err(format!(
                "{claim} writes shared memory at {off:#x} ({len} bytes) while {earlier} has not landed there"
            ));
        }
        if self.bytes.len() <= rank {
            self.bytes.resize(rank + 1, Vec::new());
        }
        let bytes = &mut self.bytes[rank];
        if bytes.is_empty() {
            bytes.resize(size, 0);
        }
        let tag = match self.claims.iter().position(|c| *c == claim) {
            Some(i) => i as u32 + 1,
            None => {
                self.claims.push(claim);
                self.claims.len() as u32
            }
        };
        let Some(range) = range(bytes.len(), off, len) else { return Ok(()) };
        self.claimed += range.len();
        bytes[range].fill(tag);
        Ok(())
    }

    /// Releases bytes `off .. off + len` of rank `rank`: the copy landed.
    pub fn release(&mut self, rank: usize, off: u64, len: usize) {
        let Some(bytes) = self.bytes.get_mut(rank) else { return };
        let Some(range) = range(bytes.len(), off, len) else { return };
        for b in &mut bytes[range] {
            if *b != 0 {
                *b = 0;
                self.claimed -= 1;
            }
        }
    }

    /// The claim on any of bytes `off .. off + len` of rank `rank`.
    pub fn claim_of(&self, rank: usize, off: u64, len: usize) -> Option<Claim> {
        if self.claimed == 0 {
            return None;
        }
        let bytes = self.bytes.get(rank)?;
        let tag = bytes[range(bytes.len(), off, len)?].iter().copied().find(|&t| t != 0)?;
        Some(self.claims[tag as usize - 1])
    }

    /// `Err` with a message when an access of bytes `off .. off + len` of
    /// rank `rank` races with a claim.
    pub fn check(&self, rank: usize, off: u64, len: usize) -> Result<(), String> {
        match self.claim_of(rank, off, len) {
            None => Ok(()),
            Some(claim) => Err(format!(
                "shared memory at {off:#x} ({len} bytes) is the destination of {claim}, \
                 which has not landed: no wait orders this access after it"
            )),
        }
    }
}

/// `off .. off + len` clamped to `size` bytes (bounds are checked where the
/// bytes are accessed).
fn range(size: usize, off: u64, len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(off).ok()?.min(size);
    Some(start..start.saturating_add(len).min(size))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COPY: Claim = Claim { pc: 7, op: "LDGSTS" };

    #[test]
    fn claimed_bytes_fault_until_released() {
        let mut f = InFlight::default();
        assert!(f.check(0, 0, 4096).is_ok());
        f.claim(1, 256, 16, 16, COPY).unwrap();
        assert!(f.check(0, 16, 16).is_ok(), "another CTA's bytes");
        assert!(f.check(1, 0, 16).is_ok());
        let msg = f.check(1, 30, 4).unwrap_err();
        assert!(msg.contains("0x1e") && msg.contains("LDGSTS at instruction 7"), "{msg}");
        let twice = f.claim(1, 256, 24, 4, Claim { pc: 9, op: "UBLKCP" }).unwrap_err();
        assert!(twice.contains("UBLKCP at instruction 9") && twice.contains("LDGSTS at instruction 7"), "{twice}");
        f.release(1, 16, 8);
        assert!(f.check(1, 16, 8).is_ok());
        assert!(f.check(1, 24, 1).is_err());
        f.release(1, 24, 8);
        assert_eq!(f.claimed, 0);
        assert!(f.check(1, 0, 256).is_ok());
    }
}
