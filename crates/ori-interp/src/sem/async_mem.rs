//! Asynchronous copies, mbarriers and thread-block clusters: sm_80's
//! `LDGSTS`/`LDGDEPBAR`/`DEPBAR.LE SB0` (`cp.async`), sm_90's `SYNCS`
//! mbarrier operations and `UBLKCP` bulk copies (`cp.async.bulk`), the
//! cluster barrier `UCGABAR_ARV`/`UCGABAR_WAIT` and `ELECT`.
//!
//! Models (what the tests can rely on, and where they are coarser than the
//! hardware):
//! - Copies land as late as the hardware may land them, and their
//!   destination is claimed until then (`in_flight.rs`): any access to it
//!   faults, naming the copy, where a GPU would show old or new bytes
//!   depending on timing. Their global source is read when they land.
//! - `LDGSTS` queues its copy in the lane's open group (with `.ZFILL` or
//!   a false predicate operand, the part of it that reads and the zeros
//!   after it, as decided at issue); `LDGDEPBAR` closes
//!   that group; `DEPBAR.LE SB0, n` performs (reads global, writes shared)
//!   every copy of the lane's committed groups but the `n` most recent.
//! - Bulk copies (`UBLKCP`): their size operand counts 16-byte units. A
//!   global-to-shared copy completes its bytes on the mbarrier whose
//!   address is the second word of the destination pair; it lands, and
//!   completes them, when a thread first checks that mbarrier's phase
//!   (`SYNCS.PHASECHK`): the latest the hardware may finish it by, since
//!   the phase cannot complete without its bytes. A shared-to-global copy
//!   is performed when issued.
//! - An mbarrier is the 64-bit word NVIDIA's `mbarrier.init` writes with
//!   `SYNCS.EXCH.64`: for an expected count `c`, bits 1-20 hold the pending
//!   count and bits 43-62 the expected count, both as `2^20 - c`, and bit 63
//!   the phase (`SYNCS.PHASECHK` compares it with bit 31 of its operand).
//!   The transaction count is kept beside the word (its bits are not
//!   known); a phase completes when the pending count and the transaction
//!   count are both zero, then the pending count is reloaded.
//!   `SYNCS.PHASECHK.TRANS64.TRYWAIT` holds the warp until the phase it
//!   asks about has completed (one of the behaviours of a try-wait), so a
//!   phase that never completes is a deadlock, reported.
//! - The cluster barrier: each warp counts its arrivals; a wait lets a warp
//!   on once every warp of the cluster has arrived as often (exited warps
//!   count as arrived).

use std::collections::HashMap;

use crate::exec::{Cta, R, Stop, fault, lanes};
use crate::in_flight::Claim;
use crate::kind::{AsyncOp, Space};
use crate::memory::{load_le, store_le};
use crate::program::{Loc, Src, Step};
use crate::warp::{LANES, Warp};

/// The high word of generic addresses of the cluster's shared memory
/// (`SR_SWINHI`): a generic address `SHARED_WINDOW_HI:(rank << 24 | offset)`
/// is byte `offset` of the shared memory of the CTA of that rank. The
/// hardware's value is not known; this one lies far from global buffers.
pub const SHARED_WINDOW_HI: u32 = 0x0001_0000;

const COUNT_MASK: u64 = 0xf_ffff;
const PENDING_SHIFT: u32 = 1;
const EXPECTED_SHIFT: u32 = 43;
const PHASE_BIT: u64 = 1 << 63;

/// The pending arrivals of an mbarrier word.
pub fn mbar_pending(word: u64) -> u64 {
    (COUNT_MASK + 1 - (word >> PENDING_SHIFT & COUNT_MASK)) & COUNT_MASK
}

/// The current phase's parity.
pub fn mbar_phase(word: u64) -> bool {
    word & PHASE_BIT != 0
}

/// One arrival: the pending count drops by one.
pub fn mbar_arrive(word: u64) -> u64 {
    let field = (word >> PENDING_SHIFT).wrapping_add(1) & COUNT_MASK;
    word & !(COUNT_MASK << PENDING_SHIFT) | field << PENDING_SHIFT
}

/// The word after its phase completes: the other parity, the pending count
/// reloaded from the expected count.
pub fn mbar_next_phase(word: u64) -> u64 {
    let expected = word >> EXPECTED_SHIFT & COUNT_MASK;
    (word ^ PHASE_BIT) & !(COUNT_MASK << PENDING_SHIFT) | expected << PENDING_SHIFT
}

/// Copies a lane issued with `LDGSTS` and has not completed yet.
#[derive(Clone, Debug, Default)]
pub struct PendingCopies {
    /// (lane, group, global source, shared destination, bytes, bytes
    /// read from the source: the rest are zeros).
    copies: Vec<(u8, u32, u64, u64, u8, u8)>,
    /// Per lane: the number of its open group (groups before it are
    /// committed).
    open: [u32; LANES],
}

/// What the CTAs of a cluster share besides memory: the cluster barrier's
/// arrival counts, and the transaction counts of the mbarriers.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    /// Arrivals per warp (rank-major); `u32::MAX` once a warp exited.
    pub arrivals: Vec<u32>,
    /// Warps per CTA.
    pub warps_per_cta: usize,
    /// Bytes still expected by each mbarrier, by (rank, offset).
    tx: HashMap<(usize, u64), i64>,
    /// Global-to-shared bulk copies issued and not landed, in issue order.
    bulk: Vec<BulkCopy>,
}

/// A global-to-shared `UBLKCP` waiting for its mbarrier's phase.
#[derive(Clone, Debug)]
struct BulkCopy {
    /// The mbarrier, by (rank, offset).
    bar: (usize, u64),
    /// Destination (a cluster shared address) and global source.
    dst: u64,
    src: u64,
    bytes: usize,
}

impl ClusterState {
    /// A cluster of `ctas` CTAs of `warps_per_cta` warps each.
    pub fn new(ctas: usize, warps_per_cta: usize) -> ClusterState {
        ClusterState { arrivals: vec![0; ctas * warps_per_cta], warps_per_cta, tx: HashMap::new(), bulk: Vec::new() }
    }
}

impl Cta<'_> {
    /// The CTA and offset of a shared address as the cluster sees it (the
    /// rank in bits 24-31, sm_90's `(SR_CgaCtaId << 24) + offset`).
    pub(crate) fn cluster_shared(&self, addr: u64) -> Option<(usize, u64)> {
        let rank = usize::try_from(addr >> 24).ok()?;
        (rank < self.shared.len()).then_some((rank, addr & 0xff_ffff))
    }

    /// True when `op` cannot run yet for the lanes `active` of warp `w`:
    /// `UCGABAR_WAIT` before every warp of the cluster arrived as often as
    /// this one, `SYNCS.PHASECHK.TRANS64.TRYWAIT` before the phase it asks
    /// about completed in every lane. (The hardware's try-wait may also
    /// give up after a while and return false; waiting until it can return
    /// true is one of its behaviours, and makes a barrier that never
    /// completes a deadlock the scheduler reports.)
    pub(crate) fn must_wait(&mut self, w: &Warp, step: &Step, op: AsyncOp, active: u32) -> R<bool> {
        match op {
            AsyncOp::ClusterWait => {
                let own = self.cluster.arrivals[self.rank * self.cluster.warps_per_cta + w.index as usize];
                Ok(!self.cluster.arrivals.iter().all(|&a| a >= own))
            }
            AsyncOp::SyncsTryWait => {
                for lane in lanes(active) {
                    if !self.phase_done(w, step, lane)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// Whether the phase of parity `bit 31 of operand 1` of the mbarrier
    /// at operand 0 (`[UR]`, or per thread `[R+URZ]`) has completed, in
    /// `lane`.
    fn phase_done(&mut self, w: &Warp, step: &Step, lane: usize) -> R<bool> {
        let addr = self.addr(w, step, 0, lane, Space::Shared)?;
        self.land_bulk_copies(addr)?;
        let parity = self.u32v(w, step, 1, lane)? >> 31 != 0;
        Ok(mbar_phase(load_le(self.shared_bytes(addr, 8)?)) != parity)
    }

    fn shared_bytes(&mut self, addr: u64, len: usize) -> R<&mut [u8]> {
        if let Some((rank, off)) = self.cluster_shared(addr) {
            self.in_flight.check(rank, off, len).or_else(fault)?;
        }
        let found = self.cluster_shared(addr).and_then(|(rank, off)| {
            let off = usize::try_from(off).ok()?;
            self.shared[rank].get_mut(off..off.checked_add(len)?)
        });
        match found {
            Some(b) => Ok(b),
            None => fault(format!("shared::cluster access of {len} bytes at {addr:#x} out of bounds")),
        }
    }

    /// A uniform register operand `i`, `words` wide (addresses in `[URx]`
    /// are `Src::Mem` bases).
    fn uniform(&self, w: &Warp, step: &Step, i: usize, words: u32) -> R<u64> {
        let loc = match step.uses.get(i) {
            Some((Src::Reg(loc, _), _)) => *loc,
            Some((Src::Mem { base: Some((loc, _)), ubase: None, offset: 0, .. }, _)) => *loc,
            Some((Src::Mem { base: None, ubase: Some(loc), offset: 0, .. }, _)) => *loc,
            _ => return fault(format!("operand {i} is not a uniform register")),
        };
        let lo = u64::from(w.get(loc, 0));
        Ok(if words > 1 { lo | u64::from(w.get_word(loc, 1, 0)) << 32 } else { lo })
    }

    /// Expects `tx` more bytes on the mbarrier at `addr` (negative: bytes
    /// arrived), arrives `arrivals` times, and completes the phase when
    /// nothing is pending. Returns the word before.
    fn mbar_update(&mut self, addr: u64, tx: i64, arrivals: u32) -> R<u64> {
        let key = self.cluster_shared(addr).ok_or_else(|| Stop::Fault(format!("mbarrier at {addr:#x}")))?;
        let bytes = self.shared_bytes(addr, 8)?;
        let old = load_le(bytes);
        let mut word = old;
        for _ in 0..arrivals {
            word = mbar_arrive(word);
        }
        let pending_tx = self.cluster.tx.entry(key).or_insert(0);
        *pending_tx += tx;
        if mbar_pending(word) == 0 && *pending_tx == 0 {
            word = mbar_next_phase(word);
        }
        store_le(self.shared_bytes(addr, 8)?, word);
        Ok(old)
    }

    /// Lands the bulk copies that complete on the mbarrier at `bar`, and
    /// completes their bytes on it: a waiter is looking at its phase, the
    /// latest point the hardware may have finished them by.
    fn land_bulk_copies(&mut self, bar: u64) -> R<()> {
        let Some(key) = self.cluster_shared(bar) else { return Ok(()) };
        let (landing, left): (Vec<_>, Vec<_>) = self.cluster.bulk.drain(..).partition(|c| c.bar == key);
        self.cluster.bulk = left;
        for BulkCopy { dst, src, bytes, .. } in landing {
            let data = match self.global.slice_mut(src, bytes) {
                Some(d) => d.to_vec(),
                None => return fault(format!("UBLKCP: global read of {bytes} bytes at {src:#x}")),
            };
            if let Some((rank, off)) = self.cluster_shared(dst) {
                self.in_flight.release(rank, off, bytes);
            }
            self.shared_bytes(dst, bytes)?.copy_from_slice(&data);
            self.mbar_update(bar, -(bytes as i64), 0)?;
        }
        Ok(())
    }

    /// Claims the shared destination of an asynchronous copy until it lands.
    fn claim(&mut self, addr: u64, bytes: usize, claim: Claim) -> R<()> {
        let Some((rank, off)) = self.cluster_shared(addr) else {
            return fault(format!("{}: shared destination {addr:#x} out of bounds", claim.op));
        };
        let size = self.shared[rank].len();
        self.in_flight.claim(rank, size, off, bytes, claim).or_else(fault)
    }

    /// Performs the copies of `lane` in groups before `until`.
    fn complete_copies(&mut self, w: &mut Warp, lane: usize, until: u32) -> R<()> {
        let (done, left): (Vec<_>, Vec<_>) =
            w.copies.copies.drain(..).partition(|c| usize::from(c.0) == lane && c.1 < until);
        w.copies.copies = left;
        for (_, _, src, dst, bytes, read) in done {
            // A copy that reads nothing may have any source address
            // (masked-off loads point past their buffer).
            let mut data = match self.global.slice_mut(src, read.into()) {
                _ if read == 0 => Vec::new(),
                Some(d) => d.to_vec(),
                None => return fault(format!("LDGSTS: global read of {read} bytes at {src:#x} out of bounds")),
            };
            data.resize(bytes.into(), 0);
            if let Some((rank, off)) = self.cluster_shared(dst) {
                self.in_flight.release(rank, off, bytes.into());
            }
            self.bytes_mut(&mut Vec::new(), Space::Shared, dst, bytes.into(), lane)?.copy_from_slice(&data);
        }
        Ok(())
    }

    /// Runs `op` for the lanes `active` of a group of warp `w`.
    pub(crate) fn step_async(&mut self, w: &mut Warp, step: &Step, op: AsyncOp, active: u32, pc: usize) -> R<()> {
        match op {
            AsyncOp::Ldgsts { bytes, zfill } => {
                for lane in lanes(active) {
                    let dst = self.addr(w, step, 0, lane, Space::Shared)?;
                    let mut src = self.addr(w, step, 1, lane, Space::Global)?;
                    let reads = step.uses.len() < 3 || self.p_in(w, step, 2, lane)?;
                    let mut read = if reads { bytes } else { 0 };
                    if zfill {
                        let zeros = src % u64::from(bytes);
                        src -= zeros;
                        read = read.saturating_sub(zeros as u8);
                    }
                    self.claim(dst, bytes.into(), Claim { pc, op: "LDGSTS" })?;
                    let group = w.copies.open[lane];
                    w.copies.copies.push((lane as u8, group, src, dst, bytes, read));
                }
            }
            AsyncOp::LdgDepbar => {
                for lane in lanes(active) {
                    w.copies.open[lane] += 1;
                }
            }
            AsyncOp::DepbarSb0 { keep } => {
                for lane in lanes(active) {
                    let until = w.copies.open[lane].saturating_sub(keep);
                    self.complete_copies(w, lane, until)?;
                }
            }
            AsyncOp::SyncsExch => {
                if active != 0 {
                    let addr = self.uniform(w, step, 0, 1)?;
                    let value = self.uniform(w, step, 1, 2)?;
                    let key = self.cluster_shared(addr);
                    let bytes = self.shared_bytes(addr, 8)?;
                    let old = load_le(bytes);
                    store_le(bytes, value);
                    if let Some(k) = key {
                        self.cluster.tx.insert(k, 0);
                    }
                    Self::write(w, step, 0, old, &[]);
                }
            }
            AsyncOp::SyncsArrive => {
                for lane in lanes(active) {
                    let addr = self.addr(w, step, 0, lane, Space::Shared)?;
                    let tx = self.u32v(w, step, 1, lane)?;
                    let old = self.mbar_update(addr, i64::from(tx), 1)?;
                    Self::write(w, step, lane, old, &[]);
                }
            }
            AsyncOp::SyncsTryWait => {
                for lane in lanes(active) {
                    let done = self.phase_done(w, step, lane)?;
                    Self::write(w, step, lane, 0, &[done]);
                }
            }
            AsyncOp::Ublkcp { to_shared } => {
                if active != 0 {
                    // The size operand counts 16-byte units (NVIDIA's code
                    // passes 0x400 for `cp.async.bulk` of 16384 bytes).
                    let bytes = self.uniform(w, step, 2, 1)? as usize * 16;
                    if to_shared {
                        let (dst, bar) = (self.uniform(w, step, 0, 1)?, self.uniform(w, step, 0, 2)? >> 32);
                        let src = self.uniform(w, step, 1, 2)?;
                        let Some(bar_key) = self.cluster_shared(bar) else {
                            return fault(format!("UBLKCP: mbarrier at {bar:#x} out of bounds"));
                        };
                        self.claim(dst, bytes, Claim { pc, op: "UBLKCP" })?;
                        self.cluster.bulk.push(BulkCopy { bar: bar_key, dst, src, bytes });
                    } else {
                        let (dst, src) = (self.uniform(w, step, 0, 2)?, self.uniform(w, step, 1, 1)?);
                        let data = self.shared_bytes(src, bytes)?.to_vec();
                        match self.global.slice_mut(dst, bytes) {
                            Some(d) => d.copy_from_slice(&data),
                            None => return fault(format!("UBLKCP: global write of {bytes} bytes at {dst:#x}")),
                        }
                    }
                }
            }
            AsyncOp::ClusterArrive => {
                let i = self.rank * self.cluster.warps_per_cta + w.index as usize;
                self.cluster.arrivals[i] += 1;
            }
            // `must_wait` let the warp through only once the cluster arrived.
            AsyncOp::ClusterWait => {}
            AsyncOp::Elect => {
                let mut q = 0u32;
                for lane in lanes(active) {
                    q |= u32::from(self.p_in(w, step, 0, lane)?) << lane;
                }
                let leader = q.trailing_zeros() as usize;
                for lane in lanes(active) {
                    let elected = lane == leader;
                    for &(loc, _) in &step.defs {
                        match loc {
                            Loc::Slot(f, _) if f.is_predicate() => w.set(loc, lane, u32::from(elected)),
                            Loc::Slot(..) if elected => w.set(loc, 0, leader as u32),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVIDIA's `mbarrier.init [bar], 1` writes lo = (2^20 - 1) << 1,
    /// hi = (2^20 - 1) << 11 (tma_bulk_copy's `UIADD3`/`USHF` sequence).
    fn init(count: u64) -> u64 {
        let c = (COUNT_MASK + 1 - count) & COUNT_MASK;
        c << 1 | (c << 11) << 32
    }

    #[test]
    fn one_arrival_completes_a_count_of_one() {
        let w = init(1);
        assert_eq!(mbar_pending(w), 1);
        assert!(!mbar_phase(w));
        let w = mbar_arrive(w);
        assert_eq!(mbar_pending(w), 0);
        let w = mbar_next_phase(w);
        assert!(mbar_phase(w));
        assert_eq!(mbar_pending(w), 1);
        assert_eq!(mbar_next_phase(mbar_arrive(w)) & !PHASE_BIT, init(1));
    }

    #[test]
    fn counts_above_one_need_every_arrival() {
        let mut w = init(3);
        for left in [2, 1, 0] {
            w = mbar_arrive(w);
            assert_eq!(mbar_pending(w), left);
        }
        assert_eq!(mbar_pending(mbar_next_phase(w)), 3);
    }
}
