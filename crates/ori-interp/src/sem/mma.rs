//! Warp-level matrix operations: `LDSM` (ldmatrix) and `HMMA` (mma.sync
//! m16n8k16 and m16n8k8 with f16, bf16 or tf32 inputs and f32 or f16
//! accumulators), as functions
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

/// The input type of an `HMMA`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MmaInput {
    /// binary16, two per register.
    F16,
    /// bfloat16, two per register.
    Bf16,
    /// TensorFloat-32: a binary32 register whose low 13 bits are ignored.
    Tf32,
}

/// An `HMMA` form: `HMMA.16816` (k = 16) or `HMMA.1688` (k = 8), its
/// input type, binary32 (`.F32`) or binary16 (`.F16`) accumulators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hmma {
    /// The shared dimension, 8 or 16.
    pub k: usize,
    /// The type of A and B.
    pub input: MmaInput,
    /// C and D are binary32 (else pairs of binary16).
    pub f32_acc: bool,
}

impl Hmma {
    /// Registers of A per lane.
    pub fn a_regs(self) -> usize {
        if self.k == 16 || self.input == MmaInput::Tf32 { 4 } else { 2 }
    }

    /// Registers of B per lane.
    pub fn b_regs(self) -> usize {
        self.a_regs() / 2
    }

    /// Registers of C and D per lane.
    pub fn c_regs(self) -> usize {
        if self.f32_acc { 4 } else { 2 }
    }

    /// An input register's elements as values (one for tf32, the low
    /// then the high half otherwise).
    fn elements(self, w: u32) -> Vec<f64> {
        let h = |b: u16| match self.input {
            MmaInput::Bf16 => f64::from(f32::from_bits(u32::from(b) << 16)),
            _ => f64::from(half::to_f32(b)),
        };
        match self.input {
            MmaInput::Tf32 => vec![f64::from(f32::from_bits(w & !0x1fff))],
            _ => vec![h(w as u16), h((w >> 16) as u16)],
        }
    }
}

/// `HMMA d, a, b, c` for the whole warp: `D = A * B + C` with A 16 x k, B
/// k x 8, C and D 16 x 8. Each lane's registers are `a[lane][..a_regs]`,
/// `b[lane][..b_regs]`, `c[lane][..c_regs]`; so is the result.
///
/// Fragments (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8"),
/// lane `l` in group `g = l / 4` as thread `t = l % 4`: with 16-bit
/// inputs, A register `r` holds A[g + 8 (r % 2)][2t + 8 (r / 2)] and the
/// next column, B register `r` holds B[2t + 8r][g] and the next row; with
/// tf32, A register `r` holds A[g + 8 (r % 2)][t + 4 (r / 2)] and B
/// register `r` B[t + 4r][g]. binary32 C and D register `r` hold
/// C[g + 8 (r / 2)][2t + r % 2]; binary16 ones pack C[g + 8r][2t] and
/// C[g + 8r][2t + 1].
///
/// Rounding: the products are exact in f64 and so, for the magnitudes of
/// the tests, is their sum with C; the result is rounded once (nearest
/// even). The tensor core's own order and truncation of the additions
/// are not documented; results may differ from a GPU in the last bits.
pub fn hmma(op: Hmma, a: &[[u32; 4]; LANES], b: &[[u32; 4]; LANES], c: &[[u32; 4]; LANES]) -> [[u32; 4]; LANES] {
    let mut am = [[0f64; 16]; 16];
    let mut bm = [[0f64; 8]; 16];
    let mut cm = [[0f64; 8]; 16];
    let tf32 = op.input == MmaInput::Tf32;
    for lane in 0..LANES {
        let (g, t) = (lane / 4, lane % 4);
        for (r, &word) in a[lane].iter().enumerate().take(op.a_regs()) {
            let (row, col) =
                if tf32 { (g + 8 * (r % 2), t + 4 * (r / 2)) } else { (g + 8 * (r % 2), 2 * t + 8 * (r / 2)) };
            for (e, v) in op.elements(word).into_iter().enumerate() {
                am[row][col + e] = v;
            }
        }
        for (r, &word) in b[lane].iter().enumerate().take(op.b_regs()) {
            let k = if tf32 { t + 4 * r } else { 2 * t + 8 * r };
            for (e, v) in op.elements(word).into_iter().enumerate() {
                bm[k + e][g] = v;
            }
        }
        for (row, col, r, hi) in acc_positions(op, lane) {
            let w = c[lane][r];
            cm[row][col] = if op.f32_acc {
                f64::from(f32::from_bits(w))
            } else {
                f64::from(half::to_f32(if hi { (w >> 16) as u16 } else { w as u16 }))
            };
        }
    }
    let mut d = [[0u32; 4]; LANES];
    for (lane, out) in d.iter_mut().enumerate() {
        for (row, col, r, hi) in acc_positions(op, lane) {
            let sum = (0..op.k).fold(cm[row][col], |acc, k| acc + am[row][k] * bm[k][col]);
            if op.f32_acc {
                out[r] = canonical((sum as f32).to_bits());
            } else {
                out[r] |= u32::from(half::from_f64(sum)) << if hi { 16 } else { 0 };
            }
        }
    }
    d
}

/// `(row, column, register, high half)` of each accumulator element of
/// `lane`.
fn acc_positions(op: Hmma, lane: usize) -> [(usize, usize, usize, bool); 4] {
    let (g, t) = (lane / 4, lane % 4);
    let mut out = [(0, 0, 0, false); 4];
    for (i, slot) in out.iter_mut().enumerate() {
        let (row, col) = (g + 8 * (i / 2), 2 * t + i % 2);
        *slot = if op.f32_acc { (row, col, i, false) } else { (row, col, i / 2, i % 2 == 1) };
    }
    out
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
        let (mut a, mut b, mut c) = ([[0; 4]; LANES], [[0; 4]; LANES], [[0; 4]; LANES]);
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
        let d = hmma(Hmma { k: 16, input: MmaInput::F16, f32_acc: true }, &a, &b, &c);
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
