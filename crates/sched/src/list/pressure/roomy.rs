//! The roomy pass of `ScheduleBeforeAllocation`: blocks that had to be
//! scheduled for pressure (over [`super::TARGET_REGS`]) are scheduled
//! again for latency, under caps as roomy as the register count the
//! function needs anyway allows.
//!
//! Registers are handed out in granules of eight: once a function needs
//! more than [`super::TARGET_REGS`], the words up to the end of its
//! granule cost no occupancy. The pressure schedule runs the independent
//! chains of such a block one after the other (launch_bounds' 32 chains
//! took 2.09x NVIDIA's issue cycles); here each block gets a latency list
//! schedule whose R cap is the granule's words (less
//! [`ALLOCATOR_SLACK`], the allocator's usual excess over the order's live
//! words), P at 7, UR at the budget, with three rules learned by
//! measurement:
//! 1. the latency pick is taken only among candidates that fit the caps;
//! 2. an instruction writing a predicate waits until the other
//!    predecessors of that predicate's readers are placed (filler compares
//!    would otherwise hold all seven predicates early);
//! 3. only the [`WINDOW`] instructions from the first unplaced one in the
//!    given order are candidates (else the first step of every chain is
//!    hoisted and both files fill).
//!
//! When no candidate passes, the rules are dropped in reverse order, then
//! the fewest words added is taken. Top-down and bottom-up are tried; an
//! order is kept only when its peak fits the caps and its modelled length
//! (`Dag::length`) is at least [`GAIN_PERCENT`] shorter than the
//! order it replaces, so a second run changes nothing.

use super::{FILES, Region, RegionGraph, Walk, Widths, Words};
use ori_ir::{Function, InstId, RegFile};

/// Candidates per step: instructions at most this far (in the given order)
/// from the first one not yet placed.
const WINDOW: usize = 64;

/// Words below the granule's end left to the allocator, whose assignment
/// needs some registers beyond the order's live words (tuple alignment).
/// 4 since the split order's two-level eviction (docs/regalloc.md,
/// session 16): launch_bounds sm_90 then takes 46 registers, same
/// granule; at 2 it takes 49, past it.
pub(super) const ALLOCATOR_SLACK: u32 = 4;

/// An order replaces the given one only when it is this much shorter:
/// smaller gains are within the model's error.
const GAIN_PERCENT: u32 = 10;

/// The registers of one allocation granule.
const GRANULE: u32 = 8;

/// The R cap in words for a function whose blocks peak at `peak` words:
/// the words its granule holds (the registers reported are the words plus
/// `R1` and `reserved`), less the allocator's slack; `None` when that
/// leaves no room above `peak` (a new order would only give the
/// allocator the same words in a shape that may need more registers).
pub(super) fn r_cap(peak: u32, reserved: u32) -> Option<u32> {
    let regs = (peak + 1 + reserved).div_ceil(GRANULE) * GRANULE;
    Some(regs.saturating_sub(1 + reserved + ALLOCATOR_SLACK)).filter(|&cap| cap > peak)
}

/// `region`'s instructions, rescheduled for latency under `cap` when that
/// fits and gains; else as given.
pub(super) fn schedule(
    func: &Function,
    region: &Region,
    widths: &Widths,
    cap: Words,
    table: &crate::latency::LatencyTable,
) -> Vec<InstId> {
    if region.insts.len() < 2 {
        return region.insts.clone();
    }
    let graph = RegionGraph::build(func, region, widths, table);
    let given: Vec<usize> = (0..region.insts.len()).collect();
    let mut best_len = graph.dag.length(&given);
    let mut best = given;
    let threshold = best_len - best_len * GAIN_PERCENT / 100;
    for reverse in [false, true] {
        let order = graph.roomy(region, widths, cap, reverse);
        let peak = graph.peak(region, widths, &order);
        let fits = (0..FILES.len()).all(|f| peak[f] <= cap[f]);
        let len = graph.dag.length(&order);
        if fits && len <= threshold && len < best_len {
            best_len = len;
            best = order;
        }
    }
    best.into_iter().map(|i| region.insts[i]).collect()
}

impl RegionGraph {
    /// One latency list schedule under `cap` with the three rules (module
    /// doc), from the top or, `reverse`, from the bottom.
    fn roomy(&self, region: &Region, widths: &Widths, cap: Words, reverse: bool) -> Vec<usize> {
        let mut walk = Walk::new(self, region, widths, reverse);
        let n = walk.height.len();
        let p = FILES.iter().position(|&f| f == RegFile::P);
        // Rule 2, top-down: for an instruction writing a predicate, the
        // other predecessors of its readers. Bottom-up the predicate's
        // readers come first; the writer then follows at once when its own
        // operands allow, so the rule is only needed going down.
        let waits: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                if reverse {
                    return Vec::new();
                }
                let preds_written: Vec<_> =
                    self.writes[i].iter().filter(|a| Some(a.file) == p).map(|a| a.reg).collect();
                if preds_written.is_empty() {
                    return Vec::new();
                }
                let mut out = Vec::new();
                for &(j, _) in &self.dag.succs[i] {
                    if self.reads[j].iter().any(|a| preds_written.contains(&a.reg)) {
                        out.extend(self.dag.preds[j].iter().map(|&(k, _)| k).filter(|&k| k != i));
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let position = |i: usize| if reverse { n - 1 - i } else { i };
        let mut placed = vec![false; n];
        let mut first_unplaced = 0usize; // in `position` terms
        while !walk.available.is_empty() {
            while first_unplaced < n && placed[if reverse { n - 1 - first_unplaced } else { first_unplaced }] {
                first_unplaced += 1;
            }
            walk.advance();
            let Walk { tracker, height, ready_at, available, cycle, .. } = &walk;
            let words = tracker.words();
            let fits = |i: usize| {
                let d = tracker.delta(i);
                (0..FILES.len()).all(|f| d[f] <= 0 || i64::from(words[f]) + d[f] <= i64::from(cap[f]))
            };
            let in_window = |i: usize| position(i) < first_unplaced + WINDOW;
            let settled = |i: usize| waits[i].iter().all(|&k| placed[k]);
            let key = |i: usize| (ready_at[i] <= *cycle, height[i], std::cmp::Reverse(position(i)));
            let best_of = |filter: &dyn Fn(usize) -> bool| {
                available.iter().copied().filter(|&i| filter(i)).max_by_key(|&i| key(i))
            };
            let pick = best_of(&|i| fits(i) && in_window(i) && settled(i))
                .or_else(|| best_of(&|i| fits(i) && in_window(i)))
                .or_else(|| best_of(&|i| fits(i)))
                .unwrap_or_else(|| {
                    *available
                        .iter()
                        .min_by_key(|&&i| (tracker.delta(i).iter().sum::<i64>(), position(i)))
                        .expect("available is not empty")
                });
            placed[pick] = true;
            walk.place(pick);
        }
        walk.finish(reverse)
    }
}
