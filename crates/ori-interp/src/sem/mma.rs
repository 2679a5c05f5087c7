//! Warp-level matrix operations: `LDSM` (ldmatrix) and `HMMA.16816.F32`
//! (mma.sync m16n8k16 with f16 inputs and f32 accumulators), as functions
//! of the whole warp's registers. The fragment layouts are the PTX ISA's
//! ("Matrix fragments for mma.m16n8k16", "ldmatrix"); NVIDIA's own cubins
//! of mma_ldmatrix and wmma_gemm give the manifest's results with them
//! (`corpus::CASES`).
//!
//! In both, lane `l` belongs to group `g = l / 4` and is thread `t = l % 4`
//! of its group.

use super::half;

/// Lanes of a warp.
const LANES: usize = 32;

/// Where `LDSM` reads the two halves of destination register `i` of `lane`:
/// `(row, byte)` pairs, the row being the lane that supplies that row's
/// address (lanes `8 i .. 8 i + 7` address the rows of matrix `i`) and
/// `byte` the offset in the row. Without `.trans` (`.M88`) the lane gets
/// row `g`, elements `2t` and `2t + 1`; transposed (`.MT88`) it gets
/// column `g` of rows `2t` and `2t + 1`.
pub fn ldsm_source(i: usize, lane: usize, trans: bool) -> [(usize, u64); 2] {
    let (g, t) = (lane / 4, lane % 4);
    if trans {
        [(8 * i + 2 * t, 2 * g as u64), (8 * i + 2 * t + 1, 2 * g as u64)]
    } else {
        [(8 * i + g, 4 * t as u64), (8 * i + g, 4 * t as u64 + 2)]
    }
}

/// `HMMA.16816.F32 d, a, b, c` for the whole warp: `D = A * B + C` with
/// A 16x16 and B 16x8 in binary16, C and D 16x8 in binary32.
///
/// Fragments per lane (PTX ISA): `a[0]` holds A[g][2t..2t+1] (low half
/// first), `a[1]` A[g+8][2t..], `a[2]` A[g][2t+8..], `a[3]` A[g+8][2t+8..];
/// `b[0]` holds B[2t..2t+1][g], `b[1]` B[2t+8..2t+9][g]; `c[0]`, `c[1]` are
/// C[g][2t], C[g][2t+1] and `c[2]`, `c[3]` the same in row g+8.
///
/// Rounding: the products of binary16 values are exact in f64 and so, for
/// the corpus' magnitudes, is their sum with C; the result is rounded once
/// to binary32 (nearest even). The tensor core's own order and truncation
/// of the additions are not documented; results may differ from a GPU in
/// the last bits, which the manifest's tolerance allows.
pub fn hmma_16816_f32(a: &[[u32; 4]; LANES], b: &[[u32; 2]; LANES], c: &[[u32; 4]; LANES]) -> [[u32; 4]; LANES] {
    let mut am = [[0f64; 16]; 16];
    let mut bm = [[0f64; 8]; 16];
    let mut cm = [[0f64; 8]; 16];
    let h = |w: u32, hi: bool| f64::from(half::to_f32(if hi { (w >> 16) as u16 } else { w as u16 }));
    for lane in 0..LANES {
        let (g, t) = (lane / 4, lane % 4);
        for (r, (row, col)) in [(g, 2 * t), (g + 8, 2 * t), (g, 2 * t + 8), (g + 8, 2 * t + 8)].into_iter().enumerate()
        {
            am[row][col] = h(a[lane][r], false);
            am[row][col + 1] = h(a[lane][r], true);
        }
        for (r, k) in [2 * t, 2 * t + 8].into_iter().enumerate() {
            bm[k][g] = h(b[lane][r], false);
            bm[k + 1][g] = h(b[lane][r], true);
        }
        for (r, (row, col)) in [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate()
        {
            cm[row][col] = f64::from(f32::from_bits(c[lane][r]));
        }
    }
    let mut d = [[0u32; 4]; LANES];
    for (lane, out) in d.iter_mut().enumerate() {
        let (g, t) = (lane / 4, lane % 4);
        for (r, (row, col)) in [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate()
        {
            let sum = (0..16).fold(cm[row][col], |acc, k| acc + am[row][k] * bm[k][col]);
            out[r] = canonical((sum as f32).to_bits());
        }
    }
    d
}

/// The FP32 pipe's canonical NaN for any NaN result.
fn canonical(bits: u32) -> u32 {
    if f32::from_bits(bits).is_nan() { 0x7fff_ffff } else { bits }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// binary16 bits of a small integer.
    fn h(v: f64) -> u32 {
        u32::from(half::from_f64(v))
    }

    #[test]
    fn ldsm_rows_and_transposed_columns() {
        // Lane 6: group 1, thread 2. Matrix 3's rows come from lanes 24..31.
        assert_eq!(ldsm_source(3, 6, false), [(25, 8), (25, 10)]);
        assert_eq!(ldsm_source(3, 6, true), [(28, 2), (29, 2)]);
        assert_eq!(ldsm_source(0, 31, false), [(7, 12), (7, 14)]);
    }

    /// A[m][k] = m + 2k, B[k][n] = k - n, C[m][n] = m * n, all exact: each
    /// lane's result must be the reference at its fragment's positions.
    #[test]
    fn hmma_matches_the_reference_product() {
        let av = |m: usize, k: usize| (m + 2 * k) as f64;
        let bv = |k: usize, n: usize| k as f64 - n as f64;
        let cv = |m: usize, n: usize| (m * n) as f64;
        let (mut a, mut b, mut c) = ([[0; 4]; LANES], [[0; 2]; LANES], [[0; 4]; LANES]);
        for lane in 0..LANES {
            let (g, t) = (lane / 4, lane % 4);
            for (r, (row, col)) in
                [(g, 2 * t), (g + 8, 2 * t), (g, 2 * t + 8), (g + 8, 2 * t + 8)].into_iter().enumerate()
            {
                a[lane][r] = h(av(row, col)) | h(av(row, col + 1)) << 16;
            }
            for (r, k) in [2 * t, 2 * t + 8].into_iter().enumerate() {
                b[lane][r] = h(bv(k, g)) | h(bv(k + 1, g)) << 16;
            }
            for (r, (row, col)) in
                [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate()
            {
                c[lane][r] = (cv(row, col) as f32).to_bits();
            }
        }
        let d = hmma_16816_f32(&a, &b, &c);
        for (lane, out) in d.iter().enumerate() {
            let (g, t) = (lane / 4, lane % 4);
            for (r, (row, col)) in
                [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate()
            {
                let want: f64 = (0..16).map(|k| av(row, k) * bv(k, col)).sum::<f64>() + cv(row, col);
                assert_eq!(f32::from_bits(out[r]), want as f32, "lane {lane} register {r}");
            }
        }
    }
}
