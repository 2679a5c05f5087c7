//! Interference as occupancy: for every program point of one register
//! file, a bitset of the registers taken there.
//!
//! This is the fat-point view the seed describes (per-point pressure
//! rather than an interference graph): a register is free for a value
//! when no point of the value's ranges has it taken. Asking costs one OR
//! per point of the value, and memory is a few words per point (256 bits
//! for the R file), whatever the number of values; an interference graph
//! would grow with the square of the values live at once.

use crate::points::Range;

/// Registers of one file taken at each point.
pub(crate) struct Occupancy {
    /// Words per point.
    words: usize,
    /// `points * words` words.
    bits: Vec<u64>,
}

impl Occupancy {
    /// Nothing taken, for `registers` registers at `points` points.
    pub(crate) fn new(registers: u32, points: u32) -> Occupancy {
        let words = (registers as usize).div_ceil(64).max(1);
        Occupancy { words, bits: vec![0; words * points as usize] }
    }

    /// Words of a register mask.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// ORs into `mask` the registers taken anywhere in `ranges`.
    pub(crate) fn taken(&self, ranges: &[Range], mask: &mut [u64]) {
        mask.fill(0);
        for r in ranges {
            let span = &self.bits[r.start as usize * self.words..(r.end as usize + 1) * self.words];
            for point in span.chunks_exact(self.words) {
                for (m, w) in mask.iter_mut().zip(point) {
                    *m |= w;
                }
            }
        }
    }

    /// Marks registers `first..first + width` taken over `ranges`.
    pub(crate) fn take(&mut self, ranges: &[Range], first: u32, width: u8) {
        self.update(ranges, first, width, |w, m| *w |= m);
    }

    /// Marks registers `first..first + width` free over `ranges` again
    /// (undoes [`Occupancy::take`] of a value moved elsewhere; no two
    /// values share a register at a point, so nothing else is cleared).
    pub(crate) fn release(&mut self, ranges: &[Range], first: u32, width: u8) {
        self.update(ranges, first, width, |w, m| *w &= !m);
    }

    /// Applies `op` to every point's words of `ranges` with the mask of
    /// registers `first..first + width`.
    fn update(&mut self, ranges: &[Range], first: u32, width: u8, op: impl Fn(&mut u64, u64)) {
        let mut unit_mask = vec![0u64; self.words];
        for reg in first..first + u32::from(width) {
            unit_mask[reg as usize / 64] |= 1 << (reg % 64);
        }
        for r in ranges {
            let span = &mut self.bits[r.start as usize * self.words..(r.end as usize + 1) * self.words];
            for point in span.chunks_exact_mut(self.words) {
                for (w, &m) in point.iter_mut().zip(&unit_mask) {
                    op(w, m);
                }
            }
        }
    }
}

/// True when two sorted lists of closed ranges share a point.
pub(crate) fn overlaps(a: &[Range], b: &[Range]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].end < b[j].start {
            i += 1;
        } else if b[j].end < a[i].start {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// True when registers `first..first + width` are all clear in `mask`.
pub(crate) fn is_free(mask: &[u64], first: u32, width: u8) -> bool {
    (first..first + u32::from(width)).all(|reg| mask[reg as usize / 64] & (1 << (reg % 64)) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_only_where_the_ranges_meet() {
        let mut occ = Occupancy::new(256, 10);
        occ.take(&[Range { start: 2, end: 4 }], 130, 2);
        let mut mask = vec![0; occ.words()];
        occ.taken(&[Range { start: 0, end: 1 }, Range { start: 5, end: 9 }], &mut mask);
        assert!(is_free(&mask, 130, 2));
        occ.taken(&[Range { start: 4, end: 6 }], &mut mask);
        assert!(!is_free(&mask, 130, 1) && !is_free(&mask, 131, 1) && is_free(&mask, 132, 4));
        assert!(!is_free(&mask, 128, 4), "a quad over a taken register is not free");
    }
}
