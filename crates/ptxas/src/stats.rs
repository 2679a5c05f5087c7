//! Compiler statistics: per-phase time and memory (`--compiler-stats`).
//!
//! Memory figures need allocation counters, which only the program that
//! owns the global allocator can provide: the `ptxas` binary installs
//! [`CountingAlloc`] and passes it to the library as a [`MemoryMeter`].
//! An embedder that does not gets time figures only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::manager::PhaseStat;

/// Allocation counters at one moment, or their change over an interval.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocSnapshot {
    /// Bytes allocated.
    pub allocated: u64,
    /// Bytes freed.
    pub freed: u64,
    /// Highest number of bytes live at once.
    pub peak: u64,
}

impl AllocSnapshot {
    /// The change from `earlier` to `self` (the peak is kept as is: it
    /// is a high-water mark, not a counter).
    pub fn since(&self, earlier: &AllocSnapshot) -> AllocSnapshot {
        AllocSnapshot {
            allocated: self.allocated.saturating_sub(earlier.allocated),
            freed: self.freed.saturating_sub(earlier.freed),
            peak: self.peak,
        }
    }

    /// Bytes allocated and not freed.
    pub fn retained(&self) -> u64 {
        self.allocated.saturating_sub(self.freed)
    }
}

/// A source of allocation counters.
pub trait MemoryMeter: Sync {
    /// The counters now.
    fn snapshot(&self) -> AllocSnapshot;
}

/// A global allocator that counts what it does; install it with
/// `#[global_allocator]` in a binary to get memory statistics.
pub struct CountingAlloc {
    allocated: AtomicU64,
    freed: AtomicU64,
    peak: AtomicU64,
}

impl CountingAlloc {
    /// A fresh counter.
    pub const fn new() -> CountingAlloc {
        CountingAlloc { allocated: AtomicU64::new(0), freed: AtomicU64::new(0), peak: AtomicU64::new(0) }
    }

    fn record_alloc(&self, size: usize) {
        let allocated = self.allocated.fetch_add(size as u64, Ordering::Relaxed) + size as u64;
        let live = allocated.saturating_sub(self.freed.load(Ordering::Relaxed));
        self.peak.fetch_max(live, Ordering::Relaxed);
    }
}

impl Default for CountingAlloc {
    fn default() -> Self {
        CountingAlloc::new()
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are
// only bookkeeping.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.record_alloc(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.freed.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.freed.fetch_add(layout.size() as u64, Ordering::Relaxed);
        self.record_alloc(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

impl MemoryMeter for CountingAlloc {
    fn snapshot(&self) -> AllocSnapshot {
        AllocSnapshot {
            allocated: self.allocated.load(Ordering::Relaxed),
            freed: self.freed.load(Ordering::Relaxed),
            peak: self.peak.load(Ordering::Relaxed),
        }
    }
}

/// What `--compiler-stats` asks for.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsRequest {
    /// `time`: per-phase and total compile time.
    pub time: bool,
    /// `memory`: per-phase allocation and peak memory.
    pub memory: bool,
}

impl StatsRequest {
    /// True when anything is asked for.
    pub fn any(&self) -> bool {
        self.time || self.memory
    }
}

/// Sizes as the seed's reporter prints them: bytes below 1 KiB, KB with
/// three decimals up to 10 MiB, MB above.
pub fn format_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..=10_485_760 => format!("{:.3} KB", bytes as f64 / KIB),
        _ => format!("{:.3} MB", bytes as f64 / (KIB * KIB)),
    }
}

/// The `STAT:` lines for the phases, then a summary over all of them.
pub fn phase_lines(stats: &[PhaseStat], request: StatsRequest) -> Vec<String> {
    let width = stats.iter().map(|s| s.phase.len()).max().unwrap_or(0).max("All Phases Summary".len());
    let line = |name: &str, time: Duration, memory: Option<AllocSnapshot>| {
        let mut text = format!("STAT: {name:<width$}  ::");
        if request.time {
            text += &format!("  [Time {:.3} ms]", time.as_secs_f64() * 1e3);
        }
        if request.memory
            && let Some(m) = memory
        {
            text += &format!(
                "  [Allocated {}]  [Freed {}]  [Retained {}]",
                format_size(m.allocated),
                format_size(m.freed),
                format_size(m.retained())
            );
        }
        text
    };
    let mut lines: Vec<String> = stats.iter().map(|s| line(&s.phase, s.time, s.memory)).collect();
    let total_time = stats.iter().map(|s| s.time).sum();
    let total_memory = stats.iter().filter_map(|s| s.memory).reduce(|a, b| AllocSnapshot {
        allocated: a.allocated + b.allocated,
        freed: a.freed + b.freed,
        peak: a.peak.max(b.peak),
    });
    lines.push(line("All Phases Summary", total_time, total_memory));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_the_seed_thresholds() {
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1536), "1.500 KB");
        assert_eq!(format_size(10_485_760), "10240.000 KB");
        assert_eq!(format_size(10_485_761), "10.000 MB");
    }

    #[test]
    fn summary_adds_up() {
        let stat = |phase: &str, ms: u64, allocated: u64, freed: u64| PhaseStat {
            phase: phase.into(),
            time: Duration::from_millis(ms),
            memory: Some(AllocSnapshot { allocated, freed, peak: 0 }),
        };
        let lines =
            phase_lines(&[stat("A", 1, 2048, 1024), stat("Bb", 2, 1024, 0)], StatsRequest { time: true, memory: true });
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[2],
            "STAT: All Phases Summary  ::  [Time 3.000 ms]  [Allocated 3.000 KB]  [Freed 1.000 KB]  [Retained 2.000 KB]"
        );
        assert!(lines[0].starts_with("STAT: A                   ::  [Time 1.000 ms]"));
    }
}
