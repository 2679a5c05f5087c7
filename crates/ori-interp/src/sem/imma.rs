//! `IMMA` (mma.sync with 8-bit integer inputs and 32-bit integer
//! accumulators: m16n8k32 and m16n8k16, `.s8`/`.u8` for A and B apart,
//! `.satfinite`) as a function of the whole warp's registers. The fragment
//! layouts are the PTX ISA's ("Matrix fragments for mma.m16n8k32 /
//! m16n8k16" with `.s8`/`.u8`); tests/lower_semantics.rs runs NVIDIA's
//! cubins against a reference built from them (`imma_matches_nvidia`).
//!
//! Lane `l` belongs to group `g = l / 4` and is thread `t = l % 4` of its
//! group; a register holds four elements, the low byte first.

/// Lanes of a warp.
const LANES: usize = 32;

/// An `IMMA` form: `IMMA.16832` (k = 32) or `IMMA.16816` (k = 16), the
/// signedness of A and B (`.S8`/`.U8`), `.SAT`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Imma {
    /// The shared dimension, 16 or 32.
    pub k: usize,
    /// A's elements are signed.
    pub a_signed: bool,
    /// B's elements are signed.
    pub b_signed: bool,
    /// Clamp the sums to the 32-bit range (`.satfinite`); else they wrap.
    pub sat: bool,
}

impl Imma {
    /// Registers of A per lane.
    pub fn a_regs(self) -> usize {
        self.k / 8
    }

    /// Registers of B per lane.
    pub fn b_regs(self) -> usize {
        self.k / 16
    }

    /// Registers of C and D per lane.
    pub const C_REGS: usize = 4;
}

/// Byte `e` of `w` as a signed or unsigned value.
fn element(w: u32, e: usize, signed: bool) -> i64 {
    let byte = (w >> (8 * e)) as u8;
    if signed { i64::from(byte as i8) } else { i64::from(byte) }
}

/// `IMMA d, a, b, c` for the whole warp: `D = A * B + C` with A 16 x k, B
/// k x 8, C and D 16 x 8 (32-bit integers). Fragments: A register `r`
/// holds A[g + 8 (r % 2)][4t + 16 (r / 2) + e] (k = 32) or A[g + 8r][4t +
/// e] (k = 16), B register `r` holds B[4t + 16r + e][g], C and D register
/// `r` hold C[g + 8 (r / 2)][2t + r % 2]. The sum is exact; `.SAT` clamps
/// it to the `i32` range, otherwise its low 32 bits are kept.
pub fn imma(op: Imma, a: &[[u32; 4]; LANES], b: &[[u32; 4]; LANES], c: &[[u32; 4]; LANES]) -> [[u32; 4]; LANES] {
    let mut am = [[0i64; 32]; 16];
    let mut bm = [[0i64; 8]; 32];
    let mut cm = [[0i64; 8]; 16];
    for lane in 0..LANES {
        let (g, t) = (lane / 4, lane % 4);
        for (r, &w) in a[lane][..op.a_regs()].iter().enumerate() {
            let (row, col) = if op.k == 32 { (g + 8 * (r % 2), 4 * t + 16 * (r / 2)) } else { (g + 8 * r, 4 * t) };
            for e in 0..4 {
                am[row][col + e] = element(w, e, op.a_signed);
            }
        }
        for (r, &w) in b[lane][..op.b_regs()].iter().enumerate() {
            for e in 0..4 {
                bm[4 * t + 16 * r + e][g] = element(w, e, op.b_signed);
            }
        }
        for (r, &(row, col)) in positions(lane).iter().enumerate() {
            cm[row][col] = i64::from(c[lane][r] as i32);
        }
    }
    let mut d = [[0u32; 4]; LANES];
    for (lane, out) in d.iter_mut().enumerate() {
        for (r, &(row, col)) in positions(lane).iter().enumerate() {
            let sum = (0..op.k).fold(cm[row][col], |acc, k| acc + am[row][k] * bm[k][col]);
            out[r] = if op.sat { sum.clamp(i32::MIN.into(), i32::MAX.into()) as u32 } else { sum as u32 };
        }
    }
    d
}

/// `(row, column)` of each accumulator register of `lane`.
fn positions(lane: usize) -> [(usize, usize); 4] {
    let (g, t) = (lane / 4, lane % 4);
    [0, 1, 2, 3].map(|r| (g + 8 * (r / 2), 2 * t + r % 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All-ones A and B: every element of D is C + k (times the signs).
    #[test]
    fn sums_and_saturation() {
        let ones = [[0x0101_0101u32; 4]; LANES];
        let minus = [[0xffff_ffffu32; 4]; LANES];
        let c = [[5u32, i32::MAX as u32, (-3i32) as u32, 0]; LANES];
        let op = Imma { k: 32, a_signed: true, b_signed: true, sat: false };
        let d = imma(op, &ones, &minus, &c);
        assert_eq!(d[7], [5u32.wrapping_sub(32), (i32::MAX as u32).wrapping_sub(32), (-35i32) as u32, (-32i32) as u32]);
        // Unsigned B: 255 each, k = 16.
        let op = Imma { k: 16, a_signed: true, b_signed: false, sat: true };
        let d = imma(op, &ones, &minus, &c);
        assert_eq!(d[0], [5 + 16 * 255, i32::MAX as u32, (16 * 255 - 3) as u32, 16 * 255]);
        let op = Imma { sat: false, ..op };
        assert_eq!(imma(op, &ones, &minus, &c)[0][1], (i32::MAX as u32).wrapping_add(16 * 255));
    }
}
