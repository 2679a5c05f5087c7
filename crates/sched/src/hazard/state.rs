//! What is in flight at one program point: the abstract state the checker
//! and the control-word phase share.
//!
//! Scoreboards are counters in hardware: several operations may signal the
//! same one, and a wait waits for all of them. A pending operation is
//! recorded per register unit as a bit `(scoreboard, younger)`, where
//! `younger` counts the operations issued on the same scoreboard after it
//! (saturating), so that `DEPBAR.LE SBn, k` (wait until at most `k` remain,
//! oldest first) clears exactly the entries it covers.

use super::ordering::{Classes, ORDERINGS};
use crate::latency::LatencyTable;
use crate::units::Unit;

/// Bits per scoreboard in a pending mask: `younger` 0..=7.
const AGES: u32 = 8;

/// Cycles after issue at which a fixed-latency uniform-datapath
/// instruction (`ULEA`, `UIADD3`, `USHF`, ...) reads its uniform sources.
/// A fixed-latency write to one of them, issued `d` cycles after the
/// reader with latency `L` (the table's smallest), lands in time to be
/// read by mistake unless `d + L > 4`. The bound is pinned from both
/// sides: on an H200 a `UMOV UR7, 0x700` (L = 2) issued 2 cycles after
/// `ULEA UR6, UR6, UR7, 0x18` reached the `ULEA` (globals_const: an
/// out-of-bounds shared load; patching that `UMOV`'s immediate alone made
/// the fault go away), so the read is at 4 or later; NVIDIA issues a
/// `UMOV` 3 cycles after a `ULEA` that reads it, so it is at 4 or sooner.
/// NVIDIA's `UIADD3` (L = 4) and `USHF` (L = 5) overwrite a source 2
/// cycles after the reader, which agrees.
pub const UNIFORM_READ_CYCLES: u8 = 4;

/// A set of pending operations protecting one unit (bit `sb * 8 +
/// younger`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pending(u64);

impl Pending {
    /// Nothing pending.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Scoreboards (bit mask) that protect some pending entry.
    pub fn scoreboards(self) -> u8 {
        (0..6).filter(|&sb| self.0 >> (sb * AGES) & 0xff != 0).fold(0, |m, sb| m | 1 << sb)
    }

    /// Both sets.
    pub fn union(self, other: Pending) -> Pending {
        Pending(self.0 | other.0)
    }
}

/// Everything in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Per unit: cycles before a fixed-latency result may be read as a
    /// source (`[0]`) and as a guard (`[1]`).
    pub ready: Vec<[u8; 2]>,
    /// Per unit: the opcode whose fixed-latency result `ready` counts
    /// down, for readers that need less than its slowest reader
    /// ([`State::source_ready`]); `None` where paths with different
    /// producers meet.
    pub producer: Vec<Option<&'static str>>,
    /// Per unit: pending variable-latency writes.
    pub writes: Vec<Pending>,
    /// Per unit: pending reads by instructions with a read scoreboard.
    pub reads: Vec<Pending>,
    /// Per scoreboard: cycles before a set becomes visible to a wait.
    pub arming: [u8; 6],
    /// Per unit: cycles before a uniform-datapath instruction reads it
    /// ([`UNIFORM_READ_CYCLES`]): a fixed-latency write with a latency no
    /// larger must not issue yet ([`State::overwrites_uniform_read`]).
    pub held: Vec<u8>,
    /// Per timed ordering ([`ORDERINGS`]): cycles before an instruction
    /// of its second class may issue.
    pub timed: [u8; ORDERINGS.len()],
}

impl Default for State {
    fn default() -> State {
        State {
            ready: vec![[0; 2]; Unit::COUNT],
            producer: vec![None; Unit::COUNT],
            writes: vec![Pending::default(); Unit::COUNT],
            reads: vec![Pending::default(); Unit::COUNT],
            arming: [0; 6],
            held: vec![0; Unit::COUNT],
            timed: [0; ORDERINGS.len()],
        }
    }
}

impl State {
    /// The state where control comes from several places: everything that
    /// may be in flight on some path.
    pub fn join(&mut self, other: &State) -> bool {
        // Each field reports whether it changed: joins run once per edge and
        // round of the control-word dataflow, too often to copy the state.
        fn each<T: Copy + PartialEq>(a: &mut [T], b: &[T], f: impl Fn(T, T) -> T) -> bool {
            let mut changed = false;
            for (a, &b) in a.iter_mut().zip(b) {
                let v = f(*a, b);
                changed |= v != *a;
                *a = v;
            }
            changed
        }
        let mut changed = each(&mut self.ready, &other.ready, |a, b| [a[0].max(b[0]), a[1].max(b[1])]);
        changed |= each(&mut self.producer, &other.producer, |a, b| if a == b { a } else { None });
        changed |= each(&mut self.writes, &other.writes, Pending::union);
        changed |= each(&mut self.reads, &other.reads, Pending::union);
        changed |= each(&mut self.arming, &other.arming, u8::max);
        changed |= each(&mut self.held, &other.held, u8::max);
        changed |= each(&mut self.timed, &other.timed, u8::max);
        changed
    }

    /// Cycles before an instruction of opcode `reader` may read `u` as an
    /// ordinary source, where `ready` counts the distances we emit (the
    /// producer row's `safe`): less by what the pair's distance saves
    /// ([`LatencyTable::reader_latency`]).
    pub fn source_ready(&self, u: Unit, reader: &str, table: &LatencyTable) -> u8 {
        let ready = self.ready[u.index()][0];
        self.producer[u.index()].map_or(ready, |op| ready.saturating_sub(table.reader_saving(op, reader)))
    }

    /// True when a fixed-latency write of `u` with smallest latency
    /// `latency`, issued now, would land before a pending uniform read of
    /// `u` ([`UNIFORM_READ_CYCLES`]).
    pub fn overwrites_uniform_read(&self, u: Unit, latency: u8) -> bool {
        let held = self.held[u.index()];
        held > 0 && held >= latency
    }

    /// Cycles to wait before a fixed-latency write of `u` with smallest
    /// latency `latency` may issue ([`State::overwrites_uniform_read`]).
    pub fn uniform_read_delay(&self, u: Unit, latency: u8) -> u8 {
        (self.held[u.index()] + 1).saturating_sub(latency.max(1))
    }

    /// Cycles before an instruction of `classes` may issue, for the timed
    /// orderings it is second in.
    pub fn ordering_delay(&self, classes: Classes) -> u8 {
        ORDERINGS.iter().zip(self.timed).filter(|(o, _)| classes.intersects(o.then)).map(|(_, t)| t).max().unwrap_or(0)
    }

    /// An instruction of `classes` issues: the timed orderings it is first
    /// in start counting.
    pub fn start_orderings(&mut self, classes: Classes) {
        for (o, t) in ORDERINGS.iter().zip(&mut self.timed) {
            if classes.intersects(o.first) {
                *t = o.cycles;
            }
        }
    }

    /// Waits on every scoreboard in `mask`: their operations are done.
    pub fn wait(&mut self, mask: u8) {
        if mask == 0 {
            return;
        }
        let keep = !(0..6).filter(|sb| mask >> sb & 1 == 1).fold(0u64, |m, sb| m | 0xff << (sb * AGES));
        for p in self.writes.iter_mut().chain(self.reads.iter_mut()) {
            p.0 &= keep;
        }
    }

    /// `DEPBAR.LE SBsb, count`: all but the `count` youngest operations on
    /// `sb` are done.
    pub fn depbar(&mut self, sb: u8, count: u8) {
        let done = (u64::from(count.min(7))..u64::from(AGES)).fold(0u64, |m, age| m | 1 << (u64::from(sb) * 8 + age));
        for p in self.writes.iter_mut().chain(self.reads.iter_mut()) {
            p.0 &= !done;
        }
    }

    /// A new operation on `sb`: every pending one on it gets one younger
    /// operation (the oldest age saturates).
    pub fn age(&mut self, sb: u8) {
        let shift = u32::from(sb) * AGES;
        for p in self.writes.iter_mut().chain(self.reads.iter_mut()) {
            let lane = (p.0 >> shift) & 0xff;
            let aged = ((lane << 1) | (lane & 0x80)) & 0xff;
            p.0 = (p.0 & !(0xff << shift)) | aged << shift;
        }
    }

    /// The entry a new operation on `sb` leaves: youngest on that board.
    pub fn fresh(sb: u8) -> Pending {
        Pending(1 << (u32::from(sb) * AGES))
    }

    /// Lets `cycles` pass.
    pub fn advance(&mut self, cycles: u8) {
        for r in &mut self.ready {
            *r = [r[0].saturating_sub(cycles), r[1].saturating_sub(cycles)];
        }
        for a in &mut self.arming {
            *a = a.saturating_sub(cycles);
        }
        for h in &mut self.held {
            *h = h.saturating_sub(cycles);
        }
        for t in &mut self.timed {
            *t = t.saturating_sub(cycles);
        }
    }

    /// Scoreboards with some operation pending.
    pub fn busy(&self) -> u8 {
        self.writes.iter().chain(&self.reads).fold(Pending::default(), |m, &p| m.union(p)).scoreboards()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_partial_waits() {
        let mut s = State::default();
        s.writes[0] = State::fresh(2);
        s.age(2);
        s.writes[1] = State::fresh(2);
        assert_eq!(s.busy(), 0b100);
        // One operation may stay: the younger (unit 1) does.
        s.depbar(2, 1);
        assert!(s.writes[0].is_empty());
        assert!(!s.writes[1].is_empty());
        s.wait(0b100);
        assert!(s.writes[1].is_empty());
        assert_eq!(s.busy(), 0);
    }

    #[test]
    fn age_saturates() {
        let mut s = State::default();
        s.reads[5] = State::fresh(0);
        for _ in 0..20 {
            s.age(0);
        }
        s.depbar(0, 7);
        assert!(s.reads[5].is_empty(), "an entry with 7 or more younger ones is covered by DEPBAR.LE 7");
    }
}
