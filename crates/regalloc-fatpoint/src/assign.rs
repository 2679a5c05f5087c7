//! The fat-point greedy assignment: virtual registers in a priority
//! order, each given the lowest free register (aligned for tuples) over
//! all the points where it is live, or a copy partner's register when
//! that costs no extra register.
//!
//! Two orders, tried in turn by the driver (the seed's NOSPILL attempts):
//! - definition order (by first live point): on straight-line code this is
//!   interval-graph colouring, which first-fit does optimally, and on
//!   structured code close to the dominance order that colours chordal
//!   (SSA-like) interference with the fewest registers;
//! - priority order (spill cost per point covered, dearest first, spill
//!   temporaries before everything): what cannot be placed within the
//!   limit is then the cheapest to spill.
//!
//! A third, widest first, is tried beside a successful definition order
//! whose R count exceeds the pressure bound: a single placed early can
//! split the aligned block a later pair or quad needs.

use fixedbitset::FixedBitSet;
use ori_ir::RegFile;

use crate::interference::{Occupancy, is_free, overlaps};
use crate::points::{Hint, LiveRanges};
use crate::units::{ABI, alignment, file_start};

/// The order in which virtual registers choose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// By first live point.
    Definition,
    /// Widest first, then by first live point: tuples take their aligned
    /// blocks before singles can split them.
    WideFirst,
    /// By spill cost per point, spill temporaries first.
    Priority,
    /// Definition order with the R file split at a ceiling: tuples take
    /// the lowest aligned free register, singles the highest free one
    /// below the ceiling (as many registers as the ceiling, at most). The
    /// two kinds meet in the middle instead of interleaving, so singles
    /// no longer leave one-register holes between the aligned blocks a
    /// later pair needs (first-fit's fragmentation when many chains of
    /// singles and 64-bit addresses are live together).
    Split(u32),
    /// The split order whose tuples may also move values two levels deep
    /// to find an aligned block (`evict_singles`).
    SplitDeep(u32),
}

/// The outcome of one attempt.
pub(crate) struct Assignment {
    /// First physical register of each virtual register, by bit; `None`
    /// when it does not occur or found no register.
    pub(crate) first: Vec<Option<u32>>,
    /// Virtual registers (bits) that found no register within the limit.
    pub(crate) failed: Vec<usize>,
    /// Per file (in [`RegFile::ALL`] order): one past the highest
    /// register handed out.
    pub(crate) used: [u32; RegFile::ALL.len()],
}

/// Assigns registers of each file below `limits[file]`. `temps` are the
/// spill temporaries, which must not be spilled again. With `scratch_first`
/// (device functions, which must save the callee-saved registers they
/// write), a value takes the lowest free caller-saved register when one
/// fits, and a callee-saved one only otherwise.
pub(crate) fn assign(
    lr: &LiveRanges,
    limits: &[u32; 5],
    order: Order,
    temps: &FixedBitSet,
    scratch_first: bool,
) -> Assignment {
    let mut occupancy: Vec<Occupancy> = RegFile::ALL
        .iter()
        .map(|&file| {
            let mut occ = Occupancy::new(file.physical_count(), lr.points);
            let start = file_start(file);
            for num in 0..file.physical_count() {
                occ.take(&lr.units[start + num as usize], num, 1);
            }
            occ
        })
        .collect();
    let mut out = Assignment { first: vec![None; lr.vregs.len()], failed: Vec::new(), used: [0; RegFile::ALL.len()] };
    let mut mask = Vec::new();
    // Split order: the values placed in each R register, for eviction.
    let mut placed_at: Vec<Vec<usize>> = vec![Vec::new(); RegFile::R.physical_count() as usize];
    for bit in sorted(lr, order, temps) {
        let info = &lr.vregs[bit];
        let file = lr.space.vreg(bit).file;
        let occ = &mut occupancy[file.index()];
        mask.resize(occ.words(), 0);
        occ.taken(&info.ranges, &mut mask);
        let (width, step, mut limit) = (info.width, alignment(info.width), limits[file.index()]);
        let split = match order {
            Order::Split(ceiling) | Order::SplitDeep(ceiling) if file == RegFile::R => {
                limit = limit.min(ceiling);
                true
            }
            _ => false,
        };
        let fits = |first: u32| {
            first.is_multiple_of(step)
                && first + u32::from(width) <= limit
                && is_free(&mask, first, width)
                && !(first..first + u32::from(width)).any(|n| ABI.is_reserved(file, n))
        };
        let Some(lowest) = (0..limit).step_by(step as usize).find(|&first| fits(first)) else {
            if split && width > 1 {
                let reserved = |first: u32| (first..first + u32::from(width)).any(|n| ABI.is_reserved(file, n));
                let ctx = Evict { lr, limit, placed_at: &mut placed_at, first: &mut out.first, reserved: &reserved };
                let levels = if matches!(order, Order::SplitDeep(_)) { 2 } else { 1 };
                let ev = evict_singles(ctx, occ, bit, levels);
                if let Some((first, top)) = ev {
                    out.first[bit] = Some(first);
                    let used = &mut out.used[file.index()];
                    *used = (*used).max(first + u32::from(width)).max(top);
                    continue;
                }
            }
            out.failed.push(bit);
            continue;
        };
        let scratch =
            |first: u32| fits(first) && !(first..first + u32::from(width)).any(|n| ABI.is_callee_saved(file, n));
        let cheap = (0..limit).step_by(step as usize).find(|&first| scratch(first)).filter(|_| scratch_first);
        if let Some(cheap) = cheap {
            let hinted = match info.hint {
                Some(Hint::VReg(other)) => out.first[other],
                Some(Hint::Unit(unit)) => unit.checked_sub(file_start(file)).map(|n| n as u32),
                None => None,
            };
            let first = hinted.filter(|&h| scratch(h)).unwrap_or(cheap);
            occ.take(&info.ranges, first, width);
            out.first[bit] = Some(first);
            let used = &mut out.used[file.index()];
            *used = (*used).max(first + u32::from(width));
            continue;
        }
        let hinted = match info.hint {
            Some(Hint::VReg(other)) => out.first[other],
            Some(Hint::Unit(unit)) => unit.checked_sub(file_start(file)).map(|n| n as u32),
            None => None,
        };
        if split {
            // Below the ceiling every register costs the same: a copy
            // partner's when free, else singles from the top.
            let top = || (lowest..limit).rev().find(|&first| fits(first));
            let first = hinted.filter(|&h| fits(h)).or_else(|| if width == 1 { top() } else { None }).unwrap_or(lowest);
            occ.take(&info.ranges, first, width);
            out.first[bit] = Some(first);
            placed_at[first as usize].push(bit);
            let used = &mut out.used[file.index()];
            *used = (*used).max(first + u32::from(width));
            continue;
        }
        // A copy partner's register is worth taking while it does not
        // raise the register count beyond what the lowest free one would.
        let used = &mut out.used[file.index()];
        let ceiling = (*used).max(lowest + u32::from(width));
        let within = |first: u32| fits(first) && first + u32::from(width) <= ceiling;
        let first =
            hinted.filter(|&h| within(h)).or_else(|| snug(width, lowest, ceiling, &within, &fits)).unwrap_or(lowest);
        occ.take(&info.ranges, first, width);
        out.first[bit] = Some(first);
        *used = (*used).max(first + u32::from(width));
    }
    out
}

/// What [`evict_singles`] needs of the assignment in progress.
struct Evict<'a> {
    lr: &'a LiveRanges,
    /// One past the highest R register that may be handed out.
    limit: u32,
    /// Values placed in each R register (split order).
    placed_at: &'a mut Vec<Vec<usize>>,
    first: &'a mut Vec<Option<u32>>,
    /// True for a block that holds a reserved register.
    reserved: &'a dyn Fn(u32) -> bool,
}

/// Places tuple `bit`, which found no free aligned block below the
/// limit, by moving the values that block one elsewhere: in the split
/// order singles die in any order and leave one-register holes beside
/// live ones, where an aligned block is often only one single away; where
/// no block is only singles away, a pair or quad in the way is moved to
/// another aligned block free over its whole range (the roomy schedule's
/// many 64-bit addresses, docs/sched.md). Blocks needing only singles
/// moved are tried first, then those needing the fewest moves; each moved
/// value takes a place free over its whole range (a single the highest
/// free register, a tuple the lowest free aligned block, as the split
/// order places them). Only when no block works so and `levels` is 2 is
/// a second level tried: a moved value that finds no free place may
/// itself move the values in its way, each of those to a free place. Returns the block's
/// first register and one past the highest register a moved value took,
/// with the occupancy, `placed_at` and `first` updated, or `None` with
/// nothing changed.
fn evict_singles(ctx: Evict<'_>, occ: &mut Occupancy, bit: usize, levels: u32) -> Option<(u32, u32)> {
    let Evict { lr, limit, placed_at, first: firsts, reserved } = ctx;
    let info = &lr.vregs[bit];
    let (width, step) = (u32::from(info.width), alignment(info.width));
    // (moves tuples, values moved, block)
    let mut candidates: Vec<(bool, usize, u32)> = Vec::new();
    let mut moves = Moves { lr, limit, occ, placed_at, firsts, log: Vec::new(), pinned: vec![bit] };
    for block in (0..limit).step_by(step as usize) {
        if block + width > limit || reserved(block) {
            continue;
        }
        let movers = moves.occupants(bit, block);
        let tuples = movers.iter().any(|&o| lr.vregs[o].width > 1);
        if !movers.is_empty() {
            candidates.push((tuples, movers.len(), block));
        }
    }
    candidates.sort_unstable();
    for depth in 0..levels {
        for &(_, _, block) in &candidates {
            if moves.put(bit, block, depth) {
                let top = moves.log.iter().filter_map(|m| Some(m.2? + u32::from(lr.vregs[m.0].width))).max();
                return Some((block, top.unwrap_or(0)));
            }
            debug_assert!(moves.log.is_empty());
        }
    }
    None
}

/// The values moved while [`evict_singles`] tries a block, undone when it
/// fails.
struct Moves<'a, 'b> {
    lr: &'a LiveRanges,
    limit: u32,
    occ: &'b mut Occupancy,
    placed_at: &'b mut Vec<Vec<usize>>,
    firsts: &'b mut Vec<Option<u32>>,
    /// (value, where it was, where it is): in the order done.
    log: Vec<(usize, Option<u32>, Option<u32>)>,
    /// Values placed by the move in progress, which no deeper move may
    /// lift again.
    pinned: Vec<usize>,
}

impl Moves<'_, '_> {
    /// The values placed in registers `block..` (as wide as `v`) whose
    /// ranges meet `v`'s.
    fn occupants(&self, v: usize, block: u32) -> Vec<usize> {
        let width = u32::from(self.lr.vregs[v].width);
        (block..(block + width).min(self.limit))
            .flat_map(|n| self.placed_at[n as usize].iter().copied())
            .filter(|&o| o != v && overlaps(&self.lr.vregs[o].ranges, &self.lr.vregs[v].ranges))
            .collect()
    }

    /// Moves `v` to `to` (`None`: lifts it), logged.
    fn shift(&mut self, v: usize, to: Option<u32>) {
        let (ranges, width) = (&self.lr.vregs[v].ranges, self.lr.vregs[v].width);
        let from = self.firsts[v];
        if let Some(old) = from {
            self.occ.release(ranges, old, width);
            self.placed_at[old as usize].retain(|&x| x != v);
        }
        if let Some(new) = to {
            self.occ.take(ranges, new, width);
            self.placed_at[new as usize].push(v);
        }
        self.firsts[v] = to;
        self.log.push((v, from, to));
    }

    /// Undoes the log back to `mark` entries.
    fn undo(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some((v, from, to)) = self.log.pop() else { break };
            let (ranges, width) = (&self.lr.vregs[v].ranges, self.lr.vregs[v].width);
            if let Some(new) = to {
                self.occ.release(ranges, new, width);
                self.placed_at[new as usize].retain(|&x| x != v);
            }
            if let Some(old) = from {
                self.occ.take(ranges, old, width);
                self.placed_at[old as usize].push(v);
            }
            self.firsts[v] = from;
        }
    }

    /// True when `v` may start at `n`: below the limit, clear of the
    /// reserved registers, aligned.
    fn allowed(&self, v: usize, n: u32) -> bool {
        let w = self.lr.vregs[v].width;
        n.is_multiple_of(alignment(w)) && n + u32::from(w) <= self.limit && !(n..n + u32::from(w)).any(reserved_single)
    }

    /// Places `v` at `block`, lifting the values there and moving each to
    /// a free place, or (`depth` above 0) to a place freed by moving the
    /// values there in turn. False with everything undone when that
    /// fails.
    fn put(&mut self, v: usize, block: u32, depth: u32) -> bool {
        let mark = self.log.len();
        let movers = self.occupants(v, block);
        if movers.iter().any(|m| self.pinned.contains(m)) {
            return false;
        }
        for &m in &movers {
            self.shift(m, None);
        }
        let mut mask = vec![0u64; self.occ.words()];
        let (ranges, width) = (&self.lr.vregs[v].ranges, self.lr.vregs[v].width);
        self.occ.taken(ranges, &mut mask);
        if !is_free(&mask, block, width) {
            // Something else (a physical register) holds the block.
            self.undo(mark);
            return false;
        }
        self.shift(v, Some(block));
        let pinned = self.pinned.len();
        self.pinned.push(v);
        for &m in &movers {
            if !self.relocate(m, depth) {
                self.pinned.truncate(pinned);
                self.undo(mark);
                return false;
            }
        }
        self.pinned.truncate(pinned);
        true
    }

    /// Finds lifted `m` a place: a free one first (a single the highest,
    /// a tuple the lowest), else, `depth` above 0, one whose values can
    /// move.
    fn relocate(&mut self, m: usize, depth: u32) -> bool {
        let (ranges, w) = (&self.lr.vregs[m].ranges, self.lr.vregs[m].width);
        let mut mask = vec![0u64; self.occ.words()];
        self.occ.taken(ranges, &mut mask);
        let places: Vec<u32> = if w == 1 {
            (0..self.limit).rev().filter(|&n| self.allowed(m, n)).collect()
        } else {
            (0..self.limit).step_by(alignment(w) as usize).filter(|&n| self.allowed(m, n)).collect()
        };
        if let Some(&n) = places.iter().find(|&&n| is_free(&mask, n, w)) {
            self.shift(m, Some(n));
            return true;
        }
        depth > 0 && places.into_iter().any(|n| self.put(m, n, depth - 1))
    }
}

/// True for an R register no value may take.
fn reserved_single(n: u32) -> bool {
    ABI.is_reserved(RegFile::R, n)
}

/// A register for a single or a pair that does not split a free aligned
/// block of twice its width (its buddy, the other half of that block, is
/// taken there), so that wider values arriving later still find room; a
/// first-fit single in R2 would otherwise push a later pair from R2.64 to
/// R4.64. Only registers below `ceiling` are considered.
fn snug(
    width: u8,
    lowest: u32,
    ceiling: u32,
    within: &impl Fn(u32) -> bool,
    fits: &impl Fn(u32) -> bool,
) -> Option<u32> {
    if width > 2 {
        return None;
    }
    let w = u32::from(width);
    (lowest..ceiling).step_by(w as usize).find(|&first| within(first) && !fits(first ^ w))
}

/// The virtual registers that occur, in `order`.
fn sorted(lr: &LiveRanges, order: Order, temps: &FixedBitSet) -> Vec<usize> {
    let mut bits: Vec<usize> = (0..lr.vregs.len()).filter(|&b| lr.vregs[b].width > 0).collect();
    match order {
        Order::Definition | Order::Split(_) | Order::SplitDeep(_) => {
            bits.sort_by_key(|&b| (lr.vregs[b].ranges.first().map(|r| r.start), b))
        }
        Order::WideFirst => bits
            .sort_by_key(|&b| (std::cmp::Reverse(lr.vregs[b].width), lr.vregs[b].ranges.first().map(|r| r.start), b)),
        Order::Priority => {
            let density = |b: usize| lr.vregs[b].weight / lr.vregs[b].size().max(1) as f64;
            bits.sort_by(|&a, &b| {
                temps.contains(b).cmp(&temps.contains(a)).then(density(b).total_cmp(&density(a))).then(a.cmp(&b))
            });
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfg::VReg;

    fn run(text: &str, limit_r: u32, order: Order) -> (LiveRanges, Assignment) {
        let func = ori_ir::text::parse_function(text).unwrap();
        let lr = LiveRanges::compute(&func);
        let temps = FixedBitSet::with_capacity(lr.vregs.len());
        let a = assign(&lr, &[limit_r, 63, 7, 7, 16], order, &temps, false);
        (lr, a)
    }

    fn reg_of(lr: &LiveRanges, a: &Assignment, num: u32) -> Option<u32> {
        a.first[lr.space.bit(VReg { file: RegFile::R, num }).unwrap()]
    }

    const CHAIN: &str = "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %r1 = IADD3 %r0, 0x1, RZ
    %r2 = IADD3 %r0, %r1, RZ
    %r3.64 = IMAD.WIDE %r2, 0x4, %r6.64
    %r5 = MOV %r2
    STG.E [%r3.64], %r5
    EXIT
}
";

    #[test]
    fn first_fit_skips_the_stack_pointer_and_aligns_pairs() {
        let (lr, a) = run(CHAIN, 253, Order::Definition);
        assert_eq!(reg_of(&lr, &a, 6), Some(2), "live from the entry, first pair above R1");
        assert_eq!(reg_of(&lr, &a, 0), Some(0));
        assert_eq!(reg_of(&lr, &a, 1), Some(4));
        assert_eq!(reg_of(&lr, &a, 2), Some(0), "a result may take a source's register");
        assert_eq!(reg_of(&lr, &a, 3), Some(2), "and a pair its source pair's");
        assert_eq!(reg_of(&lr, &a, 5), Some(0), "the copy takes its source's register");
        assert_eq!(a.used[0], 5);
        assert!(a.failed.is_empty());
    }

    #[test]
    fn what_does_not_fit_fails() {
        let (lr, a) = run(CHAIN, 5, Order::Priority);
        assert!(!a.failed.is_empty());
        assert!(a.first.iter().flatten().all(|&r| r < 5 && r != 1));
        assert!(a.failed.iter().all(|&b| lr.vregs[b].width > 0));
    }

    /// B outlives A and C, which die together before the pair is
    /// written: first-fit gave A R0, B R2, C R3, so the only aligned pair
    /// left is R4 (6 registers); the split order under a ceiling of 5
    /// puts singles high and moves B out of R2/R3 for the pair.
    const FRAGMENTS: &str = "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %r2 = S2R SR_TID.Y
    %r3 = S2R SR_TID.Z
    %r4 = IADD3 %r0, %r3, RZ
    %r6.64 = IMAD.WIDE.U32 %r4, 0x4, RZ
    STG.E [%r6.64], %r2
    EXIT
}
";

    #[test]
    fn the_split_order_places_a_pair_first_fit_fragments_away() {
        let (lr, first_fit) = run(FRAGMENTS, 253, Order::Definition);
        assert_eq!(first_fit.used[0], 6, "first-fit: the pair above A, B, C");
        let temps = FixedBitSet::with_capacity(lr.vregs.len());
        let split = assign(&lr, &[253, 63, 7, 7, 16], Order::Split(5), &temps, false);
        assert!(split.failed.is_empty());
        assert_eq!(split.used[0], 5);
        let pair = reg_of(&lr, &split, 6).unwrap();
        let b = reg_of(&lr, &split, 2).unwrap();
        assert!(pair % 2 == 0 && pair != 0, "aligned, clear of R1");
        assert!(b != pair && b != pair + 1, "B was moved out of the pair's block");
        assert!(split.first.iter().flatten().all(|&r| r != 1 && r < 5));
    }

    #[test]
    fn the_split_order_fails_rather_than_pass_its_ceiling() {
        let (lr, _) = run(FRAGMENTS, 253, Order::Definition);
        let temps = FixedBitSet::with_capacity(lr.vregs.len());
        let split = assign(&lr, &[253, 63, 7, 7, 16], Order::Split(4), &temps, false);
        assert!(!split.failed.is_empty(), "three words live and R1 need four registers, the pair an aligned block");
        assert!(split.first.iter().flatten().all(|&r| r < 4));
    }
}
