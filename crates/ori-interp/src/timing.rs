//! An estimate of how long a warp runs when nothing hides its latency:
//! [`crate::Stats::est_cycles`].
//!
//! Issue cycles alone (the control words' stalls) do not see memory
//! latency, so they cannot tell a schedule that keeps sixteen loads in
//! flight from one that waits for each in turn (the allocator reusing
//! one register for every load makes the second; the stalls are the
//! same). Here each warp has a clock: an instruction issues once the
//! scoreboards its control word waits for are released, a variable-
//! latency instruction releases its write scoreboard [`Completion`]
//! cycles after it issues and its read scoreboard a few cycles after,
//! and the clock then moves on by the instruction's stall count.
//!
//! The completion cycles are a model, not a measurement: one figure per
//! class of unit, of the order published microbenchmarks of Ampere and
//! Hopper report (shared memory some 30 cycles, the L2 some 200-300, DRAM
//! more). Every access is taken to go as far as the L2, with no cache
//! model and no contention; warps do not overlap (each warp's cycles are
//! summed), so the figure compares two schedules of one kernel on the
//! same launch, which is all it is for.

use ori_ir::{Ctrl, Opcode};

/// Cycles until a variable-latency instruction's results are written,
/// by unit: the model's one table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Global, generic and local memory, atomics and asynchronous copies.
    Memory,
    /// Shared memory.
    Shared,
    /// The constant cache.
    Constant,
    /// Special registers and other units reached through a queue
    /// (transcendentals, conversions, population counts, ...).
    Queue,
}

impl Completion {
    /// Cycles from issue to the write scoreboard's release.
    pub const fn cycles(self) -> u64 {
        match self {
            Completion::Memory => 300,
            Completion::Shared => 30,
            Completion::Constant => 20,
            Completion::Queue => 16,
        }
    }

    /// The unit of `op`.
    pub fn of(op: Opcode) -> Completion {
        use Opcode as O;
        match op {
            O::LDS | O::LDSM | O::STS | O::STSM | O::ATOMS => Completion::Shared,
            O::LDC => Completion::Constant,
            O::LDG | O::LD | O::LDL | O::STG | O::ST | O::STL | O::ATOM | O::ATOMG | O::RED | O::REDG | O::LDGSTS => {
                Completion::Memory
            }
            _ => Completion::Queue,
        }
    }
}

/// Cycles from issue to the read scoreboard's release (the sources have
/// been read and may be overwritten).
const SOURCES_READ: u64 = 12;

/// What the clock needs of one instruction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// Cycles before the warp's next instruction may issue (at least 1).
    pub stall: u8,
    /// Scoreboards waited for before issue (bit i = SB i).
    pub wait: u8,
    /// Scoreboard released when the results are written, and when.
    pub write_sb: Option<(u8, u64)>,
    /// Scoreboard released once the sources are read.
    pub read_sb: Option<u8>,
}

impl Timing {
    /// The timing of `op` under control word `ctrl` (none: one cycle).
    pub fn new(op: Opcode, ctrl: Option<Ctrl>) -> Timing {
        let Some(c) = ctrl else { return Timing { stall: 1, ..Timing::default() } };
        Timing {
            stall: c.stall.max(1),
            wait: c.wait,
            write_sb: c.write_sb.map(|sb| (sb, Completion::of(op).cycles())),
            read_sb: c.read_sb,
        }
    }
}

/// One warp's clock.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// The cycle the warp's next instruction may issue at.
    pub now: u64,
    /// When each scoreboard is released.
    ready: [u64; Ctrl::SCOREBOARDS as usize],
}

impl Clock {
    /// Issues one instruction; returns the cycles the warp's clock moved.
    pub fn issue(&mut self, t: &Timing) -> u64 {
        let start = self.now;
        let waited = (0..Ctrl::SCOREBOARDS).filter(|sb| t.wait & 1 << sb != 0).map(|sb| self.ready[sb as usize]).max();
        let at = start.max(waited.unwrap_or(0));
        if let Some((sb, cycles)) = t.write_sb {
            self.release_at(sb, at + cycles);
        }
        if let Some(sb) = t.read_sb {
            self.release_at(sb, at + SOURCES_READ);
        }
        self.now = at + u64::from(t.stall);
        self.now - start
    }

    /// A scoreboard counts outstanding instructions: it is released when
    /// the last of them is.
    fn release_at(&mut self, sb: u8, cycle: u64) {
        if let Some(r) = self.ready.get_mut(sb as usize) {
            *r = (*r).max(cycle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(stall: u8, write_sb: Option<u8>, wait: u8) -> Option<Ctrl> {
        Some(Ctrl { stall, yield_: false, write_sb, read_sb: None, wait })
    }

    #[test]
    fn loads_in_flight_together_cost_one_latency() {
        let load = Timing::new(Opcode::LDG, ctrl(1, Some(0), 0));
        let use_ = Timing::new(Opcode::FFMA, ctrl(4, None, 1));
        let mut together = Clock::default();
        for _ in 0..4 {
            together.issue(&load);
        }
        for _ in 0..4 {
            together.issue(&use_);
        }
        let mut serial = Clock::default();
        for _ in 0..4 {
            serial.issue(&load);
            serial.issue(&use_);
        }
        let memory = Completion::Memory.cycles();
        assert_eq!(together.now, 3 + memory + 16);
        assert_eq!(serial.now, 4 * (memory + 4));
    }

    #[test]
    fn no_control_word_is_one_cycle() {
        let mut c = Clock::default();
        assert_eq!(c.issue(&Timing::new(Opcode::LDG, None)), 1);
    }
}
